import assert from "node:assert/strict";
import { traceTargets } from "../../../bench/table.ts";

// The trace section of `deno task bench --preset verify-cost` (one size, 1 GB) on the 2-core build
// machine (tests/fixtures/bench/README.md).
/** The trace section of a run, as traceTargets() takes it. */
type TraceResults = NonNullable<Parameters<typeof traceTargets>[0]>;

const fixture = new URL("../../fixtures/bench/results-trace-1g.json", import.meta.url);

async function trace(): Promise<TraceResults> {
  return JSON.parse(await Deno.readTextFile(fixture)).trace;
}

Deno.test("traceTargets() gives a run of one size each of its rows once", async () => {
  const names = traceTargets(await trace()).map((t) => t.name);
  assert.equal(names.length, 6);
  assert.deepEqual(names, [...new Set(names)]);
  assert.ok(names.includes("trace 1000 MB: facts throughput vs the filtered Python pass"));
});

Deno.test("traceTargets() holds the facts at 1 GB to 10× the filtered Python pass", async () => {
  const row = traceTargets(await trace()).find((t) =>
    t.name === "trace 1000 MB: facts throughput vs the filtered Python pass"
  );
  assert.equal(row?.target, "≥ 10× faster");
  assert.match(row?.value ?? "", /^7\.8× faster/);
  assert.equal(row?.met, false);
});

Deno.test("traceTargets() of a run with two sizes gives the smaller size its own rows", async () => {
  const tr = await trace();
  const gig = tr.sizes[0]!;
  const small = { ...gig, size: 100e6, generated: { ...gig.generated, bytes: 100e6 } };
  const names = traceTargets({ ...tr, sizes: [gig, small] }).map((t) => t.name);
  assert.equal(names.length, 6 + 4);
  assert.equal(names.filter((n) => n.startsWith("trace 100 MB: ")).length, 4);
});
