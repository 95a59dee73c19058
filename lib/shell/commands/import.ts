/**
 * `import`: imports a dma-buf (or a producer's frame) into the NPU — the driver
 * attaches it to the NPU's device and maps it through the IOMMU (AXL_IOCTL_IMPORT_FD, or
 * AXL_IOCTL_IMPORT_FD2 when planes have their own offsets and pitches).
 *
 * @module
 */
import { type Direction, DIRECTIONS, PIXEL_FORMATS, type PixelFormat } from "../../core/device.ts";
import type { DmaBuf } from "../../core/dmabuf.ts";
import type { Frame } from "../../frames/frame.ts";
import {
  type ImportGeometry,
  importGeometryFor,
  type ImportPlane,
  planeCount,
  planeLines,
} from "../../core/import_layout.ts";
import { parseCount } from "../args.ts";
import { type CommandOutcome, type ShellCommand } from "../command.ts";
import { type ParsedArgs, UsageError } from "../../commands/spec.ts";
import type { Session } from "../session.ts";
import { resolveOrLatest } from "../resolve.ts";
import { MetisAttachment } from "../metis_objects.ts";

/** The `import` command. */
export const command: ShellCommand = {
  name: "import",
  aliases: ["attach"],
  summary: "import (attach + IOMMU map) a buffer or frame into the NPU; value: the Import",
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
    offsets: {
      type: "string",
      kind: "text",
      arg: "O0[,O1]",
      description: "byte offset of each plane (IMPORT_FD2)",
    },
    pitches: {
      type: "string",
      kind: "text",
      arg: "P0[,P1]",
      description: "line pitch of each plane (IMPORT_FD2)",
    },
    modifier: {
      type: "string",
      kind: "number",
      arg: "MOD",
      description: "DRM format modifier (IMPORT_FD2; metis-sim reads linear, 0, only)",
    },
    direction: {
      type: "string",
      kind: "choice",
      choices: DIRECTIONS,
      description: "DMA direction (default to-device)",
    },
  },
  details: "A buffer allocated with 'alloc FORMAT WxH' or a frame from 'produce next' brings\n" +
    "its layout; other buffers need --format, --width and --height. --offsets and --pitches\n" +
    "describe planes one by one (an NvBufSurface: --pitches 2048,2048 --offsets 0,2228224\n" +
    "for NV12 1920x1080); a missing list follows the other (packed pitches, planes back to\n" +
    "back). The import holds an attachment (see 'ls': two devices while a camera also\n" +
    "holds it) until 'release'.\n" +
    "On a Metis session (axl shell --device metis) it is metis.ko's DMA_ATTACH of the\n" +
    "whole buffer, one per open file ('detach' before attaching another); the layout\n" +
    "flags do not apply; scattered buffers are taken (the eDMA walks every scatterlist\n" +
    "entry; 'info' shows the most entries a transfer had).",
  run(ctx, args) {
    if (args.positionals.length > 1) throw new UsageError("import: one buffer or frame at a time");
    const target = resolveOrLatest(ctx.session, args.positionals[0], ["buffer", "frame"], "import");
    if (ctx.session.driver === "metis") return attachToMetis(ctx.session, target, args);
    const v = args.values as Record<string, string | undefined>;
    let buf: DmaBuf;
    let layout: ImportGeometry | undefined;
    if (ctx.session.kindOf(target) === "frame") {
      const f = target as Frame;
      buf = f.buffer;
      layout = importGeometryFor(f);
    } else {
      buf = target as DmaBuf;
      const l = ctx.session.bufferMeta(buf)?.layout;
      if (l) layout = importGeometryFor(l);
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
    const direction = (v.direction ?? "to-device") as Direction;
    const planes = planesFromFlags(format, width, height, {
      offsets: v.offsets,
      pitches: v.pitches,
      stride: v.stride,
    });
    const modifier = v.modifier === undefined ? undefined : parseModifier(v.modifier);
    let geometry: ImportGeometry;
    if (planes) {
      geometry = { format, width, height, planes };
    } else if (v.stride !== undefined) {
      geometry = { format, width, height, stride: parseCount(v.stride, "import: --stride") };
    } else if (
      layout?.planes && layout.format === format && layout.width === width &&
      layout.height === height
    ) {
      geometry = { format, width, height, planes: layout.planes };
    } else {
      // as before IMPORT_FD2: the first plane's pitch, or packed
      geometry = {
        format,
        width,
        height,
        stride: layout?.stride ?? layout?.planes?.[0]?.pitch ?? 0,
      };
    }
    if (modifier !== undefined) geometry.modifier = modifier;
    const imp = ctx.session.device().import(buf, { ...geometry, direction });
    ctx.session.track("import", imp, `import ${args.positionals.join(" ")}`.trim());
    return Promise.resolve({ value: imp });
  },
};

/** The Metis form of `import`: DMA_ATTACH of the whole buffer to the session's node. */
function attachToMetis(
  session: Session,
  target: unknown,
  args: ParsedArgs,
): Promise<CommandOutcome> {
  const layoutFlags = Object.keys(args.values).filter((k) => args.values[k] !== undefined);
  if (layoutFlags.length) {
    throw new UsageError(
      `attach: --${layoutFlags[0]} does not apply on a Metis node: metis.ko attaches the ` +
        "whole buffer, without a layout",
    );
  }
  const buf = session.kindOf(target) === "frame" ? (target as Frame).buffer : target as DmaBuf;
  const attachment = new MetisAttachment(session.metis("attach"), buf);
  session.track("import", attachment, `attach ${args.positionals.join(" ")}`.trim());
  return Promise.resolve({ value: attachment });
}

function parseList(text: string, what: string): number[] {
  return text.split(",").map((t) => parseCount(t, what));
}

/** Parses a modifier: decimal or 0x-hex, up to 64 bits. */
function parseModifier(text: string): bigint {
  const t = text.trim();
  if (!/^(0x[0-9a-f]{1,16}|\d{1,20})$/i.test(t) || BigInt(t) > 0xffff_ffff_ffff_ffffn) {
    throw new RangeError(`import: --modifier must be a 64-bit number, got '${text}'`);
  }
  return BigInt(t);
}

/**
 * The planes the `import` flags describe, or undefined when neither `--offsets` nor
 * `--pitches` is given. A missing list follows from the other: pitches default to
 * `--stride` or the packed line, offsets to each plane right after the previous one.
 *
 * @example
 * ```ts
 * import { planesFromFlags } from "./import.ts";
 * const p = planesFromFlags("NV12", 1920, 1080, { pitches: "2048", offsets: "0,2228224" });
 * console.log(p?.[1]?.offset); // 2228224 (2048 * 1088)
 * console.log(p?.[1]?.pitch); // 2048
 * ```
 */
export function planesFromFlags(
  format: PixelFormat,
  width: number,
  height: number,
  flags: { offsets?: string; pitches?: string; stride?: string },
): ImportPlane[] | undefined {
  if (flags.offsets === undefined && flags.pitches === undefined) return undefined;
  if (flags.stride !== undefined) {
    throw new UsageError("import: --stride goes with IMPORT_FD; use --pitches with --offsets");
  }
  const n = planeCount(format);
  const { lines, lineBytes } = planeLines(format, width, height);
  const pitches = flags.pitches === undefined
    ? Array<number>(n).fill(lineBytes)
    : parseList(flags.pitches, "import: --pitches");
  // one pitch stands for every plane
  if (pitches.length === 1) { while (pitches.length < n) pitches.push(pitches[0]!); }
  let next = 0;
  const offsets = flags.offsets === undefined
    ? pitches.map((p, i) => {
      const o = next;
      next += p * (lines[i] ?? 0);
      return o;
    })
    : parseList(flags.offsets, "import: --offsets");
  if (offsets.length !== n || pitches.length !== n) {
    throw new UsageError(
      `import: ${format} has ${n} plane(s): give ${n} offset(s) and ${n} pitch(es) ` +
        `(got ${offsets.length} and ${pitches.length})`,
    );
  }
  return offsets.map((offset, i) => ({ offset, pitch: pitches[i]! }));
}
