/**
 * What a capture wrote, recorded so that a replay can tell a damaged artifacts directory from
 * a run: per raw file its bytes, sha256 and line count, and the counts the judge made of it
 * (trace lines not understood, perf and bufinfo samples); plus the sha256 of `capture.json`'s
 * own content. `runVerify()` adds the record to `capture.json` (key `integrity`) once the
 * verdict is in; `readCapture()` checks it before anything is judged, and `judgeArtifacts()`
 * checks the counts after. Files are hashed as streams: a 1 GB trace is never in memory.
 *
 * A damaged directory is an {@linkcode ArtifactsDamagedError} (exit 3, one line naming the
 * file): never a verdict. Captures made before the record existed are judged with a note and
 * the checks that need no record ({@linkcode MAX_UNPARSED_WITHOUT_RECORD}, no empty trace).
 *
 * @module
 */
import { createHash } from "node:crypto";
import { join } from "node:path";
import { z } from "../_deps.ts";

/** One raw file as the capture wrote it. */
export const FileRecordSchema = z.object({
  bytes: z.number().int().nonnegative(),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  lines: z.number().int().nonnegative(),
  /** perf.script: samples the judge counted; bufinfo_samples.txt: samples taken. */
  samples: z.number().int().nonnegative().optional(),
  /** trace.txt: lines the judge did not understand. */
  unparsed: z.number().int().nonnegative().optional(),
});
/** One raw file as the capture wrote it. */
export type FileRecord = z.infer<typeof FileRecordSchema>;

/** The `integrity` key of `capture.json`. */
export const IntegritySchema = z.object({
  /** sha256 of capture.json's content without this key, then of `files` (`recordSha256()`). */
  capture_sha256: z.string().regex(/^[0-9a-f]{64}$/),
  /** Raw files by name; `perf.script` may be stored gzipped (its content is what counts). */
  files: z.record(z.string(), FileRecordSchema),
});
/** The `integrity` key of `capture.json`. */
export type Integrity = z.infer<typeof IntegritySchema>;

/**
 * Trace lines a replay accepts not understanding when the capture has no record: none. No
 * real capture of the rig has any (ten runs of three kernels), and 2,000 garbled bytes of a
 * 373-line trace made 9, which turned its verdict into FAIL.
 */
export const MAX_UNPARSED_WITHOUT_RECORD = 0;

/** The raw files of a capture, as far as they exist (the verdict files are outputs). */
export const RAW_FILES = [
  "trace.txt",
  "per_cpu_stats.txt",
  "bufinfo_samples.txt",
  "perf.script",
  "perf-record.log",
  "perf-script.err",
  "gst_pads.txt",
] as const;

/** The note of a replay of a capture that has no integrity record. */
export const NO_RECORD_NOTE =
  "no integrity record in capture.json (made by an older axl): the files were checked for " +
  "shape only (capture.json's fields, a non-empty trace, every trace line understood), not " +
  "against what was written";

/**
 * An artifacts directory that is not what its capture wrote: a file missing, cut, grown,
 * changed, or a `capture.json` of the wrong shape. Its message is one line that names the
 * file; a replay exits 3 with it.
 *
 * @example
 * ```ts
 * import { ArtifactsDamagedError } from "./integrity.ts";
 * const e = new ArtifactsDamagedError("trace.txt", "has 10 bytes, 20 recorded");
 * console.log(e.message); // the artifacts are damaged: trace.txt has 10 bytes, 20 recorded
 * ```
 */
export class ArtifactsDamagedError extends Error {
  /** The file at fault, relative to the artifacts directory. */
  readonly file: string;
  /** A replay of damaged artifacts cannot run (exit 3). */
  readonly exitKind = "cannot-run" as const;
  constructor(file: string, what: string) {
    super(`the artifacts are damaged: ${file} ${what}`);
    this.name = "ArtifactsDamagedError";
    this.file = file;
  }
}

/** Opens `dir/name`, or `name.gz` decompressed when only that exists; undefined if neither. */
async function openContent(
  dir: string,
  name: string,
): Promise<ReadableStream<Uint8Array> | undefined> {
  try {
    return (await Deno.open(join(dir, name))).readable;
  } catch (e) {
    if (!(e instanceof Deno.errors.NotFound)) throw e;
  }
  try {
    const gz = (await Deno.open(join(dir, `${name}.gz`))).readable;
    return gz.pipeThrough(new DecompressionStream("gzip")) as ReadableStream<Uint8Array>;
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return undefined;
    throw e;
  }
}

/**
 * Bytes, sha256 and lines of one file's content (a `.gz` twin decompressed), read as a
 * stream; undefined when the file does not exist.
 *
 * @example
 * ```ts
 * import { hashFile } from "./integrity.ts";
 * const dir = await Deno.makeTempDir();
 * await Deno.writeTextFile(`${dir}/a.txt`, "one\ntwo\n");
 * console.log(await hashFile(dir, "a.txt")); // { bytes: 8, sha256: "…", lines: 2 }
 * ```
 */
export async function hashFile(dir: string, name: string): Promise<FileRecord | undefined> {
  const stream = await openContent(dir, name);
  if (!stream) return undefined;
  const hash = createHash("sha256");
  let bytes = 0;
  let lines = 0;
  try {
    for await (const chunk of stream) {
      hash.update(chunk);
      bytes += chunk.length;
      for (let i = chunk.indexOf(10); i >= 0; i = chunk.indexOf(10, i + 1)) lines++;
    }
  } catch (e) {
    // a .gz twin that is not gzip any more
    throw new ArtifactsDamagedError(`${name}.gz`, `cannot be read: ${(e as Error).message}`);
  }
  return { bytes, sha256: hash.digest("hex"), lines };
}

/**
 * sha256 of a capture record: its content without the `integrity` key, then the file records
 * (so that an edited count is an edited `capture.json`).
 */
export function recordSha256(
  record: Record<string, unknown>,
  files: Record<string, FileRecord>,
): string {
  const { integrity: _, ...content } = record;
  return createHash("sha256").update(JSON.stringify(content)).update(JSON.stringify(files))
    .digest("hex");
}

/** What the judge counted, recorded beside the files. */
export interface JudgedCounts {
  unparsed: number;
  perfSamples?: number;
  bufinfoSamples?: number;
}

/** The raw files a capture has finished writing when the judge starts (perf's come later). */
export const WRITTEN_BEFORE_JUDGE: readonly string[] = RAW_FILES.filter((f) =>
  !f.startsWith("perf")
);

/**
 * Hashes those of `names` that exist in `dir`, one after the other.
 *
 * @example
 * ```ts ignore
 * import { hashFiles, WRITTEN_BEFORE_JUDGE } from "./integrity.ts";
 * const early = hashFiles("artifacts/verify", WRITTEN_BEFORE_JUDGE); // while perf script runs
 * ```
 */
export async function hashFiles(
  dir: string,
  names: readonly string[],
): Promise<Record<string, FileRecord>> {
  const out: Record<string, FileRecord> = {};
  for (const name of names) {
    const f = await hashFile(dir, name);
    if (f) out[name] = f;
  }
  return out;
}

/**
 * Hashes the raw files of `dir` (those in `hashed` were hashed already, e.g. while the judge
 * waited for perf script) and the record, and writes `capture.json` again with the
 * `integrity` key.
 *
 * @example
 * ```ts ignore
 * import { writeIntegrity } from "./integrity.ts";
 * await writeIntegrity("artifacts/verify", capture.record, { unparsed: 0, perfSamples: 812 });
 * ```
 */
export async function writeIntegrity(
  dir: string,
  record: object,
  counts: JudgedCounts,
  hashed: Record<string, FileRecord> = {},
): Promise<Integrity> {
  const rest = await hashFiles(dir, RAW_FILES.filter((f) => !(f in hashed)));
  const files: Record<string, FileRecord> = {};
  for (const name of RAW_FILES) {
    const f = hashed[name] ?? rest[name];
    if (!f) continue;
    if (name === "trace.txt") f.unparsed = counts.unparsed;
    if (name === "perf.script" && counts.perfSamples !== undefined) f.samples = counts.perfSamples;
    if (name === "bufinfo_samples.txt" && counts.bufinfoSamples !== undefined) {
      f.samples = counts.bufinfoSamples;
    }
    files[name] = f;
  }
  const { integrity: _, ...content } = record as Record<string, unknown>;
  const integrity: Integrity = { capture_sha256: recordSha256(content, files), files };
  await Deno.writeTextFile(
    join(dir, "capture.json"),
    JSON.stringify({ ...content, integrity }, null, 2) + "\n",
  );
  return integrity;
}

/**
 * Checks the raw files of `dir` against the record (each present, same bytes, lines and
 * sha256) and the record against its own hash; throws {@linkcode ArtifactsDamagedError} on
 * the first difference.
 *
 * @example
 * ```ts ignore
 * import { checkFiles } from "./integrity.ts";
 * await checkFiles("artifacts/verify", record, record.integrity);
 * ```
 */
export async function checkFiles(
  dir: string,
  record: Record<string, unknown>,
  integrity: Integrity,
): Promise<void> {
  if (recordSha256(record, integrity.files) !== integrity.capture_sha256) {
    throw new ArtifactsDamagedError(
      "capture.json",
      "was changed after the capture (its content no longer has the sha256 recorded in it)",
    );
  }
  for (const [name, want] of Object.entries(integrity.files)) {
    const got = await hashFile(dir, name);
    if (!got) throw new ArtifactsDamagedError(name, `is missing (${want.bytes} bytes recorded)`);
    if (got.bytes !== want.bytes) {
      throw new ArtifactsDamagedError(
        name,
        `has ${got.bytes} bytes, ${want.bytes} recorded at capture (${
          got.bytes < want.bytes ? "cut short" : "grown"
        })`,
      );
    }
    if (got.lines !== want.lines) {
      throw new ArtifactsDamagedError(
        name,
        `has ${got.lines} lines, ${want.lines} recorded at capture`,
      );
    }
    if (got.sha256 !== want.sha256) {
      throw new ArtifactsDamagedError(
        name,
        "differs from what the capture wrote (same size, another sha256)",
      );
    }
  }
}

/**
 * Checks what the judge counted against the record (`integrity` present) or against the
 * bounds a capture without one must keep; throws {@linkcode ArtifactsDamagedError}.
 *
 * @example
 * ```ts
 * import { checkCounts } from "./integrity.ts";
 * checkCounts(undefined, { unparsed: 0 }, 120); // a record-less capture within its bounds
 * ```
 */
export function checkCounts(
  integrity: Integrity | undefined,
  counts: JudgedCounts,
  traceBytes: number,
): void {
  if (!integrity) {
    if (traceBytes === 0) {
      throw new ArtifactsDamagedError("trace.txt", "is empty (a capture always records events)");
    }
    if (counts.unparsed > MAX_UNPARSED_WITHOUT_RECORD) {
      throw new ArtifactsDamagedError(
        "trace.txt",
        `has ${counts.unparsed} lines that are not trace lines (no real capture has any; ` +
          "this one has no integrity record to say they were there when it was written)",
      );
    }
    return;
  }
  const differ = (file: string, what: string, got?: number, want?: number) => {
    if (want !== undefined && got !== undefined && got !== want) {
      throw new ArtifactsDamagedError(file, `gives ${got} ${what}, ${want} recorded at capture`);
    }
  };
  differ(
    "trace.txt",
    "lines not understood",
    counts.unparsed,
    integrity.files["trace.txt"]?.unparsed,
  );
  differ(
    "perf.script",
    "perf samples",
    counts.perfSamples,
    integrity.files["perf.script"]?.samples,
  );
  differ(
    "bufinfo_samples.txt",
    "bufinfo samples",
    counts.bufinfoSamples,
    integrity.files["bufinfo_samples.txt"]?.samples,
  );
}
