/**
 * The card's own witness: what metis.ko's debugfs `dma-trace` says the card transferred during
 * a verify run, set against the workload's frames and the dma-buf events.
 *
 * Capture ({@linkcode CardWitnessCapture}, started by the Metis builtin workload): when the
 * node's driver keeps `dma-trace` (the `axl-aipu-*.c` releases, 1.4.16 on), its state is
 * journalled like a tracefs change (`TracefsJournal`: a SIGKILL leaves the undo step in the
 * state file), tracing is enabled and the ring cleared before the first frame; after the last,
 * the trace is read into the artifacts (`dma-trace.txt`, with `dma-statistics.txt`) and
 * tracing is put back as it was. The ring's old entries cannot be restored: `clear` drops
 * them, as the driver's own tools do. `card_witness.json` records the node, the driver and
 * the workload's frames (monotonic times, bytes, inode).
 *
 * Judging ({@linkcode judgeCardWitness}, in `judgeArtifacts()`): every frame must have exactly
 * one transfer to the card (`RD`) requested within its own transfer window, of the frame's
 * bytes; the trace must hold no other transfer; and, when the dma-buf kprobe events carry
 * inodes, the importer must have mapped each transferred frame's buffer. Agreement is stated
 * in the result's `card_witness` section; a disagreement is a finding: it names what differs
 * and the run FAILs. Without `dma-trace` (metis.ko 1.4.4) the section says the witness is not
 * available.
 *
 * @module
 */
import { join } from "node:path";
import { readMetisDriver, readSimMetisDriver } from "../core/metis/driver.ts";
import { type DmaTraceEntry, findDmaTraceFiles, parseDmaTrace } from "../core/metis/dma_trace.ts";
import { type JournalRecord, TracefsJournal } from "../trace/capture/tracefs_journal.ts";
import type { DmabufProbeFacts } from "./evidence/dmabuf_probes.ts";
import type { VerifyResult } from "./schema.ts";

/** The capture's record, in the artifacts. */
export const CARD_WITNESS_FILE = "card_witness.json";
/** `dma-trace` as read after the run. */
export const DMA_TRACE_FILE = "dma-trace.txt";
/** `dma-statistics` as read after the run. */
export const DMA_STATISTICS_FILE = "dma-statistics.txt";

/** A frame as the workload transferred it. */
export interface WitnessFrame {
  index: number;
  inode?: number;
  /** `CLOCK_MONOTONIC` ns before the transfer ioctl. */
  start_ns: number;
  /** After its completion. */
  end_ns: number;
  bytes: number;
}

/** `card_witness.json`. */
export interface CardWitnessRecord {
  node: string;
  /** The driver behind the node, as driver.ts describes it. */
  driver?: string;
  /** The debugfs `dma-trace` read, when the driver has one. */
  trace_file?: string;
  /** Why there is no witness. */
  unavailable?: string;
  /** Tracing was on before the run (put back after it). */
  prior_enabled?: boolean;
  frames: WitnessFrame[];
}

/**
 * Sets up `dma-trace` for a run and reads it after. Never throws at start: a node without the
 * trace (or without debugfs access) gives a record that says why.
 */
export class CardWitnessCapture {
  readonly #node: string;
  readonly #driver?: string;
  readonly #trace?: string;
  readonly #statistics?: string;
  readonly #unavailable?: string;
  readonly #prior?: boolean;
  #rec?: JournalRecord;

  private constructor(o: {
    node: string;
    driver?: string;
    trace?: string;
    statistics?: string;
    unavailable?: string;
    prior?: boolean;
    rec?: JournalRecord;
  }) {
    this.#node = o.node;
    if (o.driver !== undefined) this.#driver = o.driver;
    if (o.trace !== undefined) this.#trace = o.trace;
    if (o.statistics !== undefined) this.#statistics = o.statistics;
    if (o.unavailable !== undefined) this.#unavailable = o.unavailable;
    if (o.prior !== undefined) this.#prior = o.prior;
    if (o.rec !== undefined) this.#rec = o.rec;
  }

  /**
   * Enables and clears the node's `dma-trace` (journalled), or notes why it cannot.
   *
   * @example
   * ```ts ignore
   * const w = CardWitnessCapture.start("/dev/axl-metis-0-0-2");
   * // ... the run ...
   * w.finish("artifacts/verify", frames);
   * ```
   */
  static start(node: string, pci?: string, debugfs?: string): CardWitnessCapture {
    const sim = /\/axl-metis-/.test(node);
    const d = sim ? readSimMetisDriver(node) : readMetisDriver();
    const driver = d?.summary;
    const base = { node, ...(driver ? { driver } : {}) };
    const who = d?.version
      ? `${sim ? "metis-sim presenting " : ""}metis.ko ${d.version}`
      : "this driver";
    const files = findDmaTraceFiles(node, pci, debugfs);
    if (!files) {
      return new CardWitnessCapture({
        ...base,
        unavailable: `no debugfs directory of ${node} (debugfs not mounted, not root, or a ` +
          "driver without one)",
      });
    }
    const stats = files.statistics ? { statistics: files.statistics } : {};
    if (!files.trace) {
      return new CardWitnessCapture({
        ...base,
        ...stats,
        unavailable: `${who} keeps no dma-trace (${files.dir} has none; metis.ko has it ` +
          "from 1.4.16)",
      });
    }
    try {
      const prior = parseDmaTrace(Deno.readTextFileSync(files.trace)).enabled;
      const rec = TracefsJournal.current().record(
        `metis dma-trace ${prior ? "enabled" : "disabled"}`,
        {
          op: "write",
          path: files.trace,
          value: prior ? "enable\n" : "disable\n",
        },
      );
      Deno.writeTextFileSync(files.trace, "enable\n");
      Deno.writeTextFileSync(files.trace, "clear\n");
      return new CardWitnessCapture({ ...base, ...stats, trace: files.trace, prior, rec });
    } catch (e) {
      return new CardWitnessCapture({
        ...base,
        unavailable: `cannot set up ${files.trace}: ${(e as Error).message}`,
      });
    }
  }

  /**
   * Reads the trace into `artifacts`, puts tracing back as it was and writes
   * {@linkcode CARD_WITNESS_FILE} with `frames`. Never throws.
   */
  finish(artifacts: string, frames: WitnessFrame[]): void {
    const record: CardWitnessRecord = {
      node: this.#node,
      ...(this.#driver ? { driver: this.#driver } : {}),
      frames,
    };
    let unavailable = this.#unavailable;
    if (this.#trace) {
      try {
        Deno.writeTextFileSync(join(artifacts, DMA_TRACE_FILE), Deno.readTextFileSync(this.#trace));
        record.trace_file = this.#trace;
        record.prior_enabled = this.#prior ?? false;
      } catch (e) {
        unavailable = `cannot read ${this.#trace}: ${(e as Error).message}`;
      }
      this.restore();
    }
    if (this.#statistics) {
      try {
        Deno.writeTextFileSync(
          join(artifacts, DMA_STATISTICS_FILE),
          Deno.readTextFileSync(this.#statistics),
        );
      } catch { /* dma-statistics is context only */ }
    }
    if (unavailable) record.unavailable = unavailable;
    try {
      Deno.writeTextFileSync(
        join(artifacts, CARD_WITNESS_FILE),
        JSON.stringify(record, null, 1) + "\n",
      );
    } catch { /* the judge then has no section */ }
  }

  /** Puts tracing back as it was before {@linkcode start}; idempotent. */
  restore(): void {
    if (!this.#rec || !this.#trace) return;
    try {
      Deno.writeTextFileSync(this.#trace, this.#prior ? "enable\n" : "disable\n");
      TracefsJournal.current().forget(this.#rec);
      this.#rec = undefined;
    } catch { /* the journal keeps the undo step for the next restore */ }
  }
}

/** The result's `card_witness` section. */
export interface CardWitnessSection {
  available: boolean;
  /** Why not, when not available. */
  reason?: string;
  node: string;
  driver?: string;
  /** `agree`, `disagree`, or `unavailable`. */
  verdict: "agree" | "disagree" | "unavailable";
  /** One sentence. */
  summary: string;
  /** What differs (empty when they agree). */
  disagreements: string[];
  /** Transfers in the trace (both ways) and to the card. */
  transfers?: number;
  to_card?: number;
  /** Frames the workload transferred, and those with exactly one matching transfer. */
  frames?: number;
  matched?: number;
  /** Bytes of the frames and bytes the card says it moved to itself. */
  frame_bytes?: number;
  card_bytes?: number;
  /** Whether the frames' buffers were checked against the importer's dma-buf maps. */
  attach_checked?: boolean;
  /** The first frames: transfer request relative to the frame's start, DMA time. */
  per_frame?: {
    index: number;
    inode?: number;
    bytes: number;
    card_bytes?: number;
    request_us?: number;
    dma_us?: number;
  }[];
}

const PER_FRAME = 20;

/**
 * Sets the card's trace against the workload's frames and, when `maps` (inodes the importer
 * mapped, from the kprobe events) is given, against the dma-buf events.
 *
 * @example
 * ```ts
 * import { judgeCardWitness } from "./card_witness.ts";
 * const s = judgeCardWitness(
 *   { node: "/dev/axl-metis-0-0-2", frames: [{ index: 0, inode: 5, start_ns: 100, end_ns: 900, bytes: 4096 }] },
 *   "DMA Trace Buffer Status:\n  Enabled: yes\n  Total traces: 1\n  Overruns: 0\n" +
 *     "  Buffer size: 4096 entries\n  Current entries: 1\n\nRD, CH0, 150, 200, 200, 800, 4096\n",
 *   new Set([5]),
 * );
 * console.log(s.verdict); // "agree"
 * ```
 */
export function judgeCardWitness(
  rec: CardWitnessRecord,
  traceText: string | undefined,
  maps?: ReadonlySet<number>,
): CardWitnessSection {
  const base = { node: rec.node, ...(rec.driver ? { driver: rec.driver } : {}) };
  if (rec.unavailable || traceText === undefined) {
    const reason = rec.unavailable ?? `no ${DMA_TRACE_FILE} in the artifacts`;
    return {
      ...base,
      available: false,
      reason,
      verdict: "unavailable",
      summary: `the card's own witness is not available: ${reason}`,
      disagreements: [],
    };
  }
  const trace = parseDmaTrace(traceText);
  const toCard = trace.entries.filter((e) => e.mode === "RD");
  const dis: string[] = [];
  if (trace.overruns > 0 || trace.truncated > 0) {
    dis.push(
      `the trace lost transfers (${trace.overruns} overwritten, ${trace.truncated} not printed)`,
    );
  }
  const used = new Set<DmaTraceEntry>();
  const perFrame: NonNullable<CardWitnessSection["per_frame"]> = [];
  let matched = 0;
  const missing: number[] = [];
  const wrongBytes: string[] = [];
  const several: number[] = [];
  const unattached: string[] = [];
  for (const f of rec.frames) {
    const inWindow = toCard.filter((e) =>
      !used.has(e) && e.requestNs >= BigInt(Math.floor(f.start_ns)) &&
      e.requestNs <= BigInt(Math.ceil(f.end_ns))
    );
    inWindow.forEach((e) => used.add(e));
    const e = inWindow[0];
    if (perFrame.length < PER_FRAME) {
      perFrame.push({
        index: f.index,
        ...(f.inode !== undefined ? { inode: f.inode } : {}),
        bytes: f.bytes,
        ...(e
          ? {
            card_bytes: e.bytes,
            request_us: Number(e.requestNs - BigInt(Math.floor(f.start_ns))) / 1000,
            dma_us: Number(e.endNs - e.startNs) / 1000,
          }
          : {}),
      });
    }
    if (!e) {
      missing.push(f.index);
      continue;
    }
    if (inWindow.length > 1) several.push(f.index);
    if (e.bytes !== f.bytes) wrongBytes.push(`frame ${f.index}: ${e.bytes} of ${f.bytes} bytes`);
    else if (inWindow.length === 1) matched++;
    if (maps && f.inode !== undefined && !maps.has(f.inode)) {
      unattached.push(`frame ${f.index} (inode ${f.inode})`);
    }
  }
  const extra = toCard.filter((e) => !used.has(e));
  if (missing.length) {
    dis.push(
      `${missing.length} frame(s) with no transfer in the card's trace (frames ${list(missing)})`,
    );
  }
  if (several.length) dis.push(`frames ${list(several)} each had more than one transfer`);
  if (wrongBytes.length) {
    dis.push(`transfers of other sizes than the frame: ${wrongBytes.slice(0, 5).join(", ")}`);
  }
  if (extra.length) {
    dis.push(
      `${extra.length} transfer(s) to the card outside every frame's transfer (e.g. ` +
        `${extra[0]!.bytes} bytes at ${extra[0]!.requestNs} ns): the card moved buffers the ` +
        "workload did not hand it",
    );
  }
  if (unattached.length) {
    dis.push(
      `the card transferred ${unattached.length} frame(s) whose buffer the dma-buf events show ` +
        `no map of by the importer: ${unattached.slice(0, 5).join(", ")}`,
    );
  }
  const frameBytes = rec.frames.reduce((a, f) => a + f.bytes, 0);
  const cardBytes = toCard.reduce((a, e) => a + e.bytes, 0);
  const agree = dis.length === 0;
  const attach = maps !== undefined;
  return {
    ...base,
    available: true,
    verdict: agree ? "agree" : "disagree",
    summary: agree
      ? `the card's dma-trace agrees: ${matched} of ${rec.frames.length} frames each moved to the ` +
        `card once, ${cardBytes} bytes in all, within the frame's own transfer` +
        (attach
          ? ", every one a buffer the importer mapped"
          : " (no inode-carrying dma-buf events to check the attaches against)")
      : `the card's dma-trace disagrees with the frames: ${dis[0]}`,
    disagreements: dis,
    transfers: trace.entries.length,
    to_card: toCard.length,
    frames: rec.frames.length,
    matched,
    frame_bytes: frameBytes,
    card_bytes: cardBytes,
    attach_checked: attach,
    per_frame: perFrame,
  };
}

function list(xs: number[]): string {
  return xs.length > 8 ? `${xs.slice(0, 8).join(", ")}, …` : xs.join(", ");
}

/** The inodes the importer mapped, when the kprobe events carried inodes. */
export function importerMaps(
  dmabuf: DmabufProbeFacts | undefined,
  importer: string | null | undefined,
): Set<number> | undefined {
  if (!dmabuf?.inodes || !importer) return undefined;
  const use = dmabuf.devices.get(importer);
  return new Set(use ? use.mapsByInode.keys() : []);
}

/**
 * Reads the capture's witness from `dir` and adds the section to `result`; a disagreement
 * FAILs the run. Unchanged when the run kept no witness record (not a Metis run).
 */
export async function withCardWitness(
  result: VerifyResult,
  dir: string,
  maps: ReadonlySet<number> | undefined,
): Promise<VerifyResult> {
  let rec: CardWitnessRecord;
  try {
    rec = JSON.parse(await Deno.readTextFile(join(dir, CARD_WITNESS_FILE)));
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return result;
    throw e;
  }
  let text: string | undefined;
  try {
    text = await Deno.readTextFile(join(dir, DMA_TRACE_FILE));
  } catch (e) {
    if (!(e instanceof Deno.errors.NotFound)) throw e;
  }
  const section = judgeCardWitness(rec, text, maps);
  result.axl.card_witness = section;
  if (section.verdict === "disagree") {
    result.axl.status = "FAIL";
    result.pass = false;
  }
  result.axl.notes.push(section.summary);
  return result;
}
