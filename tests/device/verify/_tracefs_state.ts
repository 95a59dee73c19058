/**
 * A snapshot of the tracefs state a verify run may touch, for "left as found" checks.
 *
 * @module
 */
const FILES = [
  "current_tracer",
  "tracing_on",
  "trace_clock",
  "buffer_size_kb",
  "set_ftrace_filter",
  "options/funcgraph-abstime",
  "options/funcgraph-proc",
  "options/funcgraph-tail",
  // cleared for the run when nvmap's events are there (their dmabuf=%p)
  "options/hash-ptr",
  // verify defines kprobe events on the dma-buf functions for the run only.
  "kprobe_events",
];

/** Size of a ring-buffer page's data: a page less its 16-byte header (time stamp, commit). */
function bufferPageBytes(): number {
  const kb = /KernelPageSize:\s+(\d+) kB/.exec(Deno.readTextFileSync("/proc/self/smaps"))?.[1];
  return Number(kb ?? 4) * 1024 - 16;
}

/**
 * `buffer_size_kb` as it reads once the ring buffer is allocated. Until then the top level
 * reads `7 (expanded: 1408)`, and before 6.2 the first event enabled in any instance expands
 * it (`tracing_update_buffers()` had no instance argument): to 1408 KiB in whole pages, 1410
 * on 4 KiB pages. That is the kernel's doing, not a setting verify changed.
 */
export function expandedBufferSizeKb(text: string, pageBytes?: number): string {
  const m = /^\d+ \(expanded: (\d+)\)\n?$/.exec(text);
  if (!m) return text.trim();
  // The page size only when there is something to round: /proc/self/smaps is long.
  pageBytes ??= bufferPageBytes();
  const pages = Math.ceil(Number(m[1]) * 1024 / pageBytes);
  return String(Math.floor(pages * pageBytes / 1024));
}

/** Reads every file of interest plus the instance list and all event enables. */
export function tracefsState(root = "/sys/kernel/tracing"): Record<string, string> {
  const out: Record<string, string> = {};
  for (const f of FILES) {
    try {
      out[f] = Deno.readTextFileSync(`${root}/${f}`);
    } catch (e) {
      out[f] = `<${(e as Error).name}>`;
    }
  }
  out.buffer_size_kb = expandedBufferSizeKb(out.buffer_size_kb!);
  out.instances = [...Deno.readDirSync(`${root}/instances`)].map((e) => e.name).sort().join(",");
  for (const sys of ["dma_fence", "axl", "nvmap"]) {
    try {
      for (
        const e of [...Deno.readDirSync(`${root}/events/${sys}`)].sort((a, b) =>
          a.name.localeCompare(b.name)
        )
      ) {
        if (e.isDirectory) {
          out[`events/${sys}/${e.name}/enable`] = Deno.readTextFileSync(
            `${root}/events/${sys}/${e.name}/enable`,
          );
        }
      }
    } catch { /* subsystem absent */ }
  }
  return out;
}
