/**
 * {@linkcode DoctorContext}: everything the doctor checks read, injected so the
 * same checks run on the live system, on a captured tree, and in host tests.
 *
 * @module
 */
import type { SystemView } from "./system.ts";

/** What loading `libaxl_shim.so` gave. */
export type ShimProbe =
  | { ok: true; path: string; source: string; abiVersion: number }
  | { ok: false; error: string };

/** What opening the device node and GET_INFO gave. */
export type DriverProbe =
  | { ok: true; abiVersion: number; engine: string; device: string; caps: string[] }
  | { ok: false; error: string };

/** What the Jetson path expects; the defaults come from the design (docs/design.md). */
export interface Expectations {
  /** CMA pool the board reserves (`CmaTotal`), in MiB. */
  cmaMiB: number;
  /** PCIe link speed of the NPU in GT/s (Gen3 = 8). */
  linkGTs: number;
  /** PCIe link width of the NPU (the M.2 Metis card is x4). */
  linkWidth: number;
}

/** The defaults: 256 MiB CMA (the board's linux,cma node), Gen3 x4. */
export const DEFAULT_EXPECTATIONS: Readonly<Expectations> = Object.freeze({
  cmaMiB: 256,
  linkGTs: 8,
  linkWidth: 4,
});

/** Inputs of every check. */
export interface DoctorContext {
  /** The machine's files. */
  sys: SystemView;
  /** Kernel release (`uname -r`). */
  release: string;
  /** Machine architecture (`x86_64`, `aarch64`). */
  arch: string;
  /** Directories searched for executables (`$PATH`). */
  pathDirs: string[];
  /** Whether the checks run as root (debugfs, perf and device access depend on it). */
  isRoot: boolean;
  /** The NPU device node, normally `/dev/axl`. */
  devicePath: string;
  /** Kernel ABI version this build of axl was written for. */
  expectedAbi: number;
  /** Loads the shim; `undefined` when it cannot be probed (a captured tree without data). */
  probeShim(): ShimProbe | undefined;
  /** Opens `devicePath` and asks GET_INFO; `undefined` when it cannot be probed. */
  probeDriver(): DriverProbe | undefined;
  /** Target values. */
  expect: Expectations;
}
