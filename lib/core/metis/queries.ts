/**
 * The Metis driver's read-only queries: device properties (GET_DEV_PROPERTY),
 * card memory (GET_RESOURCE_INFO) and eDMA counters (GET_DMA_STATS).
 *
 * @module
 */
import { unwrap } from "../errors.ts";
import { shim } from "../_shim.ts";

/** What GET_DEV_PROPERTY reports. */
export interface MetisProperties {
  /** Hardware generation: 0 is Metis. */
  hwGen: number;
  /** AI cores on the card. */
  aicoreCount: number;
  /** PVE cores on the card. */
  pveCoreCount: number;
  /** Bus of the PCIe switch the card sits behind, or -1. */
  pesGroup: number;
}

/** A card memory area. */
export interface CardArea {
  /** Card address of the first byte. */
  base: bigint;
  /** Bytes. */
  size: bigint;
}

/** What GET_RESOURCE_INFO reports. */
export interface MetisResources {
  /** The L2 window (not used by transfers). */
  l2: CardArea;
  /** Card DDR areas; transfers address the first. */
  ddr: CardArea[];
}

/** One eDMA channel's counters. */
export interface ChannelStats {
  /** Transfers queued or running now. */
  count: number;
  /** Transfers since the driver loaded. */
  transfers: number;
  /** Transfers that failed. */
  errors: number;
  /** Bytes requested since load. */
  bytes: bigint;
  /** Most scatterlist entries of a transferred buffer. */
  maxSegments: number;
  /** Longest transfer, in µs. */
  maxDurationUs: bigint;
  /** Last transfer, in µs. */
  durationUs: bigint;
  /** Bytes of the last transfer. */
  lastSize: bigint;
  /** Last transfer's speed in MB/s (bytes per µs). */
  speedMBps: number;
}

/** What GET_DMA_STATS reports: per channel, card-to-buffer (`read`) and buffer-to-card (`write`). */
export interface DmaStats {
  /** READ transfers (card memory to buffer). */
  read: ChannelStats[];
  /** WRITE transfers (buffer to card memory). */
  write: ChannelStats[];
}

const PROPERTIES = [
  ["hwGen", "AXL_METIS_PROP_HW_GEN"],
  ["aicoreCount", "AXL_METIS_PROP_AICORE_COUNT"],
  ["pveCoreCount", "AXL_METIS_PROP_PVE_CORE_COUNT"],
  ["pesGroup", "AXL_METIS_PROP_PES_GROUP"],
] as const;

/** GET_DEV_PROPERTY for each property; `pesGroup` is signed (metis.ko widens an int). */
export function readProperties(fd: number, path: string): MetisProperties {
  const s = shim();
  const out = new BigUint64Array(1);
  const props = {} as Record<keyof MetisProperties, number>;
  for (const [key, name] of PROPERTIES) {
    unwrap(
      s.symbols.axl_shim_metis_property(fd, BigInt(s.constant(name)), out),
      `metis.property(${path}, ${key})`,
      "metis",
    );
    props[key] = Number(BigInt.asIntN(64, out[0]!));
  }
  return props;
}

/** GET_RESOURCE_INFO. */
export function readResources(fd: number, path: string): MetisResources {
  const out = new BigUint64Array(8);
  unwrap(shim().symbols.axl_shim_metis_resources(fd, out), `metis.resources(${path})`, "metis");
  return {
    l2: { base: out[2]!, size: out[3]! },
    ddr: [{ base: out[4]!, size: out[6]! }, { base: out[5]!, size: out[7]! }],
  };
}

/** GET_DMA_STATS. */
export function readDmaStats(fd: number, path: string): DmaStats {
  const s = shim();
  const channels = s.constant("AXL_METIS_DMA_CHANNELS");
  const slots = s.constant("AXL_SHIM_METIS_STATS_SLOTS");
  const out = new BigUint64Array(2 * channels * slots);
  unwrap(s.symbols.axl_shim_metis_dma_stats(fd, out), `metis.dmaStats(${path})`, "metis");
  const channel = (i: number): ChannelStats => {
    const o = out.subarray(i * slots, (i + 1) * slots);
    const int = (v: bigint) => Number(BigInt.asIntN(64, v));
    return {
      count: int(o[0]!),
      transfers: int(o[1]!),
      errors: int(o[2]!),
      bytes: o[3]!,
      maxSegments: int(o[4]!),
      maxDurationUs: o[5]!,
      durationUs: o[6]!,
      lastSize: o[7]!,
      speedMBps: Number(o[8]!),
    };
  };
  const all = Array.from({ length: 2 * channels }, (_, i) => channel(i));
  return { read: all.slice(0, channels), write: all.slice(channels) };
}
