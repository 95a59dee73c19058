/**
 * `reset`: puts tracefs back as a killed `axl verify` found it. Before it changes anything in
 * tracefs a run records what it found in a state file under `/run/axl/`; a run that ends by
 * SIGKILL, the OOM killer or a crash cannot undo its changes, and this command (or the next
 * verify) does it from that file. Runs still going are left alone.
 *
 * @module
 */
import {
  formatRestore,
  restoreAbandonedRuns,
  type RestoreOutcome,
} from "../trace/capture/tracefs_restore.ts";
import { ExitCode } from "./exit_code.ts";
import { CannotRunError, type CommandSpec } from "./spec.ts";

/** The declaration of `reset`. */
export const resetSpec: CommandSpec = {
  name: "reset",
  summary: "put back the tracefs state a killed verify left behind",
  positionals: [],
  options: {
    json: {
      type: "boolean",
      description: "print {dir, restored: [...], live: [...], unreadable: [...]} as JSON",
      only: "cli",
    },
  },
  details: "Restores what verify runs that were killed (SIGKILL, OOM) changed in tracefs.",
  cli: {
    details: `Before it changes tracefs (tracer, function filter, buffer size, clock, options,
events, its instance, its kprobe events) verify records what it found in a state file
under /run/axl/ (or $AXL_STATE_DIR), with its pid and start time. A run killed with
SIGKILL or by the OOM killer cannot put tracefs back; this command finds the files
whose process is gone (or whose pid now belongs to another process), undoes each
change, newest first, stops the run's trace_pipe reader, and says what it put back.
Files of runs still going are left alone. The next 'axl verify' does the same before
it starts; 'axl doctor' reports such files. Run it as root.`,
    exits: [
      [ExitCode.Ok, "nothing was left, or everything left was put back"],
      [
        ExitCode.Fail,
        "a change could not be undone or a state file is unreadable\n(kept for another try)",
      ],
      [
        ExitCode.CannotRun,
        "bad usage, or the state directory cannot be read or locked\n(not root)",
      ],
    ],
  },
};

/** What `reset` did, the text to show and the exit code. */
export interface ResetOutcome extends RestoreOutcome {
  /** One line per run restored, left alone or unreadable; a line when there was nothing. */
  text: string;
  /** Ok, or Fail when a step failed or a file is unreadable. */
  code: number;
}

/**
 * Restores every abandoned run's tracefs changes (see `tracefs_restore.ts`).
 *
 * @example
 * ```ts ignore
 * import { resetTracefs } from "./reset.ts";
 * const { text, code } = resetTracefs();
 * console.log(text);
 * Deno.exit(code);
 * ```
 */
export function resetTracefs(options: { dir?: string } = {}): ResetOutcome {
  let outcome: RestoreOutcome;
  try {
    outcome = restoreAbandonedRuns(options);
  } catch (e) {
    if (e instanceof Deno.errors.NotCapable) {
      throw new CannotRunError(`reset: Deno denied access (${e.message}): run it with --allow-all`);
    }
    throw new CannotRunError(`reset: ${(e as Error).message}`);
  }
  const lines = formatRestore(outcome);
  if (outcome.restored.length === 0) {
    lines.unshift(`nothing to restore: no state left by a killed run in ${outcome.dir}`);
  }
  const failed = outcome.unreadable.length > 0 || outcome.restored.some((r) => r.errors.length);
  return { ...outcome, text: lines.join("\n"), code: failed ? ExitCode.Fail : ExitCode.Ok };
}
