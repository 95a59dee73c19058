/**
 * Frames: a dma-buf plus its format, size and per-plane layout (a `formats`
 * `FrameLayout`, see `frameLayout()`), as a producer hands them out.
 *
 * @module
 */
import type { DmaBuf } from "../core/dmabuf.ts";
import type { PixelFormat } from "../core/pixel_format.ts";
import type { FrameLayout } from "../formats/layout.ts";

export { frameLayout } from "../core/frame_layout.ts";

/** A frame handed out by a producer. */
export interface Frame extends FrameLayout<PixelFormat> {
  /** The buffer holding the pixels (owned by the producer). */
  buffer: DmaBuf;
  /** Producer sequence number, from 0. */
  sequence: number;
  /** Capture time (CLOCK_MONOTONIC ns) when the producer knows it. */
  timestampNs?: bigint;
  /**
   * The sensor's start of frame in ns, on the camera's own clock (Argus:
   * `ICaptureMetadata::getSensorTimestamp()`), when the producer has one: comparable with other
   * frames' sensor times, not with `timestampNs` or a trace.
   */
  sensorTimestampNs?: bigint;
}
