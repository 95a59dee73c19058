/**
 * The tracefs state check: whether a verify run was killed (SIGKILL, the OOM killer) with its
 * tracefs changes in place. Such a run leaves a state file under `/run/axl/` (see
 * `lib/trace/capture/tracefs_state_file.ts`) whose owner is gone; `axl reset` or the next
 * verify puts tracefs back. This check only reads: it never changes the machine.
 *
 * @module
 */
import { type CheckResult, fail, ok, warn } from "./check.ts";
import type { DoctorContext } from "./context.ts";
import {
  describeUndo,
  isStateFileName,
  ownerStatus,
  parseStateFile,
  stateDirectory,
} from "../trace/capture/tracefs_state_file.ts";

/**
 * Checks the state directory for runs that are gone with tracefs changes in place.
 *
 * @example Replay the VM rig's captured state (no run left anything there)
 * ```ts
 * import { doctorContext } from "./environment.ts";
 * import { checkTraceState } from "./trace_state.ts";
 * const root = new URL("../../tests/fixtures/doctor/vm-6.12", import.meta.url).pathname;
 * const [r] = checkTraceState(doctorContext({ root }));
 * console.log(r?.status); // "ok"
 * ```
 */
export function checkTraceState(ctx: DoctorContext): CheckResult[] {
  const dir = ctx.sys.root === "/" ? stateDirectory() : "/run/axl";
  const names = (ctx.sys.list(dir) ?? []).filter(isStateFileName);
  const boot = ctx.sys.readText("/proc/sys/kernel/random/boot_id")?.trim() ?? "";
  const out: CheckResult[] = [];
  let live = 0;
  for (const name of names) {
    const file = `${dir}/${name}`;
    const text = ctx.sys.readText(file);
    if (text === undefined) continue; // restored in between
    let state;
    try {
      state = parseStateFile(text, file);
    } catch (e) {
      out.push(warn("tracefs.state", (e as Error).message, `inspect ${file}, then remove it`));
      continue;
    }
    const owner = ownerStatus(state, ctx.sys.readText(`/proc/${state.pid}/stat`), boot);
    if (owner.live) {
      live++;
      continue;
    }
    const changes = state.entries.map((e) => describeUndo(e.undo));
    out.push(fail(
      "tracefs.state",
      `pid ${state.pid} (${state.command || "unknown command"}, ${owner.why}) left ` +
        `${changes.length} tracefs change(s) in place: ${changes.reverse().join("; ")}`,
      "sudo axl reset (or the next axl verify) puts them back",
    ));
  }
  if (out.length === 0) {
    out.push(ok(
      "tracefs.state",
      `no tracefs state left by a killed run in ${dir}` +
        (live ? ` (${live} run(s) in progress)` : ""),
    ));
  }
  return out;
}
