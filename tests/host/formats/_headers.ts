// Locates real kernel/libdrm headers for cross-checking the format tables.
// In CI (CI=true) a missing header is a failure, not a skip.

import { existsSync, readdirSync, readFileSync } from "node:fs";

/** Reads the first existing header among the candidates, or returns null. */
export function readHeader(
  envVar: string,
  candidates: string[],
): { path: string; text: string } | null {
  const override = Deno.env.get(envVar);
  const list = override ? [override] : candidates;
  for (const path of list) {
    if (existsSync(path)) return { path, text: readFileSync(path, "utf8") };
  }
  return null;
}

/** drm_fourcc.h from libdrm-dev, linux-libc-dev or an installed kernel-headers tree. */
export function drmFourccHeader(): { path: string; text: string } | null {
  const candidates = ["/usr/include/libdrm/drm_fourcc.h", "/usr/include/drm/drm_fourcc.h"];
  try {
    for (const dir of readdirSync("/usr/src").sort().reverse()) {
      candidates.push(`/usr/src/${dir}/include/uapi/drm/drm_fourcc.h`);
    }
  } catch { /* no /usr/src */ }
  return readHeader("AXL_DRM_FOURCC_H", candidates);
}

/** videodev2.h from linux-libc-dev. */
export function videodev2Header(): { path: string; text: string } | null {
  return readHeader("AXL_VIDEODEV2_H", ["/usr/include/linux/videodev2.h"]);
}

/** Whether missing prerequisites must fail (CI) rather than be reported as ignored. */
export const inCI = /^(1|true|yes)$/i.test(Deno.env.get("CI") ?? "");

/** Parses `#define PREFIX_NAME macro('a', 'b', 'c', 'd')` lines into name → 4-char code. */
export function fourccDefines(text: string, prefix: string, macro: string): Map<string, string> {
  const re = new RegExp(
    `^#define\\s+${prefix}(\\w+)\\s+${macro}\\('(.)',\\s*'(.)',\\s*'(.)',\\s*'(.)'\\)`,
    "gm",
  );
  const out = new Map<string, string>();
  for (const m of text.matchAll(re)) out.set(m[1]!, m[2]! + m[3]! + m[4]! + m[5]!);
  return out;
}
