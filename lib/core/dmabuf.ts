/**
 * {@linkcode DmaBuf}: an owned dma-buf file descriptor with its identity (inode, size,
 * exporter, name) and bracketed CPU access.
 *
 * @module
 */
import { AxlError, unwrap } from "./errors.ts";
import { dmaBufFdInfo, parseFdinfo } from "./fdinfo.ts";
import type { DmaBufFdInfo } from "./fdinfo.ts";
import { cString, shim, viewAt } from "./_shim.ts";

/** Which directions a CPU access covers. */
export interface AccessOptions {
  /** The CPU reads the buffer (default true). */
  read?: boolean;
  /** The CPU writes the buffer (default false). */
  write?: boolean;
}

/**
 * A window of CPU access to a dma-buf, bracketed by `DMA_BUF_IOCTL_SYNC` start and end.
 * Use it with `using` so the end always runs.
 */
export interface CpuAccess extends Disposable {
  /** The mapped bytes; empty after the access ended. */
  readonly bytes: Uint8Array;
  /** Ends the access (idempotent). */
  end(): void;
}

// Backstop only: a DmaBuf that is garbage-collected unclosed still returns its fd.
const leaks = new FinalizationRegistry<number>((fd) => {
  shim().symbols.axl_shim_close(fd);
});

/**
 * An owned dma-buf file descriptor.
 *
 * @example Allocate, name, fill and inspect a buffer
 * ```ts ignore
 * import { Heap } from "./heap.ts";
 * using buf = Heap.open("system").allocate(4096);
 * buf.setName("frame-0");
 * {
 *   using access = buf.cpuAccess({ write: true });
 *   access.bytes.fill(0x80);
 * }
 * console.log(buf.inode, buf.size, buf.exporter);
 * ```
 */
export class DmaBuf implements Disposable {
  #fd: number;
  #inode: number;
  #size: number;
  #exporter: string;
  #map: { addr: bigint; buffer: ArrayBuffer } | undefined;
  #accessOpen = false;

  private constructor(fd: number, info: DmaBufFdInfo) {
    this.#fd = fd;
    this.#inode = info.inode;
    this.#size = info.size;
    this.#exporter = info.exporter;
    leaks.register(this, fd, this);
  }

  /**
   * Takes ownership of `fd`, which must be a dma-buf; throws AxlError (EINVAL) when it
   * is not, and then leaves `fd` open for the caller.
   */
  static fromFd(fd: number): DmaBuf {
    if (!Number.isInteger(fd) || fd < 0) throw new RangeError(`not a file descriptor: ${fd}`);
    const info = readInfo(fd);
    if (!info) {
      throw new AxlError(`dmabuf.fromFd(${fd})`, 22, {
        detail: "not a dma-buf (no exp_name in fdinfo)",
        hint: "pass a dma-buf fd: from a DMA heap, a V4L2 VIDIOC_EXPBUF or an exporter driver",
      });
    }
    return new DmaBuf(fd, info);
  }

  /** The file descriptor; throws when closed. */
  get fd(): number {
    if (this.#fd < 0) throw new TypeError("DmaBuf is closed");
    return this.#fd;
  }

  /** True once {@linkcode DmaBuf.close} ran. */
  get closed(): boolean {
    return this.#fd < 0;
  }

  /** Inode number of the buffer (the key in debugfs bufinfo and traces). */
  get inode(): number {
    return this.#inode;
  }

  /** Size in bytes. */
  get size(): number {
    return this.#size;
  }

  /** Exporter name, e.g. `system`, `linux,cma`, `nvmap`. */
  get exporter(): string {
    return this.#exporter;
  }

  /** The buffer's current name (re-read from fdinfo). */
  get name(): string {
    return this.info().name;
  }

  /** Current fdinfo fields (count, name, ...). */
  info(): DmaBufFdInfo {
    const info = readInfo(this.fd);
    if (!info) {
      throw new AxlError(`dmabuf.info(fd ${this.fd})`, 22, { detail: "fdinfo unreadable" });
    }
    return info;
  }

  /** Sets the buffer's name (at most `DMA_BUF_NAME_LEN - 1` bytes). */
  setName(name: string): void {
    const max = shim().constant("DMA_BUF_NAME_LEN") - 1;
    const bytes = new TextEncoder().encode(name);
    if (bytes.length > max) throw new RangeError(`dma-buf name longer than ${max} bytes: ${name}`);
    unwrap(
      shim().symbols.axl_shim_dmabuf_set_name(this.fd, cString(name)),
      `dmabuf.setName(${name})`,
      "dmabuf",
    );
  }

  /**
   * Starts CPU access: maps the buffer on first use (one mapping for the buffer's life),
   * issues `DMA_BUF_SYNC_START` and returns a disposable whose end issues
   * `DMA_BUF_SYNC_END`. One access at a time.
   */
  cpuAccess(options: AccessOptions = {}): CpuAccess {
    const read = options.read ?? true;
    const write = options.write ?? false;
    if (!read && !write) throw new TypeError("cpuAccess needs read, write or both");
    if (this.#accessOpen) throw new TypeError("a CPU access to this dma-buf is already open");
    const s = shim();
    const map = this.#mapping();
    const dir = (read ? s.constant("DMA_BUF_SYNC_READ") : 0) |
      (write ? s.constant("DMA_BUF_SYNC_WRITE") : 0);
    unwrap(
      s.symbols.axl_shim_dmabuf_sync(this.fd, BigInt(s.constant("DMA_BUF_SYNC_START") | dir)),
      "dmabuf.sync(start)",
      "dmabuf",
    );
    this.#accessOpen = true;
    let bytes = new Uint8Array(map.buffer);
    const end = (): void => {
      if (!this.#accessOpen || bytes.length === 0) return;
      bytes = new Uint8Array(0);
      this.#accessOpen = false;
      if (this.#fd >= 0) {
        unwrap(
          s.symbols.axl_shim_dmabuf_sync(this.#fd, BigInt(s.constant("DMA_BUF_SYNC_END") | dir)),
          "dmabuf.sync(end)",
          "dmabuf",
        );
      }
    };
    return {
      get bytes(): Uint8Array {
        return bytes;
      },
      end,
      [Symbol.dispose]: end,
    };
  }

  /**
   * @internal The mapping's address for a caller that brackets its read with
   * `DMA_BUF_SYNC` itself in the shim (Job.readResult: `axl_shim_result_read`); throws as
   * {@linkcode DmaBuf.cpuAccess} does while another access is open.
   */
  _readableAddress(): bigint {
    if (this.#accessOpen) throw new TypeError("a CPU access to this dma-buf is already open");
    return this.#mapping().addr;
  }

  /**
   * Copies all of `src` into the start of this buffer with libc memcpy between the two CPU
   * mappings (mapping them if needed). The caller brackets both with {@linkcode cpuAccess};
   * RangeError when this buffer is smaller than `src`.
   */
  copyFrom(src: DmaBuf): void {
    if (this.#size < src.size) {
      throw new RangeError(`copy: destination ${this.#size} bytes < source ${src.size}`);
    }
    shim().symbols.axl_shim_memcpy(this.mappedAddress(), src.mappedAddress(), BigInt(src.size));
  }

  /** Native address of the CPU mapping (mapping it if needed); for shim calls. */
  mappedAddress(): bigint {
    return this.#mapping().addr;
  }

  #mapping(): { addr: bigint; buffer: ArrayBuffer } {
    if (this.#map) return this.#map;
    const s = shim();
    const out = new BigUint64Array(1);
    const prot = s.constant("PROT_READ") | s.constant("PROT_WRITE");
    let ret = s.symbols.axl_shim_mmap(this.fd, BigInt(this.#size), prot, 0n, out);
    if (ret === -13) {
      // A read-only fd (e.g. from a producer) still maps for reading.
      ret = s.symbols.axl_shim_mmap(this.fd, BigInt(this.#size), s.constant("PROT_READ"), 0n, out);
    }
    unwrap(ret, `dmabuf.mmap(inode ${this.#inode})`, "dmabuf");
    this.#map = { addr: out[0]!, buffer: viewAt(out[0]!, this.#size) };
    return this.#map;
  }

  /** Drops the CPU mapping, if any; views handed out before become empty. */
  unmap(): void {
    const map = this.#map;
    if (!map) return;
    this.#map = undefined;
    map.buffer.transfer(0); // detach first: stale views must not reach unmapped memory
    shim().symbols.axl_shim_munmap(map.addr, BigInt(this.#size));
  }

  /** Unmaps and closes the fd. Idempotent. */
  close(): void {
    if (this.#fd < 0) return;
    if (this.#accessOpen) {
      this.#accessOpen = false;
      const s = shim();
      s.symbols.axl_shim_dmabuf_sync(
        this.#fd,
        BigInt(s.constant("DMA_BUF_SYNC_END") | s.constant("DMA_BUF_SYNC_RW")),
      );
    }
    this.unmap();
    leaks.unregister(this);
    shim().symbols.axl_shim_close(this.#fd);
    this.#fd = -1;
  }

  /** Same as {@linkcode DmaBuf.close}. */
  [Symbol.dispose](): void {
    this.close();
  }
}

function readInfo(fd: number): DmaBufFdInfo | undefined {
  let text: string;
  try {
    text = Deno.readTextFileSync(`/proc/self/fdinfo/${fd}`);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) {
      throw new AxlError(`dmabuf(fd ${fd})`, 9, { detail: "no such open file descriptor" });
    }
    throw err;
  }
  return dmaBufFdInfo(parseFdinfo(text));
}
