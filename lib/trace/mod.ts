/**
 * Capturing and parsing the kernel's evidence of a frame path: ftrace text (events and
 * function_graph), ring-buffer loss statistics, a tracefs capture session that restores what
 * it changed, perf call graphs and copy-routine shares, debugfs bufinfo samples and the
 * dma-buf fd/map references of a process.
 *
 * @module
 */
export * from "./parse/parse_error.ts";
export * from "./parse/lines.ts";
export * from "./parse/ftrace.ts";
export * from "./parse/scanned_event.ts";
export * from "./parse/per_cpu_stats.ts";
export * from "./parse/bufinfo.ts";
export * from "./parse/bufinfo_summary.ts";
export * from "./parse/dmabuf_maps.ts";
export * from "./parse/copy_routines.ts";
export * from "./parse/perf_script.ts";
export * from "./capture/bufinfo_sampler.ts";
export * from "./capture/dmabuf_refs.ts";
export * from "./capture/perf_record.ts";
export * from "./capture/sysfs_stats.ts";
export * from "./capture/tracefs.ts";
export * from "./capture/tracefs_restore.ts";
export * from "./capture/tracefs_state_file.ts";
