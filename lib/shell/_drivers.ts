/**
 * The driver classes the shell renders and tracks (axl.ko's `Device`, `Import`, `Job`;
 * metis.ko's `MetisDevice`), loaded on the shell's first input instead of at start-up:
 * their modules bring the options schemas (zod), the largest part of what the shell
 * would otherwise load before its first prompt. No value can be one of these before its
 * module has loaded, so an `instanceof` test answers false until then.
 *
 * @module
 */
import type { Device, Import, Job } from "../core/device.ts";
import type { MetisDevice } from "../core/metis/device.ts";

/** The driver classes. */
export interface Drivers {
  /** axl.ko's device. */
  Device: typeof Device;
  /** An import into axl.ko. */
  Import: typeof Import;
  /** A job submitted to axl.ko. */
  Job: typeof Job;
  /** A node with metis.ko's ABI. */
  MetisDevice: typeof MetisDevice;
}

/** An instance of each driver class. */
export interface DriverObjects {
  /** An open axl.ko device. */
  Device: Device;
  /** An import into axl.ko. */
  Import: Import;
  /** A job submitted to axl.ko. */
  Job: Job;
  /** An open metis.ko node. */
  MetisDevice: MetisDevice;
}

let loaded: Drivers | undefined;

/**
 * Imports the driver modules (once); the shell awaits it before running an input.
 *
 * @example
 * ```ts
 * import { loadDrivers } from "./_drivers.ts";
 * console.log(typeof (await loadDrivers()).Device.open); // "function"
 * ```
 */
export async function loadDrivers(): Promise<Drivers> {
  if (loaded) return loaded;
  const [axl, metis] = await Promise.all([
    import("../core/device.ts"),
    import("../core/metis/device.ts"),
  ]);
  loaded = { Device: axl.Device, Import: axl.Import, Job: axl.Job, MetisDevice: metis.MetisDevice };
  return loaded;
}

/**
 * The driver classes; throws when {@linkcode loadDrivers} has not finished (a bug in
 * the caller: the shell loads them before any input runs).
 *
 * @example
 * ```ts
 * import { drivers, loadDrivers } from "./_drivers.ts";
 * await loadDrivers();
 * console.log(typeof drivers().Job); // "function"
 * ```
 */
export function drivers(): Drivers {
  if (!loaded) {
    throw new Error("the shell's driver modules are not loaded yet (await loadDrivers() first)");
  }
  return loaded;
}

/**
 * True when `value` is an instance of the driver class `name` (false while the driver
 * modules are not loaded: no such value exists yet).
 *
 * @example
 * ```ts
 * import { isDriverObject } from "./_drivers.ts";
 * console.log(isDriverObject({}, "Device")); // false
 * ```
 */
export function isDriverObject<K extends keyof DriverObjects>(
  value: unknown,
  name: K,
): value is DriverObjects[K] {
  // deno-lint-ignore ban-types
  return loaded !== undefined && value instanceof (loaded[name] as unknown as Function);
}
