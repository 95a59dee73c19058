/**
 * Bench section 1, FFI per call on the host: the same shim calls timed from C and from Deno
 * (`bench/ffi_calls.{c,ts}`), and `deno bench` of the shim calls and of trace parsing.
 *
 * @module
 */
import { summarize, type Summary } from "./_stats.ts";
import type { CallResult } from "./ffi_calls.ts";
import { type DenoBenchRow, results, sh, work } from "./_results.ts";

export interface CallComparison {
  call: string;
  calls: number;
  batches: number;
  cNs: Summary;
  denoNs: Summary;
  ratio: number;
}

/** Runs section 1 into `results.ffi` (fewer batches with `quick`). */
export async function ffiSection(quick: boolean): Promise<void> {
  const calls = ["api_version", "clock_ns", "close_badf", "sync_badf", "ioctl_null"];
  const batches = quick ? 7 : 15, k = quick ? 20_000 : 100_000;
  const per = new Map<string, { c: number[]; deno: number[] }>();
  // C and Deno alternate twice so that a burst of load hits both.
  for (let pass = 0; pass < 2; pass++) {
    const c = await sh([
      `${work}/ffi_calls`,
      "--batches",
      String(batches),
      "--calls",
      String(k),
      ...calls,
    ]);
    const d = await sh([
      "deno",
      "run",
      "--allow-ffi",
      "--allow-read",
      "--allow-env",
      "bench/ffi_calls.ts",
      "--batches",
      String(batches),
      "--calls",
      String(k),
      ...calls,
    ]);
    if (c.code !== 0 || d.code !== 0) {
      throw new Error(
        `ffi_calls failed: C exit ${c.code} ${c.stderr} / Deno exit ${d.code} ${d.stderr}`,
      );
    }
    for (const line of [...c.stdout.trim().split("\n"), ...d.stdout.trim().split("\n")]) {
      const r = JSON.parse(line) as CallResult;
      const e = per.get(r.call) ?? { c: [], deno: [] };
      e[r.impl].push(...r.perCallNs);
      per.set(r.call, e);
    }
  }
  const comparisons: CallComparison[] = [...per].map(([call, v]) => {
    const cNs = summarize(v.c), denoNs = summarize(v.deno);
    return { call, calls: k, batches: batches * 2, cNs, denoNs, ratio: denoNs.median / cNs.median };
  });
  // deno bench, for its own view (avg, p75, p99 per iteration).
  const bench = await sh([
    "deno",
    "bench",
    "--json",
    "--allow-ffi",
    "--allow-read",
    "--allow-env",
    "bench/ffi.bench.ts",
    "bench/lib.bench.ts",
    "bench/trace.bench.ts",
  ]);
  let denoBench: DenoBenchRow[] | undefined = undefined;
  if (bench.code === 0) {
    const doc = JSON.parse(bench.stdout) as {
      benches: { name: string; group: string | null; results: { ok?: Record<string, number> }[] }[];
    };
    denoBench = doc.benches.map((b) => ({
      name: b.name,
      group: b.group,
      ...(b.results[0]?.ok
        ? {
          avgNs: b.results[0].ok.avg,
          minNs: b.results[0].ok.min,
          p75Ns: b.results[0].ok.p75,
          p99Ns: b.results[0].ok.p99,
          maxNs: b.results[0].ok.max,
          n: b.results[0].ok.n,
        }
        : { error: JSON.stringify(b.results[0]) }),
    }));
  } else {
    results.problems.push(`deno bench failed (exit ${bench.code}): ${bench.stderr.slice(-500)}`);
  }
  results.ffi = { comparisons, denoBench };
}
