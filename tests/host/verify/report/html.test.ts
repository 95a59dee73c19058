// The HTML report of a judged run. The page is rendered in headless
// Debian chromium (apt-get install -y chromium); without chromium that test fails loudly.
import assert from "node:assert/strict";
import { renderHtmlReport } from "../../../../lib/verify/report/html.ts";
import { judgedRun } from "../_runs.ts";

Deno.test("renderHtmlReport() is self-contained and escapes run data", async () => {
  const r = await judgedRun("copy");
  r.axl.headline = "<script>alert(1)</script>";
  const html = renderHtmlReport(r);
  assert.ok(!/<script/i.test(html));
  assert.ok(!/(src|href)=["']?https?:/i.test(html));
  assert.match(html, /&lt;script&gt;/);
  assert.equal((html.match(/<svg /g) ?? []).length, 2);
  assert.match(html, /FAIL/);
});

Deno.test("renderHtmlReport() renders in headless chromium with both charts visible", async () => {
  const r = await judgedRun("zero-copy");
  const dir = await Deno.makeTempDir({ prefix: "axl-report-" });
  const page = `${dir}/report.html`, shot = `${dir}/report.png`;
  await Deno.writeTextFile(page, renderHtmlReport(r));
  let out: Deno.CommandOutput;
  try {
    out = await new Deno.Command("chromium", {
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        `--screenshot=${shot}`,
        "--window-size=1100,2400",
        `file://${page}`,
      ],
      stdout: "piped",
      stderr: "piped",
    }).output();
  } catch (e) {
    throw new Error("chromium is not installed: apt-get install -y chromium", { cause: e });
  }
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  const png = await Deno.readFile(shot);
  assert.deepEqual([...png.slice(1, 4)], [0x50, 0x4e, 0x47]);
  // Width and height from the IHDR chunk; a blank page compresses to a few KiB.
  const view = new DataView(png.buffer);
  assert.equal(view.getUint32(16), 1100);
  assert.ok(png.length > 30_000, `screenshot is only ${png.length} bytes`);
  const keep = Deno.env.get("AXL_REPORT_SCREENSHOT");
  if (keep) await Deno.copyFile(shot, keep);
  await Deno.remove(dir, { recursive: true });
});
