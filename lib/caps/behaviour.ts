/**
 * How an element's output caps follow from its input caps, which gst-inspect
 * does not say. A few elements are known by name; the rest are classified from
 * their pad templates:
 *
 * - `source` / `sink`: no sink / no src pads.
 * - `passthrough`: ANY in and ANY out (queue, identity, tee): output = input.
 * - `converter`: output = input with some fields freed (videoconvert frees
 *   format, videoscale frees width and height), then limited by the src template.
 *   `systemMemoryOnly` converters convert system memory only and pass other
 *   memory through untouched (as videoconvert and videoscale do); `freesMemory`
 *   converters change memory too (nvvidconv: NVMM ↔ system memory).
 * - `template`: anything in the src template, whatever the input (encoders,
 *   decoders, unknown elements). The analysis says when it had to assume this.
 *
 * @module
 */

import type { ElementInfo } from "./inspect.ts";
import { templateCaps } from "./inspect.ts";

/** The model of one element. */
export type ElementBehaviour =
  | { readonly kind: "source" }
  | { readonly kind: "sink" }
  | { readonly kind: "passthrough" }
  | {
    readonly kind: "converter";
    /** Fields the element may change. */
    readonly frees: readonly string[];
    /** Converts system memory only; other memory must pass through unchanged. */
    readonly systemMemoryOnly: boolean;
    /** Can change the memory type (e.g. copy NVMM to system memory). */
    readonly freesMemory: boolean;
  }
  | { readonly kind: "template" }
  | {
    /** Outputs exactly these features (e.g. glupload → memory:GLMemory). */
    readonly kind: "uploader";
    readonly memory: string;
  };

/** Where a behaviour came from: the built-in table or a guess from templates. */
export interface BehaviourChoice {
  /** How the element treats caps and memory. */
  readonly behaviour: ElementBehaviour;
  /** `known` from the built-in table, `templates` guessed from its pad templates. */
  readonly source: "known" | "templates";
}

const COLOR = ["format", "colorimetry", "chroma-site"];
const SIZE = ["width", "height", "pixel-aspect-ratio"];

const conv = (
  frees: string[],
  systemMemoryOnly: boolean,
  freesMemory = false,
): ElementBehaviour => Object.freeze({ kind: "converter", frees, systemMemoryOnly, freesMemory });

/**
 * Behaviours of elements known by factory name. The GStreamer ones were checked
 * against gst-launch-1.0 1.22 (see the caps tests); the NVIDIA ones follow
 * NVIDIA's documentation (NVMM ↔ system memory, format and size conversion).
 */
export const KNOWN_BEHAVIOURS: ReadonlyMap<string, ElementBehaviour> = new Map<
  string,
  ElementBehaviour
>([
  ["videoconvert", conv(COLOR, true)],
  ["videoscale", conv(SIZE, true)],
  ["videoconvertscale", conv([...COLOR, ...SIZE], true)],
  ["videorate", conv(["framerate", "max-framerate"], false)],
  ["videoflip", conv(SIZE, true)],
  ["audioconvert", conv(["format", "channels", "channel-mask", "layout"], true)],
  ["audioresample", conv(["rate"], true)],
  ["nvvidconv", conv([...COLOR, ...SIZE], false, true)],
  ["nvvideoconvert", conv([...COLOR, ...SIZE], false, true)],
  ["glupload", Object.freeze({ kind: "uploader", memory: "memory:GLMemory" })],
]);

/**
 * Chooses the behaviour for an element: the known table first, else from its
 * pad templates.
 *
 * @example
 * ```ts
 * import { behaviourOf } from "./behaviour.ts";
 * import { parseGstInspect } from "./inspect.ts";
 * import { strictEqual } from "node:assert/strict";
 * const queue = parseGstInspect(
 *   "Pad Templates:\n  SINK template: 'sink'\n    Availability: Always\n    Capabilities:\n      ANY\n" +
 *     "  SRC template: 'src'\n    Availability: Always\n    Capabilities:\n      ANY\n",
 *   "queue",
 * );
 * strictEqual(behaviourOf(queue).behaviour.kind, "passthrough");
 * ```
 */
export function behaviourOf(info: ElementInfo): BehaviourChoice {
  const known = KNOWN_BEHAVIOURS.get(info.factory);
  if (known) return { behaviour: known, source: "known" };
  const sinks = info.padTemplates.filter((t) => t.direction === "sink");
  const srcs = info.padTemplates.filter((t) => t.direction === "src");
  if (sinks.length === 0) return { behaviour: { kind: "source" }, source: "templates" };
  if (srcs.length === 0) return { behaviour: { kind: "sink" }, source: "templates" };
  if (templateCaps(info, "sink").any && templateCaps(info, "src").any) {
    return { behaviour: { kind: "passthrough" }, source: "templates" };
  }
  return { behaviour: { kind: "template" }, source: "templates" };
}
