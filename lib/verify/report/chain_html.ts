/**
 * The report's "Chain" part: the camera's buffers, the card's, and the processes between.
 *
 * @module
 */
import type { Chain, ChainBuffer } from "../chain_schema.ts";

const STATUS_COLORS: Record<Chain["status"], string> = {
  whole: "#1a7f37",
  partial: "#9a6700",
  broken: "#cf222e",
  unknown: "#6e7781",
};

/**
 * The chain section as HTML; `escape` escapes text for HTML. With `runStatus`, the run's
 * status, a `whole` chain beside a run that did not pass is not shown green.
 *
 * @example
 * ```ts
 * import { chainHtml } from "./chain_html.ts";
 * const html = chainHtml({
 *   status: "broken", summary: "the card never imported a camera buffer",
 *   camera: { devices: ["vivid.0"], devices_from: "v4l2", buffers: [] }, card: { device: "x", buffers: [], from: [] },
 *   shared: [], between: [], hot: [],
 * }, (t) => t);
 * console.log(html.includes("broken")); // true
 * ```
 */
export function chainHtml(
  c: Chain,
  escape: (text: string) => string,
  runStatus?: string,
): string {
  const shared = new Set(c.shared);
  const rows = (role: string, buffers: readonly ChainBuffer[]) =>
    buffers.map((b) =>
      `<tr${shared.has(b.inode) ? "" : ' class="copy"'}><td>${
        escape(role)
      }</td><td>${b.inode}</td><td>${escape(b.exporter)}</td><td>${escape(b.name)}</td><td>${
        escape(b.devices.join(", "))
      }</td></tr>`
    ).join("");
  const procs = c.between.map((p) =>
    `<li>pid ${p.pid}${p.comm ? ` (${escape(p.comm)})` : ""}: mapped camera buffers ${
      escape(p.camera.join(", ") || "none")
    }; card buffers ${escape(p.card.join(", ") || "none")} (writable: ${
      escape(p.card_writable.join(", ") || "none")
    })</li>`
  ).join("");
  const hot = c.hot.map((h) =>
    `<li>${escape(h.symbol)} ${h.self_percent}% (${escape(h.dso)}, ${h.samples} samples)${
      h.runtime_thread
        ? " copy routine in V8's worker threads (not a frame copy)"
        : h.copy_routine
        ? " copy routine"
        : ""
    }</li>`
  ).join("");
  // A whole chain is green only beside a run that passed: beside a FAIL or an INCONCLUSIVE
  // it is what the buffers show, not a verdict, and the badge says so.
  const outOfStep = c.status === "whole" && runStatus !== undefined && runStatus !== "PASS";
  const color = outOfStep ? STATUS_COLORS.unknown : STATUS_COLORS[c.status];
  const label = outOfStep ? `whole, but the run is ${runStatus}` : c.status;
  return `<h2>Chain <span class="badge" style="background:${color}">${escape(label)}</span></h2>
<p>${escape(c.summary)}${
    outOfStep
      ? ` The buffers the card imported are the camera's, but the run is ${
        escape(runStatus)
      }: see the invariants and the diagnosis.`
      : ""
  }</p>
<table><tr><th>role</th><th>inode</th><th>exporter</th><th>name</th><th>attached devices</th></tr>${
    rows(`camera (${c.camera.devices.join(", ")})`, c.camera.buffers)
  }${rows(`card (${c.card.device ?? "?"})`, c.card.buffers)}</table>
${procs ? `<p>Processes with camera or card buffers mapped:</p><ul>${procs}</ul>` : ""}
${hot ? `<p>Top self symbols in the workload (perf):</p><ul>${hot}</ul>` : ""}`;
}
