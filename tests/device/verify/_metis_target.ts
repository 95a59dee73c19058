/**
 * What the Metis-node device tests run against: axl.ko's Metis-compatible node, the PCI
 * function behind it as bufinfo names it, and vivid's capture device. Each fails its test with
 * what is missing and how the VM rig provides it.
 *
 * @module
 */
import assert from "node:assert/strict";
import { MetisDevice } from "../../../lib/core/metis/device.ts";
import { parseNodeName, sameDevice } from "../../../lib/core/metis/node.ts";
import { listPci, METIS_SIM_DRIVER } from "../../../lib/doctor/pci.ts";
import { systemAt } from "../../../lib/doctor/system.ts";
import {
  listCaptureDevices,
  type V4l2DeviceInfo,
} from "../../../lib/frames/producers/v4l2_producer.ts";

/** The simulator's Metis node and the PCI function behind it. */
export interface MetisTarget {
  /** The node, `/dev/axl-metis-<pci address>`. */
  node: string;
  /** The PCI function bound to metis-sim behind `node`, as bufinfo names the importer. */
  pci: string;
}

/**
 * The simulator's Metis node and the PCI function bound to metis-sim behind it.
 *
 * @example
 * ```ts
 * const { node, pci } = metisTarget();
 * // axl verify --device ${node} --importer ${pci} --evidence generic
 * ```
 */
export function metisTarget(): MetisTarget {
  const node = MetisDevice.discover().find((p) => parseNodeName(p)?.driver === "axl-metis");
  assert.ok(node, "axl.ko's Metis-compatible node /dev/axl-metis-* is present");
  const name = parseNodeName(node)!;
  const fn = listPci(systemAt("/")).find((f) =>
    f.driver === METIS_SIM_DRIVER && sameDevice(name, f.address)
  );
  assert.ok(fn, `a PCI function bound to ${METIS_SIM_DRIVER} behind ${node}`);
  return { node, pci: fn.address };
}

/**
 * vivid's capture device (loaded by `scripts/vm/run.sh --vivid`).
 *
 * @example
 * ```ts
 * const camera = vividCapture().path; // e.g. /dev/video0
 * ```
 */
export function vividCapture(): V4l2DeviceInfo {
  const vivid = listCaptureDevices().find((c) => c.driver === "vivid");
  assert.ok(vivid, "vivid capture device present (scripts/vm/run.sh --vivid)");
  return vivid;
}
