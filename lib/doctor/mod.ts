/**
 * `axl doctor`: checks what the Jetson frame path needs — kernel config, DMA
 * heaps and CMA, tracefs/debugfs, perf and the PMU, the NPU on PCIe (Gen3 x4)
 * and the axl driver's ABI — each OK, WARN or FAIL with the fix. The checks are
 * pure functions of a {@linkcode DoctorContext}, so they run on the live system
 * and on captured trees alike.
 *
 * @example
 * ```ts ignore
 * import { doctorContext, formatReport, runDoctor } from "./mod.ts";
 * console.log(formatReport(runDoctor(doctorContext())));
 * ```
 *
 * @module
 */
export { countStatuses, fail, ok, warn } from "./check.ts";
export type { CheckResult, Status, StatusCounts } from "./check.ts";
export { DEFAULT_EXPECTATIONS } from "./context.ts";
export type { DoctorContext, DriverProbe, Expectations, ShimProbe } from "./context.ts";
export { doctorContext } from "./environment.ts";
export type { ContextOptions } from "./environment.ts";
export { formatReport } from "./format.ts";
export { kernelConfigPaths, parseKernelConfig, readKernelConfig } from "./kconfig.ts";
export type { KernelConfig } from "./kconfig.ts";
export { checkConfigValues, checkKernelConfig, checkRelease, CONFIG_RULES } from "./kernel.ts";
export type { ConfigRule } from "./kernel.ts";
export { checkCmaPool, checkHeaps, CMA_HEAP_NAMES, parseMeminfo } from "./memory.ts";
export {
  AXELERA_VENDOR,
  checkNpuPci,
  findNpu,
  listPci,
  METIS_DEVICE,
  parseLinkSpeed,
} from "./pci.ts";
export type { NpuFunction, PciFunction } from "./pci.ts";
export { checkPerf, findExecutable, isCpuPmu } from "./perf.ts";
export { runDoctor } from "./run.ts";
export { systemAt } from "./system.ts";
export type { PathKind, SystemView } from "./system.ts";
export { checkTracing, parseMounts } from "./tracing.ts";
