/**
 * Builds a {@linkcode DoctorContext}: for the running system (probing the shim
 * and `/dev/axl` for real), or for a tree captured by
 * `tests/fixtures/doctor/capture.sh` (probe results from its `capture.json`).
 *
 * @module
 */
import { EXPECTED_ABI_VERSION, shimInfo } from "../core/shim.ts";
import { Device, devicePaths } from "../core/device.ts";
import {
  DEFAULT_EXPECTATIONS,
  type DoctorContext,
  type DriverProbe,
  type Expectations,
  type ShimProbe,
} from "./context.ts";
import { systemAt } from "./system.ts";

/** Options of {@linkcode doctorContext}. */
export interface ContextOptions {
  /** `/` (default) for the running system, or a captured tree. */
  root?: string;
  /** Device node; default `$AXL_DEVICE` or `/dev/axl`. */
  devicePath?: string;
  /** Overrides of {@linkcode DEFAULT_EXPECTATIONS}. */
  expect?: Partial<Expectations>;
}

/** `capture.json` of a captured tree. */
interface Capture {
  release?: string;
  path?: string;
  info?: { abiVersion?: number; engine?: string; device?: string; caps?: string[] } | null;
}

function env(name: string): string | undefined {
  try {
    return Deno.env.get(name) || undefined;
  } catch {
    return undefined;
  }
}

/** Effective uid from `/proc/self/status` (needs only read access). */
function effectiveUid(): number | undefined {
  try {
    const m = /^Uid:\s+\d+\s+(\d+)/m.exec(Deno.readTextFileSync("/proc/self/status"));
    return m ? Number(m[1]) : undefined;
  } catch {
    return undefined;
  }
}

function probeShim(): ShimProbe {
  try {
    return { ok: true, ...shimInfo() };
  } catch (err) {
    return { ok: false, error: err instanceof Error ? err.message : String(err) };
  }
}

function probeDriver(path: string): DriverProbe {
  try {
    using dev = Device.open(path);
    const info = dev.info();
    return {
      ok: true,
      abiVersion: info.abiVersion,
      engine: info.engine,
      device: info.device,
      caps: info.caps,
    };
  } catch (err) {
    return { ok: false, error: err instanceof Error ? err.message : String(err) };
  }
}

function captured(root: string): Capture {
  try {
    return JSON.parse(Deno.readTextFileSync(`${root.replace(/\/+$/, "")}/capture.json`));
  } catch {
    return {};
  }
}

/**
 * The context for `root`: the live system when `root` is `/`, else a captured tree.
 *
 * @example Run the checks on the live system
 * ```ts ignore
 * import { doctorContext } from "./environment.ts";
 * import { runDoctor } from "./run.ts";
 * for (const r of runDoctor(doctorContext())) console.log(r.status, r.id, r.message);
 * ```
 */
export function doctorContext(options: ContextOptions = {}): DoctorContext {
  const root = options.root ?? "/";
  const sys = systemAt(root);
  const live = root === "/";
  const capture = live ? {} : captured(root);
  const release = sys.readText("/proc/sys/kernel/osrelease")?.trim() ?? capture.release ?? "";
  const arch = sys.readText("/proc/sys/kernel/arch")?.trim() ?? Deno.build.arch;
  const path = (live ? env("PATH") : capture.path) ?? "/usr/local/bin:/usr/bin:/bin";
  const devicePath = options.devicePath ?? (live ? devicePaths()[0]! : "/dev/axl");
  return {
    sys,
    release,
    arch,
    pathDirs: path.split(":").filter(Boolean),
    // A capture is taken as root; its files were readable to the capture.
    isRoot: live ? effectiveUid() === 0 : true,
    devicePath,
    expectedAbi: EXPECTED_ABI_VERSION,
    probeShim: () => (live ? probeShim() : undefined),
    probeDriver(): DriverProbe | undefined {
      if (live) return probeDriver(devicePath);
      const info = capture.info;
      if (!info || typeof info.abiVersion !== "number") return undefined;
      return {
        ok: true,
        abiVersion: info.abiVersion,
        engine: info.engine ?? "?",
        device: info.device ?? "?",
        caps: info.caps ?? [],
      };
    },
    expect: { ...DEFAULT_EXPECTATIONS, ...options.expect },
  };
}
