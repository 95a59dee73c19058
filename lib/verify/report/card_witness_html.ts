/**
 * The report's "Card's own witness" section: what metis.ko's dma-trace says the card
 * transferred, and whether it agrees with the frames (`../card_witness.ts`).
 *
 * @module
 */
import type { VerifyResult } from "../schema.ts";

/**
 * The section, or "" when the run kept no witness (not a Metis run).
 *
 * @example
 * ```ts
 * import { cardWitnessHtml } from "./card_witness_html.ts";
 * const html = cardWitnessHtml({
 *   available: false, node: "/dev/metis-0-1-0", verdict: "unavailable", disagreements: [],
 *   summary: "the card's own witness is not available: no dma-trace",
 * }, (s) => s);
 * console.log(html.includes("not available")); // true
 * ```
 */
export function cardWitnessHtml(
  w: VerifyResult["axl"]["card_witness"],
  escapeHtml: (s: string) => string,
): string {
  if (!w) return "";
  const rows = (w.per_frame ?? []).map((f) =>
    `<tr${f.card_bytes === f.bytes ? "" : ' class="broke"'}><td>${f.index}</td><td>${
      f.inode ?? ""
    }</td><td>${f.bytes}</td><td>${f.card_bytes ?? "none"}</td><td>${f.request_us ?? ""}</td><td>${
      f.dma_us ?? ""
    }</td></tr>`
  ).join("");
  const dis = w.disagreements.length
    ? `<ul>${w.disagreements.map((d) => `<li>${escapeHtml(d)}</li>`).join("")}</ul>`
    : "";
  const table = rows
    ? `<table><tr><th>frame</th><th>inode</th><th>bytes</th><th>card's bytes</th>` +
      `<th>request after frame start (µs)</th><th>DMA (µs)</th></tr>${rows}</table>`
    : "";
  return `<h2>Card's own witness (dma-trace)</h2>
<p><b>${escapeHtml(w.verdict)}</b>: ${escapeHtml(w.summary)}</p>
<p class="head">${escapeHtml(w.node)}${w.driver ? ` · ${escapeHtml(w.driver)}` : ""}</p>
${dis}${table}`;
}
