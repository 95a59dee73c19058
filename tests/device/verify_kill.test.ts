// kill -9 leaves nothing behind: `axl verify` killed with SIGKILL while it sets tracefs up,
// while it captures and while it drains the trace cannot undo anything itself. The next
// command — `axl doctor` reports it, `axl reset` or the next `axl verify` puts it back — must
// leave tracefs exactly as it was before the killed run, with no trace_pipe reader left.
import assert from "node:assert/strict";
import { tracefsState } from "./verify/_tracefs_state.ts";
import { stateDirectory } from "../../lib/trace/capture/tracefs_state_file.ts";
import { unreadEntries } from "../../lib/trace/capture/trace_drain.ts";

const TRACEFS = "/sys/kernel/tracing";
const AXL = new URL("../../tasks/axl.ts", import.meta.url).pathname;
const results = Deno.env.get("AXL_RESULTS") ??
  await Deno.makeTempDir({ prefix: "axl-verify-kill-" });

/** `axl ARGS` run to the end: exit code, stdout, stderr. */
async function axl(args: string[]) {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--no-check", "--allow-all", AXL, ...args],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const dec = new TextDecoder();
  return { code: out.code, out: dec.decode(out.stdout), err: dec.decode(out.stderr) };
}

function read(path: string): string | undefined {
  try {
    return Deno.readTextFileSync(path);
  } catch {
    return undefined;
  }
}

/** Live `cat … trace_pipe` processes: pid, parent's pid and command line. */
function traceReaders(): Array<{ pid: number; ppid: number; cmd: string }> {
  const out: Array<{ pid: number; ppid: number; cmd: string }> = [];
  for (const e of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(e.name)) continue;
    const cmd = read(`/proc/${e.name}/cmdline`)?.replaceAll("\0", " ").trim() ?? "";
    if (!/^cat .*trace_pipe/.test(cmd)) continue;
    // The fields after the command's closing parenthesis: state, then the parent's pid.
    const [state, ppid] = (read(`/proc/${e.name}/stat`) ?? "").split(") ").pop()!.split(" ");
    if (state === "Z") continue;
    out.push({ pid: Number(e.name), ppid: Number(ppid), cmd });
  }
  return out;
}

/** Processes still reading a trace_pipe of the run `pid` (its instance, or the top level). */
function readersOf(pid: number): string[] {
  return traceReaders()
    .filter((r) => r.cmd.includes(`axl-verify-${pid}/`) || !/instances/.test(r.cmd))
    .map((r) => `${r.pid}: ${r.cmd}`);
}

/** The run `pid`'s own trace_pipe reader (its child), once it has started. */
function readerOf(pid: number): number | undefined {
  return traceReaders().find((r) => r.ppid === pid)?.pid;
}

/** The directory the run `pid` records in: its instance, or the top level (5.15). */
function recordingDir(pid: number): string {
  const inst = `${TRACEFS}/instances/axl-verify-${pid}`;
  return read(`${inst}/tracing_on`) !== undefined ? inst : TRACEFS;
}

type Phase = "setup" | "capture" | "drain";

/**
 * How long a verify run may take to reach the phase it is killed in. On the arm64
 * lockdep/KASAN kernel under TCG, on a busy host, `axl verify` printed its first line after
 * 338 s (Deno's start-up) and defined its kprobes at 370 s; 240 s failed all three cases there.
 */
const PHASE_DEADLINE_S = 600;

/** Whether the run `pid` writing to `dir` has reached `phase`. */
function reached(phase: Phase, pid: number, dir: string): boolean {
  if (phase === "setup") {
    // Its first global change: the kprobe group, or its instance.
    return read(`${TRACEFS}/events/axl_kp_${pid}/enable`) !== undefined ||
      read(`${TRACEFS}/instances/axl-verify-${pid}/tracing_on`) !== undefined;
  }
  if (phase === "capture") {
    return (read(`${dir}/trace.txt`)?.match(/axl_job_submit/g) ?? []).length >= 20;
  }
  // Drain (its reader held since it started): tracing ran and is off again, and what it
  // recorded is still in the ring.
  const rec = recordingDir(pid);
  return read(`${rec}/tracing_on`)?.trim() === "0" && unreadEntries(rec) > 0;
}

/** Starts `axl verify`, SIGKILLs it once it reaches `phase`, and returns its pid. */
async function killVerifyAt(phase: Phase, frames: number): Promise<number> {
  const dir = `${results}/verify-kill-${phase}`;
  await Deno.remove(dir, { recursive: true }).catch(() => {});
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "--no-check", "--allow-all", AXL, "verify", "--frames", String(frames)]
      .concat(["--no-perf", "--artifacts", dir]),
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const stderr = new Response(child.stderr).text();
  let exited = false;
  child.status.then(() => exited = true);
  const deadline = Date.now() + PHASE_DEADLINE_S * 1000;
  let there = false;
  // The drain lasts a few hundred milliseconds: too short to catch by polling on a busy
  // machine (a 60-frame run once ended between two polls). So the run's reader is stopped as
  // soon as it exists: the run then stays in its drain (events unread, the file not growing)
  // until its 60 s drain timeout, and the kill lands there every time.
  let held: number | undefined;
  try {
    while (!exited && Date.now() < deadline) {
      if (phase === "drain" && held === undefined) {
        held = readerOf(child.pid);
        if (held !== undefined) Deno.kill(held, "SIGSTOP");
      }
      if ((phase !== "drain" || held !== undefined) && (there = reached(phase, child.pid, dir))) {
        break;
      }
      await new Promise((r) => setTimeout(r, 20));
    }
  } finally {
    if (!exited) child.kill("SIGKILL");
  }
  const { signal } = await child.status;
  // What verify printed says how far it got: part of every failure below.
  const printed = await stderr;
  assert.equal(signal, "SIGKILL", `verify ended before the ${phase} phase:\n${printed}`);
  assert.ok(
    there,
    `verify did not reach the ${phase} phase in ${PHASE_DEADLINE_S} s; it printed:\n${printed}`,
  );
  assert.equal(read(`${dir}/result.json`), undefined, `killed during ${phase}, before judging`);
  return child.pid;
}

/**
 * Kills a verify run at `phase`, runs `restore` (the next command), and checks tracefs is back
 * as it was, with no reader and no state file left; then the checks `restore` returns.
 */
async function killAndRestore(
  phase: Phase,
  frames: number,
  restore: (pid: number) => Promise<() => void>,
) {
  const before = tracefsState();
  const pid = await killVerifyAt(phase, frames);
  assert.notDeepEqual(tracefsState(), before, `the ${phase} kill left tracefs changed`);
  const check = await restore(pid);
  assert.deepEqual(tracefsState(), before, `tracefs as it was before the ${phase} kill`);
  assert.deepEqual(readersOf(pid), [], "no trace_pipe reader left");
  const left = [...Deno.readDirSync(stateDirectory())].map((e) => e.name).filter((n) =>
    n.startsWith("tracefs-")
  );
  assert.deepEqual(left, [], "no state file left");
  check();
}

Deno.test("axl verify killed with SIGKILL during setup: doctor reports it, axl reset puts tracefs back", async () => {
  await killAndRestore("setup", 1_000_000, async (pid) => {
    const doctor = await axl(["doctor", "--json"]);
    const reset = await axl(["reset", "--json"]);
    return () => {
      const checks = JSON.parse(doctor.out).checks as Array<
        { id: string; status: string; message: string }
      >;
      const state = checks.find((c) => c.id === "tracefs.state");
      assert.equal(state?.status, "fail", JSON.stringify(state));
      assert.match(
        state!.message,
        new RegExp(`^pid ${pid} \\(.*verify.*, exited\\) left \\d+ tracefs change`),
      );
      assert.equal(reset.code, 0, reset.out + reset.err);
      const out = JSON.parse(reset.out);
      assert.deepEqual(out.restored.map((r: { pid: number }) => r.pid), [pid]);
      assert.ok(out.restored[0].restored.length >= 1, reset.out);
      console.log(`setup kill: reset put back ${out.restored[0].restored.join("; ")}`);
    };
  });
});

Deno.test("axl verify killed with SIGKILL during capture: axl reset puts tracefs back and stops its reader", async () => {
  await killAndRestore("capture", 1_000_000, async (pid) => {
    const readers = readersOf(pid);
    const reset = await axl(["reset"]);
    return () => {
      assert.notDeepEqual(readers, [], "the killed run's trace_pipe reader outlived it");
      assert.equal(reset.code, 0, reset.out + reset.err);
      assert.match(
        reset.out,
        new RegExp(`^tracefs restored after pid ${pid} \\(.*; exited\\)`, "m"),
      );
      assert.match(reset.out, /^ {2}stopped cat .*trace_pipe/m);
      console.log(reset.out.trim());
    };
  });
});

Deno.test("axl verify killed with SIGKILL during the drain: the next verify puts tracefs back first", async () => {
  await killAndRestore("drain", 120, async (pid) => {
    const dir = `${results}/verify-kill-next`;
    const next = await axl(["verify", "--frames", "20", "--no-perf", "--artifacts", dir]);
    return () => {
      assert.ok([0, 1, 2].includes(next.code), `exit ${next.code}\n${next.out}${next.err}`);
      assert.match(next.err, new RegExp(`axl: tracefs restored after pid ${pid} \\(`));
      const result = JSON.parse(Deno.readTextFileSync(`${dir}/result.json`));
      assert.ok(
        result.axl.notes.some((n: string) =>
          n.startsWith(`tracefs left by pid ${pid} (exited) was restored`)
        ),
        JSON.stringify(result.axl.notes),
      );
    };
  });
});
