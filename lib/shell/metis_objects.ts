/**
 * What a shell session holds on a Metis node (metis.ko's ABI): the attachment of a
 * buffer to the node's file ({@linkcode MetisAttachment}, listed as an import) and a
 * transfer between it and card memory ({@linkcode MetisTransfer}, listed as a job; its
 * completion comes from poll() on the file). {@linkcode CardLedger} remembers the bytes
 * each transfer put on the card, so a transfer back can be checked byte for byte.
 *
 * @module
 */
import type { DmaBuf } from "../core/dmabuf.ts";
import type {
  MetisDevice,
  TransferDirection,
  TransferDone,
  TransferOptions,
} from "../core/metis/device.ts";

/** A buffer attached to a Metis node's file (DMA_ATTACH), until detached. */
export class MetisAttachment {
  /** The node whose file holds the buffer. */
  readonly device: MetisDevice;
  /** The attached buffer (not owned). */
  readonly buffer: DmaBuf;
  #detached = false;

  /** Attaches `buffer` to `device` (one buffer per file: the backend refuses a second). */
  constructor(device: MetisDevice, buffer: DmaBuf) {
    device.attach(buffer);
    this.device = device;
    this.buffer = buffer;
  }

  /** True until detached (or the device closed). */
  get live(): boolean {
    return !this.#detached && !this.device.closed && this.device.attached === this.buffer;
  }

  /** The dma-buf's inode. */
  get inode(): number {
    return this.buffer.inode;
  }

  /** The node's path. */
  get path(): string {
    return this.device.path;
  }

  /** DMA_DETACH; the driver refuses (EBUSY) while a transfer is in flight. Idempotent. */
  detach(): void {
    if (!this.live) return;
    this.device.detach();
    this.#detached = true;
  }

  /** What the shell shows and `--json` prints. */
  toJSON(): { node: string; inode: number; size: number; attached: boolean } {
    return { node: this.path, inode: this.inode, size: this.buffer.size, attached: this.live };
  }
}

/** The bytes transfers put on a card, by card address. */
export class CardLedger {
  readonly #areas = new Map<bigint, Uint8Array>();

  /** Records that `bytes` now start at card address `card`. */
  wrote(card: bigint, bytes: Uint8Array): void {
    for (const [at, old] of this.#areas) {
      // an overlapping older record no longer says what is on the card
      if (at < card + BigInt(bytes.length) && card < at + BigInt(old.length)) {
        this.#areas.delete(at);
      }
    }
    this.#areas.set(card, bytes);
  }

  /** The `size` bytes known to start at `card`, if a transfer put them there. */
  read(card: bigint, size: number): Uint8Array | undefined {
    for (const [at, bytes] of this.#areas) {
      const from = card - at;
      if (from >= 0n && from + BigInt(size) <= BigInt(bytes.length)) {
        return bytes.subarray(Number(from), Number(from) + size);
      }
    }
    return undefined;
  }
}

/** How a finished transfer's bytes compare with what was put on the card. */
export interface TransferCheck {
  /** Bytes compared. */
  bytes: number;
  /** Offset (in the transfer) of the first differing byte, or -1 when all match. */
  firstMismatch: number;
}

/** Reads `size` bytes at `offset` of `buf` through a CPU mapping, dropped afterwards. */
export function readBytes(buf: DmaBuf, offset: number, size: number): Uint8Array {
  let copy: Uint8Array;
  {
    using access = buf.cpuAccess({ read: true });
    copy = access.bytes.slice(offset, offset + size);
  }
  // the frame path must not keep a CPU mapping (ls would show a map ref)
  buf.unmap();
  return copy;
}

/** A transfer between an attached buffer and card memory, sync or async. */
export class MetisTransfer {
  /** The attachment it copies from or into. */
  readonly attachment: MetisAttachment;
  /** Which way it copies. */
  readonly direction: TransferDirection;
  /** Card address. */
  readonly card: bigint;
  /** Completion: the backend's poll() promise (already settled for a sync transfer). */
  readonly promise: Promise<TransferDone>;
  #done: TransferDone | undefined;
  #failed = false;

  private constructor(
    attachment: MetisAttachment,
    options: TransferOptions,
    promise: Promise<TransferDone>,
  ) {
    this.attachment = attachment;
    this.direction = options.direction;
    this.card = BigInt(options.card);
    this.promise = promise.then((d) => (this.#done = d), (err) => {
      this.#failed = true;
      throw err;
    });
    // a transfer nobody waits for must not be an unhandled rejection
    this.promise.catch(() => undefined);
  }

  /** Starts a transfer on `attachment`'s file: ASYNC (poll completion) or SYNC. */
  static start(
    attachment: MetisAttachment,
    options: TransferOptions,
    sync: boolean,
  ): MetisTransfer {
    const dev = attachment.device;
    const promise = sync ? Promise.resolve(dev.transferSync(options)) : dev.transfer(options);
    return new MetisTransfer(attachment, options, promise);
  }

  /** The result once finished. */
  get done(): TransferDone | undefined {
    return this.#done;
  }

  /** True while neither finished nor failed. */
  get pending(): boolean {
    return this.#done === undefined && !this.#failed;
  }

  /** What the shell shows and `--json` prints. */
  toJSON(): Record<string, unknown> {
    return {
      node: this.attachment.path,
      inode: this.attachment.inode,
      direction: this.direction,
      card: this.card,
      state: this.#done ? "done" : this.#failed ? "failed" : "pending",
      ...(this.#done ? { size: this.#done.size, elapsedNs: this.#done.elapsedNs } : {}),
    };
  }
}

/**
 * Compares `got` with `want` byte by byte.
 *
 * @example
 * ```ts
 * import { compareBytes } from "./metis_objects.ts";
 * const c = compareBytes(new Uint8Array([1, 2, 3]), new Uint8Array([1, 9, 3]));
 * console.log(c.bytes); // 3
 * console.log(c.firstMismatch); // 1
 * ```
 */
export function compareBytes(got: Uint8Array, want: Uint8Array): TransferCheck {
  const n = Math.min(got.length, want.length);
  for (let i = 0; i < n; i++) {
    if (got[i] !== want[i]) return { bytes: n, firstMismatch: i };
  }
  return { bytes: n, firstMismatch: got.length === want.length ? -1 : n };
}
