/**
 * The card's own witness: metis.ko's debugfs `dma-trace` and `dma-statistics`.
 *
 * The `axl-aipu-*.c` driver (1.4.16 and later; so 1.4.17, the release Voyager 1.6.1 pins,
 * and 1.6.2) keeps a ring of one line per eDMA transfer in
 * `/sys/kernel/debug/metis/metis-<PCI function>/dma-trace`; the `metis-*.c` driver (1.4.4)
 * has only `dma-statistics` there. axl.ko's simulated node keeps both, in 1.6.2's format, under
 * `/sys/kernel/debug/axl-metis/metis-<PCI function>/` for the releases whose source has them.
 *
 * `dma-trace` reads as a header and one line per transfer, oldest first:
 *
 * ```text
 * DMA Trace Buffer Status:
 *   Enabled: yes
 *   Total traces: 2
 *   Overruns: 0
 *   Buffer size: 4096 entries
 *   Current entries: 2
 *
 * RD, CH0, 5021348223, 5021449012, 5021449012, 5021451876, 460800
 * ```
 *
 * The fields are the mode (`RD`: the eDMA reads host memory, a transfer to the card; `WR`: it
 * writes host memory, from the card), the channel, then `CLOCK_MONOTONIC` nanoseconds of the
 * request (the ioctl), the work item's start, the DMA's start and end, and the bytes moved.
 * Writes: `enable`, `disable`, `clear` (empty the ring), `reset` (also the counters).
 *
 * @module
 */

/** One transfer in `dma-trace`. */
export interface DmaTraceEntry {
  /** `RD`: host memory -> card (a WRITE transfer); `WR`: card -> host memory. */
  mode: "RD" | "WR";
  /** eDMA channel. */
  channel: number;
  /** When the transfer was requested (the ioctl), `CLOCK_MONOTONIC` ns. */
  requestNs: bigint;
  /** When its work item started. */
  workNs: bigint;
  /** When the DMA started. */
  startNs: bigint;
  /** When the DMA ended. */
  endNs: bigint;
  /** Bytes transferred. */
  bytes: number;
}

/** `dma-trace` read whole. */
export interface DmaTrace {
  /** Tracing is on. */
  enabled: boolean;
  /** Entries recorded since the last `reset`. */
  total: number;
  /** Entries overwritten before being read. */
  overruns: number;
  /** Ring size in entries. */
  size: number;
  /** The entries the ring holds, oldest first. */
  entries: DmaTraceEntry[];
  /** Entries the driver said it could not print ("... N more entries"). */
  truncated: number;
}

const HEADER = {
  enabled: /^\s*Enabled:\s*(yes|no)\s*$/,
  total: /^\s*Total traces:\s*(\d+)\s*$/,
  overruns: /^\s*Overruns:\s*(\d+)\s*$/,
  size: /^\s*Buffer size:\s*(\d+) entries\s*$/,
};
const LINE = /^(RD|WR), CH(-?\d+), (\d+), (\d+), (\d+), (\d+), (\d+)$/;
const MORE = /^\.\.\. (\d+) more entries/;

/**
 * Parses `dma-trace`.
 *
 * @example
 * ```ts
 * import { parseDmaTrace } from "./dma_trace.ts";
 * const t = parseDmaTrace(
 *   "DMA Trace Buffer Status:\n  Enabled: yes\n  Total traces: 1\n  Overruns: 0\n" +
 *     "  Buffer size: 4096 entries\n  Current entries: 1\n\nRD, CH0, 10, 20, 20, 30, 4096\n",
 * );
 * console.log(t.entries[0]?.bytes); // 4096
 * console.log(t.enabled); // true
 * ```
 */
export function parseDmaTrace(text: string): DmaTrace {
  const out: DmaTrace = {
    enabled: false,
    total: 0,
    overruns: 0,
    size: 0,
    entries: [],
    truncated: 0,
  };
  if (!text.startsWith("DMA Trace Buffer Status:")) {
    throw new Error(`not metis.ko's dma-trace: ${JSON.stringify(text.slice(0, 40))}`);
  }
  for (const line of text.split("\n")) {
    let m: RegExpExecArray | null;
    if ((m = HEADER.enabled.exec(line))) out.enabled = m[1] === "yes";
    else if ((m = HEADER.total.exec(line))) out.total = Number(m[1]);
    else if ((m = HEADER.overruns.exec(line))) out.overruns = Number(m[1]);
    else if ((m = HEADER.size.exec(line))) out.size = Number(m[1]);
    else if ((m = MORE.exec(line))) out.truncated = Number(m[1]);
    else if ((m = LINE.exec(line))) {
      out.entries.push({
        mode: m[1] as "RD" | "WR",
        channel: Number(m[2]),
        requestNs: BigInt(m[3]!),
        workNs: BigInt(m[4]!),
        startNs: BigInt(m[5]!),
        endNs: BigInt(m[6]!),
        bytes: Number(m[7]),
      });
    }
  }
  return out;
}

/** One channel block of `dma-statistics`. */
export interface DmaStatBlock {
  /** `RD` (host -> card) or `WR` (card -> host), as the driver names the eDMA channel. */
  mode: "RD" | "WR";
  /** Channel number. */
  channel: number;
  /** Transfers requested since load or the last reset (`request`). */
  requests: number;
  /** Bytes requested (`bytes`). */
  bytes: number;
  /** Failed transfers (`errors`). */
  errors: number;
  /** Most scatterlist entries of a transferred buffer (`max sgt`). */
  maxSgt: number;
}

/**
 * Parses `dma-statistics` (every generation prints it the same way).
 *
 * @example
 * ```ts
 * import { parseDmaStatistics } from "./dma_trace.ts";
 * const s = parseDmaStatistics(
 *   "\nDMA Statistics\n\n========= RD Channel 0 ================\ncount : 0\n" +
 *     "request : 3\nerrors : 0\nbytes : 300\nmax sgt : 1\n",
 * );
 * console.log(s[0]!.requests); // 3
 * console.log(s[0]!.mode); // "RD"
 * ```
 */
export function parseDmaStatistics(text: string): DmaStatBlock[] {
  const out: DmaStatBlock[] = [];
  let cur: DmaStatBlock | undefined;
  for (const line of text.split("\n")) {
    const head = /^=+ (RD|WR) Channel (\d+) =+$/.exec(line.trim());
    if (head) {
      cur = {
        mode: head[1] as "RD" | "WR",
        channel: Number(head[2]),
        requests: 0,
        bytes: 0,
        errors: 0,
        maxSgt: 0,
      };
      out.push(cur);
      continue;
    }
    const kv = /^(request|bytes|errors|max sgt) : (\d+)$/.exec(line.trim());
    if (!cur || !kv) continue;
    const v = Number(kv[2]);
    if (kv[1] === "request") cur.requests = v;
    else if (kv[1] === "bytes") cur.bytes = v;
    else if (kv[1] === "errors") cur.errors = v;
    else cur.maxSgt = v;
  }
  return out;
}

/** Where a node's debugfs files are. */
export interface DmaTraceFiles {
  /** The node's debugfs directory. */
  dir: string;
  /** `dma-trace`, or undefined when this generation has none. */
  trace?: string;
  /** `dma-statistics`, or undefined. */
  statistics?: string;
}

function exists(path: string): boolean {
  try {
    Deno.statSync(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * The debugfs files of a Metis node: `/dev/metis-*` is metis.ko's (`/sys/kernel/debug/metis/`),
 * `/dev/axl-metis-*` the simulator's (`/sys/kernel/debug/axl-metis/`). `pci` picks the card's
 * directory when there are several. Undefined when debugfs shows no such directory (not
 * mounted, not root, or a driver without it).
 *
 * @example
 * ```ts ignore
 * import { findDmaTraceFiles } from "./dma_trace.ts";
 * console.log(findDmaTraceFiles("/dev/axl-metis-0-0-2")?.trace);
 * ```
 */
export function findDmaTraceFiles(
  node: string,
  pci?: string,
  debugfs = "/sys/kernel/debug",
): DmaTraceFiles | undefined {
  const root = `${debugfs}/${/\/axl-metis-/.test(node) ? "axl-metis" : "metis"}`;
  let dirs: string[];
  try {
    dirs = [...Deno.readDirSync(root)].filter((e) => e.isDirectory && e.name.startsWith("metis-"))
      .map((e) => e.name).sort();
  } catch {
    return undefined;
  }
  const name = (pci ? dirs.find((d) => d === `metis-${pci}`) : undefined) ??
    (dirs.length === 1 ? dirs[0] : undefined);
  if (!name) return undefined;
  const dir = `${root}/${name}`;
  return {
    dir,
    ...(exists(`${dir}/dma-trace`) ? { trace: `${dir}/dma-trace` } : {}),
    ...(exists(`${dir}/dma-statistics`) ? { statistics: `${dir}/dma-statistics` } : {}),
  };
}
