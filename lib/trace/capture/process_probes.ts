/**
 * kprobe events that say which process took a dma-buf fd or mapped a dma-buf on the CPU: the
 * events that stand in for the workload's `/proc/PID/fd` and `/proc/PID/maps` scans
 * (`dmabuf_refs.ts`). ftrace prints the thread; the `record-tgid` option adds its process.
 *
 * - `fd_install(fd, file)`: every fd a process gets is installed through it, whatever made it
 *   (`dma_buf_fd()` for a heap's allocation or V4L2's `EXPBUF`, `receive_fd()` for one passed
 *   over a socket with `SCM_RIGHTS`, as Argus hands its buffers to a Jetson app, `dup()`). The
 *   event records the fd, the file's inode and its superblock's magic, and the trace instance
 *   keeps only dma-buf files (`magic == DMA_BUF_MAGIC`, a filter on the event): every other
 *   open of the system is discarded in the kernel. Probing `dma_buf_fd()` instead misses
 *   buffers: on the rig's 6.12 the heaps' allocation ioctl never reached it (hit count 0 in
 *   `kprobe_profile` while a heap allocated), and it misses received fds.
 * - `dma_buf_mmap_internal(file, vma)`: the dma-buf file's `mmap`. The entry records the
 *   inode, the mapping's start, end and flags (`vm_flags`, which `/proc/PID/maps` prints as
 *   `rw-s`), the return whether the exporter accepted it.
 *
 * Both follow fields from the arguments: by name through BTF (`CONFIG_PROBE_EVENTS_BTF_ARGS`,
 * Linux 6.6+), else through the struct offsets `scripts/kernel-offsets.sh` measured from the
 * kernel's own build tree (`$AXL_KERNEL_OFFSETS`, as the dma-buf events reach the inode on
 * L4T's 5.15): `+OFFS(...)` fetch-args from `$argN` to `file->f_inode->i_sb->s_magic` and to
 * the vma's `vm_start`, `vm_end` and `vm_flags`. Without either, a part is not placed and the
 * scans stand in at their faster period. The events carry the same fields either way, so one
 * fold reads both. They are defined in the group of the attach/map probes (`kprobe_events.ts`), so
 * that the same removal and the same state file cover them, but enabled in a trace instance
 * of their own (`capture.ts`): the main trace's format stays as it was.
 *
 * @module
 */
import { fileInoArg, fileInodeArg, type KernelOffsets } from "./kernel_offsets.ts";
/**
 * What the process probes need to know of the kernel: the `ProbeKernel` of `kprobe_events.ts`
 * (`probeKernel()`), whose removal of a probe group imports this module's event names.
 */
export interface ProcessProbeKernel {
  /** Functions that can be probed. */
  functions: ReadonlySet<string>;
  /** BTF argument names and `->` field access work. */
  btfArgs: boolean;
  /** `$argN` fetch-args work (needed where BTF names are absent); absent: they do not. */
  argAccess?: boolean;
  /** Struct offsets measured for this kernel, followed where BTF names are absent. */
  offsets?: ProcessProbeOffsets;
}

/**
 * The measured struct offsets the process probes follow without BTF: the fields of
 * `KernelOffsets` they read (`inodeSb` … `vmaFlags` are absent in offsets files measured before
 * the process probes).
 */
export type ProcessProbeOffsets = Pick<
  KernelOffsets,
  "source" | "fileInode" | "inodeIno" | "inodeSb" | "sbMagic" | "vmaStart" | "vmaEnd" | "vmaFlags"
>;

/** The parts of the process probes: each stands in for one part of the scans. */
export type ProcessProbePart = "fd" | "mmap";

/** Event names of the process probes. */
export const PROCESS_PROBE_EVENTS = {
  fd: "axl_kp_fd",
  mmap: "axl_kp_mmap",
  mmapRet: "axl_kp_mmap_ret",
} as const;

/** `DMA_BUF_MAGIC` (`include/uapi/linux/magic.h`): the dma-buf filesystem's superblock. */
export const DMA_BUF_MAGIC = 0x444d4142;

/** The filter of the fd event: dma-buf files only. */
export const FD_EVENT_FILTER = `magic == 0x${DMA_BUF_MAGIC.toString(16)}`;

/** One part's kprobe_events lines, or why it cannot be defined. */
export type ProcessProbeLines = { function: string; lines: string[] } | {
  unavailable: string;
};

/**
 * The process probes' definitions for this kernel, part by part: each needs its function and
 * either BTF argument names or `$argN` with the measured struct offsets it follows.
 *
 * @example
 * ```ts
 * import { processProbeDefinitions } from "./process_probes.ts";
 * const d = processProbeDefinitions("axl_kp_1", {
 *   functions: new Set(["fd_install", "dma_buf_mmap_internal"]),
 *   btfArgs: true,
 * });
 * console.log("lines" in d.mmap ? d.mmap.lines[1] : d.mmap.unavailable);
 * // "r:axl_kp_1/axl_kp_mmap_ret dma_buf_mmap_internal ret=$retval:s32"
 * ```
 *
 * @example Without BTF, through offsets measured for the kernel
 * ```ts
 * import { processProbeDefinitions } from "./process_probes.ts";
 * const d = processProbeDefinitions("axl_kp_1", {
 *   functions: new Set(["fd_install"]),
 *   btfArgs: false,
 *   argAccess: true,
 *   offsets: { source: "offsets.txt", fileInode: 32, inodeIno: 56, inodeSb: 40, sbMagic: 96 },
 * });
 * console.log("lines" in d.fd ? d.fd.lines[0] : d.fd.unavailable);
 * // "p:axl_kp_1/axl_kp_fd fd_install fd=$arg1:s32 ino=+56(+32($arg2)):u64 magic=+96(+40(+32($arg2))):x64"
 * ```
 */
export function processProbeDefinitions(
  group: string,
  k: ProcessProbeKernel,
): Record<ProcessProbePart, ProcessProbeLines> {
  const missing = (fn: string) => ({
    unavailable: `cannot probe ${fn} (not in the kernel's function list)`,
  });
  const o = k.offsets;
  // Why the fields cannot be followed without BTF, or undefined when they can.
  const noOffsets = (what: string, keys: Array<[string, number | undefined]>) => {
    const why = !k.argAccess
      ? "the kernel has no $argN fetch-args"
      : !o
      ? "no struct offsets were measured for this kernel (scripts/kernel-offsets.sh, " +
        "$AXL_KERNEL_OFFSETS)"
      : keys.some(([, v]) => v === undefined)
      ? `${o.source} has no offset ${
        keys.filter(([, v]) => v === undefined).map(([key]) => key).join(", ")
      } (measured before the process probes): measure it again with scripts/kernel-offsets.sh`
      : undefined;
    return why === undefined ? undefined : {
      unavailable: `${what} needs BTF argument names (CONFIG_PROBE_EVENTS_BTF_ARGS, Linux ` +
        `6.6+) or measured struct offsets: ${why}`,
    };
  };
  const fdLine = (ino: string, magic: string) =>
    `p:${group}/${PROCESS_PROBE_EVENTS.fd} fd_install fd=$arg1:s32 ino=${ino}:u64 ` +
    `magic=${magic}:x64`;
  const fdNeeds = noOffsets("keeping only dma-buf files (file->f_inode->i_sb->s_magic)", [
    ["inode.i_sb", o?.inodeSb],
    ["super_block.s_magic", o?.sbMagic],
  ]);
  const fd: ProcessProbeLines = !k.functions.has("fd_install")
    ? missing("fd_install")
    : k.btfArgs
    ? {
      function: "fd_install",
      lines: [fdLine("file->f_inode->i_ino", "file->f_inode->i_sb->s_magic")],
    }
    : fdNeeds ?? {
      function: "fd_install",
      lines: [
        fdLine(
          fileInoArg(o!, "$arg2"),
          `+${o!.sbMagic}(+${o!.inodeSb}(${fileInodeArg(o!, "$arg2")}))`,
        ),
      ],
    };
  const mmapLines = (ino: string, start: string, end: string, flags: string) => [
    `p:${group}/${PROCESS_PROBE_EVENTS.mmap} dma_buf_mmap_internal ino=${ino}:u64 ` +
    `start=${start}:x64 end=${end}:x64 flags=${flags}:x64`,
    `r:${group}/${PROCESS_PROBE_EVENTS.mmapRet} dma_buf_mmap_internal ret=$retval:s32`,
  ];
  const mmapNeeds = noOffsets("reading the mapping's permissions (vma->vm_flags)", [
    ["vm_area_struct.vm_start", o?.vmaStart],
    ["vm_area_struct.vm_end", o?.vmaEnd],
    ["vm_area_struct.vm_flags", o?.vmaFlags],
  ]);
  const mmap: ProcessProbeLines = !k.functions.has("dma_buf_mmap_internal")
    ? missing("dma_buf_mmap_internal")
    : k.btfArgs
    ? {
      function: "dma_buf_mmap_internal",
      lines: mmapLines(
        "file->f_inode->i_ino",
        "vma->vm_start",
        "vma->vm_end",
        "vma->vm_flags",
      ),
    }
    : mmapNeeds ?? {
      function: "dma_buf_mmap_internal",
      lines: mmapLines(
        fileInoArg(o!, "$arg1"),
        `+${o!.vmaStart}($arg2)`,
        `+${o!.vmaEnd}($arg2)`,
        `+${o!.vmaFlags}($arg2)`,
      ),
    };
  return { fd, mmap };
}

/** The process probes as placed: the parts defined, and why the others are not. */
export interface ProcessProbes {
  /** `group:event` of every event defined. */
  events: string[];
  /** The filter of each event that has one, by `group:event`. */
  filters: Record<string, string>;
  /** The lines written to kprobe_events. */
  definitions: string[];
  /** The parts placed. */
  parts: ProcessProbePart[];
  /** Why each part not placed is not. */
  unavailable: Partial<Record<ProcessProbePart, string>>;
}

/**
 * Defines the parts of the process probes the kernel takes, in `group` (already journaled by
 * `installDmabufProbes()`, whose removal covers these events too). A part the kernel refuses
 * is left out with its reason; the others stay.
 *
 * @example
 * ```ts ignore
 * import { installProcessProbes } from "./process_probes.ts";
 * import { probeKernel } from "./kprobe_events.ts";
 * const k = probeKernel("/sys/kernel/tracing");
 * if (!("unavailable" in k)) console.log(installProcessProbes("/sys/kernel/tracing", "axl_kp_1", k));
 * ```
 */
export function installProcessProbes(
  tracefs: string,
  group: string,
  kernel: ProcessProbeKernel,
): ProcessProbes {
  const defs = processProbeDefinitions(group, kernel);
  const out: ProcessProbes = {
    events: [],
    filters: {},
    definitions: [],
    parts: [],
    unavailable: {},
  };
  const path = `${tracefs}/kprobe_events`;
  for (const part of ["fd", "mmap"] as const) {
    const d = defs[part];
    if ("unavailable" in d) {
      out.unavailable[part] = d.unavailable;
      continue;
    }
    const placed: string[] = [];
    try {
      for (const line of d.lines) {
        Deno.writeTextFileSync(path, line + "\n", { append: true });
        placed.push(line);
      }
    } catch (e) {
      for (const line of placed) removeLine(path, line);
      out.unavailable[part] = `the kernel refused '${d.lines[placed.length]}': ${
        (e as Error).message
      }`;
      continue;
    }
    out.parts.push(part);
    for (const line of d.lines) {
      out.definitions.push(line);
      out.events.push(line.split(/\s/, 1)[0]!.slice(2).replace("/", ":"));
    }
    if (part === "fd") out.filters[`${group}:${PROCESS_PROBE_EVENTS.fd}`] = FD_EVENT_FILTER;
  }
  return out;
}

/** Removes the event `line` defined (best effort: the group's removal retries it). */
function removeLine(path: string, line: string): void {
  const name = line.split(/\s/, 1)[0]!.slice(2);
  try {
    Deno.writeTextFileSync(path, `-:${name}\n`, { append: true });
  } catch { /* removeDmabufProbes() tries again */ }
}
