/**
 * {@linkcode Fence}: an owned sync_file fd — status, signal timestamp, and waiting
 * (asynchronously on a worker thread, or synchronously for hot loops).
 *
 * @module
 */
import { AxlError, errnoName, hintFor, unwrap } from "./errors.ts";
import { shim } from "./_shim.ts";

/** What `SYNC_IOC_FILE_INFO` says about a sync_file. */
export interface FenceInfo {
  /** `active` until signalled; `error` when signalled with an error. */
  status: "active" | "signaled" | "error";
  /** The error's errno name (e.g. `ETIMEDOUT`) when status is `error`. */
  error?: string;
  /** CLOCK_MONOTONIC time of the (latest) signal in ns; absent while active. */
  timestampNs?: bigint;
  /** Fences merged into this sync_file. */
  fences: number;
  /** `driver:timeline` of the first fence, e.g. `axl:metis-0`. */
  timeline: string;
}

// Reused out-slots and decoder (see device.ts for why sharing is safe).
const infoOut = new BigInt64Array(4);
// Status and fence count are small: read as the low halves of their slots, not as BigInts.
const infoOut32 = new Int32Array(infoOut.buffer);
const infoName = new Uint8Array(96);
const decoder = new TextDecoder();
const INFO_NAME_LEN = BigInt(infoName.length);

/** The last timeline name decoded and its bytes: a fence loop sees the same name every frame. */
let lastTimeline = "";
let lastTimelineBytes = new Uint8Array(0);

/** `name[0..end)` as text, decoded once while it stays the same. */
function timelineName(name: Uint8Array, end: number): string {
  const last = lastTimelineBytes;
  if (last.length === end) {
    let i = 0;
    while (i < end && last[i] === name[i]) i++;
    if (i === end) return lastTimeline;
  }
  lastTimelineBytes = name.slice(0, end);
  lastTimeline = decoder.decode(lastTimelineBytes);
  return lastTimeline;
}

const leaks = new FinalizationRegistry<number>((fd) => {
  shim().symbols.axl_shim_close(fd);
});

/**
 * An owned sync_file fence.
 *
 * @example Wait for a job's fence
 * ```ts ignore
 * const info = await job.fence.wait(1000);
 * console.log(info.status, info.timestampNs);
 * ```
 */
export class Fence implements Disposable {
  #fd: number;
  /** The owner's set of open fence fds, when the owner is the leak backstop. */
  readonly #live: Set<number> | undefined;

  private constructor(fd: number, live?: Set<number>) {
    this.#fd = fd;
    this.#live = live;
    if (live) live.add(fd);
    else leaks.register(this, fd, this);
  }

  /** Takes ownership of a sync_file fd. */
  static fromFd(fd: number): Fence {
    if (!Number.isInteger(fd) || fd < 0) throw new RangeError(`not a file descriptor: ${fd}`);
    return new Fence(fd);
  }

  /**
   * @internal A job's fence (Device.submit): its fd is kept in the device's `live` set
   * until closed, and the device's own backstop closes what is left there. A registration
   * per fence cost the frame loop a weak cell per frame.
   */
  static _tracked(fd: number, live: Set<number>): Fence {
    return new Fence(fd, live);
  }

  /** The file descriptor; throws when closed. */
  get fd(): number {
    if (this.#fd < 0) throw new TypeError("Fence is closed");
    return this.#fd;
  }

  /** True once closed. */
  get closed(): boolean {
    return this.#fd < 0;
  }

  /** Reads status and timestamp without waiting. */
  info(): FenceInfo {
    const ret = shim().symbols.axl_shim_fence_info(this.fd, infoOut, infoName, INFO_NAME_LEN);
    if (ret < 0) unwrap(ret, `fence.info(fd ${this.#fd})`, "fence");
    return decodeInfo();
  }

  /**
   * Waits up to `timeoutMs` (-1: forever) on a worker thread, without blocking the
   * event loop. Resolves to the fence info; throws AxlError ETIMEDOUT when the wait
   * times out (the fence itself is left as it is).
   */
  async wait(timeoutMs: number): Promise<FenceInfo> {
    checkTimeout(timeoutMs);
    const fd = this.fd;
    const ret = await shim().symbols.axl_shim_poll_in_async(fd, timeoutMs);
    this.#afterPoll(ret, timeoutMs);
    return this.info();
  }

  /**
   * Like {@linkcode Fence.wait} but blocks the thread: for tight frame loops. The wait and
   * the read of the fence's state are one shim call.
   */
  waitSync(timeoutMs: number): FenceInfo {
    checkTimeout(timeoutMs);
    const ret = shim().symbols.axl_shim_fence_wait_info(
      this.fd,
      timeoutMs,
      infoOut,
      infoName,
      INFO_NAME_LEN,
    );
    this.#afterPoll(ret, timeoutMs);
    return decodeInfo();
  }

  #afterPoll(ret: number, timeoutMs: number): void {
    if (ret < 0) unwrap(ret, `fence.wait(fd ${this.#fd})`, "fence");
    if (ret === 0) {
      throw new AxlError(`fence.wait(fd ${this.#fd}, ${timeoutMs} ms)`, 110, {
        code: "ETIMEDOUT",
        hint: hintFor("fence", "ETIMEDOUT"),
        detail: "the fence did not signal in time",
      });
    }
  }

  /**
   * @internal Marks the fence closed and hands its fd to the caller, who closes it
   * (Job.closeAndRelease closes it in the shim call that releases the import).
   */
  _take(): number {
    const fd = this.fd;
    if (this.#live) this.#live.delete(fd);
    else leaks.unregister(this);
    this.#fd = -1;
    return fd;
  }

  /** Closes the fd. Idempotent. */
  close(): void {
    if (this.#fd < 0) return;
    if (this.#live) this.#live.delete(this.#fd);
    else leaks.unregister(this);
    shim().symbols.axl_shim_close(this.#fd);
    this.#fd = -1;
  }

  /** Same as {@linkcode Fence.close}. */
  [Symbol.dispose](): void {
    this.close();
  }
}

/** The {@linkcode FenceInfo} the last shim call left in the out-slots. */
function decodeInfo(): FenceInfo {
  const name = infoName;
  const status = infoOut32[0]!;
  const end = name.indexOf(0);
  const info: FenceInfo = {
    status: status === 1 ? "signaled" : status === 0 ? "active" : "error",
    fences: infoOut32[2]!,
    timeline: timelineName(name, end < 0 ? name.length : end),
  };
  if (status < 0) info.error = errnoName(status);
  if (status !== 0) {
    const stamp = infoOut[2]!;
    if (stamp > 0n) info.timestampNs = stamp;
  }
  return info;
}

function checkTimeout(timeoutMs: number): void {
  if (!Number.isInteger(timeoutMs) || timeoutMs < -1 || timeoutMs > 2 ** 31 - 1) {
    throw new RangeError(`timeout must be an integer number of ms >= -1, got ${timeoutMs}`);
  }
}
