/**
 * Where Metis device nodes are and which PCI function each one drives.
 *
 * Axelera's `metis.ko` names its nodes `/dev/metis-<domain>-<bus>-<slot>`; axl.ko's
 * Metis-compatible node on metis-sim is `/dev/axl-metis-<domain>-<bus>-<slot>` (or
 * `/dev/axl-metis-platform` on its platform stand-in). All three numbers are hex
 * without padding, as both drivers print them.
 *
 * @module
 */

/** Directory the nodes live in. */
export const METIS_NODE_DIR = "/dev";

/** What a node's name says about the device behind it. */
export interface MetisNodeName {
  /** Full path of the node. */
  path: string;
  /** `metis` for Axelera's driver, `axl-metis` for axl.ko's simulator node. */
  driver: "metis" | "axl-metis";
  /** The PCI function's domain, bus and slot; absent for the platform stand-in. */
  pci?: { domain: number; bus: number; slot: number };
}

const NODE_RE = /^(axl-metis|metis)-(?:([0-9a-f]+)-([0-9a-f]+)-([0-9a-f]+)|(platform))$/;
const PCI_RE = /^(?:([0-9a-f]{4,}):)?([0-9a-f]{2}):([0-9a-f]{2})\.([0-7])$/i;

/**
 * Parses a node path such as `/dev/metis-0-1-0`; undefined for anything else.
 *
 * @example
 * ```ts
 * import { parseNodeName } from "./node.ts";
 * const n = parseNodeName("/dev/axl-metis-0-0-2");
 * console.log(n?.driver); // "axl-metis"
 * console.log(n?.pci?.slot); // 2
 * ```
 */
export function parseNodeName(path: string): MetisNodeName | undefined {
  const m = NODE_RE.exec(path.slice(path.lastIndexOf("/") + 1));
  if (!m) return undefined;
  const driver = m[1] as MetisNodeName["driver"];
  if (m[5]) return { path, driver };
  const [domain, bus, slot] = [m[2]!, m[3]!, m[4]!].map((h) => parseInt(h, 16));
  return { path, driver, pci: { domain: domain!, bus: bus!, slot: slot! } };
}

/**
 * Splits a PCI address (`0000:01:00.0`, or `01:00.0` in domain 0); throws TypeError
 * for anything else.
 *
 * @example
 * ```ts
 * import { parsePciAddress } from "./node.ts";
 * const a = parsePciAddress("0000:01:00.0");
 * console.log(a.bus); // 1
 * console.log(a.slot); // 0
 * ```
 */
export function parsePciAddress(
  address: string,
): { domain: number; bus: number; slot: number; fn: number } {
  const m = PCI_RE.exec(address);
  if (!m) {
    throw new TypeError(
      `not a PCI address: '${address}' (expected e.g. 0000:01:00.0, as lspci -D prints it)`,
    );
  }
  return {
    domain: parseInt(m[1] ?? "0", 16),
    bus: parseInt(m[2]!, 16),
    slot: parseInt(m[3]!, 16),
    fn: parseInt(m[4]!, 10),
  };
}

/**
 * The node paths a PCI function would have: Axelera's driver's first, then axl.ko's.
 *
 * @example
 * ```ts
 * import { nodePathsForPci } from "./node.ts";
 * const [real, sim] = nodePathsForPci("0000:00:02.0");
 * console.log(real); // "/dev/metis-0-0-2"
 * console.log(sim); // "/dev/axl-metis-0-0-2"
 * ```
 */
export function nodePathsForPci(address: string, dir = METIS_NODE_DIR): string[] {
  const a = parsePciAddress(address);
  const tail = [a.domain, a.bus, a.slot].map((n) => n.toString(16)).join("-");
  return [`${dir}/metis-${tail}`, `${dir}/axl-metis-${tail}`];
}

/**
 * The Metis nodes present: `AXL_METIS_DEVICE` alone when it is set, else every
 * `metis-*` and `axl-metis-*` node of `dir`, Axelera's driver's first.
 */
export function metisNodes(dir = METIS_NODE_DIR): string[] {
  let env: string | undefined;
  try {
    env = Deno.env.get("AXL_METIS_DEVICE") || undefined;
  } catch { /* no env permission */ }
  if (env) return [env];
  let names: string[];
  try {
    names = [...Deno.readDirSync(dir)].map((e) => e.name);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return [];
    throw err;
  }
  const nodes = names.map((n) => parseNodeName(`${dir}/${n}`)).filter((n) => n !== undefined);
  const rank = (n: MetisNodeName) => n.driver === "metis" ? 0 : 1;
  return nodes.sort((a, b) => rank(a) - rank(b) || a.path.localeCompare(b.path))
    .map((n) => n.path);
}

/** True when a GET_INFO device name (a PCI address or a platform name) is this node's device. */
export function sameDevice(node: MetisNodeName, deviceName: string): boolean {
  if (!node.pci) return !PCI_RE.test(deviceName);
  if (!PCI_RE.test(deviceName)) return false;
  const a = parsePciAddress(deviceName);
  return a.domain === node.pci.domain && a.bus === node.pci.bus && a.slot === node.pci.slot;
}
