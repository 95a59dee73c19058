/**
 * The importing device whose imports verify counts, named as bufinfo and the probe events
 * name it (`dev_name()`: a PCI address such as `0000:01:00.0`, `vivid.0`, `vgem`). By
 * default: the axl device (our `axl.ko`, PCI driver `axl-metis-sim`), else the Metis PCI
 * function bound to Axelera's `metis.ko` (whose PCI driver is also called `axl`, vendor
 * `0x1f9d`: the vendor tells the two apart).
 *
 * @module
 */
import { AXELERA_VENDOR, listPci, METIS_SIM_DRIVER } from "../../doctor/pci.ts";
import { METIS_KO_PCI_DRIVER } from "../../doctor/metis_ko.ts";
import type { SystemView } from "../../doctor/system.ts";
import type { ImporterRecord } from "./source.ts";

/**
 * What is wrong with `name` as an `--importer` value (empty, or with white space: no
 * device name has any), or undefined when it can name a device.
 *
 * @example
 * ```ts
 * import { importerNameProblem } from "./importer.ts";
 * console.log(importerNameProblem("vivid.0")); // undefined: a usable name
 * console.log(importerNameProblem("a b"));
 * // "--importer must be a device name as bufinfo prints it (e.g. 0000:01:00.0, vgem), got 'a b'"
 * ```
 */
export function importerNameProblem(name: string): string | undefined {
  if (name.trim() && !/\s/.test(name)) return undefined;
  return `--importer must be a device name as bufinfo prints it (e.g. 0000:01:00.0, vgem), ` +
    `got '${name}'`;
}

/**
 * Chooses the importer: `explicit` (from `--importer`) when given, else `axlDevice` (the
 * device the builtin workload opened), else what sysfs shows bound to axl.ko or metis.ko.
 *
 * @example
 * ```ts
 * import { chooseImporter } from "./importer.ts";
 * import { systemAt } from "../../doctor/system.ts";
 * const empty = systemAt(Deno.makeTempDirSync());
 * const r = chooseImporter(empty, { explicit: "vgem" });
 * console.log(r.name); // "vgem"
 * console.log(r.axl); // false
 * ```
 */
export function chooseImporter(
  sys: SystemView,
  o: { explicit?: string; axlDevice?: string },
): ImporterRecord {
  const fns = listPci(sys);
  const ours = o.axlDevice ??
    fns.find((f) => f.driver === METIS_SIM_DRIVER)?.address;
  if (o.explicit !== undefined) {
    const problem = importerNameProblem(o.explicit);
    if (problem) throw new TypeError(problem);
    return { name: o.explicit, axl: o.explicit === ours, reason: "--importer" };
  }
  if (ours) {
    return { name: ours, axl: true, reason: "the axl device (axl.ko, PCI driver axl-metis-sim)" };
  }
  const metis = fns.filter((f) => f.vendor === AXELERA_VENDOR && f.driver === METIS_KO_PCI_DRIVER);
  if (metis.length > 0) {
    const more = metis.length > 1
      ? ` (first of ${metis.length}: ${metis.map((f) => f.address).join(", ")}; ` +
        "pick one with --importer)"
      : "";
    return {
      name: metis[0]!.address,
      axl: false,
      reason: `the Metis PCI function bound to Axelera's metis.ko${more}`,
    };
  }
  return {
    name: null,
    axl: false,
    reason: "no axl device and no Metis bound to metis.ko: pass --importer DEV",
  };
}
