/**
 * The `pipeline` section of `result.json`: for a GStreamer workload, the memory each pad's
 * buffers travelled in and the first element whose output is no longer the camera's dma-buf
 * (`pipeline.ts` judges it).
 *
 * @module
 */
import { z } from "../_deps.ts";

/** One pad that pushed buffers, in pipeline order. */
export const PipelinePadSchema = z.object({
  /** `element:pad`. */
  pad: z.string(),
  element: z.string(),
  factory: z.string(),
  /** The pad it pushes into. */
  peer: z.string(),
  /** Its last caps, or null when it had none. */
  caps: z.string().nullable(),
  buffers: z.number().int(),
  /** The memory of its first buffer, in words. */
  memory: z.string(),
  /** Every buffer it pushed was one of the camera's dma-bufs. */
  camera_dmabuf: z.boolean(),
  /** This is where the chain leaves the camera's dma-buf memory. */
  marked: z.boolean(),
});

/** The `pipeline` section. */
export const PipelineSectionSchema = z.object({
  status: z.enum(["PASS", "FAIL", "INCONCLUSIVE"]),
  /** One sentence: where the chain broke, or that it did not. */
  summary: z.string(),
  /** `gst-tracer`: the axlpads tracer loaded into the workload. */
  source: z.literal("gst-tracer"),
  /** The source pads (the camera), the dma-bufs they pushed and their exporters. */
  camera: z.object({
    pads: z.array(z.string()),
    factories: z.array(z.string()),
    dmabufs: z.number().int(),
    exporters: z.array(z.string()),
  }).nullable(),
  /** The first pad whose buffers are not the camera's dma-bufs, or null. */
  broke_at: z.object({
    pad: z.string(),
    element: z.string(),
    factory: z.string(),
    memory: z.string(),
    /** Its buffer lines that carried other memory, of `of`. */
    buffers: z.number().int(),
    of: z.number().int(),
  }).nullable(),
  pads: z.array(PipelinePadSchema),
  /** Elements that took buffers and pushed none (the sinks). */
  sinks: z.array(z.string()),
  /** The pipeline in gst-launch words, the breaking element marked `[name ✗ …]`. */
  drawing: z.string(),
});

/** The `pipeline` section of a result. */
export type PipelineSection = z.infer<typeof PipelineSectionSchema>;
