/**
 * The ABI layout check: compiles `ffi/abi/layout.c` to assembly for x86_64 and
 * aarch64 (no target binary runs), reads every size, offset and ioctl number of
 * `linux/axl.h` and `linux/axl_metis.h` (metis.ko's ABI, whose `size_t`/`int` members
 * make 32- and 64-bit layouts differ), and compares them with the committed table `ffi/abi/layout.txt`.
 *
 *   deno run --allow-run --allow-read ffi/abi/check.ts            check
 *   deno run --allow-run --allow-read --allow-write ffi/abi/check.ts --update
 *
 * Exit status 0 when every architecture matches the table, 1 on drift, 3 when a
 * compiler is missing.
 *
 * @module
 */
import { fileURLToPath as fromFileUrl } from "node:url";

/** A target to compile the layout for. */
export interface AbiTarget {
  /** Architecture name, e.g. `aarch64`. */
  arch: string;
  /** C compiler command. */
  cc: string;
}

/** The architectures the project ships for. */
export const ABI_TARGETS: readonly AbiTarget[] = [
  { arch: "x86_64", cc: Deno.build.arch === "x86_64" ? "cc" : "x86_64-linux-gnu-gcc" },
  { arch: "aarch64", cc: Deno.build.arch === "aarch64" ? "cc" : "aarch64-linux-gnu-gcc" },
];

/** Result of {@linkcode checkAbi}. */
export interface AbiReport {
  /** True when every target matched the table. */
  ok: boolean;
  /** One line per difference: `<arch>: <key>: table X, compiled Y`. */
  diffs: string[];
  /** What each target compiled to. */
  layouts: Map<string, Map<string, bigint>>;
}

const ROOT = fromFileUrl(new URL("../../", import.meta.url));
/** The committed table. */
export const TABLE_PATH: string = fromFileUrl(new URL("./layout.txt", import.meta.url));

/** Parses `key value` lines (`#` comments) into a map. */
export function parseTable(text: string): Map<string, bigint> {
  const out = new Map<string, bigint>();
  for (const [i, raw] of text.split("\n").entries()) {
    const line = raw.trim();
    if (!line || line.startsWith("#")) continue;
    const m = /^(.+?)\s+(0x[0-9a-f]+|\d+)$/i.exec(line);
    if (!m) {
      throw new SyntaxError(`${TABLE_PATH}:${i + 1}: expected '<key> <number>', got '${line}'`);
    }
    out.set(m[1]!, BigInt(m[2]!));
  }
  return out;
}

/**
 * Compiles the layout for one target and returns key → value. `source` is the file that
 * emits the markers: `ffi/abi/layout.c` (the uapi) by default, `ffi/abi/shim_layout.c` for the
 * shim's own structs.
 */
export async function compileLayout(
  target: AbiTarget,
  source = "ffi/abi/layout.c",
): Promise<Map<string, bigint>> {
  let out: Deno.CommandOutput;
  try {
    out = await new Deno.Command(target.cc, {
      args: [
        "-S",
        "-o",
        "-",
        "-I",
        `${ROOT}kernel/include/uapi`,
        "-I",
        `${ROOT}ffi/src`,
        `${ROOT}${source}`,
      ],
      stdout: "piped",
      stderr: "piped",
    }).output();
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) {
      throw new Deno.errors.NotFound(
        `no C compiler '${target.cc}' for ${target.arch}: apt-get install gcc-aarch64-linux-gnu ` +
          "libc6-dev-arm64-cross",
      );
    }
    throw err;
  }
  if (!out.success) {
    throw new Error(`${target.cc} failed on ${source}:\n${new TextDecoder().decode(out.stderr)}`);
  }
  const map = new Map<string, bigint>();
  for (const m of new TextDecoder().decode(out.stdout).matchAll(/"->(.+?) \$?(-?\d+)"/g)) {
    // The assembler prints 64-bit constants as signed; read them back as unsigned.
    map.set(m[1]!, BigInt.asUintN(64, BigInt(m[2]!)));
  }
  if (map.size === 0) throw new Error(`${target.cc}: no layout markers in the assembly`);
  return map;
}

/** Compares every target against the table text. */
export async function checkAbi(
  tableText: string,
  targets: readonly AbiTarget[] = ABI_TARGETS,
): Promise<AbiReport> {
  const table = parseTable(tableText);
  const diffs: string[] = [];
  const layouts = new Map<string, Map<string, bigint>>();
  for (const t of targets) {
    const got = await compileLayout(t);
    layouts.set(t.arch, got);
    for (const [key, want] of table) {
      const have = got.get(key);
      if (have === undefined) diffs.push(`${t.arch}: ${key}: in the table, not in layout.c`);
      else if (have !== want) {
        diffs.push(`${t.arch}: ${key}: table ${show(key, want)}, compiled ${show(key, have)}`);
      }
    }
    for (const key of got.keys()) {
      if (!table.has(key)) diffs.push(`${t.arch}: ${key}: compiled, missing from the table`);
    }
  }
  return { ok: diffs.length === 0, diffs, layouts };
}

function show(key: string, v: bigint): string {
  return key.startsWith("ioctl ") ? "0x" + v.toString(16) : String(v);
}

/** Renders a layout as table text. */
export function formatTable(layout: Map<string, bigint>): string {
  const lines = [
    "# The axl uapi layouts (linux/axl.h, linux/axl_metis.h) on every target architecture.",
    "# Checked by ffi/abi/check.ts; regenerate with --update only for a deliberate ABI change.",
  ];
  for (const [k, v] of layout) {
    lines.push(`${k} ${show(k, v)}`);
  }
  return lines.join("\n") + "\n";
}

if (import.meta.main) {
  const update = Deno.args.includes("--update");
  try {
    if (update) {
      const layouts = await Promise.all(ABI_TARGETS.map((t) => compileLayout(t)));
      const text = formatTable(layouts[0]!);
      const report = await checkAbi(text);
      if (!report.ok) {
        console.error("architectures disagree; not writing the table:\n" + report.diffs.join("\n"));
        Deno.exit(1);
      }
      Deno.writeTextFileSync(TABLE_PATH, text);
      console.log(`wrote ${TABLE_PATH}`);
    } else {
      const report = await checkAbi(Deno.readTextFileSync(TABLE_PATH));
      const archs = ABI_TARGETS.map((t) => t.arch).join(", ");
      if (report.ok) {
        console.log(`ABI layout matches ${TABLE_PATH} on ${archs}`);
      } else {
        console.error(`ABI drift against ${TABLE_PATH}:\n  ${report.diffs.join("\n  ")}`);
        Deno.exit(1);
      }
    }
  } catch (err) {
    console.error(`abi check: ${err instanceof Error ? err.message : err}`);
    Deno.exit(3);
  }
}
