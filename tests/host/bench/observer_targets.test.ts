import assert from "node:assert/strict";
import {
  type ObserverBenchResults,
  observerSplit,
  observerTargets,
} from "../../../bench/observer_bench.ts";
import { SPLIT_CONFIGS } from "../../../bench/observer_configs.ts";
import {
  VERDICT_BOUND,
  verdictLines,
  type VerdictResults,
  verdictTargets,
} from "../../../bench/verdict_vm.ts";
import { loadLines } from "../../../bench/table.ts";
import { renderTable, type RunForTable } from "../../../bench/readme_table.ts";

// The results.json of `deno task bench --quick --only verdict,observer` in the x86 guest with
// vivid (tests/fixtures/bench/README.md says how it was made).
const fixture = new URL("../../fixtures/bench/results-quick-observer.json", import.meta.url);

/** The parts of results.json these tests read. */
type Run = RunForTable & { observer?: ObserverBenchResults; verdict?: VerdictResults };

async function results(): Promise<Run> {
  return JSON.parse(await Deno.readTextFile(fixture));
}

/** The observer section's target row names, in the order the section gives them. */
const NAMES = ["builtin", "GStreamer"].flatMap((w) => [
  `verify on without perf (${w})`,
  `verify on (${w})`,
  `verify's own processes (${w})`,
]);

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[s.length >> 1]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

Deno.test("observerTargets() names its target rows for the builtin loop and the GStreamer pipeline", async () => {
  const r = await results();
  const t = observerTargets(r.observer!);
  assert.deepEqual(t.map((x) => x.name), NAMES);
  for (const x of t) {
    assert.notEqual(x.met, null, `${x.name} was measured: ${x.value}`);
    assert.ok(x.ratios && Object.values(x.ratios).every(Number.isFinite), JSON.stringify(x));
    assert.match(
      x.value,
      x.name.startsWith("verify on")
        ? /^fps \d\.\d\d× \([\d.]+ → [\d.]+\), CPU per frame \d\.\d\d× /
        : /^\d+\.\d % of one CPU \(\d+ µs per frame at [\d.]+ fps\)/,
    );
  }
  // The run's own table holds the same rows.
  assert.deepEqual(r.targets.filter((x) => NAMES.includes(x.name)).map((x) => x.name), NAMES);
});

Deno.test("observerSplit() gives verify off, on, on without perf and each part alone their ratios to verify off", async () => {
  const { observer } = await results();
  for (const runs of [observer!, observer!.gst!]) {
    const rows = observerSplit(runs);
    assert.deepEqual(rows.map((x) => x.config), ["off", "verify", "--no-perf", ...SPLIT_CONFIGS]);
    const fps0 = median(runs.off.map((s) => s.fps));
    const cpu0 = median(runs.off.map((s) => s.cpuUsPerFrame));
    for (const row of rows) {
      const xs = row.config === "off"
        ? runs.off
        : runs.on.filter((s) => (s.config ?? "verify") === row.config);
      assert.equal(row.runs, xs.length);
      assert.equal(row.fpsRatio, median(xs.map((s) => s.fps)) / fps0);
      assert.equal(row.cpuRatio, median(xs.map((s) => s.cpuUsPerFrame)) / cpu0);
      // Every run kept its process tree's CPU; verify off is what the others are measured from.
      assert.equal(row.ownCpuShare === undefined, row.config === "off", row.label);
    }
  }
});

Deno.test("observerTargets() meets its bounds exactly at 0.90×/1.2× and 0.75×/1.6× and misses past them", async () => {
  const r = (await results()).observer!;
  const off = {
    fps: median(r.off.map((s) => s.fps)),
    cpu: median(r.off.map((s) => s.cpuUsPerFrame)),
  };
  const judged = (config: string, fps: number, cpu: number) => {
    const on = r.on.map((s) =>
      (s.config ?? "verify") === config
        ? { ...s, fps: off.fps * fps, cpuUsPerFrame: off.cpu * cpu }
        : s
    );
    const t = observerTargets({ frames: r.frames, off: r.off, on });
    return t.find((x) =>
      x.name === (config === "verify" ? "verify on (builtin)" : "verify on without perf (builtin)")
    )!.met;
  };
  assert.equal(judged("--no-perf", 0.9, 1.2), true);
  assert.equal(judged("--no-perf", 0.89, 1.2), false);
  assert.equal(judged("--no-perf", 0.9, 1.21), false);
  assert.equal(judged("verify", 0.75, 1.6), true);
  assert.equal(judged("verify", 0.74, 1.6), false);
  assert.equal(judged("verify", 0.75, 1.61), false);
});

Deno.test("observerTargets() gives verify's own processes as a share of one CPU, met up to 5 %", async () => {
  const r = (await results()).observer!;
  // The measured runs, with the bench's process tree at 1 % of one CPU with verify off (the
  // bench waiting) and at 1 % + `share` under verify.
  const off = r.off.map((s) => ({ ...s, observerCpu: { cpuNs: 0.01 * 3e9, wallNs: 3e9 } }));
  const own = (share: number) => {
    const on = r.on.map((s) =>
      (s.config ?? "verify") === "verify"
        ? { ...s, observerCpu: { cpuNs: (0.01 + share) * 2e9, wallNs: 2e9 } }
        : s
    );
    return observerTargets({ frames: r.frames, off, on })
      .find((x) => x.name === "verify's own processes (builtin)")!;
  };
  assert.equal(own(0.05).met, true);
  assert.match(own(0.05).value, /^5\.0 % of one CPU \(\d+ µs per frame at [\d.]+ fps\)/);
  assert.equal(own(0.051).met, false);
});

Deno.test('verdictTargets() bounds "workload end → verdict / the workload\'s own run" at 1.5×', async () => {
  const v = (await results()).verdict!;
  const row = (toVerdictMs: number) =>
    verdictTargets({ ...v, timings: { ...v.timings, toVerdictMs } })
      .find((x) => x.name === "workload end → verdict / the workload's own run")!;
  assert.equal(VERDICT_BOUND, 1.5);
  assert.equal(row(1.5 * v.timings.workloadMs).met, true);
  assert.equal(row(1.51 * v.timings.workloadMs).met, false);
  assert.equal(row(1.5 * v.timings.workloadMs).target, "≤ 1.5×");
  assert.match(row(1.5 * v.timings.workloadMs).value, /^1\.50× \(/);
});

Deno.test("verdictLines() says how the builtin's perf script ran, and not more than a run recorded", async () => {
  const v = (await results()).verdict!;
  const head = (over: Partial<VerdictResults>) => verdictLines({ ...v, ...over })[0]!;
  // The fixture's run recorded only that verify was asked for a live perf script.
  assert.equal(v.perfScript, undefined);
  assert.match(head({}), /, perf script not recorded;/);
  assert.match(
    head({ perfScript: "beside" }),
    /, perf script beside perf record \(child processes\);/,
  );
  assert.match(head({ perfScript: "streamed" }), /, perf script streamed through verify;/);
  assert.match(head({ perfScript: "after" }), /, perf script after perf stopped;/);
  assert.match(head({ perfLive: false }), /, perf script after perf stopped;/);
});

Deno.test("loadLines() prints each section's host load at its start and end and the other guests", async () => {
  const { noise } = await results();
  const lines = loadLines(noise);
  for (const section of ["verdict", "observer"]) {
    const n = noise[`${section} end`]!;
    const line = lines.find((l) => l.trimStart().startsWith(section));
    assert.ok(line, lines.join("\n"));
    assert.ok(
      line.includes(
        `${noise[`${section} start`]!.loadavg[0]!.toFixed(2)} → ${n.loadavg[0]!.toFixed(2)}`,
      ),
      line,
    );
    assert.ok(line.includes(`at most ${n.otherQemuDuring} during it`), line);
  }
});

Deno.test("renderTable() puts the observer's target rows in the README's table from a run's results.json", async () => {
  const run = await results();
  // The targets as this code judges the run's measurements, not as the run judged them.
  const md = renderTable({
    ...run,
    targets: [...verdictTargets(run.verdict!), ...observerTargets(run.observer!)],
  });
  for (const name of [...NAMES, "workload end → verdict / the workload's own run"]) {
    assert.ok(md.includes(`| ${name} |`), `${name} missing from\n${md}`);
  }
});
