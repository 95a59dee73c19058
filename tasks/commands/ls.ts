/**
 * `axl ls`: the system's dma-bufs, once or refreshed with --watch (lib/commands/ls.ts).
 *
 * @module
 */
import { cliCommand } from "../command.ts";
import { ExitCode } from "../../lib/commands/exit_code.ts";
import { lsSpec } from "../../lib/commands/ls.ts";
import { UsageError } from "../../lib/commands/spec.ts";
import { listDmaBufs, listingText, listingWarnings } from "../../lib/shell/dmabuf_listing.ts";
import { lsFlags, watchDmaBufs } from "../../lib/shell/dmabuf_watch.ts";
import { printJson } from "../_cli.ts";

/** The `ls` command. */
export const command = cliCommand(lsSpec, async (args) => {
  const flags = lsFlags(args, "ls");
  // The CLI is its own process: "this process" would list nothing, so all is the default.
  const list = { ...flags.list, all: flags.list.pids === undefined };
  if (!flags.watch) {
    if (flags.intervalMs !== undefined || flags.count !== undefined) {
      throw new UsageError("ls: --interval and --count go with --watch");
    }
    const listing = await listDmaBufs(list);
    if (args.values.json) printJson(listing);
    else {
      // The listing on stdout, what could not be read on stderr.
      console.log(listingText(listing, false));
      for (const line of listingWarnings(listing)) console.error(line);
    }
    return ExitCode.Ok;
  }
  const stop = new AbortController();
  const onSigint = () => stop.abort();
  Deno.addSignalListener("SIGINT", onSigint);
  const enc = new TextEncoder();
  try {
    await watchDmaBufs({
      list,
      intervalMs: flags.intervalMs ?? 1000,
      ...(flags.count === undefined ? {} : { count: flags.count }),
      json: args.values.json === true,
      terminal: Deno.stdout.isTerminal(),
      signal: stop.signal,
      write: (text) => void Deno.stdout.writeSync(enc.encode(text)),
    });
  } finally {
    Deno.removeSignalListener("SIGINT", onSigint);
  }
  // Ctrl-C is how a watch ends: not a failure
  return ExitCode.Ok;
});
