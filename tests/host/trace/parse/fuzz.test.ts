// Seeded fuzzing of every parser over mutated VM captures (truncations, byte flips, line
// swaps, duplicated and deleted lines): each input either parses or fails with ParseError
// carrying a line number inside the input. Anything else is a bug.
import assert from "node:assert/strict";
import { parseFtrace } from "../../../../lib/trace/parse/ftrace.ts";
import { parsePerCpuStats } from "../../../../lib/trace/parse/per_cpu_stats.ts";
import { parseBufinfoSamples } from "../../../../lib/trace/parse/bufinfo_summary.ts";
import { parseDmaBufMaps } from "../../../../lib/trace/parse/dmabuf_maps.ts";
import { parsePerfScript } from "../../../../lib/trace/parse/perf_script.ts";
import { ParseError } from "../../../../lib/trace/parse/parse_error.ts";
import { fixtureText } from "../_fixtures.ts";
import { mulberry32 } from "../../_rng.ts";
import { envCount } from "../../../_env_count.ts";

const FLIP_BYTES = [
  0x00,
  0x09,
  0x0a,
  0x20,
  0x23,
  0x28,
  0x29,
  0x2d,
  0x2e,
  0x3a,
  0x3d,
  0x5b,
  0x5d,
  0x7b,
  0x7c,
  0x7d,
  0xff,
];

function mutate(text: string, rand: () => number): string {
  const pick = (n: number) => Math.floor(rand() * n);
  let lines = text.split("\n");
  const ops = 1 + pick(4);
  for (let i = 0; i < ops; i++) {
    switch (pick(6)) {
      case 0: { // truncate anywhere
        const all = lines.join("\n");
        lines = all.slice(0, pick(all.length + 1)).split("\n");
        break;
      }
      case 1: { // flip bytes in one line
        const l = pick(lines.length);
        const chars = [...(lines[l] ?? "")];
        for (let k = 0; k < 1 + pick(3) && chars.length; k++) {
          chars[pick(chars.length)] = String.fromCharCode(FLIP_BYTES[pick(FLIP_BYTES.length)]!);
        }
        lines[l] = chars.join("");
        break;
      }
      case 2: { // swap two lines
        const a = pick(lines.length), b = pick(lines.length);
        [lines[a], lines[b]] = [lines[b]!, lines[a]!];
        break;
      }
      case 3: // delete a line
        lines.splice(pick(lines.length), 1);
        break;
      case 4: { // duplicate a line
        const l = pick(lines.length);
        lines.splice(l, 0, lines[l] ?? "");
        break;
      }
      case 5: { // cut a line short
        const l = pick(lines.length);
        lines[l] = (lines[l] ?? "").slice(0, pick((lines[l] ?? "").length + 1));
        break;
      }
    }
  }
  return lines.join("\n");
}

async function expectParsesOrParseError(
  label: string,
  input: string,
  run: () => Promise<unknown> | unknown,
) {
  try {
    await run();
  } catch (e) {
    if (!(e instanceof ParseError)) {
      throw new Error(
        `${label}: ${(e as Error)?.name}: ${(e as Error)?.message}\n--- input ---\n${
          input.slice(0, 2000)
        }`,
        { cause: e },
      );
    }
    const lines = input.split("\n").length;
    assert.ok(e.line >= 1 && e.line <= lines + 1, `${label}: line ${e.line} outside 1..${lines}`);
    assert.match(e.message, /^[^:]+:\d+: /, label);
  }
}

async function drain<T>(it: AsyncIterable<T>): Promise<number> {
  let n = 0;
  for await (const _ of it) n++;
  return n;
}

const CASES: Array<[string, string, (text: string) => Promise<unknown> | unknown]> = [
  ["6.12-std", "events.trace", (t) => drain(parseFtrace([t]))],
  ["6.12-rt", "events.trace", (t) => drain(parseFtrace([t]))],
  ["6.12-std", "instance-graph.trace", (t) => drain(parseFtrace([t]))],
  ["6.12-rt", "toplevel-graph-abstime-proc.trace", (t) => drain(parseFtrace([t]))],
  ["6.12-std", "overrun-pipe.trace", (t) => drain(parseFtrace([t]))],
  [
    "6.12-std",
    "overrun.stats",
    (t) => t.split(/^### cpu\d+$/m).filter((x) => x.trim()).map((x) => parsePerCpuStats(x)),
  ],
  ["6.12-std", "bufinfo-samples.txt", (t) => parseBufinfoSamples([t])],
  ["6.12-rt", "maps-copy.txt", (t) => parseDmaBufMaps(t)],
];

const ROUNDS = envCount("AXL_FUZZ_ROUNDS", 300);

for (const [kernel, name, run] of CASES) {
  Deno.test(`parsers survive ${ROUNDS} seeded mutations of ${kernel}/${name}`, async () => {
    const text = await fixtureText(kernel, name);
    for (let seed = 1; seed <= ROUNDS; seed++) {
      const input = mutate(text, mulberry32(seed * 7919 + name.length));
      await expectParsesOrParseError(`${kernel}/${name} seed ${seed}`, input, () => run(input));
    }
  });
}

Deno.test("parsePerfScript() survives seeded mutations of a perf capture", async () => {
  // The capture is large: mutate its first 400 lines.
  const text = (await fixtureText("6.12-std", "perf-copy.script")).split("\n").slice(0, 400).join(
    "\n",
  );
  for (let seed = 1; seed <= Math.ceil(ROUNDS / 3); seed++) {
    const input = mutate(text, mulberry32(seed));
    await expectParsesOrParseError(
      `perf seed ${seed}`,
      input,
      () => drain(parsePerfScript([input])),
    );
  }
});

Deno.test("the strict ftrace parser rejects some mutations: the fuzzer is not vacuous", async () => {
  const text = await fixtureText("6.12-std", "instance-graph.trace");
  let rejected = 0;
  for (let seed = 1; seed <= 100; seed++) {
    try {
      await drain(parseFtrace([mutate(text, mulberry32(seed))]));
    } catch (e) {
      if (e instanceof ParseError) rejected++;
    }
  }
  assert.ok(rejected > 5, `only ${rejected} of 100 mutations were rejected`);
});
