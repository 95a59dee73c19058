/**
 * How the shell shows values: one-line summaries of device objects for people, plain
 * JSON-safe data for `--json` (bigints as strings, typed arrays as arrays, device
 * objects by their identity), and one-line errors with their hint.
 *
 * @module
 */
import { MetisAttachment, MetisTransfer } from "./metis_objects.ts";
import { isDriverObject } from "./_drivers.ts";
import { DmaBuf } from "../core/dmabuf.ts";
import { AxlError } from "../core/errors.ts";
import type { Frame } from "../frames/frame.ts";
import type { Session } from "./session.ts";

/**
 * Bytes for people: `4096 B`, `450 KiB`, `1.5 MiB`.
 *
 * @example
 * ```ts
 * import { formatBytes } from "./render.ts";
 * console.log(formatBytes(460800)); // "450 KiB"
 * ```
 */
export function formatBytes(bytes: number): string {
  const units = ["B", "KiB", "MiB", "GiB"];
  let v = bytes;
  let u = 0;
  while (v >= 1024 && u < units.length - 1 && v % 1 === 0) {
    v /= 1024;
    u++;
  }
  return `${Number.isInteger(v) ? v : v.toFixed(1)} ${units[u]}`;
}

/**
 * Nanoseconds for people: `850 ns`, `12.3 µs`, `1.25 ms`, `2.00 s`.
 *
 * @example
 * ```ts
 * import { formatNs } from "./render.ts";
 * console.log(formatNs(1_250_000n)); // "1.25 ms"
 * ```
 */
export function formatNs(ns: number | bigint): string {
  const n = Number(ns);
  if (Math.abs(n) < 1e3) return `${n} ns`;
  if (Math.abs(n) < 1e6) return `${(n / 1e3).toFixed(1)} µs`;
  if (Math.abs(n) < 1e9) return `${(n / 1e6).toFixed(2)} ms`;
  return `${(n / 1e9).toFixed(2)} s`;
}

function tag(session: Session | undefined, o: object): string {
  const t = session?.tracked(o);
  const names = session?.namesOf(o) ?? [];
  return [t ? `#${t.id}` : "", names.length ? `(${names.join(", ")})` : ""].filter(Boolean)
    .join(" ");
}

/**
 * One-line summary of a device object (buffer, import, job, device, frame, producer),
 * or undefined for anything else.
 *
 * @example
 * ```ts
 * import { summarize } from "./render.ts";
 * console.log(summarize({ plain: true })); // undefined
 * ```
 */
export function summarize(value: unknown, session?: Session): string | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const kind = session?.kindOf(value);
  const t = tag(session, value);
  const head = (k: string): string => `${k}${t ? ` ${t}` : ""}`;
  if (value instanceof DmaBuf) {
    if (value.closed) return `${head("buffer")} inode ${value.inode} (closed)`;
    let name = "";
    try {
      name = value.name;
    } catch { /* fdinfo unreadable: leave the name out */ }
    return `${head("buffer")} inode ${value.inode} ${value.exporter} ${formatBytes(value.size)}` +
      `${name ? ` "${name}"` : ""} fd ${value.fd}`;
  }
  if (isDriverObject(value, "Import")) {
    const state = value.released || value.device.closed ? " (released)" : "";
    return `${head("import")} handle ${value.handle} inode ${value.inode} ${value.format} ` +
      `${value.width}x${value.height} ${value.direction} iova 0x${value.iova.toString(16)} ` +
      `${value.contiguous ? "contiguous" : `${value.nents} segments`}${state}`;
  }
  if (isDriverObject(value, "Job")) {
    let state = "closed";
    if (!value.fence.closed) {
      try {
        state = value.fence.info().status;
      } catch {
        state = "unknown";
      }
    }
    return `${head("job")} seqno ${value.seqno} import ${value.input.handle} → result inode ` +
      `${value.result.inode} fence ${state}`;
  }
  if (isDriverObject(value, "Device") || isDriverObject(value, "MetisDevice")) {
    return `${head("device")} ${value.path}${value.closed ? " (closed)" : ""}`;
  }
  if (value instanceof MetisAttachment) {
    return `${head("import")} inode ${value.inode} attached to ${value.path}` +
      (value.live ? "" : " (detached)");
  }
  if (value instanceof MetisTransfer) {
    const t = value.toJSON();
    return `${head("job")} transfer ${t.direction} card 0x${value.card.toString(16)} inode ` +
      `${t.inode} (${t.state})`;
  }
  if (kind === "frame") {
    const f = value as Frame;
    return `${head("frame")} ${f.sequence} ${f.format} ${f.width}x${f.height} inode ` +
      `${f.buffer.inode}`;
  }
  if (kind === "producer") return `${head("producer")} ${(value as { name: string }).name}`;
  if (kind === "trace") return `${head("trace")} ${(value as { description: string }).description}`;
  return undefined;
}

/**
 * JSON-safe data for `value`: device objects become their identity fields, bigints
 * strings, typed arrays arrays, Maps objects, Sets arrays; functions are left out.
 *
 * @example
 * ```ts
 * import { toPlain } from "./render.ts";
 * const p = toPlain({ n: 5n, a: new Uint8Array([1, 2]) }) as { n: string; a: number[] };
 * console.log(p.n); // "5"
 * console.log(p.a.length); // 2
 * ```
 */
export function toPlain(value: unknown, session?: Session, depth = 6): unknown {
  if (typeof value === "bigint") return value.toString();
  if (typeof value === "function" || typeof value === "symbol") return undefined;
  if (typeof value !== "object" || value === null) {
    return typeof value === "number" && !Number.isFinite(value) ? String(value) : value;
  }
  if (depth <= 0) return "[…]";
  const id = session?.tracked(value)?.id;
  const withId = (o: Record<string, unknown>): Record<string, unknown> =>
    id === undefined ? o : { id, ...o };
  if (value instanceof DmaBuf) {
    return withId({
      kind: "buffer",
      inode: value.inode,
      size: value.size,
      exporter: value.exporter,
      closed: value.closed,
      ...(value.closed ? {} : { fd: value.fd, name: safe(() => value.name) }),
    });
  }
  if (isDriverObject(value, "Import")) {
    return withId({
      kind: "import",
      handle: value.handle,
      inode: value.inode,
      iova: `0x${value.iova.toString(16)}`,
      size: value.size,
      nents: value.nents,
      contiguous: value.contiguous,
      format: value.format,
      width: value.width,
      height: value.height,
      direction: value.direction,
      released: value.released || value.device.closed,
    });
  }
  if (isDriverObject(value, "Job")) {
    return withId({
      kind: "job",
      seqno: value.seqno.toString(),
      submitNs: value.submitNs.toString(),
      importHandle: value.input.handle,
      inputInode: value.input.inode,
      resultInode: value.result.inode,
      closed: value.fence.closed,
    });
  }
  if (isDriverObject(value, "Device") || isDriverObject(value, "MetisDevice")) {
    return withId({ kind: "device", path: value.path, closed: value.closed });
  }
  if (value instanceof MetisAttachment) {
    return withId({ kind: "import", ...value.toJSON() });
  }
  if (value instanceof MetisTransfer) {
    return withId({ kind: "job", ...toPlain(value.toJSON()) as Record<string, unknown> });
  }
  if (value instanceof Error) return errorData(value);
  const kind = session?.kindOf(value);
  if (kind === "frame") {
    const f = value as Frame;
    return withId({
      kind: "frame",
      sequence: f.sequence,
      format: f.format,
      width: f.width,
      height: f.height,
      size: f.size,
      inode: f.buffer.inode,
    });
  }
  if (kind === "producer") {
    return withId({ kind: "producer", name: (value as { name: string }).name });
  }
  if (ArrayBuffer.isView(value)) {
    return value instanceof DataView ? `[DataView ${value.byteLength}]` : Array.from(
      value as unknown as ArrayLike<number | bigint>,
      (x) => typeof x === "bigint" ? x.toString() : x,
    );
  }
  if (value instanceof Map) {
    return Object.fromEntries(
      [...value].map(([k, v]) => [String(k), toPlain(v, session, depth - 1)]),
    );
  }
  if (value instanceof Set) return [...value].map((v) => toPlain(v, session, depth - 1));
  if (Array.isArray(value)) return value.map((v) => toPlain(v, session, depth - 1));
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(value)) {
    let p: unknown;
    try {
      p = toPlain((value as Record<string, unknown>)[k], session, depth - 1);
    } catch (err) {
      p = `[getter threw: ${err instanceof Error ? err.message : String(err)}]`;
    }
    if (p !== undefined) out[k] = p;
  }
  return out;
}

function safe<T>(f: () => T): T | undefined {
  try {
    return f();
  } catch {
    return undefined;
  }
}

/**
 * JSON fields of an error: name, message, and errno/code/op/hint for AxlError.
 *
 * @example
 * ```ts
 * import { errorData } from "./render.ts";
 * console.log(errorData(new RangeError("bad")).name); // "RangeError"
 * ```
 */
export function errorData(err: unknown): Record<string, unknown> {
  if (err instanceof AxlError) {
    return {
      name: err.name,
      message: err.message,
      code: err.code,
      errno: err.errno,
      op: err.op,
      hint: err.hint,
    };
  }
  if (err instanceof Error) return { name: err.name, message: err.message };
  return { name: "Error", message: String(err) };
}

/**
 * The one line the shell prints for a failure: `error: <message>`; JavaScript errors
 * keep their class name (`TypeError: ...`) and the first line of the message.
 *
 * @example
 * ```ts
 * import { errorLine } from "./render.ts";
 * console.log(errorLine(new TypeError("bad\nmore"))); // "TypeError: bad"
 * ```
 */
export function errorLine(err: unknown): string {
  if (err instanceof AxlError) return `error: ${err.message}`;
  if (err instanceof Error) {
    const first = err.message.split("\n")[0];
    if (err.name === "CancelledError") return "cancelled (Ctrl-C)";
    if (err.name === "CannotRunError") return `error: ${first}`;
    return err.name === "UsageError" ? `usage: ${first}` : `${err.name}: ${first}`;
  }
  return `Uncaught ${Deno.inspect(err)}`;
}

/**
 * Text for a value: device objects as one-line summaries (also inside arrays and
 * objects), everything else through `Deno.inspect`.
 *
 * @example
 * ```ts
 * import { renderValue } from "./render.ts";
 * console.log(renderValue([1, "a"], undefined, false)); // '[ 1, "a" ]'
 * ```
 */
export function renderValue(value: unknown, session?: Session, colors = false): string {
  const direct = summarize(value, session);
  if (direct !== undefined) return direct;
  return Deno.inspect(substitute(value, session, 4), {
    colors,
    depth: 4,
    compact: true,
    breakLength: 100,
    iterableLimit: 64,
    strAbbreviateSize: 400,
  });
}

// Replaces device objects nested in arrays/plain objects by objects printing their summary.
function substitute(value: unknown, session: Session | undefined, depth: number): unknown {
  if (typeof value !== "object" || value === null || depth <= 0) return value;
  const s = summarize(value, session);
  if (s !== undefined) return { [Symbol.for("Deno.customInspect")]: () => `<${s}>` };
  if (Array.isArray(value)) return value.map((v) => substitute(v, session, depth - 1));
  if (Object.getPrototypeOf(value) === Object.prototype) {
    const props = Object.entries(Object.getOwnPropertyDescriptors(value));
    // Objects with accessors are shown as they are: substituting would run the getters.
    if (props.some(([, d]) => !("value" in d))) return value;
    return Object.fromEntries(props.map(([k, d]) => [k, substitute(d.value, session, depth - 1)]));
  }
  return value;
}
