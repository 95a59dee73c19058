/**
 * `axl doctor`: checks what the Jetson frame path needs and prints each check as
 * OK, WARN or FAIL with the fix.
 *
 * @module
 */
import { type Command, ExitCode } from "../command.ts";
import { parseOptions, printJson, runCommand, UsageError } from "../_cli.ts";
import {
  countStatuses,
  DEFAULT_EXPECTATIONS,
  doctorContext,
  formatReport,
  runDoctor,
} from "../../lib/doctor/mod.ts";

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

/** The `doctor` command. */
export const command: Command = {
  name: "doctor",
  summary: "check kernel config, heaps, CMA, tracing, perf, the NPU link and the driver ABI",
  help: `Usage: axl doctor [--json] [--device PATH] [--root DIR] [--cma-mib N]
                  [--link-gts N] [--link-width N]

Checks what the Jetson zero-copy path needs and prints each check as OK, WARN or
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
--allow-all (Deno requires it for reading /proc and /sys).

Options:
  --json          print {release, arch, root, counts, checks: [...]} as JSON
  --device PATH   device node (default: $AXL_DEVICE or /dev/axl)
  --root DIR      check a tree captured by tests/fixtures/doctor/capture.sh
                  instead of this machine
  --cma-mib N     expected CMA pool in MiB (default ${DEFAULT_EXPECTATIONS.cmaMiB})
  --link-gts N    expected PCIe link speed in GT/s (default ${DEFAULT_EXPECTATIONS.linkGTs})
  --link-width N  expected PCIe link width (default ${DEFAULT_EXPECTATIONS.linkWidth})

Exit codes: 0 no FAIL (WARNs allowed), 1 at least one FAIL, 3 bad usage.`,
  run(args: string[]): Promise<number> {
    return runCommand("doctor", () => {
      const { values } = parseOptions("doctor", args, {
        json: { type: "boolean", default: false },
        device: { type: "string" },
        root: { type: "string" },
        "cma-mib": { type: "string" },
        "link-gts": { type: "string" },
        "link-width": { type: "string" },
      });
      let root = values.root ?? "/";
      if (!root.startsWith("/")) root = `${Deno.cwd()}/${root}`;
      if (values.root !== undefined) {
        try {
          if (!Deno.statSync(root).isDirectory) throw new Error();
        } catch {
          throw new UsageError(`doctor: --root ${values.root} is not a directory`);
        }
      }
      const ctx = withAllAccess(() =>
        doctorContext({
          root,
          ...(values.device !== undefined ? { devicePath: values.device } : {}),
          expect: {
            cmaMiB: positiveNumber("cma-mib", values["cma-mib"], DEFAULT_EXPECTATIONS.cmaMiB),
            linkGTs: positiveNumber("link-gts", values["link-gts"], DEFAULT_EXPECTATIONS.linkGTs),
            linkWidth: positiveNumber(
              "link-width",
              values["link-width"],
              DEFAULT_EXPECTATIONS.linkWidth,
            ),
          },
        })
      );
      const checks = withAllAccess(() => runDoctor(ctx));
      const counts = countStatuses(checks);
      if (values.json) {
        printJson({ release: ctx.release, arch: ctx.arch, root, counts, checks });
      } else {
        console.log(
          `axl doctor: ${ctx.release || "unknown kernel"} on ${ctx.arch}` +
            (root === "/" ? "" : ` (captured tree ${root})`),
        );
        console.log(formatReport(checks));
      }
      return counts.fail ? ExitCode.Fail : ExitCode.Ok;
    });
  },
};

if (import.meta.main) {
  Deno.exit(await command.run(Deno.args));
}
