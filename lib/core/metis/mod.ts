/**
 * The Metis backend: Axelera's `metis.ko` ABI (dma-buf attach, eDMA transfers to card
 * memory, poll() completion), on a real card or on axl.ko's simulator node.
 *
 * @module
 */
export { MetisDevice, TRANSFER_DIRECTIONS, TransferOptions } from "./device.ts";
export type { AttachOptions, MetisTarget, TransferDirection, TransferDone } from "./device.ts";
export {
  METIS_NODE_DIR,
  metisNodes,
  nodePathsForPci,
  parseNodeName,
  parsePciAddress,
  sameDevice,
} from "./node.ts";
export type { MetisNodeName } from "./node.ts";
export { axlProbe, checkSegments } from "./segments.ts";
export type { SegmentCheck, SegmentProbe, SegmentSource } from "./segments.ts";
export type {
  CardArea,
  ChannelStats,
  DmaStats,
  MetisProperties,
  MetisResources,
} from "./queries.ts";
