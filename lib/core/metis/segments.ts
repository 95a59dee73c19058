/**
 * Whether a buffer maps as one DMA segment for a Metis card, checked before
 * `DMA_ATTACH`: `metis.ko` keeps only the first scatterlist entry's address and
 * length of what it maps, so a buffer that maps as several entries is attached
 * without complaint and then transferred short or from the wrong memory.
 *
 * Nothing in metis.ko's ABI reports the mapping, so the answer comes from what is
 * known for certain, in this order:
 * 1. a buffer of one page is one segment whatever exports it;
 * 2. a buffer from a physically contiguous heap (`linux,cma`, `reserved`) is one
 *    scatterlist entry, which every DMA mapping keeps as one segment;
 * 3. when axl.ko is bound to the same PCI function (the simulator, or a board with
 *    both drivers), its `IMPORT_FD` maps the buffer for that very device and reports
 *    the segment count (one `axl_dmabuf_import`/`release` pair in a trace);
 * 4. otherwise the layout is unknown and the attach is refused, unless the caller
 *    vouches for the buffer (`assumeContiguous`).
 *
 * @module
 */
import { Device } from "../device.ts";
import type { DmaBuf } from "../dmabuf.ts";
import { CMA_HEAP_NAMES } from "../heap.ts";
import { type MetisNodeName, sameDevice } from "./node.ts";

/** The smallest page size of the machines axl runs on: one page is one segment. */
const MIN_PAGE = 4096;

/** How {@linkcode checkSegments} knew. */
export type SegmentSource =
  | "single-page"
  | "contiguous-heap"
  | "axl-probe"
  | "assumed"
  | "unknown";

/** The verdict of {@linkcode checkSegments}. */
export interface SegmentCheck {
  /** The buffer maps as one segment: attaching it is safe. */
  ok: boolean;
  /** Where the answer came from. */
  source: SegmentSource;
  /** DMA segments of the mapping, when a driver reported them. */
  segments?: number;
  /** One sentence saying what is known. */
  detail: string;
}

/** Maps `buf` for the node's device and returns its DMA segment count, or undefined. */
export type SegmentProbe = (buf: DmaBuf, node: MetisNodeName) => number | undefined;

/**
 * The segment count axl.ko's `/dev/axl` reports for `buf`, when axl.ko's engine is
 * the node's device; undefined when it is not, or /dev/axl is absent.
 */
export function axlProbe(buf: DmaBuf, node: MetisNodeName): number | undefined {
  let dev: Device;
  try {
    dev = Device.open();
  } catch {
    return undefined; // no axl.ko: nothing to ask
  }
  try {
    if (!sameDevice(node, dev.info().device)) return undefined;
    // any frame that fits maps the whole buffer; reading it is all the probe does
    using imp = dev.import(buf, { width: 1, height: 1, format: "RAW" });
    return imp.nents;
  } finally {
    dev.close();
  }
}

const probed = new WeakMap<DmaBuf, Map<string, number | undefined>>();

function describe(buf: DmaBuf): string {
  return `buffer (inode ${buf.inode}, exporter ${buf.exporter}, ${buf.size} bytes)`;
}

/**
 * Decides whether `buf` maps as one DMA segment for `node`'s device. Probe results
 * are remembered per buffer and node, so a frame loop pays for the probe once.
 *
 * @example A one-page buffer needs no probe
 * ```ts ignore
 * import { checkSegments } from "./segments.ts";
 * import { parseNodeName } from "./node.ts";
 * import { Heap } from "../heap.ts";
 * using buf = Heap.open("system").allocate(4096);
 * console.log(checkSegments(buf, parseNodeName("/dev/metis-0-1-0")!).source); // single-page
 * ```
 */
export function checkSegments(
  buf: DmaBuf,
  node: MetisNodeName,
  options: { assumeContiguous?: boolean; probe?: SegmentProbe } = {},
): SegmentCheck {
  if (buf.size <= MIN_PAGE) {
    return { ok: true, source: "single-page", segments: 1, detail: `${describe(buf)} is one page` };
  }
  if (CMA_HEAP_NAMES.includes(buf.exporter)) {
    return {
      ok: true,
      source: "contiguous-heap",
      segments: 1,
      detail: `${describe(buf)} comes from a physically contiguous heap`,
    };
  }
  let seen = probed.get(buf);
  if (!seen) probed.set(buf, seen = new Map());
  if (!seen.has(node.path)) seen.set(node.path, (options.probe ?? axlProbe)(buf, node));
  const segments = seen.get(node.path);
  if (segments !== undefined) {
    return {
      ok: segments === 1,
      source: "axl-probe",
      segments,
      detail: `${describe(buf)} maps as ${segments} DMA segment${segments === 1 ? "" : "s"} ` +
        `for the device of ${node.path} (axl.ko mapped it to check)`,
    };
  }
  if (options.assumeContiguous) {
    return {
      ok: true,
      source: "assumed",
      detail: `${describe(buf)} is one DMA segment by the caller's word (assumeContiguous)`,
    };
  }
  return {
    ok: false,
    source: "unknown",
    detail: `cannot tell whether ${describe(buf)} maps as one DMA segment for the device of ` +
      `${node.path}: it is not from a contiguous heap, and axl.ko is not bound to that ` +
      "device to check",
  };
}
