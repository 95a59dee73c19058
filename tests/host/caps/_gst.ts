// Whether the GStreamer command-line tools are here. In CI (CI=true) tests that
// need them must fail when they are missing, not be skipped.

import { haveGstTool } from "../../../lib/caps/mod.ts";
import { inCI } from "../formats/_headers.ts";

export const haveLaunch = await haveGstTool("gst-launch-1.0");
export const haveInspect = await haveGstTool("gst-inspect-1.0");

/** Options for Deno.test: ignored outside CI when the tools are missing. */
export function needsGst(): { ignore: boolean } {
  return { ignore: !(haveLaunch && haveInspect) && !inCI };
}

/** Throws (in CI) when the tools are missing. */
export function requireGst(): void {
  if (!haveLaunch || !haveInspect) {
    throw new Error(
      "gst-launch-1.0 / gst-inspect-1.0 not found: install gstreamer1.0-tools, " +
        "gstreamer1.0-plugins-base, -good, -bad (CI=true makes this a failure)",
    );
  }
}
