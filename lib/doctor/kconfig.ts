/**
 * The running kernel's build configuration: `/proc/config.gz` (L4T enables
 * `CONFIG_IKCONFIG_PROC`), else `/boot/config-<release>` (Debian and Ubuntu).
 *
 * @module
 */
import { gunzipSync } from "node:zlib";
import type { SystemView } from "./system.ts";

/** A parsed kernel config and where it came from. */
export interface KernelConfig {
  /** Path the config was read from. */
  source: string;
  /** `NAME` (without `CONFIG_`) → value (`y`, `m`, a number or a string). */
  values: Map<string, string>;
}

/**
 * Parses `.config` text. Options that are `# ... is not set` or absent are
 * both missing from the map.
 *
 * @example
 * ```ts
 * import { parseKernelConfig } from "./kconfig.ts";
 * const v = parseKernelConfig('CONFIG_CMA=y\n# CONFIG_IKCONFIG is not set\nCONFIG_X="a b"\n');
 * console.log(v.get("CMA")); // "y"
 * console.log(v.has("IKCONFIG")); // false
 * console.log(v.get("X")); // "a b"
 * ```
 */
export function parseKernelConfig(text: string): Map<string, string> {
  const values = new Map<string, string>();
  for (const line of text.split("\n")) {
    const m = /^CONFIG_([A-Za-z0-9_]+)=(.*)$/.exec(line.trim());
    if (!m) continue;
    let value = m[2]!;
    if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) {
      value = value.slice(1, -1);
    }
    values.set(m[1]!, value);
  }
  return values;
}

/** The paths {@linkcode readKernelConfig} tries, in order. */
export function kernelConfigPaths(release: string): string[] {
  return ["/proc/config.gz", `/boot/config-${release}`];
}

/**
 * Reads and parses the config of the kernel `release`; `undefined` when no
 * source is readable. A corrupt `/proc/config.gz` throws.
 *
 * @example
 * ```ts ignore
 * import { readKernelConfig } from "./kconfig.ts";
 * import { systemAt } from "./system.ts";
 * const sys = systemAt("/");
 * const cfg = readKernelConfig(sys, sys.readText("/proc/sys/kernel/osrelease")!.trim());
 * console.log(cfg?.source, cfg?.values.get("DMABUF_HEAPS"));
 * ```
 */
export function readKernelConfig(sys: SystemView, release: string): KernelConfig | undefined {
  for (const path of kernelConfigPaths(release)) {
    const bytes = sys.readBytes(path);
    if (bytes === undefined) continue;
    let text: string;
    if (path.endsWith(".gz")) {
      try {
        text = new TextDecoder().decode(gunzipSync(bytes));
      } catch (err) {
        throw new Error(
          `${path} is not valid gzip data: ${err instanceof Error ? err.message : err}`,
        );
      }
    } else {
      text = new TextDecoder().decode(bytes);
    }
    return { source: path, values: parseKernelConfig(text) };
  }
  return undefined;
}
