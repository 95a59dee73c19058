/**
 * Finds and loads `libaxl_shim.so`. Search order:
 *
 * 1. `AXL_SHIM` (a path to the library), when set;
 * 2. `libaxl_shim.so` next to a compiled `axl` binary;
 * 3. the local build, `build/<arch>/libaxl_shim.so`; inside a binary made by
 *    `deno compile --include build/<arch>/libaxl_shim.so` this path is the
 *    embedded copy, which Deno writes to a temporary file before `dlopen` (so
 *    it needs a writable, exec-allowed temporary directory).
 *
 * A library is accepted only if its API version matches this module's and
 * it was built against the uapi ABI this module expects. When nothing loads,
 * {@linkcode ShimLoadError} lists every path tried and why it was rejected.
 *
 * @module
 */
import { symbols } from "./symbols.ts";
import type { ShimSymbols } from "./symbols.ts";

/** Version of the shim ↔ TypeScript contract (`AXL_SHIM_API_VERSION`). */
export const SHIM_API_VERSION = 7;

/**
 * The kernel ABI version (`AXL_ABI_VERSION` of `linux/axl.h`) this code was
 * written for. A host test checks it against the header.
 */
export const EXPECTED_ABI_VERSION = 1;

/** Where a candidate library path came from. */
export type ShimSource = "env" | "beside-binary" | "local-build" | "embedded";

/** One place the loader looked. */
export interface ShimAttempt {
  /** Path that was tried. */
  path: string;
  /** Which rule produced the path. */
  source: ShimSource;
  /** Why it was not used; absent for the one that loaded. */
  reason?: string;
}

/** Thrown when no usable shim was found. */
export class ShimLoadError extends Error {
  /** Exit status 3 (`cannot-run`): the library this machine needs is missing. */
  readonly exitKind = "cannot-run";
  /** Every path tried, in order, with the reason it failed. */
  readonly attempts: readonly ShimAttempt[];

  /** Builds the message from the attempts. */
  constructor(attempts: ShimAttempt[]) {
    const lines = attempts.map((a) => `  ${a.path} (${a.source}): ${a.reason}`);
    const compiled = attempts.some((a) => a.source === "embedded");
    super(
      `cannot load libaxl_shim.so; tried:\n${lines.join("\n")}\n` +
        (compiled
          ? "Put libaxl_shim.so next to the axl binary, or set AXL_SHIM to the library's path."
          : "Build it with 'deno task build', or set AXL_SHIM to the library's path."),
    );
    this.name = "ShimLoadError";
    this.attempts = attempts;
  }
}

/** The symbols every load checks the library with. */
type VersionSymbols = Pick<
  typeof symbols,
  "axl_shim_api_version" | "axl_shim_abi_version" | "axl_shim_const"
>;

/**
 * The trace scanner's symbols only. `dlopen` builds a call stub per symbol: the whole shim
 * takes 7–20 ms to load, this table 1–2 ms, a tenth of judging a small trace.
 */
export const traceScanSymbols = {
  axl_shim_api_version: symbols.axl_shim_api_version,
  axl_shim_abi_version: symbols.axl_shim_abi_version,
  axl_shim_const: symbols.axl_shim_const,
  axl_trace_scan_state_bytes: symbols.axl_trace_scan_state_bytes,
  axl_trace_scan: symbols.axl_trace_scan,
  axl_trace_join_start: symbols.axl_trace_join_start,
  axl_trace_join_add: symbols.axl_trace_join_add,
  axl_trace_join_summary: symbols.axl_trace_join_summary,
  axl_trace_join_read: symbols.axl_trace_join_read,
  axl_trace_join_string: symbols.axl_trace_join_string,
  axl_trace_join_count_only: symbols.axl_trace_join_count_only,
  axl_trace_join_stop: symbols.axl_trace_join_stop,
} as const;

/** A loaded shim: every symbol, or those of a smaller table such as {@linkcode traceScanSymbols}. */
export interface Shim<S extends VersionSymbols = typeof symbols> {
  /** The callable functions. */
  readonly symbols: S extends typeof symbols ? ShimSymbols : Deno.DynamicLibrary<S>["symbols"];
  /** The path the library was loaded from. */
  readonly path: string;
  /** Which rule found it. */
  readonly source: ShimSource;
  /**
   * Looks up a constant from the uapi headers by name (e.g.
   * `"AXL_PIXFMT_NV12"`); throws RangeError for an unknown name.
   */
  constant(name: string): number;
  /** Unloads the library. */
  close(): void;
}

/** The architecture directory name used under `build/`. */
export function shimArch(): string {
  return Deno.build.arch;
}

/**
 * The candidate paths, in search order, for the given environment.
 *
 * @example Inspect where the loader would look
 * ```ts
 * import { shimCandidates } from "./loader.ts";
 * const c = shimCandidates({ env: "/opt/axl/libaxl_shim.so", execPath: "/usr/bin/deno" });
 * console.log(c[0]?.source); // "env"
 * ```
 *
 * `standalone` (default `Deno.build.standalone`) marks the last candidate as the
 * copy embedded in a compiled binary.
 */
export function shimCandidates(
  options: {
    env?: string | undefined;
    execPath?: string;
    moduleUrl?: string;
    standalone?: boolean;
  } = {},
): ShimAttempt[] {
  const out: ShimAttempt[] = [];
  if (options.env) out.push({ path: options.env, source: "env" });
  const exec = options.execPath ?? Deno.execPath();
  const execName = exec.slice(exec.lastIndexOf("/") + 1);
  // Next to the binary only makes sense for a compiled axl, not the deno runtime.
  if (execName !== "deno") {
    out.push({
      path: exec.slice(0, exec.lastIndexOf("/") + 1) + "libaxl_shim.so",
      source: "beside-binary",
    });
  }
  const url = new URL(
    `../build/${shimArch()}/libaxl_shim.so`,
    options.moduleUrl ?? import.meta.url,
  );
  const standalone = options.standalone ?? Deno.build.standalone;
  out.push({
    path: decodeURIComponent(url.pathname),
    source: standalone ? "embedded" : "local-build",
  });
  return out;
}

/** The temporary directory Deno extracts embedded libraries into (`$TMPDIR`, else /tmp). */
export function extractionDir(): string {
  return readEnv("TMPDIR") ?? "/tmp";
}

/**
 * Why `dir` cannot take the extracted library: `undefined` when a file can be
 * created there, else the error (e.g. a read-only file system).
 */
export function extractionProblem(dir: string): string | undefined {
  try {
    Deno.removeSync(Deno.makeTempFileSync({ dir, prefix: ".axl-probe-" }));
    return undefined;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}

/**
 * The reason given when the embedded shim does not load: Deno must copy it to a
 * temporary file first, which fails on read-only or noexec mounts.
 *
 * @example
 * ```ts
 * import { embeddedLoadFailure } from "./loader.ts";
 * const why = embeddedLoadFailure("Read-only file system (os error 30)", "/tmp", "EROFS");
 * console.log(why.includes("TMPDIR")); // true: it says to set TMPDIR to a writable directory
 * ```
 */
export function embeddedLoadFailure(error: string, dir: string, problem?: string): string {
  const where = problem ? `${dir} is not writable (${problem})` : `${dir} may be mounted noexec`;
  return `the embedded copy could not be loaded: ${error}. Deno writes it to a temporary ` +
    `file in $TMPDIR before dlopen, and ${where}. Set TMPDIR to a writable directory on an ` +
    "exec-allowed file system, or put libaxl_shim.so next to the binary, or set AXL_SHIM";
}

function readEnv(name: string): string | undefined {
  try {
    return Deno.env.get(name) || undefined;
  } catch {
    return undefined; // no --allow-env: the override simply does not apply
  }
}

/**
 * Why a library that lacks one of this module's symbols was rejected: a build from older
 * sources. Names the library, its shim API version when it still reports one, the missing
 * symbol, and the command that rebuilds it.
 */
function staleBuild(path: string, missing: string): string {
  let api = "an unknown shim API";
  try {
    const old = Deno.dlopen(path, { axl_shim_api_version: symbols.axl_shim_api_version });
    api = `shim API ${old.symbols.axl_shim_api_version()}`;
    old.close();
  } catch {
    // Too old to report a version: the missing symbol says enough.
  }
  return `stale build: ${path} has ${api} and lacks ${missing} (this code needs shim API ` +
    `${SHIM_API_VERSION}); run 'bash ffi/build.sh'`;
}

/**
 * Opens one candidate: the loaded shim, or why it was rejected (missing file, a stale build,
 * a version mismatch, an embedded copy that cannot be extracted).
 *
 * @example A path that does not exist is rejected, not thrown
 * ```ts
 * import { openCandidate } from "./loader.ts";
 * const why = openCandidate({ path: "/nonexistent/libaxl_shim.so", source: "env" });
 * console.log(why); // "no such file"
 * ```
 */
export function openCandidate(attempt: ShimAttempt): Shim | string;
/** Opens one candidate with only the symbols of `table`. */
export function openCandidate<S extends VersionSymbols>(
  attempt: ShimAttempt,
  table: S,
): Shim<S> | string;
export function openCandidate<S extends VersionSymbols>(
  attempt: ShimAttempt,
  table: S = symbols as unknown as S,
): Shim<S> | string {
  try {
    Deno.statSync(attempt.path);
  } catch (err) {
    return err instanceof Deno.errors.NotFound ? "no such file" : String(err);
  }
  let lib: Deno.DynamicLibrary<VersionSymbols>;
  try {
    lib = Deno.dlopen(attempt.path, table);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    if (attempt.source === "embedded") {
      const dir = extractionDir();
      return embeddedLoadFailure(message, dir, extractionProblem(dir));
    }
    const missing = /Failed to register symbol (\w+)/.exec(message)?.[1];
    if (missing) return staleBuild(attempt.path, missing);
    return `dlopen failed: ${message}`;
  }
  const api = lib.symbols.axl_shim_api_version();
  const abi = lib.symbols.axl_shim_abi_version();
  if (api !== SHIM_API_VERSION || abi !== EXPECTED_ABI_VERSION) {
    lib.close();
    return `version mismatch: ${attempt.path} has API ${api} / uapi ABI ${abi}, this code ` +
      `needs API ${SHIM_API_VERSION} / ABI ${EXPECTED_ABI_VERSION}; run 'bash ffi/build.sh'`;
  }
  const cache = new Map<string, number>();
  const encoder = new TextEncoder();
  return {
    symbols: lib.symbols as Shim<S>["symbols"],
    path: attempt.path,
    source: attempt.source,
    constant(name: string): number {
      let value = cache.get(name);
      if (value === undefined) {
        const v = lib.symbols.axl_shim_const(encoder.encode(name + "\0"));
        if (v === -2n) throw new RangeError(`libaxl_shim.so has no constant named '${name}'`);
        value = Number(v);
        cache.set(name, value);
      }
      return value;
    },
    close(): void {
      lib.close();
    },
  };
}

let loaded: Shim | undefined;

/**
 * Loads the shim once per process and returns it.
 *
 * @example Load the shim and read a constant
 * ```ts ignore
 * import { loadShim } from "./loader.ts";
 * const shim = loadShim();
 * console.log(shim.path, shim.constant("AXL_PIXFMT_NV12"));
 * ```
 */
export function loadShim(): Shim {
  return loaded ??= loadFirst(symbols);
}

let loadedScanner: Shim<typeof traceScanSymbols> | undefined;

/**
 * The trace scanner's part of the shim ({@linkcode traceScanSymbols}), found as
 * {@linkcode loadShim} finds it: the whole shim when it is loaded already, else only these
 * symbols, once per process. Throws {@linkcode ShimLoadError}.
 */
export function loadTraceScanShim(): Shim<typeof traceScanSymbols> {
  return loaded ?? (loadedScanner ??= loadFirst(traceScanSymbols));
}

function loadFirst<S extends VersionSymbols>(table: S): Shim<S> {
  const attempts = shimCandidates({ env: readEnv("AXL_SHIM") });
  for (const attempt of attempts) {
    const result = openCandidate(attempt, table);
    if (typeof result !== "string") return result;
    attempt.reason = result;
  }
  throw new ShimLoadError(attempts);
}
