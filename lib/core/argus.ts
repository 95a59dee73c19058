/**
 * {@linkcode ArgusSession}: a typed wrapper for the shim's Argus capture (Jetson builds
 * only): open a sensor, acquire each frame into a slot of the session's ring of NvBuffers
 * (a dma-buf fd with its NvBufSurface metadata), release the slot, close.
 *
 * @module
 */
import { DmaBuf } from "./dmabuf.ts";
import { AxlError, hintFor, unwrap } from "./errors.ts";
import { shim } from "./_shim.ts";

/**
 * One acquired frame: a slot of the session's ring and its NvBufSurface metadata. The fd is
 * the slot's NvBuffer, which the session owns: never close it; give the slot back with
 * {@linkcode ArgusSession.release}.
 */
export interface ArgusFrame {
  /** dma-buf fd of the slot's NvBuffer (the session's: do not close it). */
  fd: number;
  /** Ring slot, 0 to `AXL_ARGUS_RING_SLOTS` - 1: what {@linkcode ArgusSession.release} takes. */
  slot: number;
  /** Bytes per line of plane 0 (luma). */
  pitch: number;
  /** Offset of plane 1 (NV12's chroma) from the start of the buffer, bytes. */
  chromaOffset: number;
  /** Bytes per line of plane 1. */
  chromaPitch: number;
  /**
   * The sensor's start of frame (`ICaptureMetadata::getSensorTimestamp()`), ns, or undefined
   * when the frame carried no capture metadata. libargus names the unit, not the clock: compare
   * it with other frames' sensor times only.
   */
  sensorTimestampNs: bigint | undefined;
  /** Bytes of the surface (`dataSize`). */
  size: number;
  /** NvBufSurface color format. */
  colorFormat: number;
}

/**
 * The frame described by the words `axl_shim_argus_acquire_fd()` wrote (`AXL_ARGUS_OUT_WORDS`
 * of them: fd, pitch, sensor time, size, color format, slot, chroma offset, chroma pitch).
 *
 * @example
 * ```ts
 * import { argusFrame } from "./argus.ts";
 * const f = argusFrame(new BigUint64Array([9n, 2048n, 0n, 3342336n, 7n, 1n, 2228224n, 2048n]));
 * console.log(f.slot); // 1
 * console.log(f.sensorTimestampNs); // undefined
 * ```
 */
export function argusFrame(out: BigUint64Array): ArgusFrame {
  if (out.length < 8) throw new RangeError(`an Argus frame is 8 words, got ${out.length}`);
  return {
    fd: Number(out[0]),
    pitch: Number(out[1]),
    sensorTimestampNs: out[2] === 0n ? undefined : out[2],
    size: Number(out[3]),
    colorFormat: Number(out[4]),
    slot: Number(out[5]),
    chromaOffset: Number(out[6]),
    chromaPitch: Number(out[7]),
  };
}

/**
 * Checks an acquire timeout against the shim's bound (`AXL_ARGUS_MAX_TIMEOUT_MS`, 60 s): a
 * whole number of ms from 0. RangeError otherwise, so that no wait is unbounded.
 *
 * @example
 * ```ts
 * import { checkArgusTimeout } from "./argus.ts";
 * import { throws } from "node:assert/strict";
 * checkArgusTimeout(1000);
 * throws(() => checkArgusTimeout(-1), RangeError);
 * ```
 */
export function checkArgusTimeout(timeoutMs: number): void {
  const max = shim().constant("AXL_ARGUS_MAX_TIMEOUT_MS");
  if (!Number.isInteger(timeoutMs) || timeoutMs < 0 || timeoutMs > max) {
    throw new RangeError(
      `Argus timeout must be a whole number of ms from 0 to ${max}, got ${timeoutMs}`,
    );
  }
}

/**
 * An Argus capture session on one sensor.
 *
 * @example
 * ```ts ignore
 * import { ArgusSession } from "./argus.ts";
 * if (ArgusSession.available()) {
 *   using s = ArgusSession.open(0, 1920, 1080);
 *   const frame = s.acquire(1000);
 *   console.log(frame.pitch, frame.sensorTimestampNs);
 *   s.release(frame.slot);
 * }
 * ```
 */
export class ArgusSession {
  #session: number;

  private constructor(session: number) {
    this.#session = session;
  }

  /** True when this shim was built with the Jetson Multimedia API. */
  static available(): boolean {
    return shim().symbols.axl_shim_argus_available() >= 0;
  }

  /** Opens a session; AxlError ENOSYS where Argus is not available. */
  static open(sensor: number, width: number, height: number): ArgusSession {
    const s = shim();
    const avail = s.symbols.axl_shim_argus_available();
    if (avail < 0) {
      throw new AxlError("argus.open", -avail, {
        hint: hintFor("argus", "ENOSYS"),
        detail: "this shim has no Argus support (not a Jetson build)",
        exitKind: "cannot-run",
      });
    }
    return new ArgusSession(
      unwrap(
        s.symbols.axl_shim_argus_open(sensor, width, height),
        "argus.open",
        "argus",
        "cannot-run",
      ),
    );
  }

  /**
   * Waits up to `timeoutMs` (0 to 60000; RangeError otherwise) for the next frame and copies
   * it into a free ring slot. AxlError ENOBUFS when every slot is held: release one.
   */
  acquire(timeoutMs: number): ArgusFrame {
    checkArgusTimeout(timeoutMs);
    const s = shim();
    const out = new BigUint64Array(s.constant("AXL_ARGUS_OUT_WORDS"));
    unwrap(
      s.symbols.axl_shim_argus_acquire_fd(this.#session, timeoutMs, out),
      "argus.acquire",
      "argus",
    );
    return argusFrame(out);
  }

  /**
   * A {@linkcode DmaBuf} of the caller's own for `frame`'s slot: a duplicate of the slot's fd,
   * naming the same buffer (same inode) for as long as the session lives. Closing it leaves
   * the slot's fd, which the session destroys, alone.
   */
  slotBuffer(frame: ArgusFrame): DmaBuf {
    const fd = unwrap(shim().symbols.axl_shim_dup(frame.fd), `argus.dup(${frame.fd})`, "argus");
    try {
      return DmaBuf.fromFd(fd);
    } catch (err) {
      shim().symbols.axl_shim_close(fd);
      throw err;
    }
  }

  /** Gives ring slot `slot` back once its frame is consumed. */
  release(slot: number): void {
    unwrap(
      shim().symbols.axl_shim_argus_release(this.#session, slot),
      `argus.release(${slot})`,
      "argus",
    );
  }

  /** Ends the session and destroys its ring of NvBuffers. Idempotent. */
  close(): void {
    if (this.#session < 0) return;
    shim().symbols.axl_shim_argus_close(this.#session);
    this.#session = -1;
  }

  /** Same as {@linkcode ArgusSession.close}. */
  [Symbol.dispose](): void {
    this.close();
  }
}
