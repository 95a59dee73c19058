/**
 * Parsing debugfs `dma_buf/bufinfo`: every live dma-buf with its exporter, inode and the
 * devices attached to it right now. Attachments exist only while a buffer is imported, so
 * this file must be sampled during a run (see {@linkcode BufinfoSampler}).
 *
 * @module
 */
import { ParseError } from "./parse_error.ts";

/** One buffer of a bufinfo snapshot. */
export interface BufinfoBuffer {
  /** Size in bytes. */
  size: number;
  /** `file->f_flags` (hex in the file). */
  flags: number;
  /** `file->f_mode` (hex in the file). */
  mode: number;
  /** File reference count. */
  count: number;
  /** Exporter name, e.g. `system`, `nvmap`. */
  exporter: string;
  /** Inode number; `undefined` on kernels that do not print it. */
  inode?: number;
  /** Buffer name, `""` for `<none>`. */
  name: string;
  /** Names of the attached devices (`dev_name()`), one per attachment. */
  devices: string[];
  /** Fence lines as printed (`write fence:vgem unbound seq 1 signalled`). */
  fences: string[];
  /** 1-based line of the buffer's row. */
  line: number;
}

/** A whole bufinfo file. */
export interface BufinfoSnapshot {
  /** One entry per buffer row, in file order. */
  buffers: BufinfoBuffer[];
  /** From `Total N objects, B bytes`, when present. */
  totalObjects?: number;
  /** Bytes from the same line, when present. */
  totalBytes?: number;
}

const DEFAULT_COLUMNS = ["size", "flags", "mode", "count", "exp_name", "ino", "name"];

/**
 * Parses a bufinfo file. Columns are taken from its header row, so kernels without `ino`
 * (before 5.x) parse too; `Total N devices attached` is checked against the listed devices.
 *
 * @example
 * ```ts
 * import { parseBufinfo } from "./bufinfo.ts";
 * const snap = parseBufinfo([
 *   "Dma-buf Objects:",
 *   "size    \tflags   \tmode    \tcount   \texp_name\tino     \tname",
 *   "01048576\t00000002\t00080007\t00000004\tsystem\t00000014\tframe-3",
 *   "\tAttached Devices:",
 *   "\tvgem",
 *   "\t0000:00:03.0",
 *   "Total 2 devices attached",
 *   "",
 *   "Total 1 objects, 1048576 bytes",
 * ].join("\n"));
 * const b = snap.buffers[0]!;
 * console.log(b.inode); // 14
 * console.log(b.devices.length); // 2
 * console.log(b.exporter); // "system"
 * ```
 */
export function parseBufinfo(text: string, source = "bufinfo", firstLine = 1): BufinfoSnapshot {
  if (typeof text !== "string") throw new TypeError("parseBufinfo(): text must be a string");
  const snap: BufinfoSnapshot = { buffers: [] };
  let columns = DEFAULT_COLUMNS;
  let cur: BufinfoBuffer | undefined;
  let inDevices = false;
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!;
    const line = firstLine + i;
    const t = raw.trim();
    const where = { source, line, text: raw };
    if (t === "" || t === "Dma-buf Objects:") continue;
    if (/^size\s/.test(t) && /exp_name/.test(t)) {
      columns = t.split(/\s+/);
      continue;
    }
    let m = /^Total (\d+) devices attached$/.exec(t);
    if (m) {
      if (!cur) throw new ParseError("device total before any buffer", where);
      if (Number(m[1]) !== cur.devices.length) {
        throw new ParseError(
          `says ${m[1]} devices but ${cur.devices.length} were listed`,
          where,
        );
      }
      inDevices = false;
      continue;
    }
    m = /^Total (\d+) objects, (\d+) bytes$/.exec(t);
    if (m) {
      snap.totalObjects = Number(m[1]);
      snap.totalBytes = Number(m[2]);
      cur = undefined;
      continue;
    }
    if (t === "Attached Devices:") {
      if (!cur) throw new ParseError("'Attached Devices:' before any buffer", where);
      inDevices = true;
      continue;
    }
    if (raw.startsWith("\t") || raw.startsWith(" ")) {
      if (!cur) throw new ParseError("indented line before any buffer", where);
      if (inDevices) cur.devices.push(t);
      else cur.fences.push(t);
      continue;
    }
    cur = bufferRow(raw, columns, where);
    inDevices = false;
    snap.buffers.push(cur);
  }
  return snap;
}

function bufferRow(
  raw: string,
  columns: string[],
  where: { source: string; line: number; text: string },
): BufinfoBuffer {
  // Fields are tab-separated; the name is last and may contain spaces.
  const parts = raw.split("\t").map((s) => s.trim());
  if (parts.length < columns.length) {
    throw new ParseError(`expected ${columns.length} tab-separated columns`, where);
  }
  // 5.15's header has no name column, yet every row still ends with the name.
  const nameAt = columns.includes("name") ? columns.indexOf("name") : columns.length;
  const get = (col: string): string | undefined => {
    const i = col === "name" ? nameAt : columns.indexOf(col);
    if (i === -1 || i >= parts.length) return undefined;
    return i === nameAt ? parts.slice(i).join("\t") : parts[i];
  };
  const num = (col: string, radix: 10 | 16): number => {
    const v = get(col);
    const ok = v !== undefined && (radix === 10 ? /^\d+$/ : /^[0-9a-fA-F]+$/).test(v);
    if (!ok) {
      throw new ParseError(`column '${col}' is not a ${radix === 10 ? "" : "hex "}number`, where);
    }
    return parseInt(v, radix);
  };
  const exporter = get("exp_name");
  if (!exporter) throw new ParseError("empty exp_name column", where);
  const name = get("name") ?? "";
  const buf: BufinfoBuffer = {
    size: num("size", 10),
    flags: num("flags", 16),
    mode: num("mode", 16),
    count: num("count", 10),
    exporter,
    name: name === "<none>" ? "" : name,
    devices: [],
    fences: [],
    line: where.line,
  };
  if (columns.includes("ino")) buf.inode = num("ino", 10);
  return buf;
}
