/**
 * `doctor`: checks what the Jetson frame path needs — kernel config, heaps and CMA,
 * tracing, perf, the NPU link, driver and shim ABI — each OK, WARN or FAIL with the fix.
 *
 * @module
 */
import {
  type CheckResult,
  countStatuses,
  DEFAULT_EXPECTATIONS,
  doctorContext,
  runDoctor,
  type StatusCounts,
} from "../doctor/mod.ts";
import { ExitCode } from "./exit_code.ts";
import { type CommandSpec, type ParsedArgs, stringOption, UsageError } from "./spec.ts";

/** The declaration of `doctor`. */
export const doctorSpec: CommandSpec = {
  name: "doctor",
  summary: "check kernel config, heaps, CMA, tracing, perf, the NPU link and the driver ABI",
  positionals: [],
  options: {
    json: {
      type: "boolean",
      description: "print {release, arch, root, counts, checks: [...]} as JSON",
      only: "cli",
    },
    device: {
      type: "string",
      kind: "path",
      arg: "PATH",
      description: "device node to check (default: $AXL_DEVICE or /dev/axl)",
    },
    root: {
      type: "string",
      kind: "path",
      arg: "DIR",
      description: "check a tree captured by tests/fixtures/doctor/capture.sh\n" +
        "instead of this machine",
      only: "cli",
    },
    "cma-mib": {
      type: "string",
      arg: "N",
      description: "expected CMA pool in MiB",
      default: String(DEFAULT_EXPECTATIONS.cmaMiB),
      only: "cli",
    },
    "link-gts": {
      type: "string",
      arg: "N",
      description: "expected PCIe link speed in GT/s",
      default: String(DEFAULT_EXPECTATIONS.linkGTs),
      only: "cli",
    },
    "link-width": {
      type: "string",
      arg: "N",
      description: "expected PCIe link width",
      default: String(DEFAULT_EXPECTATIONS.linkWidth),
      only: "cli",
    },
  },
  details: "The same checks as 'axl doctor' (its --help explains each). The value is the list\n" +
    "of checks. Exit status 1 when a check FAILs; WARNs are limits, not failures.",
  cli: {
    details: `Checks what the Jetson zero-copy path needs and prints each check as OK, WARN or
FAIL, with the fix under every WARN and FAIL:
  kernel release; kernel config (/proc/config.gz or /boot/config-<release>):
    DMABUF_HEAPS(_SYSTEM,_CMA), CMA, DMA_CMA, SYNC_FILE, IOMMU_DMA, ARM_SMMU,
    DEBUG_FS, FTRACE, FUNCTION_(GRAPH_)TRACER, DYNAMIC_FTRACE, PERF_EVENTS,
    DMABUF_SYSFS_STATS;
  /dev/dma_heap (system and linux,cma); the CMA pool (CmaTotal);
  tracefs, function_graph, debugfs and dma_buf/bufinfo; perf and the PMU;
  the NPU's PCI function (Metis 1f9d:1100, or metis-sim on QEMU's edu), its
    link against Gen3 x4 and its IOMMU group;
  axl.ko loaded, the device node, the shim, and driver/shim ABI versions.
Run it as root (debugfs, perf and the device need it) and, under deno run, with
--allow-all (Deno requires it for reading /proc and /sys).`,
    exits: [
      [ExitCode.Ok, "no FAIL (WARNs allowed)"],
      [ExitCode.Fail, "at least one FAIL"],
      [ExitCode.CannotRun, "bad usage"],
    ],
  },
};

/** What `doctor` found: the `--json` object. */
export interface DoctorReport {
  /** Kernel release of the machine or captured tree. */
  release: string;
  /** Its architecture. */
  arch: string;
  /** `/`, or the captured tree checked. */
  root: string;
  /** OK, WARN and FAIL counts. */
  counts: StatusCounts;
  /** Every check with its fix. */
  checks: CheckResult[];
}

function positiveNumber(name: string, text: string | undefined, fallback: number): number {
  if (text === undefined) return fallback;
  const n = Number(text);
  if (!Number.isFinite(n) || n <= 0) {
    throw new UsageError(`doctor: --${name} must be > 0: '${text}'`);
  }
  return n;
}

/** Runs `fn`, turning a denial by Deno's permissions into a usage error that says why. */
function withAllAccess<T>(fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    if (!(err instanceof Deno.errors.NotCapable)) throw err;
    throw new UsageError(
      `doctor: Deno denied access (${err.message.split(",")[0]}): run it with ` +
        "--allow-all; Deno requires that for reading /proc and /sys",
    );
  }
}

function rootOf(given: string | undefined): string {
  if (given === undefined) return "/";
  const root = given.startsWith("/") ? given : `${Deno.cwd()}/${given}`;
  try {
    if (Deno.statSync(root).isDirectory) return root;
  } catch { /* reported below */ }
  throw new UsageError(`doctor: --root ${given} is not a directory`);
}

/**
 * Runs every check on this machine (or the captured tree of `--root`).
 *
 * @example
 * ```ts ignore
 * import { checkMachine } from "./doctor.ts";
 * const report = checkMachine({ values: {}, positionals: [] });
 * console.log(report.counts);
 * ```
 */
export function checkMachine(args: ParsedArgs): DoctorReport {
  const root = rootOf(stringOption(args, "root"));
  const device = stringOption(args, "device");
  const expect = (name: string, fallback: number) =>
    positiveNumber(name, stringOption(args, name), fallback);
  const ctx = withAllAccess(() =>
    doctorContext({
      root,
      ...(device !== undefined ? { devicePath: device } : {}),
      expect: {
        cmaMiB: expect("cma-mib", DEFAULT_EXPECTATIONS.cmaMiB),
        linkGTs: expect("link-gts", DEFAULT_EXPECTATIONS.linkGTs),
        linkWidth: expect("link-width", DEFAULT_EXPECTATIONS.linkWidth),
      },
    })
  );
  const checks = withAllAccess(() => runDoctor(ctx));
  return { release: ctx.release, arch: ctx.arch, root, counts: countStatuses(checks), checks };
}

/**
 * Fail when a check failed, else Ok.
 *
 * @example
 * ```ts
 * import { doctorExit } from "./doctor.ts";
 * console.log(doctorExit({ ok: 3, warn: 1, fail: 0 })); // 0
 * ```
 */
export function doctorExit(counts: StatusCounts): number {
  return counts.fail ? ExitCode.Fail : ExitCode.Ok;
}
