/**
 * Which Metis driver is loaded, and what that version does differently.
 *
 * Axelera's `metis.ko` comes in two source generations with the same dma-buf ABI
 * (`DMA_ATTACH`, `DMA_XFER` over every scatterlist entry, one buffer per file, and
 * `GET_DMA_STATS`, which 1.4.4's `metis-ioctl.c` serves as 1.6.2's `axl-aipu-ioctl.c` does):
 * - **1.x** (`metis-*.c`, e.g. 1.4.4): module parameters `dma_timeout`, `irq_timeout`,
 *   `single_msi`, `dma_poll`; eDMA descriptors written to card memory; no DMA trace ring.
 * - **1.6.x** (`axl-aipu-*.c`, e.g. 1.6.2): adds a DMA trace ring in debugfs
 *   (`dma_trace_entries` entries: size, channel, sg entries, timestamps per transfer)
 *   and `enable_sg_host_dma` (descriptors built in host memory and copied to the card by
 *   DMA, instead of written to card memory one by one).
 *
 * The version comes from `/sys/module/metis/version` when the module declares one; the
 * parameters in `/sys/module/metis/parameters/` tell the generations apart either way.
 *
 * @module
 */

/** The module name of Axelera's driver. */
export const METIS_MODULE = "metis";

/** The source generation of a loaded metis.ko. */
export type MetisGeneration = "1.x" | "1.6.x" | "unknown";

/** Parameters only the 1.6.x generation (`axl-aipu-*.c`) declares. */
const GEN16_PARAMS = ["enable_sg_host_dma", "dma_trace_entries"] as const;

/** What sysfs shows of a loaded metis.ko, as {@linkcode parseMetisDriver} reads it. */
export interface MetisDriverFacts {
  /** Contents of `/sys/module/metis/version`, if present. */
  version?: string;
  /** Contents of `/sys/module/metis/srcversion`, if present. */
  srcversion?: string;
  /** `/sys/module/metis/parameters/*` by name, values as read; undefined when the directory is absent. */
  parameters?: Record<string, string>;
}

/** A loaded metis.ko, described. */
export interface MetisDriver {
  /** `MODULE_VERSION`, when declared. */
  version?: string;
  /** `srcversion` (a hash of the sources), when there is no version. */
  srcversion?: string;
  /** The source generation. */
  generation: MetisGeneration;
  /** How the generation was decided, in a few words. */
  basis: string;
  /** The debugfs DMA trace ring exists (1.6.x). */
  dmaTraceRing: boolean;
  /** Its size in entries (`dma_trace_entries`), when readable. */
  dmaTraceEntries?: number;
  /** 1.6.x only: descriptors are built in host memory (`enable_sg_host_dma=1`). */
  sgHostDma?: boolean;
  /** One line for doctor and info. */
  summary: string;
}

/** [major, minor] of a version like `1.6.2`, or undefined. */
function majorMinor(version: string | undefined): [number, number] | undefined {
  const m = /^v?(\d+)\.(\d+)/.exec(version ?? "");
  return m ? [Number(m[1]), Number(m[2])] : undefined;
}

function generationOf(facts: MetisDriverFacts): { generation: MetisGeneration; basis: string } {
  const params = facts.parameters;
  const gen16 = GEN16_PARAMS.filter((p) => params?.[p] !== undefined);
  if (gen16.length) return { generation: "1.6.x", basis: `parameter ${gen16.join(", ")}` };
  const mm = majorMinor(facts.version);
  if (mm) {
    const newer = mm[0] > 1 || (mm[0] === 1 && mm[1] >= 6);
    return { generation: newer ? "1.6.x" : "1.x", basis: `version ${facts.version}` };
  }
  if (params && Object.keys(params).length) {
    return {
      generation: "1.x",
      basis: `parameters without ${GEN16_PARAMS.join(" or ")}`,
    };
  }
  return { generation: "unknown", basis: "no version and no parameters in sysfs" };
}

/**
 * Describes a metis.ko from what sysfs shows of it.
 *
 * @example
 * ```ts
 * import { parseMetisDriver } from "./driver.ts";
 * const d = parseMetisDriver({
 *   version: "1.6.2\n",
 *   parameters: { enable_sg_host_dma: "0\n", dma_trace_entries: "4000\n" },
 * });
 * if (d.generation !== "1.6.x" || d.sgHostDma !== false) throw new Error(d.summary);
 * ```
 */
export function parseMetisDriver(facts: MetisDriverFacts): MetisDriver {
  const version = facts.version?.trim() || undefined;
  const srcversion = facts.srcversion?.trim() || undefined;
  const params = facts.parameters;
  const { generation, basis } = generationOf({ ...facts, version });
  const num = (name: string) => {
    const v = params?.[name]?.trim();
    return v !== undefined && /^\d+$/.test(v) ? Number(v) : undefined;
  };
  const entries = generation === "1.6.x" ? num("dma_trace_entries") : undefined;
  const sgHost = generation === "1.6.x" ? num("enable_sg_host_dma") : undefined;
  const out: MetisDriver = {
    ...(version ? { version } : {}),
    ...(srcversion && !version ? { srcversion } : {}),
    generation,
    basis,
    dmaTraceRing: generation === "1.6.x",
    ...(entries !== undefined ? { dmaTraceEntries: entries } : {}),
    ...(sgHost !== undefined ? { sgHostDma: sgHost !== 0 } : {}),
    summary: "",
  };
  out.summary = summarize(out);
  return out;
}

function summarize(d: MetisDriver): string {
  const name = `metis.ko ${d.version ?? (d.srcversion ? `srcversion ${d.srcversion}` : "")}`
    .trim();
  switch (d.generation) {
    case "1.6.x":
      return `${name}: the 1.6.x driver (axl-aipu-*.c, by ${d.basis}): a DMA trace ring in ` +
        `debugfs${
          d.dmaTraceEntries !== undefined ? ` (${d.dmaTraceEntries} entries)` : ""
        }, eDMA descriptors built ${
          d.sgHostDma === undefined
            ? "in card memory or host memory (enable_sg_host_dma unread)"
            : d.sgHostDma
            ? "in host memory (enable_sg_host_dma=1)"
            : "in card memory (enable_sg_host_dma=0)"
        }`;
    case "1.x":
      return `${name}: the 1.x driver (metis-*.c, by ${d.basis}): no DMA trace ring, ` +
        "eDMA descriptors written to card memory";
    default:
      return `${name}: driver generation unknown (${d.basis})`;
  }
}

/** The two reads {@linkcode readMetisDriver} needs (doctor's SystemView has both). */
export interface SysReader {
  /** A file's text, or undefined. */
  readText(path: string): string | undefined;
  /** A directory's entries, or undefined. */
  list(dir: string): string[] | undefined;
}

/** The live system, for {@linkcode readMetisDriver}. */
export const liveSys: SysReader = {
  readText(path) {
    try {
      return Deno.readTextFileSync(path);
    } catch {
      return undefined;
    }
  },
  list(dir) {
    try {
      return [...Deno.readDirSync(dir)].map((e) => e.name).sort();
    } catch {
      return undefined;
    }
  },
};

/**
 * Reads `/sys/module/<module>` and describes the driver; undefined when the module is not
 * loaded.
 *
 * @example
 * ```ts ignore
 * import { readMetisDriver } from "./driver.ts";
 * console.log(readMetisDriver()?.summary ?? "metis.ko is not loaded");
 * ```
 */
export function readMetisDriver(
  sys: SysReader = liveSys,
  module = METIS_MODULE,
): MetisDriver | undefined {
  const dir = `/sys/module/${module}`;
  const top = sys.list(dir);
  if (top === undefined) return undefined;
  const names = sys.list(`${dir}/parameters`);
  const parameters = names === undefined ? undefined : Object.fromEntries(
    names.map((n) => [n, sys.readText(`${dir}/parameters/${n}`) ?? ""]),
  );
  return parseMetisDriver({
    version: sys.readText(`${dir}/version`),
    srcversion: sys.readText(`${dir}/srcversion`),
    ...(parameters ? { parameters } : {}),
  });
}
