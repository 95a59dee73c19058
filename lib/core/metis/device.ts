/**
 * {@linkcode MetisDevice}: Axelera's Metis driver (`metis.ko`, `/dev/metis-*`), or
 * axl.ko's node that serves the same ABI on metis-sim (`/dev/axl-metis-*`). A buffer
 * is attached to an open file (one at a time, as the driver allows), and the card's
 * eDMA copies between it and card memory; completion is `poll()` on the file, turned
 * into a promise. Errors are {@linkcode AxlError}s with hints, disposal is `using`,
 * as for {@linkcode Device}.
 *
 * @module
 */
import { z } from "../../_deps.ts";
import { AxlError, unwrap } from "../errors.ts";
import type { DmaBuf } from "../dmabuf.ts";
import { parseOptions } from "../parse_options.ts";
import { cString, shim } from "../_shim.ts";
import { type MetisNodeName, metisNodes, nodePathsForPci, parseNodeName } from "./node.ts";
import {
  type DmaStats,
  type MetisProperties,
  type MetisResources,
  readDmaStats,
  readProperties,
  readResources,
} from "./queries.ts";

/** Which way a transfer copies. */
export const TRANSFER_DIRECTIONS = ["to-card", "from-card"] as const;
/** One of {@linkcode TRANSFER_DIRECTIONS}. */
export type TransferDirection = typeof TRANSFER_DIRECTIONS[number];

const u32 = z.number().int().min(0).max(0xffff_ffff);

/** Options of {@linkcode MetisDevice.transfer} and {@linkcode MetisDevice.transferSync}. */
export const TransferOptions = z.object({
  direction: z.enum(TRANSFER_DIRECTIONS),
  /** Card memory address of the first byte. */
  card: z.union([z.bigint().min(0n), z.number().int().min(0).max(Number.MAX_SAFE_INTEGER)]),
  /** Byte offset into the attached buffer. */
  offset: u32.default(0),
  /** Bytes to copy; default: from `offset` to the end of the buffer. */
  size: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER).optional(),
  /** eDMA channel; -1 lets the driver choose. */
  channel: z.number().int().min(-1).max(255).default(-1),
  /** How long {@linkcode MetisDevice.transfer} waits for completion. */
  timeoutMs: z.number().int().min(1).max(600_000).default(10_000),
}).strict();
/** Input type of {@linkcode TransferOptions}. */
export type TransferOptions = z.input<typeof TransferOptions>;

/** What a finished transfer reports. */
export interface TransferDone {
  /** Which way it copied. */
  direction: TransferDirection;
  /** Card address. */
  card: bigint;
  /** Offset into the buffer. */
  offset: number;
  /** Bytes asked for. */
  size: number;
  /** Time from the ioctl to completion as seen here, in ns. */
  elapsedNs: bigint;
}

/** Where {@linkcode MetisDevice.open} looks: a node path, a PCI address, or the first node. */
export type MetisTarget = string | { node: string } | { pci: string };

/** CLOCK_MONOTONIC-like time in ns, for elapsed times only. */
function nowNs(): bigint {
  return BigInt(Math.round(performance.now() * 1e6));
}

const EBUSY = 16, EINVAL = 22, ETIMEDOUT = 110, EOPNOTSUPP = 95, ECANCELED = 125, EIO = 5;

function resolveNode(target: MetisTarget | undefined): string {
  if (target === undefined) {
    const nodes = metisNodes();
    if (nodes.length) return nodes[0]!;
    throw new AxlError("metis.open()", 2, {
      code: "ENOENT",
      detail: "no /dev/metis-* or /dev/axl-metis-* node",
      hint: "load Axelera's metis driver, or axl.ko (its Metis node is on unless " +
        "metis_node=0); set AXL_METIS_DEVICE for another path",
      exitKind: "cannot-run",
    });
  }
  if (typeof target === "object") {
    return "node" in target ? target.node : pciNode(target.pci);
  }
  return target.startsWith("/") ? target : pciNode(target);
}

function pciNode(address: string): string {
  const paths = nodePathsForPci(address);
  const found = paths.find((p) => {
    try {
      return Deno.statSync(p) !== undefined;
    } catch {
      return false;
    }
  });
  if (found) return found;
  throw new AxlError(`metis.open(${address})`, 2, {
    code: "ENOENT",
    detail: `no node for PCI ${address}: tried ${paths.join(", ")}`,
    hint: "check lspci -D -k for the card and the driver bound to it",
    exitKind: "cannot-run",
  });
}

/**
 * An open Metis device node.
 *
 * @example Attach a frame, copy it to card memory and back
 * ```ts ignore
 * import { Heap, MetisDevice } from "../../../mod.ts";
 * using card = MetisDevice.open();
 * using frame = Heap.open("system").allocate(1 << 20);
 * card.attach(frame);
 * await card.transfer({ direction: "to-card", card: 0 });
 * card.transferSync({ direction: "from-card", card: 0 });
 * console.log(card.dmaStats().write[0]);
 * ```
 */
export class MetisDevice implements Disposable {
  #fd: number;
  readonly #node: MetisNodeName;
  #attached: DmaBuf | undefined;
  #inFlight = false;

  private constructor(fd: number, node: MetisNodeName) {
    this.#fd = fd;
    this.#node = node;
  }

  /**
   * Opens a Metis node: a path, a PCI address (`0000:01:00.0`), or, by default,
   * `AXL_METIS_DEVICE` or the first node found. Checks that it speaks metis.ko's ABI.
   */
  static open(target?: MetisTarget): MetisDevice {
    const path = resolveNode(target);
    const node = parseNodeName(path) ?? { path, driver: "metis" as const };
    const s = shim();
    const fd = unwrap(
      s.symbols.axl_shim_open(cString(path), s.constant("O_RDWR") | s.constant("O_CLOEXEC")),
      `metis.open(${path})`,
      "device-node",
    );
    const dev = new MetisDevice(fd, node);
    try {
      dev.properties(); // GET_DEV_PROPERTY: ENOTTY on a node of another driver
    } catch (err) {
      dev.close();
      throw err;
    }
    return dev;
  }

  /** The Metis nodes present (see {@linkcode metisNodes}). */
  static discover(): string[] {
    return metisNodes();
  }

  /** The node path. */
  get path(): string {
    return this.#node.path;
  }

  /** What the node's name says: driver and PCI function. */
  get node(): MetisNodeName {
    return this.#node;
  }

  /** The fd; throws when closed. */
  get fd(): number {
    if (this.#fd < 0) throw new TypeError(`MetisDevice ${this.path} is closed`);
    return this.#fd;
  }

  /** True once closed. */
  get closed(): boolean {
    return this.#fd < 0;
  }

  /** The attached buffer, if any (not owned). */
  get attached(): DmaBuf | undefined {
    return this.#attached;
  }

  /** GET_DEV_PROPERTY for every property the driver defines. */
  properties(): MetisProperties {
    return readProperties(this.fd, this.path);
  }

  /** GET_RESOURCE_INFO: the card memory transfers address. */
  resources(): MetisResources {
    return readResources(this.fd, this.path);
  }

  /**
   * GET_DMA_STATS: the card's eDMA counters (for the whole card, not this file),
   * including the most scatterlist entries of a transferred buffer
   * ({@linkcode ChannelStats.maxSegments}).
   */
  dmaStats(): DmaStats {
    return readDmaStats(this.fd, this.path);
  }

  /**
   * The most scatterlist entries of any buffer the card transferred since the driver
   * loaded (GET_DMA_STATS, all channels): how scattered the buffers it moves are. The
   * driver walks every entry, so this is information, not a limit.
   */
  maxSegments(): number {
    const s = this.dmaStats();
    return Math.max(0, ...[...s.read, ...s.write].map((c) => c.maxSegments));
  }

  /**
   * DMA_ATTACH: attaches `buf` to the card and maps it, as the driver does for any
   * dma-buf: contiguous or scattered (metis.ko's eDMA walks every scatterlist entry).
   * Refused here, before the driver sees it, only when the file has a buffer already
   * (metis.ko keeps one per file and would silently replace it).
   */
  attach(buf: DmaBuf): void {
    const op = `metis.attach(${this.path}, inode ${buf.inode})`;
    if (this.#attached) {
      throw new AxlError(op, EBUSY, {
        code: "EBUSY",
        detail: `inode ${this.#attached.inode} is attached to this file already`,
        hint: "metis.ko holds one buffer per open file (a second DMA_ATTACH replaces the " +
          "first without detaching it): detach() first, or open another MetisDevice per buffer",
      });
    }
    unwrap(shim().symbols.axl_shim_metis_attach(this.fd, buf.fd), op, "metis");
    this.#attached = buf;
  }

  /** DMA_DETACH. The driver refuses (EBUSY) while a transfer is in flight. Idempotent. */
  detach(): void {
    if (!this.#attached) return;
    unwrap(
      shim().symbols.axl_shim_metis_detach(this.fd),
      `metis.detach(${this.path}, inode ${this.#attached.inode})`,
      "metis",
    );
    this.#attached = undefined;
  }

  /**
   * A SYNC transfer: returns once the eDMA copied. Blocks the thread for the copy;
   * {@linkcode MetisDevice.transfer} does not.
   */
  transferSync(options: TransferOptions): TransferDone {
    const o = this.#request(options, "transferSync");
    const s = shim();
    const start = nowNs();
    const ret = s.symbols.axl_shim_metis_xfer(
      this.fd,
      o.card,
      BigInt(o.size),
      o.offset,
      s.constant(o.dirFlag) | s.constant("AXL_METIS_XFER_SYNC"),
      o.channel,
    );
    unwrap(ret, o.op, "metis");
    // a SYNC transfer raises a poll() event too: consume it so transfer() sees its own
    s.symbols.axl_shim_metis_clear_event(this.fd);
    return o.done(nowNs() - start);
  }

  /**
   * An ASYNC transfer: resolves when the driver signals completion through poll() on
   * the file and the async status reads DONE; rejects with an AxlError for FAIL,
   * TIMEOUT, no completion within `timeoutMs`, or the device closing meanwhile.
   */
  async transfer(options: TransferOptions): Promise<TransferDone> {
    const o = this.#request(options, "transfer");
    const s = shim();
    const start = nowNs();
    unwrap(
      s.symbols.axl_shim_metis_xfer(
        this.fd,
        o.card,
        BigInt(o.size),
        o.offset,
        s.constant(o.dirFlag) | s.constant("AXL_METIS_XFER_ASYNC"),
        o.channel,
      ),
      o.op,
      "metis",
    );
    this.#inFlight = true;
    try {
      const ready = await s.symbols.axl_shim_poll_in_async(this.#fd, o.timeoutMs);
      if (this.closed) {
        throw new AxlError(o.op, ECANCELED, {
          code: "ECANCELED",
          detail: "the device was closed while the transfer was in flight; its outcome is unknown",
          hint: "await transfers before closing: the driver cancels one the eDMA has not started",
        });
      }
      unwrap(ready, o.op, "metis");
      if (ready === 0) {
        throw new AxlError(o.op, ETIMEDOUT, {
          code: "ETIMEDOUT",
          detail: `no completion within ${o.timeoutMs} ms`,
          hint: "the card's eDMA did not finish: check dmesg; raise timeoutMs for large buffers",
        });
      }
      s.symbols.axl_shim_metis_clear_event(this.#fd);
      this.#checkStatus(o.op);
      return o.done(nowNs() - start);
    } finally {
      this.#inFlight = false;
    }
  }

  /** DMA_GET_XFER_ASYNC_STATUS of this file's last ASYNC transfer. */
  status(): "none" | "done" | "fail" | "timeout" | "pending" {
    const s = shim();
    const st = unwrap(
      s.symbols.axl_shim_metis_xfer_status(this.fd),
      `metis.status(${this.path})`,
      "metis",
    );
    const names = ["done", "fail", "timeout", "pending"] as const;
    return names.find((n) => s.constant(`AXL_METIS_XFER_${n.toUpperCase()}`) === st) ?? "none";
  }

  /**
   * metis.ko has no jobs with fences: there is no dma_fence or sync_file to wait on or
   * pass to another driver. Always throws; completion is {@linkcode MetisDevice.transfer}'s
   * promise (poll() on the file).
   */
  submit(): never {
    throw new AxlError(`metis.submit(${this.path})`, EOPNOTSUPP, {
      code: "EOPNOTSUPP",
      detail: "metis.ko signals completion only through poll() on its file: no dma_fence, " +
        "no sync_file, so nothing can wait on a fence or pass one to another driver",
      hint: "await MetisDevice.transfer(); for fences use axl.ko's /dev/axl (Device)",
    });
  }

  #checkStatus(op: string): void {
    const st = this.status();
    if (st === "done") return;
    const errno = st === "timeout" ? ETIMEDOUT : EIO;
    throw new AxlError(op, errno, {
      code: st === "timeout" ? "ETIMEDOUT" : "EIO",
      detail: `the driver's async status is ${st}`,
      hint: "the card's eDMA failed the transfer: see dmesg",
    });
  }

  #request(options: TransferOptions, what: string) {
    const o = parseOptions(TransferOptions, options, `MetisDevice.${what}`);
    const buf = this.#attached;
    const op = `metis.${what}(${this.path}, ${o.direction} card 0x${BigInt(o.card).toString(16)})`;
    if (!buf) {
      throw new AxlError(op, EINVAL, {
        code: "EINVAL",
        detail: "no buffer attached",
        hint: "attach() a DmaBuf first",
      });
    }
    if (this.#inFlight) {
      throw new AxlError(op, EBUSY, {
        code: "EBUSY",
        detail: "a transfer is in flight on this file",
        hint: "metis.ko runs one transfer per open file at a time: await the last one",
      });
    }
    const size = o.size ?? buf.size - o.offset;
    if (size < 1 || o.offset + size > buf.size) {
      throw new RangeError(
        `MetisDevice.${what}: offset ${o.offset} + size ${size} is past the ${buf.size}-byte buffer`,
      );
    }
    const dirFlag = o.direction === "to-card" ? "AXL_METIS_XFER_WRITE" : "AXL_METIS_XFER_READ";
    const card = BigInt(o.card);
    return {
      ...o,
      op,
      size,
      card,
      dirFlag,
      done: (elapsedNs: bigint): TransferDone => ({
        direction: o.direction,
        card,
        offset: o.offset,
        size,
        elapsedNs,
      }),
    };
  }

  /**
   * Closes the file: the driver cancels a transfer the eDMA has not started and
   * detaches the buffer. Idempotent.
   */
  close(): void {
    if (this.#fd < 0) return;
    shim().symbols.axl_shim_close(this.#fd);
    this.#fd = -1;
    this.#attached = undefined;
  }

  /** Same as {@linkcode MetisDevice.close}. */
  [Symbol.dispose](): void {
    this.close();
  }
}
