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
export * from "./check.ts";
export * from "./context.ts";
export * from "./environment.ts";
export * from "./format.ts";
export * from "./kconfig.ts";
export * from "./kernel.ts";
export * from "./memory.ts";
export * from "./pci.ts";
export * from "./perf.ts";
export * from "./run.ts";
export * from "./system.ts";
export * from "./trace_state.ts";
export * from "./tracing.ts";
