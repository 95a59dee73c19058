/**
 * {@linkcode ArgusSession}: a typed wrapper for the shim's Argus capture (Jetson builds
 * only): open a sensor, acquire each frame as an NvBufSurface dma-buf fd with its
 * metadata, close.
 *
 * @module
 */
import { AxlError, hintFor, unwrap } from "./errors.ts";
import { shim } from "./_shim.ts";

/** One acquired frame: its dma-buf fd (the caller owns it) and NvBufSurface metadata. */
export interface ArgusFrame {
  /** dma-buf fd of the surface. */
  fd: number;
  /** Bytes per line of the first plane. */
  pitch: number;
  /** Capture time, ns. */
  timestampNs: bigint;
  /** Bytes of the surface. */
  size: number;
  /** NvBufSurface color format. */
  colorFormat: number;
  /** The surface's GPU address (0 when CPU-only). */
  gpuPtr: bigint;
}

/**
 * An Argus capture session on one sensor.
 *
 * @example
 * ```ts ignore
 * import { ArgusSession } from "./argus.ts";
 * if (ArgusSession.available()) {
 *   using s = ArgusSession.open(0, 1920, 1080);
 *   console.log(s.acquire(1000).pitch);
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

  /** Waits up to `timeoutMs` for the next frame. */
  acquire(timeoutMs: number): ArgusFrame {
    const out = new BigUint64Array(6);
    unwrap(
      shim().symbols.axl_shim_argus_acquire_fd(this.#session, timeoutMs, out),
      "argus.acquire",
      "argus",
    );
    return {
      fd: Number(out[0]),
      pitch: Number(out[1]),
      timestampNs: out[2]!,
      size: Number(out[3]),
      colorFormat: Number(out[4]),
      gpuPtr: out[5]!,
    };
  }

  /** Ends the session. Idempotent. */
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
