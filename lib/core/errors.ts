/**
 * One error type for every device failure. Shim calls return -errno; {@linkcode unwrap}
 * turns a negative return into an {@linkcode AxlError} that names the operation, the
 * errno and what to do about it (the failure modes of docs/design.md).
 *
 * @module
 */
import { loadShim } from "../../ffi/loader.ts";

/** Which kind of object an operation acted on; it selects the hint. */
export type ErrorContext =
  | "heap"
  | "dmabuf"
  | "fence"
  | "device"
  | "device-node"
  | "metis"
  | "v4l2"
  | "argus"
  | "file";

/**
 * What an error means for the exit status (one rule for the CLI, the shell and verify,
 * mapped to a code by `exitCodeOf()` in `lib/commands/exit_code.ts`):
 * - `usage`: the input or arguments are wrong as written (exit 3);
 * - `cannot-run`: something this machine lacks: a device node, tool, file, permission (exit 3);
 * - `failed`: it ran and an operation or check failed (exit 1);
 * - `interrupted`: cancelled by Ctrl-C (exit 130).
 */
export type ErrorKind = "usage" | "cannot-run" | "failed" | "interrupted";

/**
 * A failed device operation. Opening a device (a `device-node` context, or `exitKind:
 * "cannot-run"`) is something this machine lacks; any other failed operation is a failure.
 */
export class AxlError extends Error {
  /** `cannot-run` when the device could not be opened, `failed` for a failed operation. */
  readonly exitKind: "cannot-run" | "failed";
  /** Positive errno value, e.g. 2. */
  readonly errno: number;
  /** Symbolic errno name, e.g. `"ENOENT"`. */
  readonly code: string;
  /** The operation that failed, e.g. `"heap.alloc(system)"`. */
  readonly op: string;
  /** What to check or do next. */
  readonly hint: string;

  /** Creates the error; `message` is built from the fields. */
  constructor(
    op: string,
    errno: number,
    options: {
      code?: string;
      hint?: string;
      detail?: string;
      cause?: unknown;
      exitKind?: "cannot-run" | "failed";
    } = {},
  ) {
    const code = options.code ?? errnoName(errno);
    const hint = options.hint ?? "";
    const detail = options.detail ? `: ${options.detail}` : "";
    super(`${op} failed: ${code}${detail}${hint ? ` (${hint})` : ""}`, { cause: options.cause });
    this.name = "AxlError";
    this.errno = errno;
    this.code = code;
    this.op = op;
    this.hint = hint;
    this.exitKind = options.exitKind ?? "failed";
  }
}

const nameCache = new Map<number, string>();

/**
 * The symbolic name of a positive or negative errno, as glibc knows it.
 *
 * @example
 * ```ts
 * import { errnoName } from "./errors.ts";
 * console.log(errnoName(-2)); // "ENOENT"
 * ```
 */
export function errnoName(errno: number): string {
  const n = Math.abs(errno);
  let name = nameCache.get(n);
  if (name === undefined) {
    const ptr = loadShim().symbols.axl_shim_errno_name(n);
    name = ptr ? Deno.UnsafePointerView.getCString(ptr) : `errno ${n}`;
    nameCache.set(n, name);
  }
  return name;
}

/**
 * What an engineer should check when `code` comes back from an operation on `context`.
 * Drawn from the failure modes in docs/design.md.
 *
 * @example
 * ```ts
 * import { hintFor } from "./errors.ts";
 * console.log(hintFor("device", "ENOTTY"));
 * ```
 */
export function hintFor(context: ErrorContext, code: string): string {
  switch (`${context}:${code}`) {
    case "heap:ENOENT":
      return "no such DMA heap: list /dev/dma_heap; the CMA heap needs CONFIG_DMABUF_HEAPS_CMA " +
        "and a linux,cma reserved region";
    case "heap:EACCES":
    case "heap:EPERM":
      return "no permission on /dev/dma_heap/*: run as root or add a udev rule giving your group " +
        "access";
    case "heap:ENOMEM":
      return "the heap is exhausted: for linux,cma check CmaFree in /proc/meminfo and the cma= " +
        "size; free buffers or allocate less";
    case "heap:EINVAL":
      return "the heap rejected the size or flags: sizes are page-aligned and fd flags may only " +
        "be O_RDWR|O_CLOEXEC";
    case "dmabuf:ENOTTY":
    case "dmabuf:EINVAL":
      return "the fd is not a dma-buf or the exporter does not support this operation";
    case "dmabuf:EBADF":
    case "fence:EBADF":
    case "device:EBADF":
      return "the file descriptor is closed or invalid";
    case "device-node:ENOENT":
    case "device-node:ENODEV":
    case "device-node:ENXIO":
      return "no axl device node: /dev/axl comes only from our axl.ko (modprobe axl, or insmod " +
        "kernel/axl.ko) and dmesg | grep axl says why it is missing; Axelera's metis.ko (whose PCI " +
        "driver is also named axl) creates /dev/metis-* instead and has no import ioctls of ours: " +
        "on such a machine use MetisDevice or axl verify --importer <its PCI address>; set AXL_DEVICE " +
        "(AXL_METIS_DEVICE for a Metis node) for another path";
    case "device-node:EACCES":
    case "device-node:EPERM":
      return "no permission on the device node: run as root or add a udev rule for it";
    case "device:ENOENT":
      return "no such import handle on this file, or /dev/axl is missing: is the axl module " +
        "loaded (lsmod | grep axl; dmesg | grep axl)?";
    case "device:ENODEV":
    case "device:ENXIO":
      return "the axl driver is not loaded or its device is gone: modprobe axl (our axl.ko, not " +
        "Axelera's metis.ko), check lspci -k and dmesg | grep axl";
    case "device:ENOTTY":
      return "the driver does not know this ioctl: shim and driver were built from different " +
        "linux/axl.h; rebuild both (deno task build; the module with make -C kernel)";
    case "device:EACCES":
    case "device:EPERM":
      return "no permission on /dev/axl: run as root or add a udev rule for the device node";
    case "device:ETIMEDOUT":
      return "SUBMIT waited the job's timeout for the fences of its buffers (a producer still " +
        "writing the frame, or a fence imported into the result buffer) and queued nothing: " +
        "wait for the producer's fence before submitting, or pass a longer timeout";
    case "device:EINTR":
      return "a signal interrupted SUBMIT while it waited for the fences of its buffers; " +
        "nothing was queued: submit again";
    case "fence:ETIMEDOUT":
      return "the NPU did not finish in time: back-pressure or a degraded PCIe link; check " +
        "lspci -vvv LnkSta (expect 8GT/s, x4) and dmesg";
    case "device:EIO":
    case "fence:EIO":
      return "the NPU reported a job failure: see dmesg | grep axl";
    case "device:EBUSY":
      return "a job still uses this import or result buffer (wait for its fence before releasing " +
        "or reusing it), or this file or user has its share of the engine queued (max_jobs, " +
        "max_file_queued_ms, max_user_queued_ms): wait for one of its fences and submit again";
    case "device:EMFILE":
    case "device:ENOSPC":
      return "too many imports or jobs on this file: release imports and wait for fences";
    case "device:EINVAL":
      return "the driver rejected an argument (flags, sizes, reserved fields, or a frame larger " +
        "than its buffer); dmesg | grep axl names it";
    case "metis:EBUSY":
      return "a transfer is in flight on this file (await it before detaching or starting " +
        "another), or the buffer is mapped for writing elsewhere";
    case "metis:EINVAL":
      return "the Metis driver rejected the call: nothing attached, a size of 0, flags that are " +
        "not one direction and one mode, or a range past the buffer or card memory " +
        "(MetisDevice.resources() gives the card's)";
    case "metis:ENOTTY":
      return "the node does not speak metis.ko's dma-buf ABI: open a /dev/metis-* node " +
        "(Axelera's driver) or /dev/axl-metis-* (axl.ko's simulator node)";
    case "metis:ETIMEDOUT":
      return "the card's eDMA did not finish in time: check dmesg and lspci -vvv LnkSta";
    case "metis:ENODEV":
      return "the card is gone (removed, or the driver unbound): check lspci and dmesg";
    case "metis:EBADF":
      return "the file descriptor is closed or invalid";
    case "v4l2:EINVAL":
      return "the camera rejected the format or memory type; list formats with " +
        "v4l2-ctl --list-formats-ext";
    case "v4l2:EBUSY":
      return "the camera is streaming for another process";
    case "argus:ENOSYS":
      return "Argus is not available on this machine: it needs a Jetson with the Multimedia API " +
        "and a shim built there";
  }
  if (code === "ENOENT") return "the file or device does not exist";
  if (code === "EACCES" || code === "EPERM") return "permission denied: run as root";
  return "";
}

/**
 * Returns `ret` when it is >= 0; otherwise throws an {@linkcode AxlError} for `op`. A failed
 * open of a device node (context `device-node`) or a missing DMA heap (`heap`, ENOENT) cannot
 * run here; pass `exitKind` to say so for another context (opening a camera).
 *
 * @example
 * ```ts
 * import { AxlError, unwrap } from "./errors.ts";
 * try {
 *   unwrap(-2, "heap.alloc(nope)", "heap");
 * } catch (err) {
 *   if (!(err instanceof AxlError) || err.code !== "ENOENT") throw err;
 * }
 * ```
 */
export function unwrap<T extends number | bigint>(
  ret: T,
  op: string,
  context: ErrorContext,
  exitKind?: "cannot-run" | "failed",
): T {
  if (ret >= 0) return ret;
  const errno = -Number(ret);
  const code = errnoName(errno);
  // A device node that will not open, or a DMA heap this kernel does not have: the machine
  // lacks what the command needs (exit 3), not a failure of what it did.
  const missing = context === "device-node" || (context === "heap" && code === "ENOENT");
  throw new AxlError(op, errno, {
    code,
    hint: hintFor(context, code),
    exitKind: exitKind ?? (missing ? "cannot-run" : "failed"),
  });
}
