/**
 * Runs inside the VM rig (`--vivid`): verify's observer effect. The same workload
 * (`bench/observer_workload.ts`: the builtin frame loop on vivid's capture) runs alone and
 * under verify (`-- COMMAND`, with function_graph, the dma-buf kprobes and perf, as
 * `axl verify` runs it), interleaved, `--rounds` times each; each run reports its delivered
 * fps, process CPU per frame and fence latency. `--split` adds one run under verify without
 * function_graph, one without the dma-buf kprobes and one without perf.
 *
 * ```sh
 * scripts/vm/run.sh --vivid -- deno run --no-check --allow-all bench/observer_vm.ts
 * ```
 *
 * @module
 */
import { parseArgs } from "node:util";
import { join } from "node:path";
import { runVerify } from "../lib/verify/run.ts";
import { commandWorkload } from "../lib/verify/workload.ts";
import type { ObserverSample } from "./observer_workload.ts";

/** What verify leaves out in a run under it (`verify`: nothing, as `axl verify` runs). */
export type ObserverConfig = "verify" | "--no-graph" | "--no-probes" | "--no-perf";

/** The observer-effect runs: alone and under verify. */
export interface ObserverResults {
  frames: number;
  off: ObserverSample[];
  on: (ObserverSample & { status: string; config?: ObserverConfig })[];
}

const { values } = parseArgs({
  args: Deno.args,
  options: {
    frames: { type: "string", default: "300" },
    rounds: { type: "string", default: "2" },
    // One more run under verify without each of its probes, to tell which costs what.
    split: { type: "boolean", default: false },
    out: { type: "string" },
  },
});
const frames = Number(values.frames);
const results = Deno.env.get("AXL_RESULTS") ?? ".";
const tmp = await Deno.makeTempDir({ prefix: "axl-bench-observer-" });
const script = new URL("./observer_workload.ts", import.meta.url).pathname;
const argv = (out: string) => [
  Deno.execPath(),
  "run",
  "--no-check",
  "--allow-all",
  script,
  "--frames",
  String(frames),
  "--out",
  out,
];

async function alone(i: number): Promise<ObserverSample> {
  const out = join(tmp, `off-${i}.json`);
  const st = await new Deno.Command(argv(out)[0]!, { args: argv(out).slice(1) }).output();
  if (!st.success) {
    throw new Error(`workload alone exited ${st.code}: ${new TextDecoder().decode(st.stderr)}`);
  }
  return JSON.parse(await Deno.readTextFile(out));
}

async function verified(
  i: number,
  config: ObserverConfig = "verify",
): Promise<ObserverResults["on"][number]> {
  const out = join(tmp, `on-${i}-${config}.json`);
  const { result } = await runVerify({
    artifacts: join(tmp, `verify-${i}-${config}`),
    workload: commandWorkload(argv(out), { frames: frames + 30 }),
    headline: "bench: observer effect",
    ...(config === "--no-graph" ? { graph: false } : {}),
    ...(config === "--no-probes" ? { probes: false } : {}),
    ...(config === "--no-perf" ? { perf: false } : {}),
  });
  return { ...JSON.parse(await Deno.readTextFile(out)), status: result.axl.status, config };
}

const value: ObserverResults = { frames, off: [], on: [] };
for (let i = 0; i < Number(values.rounds); i++) {
  value.off.push(await alone(i));
  console.error(`observer_vm.ts: off ${JSON.stringify(value.off.at(-1))}`);
  value.on.push(await verified(i));
  console.error(`observer_vm.ts: on ${JSON.stringify(value.on.at(-1))}`);
}
if (values.split) {
  for (const config of ["--no-graph", "--no-probes", "--no-perf"] as const) {
    value.on.push(await verified(0, config));
    console.error(`observer_vm.ts: on ${JSON.stringify(value.on.at(-1))}`);
  }
}
await Deno.writeTextFile(
  values.out ?? `${results}/observer.json`,
  JSON.stringify(value, null, 1) + "\n",
);
await Deno.remove(tmp, { recursive: true });
