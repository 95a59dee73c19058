/**
 * `import`: imports a dma-buf (or a producer's frame) into the NPU — the driver
 * attaches it to the NPU's device and maps it through the IOMMU (AXL_IOCTL_IMPORT_FD).
 *
 * @module
 */
import { type Direction, DIRECTIONS, PIXEL_FORMATS, type PixelFormat } from "../../device.ts";
import type { DmaBuf } from "../../dmabuf.ts";
import type { Frame } from "../../frame.ts";
import { parseCount } from "../args.ts";
import { type ShellCommand, UsageError } from "../command.ts";
import { resolveOrLatest } from "../resolve.ts";

/** The `import` command. */
export const command: ShellCommand = {
  name: "import",
  summary: "import a buffer or frame into the NPU (attach + IOMMU map); value: the Import",
  positionals: [{ name: "BUFFER|FRAME", kind: "buffer", optional: true }],
  options: {
    format: {
      type: "string",
      kind: "choice",
      choices: PIXEL_FORMATS,
      description: "pixel format (default: the frame's)",
    },
    width: { type: "string", kind: "number", arg: "PX", description: "frame width" },
    height: { type: "string", kind: "number", arg: "LINES", description: "frame height" },
    stride: {
      type: "string",
      kind: "number",
      arg: "BYTES",
      description: "line stride (0: packed)",
    },
    direction: {
      type: "string",
      kind: "choice",
      choices: DIRECTIONS,
      description: "DMA direction (default to-device)",
    },
  },
  details: "A buffer allocated with 'alloc FORMAT WxH' or a frame from 'produce next' brings\n" +
    "its layout; other buffers need --format, --width and --height. The import holds an\n" +
    "attachment (see 'ls': two devices while a camera also holds it) until 'release'.",
  run(ctx, args) {
    if (args.positionals.length > 1) throw new UsageError("import: one buffer or frame at a time");
    const target = resolveOrLatest(ctx.session, args.positionals[0], ["buffer", "frame"], "import");
    const v = args.values as Record<string, string | undefined>;
    let buf: DmaBuf;
    let layout: { format: PixelFormat; width: number; height: number; stride: number } | undefined;
    if (ctx.session.kindOf(target) === "frame") {
      const f = target as Frame;
      buf = f.buffer;
      layout = { format: f.format, width: f.width, height: f.height, stride: f.planes[0]!.stride };
    } else {
      buf = target as DmaBuf;
      const l = ctx.session.bufferMeta(buf)?.layout;
      if (l) {
        layout = {
          format: l.format,
          width: l.width,
          height: l.height,
          stride: l.planes[0]!.stride,
        };
      }
    }
    const format = v.format === undefined
      ? layout?.format
      : PIXEL_FORMATS.find((f) => f === v.format!.toUpperCase());
    if (v.format !== undefined && !format) {
      throw new UsageError(`import: unknown --format '${v.format}' (${PIXEL_FORMATS.join(", ")})`);
    }
    const width = v.width === undefined ? layout?.width : parseCount(v.width, "import: --width");
    const height = v.height === undefined
      ? layout?.height
      : parseCount(v.height, "import: --height");
    if (!format || width === undefined || height === undefined) {
      throw new UsageError(
        `import: buffer inode ${buf.inode} has no frame layout: pass --format, --width and ` +
          "--height (or allocate it with 'alloc FORMAT WxH')",
      );
    }
    const stride = v.stride === undefined
      ? layout?.stride ?? 0
      : parseCount(v.stride, "import: --stride");
    const direction = (v.direction ?? "to-device") as Direction;
    const imp = ctx.session.device().import(buf, { format, width, height, stride, direction });
    ctx.session.track("import", imp, `import ${args.positionals.join(" ")}`.trim());
    return Promise.resolve({ value: imp });
  },
};
