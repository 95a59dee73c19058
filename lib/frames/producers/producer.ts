/**
 * The interface every frame source implements: heap test patterns, V4L2 cameras and
 * Argus on a Jetson.
 *
 * @module
 */
import type { DmaBuf } from "../../core/dmabuf.ts";
import type { Frame } from "../frame.ts";

/** A source of frames in dma-bufs. */
export interface Producer extends Disposable {
  /** Short description, e.g. `heap:system NV12 640x480`. */
  readonly name: string;
  /**
   * The next frame. The buffer stays the producer's: hand the frame back with
   * {@linkcode Producer.recycle} once the consumer is done with it.
   */
  next(): Promise<Frame>;
  /**
   * Every buffer frames will come in, when they are fixed from the start (a ring, a camera's
   * queue): a consumer can check them once before frames flow. Absent: not known ahead.
   */
  buffers?(): readonly DmaBuf[];
  /** Returns a frame's buffer to the producer (a camera re-queues it). */
  recycle(frame: Frame): void;
  /** Stops and frees every buffer. Idempotent. */
  close(): void;
}
