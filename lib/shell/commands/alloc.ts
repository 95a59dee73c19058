/**
 * `alloc`: a dma-buf from a DMA heap — plain bytes, a frame of a given format and size
 * (optionally filled with the producers' test pattern, so its engine result is known),
 * or a result buffer for `submit`.
 *
 * @module
 */
import { PIXEL_FORMATS, type PixelFormat } from "../../core/device.ts";
import { frameLayout } from "../../frames/frame.ts";
import type { FrameLayout } from "../../formats/layout.ts";
import { Heap } from "../../core/heap.ts";
import { fillPattern } from "../../frames/producers/heap_producer.ts";
import { referenceResult } from "../../frames/reference.ts";
import { resultBytes } from "../../core/shim.ts";
import { parseCount, parseGeometry, parseSize } from "../args.ts";
import { type ShellCommand } from "../command.ts";
import { UsageError } from "../../commands/spec.ts";
import type { BufferMeta } from "../session.ts";

const FILLS = ["pattern", "zero"] as const;

function parseFill(text: string): { kind: "pattern" | "zero" | "byte"; byte: number } {
  if (text === "pattern" || text === "zero") return { kind: text, byte: 0 };
  const byte = parseCount(text, "alloc: --fill");
  if (byte > 255) throw new RangeError(`alloc: --fill byte must be 0..255, got ${text}`);
  return { kind: "byte", byte };
}

/** The `alloc` command. */
export const command: ShellCommand = {
  name: "alloc",
  summary: "allocate a dma-buf: SIZE bytes, a FORMAT WxH frame, or a 'result' buffer",
  positionals: [
    { name: "SIZE|FORMAT|result", kind: "choice", choices: [...PIXEL_FORMATS, "result"] },
    { name: "WxH", kind: "text", optional: true },
  ],
  options: {
    heap: {
      type: "string",
      kind: "heap",
      arg: "HEAP",
      description: "heap (default: the session's)",
    },
    name: { type: "string", arg: "NAME", description: "buffer name (fdinfo, bufinfo, maps)" },
    stride: { type: "string", kind: "number", arg: "BYTES", description: "line stride of a frame" },
    fill: {
      type: "string",
      kind: "choice",
      choices: FILLS,
      arg: "pattern|zero|BYTE",
      description: "fill through a CPU mapping (then unmapped); a filled frame knows its result",
    },
    seed: { type: "string", kind: "number", arg: "N", description: "pattern seed (default 1)" },
  },
  details: `Examples:
  frame = alloc NV12 640x480 --fill pattern     a frame whose engine result is known
  alloc 1M --heap system --name scratch         plain bytes (K, M, G, 0x... accepted)
  res = alloc result                            a buffer for one engine result
Formats: ${PIXEL_FORMATS.join(", ")} (case-insensitive).`,
  run(ctx, args) {
    const [first, geometry, ...extra] = args.positionals;
    if (first === undefined || extra.length) {
      throw new UsageError("alloc: expected SIZE, FORMAT WxH or 'result' (try 'help alloc')");
    }
    const v = args.values as Record<string, string | undefined>;
    const heapName = v.heap ?? ctx.session.heap;
    const format = PIXEL_FORMATS.find((f) => f === first.toUpperCase()) as PixelFormat | undefined;
    let layout: FrameLayout<PixelFormat> | undefined;
    let bytes: number;
    let name = v.name;
    if (first === "result") {
      if (geometry !== undefined) throw new UsageError("alloc result: takes no size");
      bytes = resultBytes();
      name ??= "axl-result";
    } else if (format) {
      if (geometry === undefined) {
        throw new UsageError(`alloc ${format}: give the frame size, e.g. alloc ${format} 640x480`);
      }
      const { width, height } = parseGeometry(geometry);
      const stride = v.stride === undefined ? 0 : parseCount(v.stride, "alloc: --stride");
      layout = frameLayout(format, width, height, stride);
      bytes = layout.size;
      name ??= `axl-${format.toLowerCase()}-${width}x${height}`;
    } else {
      if (geometry !== undefined) {
        throw new UsageError(`alloc: '${first}' is not a format; a size takes no WxH`);
      }
      if (v.stride !== undefined) throw new UsageError("alloc: --stride needs a FORMAT WxH frame");
      bytes = parseSize(first);
    }
    const fill = v.fill === undefined ? undefined : parseFill(v.fill);
    if (v.seed !== undefined && fill?.kind !== "pattern") {
      throw new UsageError("alloc: --seed goes with --fill pattern");
    }
    if (fill?.kind === "pattern" && !layout) {
      throw new UsageError("alloc: --fill pattern needs a FORMAT WxH frame");
    }
    const seed = v.seed === undefined ? 1 : parseCount(v.seed, "alloc: --seed");

    const buf = Heap.open(heapName).allocate(bytes, name ? { name } : {});
    ctx.session.track("buffer", buf, `alloc ${args.positionals.join(" ")}`);
    const meta: BufferMeta = {};
    if (layout) meta.layout = layout;
    try {
      if (fill) {
        {
          using access = buf.cpuAccess({ read: true, write: true });
          if (fill.kind === "pattern" && layout) {
            fillPattern(access.bytes, layout, seed, 0);
            meta.fill = `pattern seed ${seed}`;
          } else {
            access.bytes.fill(fill.byte);
            meta.fill = fill.kind === "zero" ? "zero" : `0x${fill.byte.toString(16)}`;
          }
          if (layout) meta.reference = referenceResult(access.bytes, layout);
        }
        // A frame keeps no CPU mapping: the NPU path must not need one.
        buf.unmap();
      }
    } catch (err) {
      buf.close();
      throw err;
    }
    ctx.session.setBufferMeta(buf, meta);
    return Promise.resolve({ value: buf });
  },
};
