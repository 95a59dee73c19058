/**
 * Builds large, realistic ftrace files for the trace-analysis benchmark by repeating a real
 * capture (`bench/fixtures/axl-frames-6.12-std.trace`): the header once, then the captured
 * frames over and over, each repetition moved on in time and given fresh fence seqnos and
 * import handles, so that every frame is distinct, as in a long run. Buffer inodes stay the
 * same: a producer ring reuses its buffers.
 *
 * Writes in 4 MiB blocks (100 MB in about 2 s here).
 *
 * ```sh
 * deno run --allow-read --allow-write bench/trace_gen.ts --size 100M --out build/bench/t.trace
 * ```
 *
 * @module
 */
import { parseArgs } from "node:util";

/** The default template, a real capture. */
export const TEMPLATE = new URL("./fixtures/axl-frames-6.12-std.trace", import.meta.url);

/** What {@linkcode generateTrace} wrote. */
export interface GeneratedTrace {
  /** Output path. */
  path: string;
  /** Bytes written. */
  bytes: number;
  /** Lines written. */
  lines: number;
  /** Frames (axl_job_submit events) written. */
  frames: number;
  /** Repetitions of the template body. */
  repetitions: number;
  /** Generation wall time, ms. */
  ms: number;
}

// Numbers that must move on per repetition: the abstime column, fence seqnos, import handles.
const TS_RE = /^(\s*)(\d+)\.(\d{6})(?=\s+\|)/;
const NUM_RE = /\b(seqno|handle)=(\d+)/g;

interface Hole {
  kind: "ts" | "seqno" | "handle";
  value: number;
  width: number;
}

/** The template body as literal pieces and holes, plus what one repetition spans. */
interface Template {
  header: string;
  pieces: string[];
  holes: Hole[];
  lines: number;
  frames: number;
  spanUs: number;
  maxSeqno: number;
  maxHandle: number;
}

/**
 * Splits a captured trace into its header and a body with holes for the numbers that move on.
 *
 * @example
 * ```ts
 * import { parseTemplate } from "./trace_gen.ts";
 * const t = parseTemplate("# tracer: function_graph\n   1.000000 |   0) a-1 |  |  /* axl_job_submit: seqno=3 handle=2 *\/\n");
 * if (t.frames !== 1 || t.maxSeqno !== 3 || t.holes.length !== 3) throw new Error();
 * ```
 */
export function parseTemplate(text: string): Template {
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  const headerLines: string[] = [];
  let i = 0;
  while (i < lines.length && lines[i]!.startsWith("#")) headerLines.push(lines[i++]!);
  const pieces: string[] = [];
  const holes: Hole[] = [];
  let literal = "";
  let first = Infinity, last = -Infinity, maxSeqno = 0, maxHandle = 0, frames = 0;
  for (const line of lines.slice(i)) {
    let rest = line;
    const ts = TS_RE.exec(rest);
    if (ts) {
      const us = Number(ts[2]) * 1e6 + Number(ts[3]);
      first = Math.min(first, us);
      last = Math.max(last, us);
      pieces.push(literal + ts[1]);
      holes.push({ kind: "ts", value: us, width: ts[0].length - ts[1]!.length });
      literal = "";
      rest = rest.slice(ts[0].length);
    }
    if (rest.includes("axl_job_submit:")) frames++;
    let at = 0;
    for (const m of rest.matchAll(NUM_RE)) {
      const kind = m[1] as "seqno" | "handle";
      const value = Number(m[2]);
      if (kind === "seqno") maxSeqno = Math.max(maxSeqno, value);
      else maxHandle = Math.max(maxHandle, value);
      const start = m.index! + kind.length + 1;
      pieces.push(literal + rest.slice(at, start));
      holes.push({ kind, value, width: 0 });
      literal = "";
      at = start + m[2]!.length;
    }
    literal += rest.slice(at) + "\n";
  }
  pieces.push(literal);
  if (!Number.isFinite(first)) throw new RangeError("template has no timestamped lines");
  return {
    header: headerLines.map((l) => l + "\n").join(""),
    pieces,
    holes,
    lines: lines.length - i,
    frames,
    // The gap between repetitions is one average frame interval.
    spanUs: (last - first) + Math.max(1, Math.round((last - first) / Math.max(1, frames))),
    maxSeqno,
    maxHandle,
  };
}

function fmtTs(us: number, width: number): string {
  const s = Math.floor(us / 1e6);
  const t = `${s}.${String(us - s * 1e6).padStart(6, "0")}`;
  return t.length >= width ? t : t.padStart(width);
}

/** The text of repetition `k` of the template body. */
function repetition(t: Template, k: number): string {
  let out = t.pieces[0]!;
  for (let h = 0; h < t.holes.length; h++) {
    const hole = t.holes[h]!;
    if (hole.kind === "ts") out += fmtTs(hole.value + k * t.spanUs, hole.width);
    else if (hole.kind === "seqno") out += hole.value + k * t.maxSeqno;
    else out += hole.value + k * t.maxHandle;
    out += t.pieces[h + 1]!;
  }
  return out;
}

/**
 * Writes a trace of at least `bytes` bytes (whole repetitions) to `path`.
 *
 * @example
 * ```ts ignore
 * import { generateTrace } from "./trace_gen.ts";
 * const g = await generateTrace("build/bench/100M.trace", 100e6);
 * console.log(g.frames, "frames in", g.bytes, "bytes");
 * ```
 */
export async function generateTrace(
  path: string,
  bytes: number,
  template: string | URL = TEMPLATE,
): Promise<GeneratedTrace> {
  if (!Number.isFinite(bytes) || bytes < 1) throw new RangeError(`bytes must be >= 1: ${bytes}`);
  const t0 = performance.now();
  const t = parseTemplate(await Deno.readTextFile(template));
  const encoder = new TextEncoder();
  const block = new Uint8Array(4 << 20);
  const file = await Deno.open(path, { write: true, create: true, truncate: true });
  let used = 0, written = 0, k = 0;
  const flush = async (): Promise<void> => {
    let off = 0;
    while (off < used) off += await file.write(block.subarray(off, used));
    written += used;
    used = 0;
  };
  const put = async (text: string): Promise<void> => {
    // UTF-8 takes at most 3 bytes per UTF-16 unit: flush first when it might not fit.
    if (text.length * 3 > block.length) throw new RangeError("template body too large");
    if (used + text.length * 3 > block.length) await flush();
    used += encoder.encodeInto(text, block.subarray(used)).written;
  };
  try {
    await put(t.header);
    while (written + used < bytes) await put(repetition(t, k++));
    await flush();
  } finally {
    file.close();
  }
  return {
    path,
    bytes: written,
    lines: t.header.split("\n").length - 1 + k * t.lines,
    frames: k * t.frames,
    repetitions: k,
    ms: performance.now() - t0,
  };
}

/** Parses a size such as `100M`, `1G`, `4096`. */
export function parseSize(text: string): number {
  const m = /^(\d+(?:\.\d+)?)([KMG]?)B?$/i.exec(text.trim());
  if (!m) throw new TypeError(`not a size: '${text}' (e.g. 100M, 1G)`);
  const unit = { "": 1, K: 1e3, M: 1e6, G: 1e9 }[m[2]!.toUpperCase() as "" | "K" | "M" | "G"];
  return Math.round(Number(m[1]) * unit);
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      size: { type: "string", default: "100M" },
      out: { type: "string" },
      template: { type: "string" },
    },
  });
  if (!values.out) {
    console.error("trace_gen.ts: --out PATH is required");
    Deno.exit(3);
  }
  const g = await generateTrace(values.out, parseSize(values.size), values.template ?? TEMPLATE);
  console.log(JSON.stringify(g));
}
