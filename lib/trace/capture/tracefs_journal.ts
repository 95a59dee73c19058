/**
 * {@linkcode TracefsJournal}: this process's state file (`tracefs_state_file.ts`). Every
 * change to tracefs is recorded in it before it is made and forgotten once it is undone, so
 * the file always lists what a SIGKILL at that moment would leave behind. The file is
 * replaced atomically (written beside it, then renamed) and removed when nothing is left.
 *
 * Everything here is synchronous: undo steps also run from `unload` handlers.
 *
 * @module
 */
import {
  procStartTime,
  stateDirectory,
  type StateEntry,
  type StateFile,
  stateFileName,
  type UndoStep,
} from "./tracefs_state_file.ts";

/** A recorded change, to hand back to {@linkcode TracefsJournal.forget}. */
export interface JournalRecord {
  readonly id: number;
  readonly entry: StateEntry;
}

/**
 * This process's start time (`/proc/self/stat` field 22).
 *
 * @example
 * ```ts
 * import { selfStartTime } from "./tracefs_journal.ts";
 * console.log(selfStartTime()); // this process's start time in clock ticks after boot, e.g. "351774"
 * ```
 */
export function selfStartTime(): string {
  return procStartTime(Deno.readTextFileSync("/proc/self/stat"));
}

/**
 * The current boot id, or `""` where the kernel has none.
 *
 * @example
 * ```ts
 * import { bootId } from "./tracefs_journal.ts";
 * console.log(typeof bootId()); // "string"
 * ```
 */
export function bootId(): string {
  try {
    return Deno.readTextFileSync("/proc/sys/kernel/random/boot_id").trim();
  } catch {
    return "";
  }
}

function commandLine(): string {
  const main = Deno.mainModule.split("/").pop() ?? "deno";
  return [main, ...Deno.args].join(" ").slice(0, 200);
}

let current: TracefsJournal | undefined;

/**
 * The state file of this process.
 *
 * @example
 * ```ts ignore
 * import { TracefsJournal } from "./tracefs_journal.ts";
 * const j = TracefsJournal.current();
 * const r = j.record("current_tracer=function_graph",
 *   { op: "write", path: "/sys/kernel/tracing/current_tracer", value: "nop" });
 * // ... change current_tracer, later put it back ...
 * j.forget(r);
 * ```
 */
export class TracefsJournal {
  readonly #dir: string;
  readonly #state: StateFile;
  #records: JournalRecord[] = [];
  #nextId = 1;

  private constructor(dir: string) {
    this.#dir = dir;
    this.#state = {
      version: 1,
      pid: Deno.pid,
      startTime: selfStartTime(),
      bootId: bootId(),
      command: commandLine(),
      since: new Date().toISOString(),
      entries: [],
    };
  }

  /**
   * The journal of this process, in {@linkcode stateDirectory} (read again while the
   * journal holds nothing, so a test may point `$AXL_STATE_DIR` elsewhere).
   */
  static current(): TracefsJournal {
    const dir = stateDirectory();
    if (!current || (current.#dir !== dir && current.#records.length === 0)) {
      current = new TracefsJournal(dir);
    }
    return current;
  }

  /** The state file's path. */
  get path(): string {
    return `${this.#dir}/${stateFileName(this.#state.pid, this.#state.startTime)}`;
  }

  /** The changes recorded and not yet forgotten, oldest first. */
  get entries(): StateEntry[] {
    return this.#records.map((r) => r.entry);
  }

  /**
   * Records a change about to be made, with the step that undoes it, and writes the file
   * before returning. Throws (and records nothing) when the file cannot be written: the
   * caller must not make the change then.
   */
  record(what: string, undo: UndoStep): JournalRecord {
    const rec: JournalRecord = { id: this.#nextId++, entry: { what, undo } };
    this.#records.push(rec);
    try {
      this.#save();
    } catch (e) {
      this.#records.pop();
      throw new Error(
        `cannot record the tracefs state before changing it (${this.path}: ` +
          `${(e as Error).message}): run as root, or set AXL_STATE_DIR to a writable directory`,
        { cause: e },
      );
    }
    return rec;
  }

  /**
   * Drops a change that was undone (or never made). Never throws: a file that keeps a
   * forgotten step only makes a later restore write a value that is already there.
   */
  forget(rec: JournalRecord): void {
    const i = this.#records.findIndex((r) => r.id === rec.id);
    if (i < 0) return;
    this.#records.splice(i, 1);
    try {
      if (this.#records.length === 0) Deno.removeSync(this.path);
      else this.#save();
    } catch { /* see above */ }
  }

  #save(): void {
    Deno.mkdirSync(this.#dir, { recursive: true, mode: 0o755 });
    const state: StateFile = { ...this.#state, entries: this.entries };
    const tmp = `${this.path}.tmp`;
    Deno.writeTextFileSync(tmp, JSON.stringify(state, null, 1) + "\n", { mode: 0o644 });
    Deno.renameSync(tmp, this.path);
  }
}
