/**
 * `deno task bench`: every benchmark of the tool's own cost, a table on stdout and
 * `bench/results.json`.
 *
 * 1. **FFI** (host): per-call cost of shim functions from C and from Deno, same harness
 *    (`bench/ffi_calls.{c,ts}`), plus `deno bench` of the shim calls and of trace parsing.
 * 2. **Start-up** (host): runtime floor, `axl --help`, shell start to first prompt.
 * 3. **Trace analysis** (host): traces scaled from a real capture to 100 MB and 1 GB;
 *    `grep -c` as the floor for reading the file, then verify's analysis stages, with
 *    throughput and peak RSS.
 * 4. **Frame loop** (one VM run): the C loop against the Deno loops over the same shim and
 *    device, interleaved; per-frame CPU and user time; the driver ioctl per call; verify's
 *    overhead beyond its workload.
 * 5. **function_graph** (one VM run): the time to switch it on and off patching every
 *    traceable function (before) and only the dma-buf functions (after), with the frame
 *    loop's cost under each.
 * 6. **Time to verdict** (one VM run): the builtin verify's stages from the workload's end
 *    to the printed verdict (`timings.json`), against `perf report --stdio` alone on the same
 *    `perf.data`.
 * 7. **Observer effect** (one VM run with vivid): the builtin frame loop and a GStreamer
 *    pipeline, each as its own process, alone, under verify, under verify without perf and
 *    under each part of verify alone (the split): delivered fps, process CPU per frame, fence
 *    latency, verify's own processes' CPU, on ÷ off.
 * 8. **Soak** (one VM run): verify of 200,000 vivid frames drained (about 75 minutes at vivid's
 *    60 fps; 2,000 frames with `--quick`).
 *
 * Targets are reported, never enforced: the exit status is 0 when everything ran, 3 when a
 * part could not run (the table says which and why). The host's load (load averages, and
 * how many QEMU guests this bench did not start ran) is noted at each section's start and end.
 *
 * ```sh
 * deno run --allow-all bench/run.ts [--quick] [--only ffi,startup,trace,vm,graph,verdict,observer,soak] [--sizes 100M,1G]
 * deno run --allow-all bench/run.ts --preset verify-cost   # = --only trace,vm,verdict,observer --sizes 1G
 * ```
 *
 * @module
 */
import { parseArgs } from "node:util";
import { parseSize } from "./trace_gen.ts";
import { measureStartup } from "./startup.ts";
import { runSoakVm } from "./soak_vm.ts";
import { runGraphVm } from "./graph_vm.ts";
import { runVerdictVm } from "./verdict_vm.ts";
import { runObserverVm } from "./observer_bench.ts";
import { fmt, log, noise, results, root, sh, watchOtherQemu, work } from "./_results.ts";
import { ffiSection } from "./section_ffi.ts";
import { traceSection } from "./section_trace.ts";
import { vmSection } from "./section_frame_loop.ts";
import { judgeTargets, printTable } from "./table.ts";

const SECTIONS = [
  "ffi",
  "startup",
  "trace",
  "vm",
  "graph",
  "verdict",
  "observer",
  "soak",
] as const;
type Section = typeof SECTIONS[number];
/** Every section runs unless `--only` names some. */
const DEFAULT_SECTIONS: Section[] = [...SECTIONS];

/**
 * Named sets of sections and trace sizes. `verify-cost`: every target of what verify may
 * cost (the pipeline it watches, its time to verdict, the frame loops, the trace facts at
 * 1 GB) in one run.
 */
export const PRESETS: Record<string, { only: Section[]; sizes: string }> = {
  "verify-cost": { only: ["trace", "vm", "verdict", "observer"], sizes: "1G" },
};

async function main(): Promise<number> {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      quick: { type: "boolean", default: false },
      only: { type: "string" },
      preset: { type: "string" },
      sizes: { type: "string" },
      "keep-traces": { type: "boolean", default: false },
      "no-icount": { type: "boolean", default: false },
      "soak-frames": { type: "string" },
      out: { type: "string", default: `${root}/bench/results.json` },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  if (values.help) {
    console.log(
      "usage: deno task bench [--quick] [--only ffi,startup,trace,vm,graph,verdict,observer,soak] [--sizes 100M,1G]\n" +
        "                       [--preset verify-cost] [--keep-traces] [--no-icount] [--soak-frames N]\n" +
        "                       [--out FILE]\n" +
        "Every section by default. The soak is 200,000 frames (2,000 with --quick): about 75\n" +
        "minutes at vivid's 60 fps; --only leaves it out. --preset verify-cost is\n" +
        "--only trace,vm,verdict,observer --sizes 1G: every target of what verify costs.",
    );
    return 0;
  }
  const preset = values.preset === undefined ? undefined : PRESETS[values.preset];
  if (values.preset !== undefined && !preset) {
    console.error(
      `bench: unknown preset '${values.preset}' (presets: ${Object.keys(PRESETS).join(", ")})`,
    );
    return 3;
  }
  if (preset && values.only) {
    console.error("bench: --preset names the sections; leave out --only");
    return 3;
  }
  const only = new Set(
    (values.only ?? preset?.only.join(",") ?? DEFAULT_SECTIONS.join(",")).split(",") as Section[],
  );
  for (const s of only) {
    if (!(SECTIONS as readonly string[]).includes(s)) {
      console.error(`bench: unknown section '${s}' (sections: ${SECTIONS.join(", ")})`);
      return 3;
    }
  }
  const quick = values.quick;
  const soakFrames = Number(values["soak-frames"] ?? (quick ? 2000 : 200_000));
  if (!Number.isInteger(soakFrames) || soakFrames < 1) {
    console.error(`bench: --soak-frames must be a whole number >= 1, got ${values["soak-frames"]}`);
    return 2;
  }
  if (only.has("soak")) {
    log(`soak: ${soakFrames} frames, about ${fmt(soakFrames / 45 / 60, 0)} min (vivid paces it)`);
  }
  const sizes = (values.sizes ?? (quick ? "20M" : preset?.sizes ?? "100M,1G")).split(",")
    .map(parseSize);
  await Deno.mkdir(work, { recursive: true });
  const build = await sh(["bash", "bench/build.sh"], { inherit: true });
  if (build.code !== 0) {
    console.error("bench: cannot build the C baselines (bench/build.sh failed; see above)");
    return 3;
  }
  const failed: string[] = [];
  const section = async (name: Section, fn: () => Promise<void>) => {
    if (!only.has(name)) return;
    noise(`${name} start`);
    const guests = watchOtherQemu();
    const t0 = performance.now();
    log(`${name}: start`);
    try {
      await fn();
    } catch (e) {
      failed.push(name);
      results.problems.push(`${name}: could not run: ${(e as Error).message}`);
    } finally {
      noise(`${name} end`, guests.stop());
    }
    log(`${name}: ${fmt((performance.now() - t0) / 1e3, 0)} s`);
  };
  await section("ffi", () => ffiSection(quick));
  await section("startup", async () => {
    results.startup = await measureStartup(quick ? 3 : 5);
  });
  await section("trace", () => traceSection(sizes, quick, values["keep-traces"]));
  await section("vm", () => vmSection(quick, !values["no-icount"]));
  await section("graph", async () => {
    results.graph = await runGraphVm(root, `${work}/graph`, quick ? 100 : 200);
  });
  await section("verdict", async () => {
    results.verdict = await runVerdictVm(root, `${work}/verdict`, 60);
  });
  await section("observer", async () => {
    results.observer = await runObserverVm(
      root,
      `${work}/observer`,
      quick ? 120 : 300,
      quick ? 1 : 2,
    );
  });
  await section("soak", async () => {
    results.soak = await runSoakVm(root, `${work}/soak`, soakFrames);
  });
  noise("end");
  judgeTargets();
  results.finishedAt = new Date().toISOString();
  await Deno.writeTextFile(values.out, JSON.stringify(results, null, 1) + "\n");
  printTable(values.out);
  if (failed.length) {
    console.error(`bench: could not run: ${failed.join(", ")} (see the problems above)`);
    return 3;
  }
  return 0;
}

if (import.meta.main) Deno.exit(await main());
