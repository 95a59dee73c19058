/**
 * Parser for the part of gst-launch-1.0's pipeline syntax that matters for
 * negotiation: elements with properties, `!` links, caps filters between
 * elements (`! video/x-raw(memory:NVMM),format=NV12 !`), `name=` and
 * `name.` / `name.pad` references to start a branch from a named element.
 *
 * @module
 */

import { isSpace } from "./_chars.ts";
import { CapsSyntaxError } from "./errors.ts";
import { parseCaps } from "./parse.ts";
import type { Caps } from "./types.ts";

/** One element instance in a pipeline description. */
export interface PipelineElement {
  /** Position in the description (0-based). */
  readonly index: number;
  /** Element factory name, e.g. `videoconvert`. */
  readonly factory: string;
  /** `name=` if given. */
  readonly name: string | undefined;
  /** Properties as written (values unquoted). */
  readonly props: Readonly<Record<string, string>>;
  /** 1-based column of the factory name. */
  readonly column: number;
}

/** A link between two elements, optionally through caps. */
export interface PipelineLink {
  /** Index of the upstream element. */
  readonly from: number;
  /** Index of the downstream element. */
  readonly to: number;
  /** Pad names from `name.pad` references, if given. */
  readonly fromPad: string | undefined;
  /** Pad name on the downstream element, if given. */
  readonly toPad: string | undefined;
  /** Caps between the two elements, if any. */
  readonly filter: Caps | undefined;
  /** The caps text as written. */
  readonly filterText: string | undefined;
}

/** A parsed pipeline description. */
export interface Pipeline {
  /** The elements in the order written. */
  readonly elements: readonly PipelineElement[];
  /** The links between them, upstream first. */
  readonly links: readonly PipelineLink[];
}

interface Segment {
  text: string;
  column: number;
}

/**
 * Parses a gst-launch-1.0 style description.
 *
 * @example
 * ```ts
 * import { parsePipeline } from "./pipeline.ts";
 * import { strictEqual } from "node:assert/strict";
 * const p = parsePipeline("videotestsrc num-buffers=1 ! video/x-raw,format=NV12 ! fakesink");
 * strictEqual(p.elements.length, 2);
 * strictEqual(p.links[0]!.filterText, "video/x-raw,format=NV12");
 * ```
 */
export function parsePipeline(description: string): Pipeline {
  if (typeof description !== "string") {
    throw new TypeError(`parsePipeline() expects a string, got ${typeof description}`);
  }
  const elements: { -readonly [K in keyof PipelineElement]: PipelineElement[K] }[] = [];
  const links: PipelineLink[] = [];
  // What the next element links from: an element index (and pad) plus pending caps.
  let from: { index: number; pad: string | undefined } | undefined;
  let pendingCaps: { caps: Caps; text: string } | undefined;
  let expectTarget = false;
  const fail = (message: string, column: number): never => {
    throw new CapsSyntaxError(message, description, column);
  };

  const segments = splitLinks(description, fail);
  segments.forEach((seg, segIndex) => {
    const trimmed = seg.text.trim();
    const column = seg.column + seg.text.indexOf(trimmed);
    if (trimmed === "") {
      fail(segIndex === 0 ? 'description starts with "!"' : 'nothing between two "!"', seg.column);
    }
    if (isCapsSegment(trimmed)) {
      if (!expectTarget) fail('caps must sit between two elements, after a "!"', column);
      if (pendingCaps) fail("two caps filters in a row", column);
      if (segIndex === segments.length - 1) {
        fail("caps at the end of the description: nothing to link them to", column);
      }
      pendingCaps = { caps: parseCaps(unquote(trimmed), { column }), text: unquote(trimmed) };
      return;
    }
    const words = splitWords(seg.text, seg.column, fail);
    let first = true;
    for (const word of words) {
      const eq = word.text.indexOf("=");
      if (eq > 0 && !first) {
        const el = elements.at(-1)!;
        const key = word.text.slice(0, eq);
        const value = unquote(word.text.slice(eq + 1));
        (el.props as Record<string, string>)[key] = value;
        if (key === "name") {
          if (elements.some((e) => e !== el && e.name === value)) {
            fail(`two elements are named "${value}"`, word.column);
          }
          el.name = value;
        }
        continue;
      }
      if (eq > 0) fail(`expected an element before property "${word.text}"`, word.column);
      const ref = /^([A-Za-z_][\w\-]*)?\.([\w%\-]*)$/.exec(word.text);
      if (ref) {
        // `name.` or `name.pad`: a reference to a named element's pad.
        const target = elements.findIndex((e) => e.name === ref[1]);
        if (target < 0) {
          fail(`no element is named "${ref[1]}" (name it with name=${ref[1]})`, word.column);
        }
        const pad = ref[2] === "" ? undefined : ref[2];
        if (expectTarget && !first) fail(`"${word.text}" must follow "!"`, word.column);
        if (expectTarget) {
          addLink(target, pad);
          expectTarget = false;
        }
        from = { index: target, pad };
        first = false;
        continue;
      }
      if (!/^[A-Za-z][\w\-+.]*$/.test(word.text)) {
        fail(`"${word.text}" is not an element factory name`, word.column);
      }
      const index = elements.length;
      elements.push({ index, factory: word.text, name: undefined, props: {}, column: word.column });
      if (expectTarget && first) addLink(index, undefined);
      expectTarget = false;
      from = { index, pad: undefined };
      first = false;
    }
    if (segIndex < segments.length - 1) {
      if (!from) fail('"!" with nothing before it', seg.column + seg.text.length);
      expectTarget = true;
    }
  });

  if (elements.length === 0) fail("empty pipeline description", 1);
  const named = elements.map((e) => Object.freeze({ ...e, props: Object.freeze({ ...e.props }) }));
  return Object.freeze({ elements: Object.freeze(named), links: Object.freeze(links) });

  function addLink(to: number, toPad: string | undefined) {
    const src = from!;
    links.push(Object.freeze({
      from: src.index,
      to,
      fromPad: src.pad,
      toPad,
      filter: pendingCaps?.caps,
      filterText: pendingCaps?.text,
    }));
    pendingCaps = undefined;
  }
}

function isCapsSegment(text: string): boolean {
  const t = unquote(text);
  const head = /^[^\s,(=]*/.exec(t)![0];
  return head.includes("/") || head === "ANY" || head === "EMPTY";
}

function unquote(text: string): string {
  const t = text.trim();
  if (t.length >= 2 && (t[0] === '"' || t[0] === "'") && t.at(-1) === t[0]) {
    return t.slice(1, -1);
  }
  return t;
}

function splitLinks(text: string, fail: (m: string, c: number) => never): Segment[] {
  const out: Segment[] = [];
  const open: number[] = [];
  let quote: string | undefined;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quote) {
      if (c === "\\") i++;
      else if (c === quote) quote = undefined;
      continue;
    }
    if (c === '"' || c === "'") quote = c;
    else if (c === "(" || c === "[" || c === "{" || c === "<") open.push(i);
    else if (c === ")" || c === "]" || c === "}" || c === ">") open.pop();
    else if (c === "!" && open.length === 0) {
      out.push({ text: text.slice(start, i), column: start + 1 });
      start = i + 1;
    }
  }
  if (quote) fail(`unterminated ${quote} quote`, text.lastIndexOf(quote) + 1);
  if (open.length > 0) fail(`"${text[open[0]!]}" is not closed`, open[0]! + 1);
  out.push({ text: text.slice(start), column: start + 1 });
  return out;
}

function splitWords(
  text: string,
  column: number,
  fail: (m: string, c: number) => never,
): { text: string; column: number }[] {
  const words: { text: string; column: number }[] = [];
  let i = 0;
  while (i < text.length) {
    while (i < text.length && isSpace(text[i])) i++;
    if (i >= text.length) break;
    const start = i;
    let quote: string | undefined;
    while (i < text.length && (quote || !isSpace(text[i]))) {
      const c = text[i]!;
      if (quote) {
        if (c === "\\") i++;
        else if (c === quote) quote = undefined;
      } else if (c === '"' || c === "'") quote = c;
      i++;
    }
    if (quote) fail(`unterminated ${quote} quote`, column + start);
    words.push({ text: text.slice(start, i), column: column + start });
  }
  return words;
}
