// Element capabilities from the captured fixtures, for offline analysis tests.

import { type ElementInfo, parseGstInspect, parsePipeline } from "../../../lib/caps/mod.ts";

export const GST_DIR = new URL("../../fixtures/gst/gstreamer-1.22/", import.meta.url);
export const JETSON_DIR = new URL("../../fixtures/gst/jetson-illustrative/", import.meta.url);

/** Loads every factory of a description from the fixture directories. */
export async function elementsFor(description: string): Promise<Map<string, ElementInfo>> {
  const out = new Map<string, ElementInfo>();
  for (const e of parsePipeline(description).elements) {
    if (out.has(e.factory)) continue;
    let text: string | undefined;
    for (const dir of [GST_DIR, JETSON_DIR]) {
      try {
        text = await Deno.readTextFile(new URL(`${e.factory}.txt`, dir));
        break;
      } catch (err) {
        if (!(err instanceof Deno.errors.NotFound)) throw err;
      }
    }
    if (text === undefined) throw new Error(`no fixture for ${e.factory}`);
    out.set(e.factory, parseGstInspect(text, e.factory));
  }
  return out;
}
