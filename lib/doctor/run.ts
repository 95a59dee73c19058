/**
 * {@linkcode runDoctor}: every check, in report order.
 *
 * @module
 */
import type { CheckResult } from "./check.ts";
import type { DoctorContext } from "./context.ts";
import { checkDriver } from "./driver.ts";
import { checkKernelConfig, checkRelease } from "./kernel.ts";
import { checkCmaPool, checkHeaps } from "./memory.ts";
import { checkNpuPci } from "./pci.ts";
import { checkMetisKo, checkMetisSim } from "./metis_ko.ts";
import { checkPerf } from "./perf.ts";
import { checkTracing } from "./tracing.ts";
import { checkTraceState } from "./trace_state.ts";

/**
 * Runs every check against `ctx`: kernel and config, DMA heaps and CMA,
 * tracing, perf, the NPU on PCI, and the driver.
 *
 * @example Replay the VM rig's captured state
 * ```ts
 * import { doctorContext } from "./environment.ts";
 * import { runDoctor } from "./run.ts";
 * const root = new URL("../../tests/fixtures/doctor/vm-6.12", import.meta.url).pathname;
 * const results = runDoctor(doctorContext({ root }));
 * console.log(results.find((r) => r.id === "dma-heap.cma")?.status); // "fail"
 * ```
 */
export function runDoctor(ctx: DoctorContext): CheckResult[] {
  return [
    checkRelease(ctx),
    ...checkKernelConfig(ctx),
    ...checkHeaps(ctx),
    checkCmaPool(ctx),
    ...checkTracing(ctx),
    ...checkTraceState(ctx),
    ...checkPerf(ctx),
    ...checkNpuPci(ctx),
    ...checkMetisKo(ctx),
    ...checkMetisSim(ctx),
    ...checkDriver(ctx),
  ];
}
