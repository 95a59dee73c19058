/**
 * The Metis backend: Axelera's `metis.ko` ABI (dma-buf attach, eDMA transfers to card
 * memory, poll() completion), on a real card or on axl.ko's simulator node.
 *
 * @module
 */
export * from "./device.ts";
export * from "./node.ts";
export * from "./driver.ts";
export * from "./queries.ts";
