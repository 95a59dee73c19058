/**
 * Which Metis driver is loaded, and what that version does differently.
 *
 * Axelera's `metis.ko` comes from two source trees with the same dma-buf ABI (`DMA_ATTACH`,
 * `DMA_XFER` over every scatterlist entry, one buffer per file, and `GET_DMA_STATS`):
 * - **`metis-*.c`** (1.4.4): module parameters `dma_timeout`, `irq_timeout`, `single_msi`,
 *   `dma_poll`; debugfs `dma-statistics` but no DMA trace.
 * - **`axl-aipu-*.c`** (1.4.16, and so 1.4.17, whose source is not published; 1.5.6; 1.6.2):
 *   adds `europa_veloce`, `enable_sg_host_dma` (descriptors built in host memory and copied to
 *   the card by DMA) and `dma_trace_entries`, and debugfs `dma-trace`, a ring of one line per
 *   transfer. 1.4.16 and 1.6.2 declare the same parameters: only the version tells them
 *   apart. 1.6.2 adds `GET_USER_PA`.
 *
 * The generation is named by the version (`/sys/module/metis/version`, `MODULE_VERSION`) and
 * the source tree by the parameters (`/sys/module/metis/parameters/`). axl.ko's simulated node
 * presents one release (`metis_generation=`) in the same shape under
 * `/sys/class/misc/<node>/metis/version` and `metis_parameters/` ({@linkcode readSimMetisDriver}).
 *
 * @module
 */

/** The module name of Axelera's driver. */
export const METIS_MODULE = "metis";

/**
 * The generation of a loaded metis.ko: `1.x` is the `metis-*.c` tree (1.4.4); `1.4.x`
 * (1.4.16, 1.4.17), `1.5.x` and `1.6.x` are `axl-aipu-*.c` releases; `axl-aipu` is that tree
 * without a version to say which.
 */
export type MetisGeneration = "1.x" | "1.4.x" | "1.5.x" | "1.6.x" | "axl-aipu" | "unknown";

/** Parameters only the `axl-aipu-*.c` tree (1.4.16 and later) declares. */
const AIPU_PARAMS = ["enable_sg_host_dma", "dma_trace_entries"] as const;

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
  /** The generation. */
  generation: MetisGeneration;
  /** How the generation was decided, in a few words. */
  basis: string;
  /** debugfs `dma-trace` exists (the `axl-aipu-*.c` tree). */
  dmaTraceRing: boolean;
  /** Its size in entries (`dma_trace_entries`), when readable. */
  dmaTraceEntries?: number;
  /** `axl-aipu-*.c` only: descriptors are built in host memory (`enable_sg_host_dma=1`). */
  sgHostDma?: boolean;
  /** axl.ko's simulated node presenting this release, not Axelera's driver. */
  simulated?: boolean;
  /** One line for doctor and info. */
  summary: string;
}

/** [major, minor, patch] of a version like `1.6.2`, or undefined. */
function triple(version: string | undefined): [number, number, number] | undefined {
  const m = /^v?(\d+)\.(\d+)(?:\.(\d+))?/.exec(version ?? "");
  return m ? [Number(m[1]), Number(m[2]), Number(m[3] ?? 0)] : undefined;
}

function generationOf(facts: MetisDriverFacts): { generation: MetisGeneration; basis: string } {
  const params = facts.parameters;
  const aipu = AIPU_PARAMS.filter((p) => params?.[p] !== undefined);
  const v = triple(facts.version);
  // The tree: by the parameters when sysfs shows them, else by the version.
  let tree: "metis" | "axl-aipu" | undefined;
  let basis: string;
  if (params && Object.keys(params).length) {
    tree = aipu.length ? "axl-aipu" : "metis";
    basis = aipu.length
      ? `parameter ${aipu.join(", ")}`
      : `parameters without ${AIPU_PARAMS.join(" or ")}`;
  } else if (v) {
    const recent = v[0] > 1 || v[1] > 4 || (v[1] === 4 && v[2] >= 16);
    tree = recent ? "axl-aipu" : "metis";
    basis = "";
  } else {
    return { generation: "unknown", basis: "no version and no parameters in sysfs" };
  }
  const by = (what: string) => basis ? `version ${facts.version}, ${basis}` : what;
  if (tree === "metis") return { generation: "1.x", basis: by(`version ${facts.version}`) };
  if (!v) return { generation: "axl-aipu", basis };
  const generation = v[0] > 1 || v[1] >= 6 ? "1.6.x" : v[1] === 5 ? "1.5.x" : "1.4.x";
  return { generation, basis: by(`version ${facts.version}`) };
}

/**
 * Describes a metis.ko from what sysfs shows of it.
 *
 * @example
 * ```ts
 * import { parseMetisDriver } from "./driver.ts";
 * const d = parseMetisDriver({
 *   version: "1.4.17\n",
 *   parameters: { enable_sg_host_dma: "0\n", dma_trace_entries: "4000\n" },
 * });
 * console.log(d.generation); // "1.4.x"
 * console.log(d.dmaTraceRing); // true
 * ```
 */
export function parseMetisDriver(facts: MetisDriverFacts, simulated = false): MetisDriver {
  const version = facts.version?.trim() || undefined;
  const srcversion = facts.srcversion?.trim() || undefined;
  const params = facts.parameters;
  const { generation, basis } = generationOf({ ...facts, version });
  const num = (name: string) => {
    const v = params?.[name]?.trim();
    return v !== undefined && /^\d+$/.test(v) ? Number(v) : undefined;
  };
  const ring = generation !== "1.x" && generation !== "unknown";
  const entries = ring ? num("dma_trace_entries") : undefined;
  const sgHost = ring ? num("enable_sg_host_dma") : undefined;
  const out: MetisDriver = {
    ...(version ? { version } : {}),
    ...(srcversion && !version ? { srcversion } : {}),
    generation,
    basis,
    dmaTraceRing: ring,
    ...(entries !== undefined ? { dmaTraceEntries: entries } : {}),
    ...(sgHost !== undefined ? { sgHostDma: sgHost !== 0 } : {}),
    ...(simulated ? { simulated } : {}),
    summary: "",
  };
  out.summary = summarize(out);
  return out;
}

function summarize(d: MetisDriver): string {
  const who = d.simulated ? "axl.ko's metis-sim presenting metis.ko" : "metis.ko";
  const name = `${who} ${d.version ?? (d.srcversion ? `srcversion ${d.srcversion}` : "")}`
    .trim();
  const descriptors = d.sgHostDma === undefined
    ? "in card memory or host memory (enable_sg_host_dma unread)"
    : d.sgHostDma
    ? "in host memory (enable_sg_host_dma=1)"
    : "in card memory (enable_sg_host_dma=0)";
  const trace = `a DMA trace in debugfs (dma-trace${
    d.dmaTraceEntries !== undefined ? `, ${d.dmaTraceEntries} entries` : ""
  }) beside dma-statistics`;
  switch (d.generation) {
    case "1.6.x":
    case "1.5.x":
    case "1.4.x":
      return `${name}: the ${d.generation} driver (axl-aipu-*.c, by ${d.basis}): ${trace}, ` +
        `eDMA descriptors built ${descriptors}`;
    case "axl-aipu":
      return `${name}: an axl-aipu-*.c driver, 1.4.16 or later (by ${d.basis}; no version ` +
        `to say which): ${trace}, eDMA descriptors built ${descriptors}`;
    case "1.x":
      return `${name}: the 1.x driver (metis-*.c, by ${d.basis}): no DMA trace (dma-statistics ` +
        "only), eDMA descriptors written to card memory";
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

/**
 * Reads what axl.ko's simulated node `node` (`/dev/axl-metis-…`) presents of metis.ko: the
 * release chosen with `metis_generation=`, shown under `/sys/class/misc/<node>/metis/version`
 * and `/sys/class/misc/<node>/metis_parameters/`, where metis.ko shows them under
 * `/sys/module/metis`. Undefined when the node shows neither (an axl.ko without them).
 *
 * @example
 * ```ts ignore
 * import { readSimMetisDriver } from "./driver.ts";
 * console.log(readSimMetisDriver("/dev/axl-metis-0-0-2")?.summary);
 * ```
 */
export function readSimMetisDriver(
  node: string,
  sys: SysReader = liveSys,
): MetisDriver | undefined {
  const dir = `/sys/class/misc/${node.replace(/^\/dev\//, "")}`;
  const version = sys.readText(`${dir}/metis/version`);
  const names = sys.list(`${dir}/metis_parameters`);
  if (version === undefined && names === undefined) return undefined;
  const parameters = names === undefined ? undefined : Object.fromEntries(
    names.map((n) => [n, sys.readText(`${dir}/metis_parameters/${n}`) ?? ""]),
  );
  return parseMetisDriver({
    ...(version !== undefined ? { version } : {}),
    ...(parameters ? { parameters } : {}),
  }, true);
}
