// What report.html says beside the verdict: the reason, the notes, a chain badge in step with
// the status, fix links into an appendix of the cited docs, a frame timeline one can read. On
// judged runs of real captures (tests/fixtures/trace/).
import assert from "node:assert/strict";
import {
  escapeHtml,
  frameTimelineSvg,
  renderHtmlReport,
} from "../../../../lib/verify/report/html.ts";
import { DOC_SECTIONS } from "../../../../lib/verify/report/_doc_sections.ts";
import { judgeArtifacts } from "../../../../lib/verify/replay.ts";
import { citedSections } from "../../../../scripts/gen-doc-sections.ts";
import { judgedRun } from "../_runs.ts";

const gst = (name: string) =>
  new URL(`../../../fixtures/trace/6.12-gst/${name}`, import.meta.url).pathname;

Deno.test("renderHtmlReport() shows the reason and the notes outside the raw capture JSON", async () => {
  const r = await judgedRun("copy");
  const html = renderHtmlReport(r);
  const body = html.slice(0, html.indexOf("<h2>Capture</h2>"));
  assert.match(body, /<p class="reason"><b>FAIL:<\/b> /);
  assert.ok(r.axl.notes.length > 0);
  for (const n of r.axl.notes) {
    assert.ok(body.includes(`<li>${escapeHtml(n)}</li>`), n);
  }
});

// vivid → vivid judged without accepting vb2's exporter: I2 FAILs, yet the chain is whole; the
// tiny-buffer run lost events: INCONCLUSIVE, chain whole.
for (
  const [name, judged, status] of [
    ["vivid-to-vivid", () => judgeArtifacts(gst("vivid-to-vivid")), "FAIL"],
    ["tiny-buffer", () => judgedRun("tiny-buffer"), "INCONCLUSIVE"],
  ] as const
) {
  Deno.test(`renderHtmlReport() shows no green 'whole' chain beside the ${status} of ${name}`, async () => {
    const r = await judged();
    assert.equal(r.axl.status, status);
    assert.equal(r.axl.chain?.status, "whole");
    const html = renderHtmlReport(r);
    const chain = /<h2>Chain <span class="badge" style="background:(#[0-9a-f]+)">([^<]*)<\/span>/
      .exec(html);
    assert.ok(chain, "a chain heading");
    assert.notEqual(chain[1], "#1a7f37", "green");
    assert.equal(chain[2], `whole, but the run is ${status}`);
  });
}

Deno.test("renderHtmlReport() links every fix to a section of the docs carried in the page", async () => {
  const r = await judgedRun("copy");
  const html = renderHtmlReport(r);
  assert.ok(r.axl.diagnosis.length > 0);
  const links = [...html.matchAll(/<a href="#([^"]+)">/g)].map((m) => m[1]!);
  assert.equal(links.length, r.axl.diagnosis.length);
  for (const id of links) assert.ok(html.includes(`<section id="${id}">`), `no section ${id}`);
  assert.doesNotMatch(html.replace(/<section[\s\S]*?<\/section>/g, ""), /<small>docs\/design\.md#/);
});

Deno.test("DOC_SECTIONS holds every cited docs section as the docs have it now", async () => {
  assert.deepEqual(
    DOC_SECTIONS,
    await citedSections(),
    "run: deno run -A scripts/gen-doc-sections.ts",
  );
});

Deno.test("frameTimelineSvg() draws each frame from its own start, wide enough to read", async () => {
  const r = await judgedRun("zero-copy");
  const svg = frameTimelineSvg(r.axl.frames.list);
  const widths = [...svg.matchAll(/<rect class="seg" x="[\d.]+" y="[\d.]+" width="([\d.]+)"/g)]
    .map((m) => Number(m[1]));
  const rows = new Set([...svg.matchAll(/<title>frame (\d+) /g)].map((m) => m[1])).size;
  assert.ok(rows >= 30, `${rows} rows`);
  // on the run's clock the median frame was a tick of about 1 px in a 2 s run
  const sorted = widths.toSorted((a, b) => a - b);
  const perFrame = sorted.reduce((s, w) => s + w, 0) / rows;
  assert.ok(perFrame >= 40, `a frame's segments span ${perFrame.toFixed(1)} px on average`);
  assert.match(svg, /frame 1 at [\d.]+ ms/);
});
