import assert from "node:assert/strict";
import {
  choosePerfRate,
  DEFAULT_PERF_HZ,
  describePerfRate,
  MAX_PERF_HZ,
  readMaxSampleRate,
} from "../../../lib/verify/perf_rate.ts";
import { PerfCapture } from "../../../lib/verify/_perf_capture.ts";
import { judgeCopies } from "../../../lib/verify/copies.ts";
import { VerifyResultSchema } from "../../../lib/verify/schema.ts";
import { judgeArtifacts } from "../../../lib/verify/replay.ts";
import { verdictLines } from "../../../lib/commands/verify.ts";
import { runDir } from "./_runs.ts";

Deno.test("choosePerfRate() samples a short builtin run faster and a long one slower", () => {
  const hz = (frames: number) => choosePerfRate({ kind: "builtin-zero-copy", frames }).hz;
  assert.equal(hz(60), 2000);
  assert.equal(hz(30), MAX_PERF_HZ);
  assert.equal(choosePerfRate({ kind: "builtin-zero-copy", frames: 5 }).cappedBy, "max");
  // 120 to 250 frames: about the old fixed 999 Hz, so the Metis builtin's 240 frames keep theirs.
  assert.equal(hz(120), 1000);
  assert.equal(hz(240), DEFAULT_PERF_HZ);
  assert.equal(hz(250), DEFAULT_PERF_HZ);
  assert.equal(hz(2000), 125);
  assert.equal(hz(20_000), 13);
  assert.equal(hz(200_000), 1);
  assert.equal(choosePerfRate({ kind: "builtin-copy", frames: 10_000_000 }).cappedBy, "min");
});

Deno.test("choosePerfRate() keeps a short command at 999 Hz, slows a long one, and 999 when frames are unknown", () => {
  assert.equal(choosePerfRate({ kind: "command", frames: 40 }).hz, DEFAULT_PERF_HZ);
  assert.equal(choosePerfRate({ kind: "command", frames: 250 }).hz, DEFAULT_PERF_HZ);
  assert.equal(choosePerfRate({ kind: "command", frames: 300 }).hz, 833);
  assert.equal(choosePerfRate({ kind: "pid", frames: 2000 }).hz, 125);
  const unknown = choosePerfRate({ kind: "command" });
  assert.equal(unknown.hz, DEFAULT_PERF_HZ);
  assert.match(unknown.rule, /frames unknown/);
  assert.equal(unknown.cappedBy, undefined);
});

Deno.test("choosePerfRate() never asks for more than perf_event_max_sample_rate, and says so", () => {
  const r = choosePerfRate({ kind: "builtin-zero-copy", frames: 60, maxSampleRate: 1250 });
  assert.equal(r.hz, 1250);
  assert.equal(r.cappedBy, "perf_event_max_sample_rate");
  assert.equal(
    describePerfRate(r),
    "1250 Hz (builtin-zero-copy: 120000 / 60 frames, capped by the kernel's " +
      "perf_event_max_sample_rate 1250)",
  );
  // An explicit rate is capped too: perf would lower it itself, with a warning.
  const explicit = choosePerfRate({ kind: "command", explicitHz: 5000, maxSampleRate: 3000 });
  assert.deepEqual(explicit, {
    hz: 3000,
    rule: "asked for: 5000 Hz",
    maxSampleRate: 3000,
    cappedBy: "perf_event_max_sample_rate",
  });
  // Under the limit nothing is capped.
  const free = choosePerfRate({ kind: "builtin-zero-copy", frames: 60, maxSampleRate: 100000 });
  assert.equal(free.hz, 2000);
  assert.equal(free.cappedBy, undefined);
  assert.throws(() => choosePerfRate({ kind: "command", explicitHz: 0 }), RangeError);
});

Deno.test("readMaxSampleRate() reads the kernel's limit and nothing else", async () => {
  const tmp = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(`${tmp}/rate`, "12500\n");
    assert.equal(readMaxSampleRate(`${tmp}/rate`), 12500);
    await Deno.writeTextFile(`${tmp}/rate`, "lots\n");
    assert.equal(readMaxSampleRate(`${tmp}/rate`), undefined);
    assert.equal(readMaxSampleRate(`${tmp}/absent`), undefined);
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});

Deno.test("readMaxSampleRate() refuses damaged sysctl text, and says so in the notes", async () => {
  // The kernel prints the limit as a decimal int of at least 1 (proc_dointvec_minmax): anything
  // else is not its limit, caps nothing, and is named in a note instead of being dropped.
  const tmp = await Deno.makeTempDir();
  try {
    const read = async (text: string) => {
      await Deno.writeTextFile(`${tmp}/rate`, text);
      const notes: string[] = [];
      return { n: readMaxSampleRate(`${tmp}/rate`, notes), notes };
    };
    for (
      const text of [
        "",
        "\n",
        "lots\n",
        "-5\n",
        "0\n",
        "0x10\n",
        "1e5\n",
        "2000.5\n",
        "2000 3000\n",
        "99999999999999999999\n",
        "2147483648\n",
        "\u0000\u0001\u00ff",
      ]
    ) {
      const { n, notes } = await read(text);
      assert.equal(n, undefined, JSON.stringify(text));
      assert.equal(notes.length, 1, JSON.stringify(text));
      assert.match(
        notes[0]!,
        /^perf: .*\/rate reads .*, not a sample rate \(a whole number from 1 to 2147483647\): perf's rate is not capped by it$/,
      );
    }
    // the kernel's own text, and the largest int it can hold
    assert.deepEqual(await read("100000\n"), { n: 100000, notes: [] });
    assert.deepEqual(await read("2147483647\n"), { n: 2147483647, notes: [] });
    // a file that is not there (no perf events): undefined, nothing to say
    const notes: string[] = [];
    assert.equal(readMaxSampleRate(`${tmp}/absent`, notes), undefined);
    assert.deepEqual(notes, []);
    // a file that cannot be read says why
    await Deno.mkdir(`${tmp}/dir`);
    assert.equal(readMaxSampleRate(`${tmp}/dir`, notes), undefined);
    assert.equal(notes.length, 1);
    assert.match(notes[0]!, /^perf: cannot read .*\/dir: .*: perf's rate is not capped by it$/);
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});

/**
 * A perf that records nothing: `stat` says there is no PMU, `record` writes its argv to
 * `argv.txt`, acknowledges the control FIFO, lowers the sample-rate limit file as the kernel
 * does when perf's interrupts take too long, and writes a data file when interrupted.
 */
const FAKE_PERF = `#!/bin/sh
dir=$(dirname "$0")
if [ "$1" = stat ]; then echo '<not supported>,,cycles,0,100.00,,' >&2; exit 0; fi
echo "$@" > "$dir/argv.txt"
out= ctl= ack=
while [ $# -gt 0 ]; do
  case "$1" in
    -o) out=$2; shift ;;
    --control=fifo:*) f=\${1#--control=fifo:}; ctl=\${f%,*}; ack=\${f#*,} ;;
  esac
  shift
done
trap 'echo data > "$out"; exit 0' INT
read -r _ < "$ctl"
echo 800 > "$dir/max_rate"
echo ack > "$ack"
while :; do sleep 0.05; done
`;

Deno.test("PerfCapture records at the chosen rate and notes a limit the kernel lowered during the run", async () => {
  const tmp = await Deno.makeTempDir();
  const sleeper = new Deno.Command("sleep", { args: ["30"] }).spawn();
  try {
    await Deno.writeTextFile(`${tmp}/perf`, FAKE_PERF, { mode: 0o755 });
    await Deno.writeTextFile(`${tmp}/max_rate`, "100000\n");
    const notes: string[] = [], said: string[] = [];
    const perf = await PerfCapture.probe({
      enabled: true,
      binary: `${tmp}/perf`,
      data: `${tmp}/perf.data`,
      kind: "builtin-zero-copy",
      frames: 60,
      maxSampleRatePath: `${tmp}/max_rate`,
      say: (m) => said.push(m),
      notes,
    });
    await perf.attach([sleeper.pid]);
    assert.equal(perf.unavailable, undefined);
    await perf.stop(tmp);
    const argv = (await Deno.readTextFile(`${tmp}/argv.txt`)).trim().split(" ");
    assert.equal(argv[argv.indexOf("-F") + 1], "2000", argv.join(" "));
    assert.ok(
      said.some((m) => m.includes("cpu-clock at 2000 Hz (builtin-zero-copy: 120000 / 60 frames)")),
      said.join("\n"),
    );
    const record = perf.record();
    assert.ok("rate" in record && record.rate);
    assert.deepEqual(record.rate, {
      hz: 2000,
      rule: "builtin-zero-copy: 120000 / 60 frames",
      maxSampleRate: 100000,
      maxSampleRateAfter: 800,
    });
    assert.ok(
      notes.some((n) =>
        /lowered perf_event_max_sample_rate from 100000 to 800 during the run \(perf's interrupts took too long\): perf, asked for 2000 Hz, was held to 800$/
          .test(n)
      ),
      notes.join("\n"),
    );
    // result.json's perf section carries the rate, and its schema takes it.
    const v = judgeCopies(
      {
        summary: {
          samples: 0,
          totalPeriod: 0,
          events: [],
          symbols: [],
          copyRoutines: [],
          copyPercent: 0,
          unknownSamples: 0,
        },
        event: record.event,
        reason: record.reason,
        rate: record.rate,
      },
      1,
      100,
    );
    assert.deepEqual(v.perf.rate, {
      hz: 2000,
      rule: "builtin-zero-copy: 120000 / 60 frames",
      max_sample_rate: 100000,
      max_sample_rate_after: 800,
    });
    const perfSchema = VerifyResultSchema.shape.axl.shape.perf;
    assert.deepEqual(perfSchema.parse(v.perf), v.perf);
  } finally {
    sleeper.kill();
    await sleeper.status;
    await Deno.remove(tmp, { recursive: true });
  }
});

/**
 * A perf whose `record -o -` streams one line per sample for the pid it records, and whose
 * `script -i -` (or `-i FILE`) prints each line as a perf script sample as soon as it reads it.
 */
const STREAMING_PERF = `#!/bin/sh
if [ "$1" = stat ]; then echo '<not supported>,,cycles,0,100.00,,' >&2; exit 0; fi
if [ "$1" = script ]; then
  [ "$3" = - ] && in=/dev/stdin || in=$3
  n=0
  while read -r pid; do
    n=$((n + 1))
    printf 'fake %s 1.%06d: 1 cpu-clock: \\n\\t 1 fake_loop+0x1 (/usr/bin/fake)\\n\\n' "$pid" "$n"
  done < "$in"
  exit 0
fi
out= ctl= ack= pid=
while [ $# -gt 0 ]; do
  case "$1" in
    -o) out=$2; shift ;;
    -p) pid=$2; shift ;;
    --control=fifo:*) f=\${1#--control=fifo:}; ctl=\${f%,*}; ack=\${f#*,} ;;
  esac
  shift
done
[ "$out" = - ] || exec 1> "$out"
stop=0
trap 'stop=1' INT
read -r _ < "$ctl"
echo ack > "$ack"
while [ $stop = 0 ]; do echo "$pid"; sleep 0.05; done
exit 0
`;

Deno.test("PerfCapture runs perf script on perf's output while perf records (pipe mode), and perf.script is what perf script prints of perf.data", async () => {
  const tmp = await Deno.makeTempDir();
  const sleeper = new Deno.Command("sleep", { args: ["30"] }).spawn();
  try {
    await Deno.writeTextFile(`${tmp}/perf`, STREAMING_PERF, { mode: 0o755 });
    await Deno.mkdir(`${tmp}/art`);
    const perf = await PerfCapture.probe({
      enabled: true,
      binary: `${tmp}/perf`,
      data: `${tmp}/perf.data`,
      live: `${tmp}/art`,
      kind: "command",
      say: () => {},
      notes: [],
    });
    await perf.attach([sleeper.pid]);
    assert.equal(perf.unavailable, undefined);
    // perf record streams, and perf script (started by attach) reads it as it comes.
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline) {
      const data = await Deno.readTextFile(`${tmp}/perf.data`).catch(() => "");
      if (data.split("\n").length > 3) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    await perf.stop(`${tmp}/art`);
    const written = await perf.writeScript(`${tmp}/art`, [sleeper.pid]);
    const text = await Deno.readTextFile(`${tmp}/art/perf.script`);
    const n = (text.match(/cpu-clock/g) ?? []).length;
    assert.ok(n >= 3);
    assert.equal(written?.summary?.samples, n);
    assert.deepEqual(perf.resolved, { frames: 0, renamed: 0, maps: [] });
    // Nothing named again: the summary is the fold made while perf script printed.
    assert.equal(perf.foldedLive, true);
    // perf.data holds the stream perf record wrote: perf script on it prints perf.script.
    const again = await new Deno.Command(`${tmp}/perf`, {
      args: ["script", "-i", `${tmp}/art/perf.data`],
      stdout: "piped",
    }).output();
    assert.equal(new TextDecoder().decode(again.stdout), text);
  } finally {
    sleeper.kill();
    await sleeper.status;
    await Deno.remove(tmp, { recursive: true });
  }
});

/**
 * Records `pid` for 300 ms, stops, writes perf.script into `art`; asserts it holds samples and
 * that the summary counted each of them. Returns the script's text, its sample count and what writeScript() gave.
 */
async function recordBriefly(
  perf: PerfCapture,
  art: string,
  pid: number,
): Promise<{ text: string; n: number; written: Awaited<ReturnType<PerfCapture["writeScript"]>> }> {
  await perf.attach([pid]);
  await new Promise((r) => setTimeout(r, 300));
  await perf.stop(art);
  const written = await perf.writeScript(art, [pid]);
  const text = await Deno.readTextFile(`${art}/perf.script`);
  const n = (text.match(/cpu-clock/g) ?? []).length;
  assert.ok(n >= 1, text);
  assert.equal(written?.summary?.samples, n);
  return { text, n, written };
}

/** The targets of `pid`'s open fds (`pipe:[…]`, paths), or none once it is gone. */
function fdTargets(pid: number | "self"): Set<string> {
  const out = new Set<string>();
  try {
    for (const e of Deno.readDirSync(`/proc/${pid}/fd`)) {
      try {
        out.add(Deno.readLinkSync(`/proc/${pid}/fd/${e.name}`));
      } catch { /* closed meanwhile */ }
    }
  } catch { /* gone */ }
  return out;
}

Deno.test("PerfCapture runs perf script beside perf record in child processes when the workload runs in verify's own process", async () => {
  // perf samples that process (the builtin): streamed through it, this process would write
  // perf.data and hold perf script's text while the frames run, and I4 would count those
  // writes as the workload's copies. Beside: perf script prints while perf records, and no fd
  // of this process holds perf record's output or perf script's.
  const tmp = await Deno.makeTempDir();
  const sleeper = new Deno.Command("sleep", { args: ["30"] }).spawn();
  try {
    await Deno.writeTextFile(`${tmp}/perf-real`, STREAMING_PERF, { mode: 0o755 });
    await Deno.writeTextFile(
      `${tmp}/perf`,
      `#!/bin/sh\necho "$$ $*" >> ${tmp}/argv.log\nexec ${tmp}/perf-real "$@"\n`,
      { mode: 0o755 },
    );
    await Deno.mkdir(`${tmp}/art`);
    const perf = await PerfCapture.probe({
      enabled: true,
      binary: `${tmp}/perf`,
      data: `${tmp}/perf.data`,
      live: `${tmp}/art`,
      kind: "builtin-zero-copy",
      frames: 60,
      say: () => {},
      notes: [],
    });
    await perf.attach([sleeper.pid]);
    assert.equal(perf.unavailable, undefined);
    // perf script prints while perf records, into a file of its own.
    const deadline = Date.now() + 10_000;
    let printing = "";
    while (Date.now() < deadline) {
      printing = await Deno.readTextFile(`${tmp}/perf.data.script`).catch(() => "");
      if ((printing.match(/cpu-clock/g) ?? []).length >= 3) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.ok((printing.match(/cpu-clock/g) ?? []).length >= 3, `perf script printed: ${printing}`);
    const argv = (await Deno.readTextFile(`${tmp}/argv.log`)).split("\n");
    const pidOf = (sub: string) => Number(argv.find((l) => l.split(" ")[1] === sub)?.split(" ")[0]);
    const record = argv.find((l) => l.split(" ")[1] === "record") ?? "";
    assert.ok(record.includes("-o -"), argv.join("\n"));
    assert.ok(
      argv.some((l) => l.split(" ")[1] === "script" && l.includes(" -i - ")),
      argv.join("\n"),
    );
    // perf record's stdout and perf script's stdin and stdout: none of them is this process's.
    const ours = fdTargets("self");
    for (const [sub, fds] of [["record", [1]], ["script", [0, 1]]] as const) {
      for (const fd of fds) {
        const target = Deno.readLinkSync(`/proc/${pidOf(sub)}/fd/${fd}`);
        assert.ok(!ours.has(target), `perf ${sub}'s fd ${fd} (${target}) is open in verify`);
      }
    }
    await perf.stop(`${tmp}/art`);
    const written = await perf.writeScript(`${tmp}/art`, [sleeper.pid]);
    const text = await Deno.readTextFile(`${tmp}/art/perf.script`);
    const n = (text.match(/cpu-clock/g) ?? []).length;
    assert.ok(n >= 3);
    assert.ok(text.startsWith(printing));
    assert.equal(written?.summary?.samples, n);
    assert.equal(perf.foldedLive, false); // folded after perf stopped, from the saved text
    assert.equal((perf.record() as { script?: string }).script, "beside");
    // perf.data holds the stream perf record wrote: perf script on it prints perf.script.
    const again = await new Deno.Command(`${tmp}/perf-real`, {
      args: ["script", "-i", `${tmp}/art/perf.data`],
      stdout: "piped",
    }).output();
    assert.equal(new TextDecoder().decode(again.stdout), text);
    // Nothing of the pipeline is left running.
    for (const sub of ["record", "script"]) {
      const stat = await Deno.readTextFile(`/proc/${pidOf(sub)}/stat`).catch(() => "");
      assert.ok(stat === "" || / Z /.test(stat), `perf ${sub} still runs: ${stat}`);
    }
  } finally {
    sleeper.kill();
    await sleeper.status;
    await Deno.remove(tmp, { recursive: true });
  }
});

/** {@linkcode STREAMING_PERF} whose samples are in a JIT's perf map, perf script naming none. */
const JIT_PERF = STREAMING_PERF.replace(
  "1 fake_loop+0x1 (/usr/bin/fake)",
  "5010 [unknown] (/tmp/perf-%s.map)",
).replace('"$pid" "$n"', '"$pid" "$n" "$pid"');

Deno.test("PerfCapture names the live output's JIT frames again from the runtime's final perf map", async () => {
  const tmp = await Deno.makeTempDir();
  const sleeper = new Deno.Command("sleep", { args: ["30"] }).spawn();
  const mapPath = `/tmp/perf-${sleeper.pid}.map`;
  try {
    for (
      const [name, map, said] of [
        ["named", "5000 100 JS:*transform file:///c.ts:1:1\n", undefined],
        // V8 reused the address: perf's answer depends on its symbol tree, so perf script runs
        // on the data file
        ["overlap", "5000 100 JS:*old\n5008 100 JS:*new\n", /running perf script on the data/],
      ] as const
    ) {
      const dir = `${tmp}/${name}`;
      await Deno.mkdir(`${dir}/art`, { recursive: true });
      await Deno.writeTextFile(`${dir}/perf`, JIT_PERF, { mode: 0o755 });
      const says: string[] = [];
      const read: string[] = [];
      const perf = await PerfCapture.probe({
        enabled: true,
        binary: `${dir}/perf`,
        data: `${dir}/perf.data`,
        live: `${dir}/art`,
        kind: "command",
        say: (m) => says.push(m),
        notes: [],
        readPerfMap: (p) => (read.push(p), p === mapPath ? map : undefined),
      });
      const { text, n, written } = await recordBriefly(perf, `${dir}/art`, sleeper.pid);
      if (said) {
        assert.ok(says.some((m) => said.test(m)), says.join("\n"));
        assert.match(perf.resolved?.ambiguous ?? "", /overlapping/);
        // the fake perf script on the data file names nothing either
        assert.equal((text.match(/\[unknown\] \(\/tmp\/perf-/g) ?? []).length, n);
      } else {
        assert.equal(
          (text.match(/ JS:\*transform file:\/\/\/c\.ts:1:1 \(\/tmp\/perf-/g) ?? []).length,
          n,
        );
        assert.equal(perf.resolved?.renamed, n);
        // The text changed: folded again from it, not taken from the live fold.
        assert.equal(perf.foldedLive, false);
        assert.ok(
          says.includes(
            `perf: ${n} of ${n} frames in a JIT's perf map named again from its final contents (${mapPath})`,
          ),
          says.join("\n"),
        );
        assert.equal(written?.summary?.symbols[0]?.symbol, "JS:*transform file:///c.ts:1:1");
      }
      assert.deepEqual(read, [mapPath]);
    }
  } finally {
    sleeper.kill();
    await sleeper.status;
    await Deno.remove(tmp, { recursive: true });
  }
});

Deno.test("verdictLines() prints perf's samples and rate when the run recorded them", async () => {
  const r = await judgeArtifacts(runDir("zero-copy"));
  // A capture made before the rate was recorded: no line, as before.
  assert.equal(verdictLines(r).some((l) => l.startsWith("perf: ")), false);
  r.axl.perf.rate = {
    hz: 1250,
    rule: "builtin-zero-copy: 120000 / 60 frames",
    max_sample_rate: 1250,
    capped_by: "perf_event_max_sample_rate",
    max_sample_rate_after: 625,
  };
  assert.ok(
    verdictLines(r).includes(
      `perf: ${r.axl.perf.samples} samples at 1250 Hz (builtin-zero-copy: 120000 / 60 frames, ` +
        `capped: perf_event_max_sample_rate 1250); the kernel lowered its limit to 625 Hz ` +
        `during the run`,
    ),
    verdictLines(r).join("\n"),
  );
});

Deno.test("judgeCopies() names the kernel's sample-rate limit when it held perf below the rate asked for", () => {
  const summary = {
    samples: 482,
    totalPeriod: 482,
    events: ["cycles"],
    symbols: [],
    copyRoutines: [],
    copyPercent: 0,
    unknownSamples: 0,
  };
  const rate = {
    hz: 2000,
    rule: "builtin-zero-copy: 120000 / 60 frames",
    maxSampleRate: 100000,
    maxSampleRateAfter: 500,
  };
  const v = judgeCopies({ summary, event: "cycles", reason: "r", rate }, 1, 100);
  assert.equal(v.invariant.status, "INCONCLUSIVE");
  assert.match(
    v.invariant.summary,
    /^only 482 samples: a 1% threshold needs 1000 \(10 samples at the threshold\); perf sampled at most 500 Hz, the kernel's perf_event_max_sample_rate/,
  );
  assert.match(v.diagnoses[0]!.symptom, /raise kernel\.perf_event_max_sample_rate/);
  // Capped at the start, the same.
  const capped = judgeCopies(
    {
      summary,
      event: "cycles",
      reason: "r",
      rate: {
        ...rate,
        hz: 250,
        maxSampleRate: 250,
        cappedBy: "perf_event_max_sample_rate" as const,
        maxSampleRateAfter: undefined,
      },
    },
    1,
    100,
  );
  assert.match(capped.invariant.summary, /perf sampled at most 250 Hz/);
  // Lowered during the run, but not below the rate asked for: not what held perf.
  const lowered = judgeCopies(
    {
      summary,
      event: "cycles",
      reason: "r",
      rate: { ...rate, maxSampleRateAfter: 2000 },
    },
    1,
    100,
  );
  assert.doesNotMatch(lowered.invariant.summary, /perf sampled at most/);
  // Not capped: the summary as before.
  const free = judgeCopies({ summary, event: "cycles", reason: "r" }, 1, 100);
  assert.equal(
    free.invariant.summary,
    "only 482 samples: a 1% threshold needs 1000 (10 samples at the threshold)",
  );
});
