// verify's JUnit XML, from runs judged from the artifacts captured in the VM rig (x86_64
// 6.12 and arm64 5.15), validated against the JUnit schema with xmllint.
import assert from "node:assert/strict";
import { escapeXml, junitReport } from "../../../../lib/verify/report/junit.ts";
import { judgeArtifacts } from "../../../../lib/verify/replay.ts";
import type { VerifyResult } from "../../../../lib/verify/schema.ts";
import { validateJunit } from "./_validators.ts";

const fixture = (path: string) =>
  new URL(`../../../fixtures/trace/${path}`, import.meta.url).pathname;

const RUNS = ["6.12-axl/zero-copy", "6.12-axl/copy", "6.12-axl/tiny-buffer", "5.15-arm64/copy"];
const when = new Date("2026-01-02T03:04:05.678Z");

/** Test cases of `xml` as [name, verdict element or "pass"]. */
function cases(xml: string): [string, string][] {
  return [...xml.matchAll(/<testcase name="([^"]*)"[^>]*>\s*<(failure|error|skipped|system-out)/g)]
    .map((m) => [m[1]!, m[2] === "system-out" ? "pass" : m[2]!]);
}

for (const run of RUNS) {
  Deno.test(`junitReport() of the ${run} run validates against the JUnit schema`, async () => {
    const r = await judgeArtifacts(fixture(run));
    const xml = junitReport(r, { timestamp: when, hostname: "jetson-7" });
    const checked = await validateJunit(xml);
    assert.equal(checked.code, 0, checked.output);
    assert.match(checked.output, /validates/);
    const want = Object.values(r.axl.invariants).map((i) => [
      `${i.id} ${i.title}`,
      { PASS: "pass", FAIL: "failure", INCONCLUSIVE: "error", SKIP: "skipped" }[i.status],
    ]);
    assert.deepEqual(cases(xml), want);
  });
}

Deno.test("junitReport() puts a FAIL's summary and diagnosis in its failure, the sources in properties", async () => {
  const r = await judgeArtifacts(fixture("6.12-axl/copy"));
  const xml = junitReport(r, { timestamp: when, hostname: "jetson-7" });
  assert.match(xml, /<testsuite name="axl verify" tests="4" failures="2" errors="1" skipped="0"/);
  assert.match(xml, /timestamp="2026-01-02T03:04:05" hostname="jetson-7"/);
  const i4 = xml.slice(xml.indexOf('<testcase name="I4'));
  assert.match(i4, /<failure type="FAIL" message="__memmove_avx_unaligned_erms at 3\.035% self/);
  assert.match(i4, /failing at or above\)">[^<]*\nevidence source: perf\n/);
  assert.match(i4, /diagnosis: a CPU copy routine is above the self-share threshold/);
  assert.match(i4, /\n {2}fix: {3}make sink and source caps bit-identical/);
  assert.match(xml, /<property name="I4\.source" value="perf"\/>/);
  assert.match(xml, /<property name="I3\.source" value="axl-tracepoints"\/>/);
  assert.match(xml, /<property name="kernel" value="6\.12\.117\+deb12-amd64"\/>/);
  assert.match(xml, /<property name="device" value="metis-sim"\/>/);
});

Deno.test("junitReport() keeps a passing invariant's diagnosis rows in its system-out", async () => {
  const r = await judgeArtifacts(fixture("6.12-axl/zero-copy"));
  r.axl.diagnosis.push(
    {
      id: "planted",
      invariant: "I4",
      symptom: "samples without a symbol reach the copy threshold",
      cause: "a stripped binary",
      fix: "install its debug symbols",
    } as VerifyResult["axl"]["diagnosis"][number],
  );
  const xml = junitReport(r);
  const i4 = xml.slice(
    xml.indexOf('<testcase name="I4'),
    xml.indexOf("</testcase>", xml.indexOf('<testcase name="I4')),
  );
  assert.match(
    i4,
    /<system-out>PASS: [^\n]*\nevidence source: perf\n\ndiagnosis: samples without a symbol/,
  );
  assert.ok(!i4.includes("<failure"));
});

Deno.test("junitReport() reports a SKIP as skipped and reads invariants it does not know", async () => {
  const r = await judgeArtifacts(fixture("6.12-axl/zero-copy"));
  r.axl.invariants.I4 = { ...r.axl.invariants.I4, status: "SKIP", summary: "no perf (--no-perf)" };
  const invariants = r.axl.invariants as unknown as Record<
    string,
    VerifyResult["axl"]["invariants"]["I1"]
  >;
  invariants.I5 = { ...r.axl.invariants.I3, id: "I5" as "I1", title: "a later invariant" };
  const xml = junitReport(r);
  const checked = await validateJunit(xml);
  assert.equal(checked.code, 0, checked.output);
  assert.match(xml, /<testcase name="I4 [^"]*"[^>]*>\s*<skipped>no perf \(--no-perf\)<\/skipped>/);
  assert.match(xml, /<testcase name="I5 a later invariant"/);
  assert.match(xml, /tests="5"/);
});

Deno.test("junitReport() escapes what a workload can put in the result and stays valid", async () => {
  const r = await judgeArtifacts(fixture("6.12-axl/copy"));
  const hostile = `gst "a" <b> & c ]]> \u0001\u001b[31m`;
  r.axl.headline = hostile;
  r.axl.workload.description = hostile;
  r.axl.invariants.I1.summary = hostile;
  const xml = junitReport(r);
  const checked = await validateJunit(xml);
  assert.equal(checked.code, 0, checked.output);
  assert.ok(!xml.includes("<b>") && !xml.includes("\u0001"));
});

Deno.test("validateJunit() rejects what the schema does not allow (the validator is real)", async () => {
  const r = await judgeArtifacts(fixture("6.12-axl/zero-copy"));
  const bad = junitReport(r).replace("<system-out>", '<skipped message="x"/><system-out>');
  const checked = await validateJunit(bad);
  assert.notEqual(checked.code, 0);
  assert.match(checked.output, /skipped.*message.*not allowed|fails to validate/);
});

Deno.test("escapeXml() escapes markup and replaces characters XML cannot carry", () => {
  assert.equal(escapeXml(`<a b="c">&\n`), "&lt;a b=&quot;c&quot;&gt;&amp;&#10;");
  assert.equal(escapeXml("\u0000\u0008ok\t"), "\uFFFD\uFFFDok\t");
});
