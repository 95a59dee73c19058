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
 * The chain section as HTML; `escape` escapes text for HTML.
 *
 * @example
 * ```ts
 * import { chainHtml } from "./chain_html.ts";
 * const html = chainHtml({
 *   status: "broken", summary: "the card never imported a camera buffer",
 *   camera: { devices: ["vivid.0"], devices_from: "v4l2", buffers: [] }, card: { device: "x", buffers: [], from: [] },
 *   shared: [], between: [], hot: [],
 * }, (t) => t);
 * if (!html.includes("broken")) throw new Error();
 * ```
 */
export function chainHtml(c: Chain, escape: (text: string) => string): string {
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
      h.copy_routine ? " copy routine" : ""
    }</li>`
  ).join("");
  return `<h2>Chain <span class="badge" style="background:${STATUS_COLORS[c.status]}">${
    escape(c.status)
  }</span></h2>
<p>${escape(c.summary)}</p>
<table><tr><th>role</th><th>inode</th><th>exporter</th><th>name</th><th>attached devices</th></tr>${
    rows(`camera (${c.camera.devices.join(", ")})`, c.camera.buffers)
  }${rows(`card (${c.card.device ?? "?"})`, c.card.buffers)}</table>
${procs ? `<p>Processes with camera or card buffers mapped:</p><ul>${procs}</ul>` : ""}
${hot ? `<p>Top self symbols in the workload (perf):</p><ul>${hot}</ul>` : ""}`;
}
