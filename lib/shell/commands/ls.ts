/**
 * `ls`: dma-bufs with their attached devices, fd refs and map refs — of this process,
 * or system-wide with --all (the view of Android's dmabuf_dump).
 *
 * @module
 */
import { parseCount } from "../args.ts";
import { type ShellCommand } from "../command.ts";
import { listDmaBufs, listingText } from "../dmabuf_listing.ts";

/** The `ls` command. */
export const command: ShellCommand = {
  name: "ls",
  summary: "list dma-bufs: attached devices (bufinfo), fd refs and map refs",
  positionals: [],
  options: {
    all: { type: "boolean", short: "a", description: "every process and every buffer in bufinfo" },
    pid: {
      type: "string",
      kind: "number",
      arg: "PID",
      description: "one process instead of this one",
    },
  },
  details: "Attachments come from debugfs dma_buf/bufinfo (root, debugfs mounted) and exist\n" +
    "only while a buffer is imported: a frame held by the camera and imported by the NPU\n" +
    "shows two devices. Map refs are CPU mappings (/proc/PID/maps '/dmabuf:' lines).",
  async run(_ctx, args) {
    const pid = args.values.pid as string | undefined;
    const listing = await listDmaBufs({
      all: args.values.all === true,
      ...(pid === undefined ? {} : { pids: [parseCount(pid, "ls: --pid")] }),
    });
    return { value: listing, text: listingText(listing) };
  },
};
