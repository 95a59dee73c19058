/**
 * axl: a Deno runtime and device shell for the zero-copy camera → NPU frame path.
 *
 * Typed access to DMA heaps, dma-bufs, sync_file fences and the axl NPU driver,
 * through `libaxl_shim.so`. Run scripts with `--allow-all`: a dma-buf's details come from
 * `/proc/self/fdinfo`, which Deno opens only with all permissions (docs/library.md).
 *
 * @example Import a frame into the NPU and wait for the result
 * ```ts ignore
 * import { Device, Heap } from "./mod.ts";
 * using dev = Device.open();
 * const heap = Heap.open("system");
 * using frame = heap.allocate(640 * 480 * 3 / 2, { name: "frame" });
 * using result = heap.allocate(4096, { name: "result" });
 * using imp = dev.import(frame, { width: 640, height: 480, format: "NV12" });
 * using job = dev.submit(imp, { result });
 * await job.wait(1000);
 * console.log(job.readResult());
 * ```
 *
 * Every public name is exported here by name, so two modules exporting the same name is a
 * compile error rather than one silently shadowing the other. The groups follow the layers
 * of ARCHITECTURE.md: the core (`lib/core`: shim, errors, dma-bufs, heaps, fences, the axl
 * device, V4L2 and Argus; `lib/core/metis`: Axelera's `metis.ko` ABI, {@linkcode MetisDevice}),
 * the frame path (`lib/frames`), then `lib/trace`, `lib/verify` (with its reports),
 * `lib/formats`, `lib/caps`, `lib/constraints` and `lib/nvmm`. This is the one list of public
 * names: a sub-module's `mod.ts` only gathers its files with `export *`, where two files
 * exporting one name fail `deno check` (TS2308).
 *
 * @module
 */
export { AxlError, errnoName, hintFor, unwrap } from "./lib/core/errors.ts";
export type { ErrorContext } from "./lib/core/errors.ts";
export { DmaBuf } from "./lib/core/dmabuf.ts";
export type { AccessOptions, CpuAccess } from "./lib/core/dmabuf.ts";
export { dmaBufFdInfo, parseFdinfo } from "./lib/core/fdinfo.ts";
export type { DmaBufFdInfo } from "./lib/core/fdinfo.ts";
export { CMA_HEAP_NAMES, cmaHeapName, defaultFrameHeap, Heap, HEAP_DIR } from "./lib/core/heap.ts";
export type { AllocateOptions } from "./lib/core/heap.ts";
export { Fence } from "./lib/core/fence.ts";
export type { FenceInfo } from "./lib/core/fence.ts";
export {
  Device,
  devicePaths,
  DIRECTIONS,
  Import,
  ImportOptions,
  Job,
  PIXEL_FORMATS,
  probeImplicitSync,
  SubmitOptions,
} from "./lib/core/device.ts";
export type {
  DeviceInfo,
  DeviceOpenOptions,
  Direction,
  EngineResult,
  ImplicitSync,
  ImportFacts,
  JobDone,
  PixelFormat,
} from "./lib/core/device.ts";
export { frameLayout, placedLayout } from "./lib/core/frame_layout.ts";
export { V4l2Device } from "./lib/core/v4l2.ts";
export type { V4l2Capability, V4l2Dequeued, V4l2StreamFormat } from "./lib/core/v4l2.ts";
export { ArgusSession } from "./lib/core/argus.ts";
export type { ArgusFrame } from "./lib/core/argus.ts";
export {
  METIS_MODULE,
  METIS_NODE_DIR,
  MetisDevice,
  metisNodes,
  nodePathsForPci,
  parseMetisDriver,
  parseNodeName,
  parsePciAddress,
  readMetisDriver,
  sameDevice,
  TRANSFER_DIRECTIONS,
  TransferOptions,
} from "./lib/core/metis/mod.ts";
export type {
  CardArea,
  ChannelStats,
  DmaStats,
  MetisDriver,
  MetisGeneration,
  MetisNodeName,
  MetisProperties,
  MetisResources,
  MetisTarget,
  TransferDirection,
  TransferDone,
} from "./lib/core/metis/mod.ts";
export {
  FORMAT_MOD_LINEAR,
  importGeometryFor,
  importRequest,
  MAX_PLANES,
  planeCount,
  planeLines,
  planesEnd,
  v1Planes,
} from "./lib/core/import_layout.ts";
export type {
  ImportGeometry,
  ImportPlane,
  ImportRequest,
  PlanedGeometry,
} from "./lib/core/import_layout.ts";
export type { Frame } from "./lib/frames/frame.ts";
export { crc32, referenceResult } from "./lib/frames/reference.ts";
export type { ReferenceResult } from "./lib/frames/reference.ts";
export {
  ArgusProducer,
  fillPattern,
  HeapProducer,
  listCaptureDevices,
  V4l2Producer,
} from "./lib/frames/producers/mod.ts";
export type { Producer, V4l2DeviceInfo } from "./lib/frames/producers/mod.ts";
export { copyFrame, percentiles, runWorkload } from "./lib/frames/workload.ts";
export type {
  FrameStat,
  Percentiles,
  WorkloadMode,
  WorkloadOptions,
  WorkloadReport,
} from "./lib/frames/workload.ts";
export { loadShim, shimInfo, ShimLoadError } from "./lib/core/shim.ts";
export type {
  Shim,
  ShimAttempt,
  ShimInfo,
  ShimSource,
  ShimSymbols,
  symbols,
} from "./lib/core/shim.ts";
// Trace: ftrace/perf/bufinfo parsers (parse/) and the capture session and samplers (capture/).
export {
  addSample,
  BUFINFO_PATH,
  BufinfoSampler,
  choosePerfEvent,
  COPY_ROUTINE_PATTERNS,
  copyRoutine,
  DMABUF_GRAPH_FUNCTIONS,
  emptySummary,
  fieldInt,
  findTracefs,
  forEachLine,
  LineSplitter,
  normalizeSymbol,
  parseBufinfo,
  parseBufinfoSamples,
  parseDmaBufMaps,
  ParseError,
  parseFields,
  parseFtrace,
  parseFtraceLine,
  parsePerCpuStats,
  parsePerfScript,
  PerfRecording,
  perfScript,
  probePerfEvent,
  READ_CHUNK_BYTES,
  readChunks,
  readFileLines,
  readLines,
  readSysfsBuffer,
  scanFtrace,
  scanProcess,
  sizeBufferKb,
  summarizeLoss,
  summarizePerf,
  SYSFS_BUFFERS,
  sysfsStatsPresent,
  timestampNs,
  TraceSession,
  VERIFY_EVENTS,
} from "./lib/trace/mod.ts";
export type {
  BufferLoss,
  BufinfoBuffer,
  BufinfoSamplerOptions,
  BufinfoSnapshot,
  BufinfoSummary,
  ByteReader,
  CallKind,
  CopyRoutinePattern,
  CpuBufferStats,
  DmaBufFdRef,
  DmaBufMapRef,
  FtraceBufferStarted,
  FtraceEvent,
  FtraceGraphCall,
  FtraceHeader,
  FtraceLost,
  FtraceParseOptions,
  FtraceRecord,
  FtraceScanOptions,
  FtraceSwitch,
  FtraceUnparsed,
  InodeObservation,
  LineSource,
  LineVisitor,
  NumberedLine,
  ParseErrorLocation,
  PerfEventChoice,
  PerfFrame,
  PerfRecordOptions,
  PerfSample,
  PerfSummary,
  PerfSummaryOptions,
  ProcessDmaBufRefs,
  ScannedEvent,
  SymbolShare,
  SysfsBuffer,
  TraceSessionInfo,
  TraceSessionOptions,
} from "./lib/trace/mod.ts";

// Verify: the I1–I4 judge, trace facts, frames, result schema, diagnosis.
export {
  addRecord,
  buildFrames,
  collectTraceFacts,
  DEFAULT_ACCEPTED_EXPORTERS,
  diagnosis,
  DiagnosisSchema,
  DmabufProbeFacts,
  emptyTraceFacts,
  EVIDENCE_MODES,
  FAILURE_MODES,
  FRAME_LIST_LIMIT,
  FRAME_WINDOW,
  FrameJoin,
  FrameSchema,
  histogram,
  InvariantSchema,
  judge,
  judgeAccounting,
  judgeAttachments,
  judgeCopies,
  judgeExporter,
  latencyStats,
  parseVerifyResult,
  percentile,
  readTraceFacts,
  RESULT_SCHEMA_VERSION,
  StatusSchema,
  VerifyResultSchema,
} from "./lib/verify/mod.ts";
export type {
  AccountingVerdict,
  AttachmentsVerdict,
  AxlBufferEvent,
  AxlCounts,
  AxlJobEvent,
  CopiesVerdict,
  DeviceUse,
  Diagnosis,
  Environment,
  EvidenceMode,
  ExporterEvidence,
  FailureMode,
  FailureModeId,
  FenceLife,
  FrameJoinOptions,
  HistogramBin,
  ImporterRecord,
  Invariant,
  JoinedFrames,
  JudgeInput,
  JudgeOptions,
  LatencyStats,
  PerfEvidence,
  ProbeFields,
  ProbeSetup,
  ReadTraceFactsOptions,
  Status,
  TracedEvents,
  TracedFrame,
  TraceFacts,
  TraceSetup,
  Verdict,
  VerifyResult,
  WorkloadFrame,
  WorkloadRecord,
} from "./lib/verify/mod.ts";

// Verify reports: Perfetto trace, HTML report, JUnit XML, Prometheus metrics.
export {
  escapeHtml,
  escapeXml,
  frameTimelineSvg,
  junitReport,
  labelValue,
  latencyHistogramSvg,
  perfettoTrace,
  prometheusMetrics,
  renderHtmlReport,
} from "./lib/verify/report/mod.ts";
export type { JunitOptions, MetricsOptions, TraceEvent } from "./lib/verify/report/mod.ts";

// Formats: fourcc, format table, modifiers, plane layout, V4L2 and GStreamer names.
export {
  alignUp,
  canonicalModifier,
  checkLayout,
  decodeNvidiaBlockLinear,
  describeModifier,
  drmToGst,
  drmToV4l2,
  findFormat,
  formatInfo,
  formatModifier,
  FORMATS,
  FOURCC_BIG_ENDIAN,
  fourccCode,
  fourccString,
  gstToDrm,
  lookupV4l2,
  MOD_INVALID,
  MOD_LINEAR,
  modifierCode,
  ModifierVendor,
  modifierVendor,
  NAMED_MODIFIERS,
  nvidia16Bx2Block,
  nvidiaBlockLinear,
  parseModifier,
  planeLayout,
  v4l2ToDrm,
} from "./lib/formats/mod.ts";
export type {
  FormatInfo,
  FrameLayout,
  LayoutOptions,
  ModifierDescription,
  NvidiaBlockLinear,
  PlaneDescriptor,
  PlaneInfo,
  PlaneLayout,
  V4l2Format,
} from "./lib/formats/mod.ts";

// Caps: GStreamer caps parsing, intersection and pipeline analysis.
export {
  analyzeDescription,
  analyzePair,
  analyzePipeline,
  ANY_CAPS,
  behaviourOf,
  canIntersect,
  capsReportJson,
  CapsSyntaxError,
  checkCaps,
  checkDmaDrm,
  compareFractions,
  compareWithLaunch,
  describeDrmFormat,
  DMABUF_FEATURE,
  drmFormatsOf,
  EMPTY_CAPS,
  explainMismatch,
  featuresMatch,
  fieldValue,
  GstToolError,
  haveGstTool,
  intersectCaps,
  intersectStructure,
  intersectValue,
  isEmptyCaps,
  KNOWN_BEHAVIOURS,
  launchAndCompare,
  launchArgs,
  loadElement,
  memoryOf,
  parseCaps,
  parseDrmFormat,
  parseFeatures,
  parseGstInspect,
  parseLaunchOutput,
  parsePipeline,
  parseStructure,
  parseValue,
  printBare,
  printCaps,
  printDrmFormat,
  printFeatures,
  printStructure,
  printValue,
  quoteString,
  renderCapsReport,
  runGstInspect,
  runGstLaunch,
  SYSTEM_MEMORY,
  templateCaps,
} from "./lib/caps/mod.ts";
export type {
  AnalyzeOptions,
  BehaviourChoice,
  Caps,
  CapsFeatures,
  CapsField,
  CapsReport,
  CapsRequest,
  CapsResult,
  CapsStructure,
  CapsValue,
  DmaDrmIssue,
  DrmFormat,
  ElementBehaviour,
  ElementInfo,
  ElementReport,
  Fraction,
  IntType,
  LaunchComparison,
  LaunchOutcome,
  LinkReport,
  LoadedElement,
  LoadOptions,
  MemoryCheck,
  PadDirection,
  PadPresence,
  PadTemplate,
  ParsePosition,
  Pipeline,
  PipelineElement,
  PipelineLink,
  Reason,
  ReasonKind,
  RenderOptions,
  Sides,
} from "./lib/caps/mod.ts";

// Constraints: buffer constraint reconciliation and allocateFor().
export {
  allocateFor,
  availableHeaps,
  DEFAULT_HEAPS,
  defaultFrameAccessors,
  describeConflicts,
  jetsonRoles,
  reconcile,
  ReconcileError,
  reconcileOrThrow,
  vmRoles,
} from "./lib/constraints/mod.ts";
export type {
  Access,
  AccessorConstraints,
  Allocation,
  BufferRequest,
  Conflict,
  Conflicts,
  Contiguity,
  HeapInfo,
  ReconciledBuffer,
  ReconcileOptions,
  Role,
  RoleOptions,
} from "./lib/constraints/mod.ts";

// NVMM: NvBufSurface handles and color formats.
export {
  NVBUF_COLOR_FORMATS,
  nvbufColorFormat,
  nvmmHandleToWire,
  nvmmImportParams,
  nvmmPlanes,
  parseNvmmHandle,
} from "./lib/nvmm/mod.ts";
export type { NvBufColorFormat, NvmmHandle, NvmmPlane } from "./lib/nvmm/mod.ts";
