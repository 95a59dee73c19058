/**
 * The README's benchmark table, made from one bench run's `results.json`: each target with what
 * the run measured, its bound and whether it was met, under a line naming the command, the date
 * and the host's load. The run's JSON is kept beside it (`bench/last-run.json`) so that a host
 * test can check that the table is still the one that run gives.
 *
 * ```sh
 * deno run -A bench/readme_table.ts [RESULTS] [--check]
 * ```
 *
 * Without `--check` it keeps RESULTS' targets, command, load and problems (default
 * `bench/results.json`) in `bench/last-run.json`,
 * rewrites the block between the markers in README.md and runs `deno fmt` on it. With `--check`
 * it exits 1 when README.md's block is not the table `bench/last-run.json` gives.
 *
 * @module
 */
import { parseArgs } from "node:util";
import { type BenchResults, root, type Target } from "./_results.ts";

/** Where the block starts and ends in README.md. */
export const BEGIN =
  "<!-- bench-targets: made by bench/readme_table.ts from bench/last-run.json -->";
export const END = "<!-- /bench-targets -->";

const README = `${root}/README.md`;
const LAST_RUN = `${root}/bench/last-run.json`;

/** The fields of a run the table reads; older runs lack `command`. */
export type RunForTable = Pick<BenchResults, "startedAt" | "host" | "noise" | "targets"> & {
  command?: string;
};

/** A table cell: pipes escaped, line breaks joined. */
function cell(text: string): string {
  return text.replace(/\s*\n\s*/g, " ").replace(/\|/g, "\\|");
}

function status(t: Target): string {
  return t.met === null ? "n/a" : t.met ? "met" : "**missed**";
}

/**
 * The Markdown block for one run, markers included.
 *
 * @example
 * ```ts
 * import { BEGIN, renderTable } from "./readme_table.ts";
 * const md = renderTable({
 *   startedAt: "2026-11-27T10:00:00.000Z",
 *   host: { deno: "2.0.0", arch: "x86_64", cpus: 2, kernel: "6.1" },
 *   noise: { "ffi start": { loadavg: [0.5, 0.4, 0.3], otherQemu: 0 } },
 *   targets: [{ name: "start-up", target: "< 150 ms", value: "31 ms", met: true }],
 * });
 * if (!md.startsWith(BEGIN) || !md.includes("| start-up | 31 ms | < 150 ms | met |")) {
 *   throw new Error(md);
 * }
 * ```
 */
export function renderTable(run: RunForTable): string {
  const loads = Object.values(run.noise).map((n) => n.loadavg[0] ?? 0);
  const qemu = Math.max(
    0,
    ...Object.values(run.noise).map((n) => Math.max(n.otherQemu, n.otherQemuDuring ?? 0)),
  );
  const load = loads.length
    ? `host load ${Math.min(...loads).toFixed(1)}–${Math.max(...loads).toFixed(1)}`
    : "host load not recorded";
  const met = run.targets.filter((t) => t.met === true).length;
  const judged = run.targets.filter((t) => t.met !== null).length;
  const lines = [
    BEGIN,
    "",
    `From one run of \`${run.command ?? "deno task bench"}\` started ${
      run.startedAt.slice(0, 16).replace("T", " ")
    } UTC (Deno ${run.host.deno}, ${run.host.arch}, ${run.host.cpus} CPUs, ${load}, ` +
    `at most ${qemu} QEMU process${
      qemu === 1 ? "" : "es"
    } running): ${met} of ${judged} targets met.`,
    "",
    "| target | measured | bound | |",
    "| --- | --- | --- | --- |",
    ...run.targets.map((t) =>
      `| ${cell(t.name)} | ${cell(t.value)} | ${cell(t.target)} | ${status(t)} |`
    ),
    "",
    END,
  ];
  return lines.join("\n");
}

/** The block between the markers of `text` (markers included), or why there is none. */
export function findBlock(text: string): { start: number; end: number } {
  const start = text.indexOf(BEGIN);
  const endAt = text.indexOf(END);
  if (start < 0 || endAt < start) {
    throw new Error(
      `README.md has no benchmark block: add the two lines '${BEGIN}' and '${END}' where the table goes`,
    );
  }
  return { start, end: endAt + END.length };
}

/**
 * A block's content without its layout: `deno fmt` pads table cells and dashes and rewraps
 * prose, so the check compares cells and words, not spaces and line breaks.
 */
export function unpadded(block: string): string {
  const out: string[] = [];
  let prose: string[] = [];
  const flush = () => {
    const text = prose.join(" ").replace(/\s+/g, " ").trim();
    if (text) out.push(text);
    prose = [];
  };
  for (const line of block.split("\n")) {
    if (!line.startsWith("|")) {
      prose.push(line);
      continue;
    }
    flush();
    out.push(line.split(/(?<!\\)\|/).map((c) => c.trim().replace(/^-+$/, "-")).join("|"));
  }
  flush();
  return out.join("\n");
}

/**
 * What `bench/last-run.json` keeps of a run: the fields the table reads and the run's problems,
 * with the checkout's own path written as `.` (the full results stay in `bench/results.json`).
 */
function keptRun(run: RunForTable & { finishedAt?: string; problems?: string[] }): string {
  const { command, startedAt, finishedAt, host, noise, targets, problems } = run;
  const kept = { command, startedAt, finishedAt, host, noise, targets, problems };
  return JSON.stringify(kept, null, 2).replaceAll(`${root}/`, "./") + "\n";
}

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({
    args: Deno.args,
    allowPositionals: true,
    options: {
      check: { type: "boolean", default: false },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  if (values.help) {
    console.log(
      "usage: deno run -A bench/readme_table.ts [RESULTS] [--check]\n" +
        "Writes README.md's benchmark table from RESULTS (default bench/results.json) and keeps\n" +
        "the run as bench/last-run.json; --check exits 1 when the table is not that run's.",
    );
    return 0;
  }
  const readme = await Deno.readTextFile(README);
  const { start, end } = findBlock(readme);
  if (values.check) {
    const run = JSON.parse(await Deno.readTextFile(LAST_RUN)) as RunForTable;
    if (unpadded(readme.slice(start, end)) !== unpadded(renderTable(run))) {
      console.error(
        "README.md's benchmark table is not the one bench/last-run.json gives: " +
          "run deno run -A bench/readme_table.ts bench/last-run.json",
      );
      return 1;
    }
    return 0;
  }
  const from = positionals[0] ?? `${root}/bench/results.json`;
  let text: string;
  try {
    text = await Deno.readTextFile(from);
  } catch (e) {
    console.error(
      `bench: cannot read ${from} (${(e as Error).message}): run deno task bench first`,
    );
    return 2;
  }
  const run = JSON.parse(text) as RunForTable;
  if (!Array.isArray(run.targets) || run.targets.length === 0) {
    console.error(
      `bench: ${from} has no targets: run deno task bench without --only, or with the sections that have targets`,
    );
    return 2;
  }
  if (from !== LAST_RUN) await Deno.writeTextFile(LAST_RUN, keptRun(run));
  await Deno.writeTextFile(README, readme.slice(0, start) + renderTable(run) + readme.slice(end));
  const fmt = await new Deno.Command(Deno.execPath(), { args: ["fmt", "-q", README, LAST_RUN] })
    .output();
  if (fmt.code !== 0) {
    console.error(`bench: deno fmt README.md failed: ${new TextDecoder().decode(fmt.stderr)}`);
    return 1;
  }
  console.log(`README.md: ${run.targets.length} targets from ${from}`);
  return 0;
}

if (import.meta.main) Deno.exit(await main());
