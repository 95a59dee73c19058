/**
 * The shim's trace scanner (`ffi/src/trace_scan.c`): reads whole chunks of ftrace text in C,
 * counts function_graph calls per function there, and hands back only the lines a fold needs
 * as records (see {@linkcode TraceChunkScanner}). The parsing that uses it is
 * `lib/trace/parse/chunk_scan.ts`.
 *
 * @module
 */
import { loadTraceScanShim, ShimLoadError } from "../../ffi/loader.ts";

/** Record kinds (`AXL_TRACE_SCAN_*` of `axl_shim.h`). */
export const SCAN_OTHER = 1, SCAN_CALL = 2, SCAN_EVENT = 3;

/** Longest record in words: an event with the most fields C reads. */
const RECORD_MAX = 8 + 4 * 16;
/** Records held per call: a 1 MiB chunk of events rarely fills it, and a full one only means another call. */
const OUT_WORDS = 256 * 1024;
// The call table's layout in the state buffer (checked by _Static_assert in trace_scan.c).
const FUNCS = 256, USED_OFFSET = 8, ENTRIES_OFFSET = 16, ENTRY_BYTES = 72, COUNT_OFFSET = 64;

/**
 * One scan of a trace: the C scanner's state (the call table) and the record buffer it
 * fills. Records, from `out[2]` on (`out[0]` words written, `out[1]` lines read), each start
 * with kind and the line's index among the lines of that call:
 *
 * - {@linkcode SCAN_OTHER}: start, end (the line is `text[start..end)`, for the parser);
 * - {@linkcode SCAN_CALL}: start, end of the function name of an entry or leaf call that C
 *   did not count (its first, or no room in the table);
 * - {@linkcode SCAN_EVENT}: name start, name end, ts (ns, NaN when none), pid (NaN when
 *   none), field count, the name's number (the same for the same name during a scan; -1 when
 *   C has no room for it), then key start, key end, value start, value end per field.
 *
 * @example
 * ```ts
 * import { SCAN_EVENT, TraceChunkScanner } from "./trace_scan.ts";
 * const s = new TraceChunkScanner();
 * const text = new TextEncoder().encode("  x-1 [000] ..... 1.000000: axl_job_submit: seqno=9\n");
 * if (s.scan(text, text.length) !== text.length || s.out[2] !== SCAN_EVENT) throw new Error();
 * ```
 */
export class TraceChunkScanner {
  /** Records of the last {@linkcode scan}. */
  readonly out: Float64Array<ArrayBuffer>;
  readonly #state: Uint8Array<ArrayBuffer>;
  readonly #scan;

  /**
   * A scanner with an empty call table (ShimLoadError when the shim cannot load); `outWords`
   * sizes the record buffer (a small one makes C stop early and be called again).
   */
  constructor(outWords = OUT_WORDS) {
    const symbols = loadTraceScanShim().symbols;
    this.out = new Float64Array(outWords);
    this.#state = new Uint8Array(symbols.axl_trace_scan_state_bytes());
    this.#scan = symbols.axl_trace_scan;
    if (!(outWords >= 2 + RECORD_MAX)) {
      throw new RangeError(`TraceChunkScanner: outWords must be >= ${2 + RECORD_MAX}: ${outWords}`);
    }
  }

  /**
   * Scans the lines of `text[0..len)` that end in a newline, until the record buffer is
   * full; returns the bytes read (0 when no newline was found).
   */
  scan(text: Uint8Array<ArrayBuffer>, len: number): number {
    // C trusts the length: it must not reach past the buffer.
    if (!Number.isInteger(len) || len < 0 || len > text.length) {
      throw new RangeError(
        `TraceChunkScanner.scan(): length ${len} is not within 0..${text.length}`,
      );
    }
    const n = this.#scan(this.#state, text, len, this.out, this.out.length);
    if (n < 0) throw new RangeError(`axl_trace_scan: invalid arguments (${n})`);
    return n;
  }

  /** The calls C counted, per function (beyond the first, which came as a record). */
  counted(): Map<string, number> {
    const view = new DataView(this.#state.buffer);
    const used = view.getUint32(USED_OFFSET, true);
    const out = new Map<string, number>();
    const decoder = new TextDecoder();
    for (let i = 0; i < Math.min(used, FUNCS); i++) {
      const at = ENTRIES_OFFSET + i * ENTRY_BYTES;
      const count = view.getFloat64(at + COUNT_OFFSET, true);
      const len = this.#state[at]!;
      if (count > 0) out.set(decoder.decode(this.#state.subarray(at + 1, at + 1 + len)), count);
    }
    return out;
  }
}

/**
 * Why the C scanner cannot run in this process (the shim does not load: not built, built
 * for another API, or `dlopen` refused, e.g. `deno run` without `--allow-ffi`), or undefined
 * when it can. Each path the loader tried, with its reason, in one line.
 *
 * @example
 * ```ts
 * import { traceScanUnavailable } from "./trace_scan.ts";
 * const why = traceScanUnavailable();
 * console.log(why === undefined ? "the C scanner loads" : `TypeScript only: ${why}`);
 * ```
 */
export function traceScanUnavailable(): string | undefined {
  try {
    loadTraceScanShim();
    return undefined;
  } catch (e) {
    if (!(e instanceof ShimLoadError)) throw e;
    return e.attempts.map((a) => `${a.path}: ${a.reason}`).join("; ");
  }
}
