/**
 * `produce`: opens a frame source — heap test patterns, a V4L2 camera (DMABUF
 * memory), or Argus on a Jetson — and takes frames from it with `produce next`.
 *
 * @module
 */
import { PIXEL_FORMATS, type PixelFormat } from "../../core/device.ts";
import { ArgusProducer } from "../../frames/producers/argus_producer.ts";
import { HeapProducer } from "../../frames/producers/heap_producer.ts";
import type { Producer } from "../../frames/producers/producer.ts";
import { V4l2Producer } from "../../frames/producers/v4l2_producer.ts";
import { abortable } from "../abortable.ts";
import { parseCount, parseGeometry } from "../args.ts";
import { type ShellCommand } from "../command.ts";
import { type OptionSpec, UsageError } from "../../commands/spec.ts";
import { resolveOrLatest } from "../resolve.ts";

const common: Record<string, OptionSpec> = {
  size: {
    type: "string",
    arg: "WxH",
    description: "frame size (default 640x480; argus 1920x1080)",
  },
  heap: { type: "string", kind: "heap", arg: "HEAP", description: "heap for frame buffers" },
  buffers: { type: "string", kind: "number", arg: "N", description: "buffers in the ring" },
};

/** The `produce` command. */
export const command: ShellCommand = {
  name: "produce",
  summary: "open a frame source (heap | v4l2 | argus), or take its next frame",
  positionals: [{
    name: "heap|v4l2|argus|next",
    kind: "choice",
    choices: ["heap", "v4l2", "argus", "next"],
  }],
  options: {},
  subcommands: {
    heap: {
      summary: "test-pattern frames from a DMA heap",
      positionals: [],
      options: {
        ...common,
        format: {
          type: "string",
          kind: "choice",
          choices: PIXEL_FORMATS,
          description: "pixel format (default NV12)",
        },
        seed: { type: "string", kind: "number", arg: "N", description: "pattern seed (default 1)" },
      },
    },
    v4l2: {
      summary: "NV12 frames from a V4L2 camera into heap dma-bufs",
      positionals: [],
      options: {
        ...common,
        device: {
          type: "string",
          kind: "path",
          arg: "PATH",
          description: "camera node (default: first capture device)",
        },
      },
    },
    argus: {
      summary: "NV12 frames from libargus (Jetson only)",
      positionals: [],
      options: {
        size: common.size!,
        sensor: {
          type: "string",
          kind: "number",
          arg: "N",
          description: "sensor index (default 0)",
        },
      },
    },
    next: {
      summary: "the next frame of a producer (release the frame to hand it back)",
      positionals: [{ name: "PRODUCER", kind: "producer", optional: true }],
      options: {},
    },
  },
  details: "Frames of a heap producer know their reference result, so 'wait' checks\n" +
    "the engine's answer. A camera frame goes back to the camera with 'release FRAME'.",
  async run(ctx, args) {
    const [source, ...rest] = args.positionals;
    const v = args.values as Record<string, string | undefined>;
    const s = ctx.session;
    if (source === "next") {
      if (rest.length > 1) throw new UsageError("produce next: one producer at a time");
      const producer = resolveOrLatest(s, rest[0], ["producer"], "produce next") as Producer;
      const frame = await abortable(producer.next(), ctx.signal);
      s.setFrameOwner(frame, producer);
      s.track("frame", frame, `produce next ${rest.join(" ")}`.trim());
      if (producer instanceof HeapProducer) {
        s.setBufferMeta(frame.buffer, { layout: frame, reference: producer.expected(frame) });
      }
      return { value: frame };
    }
    if (rest.length) throw new UsageError(`produce ${source}: unexpected '${rest[0]}'`);
    const geometry = v.size === undefined ? undefined : parseGeometry(v.size);
    const buffers = v.buffers === undefined
      ? undefined
      : parseCount(v.buffers, "produce: --buffers");
    let producer: Producer;
    switch (source) {
      case "heap": {
        const format = v.format === undefined
          ? "NV12"
          : PIXEL_FORMATS.find((f) => f === v.format!.toUpperCase()) as PixelFormat | undefined;
        if (!format) throw new UsageError(`produce heap: unknown --format '${v.format}'`);
        producer = HeapProducer.open({
          heap: v.heap ?? s.heap,
          format,
          ...geometry,
          ...(buffers === undefined ? {} : { buffers }),
          ...(v.seed === undefined ? {} : { seed: parseCount(v.seed, "produce: --seed") }),
        });
        break;
      }
      case "v4l2":
        producer = V4l2Producer.open({
          heap: v.heap ?? s.heap,
          ...geometry,
          ...(buffers === undefined ? {} : { buffers }),
          ...(v.device === undefined ? {} : { device: v.device }),
        });
        break;
      case "argus":
        producer = ArgusProducer.open({
          ...geometry,
          ...(v.sensor === undefined ? {} : { sensor: parseCount(v.sensor, "produce: --sensor") }),
        });
        break;
      default:
        throw new UsageError("produce: expected heap, v4l2, argus or next (try 'help produce')");
    }
    s.track("producer", producer, `produce ${source}`);
    return { value: producer };
  },
};
