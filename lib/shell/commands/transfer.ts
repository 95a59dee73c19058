/**
 * `transfer`: the card's eDMA copies between an attached buffer and card memory
 * (metis.ko's DMA_XFER), on a Metis session. The value is the transfer; `wait` finishes
 * an asynchronous one (poll() on the file) and checks bytes read back from the card.
 *
 * @module
 */
import { TRANSFER_DIRECTIONS, type TransferDirection } from "../../core/metis/device.ts";
import { parseCount, parseSize } from "../args.ts";
import { type ShellCommand } from "../command.ts";
import { UsageError } from "../../commands/spec.ts";
import { MetisAttachment, MetisTransfer, readBytes } from "../metis_objects.ts";
import { resolveOrLatest } from "../resolve.ts";

/** The `transfer` command. */
export const command: ShellCommand = {
  name: "transfer",
  summary: "copy an attached buffer to card memory or back (Metis DMA_XFER); 'wait' finishes it",
  positionals: [
    { name: "to-card|from-card", kind: "choice", choices: TRANSFER_DIRECTIONS },
    { name: "ATTACHMENT", kind: "import", optional: true },
  ],
  options: {
    card: {
      type: "string",
      kind: "number",
      arg: "ADDR",
      description: "card memory address of the first byte (default 0)",
    },
    offset: {
      type: "string",
      kind: "number",
      arg: "BYTES",
      description: "offset into the buffer (default 0)",
    },
    size: {
      type: "string",
      kind: "number",
      arg: "BYTES",
      description: "bytes to copy (default: to the end of the buffer)",
    },
    sync: { type: "boolean", description: "a SYNC transfer: done when the command returns" },
    timeout: {
      type: "string",
      kind: "number",
      arg: "MS",
      description: "how long an async transfer may take (default 10000)",
    },
  },
  details: "Only on a Metis session (axl shell --device metis): axl.ko has no card memory.\n" +
    "An async transfer (the default) completes through poll() on the node's file; one\n" +
    "transfer per file runs at a time. The session remembers the bytes each to-card\n" +
    "transfer put on the card, and 'wait' on a from-card transfer compares what came\n" +
    "back with them. Examples:\n" +
    "  t = transfer to-card att --card 0x1000       the attached buffer to card 0x1000\n" +
    "  transfer from-card --sync --size 4K           4 KiB of card 0 into the buffer",
  run(ctx, args) {
    const [direction, word, ...extra] = args.positionals;
    if (extra.length) throw new UsageError("transfer: one attachment at a time");
    if (!TRANSFER_DIRECTIONS.includes(direction as TransferDirection)) {
      throw new UsageError(
        `transfer: say which way first: ${TRANSFER_DIRECTIONS.join(" or ")} (got '${
          direction ?? ""
        }')`,
      );
    }
    const s = ctx.session;
    s.metis("transfer");
    const target = resolveOrLatest(s, word, ["import"], "transfer");
    if (!(target instanceof MetisAttachment)) {
      throw new UsageError("transfer: that import is axl.ko's; transfer needs a Metis attachment");
    }
    const v = args.values as Record<string, string | undefined>;
    const offset = v.offset === undefined ? 0 : parseCount(v.offset, "transfer: --offset");
    const card = BigInt(v.card === undefined ? 0 : parseCount(v.card, "transfer: --card"));
    const size = v.size === undefined ? target.buffer.size - offset : parseSize(v.size);
    const options = {
      direction: direction as TransferDirection,
      card,
      offset,
      size,
      ...(v.timeout === undefined
        ? {}
        : { timeoutMs: parseCount(v.timeout, "transfer: --timeout") }),
    };
    // what goes to the card, read before the eDMA runs, so a later from-card is checkable
    const sent = options.direction === "to-card"
      ? readBytes(target.buffer, offset, size)
      : undefined;
    const transfer = MetisTransfer.start(target, options, args.values.sync === true);
    if (sent) {
      transfer.promise.then(() => s.card.wrote(card, sent), () => undefined);
    }
    s.track("job", transfer, `transfer ${args.positionals.join(" ")}`);
    return Promise.resolve({ value: transfer });
  },
};
