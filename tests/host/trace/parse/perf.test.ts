import assert from "node:assert/strict";
import { parsePerfScript, summarizePerf } from "../../../../lib/trace/parse/perf_script.ts";
import { choosePerfEvent } from "../../../../lib/trace/capture/perf_record.ts";
import { copyRoutine } from "../../../../lib/trace/parse/copy_routines.ts";
import { ParseError } from "../../../../lib/trace/parse/parse_error.ts";
import { fixture, fixtureText, KERNELS } from "../_fixtures.ts";

async function summary(k: string, name: string) {
  return await summarizePerf(parsePerfScript((await Deno.open(fixture(k, name))).readable, name));
}

for (const k of KERNELS) {
  Deno.test(`summarizePerf() finds glibc's memmove above 1% in the copy capture (${k})`, async () => {
    const s = await summary(k, "perf-copy.script");
    assert.deepEqual(s.events, ["cpu-clock"]);
    assert.ok(s.samples > 500);
    const top = s.copyRoutines[0]!;
    assert.equal(top.symbol, "__memmove_avx_unaligned_erms");
    assert.equal(top.copyRoutine, "glibc-x86_64");
    assert.ok(top.selfPercent > 20, `${top.selfPercent}`);
    assert.equal(s.symbols[0]!.symbol, top.symbol);
  });

  Deno.test(`summarizePerf() finds no copy routine above 1% in the zero-copy capture (${k})`, async () => {
    const s = await summary(k, "perf-zerocopy.script");
    assert.ok(s.samples > 300);
    assert.ok(
      s.copyRoutines.every((c) => c.selfPercent <= 1),
      JSON.stringify(s.copyRoutines.slice(0, 3)),
    );
    const total = s.symbols.reduce((a, x) => a + x.selfPercent, 0);
    assert.ok(Math.abs(total - 100) < 1e-6);
  });

  Deno.test(`choosePerfEvent() picks cpu-clock for the captured TCG perf stat (${k})`, async () => {
    const text = await fixtureText(k, "perf-stat-cycles.txt");
    const c = choosePerfEvent(
      text.replace(/^\s*<not supported>\s+cycles.*$/m, "<not supported>,,cycles,0,100.00,,"),
      0,
    );
    assert.equal(c.event, "cpu-clock");
    assert.match(c.reason, /not supported/);
  });
}

Deno.test("copyRoutine() matches the documented families and nothing else", () => {
  const yes: Array<[string, string]> = [
    ["__memmove_avx_unaligned_erms", "glibc-x86_64"],
    ["__memcpy_evex_unaligned_erms", "glibc-x86_64"],
    ["__memcpy_generic", "glibc-aarch64"],
    ["__memcpy_simd", "glibc-aarch64"],
    ["__memcpy_thunderx2", "glibc-aarch64"],
    ["__memcpy_falkor", "glibc-aarch64"],
    ["__memcpy_a64fx", "glibc-aarch64"],
    ["memcpy_aarch64", "glibc-aarch64"],
    ["memcpy", "libc-generic"],
    ["memcpy@plt", "libc-generic"],
    ["__arch_copy_to_user", "kernel-user-copy"],
    ["_copy_from_user", "kernel-user-copy"],
    ["rep_movs_alternative", "kernel-user-copy"],
    ["copy_page", "kernel-memcpy"],
    ["memcpy_orig", "kernel-memcpy"],
  ];
  for (const [sym, id] of yes) assert.equal(copyRoutine(sym)?.id, id, sym);
  for (
    const sym of [
      "copy_page_range",
      "clear_page_rep",
      "copy_process",
      "memset",
      "main",
      "[unknown]",
    ]
  ) {
    assert.equal(copyRoutine(sym), undefined, sym);
  }
});

Deno.test("parsePerfScript() reads samples without -g and rejects stray frames with the line number", async () => {
  const out = [];
  for await (
    const s of parsePerfScript([
      "app 12/13 [001] 5.000001: 4 cycles:P:  401000 memcpy+0x10 (/lib/libc.so.6)\n",
    ])
  ) out.push(s);
  assert.equal(out[0]!.tid, 13);
  assert.equal(out[0]!.cpu, 1);
  assert.equal(out[0]!.event, "cycles:P");
  assert.equal(out[0]!.frames[0]!.symbol, "memcpy");
  await assert.rejects(async () => {
    for await (const _ of parsePerfScript(["\t 1 f (x)\n"], "p")) { /* drain */ }
  }, (e) => e instanceof ParseError && e.line === 1);
});

Deno.test("choosePerfEvent() keeps cycles when the counter counts", () => {
  assert.equal(choosePerfEvent("812345,,cycles,1000,100.00,,", 0).event, "cycles");
  assert.equal(choosePerfEvent("", 1).event, "cpu-clock");
});
