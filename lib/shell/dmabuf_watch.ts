/**
 * `ls --watch`: the dma-buf listing refreshed like top. Between refreshes it works out
 * which buffers gained or lost an attached device and which appeared or went away, keeps
 * those marks for a few refreshes so people see them, and names the processes holding
 * CPU mappings of dma-bufs (a frame mapped by the CPU is a copy waiting to happen).
 *
 * @module
 */
import {
  type DmaBufEntry,
  type DmaBufListing,
  listDmaBufs,
  listingText,
} from "./dmabuf_listing.ts";
import type { ListOptions } from "./dmabuf_listing.ts";
import { type ParsedArgs, UsageError } from "../commands/spec.ts";
import { parseCount } from "./args.ts";

/** One change between two refreshes. */
export interface WatchChange {
  /** The buffer's inode. */
  inode: number;
  /** What happened: a device attached or detached, the buffer appeared or went away. */
  kind: "attached" | "detached" | "new" | "gone";
  /** The device, for `attached` and `detached`. */
  device?: string;
}

/** A process holding CPU mappings of dma-bufs. */
export interface CpuMapper {
  /** Process id. */
  pid: number;
  /** Command name. */
  comm: string;
  /** Inodes of the buffers it maps. */
  inodes: number[];
  /** Bytes mapped. */
  bytes: number;
}

/** One refresh: what `--json` prints as a line. */
export interface WatchRefresh {
  /** 1 for the first refresh. */
  refresh: number;
  /** Wall-clock time of the refresh (ISO 8601). */
  time: string;
  /** The listing's buffers. */
  buffers: DmaBufEntry[];
  /** Changes since the previous refresh (none on the first). */
  changes: WatchChange[];
  /** Processes holding CPU mappings. */
  cpuMappers: CpuMapper[];
  /** Why attachments are unknown, when bufinfo could not be read. */
  bufinfoProblem?: string;
}

/** How many refreshes a change stays marked in the table. */
export const MARK_REFRESHES = 5;

/**
 * The changes from `prev` to `next` (nothing when there is no `prev`).
 *
 * @example
 * ```ts
 * import { diffListings } from "./dmabuf_watch.ts";
 * const buf = (attached: string[]) => ({ inode: 7, size: 4096, exporter: "system", name: "",
 *   attached, fdRefs: [], mapRefs: [] });
 * const changes = diffListings(
 *   { buffers: [buf([])], processes: [], errors: [] },
 *   { buffers: [buf(["0000:00:03.0"])], processes: [], errors: [] },
 * );
 * console.log(changes[0]?.kind); // "attached"
 * console.log(changes[0]?.device); // "0000:00:03.0"
 * ```
 */
export function diffListings(
  prev: DmaBufListing | undefined,
  next: DmaBufListing,
): WatchChange[] {
  if (!prev) return [];
  const before = new Map(prev.buffers.map((b) => [b.inode, b]));
  const changes: WatchChange[] = [];
  for (const b of next.buffers) {
    const old = before.get(b.inode);
    before.delete(b.inode);
    if (!old) {
      changes.push({ inode: b.inode, kind: "new" });
      for (const device of b.attached ?? []) {
        changes.push({ inode: b.inode, kind: "attached", device });
      }
      continue;
    }
    // a device can attach twice (two attachments, two lines in bufinfo)
    const delta = new Map<string, number>();
    for (const d of b.attached ?? []) delta.set(d, (delta.get(d) ?? 0) + 1);
    for (const d of old.attached ?? []) delta.set(d, (delta.get(d) ?? 0) - 1);
    for (const [device, n] of delta) {
      const kind = n > 0 ? "attached" : "detached";
      for (let i = 0; i < Math.abs(n); i++) changes.push({ inode: b.inode, kind, device });
    }
  }
  for (const inode of before.keys()) changes.push({ inode, kind: "gone" });
  return changes;
}

/**
 * The processes mapping dma-bufs, by pid.
 *
 * @example
 * ```ts
 * import { cpuMappers } from "./dmabuf_watch.ts";
 * const m = cpuMappers({ processes: [], errors: [], buffers: [{ inode: 7, size: 8192,
 *   exporter: "system", name: "", fdRefs: [],
 *   mapRefs: [{ pid: 42, comm: "deno", count: 1, bytes: 8192 }] }] });
 * console.log(m[0]?.pid); // 42
 * console.log(m[0]?.inodes[0]); // 7
 * ```
 */
export function cpuMappers(listing: DmaBufListing): CpuMapper[] {
  const byPid = new Map<number, CpuMapper>();
  for (const b of listing.buffers) {
    for (const r of b.mapRefs) {
      const m = byPid.get(r.pid) ?? { pid: r.pid, comm: r.comm, inodes: [], bytes: 0 };
      m.inodes.push(b.inode);
      m.bytes += r.bytes;
      byPid.set(r.pid, m);
    }
  }
  return [...byPid.values()].sort((a, b) => a.pid - b.pid);
}

/** Keeps each buffer's change marks for {@linkcode MARK_REFRESHES} refreshes. */
export class ChangeMarks {
  readonly #marks = new Map<number, { text: string[]; until: number }>();

  /** Adds the marks of `changes` seen at refresh `refresh`; drops expired ones. */
  update(changes: WatchChange[], refresh: number): void {
    for (const [inode, m] of this.#marks) if (m.until < refresh) this.#marks.delete(inode);
    for (const c of changes) {
      if (c.kind === "gone") continue;
      const text = c.kind === "new" ? "new" : `${c.kind === "attached" ? "+" : "-"}${c.device}`;
      const kept = (this.#marks.get(c.inode)?.text ?? []).filter((t) => t !== text);
      this.#marks.set(c.inode, { text: [...kept, text], until: refresh + MARK_REFRESHES - 1 });
    }
  }

  /** The marks of buffer `inode` (empty when none). */
  of(inode: number): string[] {
    return this.#marks.get(inode)?.text ?? [];
  }
}

/** What {@linkcode watchText} draws with. */
export interface WatchStyle {
  /** Wrap marked rows and the CPU-mapping footer in reverse video. */
  color: boolean;
}

const REVERSE = "\x1b[7m", RESET = "\x1b[0m";

/**
 * The screen of one refresh of `listing`: a title, the listing with a change column, the
 * buffers that went away and the processes holding CPU mappings.
 */
export function watchText(
  listing: DmaBufListing,
  r: WatchRefresh,
  marks: ChangeMarks,
  style: WatchStyle,
): string {
  const table = listingText(listing).split("\n");
  const rows = listing.buffers.length;
  const changeCol = listing.buffers.map((b) => marks.of(b.inode).join(","));
  const width = Math.max("change".length, ...changeCol.map((c) => c.length));
  const lines = [`axl ls --watch  refresh ${r.refresh}  ${r.time}  (Ctrl-C to quit)`, ""];
  for (const [i, line] of table.entries()) {
    if (!rows || i > rows) lines.push(line);
    else if (i === 0) lines.push(`${"change".padEnd(width)}  ${line}`);
    else {
      const mark = changeCol[i - 1]!;
      const row = `${mark.padEnd(width)}  ${line}`;
      lines.push(mark && style.color ? `${REVERSE}${row}${RESET}` : row);
    }
  }
  const gone = r.changes.filter((c) => c.kind === "gone").map((c) => c.inode);
  if (gone.length) lines.push(`gone since the last refresh: inode ${gone.join(", ")}`);
  for (const m of r.cpuMappers) {
    const line = `CPU-MAPPED  ${m.comm}:${m.pid} maps ${m.inodes.length} dma-buf(s) ` +
      `(inode ${m.inodes.join(", ")}), ${m.bytes} bytes`;
    lines.push(style.color ? `${REVERSE}${line}${RESET}` : line);
  }
  return lines.join("\n");
}

/** Options of {@linkcode watchDmaBufs}. */
export interface WatchOptions {
  /** What to list (default: every process). */
  list?: ListOptions;
  /** Milliseconds between refreshes. */
  intervalMs: number;
  /** Stop after this many refreshes (default: until `signal`). */
  count?: number;
  /** One JSON object per refresh instead of a screen. */
  json: boolean;
  /** Draw on the terminal: alternate screen, redraw in place, reverse video marks. */
  terminal: boolean;
  /** Ends the watch (Ctrl-C). */
  signal: AbortSignal;
  /** Writes output. */
  write(text: string): void;
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
  });
}

/**
 * Refreshes the listing until `signal` aborts or `count` refreshes were shown; the
 * terminal is put back (main screen, cursor shown) however it ends. Returns the number
 * of refreshes.
 */
export async function watchDmaBufs(options: WatchOptions): Promise<number> {
  const marks = new ChangeMarks();
  const screen = options.terminal && !options.json;
  let prev: DmaBufListing | undefined;
  let refresh = 0;
  if (screen) options.write("\x1b[?1049h\x1b[?25l");
  try {
    while (!options.signal.aborted && (options.count === undefined || refresh < options.count)) {
      const listing = await listDmaBufs(options.list ?? { all: true });
      if (options.signal.aborted) break;
      refresh++;
      const r: WatchRefresh = {
        refresh,
        time: new Date().toISOString(),
        buffers: listing.buffers,
        changes: diffListings(prev, listing),
        cpuMappers: cpuMappers(listing),
        ...(listing.bufinfoProblem ? { bufinfoProblem: listing.bufinfoProblem } : {}),
      };
      prev = listing;
      marks.update(r.changes, refresh);
      if (options.json) options.write(JSON.stringify(r) + "\n");
      else {
        const text = watchText(listing, r, marks, { color: screen && !Deno.noColor });
        options.write(screen ? `\x1b[H\x1b[2J${text}\n` : `${text}\n\n`);
      }
      if (options.count !== undefined && refresh >= options.count) break;
      await pause(options.intervalMs, options.signal);
    }
  } finally {
    if (screen) options.write("\x1b[?25h\x1b[?1049l");
  }
  return refresh;
}

/** The `ls` flags, read from a parse of {@linkcode lsSpec}'s options. */
export interface LsFlags {
  /** --watch. */
  watch: boolean;
  /** --interval in ms, when given. */
  intervalMs?: number;
  /** --count, when given. */
  count?: number;
  /** What to list: --all, --pid. */
  list: ListOptions;
}

/** parseCount(), its error a UsageError (bad usage: exit 3 with the command's help hint). */
function usageCount(text: string, what: string): number {
  try {
    return parseCount(text, what);
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
}

/** Reads and checks the `ls` flags of `args` for `command` (`ls`, as the CLI and the shell name it). */
export function lsFlags(args: ParsedArgs, command: string): LsFlags {
  const v = args.values as Record<string, string | boolean | undefined>;
  const pid = v.pid as string | undefined;
  const flags: LsFlags = {
    watch: v.watch === true,
    list: {
      all: v.all === true,
      ...(pid === undefined ? {} : { pids: [usageCount(pid, `${command}: --pid`)] }),
    },
  };
  if (v.interval !== undefined) {
    const s = Number(v.interval);
    if (!Number.isFinite(s) || s < 0.05 || s > 3600) {
      throw new UsageError(
        `${command}: --interval takes seconds from 0.05 to 3600, got '${v.interval}'`,
      );
    }
    flags.intervalMs = Math.round(s * 1000);
  }
  if (v.count !== undefined) {
    flags.count = usageCount(v.count as string, `${command}: --count`);
    if (flags.count < 1) throw new UsageError(`${command}: --count must be at least 1`);
  }
  return flags;
}
