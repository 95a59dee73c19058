/**
 * DMA heap and CMA checks: `/dev/dma_heap/system`, the CMA heap (`linux,cma`
 * from the device tree's reserved-memory node, or `reserved` from `cma=`), and
 * the CMA pool size from `/proc/meminfo`.
 *
 * @module
 */
import { type CheckResult, fail, ok, warn } from "./check.ts";
import type { DoctorContext } from "./context.ts";
import { cmaHeapName } from "../core/heap.ts";

export { CMA_HEAP_NAMES } from "../core/heap.ts";

/**
 * Parses `/proc/meminfo` into kB values (`CmaTotal` → 262144).
 *
 * @example
 * ```ts
 * import { parseMeminfo } from "./memory.ts";
 * const m = parseMeminfo("MemTotal:  2000 kB\nCmaTotal:  262144 kB\n");
 * console.log(m.get("CmaTotal")); // 262144
 * ```
 */
export function parseMeminfo(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split("\n")) {
    const m = /^([A-Za-z0-9_()]+):\s+(\d+)(?:\s+kB)?\s*$/.exec(line);
    if (m) out.set(m[1]!, Number(m[2]));
  }
  return out;
}

const ACCESS_FIX = "run as root, or give the user access with a udev rule, e.g. " +
  'SUBSYSTEM=="dma_heap", GROUP="video", MODE="0660"';

function heapAccess(ctx: DoctorContext, id: string, path: string, found: string): CheckResult {
  if (!ctx.sys.canOpen(path)) {
    return warn(id, `${found}, but this user cannot open it`, ACCESS_FIX);
  }
  return ok(id, found);
}

/**
 * Checks `/dev/dma_heap` for the system heap and a CMA heap.
 *
 * @example
 * ```ts ignore
 * for (const r of checkHeaps(ctx)) console.log(r.status, r.message);
 * ```
 */
export function checkHeaps(ctx: DoctorContext): CheckResult[] {
  const heaps = ctx.sys.list("/dev/dma_heap");
  if (heaps === undefined) {
    return [
      fail(
        "dma-heap",
        "/dev/dma_heap does not exist",
        "the kernel needs CONFIG_DMABUF_HEAPS=y with CONFIG_DMABUF_HEAPS_SYSTEM=y and " +
          "CONFIG_DMABUF_HEAPS_CMA=y",
      ),
    ];
  }
  const out: CheckResult[] = [ok("dma-heap", `/dev/dma_heap: ${heaps.join(" ") || "(empty)"}`)];
  out.push(
    heaps.includes("system")
      ? heapAccess(ctx, "dma-heap.system", "/dev/dma_heap/system", "/dev/dma_heap/system")
      : fail("dma-heap.system", "no system heap", "set CONFIG_DMABUF_HEAPS_SYSTEM=y"),
  );
  const cma = cmaHeapName(heaps);
  if (cma) {
    out.push(heapAccess(ctx, "dma-heap.cma", `/dev/dma_heap/${cma}`, `/dev/dma_heap/${cma}`));
  } else {
    out.push(
      fail(
        "dma-heap.cma",
        "no CMA heap (/dev/dma_heap/linux,cma): frames and result tensors cannot be " +
          "physically contiguous",
        "set CONFIG_DMABUF_HEAPS_CMA=y (with CONFIG_CMA=y, CONFIG_DMA_CMA=y) and reserve a " +
          "CMA area: the device tree's linux,cma reserved-memory node (the Jetson's is 256 MiB) " +
          "or cma=256M on the kernel command line",
      ),
    );
  }
  return out;
}

/**
 * Checks the CMA pool (`CmaTotal`) against the expected size.
 *
 * @example
 * ```ts ignore
 * const r = checkCmaPool(ctx); // WARN below ctx.expect.cmaMiB, FAIL when absent or 0
 * ```
 */
export function checkCmaPool(ctx: DoctorContext): CheckResult {
  const text = ctx.sys.readText("/proc/meminfo");
  if (text === undefined) return fail("cma", "cannot read /proc/meminfo", "mount /proc");
  const info = parseMeminfo(text);
  const total = info.get("CmaTotal");
  const want = `${ctx.expect.cmaMiB} MiB`;
  if (total === undefined) {
    return fail(
      "cma",
      "no CmaTotal in /proc/meminfo: the kernel has no CMA",
      `set CONFIG_CMA=y and CONFIG_DMA_CMA=y and reserve ${want} (linux,cma node or cma=)`,
    );
  }
  const free = info.get("CmaFree") ?? 0;
  const mib = (kb: number) => `${Math.round(kb / 1024)} MiB`;
  const found = `CmaTotal ${mib(total)}, CmaFree ${mib(free)}`;
  if (total === 0) {
    return fail(
      "cma",
      `${found}: no CMA area is reserved`,
      `reserve ${want}: the device tree's linux,cma reserved-memory node or cma=${ctx.expect.cmaMiB}M`,
    );
  }
  if (total < ctx.expect.cmaMiB * 1024) {
    return warn(
      "cma",
      `${found}: smaller than the ${want} the frame path is sized for`,
      `grow the linux,cma node or boot with cma=${ctx.expect.cmaMiB}M`,
    );
  }
  return ok("cma", found);
}
