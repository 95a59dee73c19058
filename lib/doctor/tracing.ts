/**
 * Tracing checks: tracefs and debugfs mounted (from `/proc/mounts`), the
 * function_graph tracer, and debugfs `dma_buf/bufinfo` readable.
 *
 * @module
 */
import { type CheckResult, fail, ok, warn } from "./check.ts";
import type { DoctorContext } from "./context.ts";

/** One `/proc/mounts` line. */
export interface Mount {
  /** Source, e.g. `tracefs`. */
  source: string;
  /** Mount point, octal escapes decoded. */
  target: string;
  /** File system type. */
  type: string;
}

/**
 * Parses `/proc/mounts`.
 *
 * @example
 * ```ts
 * import { parseMounts } from "./tracing.ts";
 * const m = parseMounts("tracefs /sys/kernel/tracing tracefs rw,relatime 0 0\n");
 * console.log(m[0]?.type); // "tracefs"
 * ```
 */
export function parseMounts(text: string): Mount[] {
  const unescape = (s: string) =>
    s.replace(/\\([0-7]{3})/g, (_, o: string) => String.fromCharCode(parseInt(o, 8)));
  return text.split("\n").filter((l) => l.trim()).map((line) => {
    const [source = "", target = "", type = ""] = line.split(" ");
    return { source, target: unescape(target), type };
  });
}

/** The tracefs mount point the checks found, preferring /sys/kernel/tracing. */
export function tracefsMount(mounts: readonly Mount[]): string | undefined {
  const all = mounts.filter((m) => m.type === "tracefs").map((m) => m.target);
  return all.find((t) => t === "/sys/kernel/tracing") ?? all[0];
}

/**
 * Checks tracefs, function_graph, debugfs and bufinfo.
 *
 * @example
 * ```ts ignore
 * for (const r of checkTracing(ctx)) console.log(r.status, r.id);
 * ```
 */
export function checkTracing(ctx: DoctorContext): CheckResult[] {
  const text = ctx.sys.readText("/proc/mounts");
  if (text === undefined) return [fail("tracefs", "cannot read /proc/mounts", "mount /proc")];
  const mounts = parseMounts(text);
  const out: CheckResult[] = [];

  const tracefs = tracefsMount(mounts);
  if (!tracefs) {
    out.push(
      fail(
        "tracefs",
        "tracefs is not mounted",
        "mount -t tracefs nodev /sys/kernel/tracing (needs CONFIG_FTRACE=y)",
      ),
    );
  } else {
    out.push(ok("tracefs", `tracefs on ${tracefs}`));
    const tracers = ctx.sys.readText(`${tracefs}/available_tracers`);
    if (tracers === undefined) {
      out.push(
        ctx.isRoot
          ? fail("function_graph", `cannot read ${tracefs}/available_tracers`, "check tracefs")
          : warn("function_graph", `cannot read ${tracefs}/available_tracers`, "run as root"),
      );
    } else if (tracers.split(/\s+/).includes("function_graph")) {
      out.push(ok("function_graph", "function_graph tracer available"));
    } else {
      out.push(
        warn(
          "function_graph",
          `no function_graph tracer (available: ${tracers.trim() || "none"}): verify reports ` +
            "the dma_buf_* call-graph evidence as SKIP",
          "set CONFIG_FUNCTION_TRACER=y, CONFIG_FUNCTION_GRAPH_TRACER=y, CONFIG_DYNAMIC_FTRACE=y " +
            "(the project's PREEMPT_RT defconfig turns them off)",
        ),
      );
    }
  }

  const debugfs = mounts.find((m) => m.type === "debugfs" && m.target === "/sys/kernel/debug");
  if (!debugfs) {
    out.push(
      fail(
        "debugfs",
        "debugfs is not mounted on /sys/kernel/debug",
        "mount -t debugfs none /sys/kernel/debug (needs CONFIG_DEBUG_FS=y)",
      ),
    );
    return out;
  }
  out.push(ok("debugfs", "debugfs on /sys/kernel/debug"));
  const bufinfo = "/sys/kernel/debug/dma_buf/bufinfo";
  const kind = ctx.sys.kind(bufinfo);
  if (kind === "file" && ctx.sys.canOpen(bufinfo)) {
    out.push(ok("bufinfo", `${bufinfo} readable`));
  } else if (kind === "missing" && ctx.isRoot) {
    out.push(fail("bufinfo", `${bufinfo} does not exist`, "needs CONFIG_DMA_SHARED_BUFFER=y"));
  } else {
    out.push(
      fail(
        "bufinfo",
        `${bufinfo} is not readable by this user (debugfs is root-only)`,
        "run axl doctor and axl verify as root (sudo)",
      ),
    );
  }
  return out;
}
