/**
 * The shim as the rest of the library sees it: loading `libaxl_shim.so` (with the error
 * that lists every place it looked), what the loaded copy reports about itself, and the
 * sizes and clocks that need C. Only `lib/core/` reaches `ffi/`; everything above goes
 * through this module and the other typed core objects.
 *
 * @module
 */
import { loadShim } from "../../ffi/loader.ts";
import type { ShimSource } from "../../ffi/loader.ts";
import { shim } from "./_shim.ts";

export { EXPECTED_ABI_VERSION, loadShim, ShimLoadError } from "../../ffi/loader.ts";
export type { Shim, ShimAttempt, ShimSource } from "../../ffi/loader.ts";
export type { ShimSymbols, symbols } from "../../ffi/symbols.ts";

/** Where the loaded shim came from and the driver ABI it was built against. */
export interface ShimInfo {
  /** Path of the loaded library. */
  path: string;
  /** How it was found. */
  source: ShimSource;
  /** `AXL_ABI_VERSION` of the uapi header the shim was compiled with. */
  abiVersion: number;
}

/** Loads the shim (ShimLoadError when it cannot) and describes it. */
export function shimInfo(): ShimInfo {
  const s = loadShim();
  return { path: s.path, source: s.source, abiVersion: s.symbols.axl_shim_abi_version() };
}

/** Bytes of `struct axl_result`, the smallest result buffer a job accepts. */
export function resultBytes(): number {
  return shim().constant("sizeof_axl_result");
}

const CLOCK_PROCESS_CPUTIME_ID = 2;

/** CPU time this process has used, in ns (CLOCK_PROCESS_CPUTIME_ID). */
export function processCpuTimeNs(): number {
  return Number(shim().symbols.axl_shim_clock_ns(CLOCK_PROCESS_CPUTIME_ID));
}

const CLOCK_MONOTONIC = 1;

/**
 * CLOCK_MONOTONIC in ns: the clock of fence, V4L2 and trace timestamps, so user-space times
 * line up with the kernel's.
 */
export function monotonicNs(): number {
  return Number(shim().symbols.axl_shim_clock_ns(CLOCK_MONOTONIC));
}
