/**
 * {@linkcode applyUndo}: carries out one step of a state file (`tracefs_state_file.ts`), for
 * the run that recorded it and for the restore of a killed run alike. Every step can be run
 * twice: what is already back (an instance already gone, a helper already dead) is done.
 *
 * Synchronous on purpose: it also runs from `unload` handlers.
 *
 * @module
 */
import { removeDmabufProbes } from "./kprobe_events.ts";
import { procStartTime, type UndoStep } from "./tracefs_state_file.ts";

/**
 * Puts back what `step` undoes; throws an error naming the file and the failure.
 *
 * @example
 * ```ts
 * import { applyUndo } from "./tracefs_undo.ts";
 * const dir = Deno.makeTempDirSync();
 * Deno.writeTextFileSync(`${dir}/current_tracer`, "function_graph\n");
 * applyUndo({ op: "write", path: `${dir}/current_tracer`, value: "nop" });
 * console.log(Deno.readTextFileSync(`${dir}/current_tracer`)); // "nop"
 * ```
 */
export function applyUndo(step: UndoStep): void {
  switch (step.op) {
    case "write":
      return writeBack(step.path, step.value);
    case "rmdir":
      return removeInstance(step.path);
    case "kprobes":
      return removeDmabufProbes(step.tracefs, step.group);
    case "kill":
      return killHelper(step.pid, step.startTime);
  }
}

function writeBack(path: string, value: string): void {
  try {
    Deno.writeTextFileSync(path, value);
  } catch (e) {
    // A file of an instance or event that is gone has nothing left to put back.
    if (e instanceof Deno.errors.NotFound && /\/(instances|events)\//.test(path)) return;
    const hint = e instanceof Deno.errors.PermissionDenied ? " (run as root)" : "";
    throw new Error(
      `write ${JSON.stringify(value.trim())} to ${path}: ${(e as Error).message}${hint}`,
      { cause: e },
    );
  }
}

/** Removes a tracefs instance; rmdir fails with EBUSY while a reader holds trace_pipe. */
function removeInstance(inst: string): void {
  for (let i = 0;; i++) {
    try {
      Deno.removeSync(inst);
      return;
    } catch (e) {
      if (e instanceof Deno.errors.NotFound) return;
      if (i >= 20) {
        throw new Error(
          `rmdir ${inst}: ${(e as Error).message} (a process still reads its trace_pipe: ` +
            `find it with fuser ${inst}/trace_pipe)`,
          { cause: e },
        );
      }
      sleepSync(50);
    }
  }
}

function sleepSync(ms: number): void {
  const until = Date.now() + ms;
  while (Date.now() < until) { /* short busy wait: this must stay synchronous */ }
}

/** The state letter and start time of `pid`, or undefined when there is no such process. */
function processOf(pid: number): { state: string; startTime: string } | undefined {
  let text: string;
  try {
    text = Deno.readTextFileSync(`/proc/${pid}/stat`);
  } catch {
    return undefined;
  }
  const state = text.slice(text.lastIndexOf(")") + 1).trim().split(/\s+/)[0] ?? "";
  return { state, startTime: procStartTime(text) };
}

/**
 * SIGKILLs `pid` if it is still the process started at `startTime`, and waits (up to 2 s)
 * until it has exited, so that what it held open (a `trace_pipe`) is released.
 */
function killHelper(pid: number, startTime: string): void {
  const p = processOf(pid);
  if (!p || p.startTime !== startTime || p.state === "Z") return;
  try {
    Deno.kill(pid, "SIGKILL");
  } catch (e) {
    // ESRCH: it exited in between; anything else (EPERM) leaves it running.
    if (processOf(pid)?.startTime === startTime) {
      throw new Error(`kill -9 ${pid}: ${(e as Error).message}`, { cause: e });
    }
  }
  const deadline = Date.now() + 2000;
  while (Date.now() < deadline) {
    const q = processOf(pid);
    if (!q || q.startTime !== startTime || q.state === "Z") return;
    sleepSync(20);
  }
  throw new Error(`pid ${pid} did not exit within 2 s of SIGKILL`);
}
