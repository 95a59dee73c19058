/**
 * perf checks: the `perf` tool on PATH, `perf_event_paranoid` for non-root
 * users, and a hardware CPU PMU (without one perf can only sample cpu-clock).
 *
 * @module
 */
import { type CheckResult, fail, ok, warn } from "./check.ts";
import type { DoctorContext } from "./context.ts";

const EVENT_SOURCES = "/sys/bus/event_source/devices";

/**
 * Whether an event source name is a CPU's hardware PMU: `cpu` (x86;
 * `cpu_core`/`cpu_atom` on hybrid parts) or `armv8_*`/`armv9_*` (arm64, e.g.
 * `armv8_pmuv3_0`, `armv8_cortex_a78`). Uncore PMUs do not count.
 *
 * @example
 * ```ts
 * import { isCpuPmu } from "./perf.ts";
 * console.log(isCpuPmu("armv8_cortex_a78")); // true
 * console.log(isCpuPmu("software")); // false
 * ```
 */
export function isCpuPmu(name: string): boolean {
  return /^cpu(_core|_atom)?$/.test(name) || /^armv[89]_/.test(name);
}

/** First executable `name` on the PATH directories; `undefined` when none. */
export function findExecutable(ctx: DoctorContext, name: string): string | undefined {
  for (const dir of ctx.pathDirs) {
    if (!dir.startsWith("/")) continue;
    const path = `${dir.replace(/\/+$/, "")}/${name}`;
    if (ctx.sys.isExecutable(path)) return path;
  }
  return undefined;
}

/**
 * Checks the perf tool, its permission and the hardware PMU.
 *
 * @example
 * ```ts ignore
 * for (const r of checkPerf(ctx)) console.log(r.status, r.message);
 * ```
 */
export function checkPerf(ctx: DoctorContext): CheckResult[] {
  const out: CheckResult[] = [];
  const perf = findExecutable(ctx, "perf");
  if (!perf) {
    out.push(
      fail(
        "perf",
        "perf is not on PATH: I4 (no CPU copy of the frame) cannot be checked",
        "install perf for this kernel (Debian: apt install linux-perf; Ubuntu-based L4T: " +
          "apt install linux-tools-common, or build tools/perf from the L4T kernel sources)",
      ),
    );
  } else {
    const paranoid = Number(ctx.sys.readText("/proc/sys/kernel/perf_event_paranoid")?.trim());
    if (!ctx.isRoot && Number.isFinite(paranoid) && paranoid > 1) {
      out.push(
        warn(
          "perf",
          `${perf}, but perf_event_paranoid is ${paranoid}: a non-root user cannot sample ` +
            "other processes",
          "run as root, or sysctl kernel.perf_event_paranoid=1",
        ),
      );
    } else {
      out.push(ok("perf", perf));
    }
  }
  const sources = ctx.sys.list(EVENT_SOURCES) ?? [];
  const pmus = sources.filter(isCpuPmu);
  if (pmus.length) {
    out.push(ok("pmu", `hardware PMU: ${pmus.join(" ")}`));
  } else {
    out.push(
      warn(
        "pmu",
        `no hardware CPU PMU in ${EVENT_SOURCES} (${sources.join(" ") || "none"}): perf can ` +
          "only sample -e cpu-clock",
        ctx.arch === "aarch64"
          ? "enable CONFIG_ARM_PMU=y and CONFIG_HW_PERF_EVENTS=y and keep the device tree's " +
            "pmu node enabled"
          : "use a machine (or a VM with a virtual PMU) that exposes hardware counters",
      ),
    );
  }
  return out;
}
