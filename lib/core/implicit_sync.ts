/**
 * Implicit sync for the engine's jobs. A driver that reports the `implicit-sync` capability
 * adds each job's fence to its result buffer's reservation object in SUBMIT, on every kernel,
 * as a writer's, so `poll()`, `DMA_BUF_IOCTL_SYNC` and `DMA_BUF_IOCTL_EXPORT_SYNC_FILE` on the
 * result wait for the engine, as does any other driver that honours implicit sync; one that
 * also reports `implicit-sync-input` adds it to the input as a reader's, so a writer of the
 * input (the next capture) waits for the engine reading it. The shim adds what the driver left
 * out right after each submit with `DMA_BUF_IOCTL_IMPORT_SYNC_FILE` (Linux 6.0+): the fence as a
 * reader of the input and, for a driver without `implicit-sync`, as a writer of the result. On
 * older kernels that ioctl does not exist (`ENOTTY`); the shim learns that once per process and
 * stops asking.
 *
 * @module
 */
import { AxlError, unwrap } from "./errors.ts";
import type { DmaBuf } from "./dmabuf.ts";
import { Fence } from "./fence.ts";
import { shim } from "./_shim.ts";

/**
 * Whether jobs' fences are published into their buffers:
 * - `on`: the driver publishes them in the result (`implicit-sync` in its caps; in the input
 *   too with `implicit-sync-input`), or the shim does (the kernel took one);
 * - `off`: an older driver, and the shim's publishing turned off for this Device
 *   (`Device.open(path, { implicitSync: false })`);
 * - `unavailable`: an older driver, and the kernel lacks `DMA_BUF_IOCTL_IMPORT_SYNC_FILE`
 *   (Linux < 6.0);
 * - `unknown`: not learnt yet: no job submitted and no probe in this process.
 */
export type ImplicitSync = "on" | "off" | "unavailable" | "unknown";

const ENOTTY = 25;

/** What this process knows, for a Device of an older driver with the shim's publishing `enabled`. */
export function implicitSyncState(enabled: boolean): ImplicitSync {
  if (!enabled) return "off";
  const state = shim().symbols.axl_shim_implicit_sync();
  return state === 1 ? "on" : state === -ENOTTY ? "unavailable" : "unknown";
}

/**
 * Learns whether the kernel takes `DMA_BUF_IOCTL_IMPORT_SYNC_FILE`, using any dma-buf and
 * changing nothing in it (the kernel refuses the probe's empty access flags before it looks
 * at a fence). Returns `on` or `unavailable`; throws AxlError when `buf` is not a dma-buf.
 *
 * @example
 * ```ts ignore
 * import { Heap } from "../../mod.ts";
 * using buf = Heap.open("system").allocate(4096);
 * console.log(probeImplicitSync(buf)); // "on" on Linux 6.0 and later
 * ```
 */
export function probeImplicitSync(buf: DmaBuf): "on" | "unavailable" {
  const ret = shim().symbols.axl_shim_implicit_sync_probe(buf.fd);
  if (ret === 1) return "on";
  if (ret === -ENOTTY) return "unavailable";
  throw new AxlError(`implicitSync.probe(inode ${buf.inode})`, -ret, {
    detail: "DMA_BUF_IOCTL_IMPORT_SYNC_FILE could not be probed on this buffer",
    hint: ret === -9 ? "probe with a dma-buf (e.g. one from a DMA heap)" : "see dmesg",
  });
}

// DMA_BUF_IOCTL_EXPORT_SYNC_FILE: _IOWR('b', 2, struct dma_buf_export_sync_file), 8 bytes.
const EXPORT_SYNC_FILE = 0xc008_6202n;

/**
 * `DMA_BUF_IOCTL_EXPORT_SYNC_FILE` (Linux 6.0+): the fences in `buf`'s reservation that a
 * reader (`read`: its writers) or a writer (`write`: all of them) must wait for, as one owned
 * sync_file. With nothing to wait for, the kernel returns an already signalled stub fence.
 * Throws AxlError ENOTTY on older kernels.
 *
 * @example Does anything still write the result?
 * ```ts ignore
 * using writers = exportSyncFile(job.result, "read");
 * console.log(writers.info().status); // "active" while the engine runs
 * ```
 */
export function exportSyncFile(buf: DmaBuf, access: "read" | "write"): Fence {
  const s = shim();
  const flags = s.constant(access === "read" ? "DMA_BUF_SYNC_READ" : "DMA_BUF_SYNC_WRITE");
  const arg = new Int32Array([flags, -1]); // { __u32 flags; __s32 fd; }
  const ret = s.symbols.axl_shim_ioctl(buf.fd, EXPORT_SYNC_FILE, arg);
  if (ret < 0n) {
    unwrap(Number(ret), `dmabuf.exportSyncFile(inode ${buf.inode}, ${access})`, "dmabuf");
  }
  return Fence.fromFd(arg[1]!);
}

/**
 * The error of a job whose fence could not be published (the shim's submit out-slots
 * [3] and [4]): the job runs and its fence is valid, but implicit-sync consumers of the
 * named buffer do not wait for it.
 */
export function publishError(seqno: bigint, ret: number, step: number, buf: DmaBuf): AxlError {
  const which = step === 2 ? "input (read fence)" : "result (write fence)";
  return new AxlError(`job ${seqno}: publish fence into the ${which}, inode ${buf.inode}`, -ret, {
    detail: "DMA_BUF_IOCTL_IMPORT_SYNC_FILE failed; the job runs and its fence is valid",
    hint: "consumers of this buffer that rely on implicit sync (poll, DMA_BUF_IOCTL_SYNC, " +
      "another driver) must wait on job.fence; Job.readResult() waits on it itself",
  });
}
