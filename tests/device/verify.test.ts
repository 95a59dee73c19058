// Device tests of verify's capture and judge in the VM rig (or on a Jetson): the builtin
// workload must PASS in zero-copy mode, FAIL I4 in copy mode, be INCONCLUSIVE with a tiny
// trace buffer, and every run (also an interrupted one) must leave tracefs as it found it.
// Artifacts of each run go to $AXL_RESULTS/verify-<case>/ when the rig provides it.
import assert from "node:assert/strict";
import { runVerify } from "../../lib/verify/run.ts";
import type { VerifyTimings } from "../../lib/verify/timings.ts";
import { builtinWorkload } from "../../lib/verify/builtin_workload.ts";
import { listCaptureDevices, V4l2Producer } from "../../lib/frames/producers/v4l2_producer.ts";
import { HeapProducer } from "../../lib/frames/producers/heap_producer.ts";
import { tracefsState } from "./verify/_tracefs_state.ts";
import { TraceSession } from "../../lib/trace/capture/tracefs.ts";
import { judgeArtifacts } from "../../lib/verify/replay.ts";
import { chooseImporter } from "../../lib/verify/evidence/importer.ts";
import { systemAt } from "../../lib/doctor/system.ts";
import { verifyJobTimeoutMs } from "../../lib/commands/verify_builtin.ts";
import { MAX_SUBMIT_TIMEOUT_MS } from "../../lib/core/device.ts";
import { PERF_SCRIPT_ARGS } from "../../lib/trace/capture/perf_record.ts";
import { choosePerfRate, readMaxSampleRate } from "../../lib/verify/perf_rate.ts";

const results = Deno.env.get("AXL_RESULTS") ??
  await Deno.makeTempDir({ prefix: "axl-verify-test-" });
const vivid = (() => {
  try {
    return listCaptureDevices().find((c) => c.driver === "vivid");
  } catch {
    return undefined;
  }
})();

/**
 * The copy control's I4 threshold in percent self: verify's own 1 unless
 * AXL_COPY_CONTROL_THRESHOLD says otherwise. On the arm64 debug kernel a 4K frame's copy was
 * 0.81% and 0.61% of the workload's cycles in two runs beside other guests, 3.5% alone: KASAN and
 * lockdep make the workload's kernel path, and its writes to the rig's 9p results directory,
 * weigh far more than on a plain kernel (1.6% and 5.1% in two runs there), so
 * `deno task test:vm:debug` runs the control at 0.3.
 */
const copyThreshold = (() => {
  const raw = Deno.env.get("AXL_COPY_CONTROL_THRESHOLD");
  const n = Number(raw ?? 1);
  if (raw?.trim() === "" || !(n > 0 && n <= 100)) {
    throw new RangeError(
      `AXL_COPY_CONTROL_THRESHOLD must be a percentage in (0, 100], got '${raw}'`,
    );
  }
  return n;
})();

async function verifyCase(
  name: string,
  mode: "zero-copy" | "copy",
  bufferSizeKb?: number,
  producer: "vivid" | "heap" = "vivid",
  stream = true,
  frames = 60,
  perf = true,
) {
  const before = tracefsState();
  assert.ok(vivid, "vivid capture device present (scripts/vm/run.sh --vivid)");
  // vivid attaches only frames up to 1 MiB; the copy control uses big heap frames so that
  // the copy stands well above the 1% threshold. 1080p gave 1.9% on x86_64 but 1.3% on the
  // arm64 guest, where TCG runs glibc's __memcpy_generic fast next to everything else: 4K there.
  const size = producer === "vivid"
    ? { width: 640, height: 480 }
    : Deno.build.arch === "aarch64"
    ? { width: 3840, height: 2160 }
    : { width: 1920, height: 1080 };
  using cam = producer === "vivid"
    ? V4l2Producer.open({ device: vivid.path, ...size })
    : HeapProducer.open({ format: "NV12", ...size });
  const { result, artifacts } = await runVerify({
    artifacts: `${results}/verify-${name}`,
    // The bound `axl verify` gives a job: function_graph slows every job down.
    workload: builtinWorkload({
      frames,
      mode,
      producer: cam,
      timeoutMs: verifyJobTimeoutMs(size, MAX_SUBMIT_TIMEOUT_MS),
    }),
    headline: `device test ${name}`,
    ...(bufferSizeKb ? { bufferSizeKb } : {}),
    stream,
    perf,
    device: { name: "metis-sim", simulated: true },
    // The default: the PCI function axl-metis-sim is bound to.
    importer: chooseImporter(systemAt("/"), {}),
    ...(mode === "copy" ? { judge: { copyThresholdPercent: copyThreshold } } : {}),
  });
  // The builtin workload ran every frame: a copy control whose workload died after one frame
  // (RangeError) once still FAILed on I4 by the copies it made before.
  const w = result.axl.workload;
  assert.equal(w.exit_code, 0, `the workload ended badly: ${w.stderr_tail ?? "no stderr"}`);
  // A never-expanded top-level buffer (5.15 runs function_graph there) comes back expanded.
  assert.deepEqual(expandedKb(tracefsState()), expandedKb(before), "tracefs left as found");
  const line = Object.values(result.axl.invariants).map((i) => `${i.id}=${i.status}`).join(" ");
  console.log(`verify ${name}: ${result.axl.status} ${line} (${artifacts.dir})`);
  return { ...result, dir: artifacts.dir };
}

/**
 * Frames of the zero-copy run: 60, or more when the kernel's perf_event_max_sample_rate is
 * below the rate verify chooses for 60 frames. The kernel lowers that limit for the rest of the
 * boot while perf's interrupts take too long: in the arm64 guest, whose emulated PMU interrupt
 * took 15 µs to 0.8 ms under TCG, CI's suite ended at 250 Hz, and a 60-frame run capped below
 * 999 Hz got 482 samples where I4 needs 1,000. verify respects the limit (and says so); this
 * run then gets the CPU time I4 needs at the rate the kernel allows, at most 240 frames (240
 * frames at 500 Hz gave 9,411 samples in the arm64 guest).
 */
function zeroCopyFrames(): number {
  // The arm64 guest's emulated PMU can lower the limit during this very run (CI's fell step by
  // step while a 60-frame run sampled), so there the limit read now proves nothing: take the
  // frames that give I4 its samples even at the 250 Hz floor seen.
  if (Deno.build.arch === "aarch64") return 240;
  const want = choosePerfRate({ kind: "builtin-zero-copy", frames: 60 }).hz;
  const limit = readMaxSampleRate();
  if (limit === undefined || limit >= want) return 60;
  return Math.min(240, Math.ceil((60 * want) / limit));
}

Deno.test("runVerify() zero-copy builtin on a vivid frame: PASS, all four invariants PASS", async () => {
  const frames = zeroCopyFrames();
  const r = await verifyCase("zero-copy", "zero-copy", undefined, "vivid", true, frames);
  for (const i of Object.values(r.axl.invariants)) {
    assert.equal(i.status, "PASS", `${i.id}: ${i.summary}`);
  }
  assert.equal(r.pass, true);
  assert.ok(r.detail.imports >= frames && r.detail.multi_attach_inodes.length > 0);
  assert.ok(r.axl.latency.count > 0);
  assert.equal(r.axl.evidence?.source, "axl-tracepoints");
  assert.equal(r.axl.invariants.I3.source, "axl-tracepoints");
  // The attach events name inode and exporter (BTF on 6.12, measured offsets on 5.15): bufinfo
  // was read at the start, the end and once a second, and I1 passed on the events.
  const samples = Number(r.axl.invariants.I1.evidence.samples);
  console.log(`verify zero-copy: ${samples} bufinfo samples`);
  assert.ok(
    r.axl.notes.some((n) =>
      n.startsWith("bufinfo read at the start, at the end and every 1000 ms")
    ),
    r.axl.notes.join("\n"),
  );
  assert.ok(r.axl.notes.some((n) => /^attachments \(I1\) from [1-9]\d* attach /.test(n)));
  assert.ok(samples >= 2, `${samples} bufinfo samples: the start and the end at least`);
  // perf sampled at the rate chosen for the builtin's frames (docs/verify.md#perfs-rate).
  const rate = r.axl.perf.rate;
  assert.ok(rate, "result.json records perf's rate");
  const chosen = choosePerfRate({
    kind: "builtin-zero-copy",
    frames,
    ...(rate.max_sample_rate !== undefined ? { maxSampleRate: rate.max_sample_rate } : {}),
  });
  assert.equal(rate.hz, chosen.hz, JSON.stringify(rate));
  console.log(
    `verify zero-copy: ${frames} frames, perf at ${rate.hz} Hz (${rate.rule}; limit ${rate.max_sample_rate}` +
      `${rate.max_sample_rate_after ? `, lowered to ${rate.max_sample_rate_after}` : ""}): ` +
      `${r.axl.perf.samples} samples, I4 needs ${r.axl.invariants.I4.evidence.min_samples}`,
  );

  // The same frames judged without our tracepoints: kprobes on the dma-buf functions.
  const g = await judgeArtifacts(r.dir, { evidence: "generic" });
  assert.equal(g.axl.evidence?.source, "kprobes");
  assert.equal(g.axl.evidence?.importer, r.axl.evidence?.importer);
  if (!g.axl.evidence?.probes.inode) {
    // 5.15 has no BTF probe arguments: without inodes the importer's maps of frames cannot
    // be told from its maps of result buffers (one each per job here), and I3 says so
    // instead of guessing; the other invariants do not depend on the probes.
    assert.ok(Deno.build.arch === "aarch64", "only the arm64 5.15 rig lacks BTF arguments");
    assert.equal(g.axl.invariants.I3.status, "INCONCLUSIVE", g.axl.invariants.I3.summary);
    assert.match(g.axl.invariants.I3.summary, /carry no inode/);
    for (const id of ["I1", "I2", "I4"] as const) {
      assert.equal(g.axl.invariants[id].status, "PASS", `generic ${id}`);
    }
    return;
  }
  for (const i of Object.values(g.axl.invariants)) {
    assert.equal(i.status, "PASS", `generic ${i.id}: ${i.summary}`);
  }
  assert.equal(g.detail.imports, r.detail.imports, "kprobes count the imports the tracepoint did");
  assert.equal(g.detail.releases, r.detail.releases);
  assert.deepEqual(g.detail.multi_attach_inodes, r.detail.multi_attach_inodes);
  console.log(
    `verify zero-copy, --evidence generic: ${g.axl.status} (${g.axl.invariants.I3.summary})`,
  );
});

Deno.test("runVerify() copy mode: FAIL on I4 naming the copy routine", async () => {
  const r = await verifyCase("copy", "copy", undefined, "heap");
  assert.equal(r.axl.status, "FAIL");
  assert.equal(r.axl.invariants.I4.status, "FAIL");
  assert.ok(r.detail.memcpy_hot.length > 0);
  assert.ok(
    r.axl.diagnosis.some((d) =>
      d.id === "memcpy-hot" && d.symptom.includes(r.detail.memcpy_hot[0]!)
    ),
  );
  // Without our tracepoints the copy is still named: I4 does not depend on them.
  const g = await judgeArtifacts(r.dir, {
    evidence: "generic",
    copyThresholdPercent: copyThreshold,
  });
  assert.equal(g.axl.invariants.I4.status, "FAIL");
  assert.deepEqual(g.detail.memcpy_hot, r.detail.memcpy_hot);
  // The live run folded perf script's output as perf printed it; a replay folds perf.script
  // from the file: the same perf evidence and verdict.
  const again = await judgeArtifacts(r.dir, { copyThresholdPercent: copyThreshold });
  assert.deepEqual(again.axl.perf, r.axl.perf);
  assert.deepEqual(again.axl.invariants.I4, r.axl.invariants.I4);
  // The stages after the workload are timed, and perf.data keeps the whole call chains.
  const t = JSON.parse(await Deno.readTextFile(`${r.dir}/timings.json`)) as VerifyTimings;
  const stages = t.stages.map((s) => s.stage);
  for (const stage of ["drain", "perf script and fold", "judge", "report"]) {
    assert.ok(stages.includes(stage), `timings.json has no '${stage}': ${stages.join(", ")}`);
  }
  console.log(`verify copy: ${t.toVerdictMs} ms from the workload's end to the verdict`);
  assert.ok((await Deno.stat(`${r.dir}/perf.data`)).size > 0, "perf.data copied");
  // The builtin runs in verify's own process, which perf samples: perf's output went through
  // child processes only (docs/verify.md#perf-script-while-the-workload-runs).
  const capture = JSON.parse(await Deno.readTextFile(`${r.dir}/capture.json`));
  assert.equal(capture.perf.script, "beside", "perf script ran beside perf record");
  // perf.script, printed from perf's pipe output while the workload ran, is what perf script
  // prints of the finished perf.data: a replay reads the same file as before.
  const printed = await new Deno.Command("perf", {
    args: ["script", "-i", `${r.dir}/perf.data`, ...PERF_SCRIPT_ARGS],
    stdout: "piped",
    stderr: "null",
  }).output();
  assert.equal(
    new TextDecoder().decode(printed.stdout),
    await Deno.readTextFile(`${r.dir}/perf.script`),
    "perf.script is perf script of perf.data",
  );
});

Deno.test("runVerify() with a tiny trace buffer: INCONCLUSIVE, never PASS", async () => {
  // Read at the end, not drained: a drain could keep up with a buffer of any size. With perf,
  // as a user runs it: the lost events alone must make it INCONCLUSIVE. Reading the whole
  // trace at the end sets V8's own collector threads copying in the workload's process: their
  // memmove once held 1.002 % of this run's samples (x86 guest, 2,000 Hz) and FAILed I4 on a
  // zero-copy run; those copies are V8's, named apart, and must not fail I4.
  const r = await verifyCase("tiny-buffer", "zero-copy", 4, "vivid", false);
  assert.equal(r.axl.status, "INCONCLUSIVE");
  assert.equal(r.pass, false);
  assert.ok(r.axl.trace.overrun > 0 || r.axl.trace.lost_events > 0);
  const i4 = r.axl.invariants.I4;
  assert.notEqual(i4.status, "FAIL", i4.summary);
  console.log(
    `verify tiny-buffer: I4 ${i4.status}, ${r.axl.perf.samples} samples, frames' copies ` +
      `${r.axl.perf.copy_percent}%, V8's worker threads' ${r.axl.perf.runtime_copy_percent ?? 0}%`,
  );
});

/**
 * A never-used top-level buffer reads "7 (expanded: 1408)"; any top-level tracing expands
 * it for good (a kernel limit the session reports in its notes), and the kernel rounds
 * sizes. Compare the expanded size, within rounding.
 */
function expandedKb(state: Record<string, string>): Record<string, string> {
  const text = state.buffer_size_kb ?? "";
  const kb = Number((/expanded:\s*(\d+)/.exec(text) ?? /(\d+)/.exec(text))?.[1]);
  return { ...state, buffer_size_kb: `~${Math.round(kb / 8)}` };
}

Deno.test("TraceSession on the top-level buffer restores every file it changed", async () => {
  const before = tracefsState();
  const s = TraceSession.open({ bufferSizeKb: 3000, topLevel: true });
  if (/expanded/.test(before.buffer_size_kb ?? "")) {
    assert.ok(s.info.notes.some((n) => n.includes("not yet expanded")));
  }
  assert.equal(s.info.instance, null);
  assert.equal(s.info.tracer, "function_graph");
  s.start();
  s.stop();
  assert.notDeepEqual(tracefsState(), before);
  await s.close();
  await s.close();
  assert.deepEqual(expandedKb(tracefsState()), expandedKb(before));
  const after = tracefsState();
  delete after.buffer_size_kb;
  delete before.buffer_size_kb;
  assert.deepEqual(after, before, "every other file exactly as found");
});

for (
  const [sig, topLevel, probes] of [
    ["SIGINT", false, false],
    ["SIGTERM", false, false],
    ["SIGINT", true, false],
    ["SIGINT", false, true],
  ] as const
) {
  Deno.test(
    `TraceSession: ${sig} during capture${topLevel ? " on the top-level buffer" : ""}${
      probes ? " with the dma-buf kprobe events" : ""
    } leaves tracefs exactly as found`,
    async () => {
      const before = tracefsState();
      const child = new Deno.Command(Deno.execPath(), {
        args: [
          "run",
          "--allow-all",
          new URL("./verify/_interrupt_child.ts", import.meta.url).pathname,
        ],
        stdout: "piped",
        stderr: "piped",
        env: { AXL_TOP_LEVEL: topLevel ? "1" : "0", AXL_PROBES: probes ? "1" : "0" },
      }).spawn();
      const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
      let out = "";
      while (!out.includes("READY")) {
        const { value, done } = await reader.read();
        if (done) break;
        out += value;
      }
      assert.match(out, probes ? /READY .* probes=4/ : /READY .* probes=0/);
      assert.notDeepEqual(tracefsState(), before, "the session changed tracefs while running");
      child.kill(sig);
      const status = await child.status;
      reader.releaseLock();
      await child.stdout.cancel().catch(() => {});
      const err = await new Response(child.stderr).text();
      assert.equal(status.code, sig === "SIGINT" ? 130 : 143, err);
      if (topLevel) assert.deepEqual(expandedKb(tracefsState()), expandedKb(before));
      else assert.deepEqual(tracefsState(), before);
    },
  );
}
