/**
 * Parser for `gst-inspect-1.0 <element>` output: factory and plugin details,
 * the GObject type hierarchy, and the pad templates with their capabilities,
 * which gst-inspect prints one structure per line and one field per line:
 *
 * ```text
 * Pad Templates:
 *   SINK template: 'sink'
 *     Availability: Always
 *     Capabilities:
 *       video/x-raw(memory:NVMM)
 *                  format: { (string)NV12, (string)I420 }
 *                   width: [ 1, 2147483647 ]
 * ```
 *
 * @module
 */

import { CapsSyntaxError } from "./errors.ts";
import { parseStructure, parseValue } from "./parse.ts";
import {
  ANY_CAPS,
  type Caps,
  type CapsField,
  type CapsStructure,
  type CapsValue,
  EMPTY_CAPS,
} from "./types.ts";

/** Which way a pad faces. */
export type PadDirection = "src" | "sink";
/** When a pad exists: always, sometimes (dynamic), or on request. */
export type PadPresence = "always" | "sometimes" | "request";

/** A pad template as gst-inspect lists it. */
export interface PadTemplate {
  /** Template name, e.g. `src`, `src_%u`. */
  readonly name: string;
  /** Whether data leaves (`src`) or enters (`sink`) through it. */
  readonly direction: PadDirection;
  /** When the pad exists: always, sometimes (dynamic) or on request. */
  readonly presence: PadPresence;
  /** The caps the template allows. */
  readonly caps: Caps;
}

/** What gst-inspect says about one element factory. */
export interface ElementInfo {
  /** Factory name, as used in pipelines (`videoconvert`). */
  readonly factory: string;
  /** Factory details (`Long-name`, `Klass`, `Description`, `Rank`, …). */
  readonly details: Readonly<Record<string, string>>;
  /** Plugin details (`Name`, `Version`, `Filename`, `Source module`, …). */
  readonly plugin: Readonly<Record<string, string>>;
  /** GObject type names from `GObject` down to the element's own type. */
  readonly hierarchy: readonly string[];
  /** The pad templates, in the order listed. */
  readonly padTemplates: readonly PadTemplate[];
}

/**
 * Parses gst-inspect output. `factory` names the element (gst-inspect does not
 * print it); without it the name is taken from the documentation URL or the
 * type name. Throws {@linkcode CapsSyntaxError} with line and column.
 *
 * @example
 * ```ts
 * import { parseGstInspect } from "./inspect.ts";
 * import { strictEqual } from "node:assert/strict";
 * const info = parseGstInspect([
 *   "Pad Templates:",
 *   "  SINK template: 'sink'",
 *   "    Availability: Always",
 *   "    Capabilities:",
 *   "      video/x-raw(memory:NVMM)",
 *   "                 format: { (string)NV12, (string)I420 }",
 *   "",
 * ].join("\n"), "nvsink");
 * strictEqual(info.padTemplates[0]!.direction, "sink");
 * ```
 */
export function parseGstInspect(text: string, factory?: string): ElementInfo {
  if (typeof text !== "string") {
    throw new TypeError(`parseGstInspect() expects a string, got ${typeof text}`);
  }
  const lines = text.replace(/\r\n?/g, "\n").split("\n");
  const details: Record<string, string> = {};
  const plugin: Record<string, string> = {};
  const hierarchy: string[] = [];
  const padTemplates: PadTemplate[] = [];
  let section = "";
  let sawTemplates = false;
  let i = 0;
  while (i < lines.length) {
    const line = lines[i]!;
    if (/^\S/.test(line)) {
      section = line.trim();
      if (section === "GObject") hierarchy.push("GObject");
      if (section === "Pad Templates:") sawTemplates = true;
      i++;
      continue;
    }
    if (section === "Factory Details:" || section === "Plugin Details:") {
      const m = /^ {2}(\S.*?)\s{2,}(.*)$/.exec(line);
      if (m) (section === "Factory Details:" ? details : plugin)[m[1]!] = m[2]!.trim();
      i++;
      continue;
    }
    if (section === "GObject") {
      const m = /^\s*\+----(\S+)/.exec(line);
      if (m) hierarchy.push(m[1]!);
      i++;
      continue;
    }
    if (section === "Pad Templates:") {
      const m = /^ {2}(SRC|SINK|UNKNOWN) template: '(.*)'\s*$/.exec(line);
      if (m) {
        const parsed = parseTemplate(lines, i, m[1]!, m[2]!);
        padTemplates.push(parsed.template);
        i = parsed.next;
        continue;
      }
    }
    i++;
  }
  if (!sawTemplates) {
    const first = lines.find((l) => l.trim() !== "")?.trim() ?? "(empty input)";
    throw new CapsSyntaxError(
      `no "Pad Templates:" section: this is not gst-inspect-1.0 <element> output ` +
        `(it starts with "${first.slice(0, 60)}")`,
      text,
      1,
      1,
    );
  }
  return Object.freeze({
    factory: factory ?? guessFactory(details, hierarchy),
    details: Object.freeze(details),
    plugin: Object.freeze(plugin),
    hierarchy: Object.freeze(hierarchy),
    padTemplates: Object.freeze(padTemplates),
  });
}

function guessFactory(details: Record<string, string>, hierarchy: string[]): string {
  const doc = /\/([^/]+)\.html$/.exec(details["Documentation"] ?? "");
  if (doc) return doc[1]!;
  const type = hierarchy.at(-1);
  if (type) return type.replace(/^Gst/, "").toLowerCase();
  return "unknown";
}

function parseTemplate(
  lines: string[],
  start: number,
  dir: string,
  name: string,
): { template: PadTemplate; next: number } {
  let presence: PadPresence = "always";
  let caps: Caps = EMPTY_CAPS;
  let i = start + 1;
  while (i < lines.length) {
    const line = lines[i]!;
    if (/^\S/.test(line) || /^ {2}\S/.test(line)) break;
    const avail = /^ {4}Availability: (.*)$/.exec(line);
    if (avail) {
      const a = avail[1]!.trim().toLowerCase();
      presence = a === "always" ? "always" : a === "sometimes" ? "sometimes" : "request";
      i++;
      continue;
    }
    if (/^ {4}Capabilities:\s*$/.test(line)) {
      const block = capsBlock(lines, i + 1);
      caps = block.caps;
      i = block.next;
      continue;
    }
    i++;
  }
  const direction: PadDirection = dir === "SRC" ? "src" : "sink";
  return { template: Object.freeze({ name, direction, presence, caps }), next: i };
}

function indentOf(line: string): number {
  return line.length - line.trimStart().length;
}

// The capabilities block: structure lines at one indentation, field lines deeper.
function capsBlock(lines: string[], start: number): { caps: Caps; next: number } {
  const i0 = start;
  let i = i0;
  const first = lines[i];
  if (first === undefined || first.trim() === "" || indentOf(first) <= 4) {
    return { caps: EMPTY_CAPS, next: i };
  }
  const base = indentOf(first);
  const head = first.trim();
  if (head === "ANY") return { caps: ANY_CAPS, next: i + 1 };
  if (head === "EMPTY" || head === "NONE") return { caps: EMPTY_CAPS, next: i + 1 };
  const structures: CapsStructure[] = [];
  let current: { header: CapsStructure; fields: CapsField[] } | undefined;
  const flush = () => {
    if (!current) return;
    const fields = [...current.header.fields];
    for (const f of current.fields) {
      const at = fields.findIndex((g) => g.name === f.name);
      if (at >= 0) fields[at] = f;
      else fields.push(f);
    }
    structures.push(Object.freeze({ ...current.header, fields: Object.freeze(fields) }));
    current = undefined;
  };
  while (i < lines.length) {
    const line = lines[i]!;
    if (line.trim() === "" || indentOf(line) < base) break;
    const lineNo = i + 1;
    if (indentOf(line) === base) {
      flush();
      current = {
        header: parseStructure(line.trim(), { line: lineNo, column: base + 1 }),
        fields: [],
      };
      i++;
      continue;
    }
    const m = /^(\s*)([A-Za-z][A-Za-z0-9_\-+.]*): ?(.*)$/.exec(line);
    if (!current || !m) {
      throw new CapsSyntaxError(
        current ? 'expected a field line such as "format: NV12"' : "field before any media type",
        line,
        indentOf(line) + 1,
        lineNo,
      );
    }
    // A value may continue on following lines (long lists, or a trailing backslash).
    let valueText = m[3]!;
    const column = m[1]!.length + m[2]!.length + 3;
    i++;
    while (i < lines.length && needsMore(valueText)) {
      valueText = valueText.replace(/\\\s*$/, "") + " " + lines[i]!.trim();
      i++;
    }
    valueText = valueText.replace(/\\\s*$/, "");
    const value: CapsValue = parseValue(valueText, { line: lineNo, column });
    current.fields.push(Object.freeze({ name: m[2]!, value }));
  }
  flush();
  return { caps: Object.freeze({ any: false, structures: Object.freeze(structures) }), next: i };
}

function needsMore(text: string): boolean {
  if (/\\\s*$/.test(text)) return true;
  let depth = 0;
  let quoted = false;
  for (let k = 0; k < text.length; k++) {
    const c = text[k];
    if (quoted) {
      if (c === "\\") k++;
      else if (c === '"') quoted = false;
      continue;
    }
    if (c === '"') quoted = true;
    else if (c === "{" || c === "[" || c === "<") depth++;
    else if (c === "}" || c === "]" || c === ">") depth--;
  }
  return depth > 0;
}

/**
 * The caps of all templates facing one way, merged in template order
 * (`ANY` if any of them is `ANY`).
 *
 * @example
 * ```ts
 * import { parseGstInspect, templateCaps } from "./inspect.ts";
 * import { strictEqual } from "node:assert/strict";
 * const info = parseGstInspect(
 *   "Pad Templates:\n  SRC template: 'src'\n    Availability: Always\n    Capabilities:\n      ANY\n",
 *   "anysrc",
 * );
 * strictEqual(templateCaps(info, "src").any, true);
 * ```
 */
export function templateCaps(info: ElementInfo, direction: PadDirection): Caps {
  const templates = info.padTemplates.filter((t) => t.direction === direction);
  if (templates.some((t) => t.caps.any)) return ANY_CAPS;
  const structures = templates.flatMap((t) => t.caps.any ? [] : t.caps.structures);
  return Object.freeze({ any: false, structures: Object.freeze(structures) });
}
