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
  // verify defines kprobe events on the dma-buf functions for the run only.
  "kprobe_events",
];

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
  out.instances = [...Deno.readDirSync(`${root}/instances`)].map((e) => e.name).sort().join(",");
  for (const sys of ["dma_fence", "axl"]) {
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
