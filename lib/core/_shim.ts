// Private: the loaded shim plus small helpers shared by the lib modules.
import { loadShim } from "../../ffi/loader.ts";
import type { Shim } from "../../ffi/loader.ts";

/** The process-wide shim. */
export function shim(): Shim {
  return loadShim();
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** A NUL-terminated copy of `s` for a `const char *` parameter. */
export function cString(s: string): Uint8Array<ArrayBuffer> {
  return encoder.encode(s + "\0");
}

/** Splits a buffer of NUL-separated strings, as the shim writes them. */
export function nulStrings(buf: Uint8Array, count: number): string[] {
  const out: string[] = [];
  let start = 0;
  for (let i = 0; i < count; i++) {
    let end = buf.indexOf(0, start);
    if (end < 0) end = buf.length;
    out.push(decoder.decode(buf.subarray(start, end)));
    start = Math.min(end + 1, buf.length);
  }
  return out;
}

/** An ArrayBuffer over `len` bytes at native address `addr`. */
export function viewAt(addr: bigint, len: number): ArrayBuffer {
  const ptr = Deno.UnsafePointer.create(addr);
  if (!ptr) throw new RangeError("null mapping address");
  return new Deno.UnsafePointerView(ptr).getArrayBuffer(len);
}
