// verify's Prometheus metrics, from runs judged from the artifacts captured in the VM rig,
// checked with promtool (Prometheus's own parser and linter).
import assert from "node:assert/strict";
import { labelValue, prometheusMetrics } from "../../../../lib/verify/report/metrics.ts";
import { judgeArtifacts } from "../../../../lib/verify/replay.ts";
import { checkMetrics } from "./_validators.ts";

const fixture = (path: string) =>
  new URL(`../../../fixtures/trace/${path}`, import.meta.url).pathname;

const RUNS = [
  "6.12-axl/zero-copy",
  "6.12-axl/copy",
  "6.12-axl/tiny-buffer",
  "5.15-arm64/zero-copy",
];

/** The samples of `text` as `name{labels}` → value. */
function samples(text: string): Map<string, number> {
  return new Map(
    text.split("\n").filter((l) => l && !l.startsWith("#")).map((l) => {
      const at = l.lastIndexOf(" ");
      return [l.slice(0, at), Number(l.slice(at + 1))];
    }),
  );
}

for (const run of RUNS) {
  Deno.test(`prometheusMetrics() of the ${run} run passes promtool check metrics`, async () => {
    const r = await judgeArtifacts(fixture(run));
    const text = prometheusMetrics(r, { timestamp: new Date("2026-01-02T03:04:05Z") });
    const checked = await checkMetrics(text);
    assert.equal(checked.code, 0, checked.output);
    const s = samples(text);
    const labels = `device="${r.axl.environment.device}",kernel="${r.axl.environment.kernel}"`;
    for (const inv of Object.values(r.axl.invariants)) {
      const ones = ["PASS", "FAIL", "SKIP", "INCONCLUSIVE"].filter((status) =>
        s.get(`axl_verify_invariant_status{${labels},invariant="${inv.id}",status="${status}"}`) ===
          1
      );
      assert.deepEqual(ones, [inv.status], inv.id);
    }
    assert.equal(s.get(`axl_verify_status{${labels},status="${r.axl.status}"}`), 1);
    assert.equal(s.get(`axl_verify_frames_traced{${labels}}`), r.axl.frames.traced);
    assert.equal(s.get(`axl_verify_trace_lost_events{${labels}}`), r.axl.trace.lost_events);
    assert.equal(s.get(`axl_verify_timestamp_seconds{${labels}}`), 1767323045);
    assert.equal(
      s.get(`axl_verify_frame_latency_seconds{${labels},percentile="99"}`),
      r.axl.latency.p99! / 1e6,
    );
  });
}

Deno.test("prometheusMetrics() gives the copy control's copy share as a ratio", async () => {
  const r = await judgeArtifacts(fixture("6.12-axl/copy"));
  const s = samples(prometheusMetrics(r));
  assert.equal(
    s.get('axl_verify_copy_share_ratio{device="metis-sim",kernel="6.12.117+deb12-amd64"}'),
    0.03486, // the frames' copies: V8's worker threads' 0.06 % are apart
  );
  assert.equal(
    s.get(
      'axl_verify_invariant_status{device="metis-sim",kernel="6.12.117+deb12-amd64",' +
        'invariant="I4",status="FAIL"}',
    ),
    1,
  );
});

Deno.test("prometheusMetrics() writes a converted value without binary noise", async () => {
  const r = await judgeArtifacts(fixture("6.12-axl/zero-copy"));
  r.axl.perf.available = true;
  r.axl.perf.copy_percent = 0.744;
  r.axl.latency.p99 = 62277.59;
  const text = prometheusMetrics(r);
  assert.match(text, /axl_verify_copy_share_ratio\{[^}]*\} 0\.00744\n/);
  assert.match(text, /axl_verify_frame_latency_seconds\{[^}]*percentile="99"\} 0\.06227759\n/);
});

Deno.test("prometheusMetrics() leaves out what is unknown and escapes label values", async () => {
  const r = await judgeArtifacts(fixture("6.12-axl/zero-copy"));
  r.axl.frames.submitted = null;
  r.axl.perf.available = false;
  r.axl.environment.device = 'metis "sim"\\0\n';
  const text = prometheusMetrics(r);
  const checked = await checkMetrics(text);
  assert.equal(checked.code, 0, checked.output);
  assert.ok(!text.includes("axl_verify_frames_submitted"));
  assert.ok(!text.includes("axl_verify_copy_share_ratio"));
  assert.ok(!text.includes("axl_verify_timestamp_seconds"));
  assert.match(text, /device="metis \\"sim\\"\\\\0\\n"/);
});

Deno.test("checkMetrics() rejects a malformed exposition (the parser is real)", async () => {
  const r = await judgeArtifacts(fixture("6.12-axl/zero-copy"));
  const checked = await checkMetrics(prometheusMetrics(r).replace("} 1\n", "} one\n"));
  assert.notEqual(checked.code, 0);
  assert.match(checked.output, /error while linting|expected|parse/i);
});

Deno.test("labelValue() escapes backslash, quote and newline", () => {
  assert.equal(labelValue('a\\b"c\nd'), 'a\\\\b\\"c\\nd');
});
