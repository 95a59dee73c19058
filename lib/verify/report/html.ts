/**
 * A self-contained HTML report of a run: verdict, invariants with evidence, diagnosis, a
 * latency histogram and a per-frame timeline as inline SVG. No scripts, no external files.
 *
 * @module
 */
import type { VerifyResult } from "../schema.ts";
import { appendixId, citedSection } from "./doc_sections.ts";
import { chainHtml } from "./chain_html.ts";
import { pipelineHtml } from "./pipeline_html.ts";
import { cardWitnessHtml } from "./card_witness_html.ts";

/**
 * Escapes text for HTML element content and attribute values.
 *
 * @example
 * ```ts
 * import { escapeHtml } from "./html.ts";
 * console.log(escapeHtml('<a href="x">')); // "&lt;a href=&quot;x&quot;&gt;"
 * ```
 */
export function escapeHtml(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!,
  );
}

const COLORS: Record<string, string> = {
  PASS: "#1a7f37",
  FAIL: "#cf222e",
  SKIP: "#6e7781",
  INCONCLUSIVE: "#9a6700",
};

/**
 * An SVG bar chart of the latency histogram (µs).
 *
 * @example
 * ```ts
 * import { latencyHistogramSvg } from "./html.ts";
 * const svg = latencyHistogramSvg([{ lo: 0, hi: 10, count: 3 }, { lo: 10, hi: 20, count: 1 }]);
 * console.log(svg.startsWith("<svg")); // true
 * console.log(svg.match(/<rect class="bar"/g)?.length); // 2: one bar per bucket
 * ```
 */
export function latencyHistogramSvg(
  bins: ReadonlyArray<{ lo: number; hi: number; count: number }>,
  width = 640,
  height = 220,
): string {
  if (bins.length === 0) {
    return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="40"><text x="8" y="24">no latency data</text></svg>`;
  }
  const pad = { l: 44, r: 10, t: 10, b: 40 };
  const w = width - pad.l - pad.r, h = height - pad.t - pad.b;
  const max = Math.max(...bins.map((b) => b.count), 1);
  const bw = w / bins.length;
  const bars = bins.map((b, i) => {
    const bh = (b.count / max) * h;
    return `<rect class="bar" x="${(pad.l + i * bw + 1).toFixed(1)}" y="${
      (pad.t + h - bh).toFixed(1)
    }" width="${Math.max(1, bw - 2).toFixed(1)}" height="${bh.toFixed(1)}" fill="#0969da"><title>${
      fmt(b.lo)
    }–${fmt(b.hi)} µs: ${b.count}</title></rect>`;
  }).join("");
  const lo = bins[0]!.lo, hi = bins[bins.length - 1]!.hi;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" role="img" aria-label="latency histogram">` +
    `<line x1="${pad.l}" y1="${pad.t + h}" x2="${pad.l + w}" y2="${pad.t + h}" stroke="#333"/>` +
    `<line x1="${pad.l}" y1="${pad.t}" x2="${pad.l}" y2="${pad.t + h}" stroke="#333"/>` + bars +
    `<text x="${pad.l}" y="${height - 22}" font-size="11">${fmt(lo)} µs</text>` +
    `<text x="${pad.l + w}" y="${height - 22}" font-size="11" text-anchor="end">${
      fmt(hi)
    } µs</text>` +
    `<text x="${pad.l + w / 2}" y="${
      height - 6
    }" font-size="12" text-anchor="middle">fence latency (submit → signal)</text>` +
    `<text x="${pad.l - 6}" y="${pad.t + 10}" font-size="11" text-anchor="end">${max}</text>` +
    `<text x="${pad.l - 6}" y="${pad.t + h}" font-size="11" text-anchor="end">0</text></svg>`;
}

/**
 * An SVG timeline: one row per frame, segments import→submit, submit→signal, signal→release,
 * each frame from its own first event on one scale (the longest frame), its start in the run
 * beside its number.
 *
 * @example
 * ```ts
 * import { frameTimelineSvg } from "./html.ts";
 * const svg = frameTimelineSvg([{ index: 0, import_ns: 0, submit_ns: 10, signal_ns: 50, release_ns: 60 }]);
 * console.log((svg.match(/<rect class="seg"/g) ?? []).length); // 3
 * ```
 */
export function frameTimelineSvg(
  frames: ReadonlyArray<
    {
      index: number;
      import_ns?: number;
      submit_ns?: number;
      signal_ns?: number;
      release_ns?: number;
    }
  >,
  width = 900,
  maxRows = 60,
): string {
  const rows = frames.slice(0, maxRows);
  const times = rows.flatMap((f) => [f.import_ns, f.submit_ns, f.signal_ns, f.release_ns]).filter((
    x,
  ): x is number => x !== undefined);
  if (times.length === 0) {
    return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="40"><text x="8" y="24">no frame timestamps</text></svg>`;
  }
  // Each frame on its own clock (0 = its first event), all on one scale: the longest frame.
  // On the run's clock a frame of 1 ms in a run of 2 s is a tick no one can read.
  const t0 = Math.min(...times);
  const firstOf = (f: typeof rows[number]) =>
    Math.min(
      ...[f.import_ns, f.submit_ns, f.signal_ns, f.release_ns].filter((t) => t !== undefined),
    );
  const lastOf = (f: typeof rows[number]) =>
    Math.max(
      ...[f.import_ns, f.submit_ns, f.signal_ns, f.release_ns].filter((t) => t !== undefined),
    );
  const timed = rows.filter((f) => Number.isFinite(firstOf(f)));
  const span = Math.max(1, ...timed.map((f) => lastOf(f) - firstOf(f)));
  const pad = { l: 150, r: 10, t: 24, b: 30 }, rowH = 12;
  const w = width - pad.l - pad.r;
  const height = pad.t + rows.length * rowH + pad.b;
  let base = 0;
  const x = (t: number) => (pad.l + ((t - base) / span) * w).toFixed(1);
  const segs: Array<
    [
      string,
      "import_ns" | "submit_ns" | "signal_ns",
      "submit_ns" | "signal_ns" | "release_ns",
      string,
    ]
  > = [
    ["import→submit", "import_ns", "submit_ns", "#8250df"],
    ["submit→signal", "submit_ns", "signal_ns", "#0969da"],
    ["signal→release", "signal_ns", "release_ns", "#1a7f37"],
  ];
  let body = "";
  rows.forEach((f, i) => {
    const y = pad.t + i * rowH;
    base = firstOf(f);
    const at = Number.isFinite(base) ? ` at ${fmt((base - t0) / 1e6)} ms` : "";
    body += `<text x="${pad.l - 6}" y="${
      y + 9
    }" font-size="9" text-anchor="end">frame ${f.index}${at}</text>`;
    for (const [label, a, b, color] of segs) {
      const ta = f[a], tb = f[b];
      if (ta === undefined || tb === undefined || tb < ta) continue;
      const wpx = Math.max(1, ((tb - ta) / span) * w);
      body += `<rect class="seg" x="${x(ta)}" y="${y + 1}" width="${wpx.toFixed(1)}" height="${
        rowH - 3
      }" fill="${color}"><title>frame ${f.index} ${label}: ${
        fmt((tb - ta) / 1000)
      } µs</title></rect>`;
    }
  });
  const legend = segs.map(([label, , , color], i) =>
    `<rect x="${pad.l + i * 150}" y="4" width="10" height="10" fill="${color}"/><text x="${
      pad.l + i * 150 + 14
    }" y="13" font-size="11">${label}</text>`
  ).join("");
  const more = frames.length > rows.length
    ? ` (first ${rows.length} of ${frames.length} frames)`
    : "";
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" role="img" aria-label="frame timeline">${legend}${body}` +
    `<text x="${pad.l}" y="${height - 8}" font-size="11">0 (the frame's first event)</text>` +
    `<text x="${pad.l + w}" y="${height - 8}" font-size="11" text-anchor="end">${
      fmt(span / 1e3)
    } µs${more}</text></svg>`;
}

/** A diagnosis' source as a link to the report's own copy of it, else as text. */
function sourceLink(source: string): string {
  const s = citedSection(source);
  return s
    ? `<a href="#${appendixId(source)}">${escapeHtml(source.split("#")[0]!)}: ${
      escapeHtml(s.title)
    }</a>`
    : escapeHtml(source);
}

/** The cited docs sections, each once, with the anchors the fix cells link to. */
function appendixHtml(sources: readonly string[]): string {
  const cited = [...new Set(sources)].flatMap((source) => {
    const s = citedSection(source);
    return s ? [{ source, ...s }] : [];
  });
  if (cited.length === 0) return "";
  return `<h2>Appendix: the docs the diagnosis cites</h2>${
    cited.map((c) =>
      `<section id="${appendixId(c.source)}"><h3>${escapeHtml(c.title)} <small>(${
        escapeHtml(c.source)
      })</small></h3><pre class="doc">${escapeHtml(c.text)}</pre></section>`
    ).join("")
  }`;
}

/** The notes of a run as a list (the capture's, the judge's, a replay's). */
function notesHtml(notes: readonly string[]): string {
  if (notes.length === 0) return "";
  return `<h2>Notes</h2><ul class="notes">${
    notes.map((n) => `<li>${escapeHtml(n)}</li>`).join("")
  }</ul>`;
}

function fmt(x: number): string {
  return Math.abs(x) >= 100 ? x.toFixed(0) : Math.abs(x) >= 1 ? x.toFixed(1) : x.toFixed(3);
}

/**
 * The whole report page.
 *
 * @example
 * ```ts ignore
 * import { renderHtmlReport } from "./html.ts";
 * const result = JSON.parse(await Deno.readTextFile("artifacts/result.json"));
 * await Deno.writeTextFile("artifacts/report.html", renderHtmlReport(result));
 * ```
 */
export function renderHtmlReport(r: VerifyResult): string {
  const a = r.axl;
  const badge = (s: string) =>
    `<span class="badge" style="background:${COLORS[s] ?? "#333"}">${escapeHtml(s)}</span>`;
  const invRows = Object.values(a.invariants).map((i) =>
    `<tr><td>${i.id}</td><td>${escapeHtml(i.title)}</td><td>${badge(i.status)}</td><td>${
      escapeHtml(i.summary)
    }` +
    `<details><summary>evidence</summary><pre>${
      escapeHtml(JSON.stringify(i.evidence, null, 2))
    }</pre></details></td></tr>`
  ).join("");
  const diag = a.diagnosis.length === 0
    ? "<p>None.</p>"
    : `<table><tr><th>where</th><th>symptom</th><th>cause</th><th>fix</th></tr>${
      a.diagnosis.map((d) =>
        `<tr><td>${escapeHtml(d.invariant)}</td><td>${escapeHtml(d.symptom)}</td><td>${
          escapeHtml(d.cause)
        }</td><td><code>${escapeHtml(d.fix)}</code><br><small>${
          sourceLink(d.source)
        }</small></td></tr>`
      ).join("")
    }</table>`;
  const lat = a.latency;
  const latText = lat.count === 0
    ? "no latency samples"
    : `${lat.count} frames (${lat.source}): p50 ${lat.p50} µs, p90 ${lat.p90} µs, p99 ${lat.p99} µs, max ${lat.max} µs`;
  const top = a.perf.top.map((t) =>
    `<tr${t.copy_routine && !t.runtime_thread ? ' class="copy"' : ""}><td>${
      escapeHtml(t.symbol)
    }</td><td>${t.self_percent}%</td><td>${t.samples}</td><td>${escapeHtml(t.dso)}</td><td>${
      escapeHtml(t.copy_routine ?? "")
    }${t.runtime_thread ? " in V8's worker threads: not a frame copy" : ""}</td></tr>`
  ).join("");
  const env = a.environment;
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>axl verify: ${escapeHtml(a.status)}</title>
<style>
body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#1f2328;max-width:1000px}
h1{font-size:22px} h2{font-size:17px;margin-top:28px;border-bottom:1px solid #d0d7de}
table{border-collapse:collapse;width:100%} td,th{border:1px solid #d0d7de;padding:4px 6px;vertical-align:top;text-align:left}
.badge{color:#fff;border-radius:4px;padding:1px 6px;font-weight:600} pre{font-size:11px;white-space:pre-wrap}
tr.copy td,tr.broke td{background:#fff1e5} .head{font-size:13px;color:#57606a}
.reason{font-size:15px} ul.notes li{margin:2px 0} h3{font-size:15px} pre.doc{font-size:12px;background:#f6f8fa;padding:8px}
</style></head><body>
<h1>axl verify ${badge(a.status)}</h1>
${a.reason ? `<p class="reason"><b>${escapeHtml(a.status)}:</b> ${escapeHtml(a.reason)}</p>` : ""}
<p class="head">${escapeHtml(a.headline)}</p>
<p class="head">kernel ${escapeHtml(env.kernel)}${env.preempt_rt ? " (PREEMPT_RT)" : ""} · ${
    escapeHtml(env.machine)
  } · device ${escapeHtml(env.device || "?")}${env.simulated ? " (simulated)" : ""} · PMU ${
    env.pmu ? "yes" : "no"
  } · tracer ${escapeHtml(a.trace.tracer)} in ${
    a.trace.instance ? `instance ${escapeHtml(a.trace.instance)}` : "the top-level buffer"
  }</p>
<h2>Invariants</h2>
<table><tr><th></th><th>invariant</th><th>status</th><th>why</th></tr>${invRows}</table>
${a.chain ? chainHtml(a.chain, escapeHtml, a.status) : ""}
${pipelineHtml(a.pipeline, badge, escapeHtml)}
${cardWitnessHtml(a.card_witness, escapeHtml)}
<h2>Diagnosis</h2>${diag}
${notesHtml(a.notes)}
<h2>Latency</h2><p>${escapeHtml(latText)}</p>
${latencyHistogramSvg(lat.histogram)}
<h2>Frames</h2><p>${a.frames.traced} frames traced, ${
    a.frames.submitted ?? "unknown"
  } submitted by the workload.</p>
${frameTimelineSvg(a.frames.list)}
<h2>CPU (perf)</h2><p>${
    a.perf.available
      ? `${a.perf.samples} samples of ${escapeHtml(a.perf.event ?? "")} (${
        escapeHtml(a.perf.reason ?? "")
      }); copy routines ${a.perf.copy_percent}% self${
        a.perf.runtime_copy_percent !== undefined
          ? `; V8's own worker threads (garbage collector, compilers): ${a.perf.runtime_copy_percent}% more in copy routines, not frame copies`
          : ""
      }`
      : `unavailable: ${escapeHtml(a.perf.reason ?? "")}`
  }</p>
${
    top
      ? `<table><tr><th>symbol</th><th>self</th><th>samples</th><th>dso</th><th>copy routine</th></tr>${top}</table>`
      : ""
  }
${appendixHtml(a.diagnosis.map((d) => d.source))}
<h2>Capture</h2><pre>${
    escapeHtml(
      JSON.stringify(
        { trace: a.trace, bufinfo: a.bufinfo, workload: a.workload, notes: a.notes },
        null,
        2,
      ),
    )
  }</pre>
</body></html>
`;
}
