/**
 * Where the GStreamer tracer `axlpads` (`libgstaxltrace.so`, built by `ffi/build.sh` beside
 * the shim) is, and the environment that loads it into a GStreamer process.
 *
 * @module
 */
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** The tracer's library name in a plugin directory. */
export const GST_TRACER_LIBRARY = "libgstaxltrace.so";

/** The GStreamer tracer's name (`GST_TRACERS=axlpads`). */
export const GST_TRACER_NAME = "axlpads";

function isFile(path: string): boolean {
  try {
    return Deno.statSync(path).isFile;
  } catch {
    return false;
  }
}

/**
 * The directory holding the tracer library, or why there is none. Looked for in
 * `AXL_GST_TRACER_DIR`, then the local build (`build/<arch>/gst/`), then `gst/` next to a
 * compiled `axl` binary.
 *
 * @example
 * ```ts
 * import { gstTracerDir } from "./gst_tracer.ts";
 * const where = gstTracerDir();
 * console.log(typeof where === "string" ? where : where.unavailable);
 * ```
 */
export function gstTracerDir(): string | { unavailable: string } {
  const tried: string[] = [];
  const env = Deno.env.get("AXL_GST_TRACER_DIR");
  const candidates = env !== undefined ? [env] : [];
  try {
    candidates.push(
      fileURLToPath(new URL(`../../build/${Deno.build.arch}/gst/`, import.meta.url)),
    );
  } catch { /* not a file: URL (a compiled binary) */ }
  candidates.push(join(dirname(Deno.execPath()), "gst"));
  for (const dir of candidates) {
    if (isFile(join(dir, GST_TRACER_LIBRARY))) return resolve(dir);
    tried.push(dir);
  }
  return {
    unavailable: `${GST_TRACER_LIBRARY} not found in ${tried.join(", ")}: build it with ` +
      "'deno task build' (it needs libgstreamer1.0-dev and libgstreamer-plugins-base1.0-dev), " +
      "or set AXL_GST_TRACER_DIR",
  };
}

/**
 * The environment that makes a GStreamer process load the tracer from `dir` and append to
 * `output`, on top of `base` (the process's environment): the directory goes first in
 * `GST_PLUGIN_PATH_1_0` when that is set (GStreamer then ignores `GST_PLUGIN_PATH`), else in
 * `GST_PLUGIN_PATH`; `axlpads` is added to any `GST_TRACERS` already asked for.
 *
 * @example
 * ```ts
 * import { gstTracerEnv } from "./gst_tracer.ts";
 * import { deepStrictEqual } from "node:assert/strict";
 * deepStrictEqual(gstTracerEnv("/opt/gst", "/tmp/pads.txt", { GST_TRACERS: "latency" }), {
 *   GST_PLUGIN_PATH: "/opt/gst",
 *   GST_TRACERS: "latency;axlpads",
 *   AXL_GST_PADS: "/tmp/pads.txt",
 * });
 * ```
 */
export function gstTracerEnv(
  dir: string,
  output: string,
  base: Record<string, string>,
): Record<string, string> {
  const pathVar = base.GST_PLUGIN_PATH_1_0 !== undefined
    ? "GST_PLUGIN_PATH_1_0"
    : "GST_PLUGIN_PATH";
  const path = base[pathVar];
  const tracers = base.GST_TRACERS;
  return {
    [pathVar]: path ? `${dir}:${path}` : dir,
    GST_TRACERS: tracers ? `${tracers};${GST_TRACER_NAME}` : GST_TRACER_NAME,
    AXL_GST_PADS: resolve(output),
  };
}
