/**
 * `deno task compile`: single `axl` binaries for x86_64 and aarch64 Linux, each
 * with its architecture's `libaxl_shim.so` embedded, then a smoke run of each.
 *
 * `deno compile` builds on Deno's `denort` runtime for the target, which it
 * normally downloads once into `$DENO_DIR/dl/`. This task finds it first and,
 * when there is none and no download is possible, stops with the exact ways to
 * provide it ({@linkcode denortMissingMessage}).
 *
 *   deno task compile [--target x86_64|aarch64|all] [--out DIR] [--offline]
 *                     [--dry-run] [--no-smoke]
 *
 * denort, per target, in this order: `AXL_DENORT_X86_64` / `AXL_DENORT_AARCH64`
 * (an unzipped denort), `DENORT_BIN` (Deno's own override; it applies to every
 * target, so it is used only for the target its ELF machine matches), the
 * cached `$DENO_DIR/dl/release/v<version>/denort-<triple>.zip`, else a download
 * by `deno compile` itself when the download host answers (never with --offline).
 *
 * Exit codes: 0 built (and smoke-tested), 1 a build or smoke test failed,
 * 3 cannot run (no denort, no shim, bad usage).
 *
 * @module
 */
import { parseArgs } from "node:util";
import denoJson from "../deno.json" with { type: "json" };
import { pathExists } from "../lib/core/path_exists.ts";

/** A target this task builds. */
export interface Target {
  /** `Deno.build.arch` and the `build/<arch>/` directory name. */
  arch: "x86_64" | "aarch64";
  /** The Rust target triple `deno compile --target` takes. */
  triple: string;
  /** ELF `e_machine` of binaries for this target. */
  elfMachine: number;
  /** Environment variable naming an unzipped denort for this target. */
  envVar: string;
}

/** The two Linux targets. */
export const TARGETS: readonly Target[] = [
  {
    arch: "x86_64",
    triple: "x86_64-unknown-linux-gnu",
    elfMachine: 62, // EM_X86_64
    envVar: "AXL_DENORT_X86_64",
  },
  {
    arch: "aarch64",
    triple: "aarch64-unknown-linux-gnu",
    elfMachine: 183, // EM_AARCH64
    envVar: "AXL_DENORT_AARCH64",
  },
];

/**
 * Permissions baked into the binary: all of them. axl reads /proc and /sys
 * (doctor, verify's fdinfo/maps and bufinfo), and Deno (2.9) allows that only
 * with `--allow-all`; granular flags make every such read fail.
 */
export const PERMISSIONS: readonly string[] = ["--allow-all"];

/** The program compiled: the CLI entry point. */
export const ENTRY = "tasks/axl.ts";

/** Where the denort of a target is found. */
export type DenortSource =
  | { kind: "env"; variable: string; path: string }
  | { kind: "cache"; path: string }
  | { kind: "download"; url: string; cachePath: string };

/** Why a denort candidate was not used. */
export interface DenortRejection {
  /** The candidate (a variable, a path or a URL). */
  what: string;
  /** Why it was rejected. */
  reason: string;
}

/** Answer of {@linkcode locateDenort}. */
export interface DenortLookup {
  /** Usable source; absent when none is. */
  source?: DenortSource;
  /** Every candidate tried before it, with the reason. */
  rejected: DenortRejection[];
}

/** File-system access {@linkcode locateDenort} needs; injectable for tests. */
export interface DenortFs {
  /** The first `n` bytes of a file; `undefined` when it cannot be read. */
  head(path: string, n: number): Uint8Array | undefined;
}

/**
 * The path `deno compile` caches a target's denort zip at.
 *
 * @example
 * ```ts
 * import { denortCachePath } from "./compile.ts";
 * const p = denortCachePath("/root/.cache/deno", "2.9.5", "aarch64-unknown-linux-gnu");
 * console.log(p); // "/root/.cache/deno/dl/release/v2.9.5/denort-aarch64-unknown-linux-gnu.zip"
 * ```
 */
export function denortCachePath(denoDir: string, version: string, triple: string): string {
  return `${denoDir.replace(/\/+$/, "")}/dl/release/v${version}/denort-${triple}.zip`;
}

/**
 * The URL `deno compile` downloads a target's denort from.
 *
 * @example
 * ```ts
 * import { denortUrl } from "./compile.ts";
 * console.log(denortUrl("2.9.5", "x86_64-unknown-linux-gnu").endsWith("/v2.9.5/denort-x86_64-unknown-linux-gnu.zip")); // true
 * ```
 */
export function denortUrl(version: string, triple: string): string {
  return `https://dl.deno.land/release/v${version}/denort-${triple}.zip`;
}

/**
 * The ELF machine of an executable's first bytes; `undefined` when not a
 * little-endian 64-bit ELF file.
 *
 * @example
 * ```ts
 * import { elfMachine } from "./compile.ts";
 * const head = new Uint8Array(20);
 * head.set([0x7f, 0x45, 0x4c, 0x46, 2, 1]);
 * head[18] = 183;
 * console.log(elfMachine(head)); // 183
 * ```
 */
export function elfMachine(head: Uint8Array): number | undefined {
  if (head.length < 20) return undefined;
  const magic = head[0] === 0x7f && head[1] === 0x45 && head[2] === 0x4c && head[3] === 0x46;
  if (!magic || head[4] !== 2 || head[5] !== 1) return undefined;
  return head[18]! | (head[19]! << 8);
}

function isZip(head: Uint8Array | undefined): boolean {
  return !!head && head.length >= 4 && head[0] === 0x50 && head[1] === 0x4b && head[2] === 3 &&
    head[3] === 4;
}

function checkBinary(fs: DenortFs, path: string, target: Target): string | undefined {
  const head = fs.head(path, 20);
  if (!head) return "cannot be read";
  const machine = elfMachine(head);
  if (machine === undefined) return "is not a 64-bit ELF executable (unzip the denort-*.zip)";
  if (machine !== target.elfMachine) {
    const other = TARGETS.find((t) => t.elfMachine === machine);
    return `is an ${other?.arch ?? `ELF machine ${machine}`} binary, not ${target.arch}`;
  }
  return undefined;
}

/**
 * Finds the denort for `target` without touching the network: the per-target
 * variable, then `DENORT_BIN` (only when its ELF machine matches), then the
 * cached zip, else a download (`allowDownload`).
 *
 * @example
 * ```ts
 * import { locateDenort, TARGETS } from "./compile.ts";
 * const r = locateDenort(TARGETS[0]!, {
 *   env: {},
 *   denoDir: "/nonexistent",
 *   version: "2.9.5",
 *   allowDownload: false,
 *   fs: { head: () => undefined },
 * });
 * console.log(r.source); // undefined
 * console.log(r.rejected.length); // 3
 * ```
 */
export function locateDenort(target: Target, options: {
  env: Record<string, string | undefined>;
  denoDir: string;
  version: string;
  allowDownload: boolean;
  fs: DenortFs;
}): DenortLookup {
  const rejected: DenortRejection[] = [];
  for (const variable of [target.envVar, "DENORT_BIN"]) {
    const path = options.env[variable];
    if (!path) {
      rejected.push({ what: variable, reason: "not set" });
      continue;
    }
    const problem = checkBinary(options.fs, path, target);
    if (!problem) return { source: { kind: "env", variable, path }, rejected };
    rejected.push({ what: `${variable}=${path}`, reason: problem });
  }
  const cachePath = denortCachePath(options.denoDir, options.version, target.triple);
  const head = options.fs.head(cachePath, 4);
  if (isZip(head)) return { source: { kind: "cache", path: cachePath }, rejected };
  rejected.push({ what: cachePath, reason: head ? "is not a zip file" : "not in the cache" });
  if (options.allowDownload) {
    const url = denortUrl(options.version, target.triple);
    return { source: { kind: "download", url, cachePath }, rejected };
  }
  return { rejected };
}

/**
 * The message when `target` has no denort: what was tried and the ways to
 * provide it.
 *
 * @example
 * ```ts
 * import { denortMissingMessage, TARGETS } from "./compile.ts";
 * const text = denortMissingMessage(TARGETS[1]!, "2.9.5", "/root/.cache/deno", []);
 * console.log(text.includes("AXL_DENORT_AARCH64")); // true
 * ```
 */
export function denortMissingMessage(
  target: Target,
  version: string,
  denoDir: string,
  rejected: readonly DenortRejection[],
): string {
  const zip = `denort-${target.triple}.zip`;
  return [
    `compile: cannot build ${target.triple}: 'deno compile' needs Deno's denort ${version} ` +
    `for that target and none is available here:`,
    ...rejected.map((r) => `  ${r.what}: ${r.reason}`),
    "Provide it in one of these ways, then run 'deno task compile' again:",
    `  1. copy ${zip} (from ${denortUrl(version, target.triple)}, or from the ` +
    `${version} release on Deno's GitHub release page, or from $DENO_DIR/dl/release/v${version}/ ` +
    `of any machine that has run 'deno compile --target ${target.triple}') to`,
    `     ${denortCachePath(denoDir, version, target.triple)}`,
    `  2. or unzip it and set ${target.envVar}=/path/to/denort (DENORT_BIN=/path/to/denort ` +
    "also works when building one target)",
    "  3. or run 'deno task compile' on a machine that can reach dl.deno.land",
    `The denort version must be exactly ${version}, the version of the deno running this task. A full 'deno' ` +
    "binary does not work as denort: the result would be a copy of deno, not axl.",
  ].join("\n");
}

/**
 * The exact `deno compile` arguments for `target`.
 *
 * @example
 * ```ts
 * import { compileArgs, TARGETS } from "./compile.ts";
 * const args = compileArgs(TARGETS[1]!, "build/bin");
 * console.log(args.includes("build/aarch64/libaxl_shim.so")); // true
 * ```
 */
export function compileArgs(target: Target, outDir: string): string[] {
  return [
    "compile",
    "--target",
    target.triple,
    "--output",
    outputPath(target, outDir),
    "--include",
    `build/${target.arch}/libaxl_shim.so`,
    ...PERMISSIONS,
    "--exclude-unused-npm",
    ENTRY,
  ];
}

/** Where the binary for `target` is written: `<outDir>/<arch>/axl`. */
export function outputPath(target: Target, outDir: string): string {
  return `${outDir.replace(/\/+$/, "")}/${target.arch}/axl`;
}

/**
 * How to run a binary built for `target` on this machine: directly when the
 * architectures match, through qemu-user (`qemu-<arch>-static -L <sysroot>`)
 * otherwise; `undefined` when neither works.
 *
 * @example
 * ```ts
 * import { runner, TARGETS } from "./compile.ts";
 * const r = runner(TARGETS[1]!, "x86_64", () => true);
 * console.log(r?.[0]); // "/usr/bin/qemu-aarch64-static"
 * ```
 */
export function runner(
  target: Target,
  hostArch: string,
  exists: (path: string) => boolean,
): string[] | undefined {
  if (target.arch === hostArch) return [];
  const qemu = `/usr/bin/qemu-${target.arch}-static`;
  const sysroot = `/usr/${target.arch}-linux-gnu`;
  return exists(qemu) && exists(sysroot) ? [qemu, "-L", sysroot] : undefined;
}

/**
 * Judges the smoke run's `--version` output: `undefined` when it is this axl,
 * else why not.
 *
 * @example
 * ```ts
 * import { smokeVerdict } from "./compile.ts";
 * console.log(smokeVerdict("axl 0.1.0\n", 0, "0.1.0")); // undefined
 * console.log(smokeVerdict("deno 2.9.5 (stable)\n", 0, "0.1.0")?.includes("full deno")); // true
 * ```
 */
export function smokeVerdict(stdout: string, code: number, version: string): string | undefined {
  const first = stdout.split("\n")[0]?.trim() ?? "";
  if (code === 0 && first === `axl ${version}`) return undefined;
  if (/^deno \d/.test(first)) {
    return "the binary runs as the deno CLI: the denort used was a full deno binary, not denort";
  }
  return `'--version' printed '${first}' with exit code ${code}, expected 'axl ${version}'`;
}

// ---- the task ---------------------------------------------------------------

const decoder = new TextDecoder();

function head(path: string, n: number): Uint8Array | undefined {
  try {
    using f = Deno.openSync(path, { read: true });
    const buf = new Uint8Array(n);
    const got = f.readSync(buf);
    return got === null ? new Uint8Array() : buf.subarray(0, got);
  } catch {
    return undefined;
  }
}

async function denoDir(): Promise<string> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json"],
    stdout: "piped",
    stderr: "null",
    env: { NO_COLOR: "1" },
  }).output();
  const dir = out.success ? JSON.parse(decoder.decode(out.stdout)).denoDir : undefined;
  if (typeof dir !== "string") throw new Error("'deno info --json' did not report the DENO_DIR");
  return dir;
}

async function reachable(url: string): Promise<string | undefined> {
  try {
    const res = await fetch(url, { method: "HEAD", signal: AbortSignal.timeout(10_000) });
    await res.body?.cancel();
    return res.ok ? undefined : `HTTP ${res.status}`;
  } catch (err) {
    const cause = err instanceof Error && err.cause instanceof Error
      ? `: ${err.cause.message}`
      : "";
    return `${err instanceof Error ? err.message : err}${cause}`;
  }
}

async function smoke(target: Target, binary: string): Promise<string | undefined> {
  const prefix = runner(target, Deno.build.arch, pathExists);
  if (!prefix) {
    console.log(`compile: ${binary}: not run (no qemu-${target.arch}-static here)`);
    return undefined;
  }
  const [cmd, ...args] = [...prefix, binary, "--version"];
  const out = await new Deno.Command(cmd!, {
    args,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    signal: AbortSignal.timeout(120_000),
  }).output();
  const verdict = smokeVerdict(decoder.decode(out.stdout), out.code, denoJson.version);
  if (!verdict) console.log(`compile: ${binary} --version: axl ${denoJson.version}`);
  return verdict;
}

/** Runs the task; resolves to the exit code. */
export async function main(argv: string[]): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      options: {
        target: { type: "string", default: "all" },
        out: { type: "string", default: "build/bin" },
        offline: { type: "boolean", default: false },
        "dry-run": { type: "boolean", default: false },
        "no-smoke": { type: "boolean", default: false },
        help: { type: "boolean", short: "h", default: false },
      },
    }));
  } catch (err) {
    console.error(`compile: ${err instanceof Error ? err.message : err}`);
    return 3;
  }
  if (values.help) {
    console.log(
      "Usage: deno task compile [--target x86_64|aarch64|all] [--out DIR] [--offline] " +
        "[--dry-run] [--no-smoke]",
    );
    return 0;
  }
  const targets = values.target === "all"
    ? TARGETS
    : TARGETS.filter((t) => t.arch === values.target || t.triple === values.target);
  if (!targets.length) {
    console.error(`compile: unknown --target '${values.target}' (x86_64, aarch64 or all)`);
    return 3;
  }
  const version = Deno.version.deno;
  const dir = await denoDir();
  const env = Deno.env.toObject();
  let status = 0;
  for (const target of targets) {
    const shim = `build/${target.arch}/libaxl_shim.so`;
    if (!pathExists(shim)) {
      console.error(`compile: ${shim} is missing: run 'deno task build' first`);
      return 3;
    }
    const found = locateDenort(target, {
      env,
      denoDir: dir,
      version,
      allowDownload: !values.offline,
      fs: { head },
    });
    let source = found.source;
    if (source?.kind === "download") {
      const problem = await reachable(source.url);
      if (problem) {
        found.rejected.push({ what: source.url, reason: `unreachable (${problem})` });
        source = undefined;
      }
    } else if (!source && values.offline) {
      found.rejected.push({ what: "download", reason: "not tried (--offline)" });
    }
    if (!source) {
      console.error(denortMissingMessage(target, version, dir, found.rejected));
      return 3;
    }
    const args = compileArgs(target, values.out);
    const childEnv: Record<string, string> = { NO_COLOR: "1" };
    if (source.kind === "env") childEnv.DENORT_BIN = source.path;
    console.log(
      `compile: ${target.triple}: denort from ${
        source.kind === "env"
          ? `${source.variable}=${source.path}`
          : source.kind === "cache"
          ? source.path
          : source.url
      }`,
    );
    console.log(
      `compile: ${source.kind === "env" ? `DENORT_BIN=${source.path} ` : ""}deno ${args.join(" ")}`,
    );
    if (values["dry-run"]) continue;
    Deno.mkdirSync(outputPath(target, values.out).replace(/\/axl$/, ""), { recursive: true });
    // DENORT_BIN applies to every target: set it only for the target it was chosen for.
    const inherited = { ...env };
    delete inherited.DENORT_BIN;
    const result = await new Deno.Command(Deno.execPath(), {
      args,
      env: { ...inherited, ...childEnv },
      clearEnv: true,
      stdin: "null",
      stdout: "inherit",
      stderr: "inherit",
    }).spawn().status;
    if (!result.success) {
      console.error(`compile: deno compile for ${target.triple} failed (exit ${result.code})`);
      status = 1;
      continue;
    }
    if (values["no-smoke"]) continue;
    const verdict = await smoke(target, outputPath(target, values.out));
    if (verdict) {
      console.error(`compile: ${outputPath(target, values.out)}: ${verdict}`);
      status = 1;
    }
  }
  return status;
}

if (import.meta.main) {
  Deno.exit(await main(Deno.args));
}
