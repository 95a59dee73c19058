/**
 * Kernel checks: the release (axl.ko builds for 5.15 and newer) and the build
 * options the Jetson frame path needs (docs/design.md#kernel-options-the-path-needs,
 * plus the tracing and perf options verification depends on).
 *
 * @module
 */
import { type CheckResult, fail, ok, type Status, warn } from "./check.ts";
import type { DoctorContext } from "./context.ts";
import { type KernelConfig, kernelConfigPaths, readKernelConfig } from "./kconfig.ts";

/** One kernel option the frame path depends on. */
export interface ConfigRule {
  /** Option names without `CONFIG_`; any one of them satisfies the rule. */
  anyOf: readonly string[];
  /** Status when none is `y` or `m`. */
  missing: Exclude<Status, "ok">;
  /** Only on this architecture (`uname -m`); all when absent. */
  arch?: string;
  /** What needs it. */
  why: string;
}

/** The options checked, in report order. */
export const CONFIG_RULES: readonly ConfigRule[] = [
  { anyOf: ["DMA_SHARED_BUFFER"], missing: "fail", why: "dma-buf sharing itself" },
  { anyOf: ["DMABUF_HEAPS"], missing: "fail", why: "/dev/dma_heap allocation" },
  {
    anyOf: ["DMABUF_HEAPS_SYSTEM"],
    missing: "fail",
    why: "the system heap (telemetry, test frames)",
  },
  {
    anyOf: ["DMABUF_HEAPS_CMA"],
    missing: "fail",
    why: "the linux,cma heap for camera frames and NPU result tensors",
  },
  { anyOf: ["CMA"], missing: "fail", why: "physically contiguous buffers (NVMM, PCIe DMA)" },
  { anyOf: ["DMA_CMA"], missing: "fail", why: "the DMA API's CMA area (linux,cma)" },
  { anyOf: ["SYNC_FILE"], missing: "fail", why: "the completion fence AXL_IOCTL_SUBMIT returns" },
  { anyOf: ["IOMMU_DMA"], missing: "fail", arch: "aarch64", why: "SMMU-backed DMA mappings" },
  { anyOf: ["ARM_SMMU", "ARM_SMMU_V3"], missing: "fail", arch: "aarch64", why: "the Tegra SMMU" },
  {
    anyOf: ["INTEL_IOMMU", "AMD_IOMMU"],
    missing: "warn",
    arch: "x86_64",
    why: "IOVAs for the NPU's imports",
  },
  { anyOf: ["DEBUG_FS"], missing: "fail", why: "dma_buf/bufinfo attachment samples (I1)" },
  { anyOf: ["FTRACE"], missing: "fail", why: "tracefs and the axl tracepoints (I3)" },
  { anyOf: ["FUNCTION_TRACER"], missing: "warn", why: "function tracing of dma_buf_* (I1)" },
  {
    anyOf: ["FUNCTION_GRAPH_TRACER"],
    missing: "warn",
    why: "the dma_buf_* call graph (I1); without it verify reports SKIP",
  },
  { anyOf: ["DYNAMIC_FTRACE"], missing: "warn", why: "set_ftrace_filter for dma_buf_*" },
  { anyOf: ["PERF_EVENTS"], missing: "fail", why: "perf sampling for CPU copies (I4)" },
  {
    anyOf: ["DMABUF_SYSFS_STATS"],
    missing: "warn",
    why: "/sys/kernel/dmabuf/buffers for the bring-up checklist " +
      "(axl verify reads debugfs bufinfo instead; the feature is deprecated upstream)",
  },
];

const L4T_FIX = "rebuild the kernel with it (L4T: add it to the defconfig fragment, " +
  "rebuild the kernel image and flash it)";

/** Parses `6.12.117+deb12-amd64` into `[6, 12]`; `undefined` for anything else. */
export function kernelVersion(release: string): [number, number] | undefined {
  const m = /^(\d+)\.(\d+)/.exec(release);
  return m ? [Number(m[1]), Number(m[2])] : undefined;
}

/**
 * The release check: axl.ko builds for 5.15 (L4T R36) and newer (`kernel/axl_compat.h`);
 * an older kernel is a WARN unless the module is loaded.
 *
 * @example
 * ```ts ignore
 * const r = checkRelease(ctx);
 * ```
 */
export function checkRelease(ctx: DoctorContext): CheckResult {
  const v = kernelVersion(ctx.release);
  const what = `${ctx.release} on ${ctx.arch}`;
  if (!v) return warn("kernel", `unrecognised release '${ctx.release}'`, "check uname -r");
  const loaded = ctx.sys.kind("/sys/module/axl") === "dir";
  if ((v[0] < 5 || (v[0] === 5 && v[1] < 15)) && !loaded) {
    return warn(
      "kernel",
      `${what}: axl.ko is built and tested for Linux 5.15 (L4T R36), 6.1 and 6.12`,
      "kernel/axl_compat.h lists the kernel API differences the driver handles; an older " +
        "kernel needs more of them before the module builds",
    );
  }
  return ok("kernel", what);
}

function ruleApplies(rule: ConfigRule, arch: string): boolean {
  return rule.arch === undefined || rule.arch === arch;
}

function ruleId(rule: ConfigRule): string {
  return `config.${rule.anyOf.join("|")}`;
}

/**
 * Checks each applicable {@linkcode CONFIG_RULES} entry against `config`.
 *
 * @example
 * ```ts
 * import { checkConfigValues } from "./kernel.ts";
 * const r = checkConfigValues({ source: "/proc/config.gz", values: new Map([["CMA", "y"]]) }, "aarch64");
 * console.log(r.find((c) => c.id === "config.CMA")?.status); // "ok"
 * ```
 */
export function checkConfigValues(config: KernelConfig, arch: string): CheckResult[] {
  const out: CheckResult[] = [];
  for (const rule of CONFIG_RULES) {
    if (!ruleApplies(rule, arch)) continue;
    const set = rule.anyOf.filter((n) => {
      const v = config.values.get(n);
      return v === "y" || v === "m";
    });
    const id = ruleId(rule);
    if (set.length) {
      out.push(ok(id, set.map((n) => `CONFIG_${n}=${config.values.get(n)}`).join(", ")));
      continue;
    }
    const names = rule.anyOf.map((n) => `CONFIG_${n}`).join(" or ");
    const message = `${names} is not set in ${config.source}; needed for ${rule.why}`;
    const fix = `set ${rule.anyOf.map((n) => `CONFIG_${n}=y`).join(" or ")}: ${L4T_FIX}`;
    out.push(rule.missing === "fail" ? fail(id, message, fix) : warn(id, message, fix));
  }
  return out;
}

/**
 * Reads the kernel config and checks every rule; one FAIL when no config is
 * readable.
 *
 * @example
 * ```ts ignore
 * for (const r of checkKernelConfig(ctx)) console.log(r.status, r.id);
 * ```
 */
export function checkKernelConfig(ctx: DoctorContext): CheckResult[] {
  let config: KernelConfig | undefined;
  try {
    config = readKernelConfig(ctx.sys, ctx.release);
  } catch (err) {
    return [fail("config", String(err instanceof Error ? err.message : err), "check the file")];
  }
  if (!config) {
    return [
      fail(
        "config",
        `no kernel config: none of ${kernelConfigPaths(ctx.release).join(", ")} is readable`,
        "enable CONFIG_IKCONFIG_PROC=y (gives /proc/config.gz, L4T has it) or install the " +
          "kernel's config as /boot/config-$(uname -r)",
      ),
    ];
  }
  return [ok("config", `read ${config.source}`), ...checkConfigValues(config, ctx.arch)];
}
