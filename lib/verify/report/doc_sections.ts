/**
 * The docs sections a report cites (each diagnosis' `source`, e.g.
 * `docs/design.md#exporter-names`), carried into `report.html` as an appendix so that its fix
 * links work from a copied artifacts directory alone. The text is a copy made by
 * `scripts/gen-doc-sections.ts` (`_doc_sections.ts`); a host test holds it to the docs.
 *
 * @module
 */
import { DOC_SECTIONS } from "./_doc_sections.ts";

/** One cited section: its heading and its own text (up to the next heading). */
export interface DocSection {
  title: string;
  text: string;
}

/**
 * GitHub's anchor of a Markdown heading: lower case, punctuation but `-` and `_` dropped,
 * spaces as `-`.
 *
 * @example
 * ```ts
 * import { headingAnchor } from "./doc_sections.ts";
 * console.log(headingAnchor("I1: two devices attached")); // "i1-two-devices-attached"
 * ```
 */
export function headingAnchor(heading: string): string {
  return heading.trim().toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, "").replace(/\s/g, "-");
}

/**
 * The section of `markdown` whose heading has `anchor`: the heading's text and the lines up to
 * the next heading; undefined when no heading has it.
 *
 * @example
 * ```ts
 * import { sectionOf } from "./doc_sections.ts";
 * const s = sectionOf("# A\n\nintro\n\n## B c\n\nbody\n\n## D\n", "b-c");
 * console.log(s); // { title: "B c", text: "body" }
 * ```
 */
export function sectionOf(markdown: string, anchor: string): DocSection | undefined {
  const lines = markdown.split("\n");
  let fenced = false;
  for (let i = 0; i < lines.length; i++) {
    if (lines[i]!.startsWith("```")) fenced = !fenced;
    const m = !fenced && /^#{1,6} (.*)$/.exec(lines[i]!);
    if (!m || headingAnchor(m[1]!) !== anchor) continue;
    const body: string[] = [];
    let inner = false;
    for (const l of lines.slice(i + 1)) {
      if (l.startsWith("```")) inner = !inner;
      if (!inner && /^#{1,6} /.test(l)) break;
      body.push(l);
    }
    return { title: m[1]!.trim(), text: body.join("\n").trim() };
  }
  return undefined;
}

/**
 * The id of the report's appendix entry for a cited `source` (`docs/design.md#x` →
 * `doc-design-x`).
 *
 * @example
 * ```ts
 * import { appendixId } from "./doc_sections.ts";
 * console.log(appendixId("docs/design.md#trace-overruns")); // "doc-design-trace-overruns"
 * ```
 */
export function appendixId(source: string): string {
  const [file, anchor = ""] = source.split("#");
  const page = file!.replace(/^docs\//, "").replace(/\.md$/, "").replace(/[^a-z0-9]+/gi, "-");
  return `doc-${page}-${anchor}`;
}

/**
 * The copy of a cited section the report carries, or undefined for a source not copied.
 *
 * @example
 * ```ts
 * import { citedSection } from "./doc_sections.ts";
 * console.log(citedSection("docs/design.md#trace-overruns")?.title); // "Trace overruns"
 * ```
 */
export function citedSection(source: string): DocSection | undefined {
  return DOC_SECTIONS[source];
}
