/**
 * The caps analysis: for every link of a pipeline, what the upstream element
 * can produce (given what reaches it), what the downstream element accepts, the
 * caps filter between them, whether they intersect, in which memory, and if not,
 * why and what would fix it. Pure: element capabilities come in as parsed
 * gst-inspect output.
 *
 * The model follows what gst-launch-1.0 checks when it links a description:
 * links are made left to right, caps queries pass through elements that forward
 * caps (queue, capsfilter) and through converters with the converted fields
 * freed, and the first link that cannot be made stops the pipeline.
 *
 * @module
 */

import { type BehaviourChoice, behaviourOf, type ElementBehaviour } from "./behaviour.ts";
import { checkDmaDrm } from "./dma_drm.ts";
import { explainMismatch, type Reason } from "./diagnose.ts";
import { type ElementInfo, templateCaps } from "./inspect.ts";
import { intersectCaps } from "./intersect.ts";
import { parseCaps } from "./parse.ts";
import { parsePipeline, type Pipeline, type PipelineElement } from "./pipeline.ts";
import { printCaps } from "./print.ts";
import {
  ANY_CAPS,
  type Caps,
  type CapsStructure,
  EMPTY_CAPS,
  isEmptyCaps,
  memoryOf,
  SYSTEM_MEMORY,
} from "./types.ts";

/** An element as the report names it. */
export interface ElementReport {
  /** Position in the pipeline (0-based). */
  readonly index: number;
  /** Element factory name. */
  readonly factory: string;
  /** Instance name as gst-launch-1.0 would give it (`videoconvert0`) or `name=`. */
  readonly name: string;
  /** Behaviour kind used for the analysis. */
  readonly behaviour: ElementBehaviour["kind"];
  /** `known` (built-in table) or `templates` (inferred from pad templates). */
  readonly behaviourSource: BehaviourChoice["source"];
  /** Long name from gst-inspect, when given. */
  readonly longName: string | undefined;
  /** Plugin version from gst-inspect, when given. */
  readonly version: string | undefined;
}

/** The verdict on one link. */
export interface LinkReport {
  /** 1-based link number in description order. */
  readonly number: number;
  /** Name of the upstream element. */
  readonly from: string;
  /** Name of the downstream element. */
  readonly to: string;
  /** The caps filter as written, if any. */
  readonly filter: string | undefined;
  /** Whether the two sides have caps in common. */
  readonly negotiates: boolean;
  /** False when gst-launch-1.0 would stop at an earlier failed link first. */
  readonly reached: boolean;
  /** What can flow out of `from` here, printed. */
  readonly upstreamCaps: string;
  /** What `to` accepts, printed. */
  readonly downstreamCaps: string;
  /** The caps the link can carry (intersection), printed; `EMPTY` if none. */
  readonly caps: string;
  /** Memory types the link can carry, downstream's preference first. */
  readonly memory: readonly string[];
  /** Why it does not negotiate, with fixes; empty when it does. */
  readonly reasons: readonly Reason[];
  /** Remarks that do not stop negotiation. */
  readonly notes: readonly string[];
}

/** Zero-copy requirement result: every link must carry the required memory. */
export interface MemoryCheck {
  /** The memory every link must carry, e.g. `memory:NVMM`. */
  readonly required: string;
  /** Whether every link that negotiates carries it. */
  readonly ok: boolean;
  /** Links that negotiate but not in the required memory. */
  readonly offenders: readonly {
    readonly number: number;
    readonly memory: string;
    readonly message: string;
  }[];
}

/** The whole analysis. */
export interface CapsReport {
  /** The pipeline as given (or a synthetic one for two elements). */
  readonly description: string;
  /** The elements, in pipeline order. */
  readonly elements: readonly ElementReport[];
  /** The verdict on each link, in pipeline order. */
  readonly links: readonly LinkReport[];
  /** Every link negotiates. */
  readonly negotiates: boolean;
  /** Number of the first link that does not negotiate. */
  readonly firstFailure: number | undefined;
  /** The zero-copy check, when a memory was required. */
  readonly memoryCheck: MemoryCheck | undefined;
}

/** Options for {@linkcode analyzePipeline}. */
export interface AnalyzeOptions {
  /** Require every link to carry this memory, e.g. `memory:NVMM`. */
  requireMemory?: string;
}

/**
 * Analyzes a parsed pipeline. `elements` maps factory names to their parsed
 * gst-inspect output; a factory missing from the map is a TypeError naming it.
 *
 * @example
 * ```ts
 * import { analyzePipeline } from "./analyze.ts";
 * import { parseGstInspect } from "./inspect.ts";
 * import { parsePipeline } from "./pipeline.ts";
 * import { strictEqual } from "node:assert/strict";
 * const t = (dir: string, caps: string) =>
 *   `  ${dir} template: '${dir.toLowerCase()}'\n    Availability: Always\n    Capabilities:\n      ${caps}\n`;
 * const src = parseGstInspect("Pad Templates:\n" + t("SRC", "video/x-raw"), "src");
 * const sink = parseGstInspect("Pad Templates:\n" + t("SINK", "video/x-raw(memory:NVMM)"), "sink");
 * const report = analyzePipeline(parsePipeline("src ! sink"), new Map([["src", src], ["sink", sink]]));
 * strictEqual(report.negotiates, false);
 * strictEqual(report.links[0]!.reasons[0]!.kind, "features");
 * ```
 */
export function analyzePipeline(
  pipeline: Pipeline,
  elements: ReadonlyMap<string, ElementInfo>,
  options: AnalyzeOptions = {},
  description = "",
): CapsReport {
  const missing = pipeline.elements.filter((e) => !elements.has(e.factory)).map((e) => e.factory);
  if (missing.length > 0) {
    throw new TypeError(`no capabilities for element(s): ${[...new Set(missing)].join(", ")}`);
  }
  const infos = pipeline.elements.map((e) => elements.get(e.factory)!);
  const names = instanceNames(pipeline.elements, infos);
  const choices = infos.map(behaviourOf);

  const outCache = new Map<number, Caps>();
  const incoming = new Map<number, { caps: Caps; ok: boolean }>();
  const links: LinkReport[] = [];
  let firstFailure: number | undefined;

  pipeline.links.forEach((link, i) => {
    const number = i + 1;
    const from = pipeline.elements[link.from]!;
    const to = pipeline.elements[link.to]!;
    const fromInfo = infos[link.from]!;
    const toInfo = infos[link.to]!;
    const notes: string[] = [];
    const reached = firstFailure === undefined;

    const up = outputOf(link.from);
    const down = acceptOf(to, toInfo);
    const filter = link.filter ?? ANY_CAPS;
    const result = intersectCaps(intersectCaps(down, filter), up);
    let reasons: Reason[] = [];
    const fromName = names[link.from]!;
    const toName = names[link.to]!;

    if (fromInfo.padTemplates.every((t) => t.direction !== "src")) {
      reasons = [noPad(fromName, "src")];
    } else if (toInfo.padTemplates.every((t) => t.direction !== "sink")) {
      reasons = [noPad(toName, "sink")];
    } else if (isEmptyCaps(result)) {
      reasons = diagnose(up, down, link.filter, fromName, toName, notes);
    }
    const negotiates = reasons.length === 0 && !isEmptyCaps(result);
    if (!negotiates && firstFailure === undefined) firstFailure = number;

    for (
      const [caps, who] of [[up, fromName], [down, toName], [filter, "the caps filter"]] as const
    ) {
      for (const issue of checkDmaDrm(caps)) notes.push(`${who}: ${issue.message}`);
    }
    notes.push(...upstreamNotes(fromName, from, fromInfo, choices[link.from]!));
    if (!reached) {
      notes.push(`link ${firstFailure} fails first, so gst-launch-1.0 stops before this one`);
    }

    const memory = memoriesOf(result);
    if (negotiates && memory[0] === SYSTEM_MEMORY && deviceMemories(up).length > 0) {
      notes.push(
        `${fromName} could also produce ${deviceMemories(up).join(", ")}, but this link carries ` +
          "system memory",
      );
    }
    incoming.set(link.to, { caps: result, ok: negotiates });
    links.push(Object.freeze({
      number,
      from: fromName,
      to: toName,
      filter: link.filterText,
      negotiates,
      reached,
      upstreamCaps: printCaps(up),
      downstreamCaps: printCaps(down),
      caps: printCaps(result),
      memory: Object.freeze(memory),
      reasons: Object.freeze(reasons),
      notes: Object.freeze(notes),
    }));
  });

  const memoryCheck = options.requireMemory
    ? memoryCheckOf(links, options.requireMemory)
    : undefined;

  return Object.freeze({
    description,
    elements: elementReports(pipeline.elements, names, infos, choices),
    links: Object.freeze(links),
    negotiates: firstFailure === undefined,
    firstFailure,
    memoryCheck,
  });

  function outputOf(index: number): Caps {
    const cached = outCache.get(index);
    if (cached) return cached;
    const info = infos[index]!;
    const el = pipeline.elements[index]!;
    const src = templateCaps(info, "src");
    const inc = incoming.get(index);
    // Input unknown (no link in, or the link in failed): anything the element accepts.
    const input = inc?.ok ? inc.caps : acceptOf(el, info);
    const out = transform(choices[index]!.behaviour, input, src, el);
    outCache.set(index, out);
    return out;
  }
}

/** The report's element list: each element's instance name, behaviour and version. */
function elementReports(
  elements: readonly PipelineElement[],
  names: readonly string[],
  infos: readonly ElementInfo[],
  choices: readonly BehaviourChoice[],
): readonly ElementReport[] {
  return Object.freeze(elements.map((e, i) =>
    Object.freeze({
      index: e.index,
      factory: e.factory,
      name: names[i]!,
      behaviour: choices[i]!.behaviour.kind,
      behaviourSource: choices[i]!.source,
      longName: infos[i]!.details["Long-name"],
      version: infos[i]!.plugin["Version"],
    })
  ));
}

/**
 * What the upstream element of a link leaves open: a src template taken on trust, output
 * that depends on the stream, pads that appear only while playing.
 */
function upstreamNotes(
  fromName: string,
  from: PipelineElement,
  fromInfo: ElementInfo,
  choice: BehaviourChoice,
): string[] {
  const notes: string[] = [];
  if (choice.behaviour.kind === "template" && choice.source === "templates") {
    notes.push(
      `${fromName} (${from.factory}) is not a known converter: assumed it can output anything ` +
        "in its src template, whatever it receives",
    );
  }
  if (/Decoder|Demuxer|Depayloader/.test(fromInfo.details["Klass"] ?? "")) {
    notes.push(
      `${fromName} is a ${
        /Decoder/.test(fromInfo.details["Klass"]!) ? "decoder" : "demuxer"
      }: what it outputs depends on the stream; its template lists what it can produce, ` +
        "so this link can still fail with not-negotiated while streaming",
    );
  }
  if (fromInfo.padTemplates.some((t) => t.direction === "src" && t.presence === "sometimes")) {
    notes.push(
      `${fromName} has "sometimes" src pads: gst-launch-1.0 links them only when they appear`,
    );
  }
  return notes;
}

/** Which negotiated links do not carry the `required` memory, and how to force it. */
function memoryCheckOf(links: readonly LinkReport[], required: string): MemoryCheck {
  const offenders = links
    .filter((l) => l.negotiates && l.memory[0] !== required)
    .map((l) => ({
      number: l.number,
      memory: l.memory[0] ?? "none",
      message: l.memory.includes(required)
        ? `link ${l.number} (${l.from} → ${l.to}) can carry ${required} but prefers ${
          l.memory[0]
        }: ` +
          `add a caps filter with (${required}) to force it`
        : `link ${l.number} (${l.from} → ${l.to}) carries ${l.memory.join(", ")}, not ${required}`,
    }));
  return Object.freeze({
    required,
    ok: offenders.length === 0,
    offenders: Object.freeze(offenders),
  });
}

/**
 * Analyzes a pipeline description given as text.
 *
 * @example
 * ```ts
 * import { analyzeDescription } from "./analyze.ts";
 * import { parseGstInspect } from "./inspect.ts";
 * import { strictEqual } from "node:assert/strict";
 * const any = (dir: string) =>
 *   `Pad Templates:\n  ${dir} template: 'x'\n    Availability: Always\n    Capabilities:\n      ANY\n`;
 * const els = new Map([["fakesrc", parseGstInspect(any("SRC"), "fakesrc")],
 *   ["fakesink", parseGstInspect(any("SINK"), "fakesink")]]);
 * strictEqual(analyzeDescription("fakesrc ! video/x-raw ! fakesink", els).negotiates, true);
 * ```
 */
export function analyzeDescription(
  description: string,
  elements: ReadonlyMap<string, ElementInfo>,
  options: AnalyzeOptions = {},
): CapsReport {
  return analyzePipeline(parsePipeline(description), elements, options, description);
}

/**
 * Analyzes the link from one element's src pads to another's sink pads,
 * optionally through a caps filter.
 *
 * @example
 * ```ts
 * import { analyzePair } from "./analyze.ts";
 * import { parseGstInspect } from "./inspect.ts";
 * import { strictEqual } from "node:assert/strict";
 * const t = (dir: string, caps: string) =>
 *   `Pad Templates:\n  ${dir} template: 'p'\n    Availability: Always\n    Capabilities:\n      ${caps}\n`;
 * const report = analyzePair(
 *   parseGstInspect(t("SRC", "video/x-raw(memory:NVMM)"), "camsrc"),
 *   parseGstInspect(t("SINK", "video/x-raw(memory:NVMM)"), "npu"),
 * );
 * strictEqual(report.links[0]!.memory[0], "memory:NVMM");
 * ```
 */
export function analyzePair(
  upstream: ElementInfo,
  downstream: ElementInfo,
  options: AnalyzeOptions & { filter?: string } = {},
): CapsReport {
  const same = upstream.factory === downstream.factory;
  const upKey = same ? `${upstream.factory}` : upstream.factory;
  const downKey = same ? `${downstream.factory}~2` : downstream.factory;
  const filter = options.filter === undefined ? undefined : parseCaps(options.filter);
  const pipeline: Pipeline = {
    elements: [
      { index: 0, factory: upKey, name: undefined, props: {}, column: 1 },
      { index: 1, factory: downKey, name: undefined, props: {}, column: 1 },
    ],
    links: [{
      from: 0,
      to: 1,
      fromPad: undefined,
      toPad: undefined,
      filter,
      filterText: options.filter,
    }],
  };
  const map = new Map([[upKey, upstream], [downKey, { ...downstream, factory: downKey }]]);
  const description = `${upstream.factory} ! ${
    options.filter ? `${options.filter} ! ` : ""
  }${downstream.factory}`;
  const report = analyzePipeline(pipeline, map, options, description);
  if (!same) return report;
  // Present the second instance under its real factory name.
  return Object.freeze({
    ...report,
    elements: Object.freeze(report.elements.map((e) => ({ ...e, factory: downstream.factory }))),
  });
}

function noPad(name: string, dir: "src" | "sink"): Reason {
  return {
    kind: "media-type",
    upstream: dir === "src" ? "(no src pad)" : "",
    downstream: dir === "sink" ? "(no sink pad)" : "",
    message: `${name} has no ${dir} pad template`,
    fix: dir === "src"
      ? `${name} is a sink: nothing can be linked after it`
      : `${name} is a source: nothing can be linked into it`,
  };
}

function diagnose(
  up: Caps,
  down: Caps,
  filter: Caps | undefined,
  fromName: string,
  toName: string,
  notes: string[],
): Reason[] {
  const FILTER = "the caps filter";
  if (filter) {
    if (isEmptyCaps(intersectCaps(up, filter))) {
      addFilterNote(up, down, fromName, toName, notes);
      return explainMismatch(up, filter, { upstream: fromName, downstream: FILTER });
    }
    if (isEmptyCaps(intersectCaps(filter, down))) {
      addFilterNote(up, down, fromName, toName, notes);
      return explainMismatch(filter, down, { upstream: FILTER, downstream: toName });
    }
    const through = intersectCaps(up, filter);
    return explainMismatch(through, down, { upstream: fromName, downstream: toName });
  }
  return explainMismatch(up, down, { upstream: fromName, downstream: toName });
}

function addFilterNote(up: Caps, down: Caps, from: string, to: string, notes: string[]): void {
  const without = intersectCaps(down, up);
  if (!isEmptyCaps(without)) {
    notes.push(
      `without the caps filter ${from} → ${to} would negotiate (${memoriesOf(without).join(", ")})`,
    );
  }
}

function acceptOf(el: PipelineElement, info: ElementInfo): Caps {
  const sink = templateCaps(info, "sink");
  const prop = capsProperty(el);
  return prop ? intersectCaps(sink, prop) : sink;
}

// A capsfilter element's caps= property restricts both of its pads.
function capsProperty(el: PipelineElement): Caps | undefined {
  if (el.factory !== "capsfilter" || el.props["caps"] === undefined) return undefined;
  return parseCaps(el.props["caps"]);
}

function transform(b: ElementBehaviour, input: Caps, src: Caps, el: PipelineElement): Caps {
  switch (b.kind) {
    case "source":
    case "template":
      return src;
    case "sink":
      return EMPTY_CAPS;
    case "passthrough": {
      const through = intersectCaps(input, src);
      const prop = capsProperty(el);
      return prop ? intersectCaps(through, prop) : through;
    }
    case "uploader": {
      if (src.any) return parseCaps(`video/x-raw(${b.memory})`);
      const structures = src.structures.flatMap((s): CapsStructure[] => {
        if (s.features === "ANY") return [{ ...s, features: [b.memory] }];
        return memoryOf(s.features) === b.memory ? [s] : [];
      });
      return Object.freeze({ any: false, structures: Object.freeze(structures) });
    }
    case "converter": {
      if (input.any) return src;
      const freed = input.structures.map((s): CapsStructure => {
        const mem = memoryOf(s.features);
        if (b.systemMemoryOnly && mem !== SYSTEM_MEMORY && mem !== "ANY") return s;
        return Object.freeze({
          name: s.name,
          features: b.freesMemory ? "ANY" : s.features,
          fields: Object.freeze(s.fields.filter((f) => !b.frees.includes(f.name))),
        });
      });
      return intersectCaps(Object.freeze({ any: false, structures: Object.freeze(freed) }), src);
    }
  }
}

function memoriesOf(caps: Caps): string[] {
  if (caps.any) return ["ANY"];
  const out: string[] = [];
  for (const s of caps.structures) {
    const m = memoryOf(s.features);
    if (!out.includes(m)) out.push(m);
  }
  return out;
}

function deviceMemories(caps: Caps): string[] {
  return memoriesOf(caps).filter((m) => m !== SYSTEM_MEMORY && m !== "ANY");
}

/**
 * Instance names as GStreamer gives them: the type name without `Gst`,
 * lowercased, plus a per-type counter (`GstVideoConvert` → `videoconvert0`);
 * a `-` goes before the counter when the name ends in a digit.
 */
function instanceNames(elements: readonly PipelineElement[], infos: ElementInfo[]): string[] {
  const counters = new Map<string, number>();
  return elements.map((e, i) => {
    if (e.name) return e.name;
    const type = infos[i]!.hierarchy.at(-1);
    const base = type ? type.replace(/^Gst/, "").toLowerCase() : e.factory.replace(/~2$/, "");
    const n = counters.get(base) ?? 0;
    counters.set(base, n + 1);
    return /\d$/.test(base) ? `${base}-${n}` : `${base}${n}`;
  });
}
