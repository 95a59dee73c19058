/**
 * Why two caps do not intersect, in terms an engineer can act on: the media
 * type, the caps features (memory), or the fields (format, drm-format, size,
 * rate) that have no common value, each with a suggested fix.
 *
 * @module
 */

import { describeModifier, MOD_LINEAR } from "../formats/modifier.ts";
import { gstToDrm } from "../formats/gst.ts";
import { drmFormatsOf, stringsOf } from "./dma_drm.ts";
import { featuresMatch, intersectValue } from "./intersect.ts";
import { printBare, printFeatures } from "./print.ts";
import {
  type Caps,
  type CapsFeatures,
  type CapsStructure,
  type CapsValue,
  fieldValue,
  memoryOf,
  SYSTEM_MEMORY,
} from "./types.ts";

/** What kind of disagreement a reason describes. */
export type ReasonKind = "media-type" | "features" | "field";

/** One reason a link does not negotiate. */
export interface Reason {
  /** What the two sides disagree on: media type, caps features (memory) or a field. */
  readonly kind: ReasonKind;
  /** The field, for `field` reasons. */
  readonly field?: string;
  /** What the upstream side offers, printed. */
  readonly upstream: string;
  /** What the downstream side accepts, printed. */
  readonly downstream: string;
  /** One sentence. */
  readonly message: string;
  /** What would make the link negotiate. */
  readonly fix: string;
}

/** Names used in messages for the two sides. */
export interface Sides {
  /** e.g. `videotestsrc0` or `the caps filter`. */
  readonly upstream: string;
  /** e.g. `videoconvert0`. */
  readonly downstream: string;
}

// What moves frames out of a device memory into system memory, and back in
// (always a copy per frame).
const TO_SYSTEM: Record<string, string> = {
  "memory:NVMM": "nvvidconv",
  "memory:DMABuf": "mapping the dma-buf and copying it",
  "memory:GLMemory": "gldownload",
};
const FROM_SYSTEM: Record<string, string> = {
  "memory:NVMM": "nvvidconv",
  "memory:DMABuf": "an element that copies into dma-bufs it allocates",
  "memory:GLMemory": "glupload",
};

/**
 * Explains why `up` and `down` have no common caps. Returns the reasons of the
 * closest structure pair (fewest and least severe disagreements); an empty list
 * means they do intersect.
 *
 * @example
 * ```ts
 * import { explainMismatch } from "./diagnose.ts";
 * import { parseCaps } from "./parse.ts";
 * import { strictEqual } from "node:assert/strict";
 * const reasons = explainMismatch(
 *   parseCaps("video/x-raw(memory:NVMM), format=NV12"),
 *   parseCaps("video/x-raw, format={ NV12, I420 }"),
 *   { upstream: "nvvidconv0", downstream: "appsink0" },
 * );
 * strictEqual(reasons[0]!.kind, "features");
 * ```
 */
export function explainMismatch(up: Caps, down: Caps, sides: Sides): Reason[] {
  if (up.any || down.any) return [];
  if (up.structures.length === 0) {
    return [{
      kind: "media-type",
      upstream: "EMPTY",
      downstream: "",
      message: `${sides.upstream} can produce nothing here (its caps are EMPTY)`,
      fix: `check what feeds ${sides.upstream}`,
    }];
  }
  if (down.structures.length === 0) {
    return [{
      kind: "media-type",
      upstream: "",
      downstream: "EMPTY",
      message: `${sides.downstream} accepts nothing (its caps are EMPTY)`,
      fix: `${sides.downstream} is not usable in this configuration`,
    }];
  }
  let best: { score: number; reasons: Reason[] } | undefined;
  for (const su of up.structures) {
    for (const sd of down.structures) {
      const r = pairReasons(su, sd, up, down, sides);
      const score = r.reduce((n, x) => n + weight(x.kind), 0);
      if (r.length > 0 && (!best || score < best.score)) best = { score, reasons: r };
    }
  }
  return best?.reasons ?? [];
}

function weight(kind: ReasonKind): number {
  return kind === "media-type" ? 1000 : kind === "features" ? 100 : 1;
}

function pairReasons(
  su: CapsStructure,
  sd: CapsStructure,
  up: Caps,
  down: Caps,
  sides: Sides,
): Reason[] {
  if (su.name !== sd.name) return [mediaTypeReason(up, down, sides)];
  const reasons: Reason[] = [];
  if (!featuresMatch(su.features, sd.features)) {
    reasons.push(featuresReason(su.name, up, down, sides));
  }
  for (const f of su.fields) {
    const other = fieldValue(sd, f.name);
    if (other === undefined || intersectValue(f.value, other)) continue;
    reasons.push(fieldReason(f.name, f.value, other, sides));
  }
  return reasons;
}

function mediaTypes(caps: Caps): string[] {
  if (caps.any) return ["ANY"];
  return [...new Set(caps.structures.map((s) => s.name))];
}

function mediaTypeReason(up: Caps, down: Caps, sides: Sides): Reason {
  const u = mediaTypes(up);
  const d = mediaTypes(down);
  return {
    kind: "media-type",
    upstream: u.join(", "),
    downstream: d.join(", "),
    message: `media type: ${sides.upstream} produces ${list(u)}, ${sides.downstream} accepts ${
      list(d)
    }`,
    fix: `insert an element that turns ${u[0]} into ${d[0]} (a decoder, encoder, parser or ` +
      "converter), or use elements that share a media type",
  };
}

function featureSets(caps: Caps, mediaType: string): CapsFeatures[] {
  if (caps.any) return ["ANY"];
  const out: CapsFeatures[] = [];
  const seen = new Set<string>();
  for (const s of caps.structures) {
    if (s.name !== mediaType) continue;
    const key = featureText(s.features);
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(s.features);
  }
  return out;
}

function featureText(f: CapsFeatures): string {
  if (f === "ANY") return "ANY";
  if (f.length === 0) return SYSTEM_MEMORY;
  return printFeatures(f).slice(1, -1);
}

function featuresReason(mediaType: string, up: Caps, down: Caps, sides: Sides): Reason {
  const uf = featureSets(up, mediaType);
  const df = featureSets(down, mediaType);
  const u = uf.map(featureText);
  const d = df.map(featureText);
  const uMem = new Set(uf.map(memoryOf));
  const dMem = new Set(df.map(memoryOf));
  const upDevice = [...uMem].filter((m) => m !== SYSTEM_MEMORY && m !== "ANY");
  const downDevice = [...dMem].filter((m) => m !== SYSTEM_MEMORY && m !== "ANY");
  let fix: string;
  if (upDevice.length > 0 && downDevice.length === 0) {
    const mem = upDevice[0]!;
    fix = `${sides.downstream} takes system memory only, so the frame cannot stay in ${mem}: ` +
      `use a consumer whose sink template lists ${mediaType}(${mem}); a converter ` +
      `(${TO_SYSTEM[mem] ?? "a memory converter"}) would copy every frame to system memory ` +
      "and break zero-copy";
  } else if (upDevice.length === 0 && downDevice.length > 0) {
    const mem = downDevice[0]!;
    fix = `${sides.upstream} produces system memory only: use a producer that outputs ` +
      `${mediaType}(${mem}), or upload with ${FROM_SYSTEM[mem] ?? "a converter"} ` +
      "(one copy per frame)";
  } else if (upDevice.length > 0 && downDevice.length > 0 && ![...uMem].some((m) => dMem.has(m))) {
    fix = `no common memory type (${upDevice.join(", ")} vs ${downDevice.join(", ")}): ` +
      "use elements that share one, or an importer that maps one into the other without a copy";
  } else {
    fix = `make the caps features match: ${sides.upstream} offers ${list(u)}, ` +
      `${sides.downstream} accepts ${list(d)}`;
  }
  if (uMem.has("memory:DMABuf") !== dMem.has("memory:DMABuf")) {
    fix += "; note that GStreamer lets LINEAR dma-bufs travel under plain system-memory caps, " +
      "where an element that looks at the buffer's memory (e.g. a v4l2 element with " +
      "io-mode=dmabuf-import) can still import it without a copy";
  }
  return {
    kind: "features",
    upstream: u.join("; "),
    downstream: d.join("; "),
    message: `caps features (memory): ${sides.upstream} offers ${list(u)}, ${sides.downstream} ` +
      `accepts ${list(d)}`,
    fix,
  };
}

function fieldReason(name: string, u: CapsValue, d: CapsValue, sides: Sides): Reason {
  const upText = shorten(printBare(u));
  const downText = shorten(printBare(d));
  const base = {
    kind: "field" as const,
    field: name,
    upstream: printBare(u),
    downstream: printBare(d),
  };
  if (name === "drm-format") return { ...base, ...drmFormatReason(u, d, sides) };
  if (name === "format") {
    return {
      ...base,
      message: `format: ${sides.upstream} offers ${withDrm(u)}, ${sides.downstream} accepts ${
        withDrm(d)
      }`,
      fix: "insert a format converter (videoconvert for system memory, nvvidconv for " +
        "memory:NVMM; both cost a pass over the frame) or pick a format both sides list",
    };
  }
  if (isNumeric(u) && isNumeric(d)) {
    return {
      ...base,
      message: `${name}: ${sides.upstream} offers ${upText}, outside what ${sides.downstream} ` +
        `accepts (${downText})`,
      fix: `choose a ${name} within ${downText}` +
        (name === "width" || name === "height"
          ? " or scale in between (videoscale, nvvidconv)"
          : name === "framerate"
          ? " or change the rate in between (videorate)"
          : ""),
    };
  }
  return {
    ...base,
    message: `${name}: ${sides.upstream} offers ${upText}, ${sides.downstream} accepts ${downText}`,
    fix: `make ${name} agree on both sides`,
  };
}

function drmFormatReason(
  u: CapsValue,
  d: CapsValue,
  sides: Sides,
): { message: string; fix: string } {
  const parse = (v: CapsValue) =>
    drmFormatsOf({ name: "video/x-raw", features: [], fields: [{ name: "drm-format", value: v }] });
  const up = parse(u);
  const down = parse(d);
  const notes: string[] = [];
  for (const f of up) {
    const same = down.filter((g) => g.code === f.code);
    if (same.length === 0) continue;
    const mods = (xs: typeof up) =>
      [
        ...new Set(
          xs.map((x) => (x.modifier === MOD_LINEAR ? "LINEAR" : describeModifier(x.modifier).text)),
        ),
      ]
        .join("; ");
    notes.push(
      `both use ${f.fourcc} but ${sides.upstream} lays it out as ${
        mods(up.filter((x) => x.code === f.code))
      } and ${sides.downstream} takes ${mods(same)}`,
    );
    break;
  }
  const detail = notes.length > 0
    ? notes[0]!
    : `no fourcc in common (${list(stringsOf(u))} vs ${list(stringsOf(d))})`;
  return {
    message: `drm-format: ${detail}`,
    fix: "the format and modifier must match exactly: have the producer emit a modifier the " +
      "consumer lists (LINEAR is the common baseline); re-tiling in between costs a copy",
  };
}

function isNumeric(v: CapsValue): boolean {
  return ["int", "int-range", "double", "double-range", "fraction", "fraction-range"].includes(
    v.kind,
  ) || (v.kind === "list" && v.items.every(isNumeric));
}

function withDrm(v: CapsValue): string {
  const names = stringsOf(v);
  if (names.length === 0) return shorten(printBare(v));
  const shown = names.slice(0, 8).map((n) => {
    const drm = gstToDrm(n);
    return drm ? `${n} (DRM ${drm.drm})` : n;
  });
  return list(shown) + (names.length > 8 ? ` and ${names.length - 8} more` : "");
}

function list(xs: string[]): string {
  if (xs.length === 1) return xs[0]!;
  return `{ ${xs.join(", ")} }`;
}

function shorten(s: string, max = 160): string {
  return s.length <= max ? s : `${s.slice(0, max - 5)} … }`;
}
