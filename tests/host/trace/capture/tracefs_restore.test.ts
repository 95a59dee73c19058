// The state file a run keeps of its tracefs changes, and the restore of a run killed with
// SIGKILL: a real child process changes a stand-in tracefs (plain files) and is killed; the
// restore must put every file back, stop its trace_pipe reader, and leave a live run alone.
import assert from "node:assert/strict";
import {
  ownerStatus,
  parseStateFile,
  procStartTime,
  type StateFile,
  stateFileName,
} from "../../../../lib/trace/capture/tracefs_state_file.ts";
import { restoreAbandonedRuns } from "../../../../lib/trace/capture/tracefs_restore.ts";
import { selfStartTime } from "../../../../lib/trace/capture/tracefs_journal.ts";
import { resetTracefs } from "../../../../lib/commands/reset.ts";

const FUNCS = [
  "dma_buf_dynamic_attach",
  "dma_buf_detach",
  "dma_buf_map_attachment",
  "dma_buf_unmap_attachment",
];

function state(over: Partial<StateFile>): StateFile {
  return {
    version: 1,
    pid: 1,
    startTime: "1",
    bootId: "",
    command: "axl.ts verify",
    since: "2026-01-01T00:00:00.000Z",
    entries: [],
    ...over,
  };
}

function alive(pid: number): boolean {
  try {
    const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
    return !/^\d+ \(.*\) Z /.test(stat);
  } catch {
    return false;
  }
}

Deno.test("procStartTime() reads field 22 after a command name with spaces and parentheses", () => {
  const stat = "4242 (a (b) c) S 1 4242 4242 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 987654 " +
    "1000 10 18446744073709551615";
  assert.equal(procStartTime(stat), "987654");
  assert.equal(procStartTime(Deno.readTextFileSync("/proc/self/stat")), selfStartTime());
  assert.throws(() => procStartTime("garbage"), /not a \/proc\/<pid>\/stat line/);
});

Deno.test("ownerStatus() tells a live owner from an exited one, a reused pid and an old boot", () => {
  const me = Deno.readTextFileSync("/proc/self/stat");
  const s = state({ pid: Deno.pid, startTime: selfStartTime(), bootId: "b1" });
  assert.deepEqual(ownerStatus(s, me, "b1"), { live: true });
  assert.deepEqual(ownerStatus(s, undefined, "b1"), { live: false, why: "exited" });
  assert.deepEqual(ownerStatus({ ...s, startTime: "1" }, me, "b1"), {
    live: false,
    why: "pid reused",
  });
  assert.deepEqual(ownerStatus(s, me, "b2"), { live: false, why: "previous boot" });
  assert.deepEqual(ownerStatus({ ...s, bootId: "" }, me, "b2"), { live: true });
});

Deno.test("parseStateFile() names the file and what is wrong with it", () => {
  const ok = parseStateFile(JSON.stringify(state({ entries: [] })), "f.json");
  assert.equal(ok.pid, 1);
  for (
    const [text, why] of [
      ["{", /f\.json: not an axl tracefs state file \(bad JSON/],
      [JSON.stringify({ ...state({}), version: 2 }), /version 2, want 1/],
      [JSON.stringify({ ...state({}), pid: "x" }), /no pid/],
      [JSON.stringify({ ...state({}), entries: [{ what: "x", undo: { op: "rm" } }] }), /entry 0/],
      [
        JSON.stringify({
          ...state({}),
          entries: [{ what: "x", undo: { op: "kprobes", tracefs: "/t", group: "a/b" } }],
        }),
        /entry 0 is malformed/,
      ],
    ] as const
  ) {
    assert.throws(() => parseStateFile(text, "f.json"), why);
  }
});

Deno.test("restoreAbandonedRuns() puts back what a run killed with SIGKILL changed, and stops its trace_pipe reader", async () => {
  const work = await Deno.makeTempDir({ prefix: "axl-restore-" });
  const root = `${work}/tracing`;
  const stateDir = `${work}/run`;
  try {
    await Deno.mkdir(`${root}/instances`, { recursive: true });
    const before: Record<string, string> = {
      "tracing_on": "1\n",
      "buffer_size_kb": "1408\n",
      "trace_clock": "[local] global mono\n",
      "trace": "",
      "kprobe_events": "",
      "README": "$arg<N>\n",
      "available_filter_functions": FUNCS.join("\n") + "\n",
      "available_tracers": "function_graph function nop\n",
    };
    for (const [f, t] of Object.entries(before)) await Deno.writeTextFile(`${root}/${f}`, t);
    assert.equal(
      (await new Deno.Command("mkfifo", { args: [`${root}/trace_pipe`] }).output()).code,
      0,
    );

    const child = new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--no-check",
        "-A",
        new URL("./_journal_child.ts", import.meta.url).pathname,
        root,
      ],
      env: { AXL_STATE_DIR: stateDir },
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
    const first = await reader.read();
    assert.match(first.value ?? "", /READY/, "the child set up");
    const file = `${stateDir}/${
      stateFileName(child.pid, procStartTime(Deno.readTextFileSync(`/proc/${child.pid}/stat`)))
    }`;
    const recorded = parseStateFile(await Deno.readTextFile(file), file);
    const ops = recorded.entries.map((e) => e.undo.op);
    assert.deepEqual(ops, ["kprobes", "write", "write", "write", "kill"]);
    const kill = recorded.entries.at(-1)!.undo as { pid: number };
    assert.ok(alive(kill.pid), "the trace_pipe reader runs");
    assert.equal((await Deno.readTextFile(`${root}/trace_clock`)).trim(), "mono");
    // The probe group as the kernel would show it, to see it removed.
    await Deno.mkdir(`${root}/events/axl_kp_${child.pid}/axl_kp_attach`, { recursive: true });

    // While the run lives, its state is left alone.
    const live = restoreAbandonedRuns({ dir: stateDir });
    assert.deepEqual(live.restored, []);
    assert.deepEqual(live.live.map((l) => l.pid), [child.pid]);
    assert.equal((await Deno.readTextFile(`${root}/trace_clock`)).trim(), "mono");

    child.kill("SIGKILL");
    assert.equal((await child.status).signal, "SIGKILL");
    await reader.cancel();
    await child.stderr.cancel();
    assert.ok(alive(kill.pid), "the reader outlives the killed run");

    const out = restoreAbandonedRuns({ dir: stateDir });
    assert.equal(out.restored.length, 1);
    const r = out.restored[0]!;
    assert.deepEqual([r.pid, r.why, r.errors], [child.pid, "exited", []]);
    assert.deepEqual(r.restored, [
      `stopped cat ${root}/trace_pipe (pid ${kill.pid})`,
      `${root}/trace_clock = local`,
      `${root}/buffer_size_kb = 1408`,
      `${root}/tracing_on = 1`,
      `removed kprobe events axl_kp_${child.pid}`,
    ]);
    assert.equal(alive(kill.pid), false, "the reader was stopped");
    assert.equal((await Deno.readTextFile(`${root}/trace_clock`)).trim(), "local");
    assert.equal((await Deno.readTextFile(`${root}/buffer_size_kb`)).trim(), "1408");
    assert.equal((await Deno.readTextFile(`${root}/tracing_on`)).trim(), "1");
    assert.match(
      await Deno.readTextFile(`${root}/kprobe_events`),
      new RegExp(`-:axl_kp_${child.pid}/axl_kp_attach\\n$`),
    );
    assert.deepEqual(
      [...Deno.readDirSync(stateDir)].map((e) => e.name).filter((n) => n.endsWith(".json")),
      [],
      "the state file is gone",
    );
    assert.deepEqual(restoreAbandonedRuns({ dir: stateDir }).restored, [], "nothing twice");
  } finally {
    await Deno.remove(work, { recursive: true });
  }
});

Deno.test("resetTracefs() restores a reused pid's file, drops an old boot's, keeps a failed step and exits 1", async () => {
  const dir = await Deno.makeTempDir({ prefix: "axl-reset-" });
  try {
    const boot = Deno.readTextFileSync("/proc/sys/kernel/random/boot_id").trim();
    const target = `${dir}/current_tracer`;
    await Deno.writeTextFile(target, "function_graph");
    const write = (path: string, value: string) => ({
      what: `${path}=x`,
      undo: { op: "write" as const, path, value },
    });
    // This very process, as if it had a pid another process used before it.
    const reused = state({
      pid: Deno.pid,
      startTime: "1",
      bootId: boot,
      entries: [write(target, "nop")],
    });
    const old = state({
      pid: 2,
      startTime: "2",
      bootId: "another-boot",
      entries: [write(target, "x")],
    });
    const bad = `${dir}/no/such/dir/tracing_on`;
    const broken = state({ pid: 3, startTime: "3", bootId: boot, entries: [write(bad, "1")] });
    const live = state({
      pid: Deno.pid,
      startTime: selfStartTime(),
      bootId: boot,
      entries: [write(target, "live")],
    });
    for (const s of [reused, old, broken, live]) {
      await Deno.writeTextFile(`${dir}/${stateFileName(s.pid, s.startTime)}`, JSON.stringify(s));
    }
    await Deno.writeTextFile(`${dir}/${stateFileName(9, "9")}`, "{not json");
    // A dead run's half-written replacement goes; a live run's stays.
    await Deno.writeTextFile(`${dir}/${stateFileName(4, "4")}.tmp`, "{");
    const liveTmp = `${stateFileName(Deno.pid, selfStartTime())}.tmp`;
    await Deno.writeTextFile(`${dir}/${liveTmp}`, "{");
    const out = resetTracefs({ dir });
    assert.equal(out.code, 1);
    assert.equal(
      await Deno.readTextFile(target),
      "nop",
      "the reused pid's run was restored, not the live one",
    );
    const byPid = new Map(out.restored.map((r) => [r.pid, r]));
    assert.equal(byPid.get(Deno.pid)?.why, "pid reused");
    assert.deepEqual([byPid.get(2)?.why, byPid.get(2)?.discarded], ["previous boot", true]);
    assert.match(byPid.get(3)?.errors[0] ?? "", /tracing_on = 1: write "1" to .*No such file/);
    assert.deepEqual(out.live.map((l) => l.pid), [Deno.pid]);
    assert.equal(out.unreadable.length, 1);
    assert.match(out.text, /tracefs restored after pid \d+ \(axl\.ts verify, .*pid reused\)/);
    assert.match(out.text, /dropped: tracefs was reset by the reboot/);
    assert.match(out.text, /FAILED .*tracing_on/);
    assert.match(out.text, /run in progress left alone: pid \d+/);
    assert.deepEqual(
      [...Deno.readDirSync(dir)].map((e) => e.name).filter((n) => n.endsWith(".tmp")),
      [liveTmp],
    );
    const left = [...Deno.readDirSync(dir)].map((e) => e.name).filter((n) => n.endsWith(".json"))
      .sort();
    assert.deepEqual(
      left,
      [stateFileName(3, "3"), stateFileName(9, "9"), stateFileName(Deno.pid, selfStartTime())]
        .sort(),
    );
    const kept = parseStateFile(await Deno.readTextFile(`${dir}/${stateFileName(3, "3")}`), "kept");
    assert.deepEqual(
      kept.entries.map((e) => e.undo),
      [broken.entries[0]!.undo],
      "the failed step is kept",
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("resetTracefs() with nothing recorded says so and exits 0", () => {
  const out = resetTracefs({ dir: "/nonexistent/axl-state" });
  assert.equal(out.code, 0);
  assert.equal(
    out.text,
    "nothing to restore: no state left by a killed run in /nonexistent/axl-state",
  );
});
