/**
 * Four-character codes as the kernel builds them: `a | b << 8 | c << 16 | d << 24`,
 * the same packing for DRM formats (`fourcc_code`) and V4L2 pixel formats
 * (`v4l2_fourcc`).
 *
 * @module
 */

/** Bit 31 of a DRM fourcc: the format is big-endian (`DRM_FORMAT_BIG_ENDIAN`). */
export const FOURCC_BIG_ENDIAN = 0x80000000;

/**
 * Packs a code of up to four ASCII characters into its 32-bit value.
 * Shorter codes are padded with spaces, as the kernel spells `R8` (`'R','8',' ',' '`).
 *
 * @example Pack NV12
 * ```ts
 * import { fourccCode } from "./fourcc.ts";
 * import { strictEqual } from "node:assert/strict";
 * strictEqual(fourccCode("NV12"), 0x3231564e);
 * strictEqual(fourccCode("R8"), fourccCode("R8  "));
 * ```
 */
export function fourccCode(text: string): number {
  if (typeof text !== "string") {
    throw new TypeError(`fourccCode() expects a string, got ${typeof text}`);
  }
  if (text.length === 0 || text.length > 4) {
    throw new RangeError(
      `fourcc "${text}" must have 1 to 4 characters (pad short codes with spaces, e.g. "R8  ")`,
    );
  }
  const padded = text.padEnd(4, " ");
  let code = 0;
  for (let i = 0; i < 4; i++) {
    const c = padded.charCodeAt(i);
    if (c < 0x20 || c > 0x7e) {
      throw new RangeError(
        `fourcc "${text}" has a non-printable or non-ASCII character at position ${i + 1}`,
      );
    }
    code |= c << (8 * i);
  }
  return code >>> 0;
}

/**
 * Unpacks a 32-bit fourcc into its characters, trailing spaces removed
 * (`0x20203852` → `"R8"`). A code whose bytes are not printable ASCII comes back
 * as hex (`"0x00000000"`); the DRM big-endian flag is spelled out. Negative
 * int32 values (what `code | FOURCC_BIG_ENDIAN` gives in JS) are read as unsigned.
 *
 * @example Name a code
 * ```ts
 * import { fourccString } from "./fourcc.ts";
 * import { strictEqual } from "node:assert/strict";
 * strictEqual(fourccString(0x3231564e), "NV12");
 * strictEqual(fourccString(0), "0x00000000");
 * ```
 */
export function fourccString(code: number): string {
  // Accept the negative int32 that `code | FOURCC_BIG_ENDIAN` yields in JS.
  if (!Number.isInteger(code) || code < -0x80000000 || code > 0xffffffff) {
    throw new RangeError(`fourcc ${code} is not a 32-bit integer`);
  }
  code = code >>> 0;
  const bigEndian = (code & FOURCC_BIG_ENDIAN) !== 0;
  const base = bigEndian ? (code & ~FOURCC_BIG_ENDIAN) >>> 0 : code;
  let text = "";
  for (let i = 0; i < 4; i++) {
    const c = (base >>> (8 * i)) & 0xff;
    if (c < 0x20 || c > 0x7e) return hex32(code);
    text += String.fromCharCode(c);
  }
  text = text.trimEnd();
  if (text.length === 0) return hex32(code);
  return bigEndian ? `${text} (big-endian)` : text;
}

function hex32(code: number): string {
  return `0x${code.toString(16).padStart(8, "0")}`;
}
