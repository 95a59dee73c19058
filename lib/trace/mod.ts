/**
 * Capturing and parsing the kernel's evidence of a frame path: ftrace text (events and
 * function_graph), ring-buffer loss statistics, a tracefs capture session that restores what
 * it changed, perf call graphs and copy-routine shares, debugfs bufinfo samples and the
 * dma-buf fd/map references of a process.
 *
 * @module
 */
export { ParseError, type ParseErrorLocation } from "./parse/parse_error.ts";
export {
  type ByteReader,
  forEachLine,
  type LineSource,
  LineSplitter,
  type LineVisitor,
  type NumberedLine,
  READ_CHUNK_BYTES,
  readChunks,
  readFileLines,
  readLines,
} from "./parse/lines.ts";
export {
  type FtraceBufferStarted,
  type FtraceEvent,
  type FtraceGraphCall,
  type FtraceHeader,
  type FtraceLost,
  type FtraceParseOptions,
  type FtraceRecord,
  type FtraceScanOptions,
  type FtraceSwitch,
  type FtraceUnparsed,
  parseFields,
  parseFtrace,
  parseFtraceLine,
  scanFtrace,
  timestampNs,
} from "./parse/ftrace.ts";
export { fieldInt, type ScannedEvent } from "./parse/scanned_event.ts";
export {
  type BufferLoss,
  type CpuBufferStats,
  parsePerCpuStats,
  summarizeLoss,
} from "./parse/per_cpu_stats.ts";
export { type BufinfoBuffer, type BufinfoSnapshot, parseBufinfo } from "./parse/bufinfo.ts";
export {
  addSample,
  type BufinfoSummary,
  emptySummary,
  type InodeObservation,
  parseBufinfoSamples,
} from "./parse/bufinfo_summary.ts";
export { type DmaBufMapRef, parseDmaBufMaps } from "./parse/dmabuf_maps.ts";
export {
  BUFINFO_PATH,
  BufinfoSampler,
  type BufinfoSamplerOptions,
} from "./capture/bufinfo_sampler.ts";
export { type DmaBufFdRef, type ProcessDmaBufRefs, scanProcess } from "./capture/dmabuf_refs.ts";
export {
  COPY_ROUTINE_PATTERNS,
  copyRoutine,
  type CopyRoutinePattern,
  normalizeSymbol,
} from "./parse/copy_routines.ts";
export {
  parsePerfScript,
  type PerfFrame,
  type PerfSample,
  type PerfSummary,
  type PerfSummaryOptions,
  summarizePerf,
  type SymbolShare,
} from "./parse/perf_script.ts";
export {
  choosePerfEvent,
  type PerfEventChoice,
  PerfRecording,
  type PerfRecordOptions,
  perfScript,
  probePerfEvent,
} from "./capture/perf_record.ts";
export {
  readSysfsBuffer,
  SYSFS_BUFFERS,
  type SysfsBuffer,
  sysfsStatsPresent,
} from "./capture/sysfs_stats.ts";
export {
  DMABUF_GRAPH_FUNCTIONS,
  findTracefs,
  sizeBufferKb,
  TraceSession,
  type TraceSessionInfo,
  type TraceSessionOptions,
  VERIFY_EVENTS,
} from "./capture/tracefs.ts";
