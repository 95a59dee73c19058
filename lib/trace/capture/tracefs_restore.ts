/**
 * {@linkcode restoreAbandonedRuns}: finds the state files of runs whose process is gone (killed
 * with SIGKILL, by the OOM killer, or crashed) and puts tracefs back as they found it. A live
 * run's file is never touched. Restorers take `restore.lock` in the state directory in turn,
 * so two of them never undo the same file at once; a restorer killed half-way leaves the
 * file as it was, and the next one does it again (every step can run twice).
 *
 * @module
 */
import {
  describeUndo,
  isStateFileName,
  type OwnerStatus,
  ownerStatus,
  parseStateFile,
  procStartTime,
  stateDirectory,
  type StateFile,
} from "./tracefs_state_file.ts";
import { bootId } from "./tracefs_journal.ts";
import { applyUndo } from "./tracefs_undo.ts";

/** What was done with the state file of one run that is gone. */
export interface RestoredRun {
  /** The state file. */
  file: string;
  /** The pid that wrote it. */
  pid: number;
  /** Its command line. */
  command: string;
  /** When it started recording (ISO). */
  since: string;
  /** Why its owner counts as gone. */
  why: Extract<OwnerStatus, { live: false }>["why"];
  /** What was put back, in the order it was done. */
  restored: string[];
  /** Steps that failed (they stay in the file, for the next try). */
  errors: string[];
  /** A file from an earlier boot is removed without writing anything: tracefs started afresh. */
  discarded: boolean;
}

/** A run in progress with changes in place: left alone. */
export interface LiveRun {
  file: string;
  pid: number;
  command: string;
  since: string;
  /** Changes it has in place. */
  changes: number;
}

/** What {@linkcode restoreAbandonedRuns} found and did. */
export interface RestoreOutcome {
  /** The state directory looked in. */
  dir: string;
  /** Runs that were gone, and what was put back for each. */
  restored: RestoredRun[];
  /** Runs still going. */
  live: LiveRun[];
  /** Files that could not be read or parsed (left in place), with why. */
  unreadable: Array<{ file: string; error: string }>;
}

/** Options of {@linkcode restoreAbandonedRuns}. */
export interface RestoreOptions {
  /** State directory; default {@linkcode stateDirectory}. */
  dir?: string;
}

function procStat(pid: number): string | undefined {
  try {
    return Deno.readTextFileSync(`/proc/${pid}/stat`);
  } catch {
    return undefined;
  }
}

/**
 * Puts back the tracefs changes of every run in the state directory whose process is gone,
 * last change first, and removes its file (or keeps the steps that failed in it). A missing
 * state directory means nothing was ever recorded.
 *
 * @example
 * ```ts ignore
 * import { restoreAbandonedRuns } from "./tracefs_restore.ts";
 * for (const r of restoreAbandonedRuns().restored) {
 *   console.log(`pid ${r.pid} (${r.why}): ${r.restored.join(", ")}`);
 * }
 * ```
 */
export function restoreAbandonedRuns(options: RestoreOptions = {}): RestoreOutcome {
  const dir = options.dir ?? stateDirectory();
  const out: RestoreOutcome = { dir, restored: [], live: [], unreadable: [] };
  let names: string[];
  try {
    const all = [...Deno.readDirSync(dir)].map((e) => e.name);
    removeStaleTemporaries(dir, all);
    names = all.filter(isStateFileName);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return out;
    throw new Error(`cannot list the tracefs state files in ${dir}: ${(e as Error).message}`, {
      cause: e,
    });
  }
  if (names.length === 0) return out;
  using _lock = lockDir(dir);
  const boot = bootId();
  for (const name of names.sort()) {
    const file = `${dir}/${name}`;
    let state: StateFile;
    try {
      state = parseStateFile(Deno.readTextFileSync(file), file);
    } catch (e) {
      // Restored and removed by another restorer before this one got the lock.
      if (e instanceof Deno.errors.NotFound) continue;
      out.unreadable.push({ file, error: (e as Error).message });
      continue;
    }
    const owner = ownerStatus(state, procStat(state.pid), boot);
    if (owner.live) {
      out.live.push({
        file,
        pid: state.pid,
        command: state.command,
        since: state.since,
        changes: state.entries.length,
      });
      continue;
    }
    out.restored.push(restoreOne(file, state, owner.why));
  }
  return out;
}

/**
 * Removes `tracefs-<pid>-<start>.json.tmp` files of processes that are gone: a run killed
 * between writing its new state and renaming it over the old one leaves one behind (the
 * state file itself is whole either way).
 */
function removeStaleTemporaries(dir: string, names: string[]): void {
  for (const name of names) {
    const m = /^(tracefs-(\d+)-(\d+)\.json)\.tmp$/.exec(name);
    if (!m) continue;
    const stat = procStat(Number(m[2]));
    const live = stat !== undefined && procStartTime(stat) === m[3];
    if (live) continue;
    try {
      Deno.removeSync(`${dir}/${name}`);
    } catch { /* another restorer took it */ }
  }
}

function restoreOne(
  file: string,
  state: StateFile,
  why: RestoredRun["why"],
): RestoredRun {
  const run: RestoredRun = {
    file,
    pid: state.pid,
    command: state.command,
    since: state.since,
    why,
    restored: [],
    errors: [],
    discarded: why === "previous boot",
  };
  const failed: StateFile["entries"] = [];
  if (!run.discarded) {
    for (const entry of [...state.entries].reverse()) {
      try {
        applyUndo(entry.undo);
        run.restored.push(describeUndo(entry.undo));
      } catch (e) {
        run.errors.push(`${describeUndo(entry.undo)}: ${(e as Error).message}`);
        failed.unshift(entry);
      }
    }
  }
  try {
    if (failed.length === 0) {
      Deno.removeSync(file);
    } else {
      const tmp = `${file}.tmp`;
      Deno.writeTextFileSync(tmp, JSON.stringify({ ...state, entries: failed }, null, 1) + "\n");
      Deno.renameSync(tmp, file);
    }
  } catch (e) {
    run.errors.push(`updating ${file}: ${(e as Error).message}`);
  }
  return run;
}

/** An exclusive lock on `dir/restore.lock`, released on dispose (and by the kernel at exit). */
function lockDir(dir: string): Disposable {
  const path = `${dir}/restore.lock`;
  let f: Deno.FsFile;
  try {
    f = Deno.openSync(path, { read: true, write: true, create: true });
  } catch (e) {
    throw new Error(
      `cannot open ${path} to restore tracefs: ${(e as Error).message} (run as root)`,
      { cause: e },
    );
  }
  f.lockSync(true);
  return {
    [Symbol.dispose]() {
      f.close();
    },
  };
}

/**
 * One line per run saying what was put back, for a command's output.
 *
 * @example
 * ```ts
 * import { formatRestore } from "./tracefs_restore.ts";
 * const lines = formatRestore({ dir: "/run/axl", live: [], unreadable: [], restored: [{
 *   file: "/run/axl/tracefs-7-9.json", pid: 7, command: "axl.ts verify", since: "",
 *   why: "exited", restored: ["/sys/kernel/tracing/current_tracer = nop"], errors: [],
 *   discarded: false }] });
 * console.log(lines[0]); // "tracefs restored after pid 7 (axl.ts verify; exited): 1 change(s) put back"
 * ```
 */
export function formatRestore(o: RestoreOutcome): string[] {
  const lines: string[] = [];
  for (const r of o.restored) {
    const who = `pid ${r.pid} (${r.command || "unknown command"}${
      r.since ? `, started ${r.since}` : ""
    }; ${r.why})`;
    if (r.discarded) {
      lines.push(`tracefs state of ${who} dropped: tracefs was reset by the reboot since`);
      continue;
    }
    lines.push(`tracefs restored after ${who}: ${r.restored.length} change(s) put back`);
    for (const s of r.restored) lines.push(`  ${s}`);
    for (const e of r.errors) lines.push(`  FAILED ${e}`);
  }
  for (const l of o.live) {
    lines.push(
      `run in progress left alone: pid ${l.pid} (${l.command}) with ${l.changes} change(s)`,
    );
  }
  for (const u of o.unreadable) lines.push(`unreadable state file ${u.file}: ${u.error}`);
  return lines;
}
