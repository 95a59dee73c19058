/**
 * `ls` in the shell (lib/commands/ls.ts): dma-bufs with their attached devices, fd refs
 * and map refs — of this process, or system-wide with --all — once or with --watch.
 *
 * @module
 */
import { lsSpec } from "../../commands/ls.ts";
import { UsageError } from "../../commands/spec.ts";
import { type ShellCommand } from "../command.ts";
import { listDmaBufs, listingText } from "../dmabuf_listing.ts";
import { type LsFlags, lsFlags, watchDmaBufs } from "../dmabuf_watch.ts";

/** The `ls` command. */
export const command: ShellCommand = {
  ...lsSpec,
  async run(ctx, args) {
    const flags: LsFlags = lsFlags(args, "ls");
    if (!flags.watch) {
      if (flags.intervalMs !== undefined || flags.count !== undefined) {
        throw new UsageError("ls: --interval and --count go with --watch");
      }
      const listing = await listDmaBufs(flags.list);
      return { value: listing, text: listingText(listing) };
    }
    const out = Deno.stdout;
    const enc = new TextEncoder();
    const refreshes = await watchDmaBufs({
      // a watch is of the system, as top is: --pid narrows it
      list: { ...flags.list, all: flags.list.pids === undefined },
      intervalMs: flags.intervalMs ?? 1000,
      ...(flags.count === undefined ? {} : { count: flags.count }),
      json: false,
      terminal: out.isTerminal(),
      signal: ctx.signal,
      write: (text) => void out.writeSync(enc.encode(text)),
    });
    return { value: { refreshes }, text: `ls --watch: ${refreshes} refresh(es)` };
  },
};
