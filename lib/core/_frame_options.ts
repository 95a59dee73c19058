// The common shape of Device.import's and Device.submit's options, checked without zod: a
// frame loop that makes a fresh options object every frame would otherwise pay for a schema
// parse per frame. A check accepts only what the schema accepts and reads the same values
// (each property once); anything else, valid or not, goes to the schema, which gives the
// error messages. Nothing is cached by the object's identity.
import type { DmaBuf } from "./dmabuf.ts";
import type { PixelFormat } from "./pixel_format.ts";

/** The import directions (device.ts's `Direction`, spelled out: device.ts imports this file). */
type Direction = "to-device" | "from-device" | "bidirectional";

/** Import options of the common shape, as {@linkcode commonImport} read them. */
export const importArgs = {
  width: 0,
  height: 0,
  format: "NV12" as PixelFormat,
  stride: 0,
  direction: "to-device" as Direction,
};

/** Submit options of the common shape, as {@linkcode commonSubmit} read them. */
export const submitArgs = { result: null as unknown as DmaBuf, model: 0, timeoutMs: 0 };

function isPlain(o: unknown): o is Record<string, unknown> {
  if (typeof o !== "object" || o === null) return false;
  const proto = Object.getPrototypeOf(o);
  return proto === Object.prototype || proto === null;
}

function isU32(v: unknown, min: number): v is number {
  return typeof v === "number" && Number.isInteger(v) && v >= min && v <= 0xffff_ffff;
}

function isFormat(v: unknown): v is PixelFormat {
  return v === "NV12" || v === "GREY" || v === "YUYV" || v === "RAW";
}

function isDirection(v: unknown): v is Direction {
  return v === "to-device" || v === "from-device" || v === "bidirectional";
}

/**
 * Whether `o` is a plain object with only width, height and optionally format, stride and
 * direction, each valid: then their values (defaults filled in) are in {@linkcode importArgs}.
 * Options with planes or a modifier, or anything invalid, return false.
 */
export function commonImport(o: unknown): boolean {
  if (!isPlain(o)) return false;
  for (const key in o) {
    if (
      key !== "width" && key !== "height" && key !== "format" && key !== "stride" &&
      key !== "direction"
    ) return false;
  }
  // Only undefined takes the default, as in the schema (null is refused there).
  const width = o.width, height = o.height;
  const format = o.format === undefined ? "NV12" : o.format;
  const stride = o.stride === undefined ? 0 : o.stride;
  const direction = o.direction === undefined ? "to-device" : o.direction;
  if (!isU32(width, 1) || !isU32(height, 1) || !isU32(stride, 0)) return false;
  if (!isFormat(format) || !isDirection(direction)) return false;
  const a = importArgs;
  a.width = width;
  a.height = height;
  a.format = format;
  a.stride = stride;
  a.direction = direction;
  return true;
}

/**
 * Whether `o` is a plain object with a result buffer and optionally a valid model and
 * timeoutMs: then their values (defaults filled in) are in {@linkcode submitArgs}.
 */
export function commonSubmit(o: unknown): boolean {
  if (!isPlain(o)) return false;
  for (const key in o) {
    if (key !== "result" && key !== "model" && key !== "timeoutMs") return false;
  }
  const result = o.result;
  const model = o.model === undefined ? 0 : o.model;
  const timeoutMs = o.timeoutMs === undefined ? 0 : o.timeoutMs;
  if (typeof result !== "object" || result === null || !("fd" in result)) return false;
  if (!isU32(model, 0)) return false;
  if (typeof timeoutMs !== "number" || !Number.isInteger(timeoutMs)) return false;
  if (timeoutMs < 0 || timeoutMs > 10_000) return false;
  const a = submitArgs;
  a.result = result as DmaBuf;
  a.model = model;
  a.timeoutMs = timeoutMs;
  return true;
}
