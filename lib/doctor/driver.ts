/**
 * Driver checks: axl.ko loaded, its device node present, the shim loadable,
 * and the driver's ABI version equal to the shim's and this build's.
 *
 * @module
 */
import { type CheckResult, fail, ok, warn } from "./check.ts";
import type { DoctorContext } from "./context.ts";

const LOAD_FIX = "install and load the module: sudo dkms install axl/<version> && sudo modprobe " +
  "axl (docs/deployment.md), or sudo insmod kernel/axl.ko from a build";

const SAME_RELEASE_FIX = "install the module, the shim and the axl binary from the same " +
  "release (dkms install, deno task build, deno task compile)";

/**
 * Checks the module, the node, the shim and the ABI versions.
 *
 * @example
 * ```ts ignore
 * for (const r of checkDriver(ctx)) console.log(r.status, r.message);
 * ```
 */
export function checkDriver(ctx: DoctorContext): CheckResult[] {
  const out: CheckResult[] = [];
  const loaded = ctx.sys.kind("/sys/module/axl") === "dir";
  if (loaded) {
    const state = ctx.sys.readText("/sys/module/axl/initstate")?.trim();
    out.push(
      state === undefined || state === "live"
        ? ok("driver", `axl.ko loaded${state ? ` (${state})` : ""}`)
        : fail("driver", `axl.ko is ${state}`, "wait for it to finish loading, or reload it"),
    );
  } else {
    out.push(fail("driver", "axl.ko is not loaded (/sys/module/axl missing)", LOAD_FIX));
  }

  const node = ctx.devicePath;
  const kind = ctx.sys.kind(node);
  if (kind === "missing") {
    out.push(
      fail(
        "device-node",
        `${node} does not exist`,
        loaded ? "the module is loaded but no node appeared: check dmesg and udev" : LOAD_FIX,
      ),
    );
  } else {
    out.push(ok("device-node", node));
  }

  const shim = ctx.probeShim();
  if (shim === undefined) {
    out.push(warn("shim", "not probed: a captured tree", "run axl doctor on the device itself"));
  } else if (!shim.ok) {
    out.push(fail("shim", shim.error.split("\n")[0]!, shim.error.split("\n").slice(1).join(" ")));
  } else {
    out.push(ok("shim", `${shim.path} (${shim.source}), uapi ABI ${shim.abiVersion}`));
  }

  if (kind === "missing") return out;
  const info = ctx.probeDriver();
  if (info === undefined) {
    out.push(warn("abi", "not probed: a captured tree", "run axl doctor on the device itself"));
  } else if (!info.ok) {
    out.push(
      fail(
        "abi",
        `cannot ask the driver: ${info.error}`,
        /EPROTO|ENOTTY/.test(info.error)
          ? SAME_RELEASE_FIX
          : /EACCES|EPERM/.test(info.error)
          ? `run as root or give this user access to ${node}`
          : "check dmesg",
      ),
    );
  } else {
    const versions = [`driver ${info.abiVersion}`, `this build ${ctx.expectedAbi}`];
    if (shim?.ok) versions.splice(1, 0, `shim ${shim.abiVersion}`);
    const same = info.abiVersion === ctx.expectedAbi &&
      (!shim?.ok || shim.abiVersion === ctx.expectedAbi);
    const what = `ABI ${versions.join(", ")}; engine ${info.engine} on ${info.device}`;
    out.push(
      same ? ok("abi", what) : fail(
        "abi",
        `ABI mismatch: ${what}`,
        SAME_RELEASE_FIX,
      ),
    );
  }
  return out;
}
