/**
 * The `chain` section of result.json: where the camera → card chain of buffers held or broke
 * (`chain.ts` builds it).
 *
 * @module
 */
import { z } from "../_deps.ts";

/** One dma-buf in the chain, as bufinfo, the probe events and /proc maps saw it. */
export const ChainBufferSchema = z.object({
  inode: z.number().int(),
  /** The exporter (`exp_name`): a heap (`system`, `linux,cma`) or a driver. */
  exporter: z.string(),
  /** Its `DMA_BUF_SET_NAME` name, or `""`. */
  name: z.string(),
  size: z.number().optional(),
  /** Every device seen attached to it. */
  devices: z.array(z.string()),
});
/** One dma-buf in the chain. */
export type ChainBuffer = z.infer<typeof ChainBufferSchema>;

/** A process that mapped the camera's buffers or the card's (from /proc/PID/maps). */
export const ChainProcessSchema = z.object({
  pid: z.number().int(),
  /** The process's name when the run knows it (the command a workload ran), else `""`. */
  comm: z.string(),
  /** Camera buffers it mapped. */
  camera: z.array(z.number().int()),
  /** Card buffers (not the camera's) it mapped, and those of them mapped writable. */
  card: z.array(z.number().int()),
  card_writable: z.array(z.number().int()),
});
/** A process between the camera and the card. */
export type ChainProcess = z.infer<typeof ChainProcessSchema>;

/** A symbol holding CPU time in the process between camera and card. */
export const ChainHotSymbolSchema = z.object({
  symbol: z.string(),
  dso: z.string(),
  self_percent: z.number(),
  samples: z.number().int(),
  copy_routine: z.string().optional(),
  /** The copies of a runtime's own threads (`v8-platform-worker`): not a frame copy. */
  runtime_thread: z.string().optional(),
});

/**
 * A CPU access to an nvmap buffer by one of the workload's tasks, from nvmap's own events
 * (`nvmap_dmabuf_begin_cpu_access`, `_mmap`, `_vmap`).
 */
export const ChainCpuTouchSchema = z.object({
  /** The task's id as the trace printed it (the process's for a single-threaded one). */
  pid: z.number().int(),
  /** `begin_cpu_access`, `mmap` or `vmap`. */
  kind: z.enum(["begin_cpu_access", "mmap", "vmap"]),
  /** The buffer's inode, when a probe event joined nvmap's pointer to it. */
  inode: z.number().int().optional(),
  /**
   * Whether the buffer is in the chain: one of the camera's buffers or one the card imported
   * (with no camera device in the run, nvmap's buffers the card imported are the frames).
   */
  in_chain: z.boolean(),
  count: z.number().int(),
});
/** A CPU touch of an nvmap buffer. */
export type ChainCpuTouch = z.infer<typeof ChainCpuTouchSchema>;

/** The chain section. */
export const ChainSchema = z.object({
  /**
   * `whole`: every buffer the card imported is one the camera filled; `broken`: none is;
   * `partial`: some are; `unknown`: the run shows no camera buffer or no card import.
   */
  status: z.enum(["whole", "partial", "broken", "unknown"]),
  /** One sentence for people: what the card imported and who stood in between. */
  summary: z.string(),
  /**
   * The pad where the chain broke, when the GStreamer tracer saw it (the pipeline section's
   * `broke_at`); absent otherwise.
   */
  broken_at: z.string().optional(),
  camera: z.object({
    /** The camera devices as bufinfo names them (the V4L2 nodes the workload had open). */
    devices: z.array(z.string()),
    /**
     * `v4l2`: the devices of the V4L2 nodes the workload had open; `attachments`: every
     * device but the card seen attaching a buffer (the workload had no V4L2 node open).
     */
    devices_from: z.enum(["v4l2", "attachments"]),
    buffers: z.array(ChainBufferSchema),
  }),
  card: z.object({
    device: z.string().nullable(),
    buffers: z.array(ChainBufferSchema),
    /** Where its imports were seen: `kprobes` (maps), `bufinfo` (attachments). */
    from: z.array(z.string()),
  }),
  /** Inodes both filled by the camera and imported by the card. */
  shared: z.array(z.number().int()),
  /** Processes that mapped camera buffers and card buffers on the CPU. */
  between: z.array(ChainProcessSchema),
  /** Top self symbols of the workload's processes (perf), when a process stood in between. */
  hot: z.array(ChainHotSymbolSchema),
  /** CPU touches of nvmap buffers by the workload's tasks (only with nvmap's events). */
  cpu_touches: z.array(ChainCpuTouchSchema).optional(),
});
/** The chain section. */
export type Chain = z.infer<typeof ChainSchema>;
