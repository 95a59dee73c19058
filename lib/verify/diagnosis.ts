/**
 * The failure-mode table of the original design, corrected and extended (docs/design.md): every
 * way a verification can fail or be inconclusive, with its likely cause and the concrete fix.
 * Each row's `source` is the docs page and anchor that explains it.
 * The judge picks rows by id and may append run-specific detail to the symptom.
 *
 * @module
 */
import type { Diagnosis } from "./schema.ts";

/** A row of the table (without run-specific detail). */
export type FailureMode = Omit<Diagnosis, "id">;

/** The table, by id. */
export const FAILURE_MODES = {
  "axl-events-missing": {
    invariant: "I3",
    symptom: "tracefs has no axl:* events",
    cause: "the axl module is not loaded, or was built without its tracepoints",
    fix:
      "lsmod | grep axl; load it (insmod axl.ko or modprobe axl); check events/axl/ in tracefs; " +
      "for another importer (e.g. Axelera's metis.ko) use --evidence auto or generic",
    source: "docs/design.md#the-original-failure-mode-table",
  },
  "axl-import-never-fires": {
    invariant: "I3",
    symptom: "axl_dmabuf_import never fires",
    cause: "driver path not wired, or the ioctl number differs between kernel and userspace",
    fix:
      "dmesg | grep axl; strace -e ioctl <workload>; kernel and shim must be built from the same " +
      "include/uapi/linux/axl.h (AXL_ABI_VERSION)",
    source: "docs/design.md#the-original-failure-mode-table",
  },
  "imports-ne-frames": {
    invariant: "I3",
    symptom: "imports differ from frames submitted",
    cause:
      "frames were submitted without their own import, or one frame was imported more than once",
    fix:
      "import each frame exactly once before AXL_IOCTL_SUBMIT; compare with the workload's frame count",
    source: "docs/design.md#imports-per-frame-releases-balanced",
  },
  "maps-ne-frames": {
    invariant: "I3",
    symptom: "the importer's maps of frame buffers differ from frames submitted",
    cause:
      "a frame was queued to the importer twice (a GStreamer video sink shows its preroll frame, " +
      "then shows it again once playing), frames were dropped before it (a sink on the clock " +
      "drops late frames), or it kept a buffer mapped across frames (vb2 maps a dma-buf only " +
      "when a queue slot gets another one)",
    fix: "make the importer take each frame once (a GStreamer video sink: sync=false " +
      "show-preroll-frame=false) and give --frames the count it takes",
    source: "docs/design.md#maps-per-frame",
  },
  "releases-unbalanced": {
    invariant: "I3",
    symptom: "releases do not balance imports by the end of the run",
    cause:
      "AXL_IOCTL_RELEASE_IMPORT was not called (or failed with EBUSY while a job was in flight)",
    fix:
      "release every import after its fence signalled; closing the device file releases the rest",
    source: "docs/design.md#imports-per-frame-releases-balanced",
  },
  "import-evidence-missing": {
    invariant: "I3",
    symptom: "no source that can count the importer's imports and releases",
    cause:
      "the importer has no axl tracepoints (e.g. Axelera's metis.ko) and the kernel has no kprobe " +
      "events, or they could not be defined",
    fix:
      "use a kernel with CONFIG_KPROBE_EVENTS=y (and CONFIG_PROBE_EVENTS_BTF_ARGS=y for inodes), " +
      "run as root; bufinfo alone shows which buffers were attached, not how often",
    source: "docs/design.md#evidence-from-whoever-imports",
  },
  "pipeline-left-camera-dmabuf": {
    invariant: "pipeline",
    symptom: "an element of the pipeline pushed buffers that are not the camera's dma-bufs",
    cause:
      "that element writes every frame into new memory (it scales, converts or copies on the CPU), " +
      "so what the importer receives is a copy, whatever else the run shows",
    fix: "remove the element, or give it caps that need no change (same size and format as the " +
      "camera's), or use a hardware element that imports dma-bufs (e.g. nvvidconv on a Jetson)",
    source: "docs/gstreamer.md#how-the-pipeline-is-judged",
  },
  "importer-never-maps": {
    invariant: "I3",
    symptom: "the importing device never mapped a frame buffer",
    cause:
      "--importer names another device than the one that imports, or the pipeline never hands " +
      "frames to the importer",
    fix:
      "name the importer as bufinfo prints it (a PCI address such as 0000:01:00.0, vivid.0, vgem): " +
      "see the devices listed here and in bufinfo_samples.txt",
    source: "docs/design.md#evidence-from-whoever-imports",
  },
  "probe-inode-missing": {
    invariant: "I3",
    symptom: "the dma-buf probe events carry no buffer inode",
    cause:
      "the kernel cannot name probe arguments through BTF (CONFIG_PROBE_EVENTS_BTF_ARGS, Linux 6.6+)",
    fix:
      "count on imports only where the importer maps nothing but frames (metis.ko), or use a kernel " +
      "with BTF probe arguments",
    source: "docs/design.md#evidence-from-whoever-imports",
  },
  "attach-count-one": {
    invariant: "I1",
    symptom: "attachments always == 1 on the frame buffers",
    cause:
      "the producer does not attach the buffer (it CPU-maps it, e.g. the Voyager runtime via mmap; " +
      "or a heap buffer that no capture device imported; vivid attaches only with allocators=1)",
    fix:
      "look for /dmabuf: map refs of the workload (listed in the result); use a producer that attaches " +
      "(libargus / NvBufSurface on the Jetson, vivid allocators=1 in the VM)",
    source: "docs/design.md#i1-two-devices-attached",
  },
  "attach-not-sampled": {
    invariant: "I1",
    symptom: "no bufinfo sample saw a frame buffer while it was imported",
    cause: "imports live shorter than the sampling interval",
    fix: "lower --bufinfo-interval, or run more frames so that imports overlap samples",
    source: "docs/design.md#attachments-come-from-bufinfo-sampled-during-the-run",
  },
  "bufinfo-unavailable": {
    invariant: "I1",
    symptom: "debugfs dma_buf/bufinfo cannot be read",
    cause: "debugfs is not mounted, or the run is not root",
    fix: "mount -t debugfs none /sys/kernel/debug and run as root",
    source: "docs/design.md#attachments-come-from-bufinfo-sampled-during-the-run",
  },
  "exporter-unknown": {
    invariant: "I2",
    symptom: "the frame buffer's exporter is not in the accepted set",
    cause:
      "the frames come from an unexpected allocator (e.g. Argus allocating from the system heap " +
      "instead of NVMM/CMA)",
    fix:
      "on the Jetson pass nvbuf-memory-type=4 (CMA) to nvarguscamerasrc; if the exporter is intended, " +
      "add it with --accept-exporter",
    source: "docs/design.md#exporter-names",
  },
  "memcpy-hot": {
    invariant: "I4",
    symptom: "a CPU copy routine is above the self-share threshold",
    cause:
      "something copies pixels on the CPU: a format/colorspace conversion (nvvidconv), a plain-memory " +
      "caps link, or the workload itself (the builtin copy mode)",
    fix:
      "make sink and source caps bit-identical (format, color_range, framerate, width, height) with " +
      "(memory:NVMM) on every link; see the copy routine's caller in the perf top list",
    source: "docs/design.md#copy-routines-are-a-pattern-set",
  },
  "perf-unavailable": {
    invariant: "I4",
    symptom: "perf could not record the workload",
    cause: "perf is not installed, or perf_event_paranoid forbids it",
    fix:
      "install linux-perf (Debian) or the L4T perf; run as root or lower /proc/sys/kernel/perf_event_paranoid",
    source: "docs/design.md#a-missing-capability-is-skip",
  },
  "perf-few-samples": {
    invariant: "I4",
    symptom: "too few perf samples for the threshold to mean something",
    cause:
      "the run was too short for the sampling rate: a routine at the threshold must hold at least " +
      "10 samples (1 000 samples for 1%)",
    fix: "run more frames (--frames) or a longer --duration",
    source: "docs/design.md#enough-samples-and-symbols",
  },
  "perf-unsymbolized": {
    invariant: "I4",
    symptom: "samples without a symbol reach the copy threshold in a DSO",
    cause:
      "the binary is stripped or runs JIT code: a copy routine inlined or unnamed there would not be " +
      "seen by name",
    fix:
      "install debug symbols for that DSO (e.g. Debian's -dbgsym package) so that perf names its " +
      "code; for JIT code, keep the runtime's perf map (/tmp/perf-PID.map) readable when perf script " +
      "runs",
    source: "docs/design.md#enough-samples-and-symbols",
  },
  "trace-lost-events": {
    invariant: "trace",
    symptom: "the trace buffer lost events",
    cause: "the buffer was too small for the run (overrun) or a reader fell behind",
    fix: "raise --buffer-kb (per CPU) or run fewer frames",
    source: "docs/design.md#trace-overruns",
  },
  "no-function-graph": {
    invariant: "trace",
    symptom: "function_graph is not available",
    cause: "the kernel is built without CONFIG_FUNCTION_GRAPH_TRACER (the project's RT defconfig)",
    fix: "none needed for the invariants (attach evidence comes from bufinfo); enable " +
      "CONFIG_FUNCTION_GRAPH_TRACER for call-level evidence",
    source: "docs/design.md#a-missing-capability-is-skip",
  },
  "fence-wait-slow": {
    invariant: "latency",
    symptom: "fence signal latency above 50 ms",
    cause: "the NPU is back-pressured or the PCIe link is degraded",
    fix: "lspci -vvv -d 1f9d:1100 | grep LnkSta: must show Speed 8GT/s, Width x4",
    source: "docs/design.md#the-original-failure-mode-table",
  },
  "gst-import-mode": {
    invariant: "workload",
    symptom: "axinferencenet errors: unknown property import-mode",
    cause: "the installed Voyager GStreamer plugin uses a different property name",
    fix: "gst-inspect-1.0 axinferencenet | grep -i dma; update the pipeline in the config file",
    source: "docs/design.md#the-original-failure-mode-table",
  },
  "workload-failed": {
    invariant: "workload",
    symptom: "the workload exited with an error",
    cause: "see the workload's output in the artifacts directory",
    fix: "run the workload alone first; the verdict of a failed workload is not meaningful",
    source: "docs/design.md#the-four-invariants",
  },
} as const satisfies Record<string, FailureMode>;

/** An id of {@linkcode FAILURE_MODES}. */
export type FailureModeId = keyof typeof FAILURE_MODES;

/**
 * The table row `id` as a {@linkcode Diagnosis}, with `detail` appended to the symptom.
 *
 * @example
 * ```ts
 * import { diagnosis } from "./diagnosis.ts";
 * const d = diagnosis("memcpy-hot", "__memcpy_generic 12.5% self");
 * console.log(d.symptom);
 * // "a CPU copy routine is above the self-share threshold: __memcpy_generic 12.5% self"
 * ```
 */
export function diagnosis(id: FailureModeId, detail?: string): Diagnosis {
  const row = FAILURE_MODES[id];
  if (!row) throw new RangeError(`diagnosis(): unknown failure mode '${id}'`);
  return { id, ...row, symptom: detail ? `${row.symptom}: ${detail}` : row.symptom };
}
