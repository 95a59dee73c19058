/**
 * kprobe events on the kernel's own dma-buf functions: evidence of who attaches, maps,
 * unmaps and detaches a dma-buf that needs no tracepoint of the importing driver (Axelera's
 * `metis.ko` has none). Each event records the importing device's name as bufinfo prints it
 * (`dev_name()`), the buffer and attachment pointers, the DMA direction and the buffer's inode
 * where it can be reached: by field names through BTF (`CONFIG_PROBE_EVENTS_BTF_ARGS`, 6.6+),
 * else through the struct offsets measured from the kernel's own build tree
 * (`scripts/kernel-offsets.sh`, read from `$AXL_KERNEL_OFFSETS`): `+OFFS(...)` fetch-args
 * from the argument to `dma_buf->file->f_inode->i_ino`. Those offsets depend on the kernel's
 * configuration, so they are never assumed: without BTF or a measurement for the running
 * release, the events carry no inode and say why. The attach event also carries the
 * buffer's exporter (`dma_buf->exp_name`, as bufinfo prints it) where the inode is reached
 * and the exporter's name can be too: then the attach and detach events say what bufinfo's
 * samples said of attachments, and verify reads bufinfo only as a slow cross-check.
 *
 * Fetch-args that work on every kernel read only stable layout: `struct dma_buf_attachment`
 * starts with `dmabuf` then `dev`, `struct device` starts with its kobject, whose first
 * member is the name (the measured offsets replace these when present). Only 64-bit kernels
 * are handled (pointers are 8 bytes).
 *
 * The probed functions are the inner ones every caller goes through: the `_unlocked`
 * variants of 6.2+ call `dma_buf_map_attachment()`/`dma_buf_unmap_attachment()`, and
 * `dma_buf_attach()` calls `dma_buf_dynamic_attach()` (5.7+). Probing both would count
 * each call twice.
 *
 * @module
 */
import { type JournalRecord, TracefsJournal } from "./tracefs_journal.ts";
import { PROCESS_PROBE_EVENTS } from "./process_probes.ts";
import { fileInoArg, type KernelOffsets, loadKernelOffsets } from "./kernel_offsets.ts";

export { type KernelOffsets, loadKernelOffsets, parseKernelOffsets } from "./kernel_offsets.ts";

/** The events of one probe set, by what they record. */
export type DmabufProbeKind = "attach" | "map" | "unmap" | "detach";

/** Event names in the trace (the group is not printed there). */
export const DMABUF_PROBE_EVENTS: Readonly<Record<DmabufProbeKind, string>> = {
  attach: "axl_kp_attach",
  map: "axl_kp_map",
  unmap: "axl_kp_unmap",
  detach: "axl_kp_detach",
};

/** What the kernel offers for the probe definitions. */
export interface ProbeKernel {
  /** Functions that can be probed (from `available_filter_functions` or kallsyms). */
  functions: ReadonlySet<string>;
  /** `$argN` fetch-args work (tracefs README lists `$arg<N>`). */
  argAccess: boolean;
  /** BTF argument names and `->` field access work (README lists `->field`). */
  btfArgs: boolean;
  /** `x86_64` or `aarch64`: the argument registers when `$argN` does not work. */
  arch: string;
  /** Struct offsets measured for this kernel, used for the inode when BTF names are absent. */
  offsets?: KernelOffsets;
}

/** One event to define: its kprobe_events line with and without the BTF inode. */
export interface ProbeDefinition {
  kind: DmabufProbeKind;
  function: string;
  /** Line with the inode fetched through BTF, when the kernel offers it. */
  withInode?: string;
  /**
   * The attach event's line with the inode and the exporter's name, when both can be
   * reached (the other events have no exporter field: their `withInode` goes with it).
   */
  withExporter?: string;
  /** Line every kernel with kprobe events takes. */
  plain: string;
}

const REGISTERS: Record<string, string[]> = {
  x86_64: ["%di", "%si", "%dx"],
  aarch64: ["%x0", "%x1", "%x2"],
};

/**
 * The probe definitions for this kernel, or why there are none.
 *
 * @example
 * ```ts
 * import { dmabufProbeDefinitions } from "./kprobe_events.ts";
 * const defs = dmabufProbeDefinitions("axl_kp_1", {
 *   functions: new Set(["dma_buf_attach", "dma_buf_detach", "dma_buf_map_attachment",
 *     "dma_buf_unmap_attachment"]),
 *   argAccess: true, btfArgs: false, arch: "x86_64",
 * });
 * console.log(Array.isArray(defs) ? defs[0]?.function : defs.unavailable); // "dma_buf_attach"
 * ```
 */
export function dmabufProbeDefinitions(
  group: string,
  k: ProbeKernel,
): ProbeDefinition[] | { unavailable: string } {
  const regs = REGISTERS[k.arch];
  if (!k.argAccess && !regs) {
    return { unavailable: `no $argN fetch-args and no register names known for ${k.arch}` };
  }
  const arg = (n: number) => k.argAccess ? `$arg${n}` : regs![n - 1]!;
  const o = k.offsets;
  // dev_name(): the kobject name, the first member of struct device.
  const devOf = (dev: string) => `dev=+0(+${o?.deviceName ?? 0}(${dev})):string`;
  const devOfAttach = (att: string) => devOf(`+${o?.attachmentDev ?? 8}(${att})`);
  const bufOfAttach = (att: string) => `+${o?.attachmentDmabuf ?? 0}(${att})`;
  // The inode by measured offsets: dma_buf->file->f_inode->i_ino.
  const inoOfBuf = (buf: string) =>
    o ? `${fileInoArg(o, `+${o.dmabufFile}(${buf})`)}:u64` : undefined;
  const pick = (...names: string[]) => names.find((f) => k.functions.has(f));
  const attach = pick("dma_buf_dynamic_attach", "dma_buf_attach");
  const map = pick("dma_buf_map_attachment");
  const unmap = pick("dma_buf_unmap_attachment");
  const detach = pick("dma_buf_detach");
  const missing = [
    attach ? "" : "dma_buf_attach",
    map ? "" : "dma_buf_map_attachment",
    unmap ? "" : "dma_buf_unmap_attachment",
    detach ? "" : "dma_buf_detach",
  ].filter(Boolean);
  if (missing.length > 0) {
    return {
      unavailable: `cannot probe ${missing.join(", ")} (not in the kernel's function list)`,
    };
  }
  // The exporter's name as bufinfo prints it: the string dma_buf->exp_name points to.
  const expOfBuf = (buf: string, btfBuf: string) =>
    k.btfArgs
      ? `exp=+0(${btfBuf}->exp_name):string`
      : o?.dmabufExpName !== undefined
      ? `exp=+0(+${o.dmabufExpName}(${buf})):string`
      : undefined;
  const line = (
    kind: DmabufProbeKind,
    fn: string,
    args: string[],
    btfIno: string,
    buf: string,
  ): ProbeDefinition => {
    const ino = k.btfArgs ? btfIno : inoOfBuf(buf);
    const head = `p:${group}/${DMABUF_PROBE_EVENTS[kind]} ${fn} ${args.join(" ")}`;
    const exp = kind === "attach" && ino ? expOfBuf(buf, "dmabuf") : undefined;
    return {
      kind,
      function: fn,
      plain: head,
      ...(ino ? { withInode: `${head} ino=${ino}` } : {}),
      ...(exp ? { withExporter: `${head} ino=${ino} ${exp}` } : {}),
    };
  };
  const a1 = arg(1), a2 = arg(2), a3 = arg(3);
  return [
    line("attach", attach!, [`buf=${a1}:x64`, devOf(a2)], "dmabuf->file->f_inode->i_ino", a1),
    line(
      "map",
      map!,
      [`att=${a1}:x64`, `buf=${bufOfAttach(a1)}:x64`, devOfAttach(a1), `dir=${a2}:s32`],
      "attach->dmabuf->file->f_inode->i_ino",
      bufOfAttach(a1),
    ),
    line(
      "unmap",
      unmap!,
      [`att=${a1}:x64`, `buf=${bufOfAttach(a1)}:x64`, devOfAttach(a1), `dir=${a3}:s32`],
      "attach->dmabuf->file->f_inode->i_ino",
      bufOfAttach(a1),
    ),
    line(
      "detach",
      detach!,
      [`buf=${a1}:x64`, `att=${a2}:x64`, devOfAttach(a2)],
      "dmabuf->file->f_inode->i_ino",
      a1,
    ),
  ];
}

/**
 * What the kernel under `tracefs` offers for {@linkcode dmabufProbeDefinitions}.
 *
 * @example
 * ```ts ignore
 * import { probeKernel } from "./kprobe_events.ts";
 * console.log(probeKernel("/sys/kernel/tracing"));
 * ```
 */
export function probeKernel(
  tracefs: string,
  offsets: () => KernelOffsets | { unavailable: string } = () =>
    loadKernelOffsets(Deno.osRelease()),
): (ProbeKernel & { offsetsUnavailable?: string }) | { unavailable: string } {
  try {
    Deno.statSync(`${tracefs}/kprobe_events`);
  } catch {
    return { unavailable: "the kernel has no kprobe events (CONFIG_KPROBE_EVENTS)" };
  }
  let readme = "";
  try {
    readme = Deno.readTextFileSync(`${tracefs}/README`);
  } catch { /* old kernels: assume the least */ }
  const functions = new Set<string>();
  for (const path of [`${tracefs}/available_filter_functions`, "/proc/kallsyms"]) {
    let text: string;
    try {
      text = Deno.readTextFileSync(path);
    } catch {
      continue;
    }
    // fd_install, which the process probes take (`process_probes.ts`), besides dma_buf_*.
    const names = /(?:^|\s)(dma_buf_\w+|fd_install)(?=\s|$)/gm;
    for (const m of text.matchAll(names)) functions.add(m[1]!);
    if (functions.size > 0) break;
  }
  const btfArgs = /->field/.test(readme);
  // Without BTF names the inode is reachable only through offsets measured for this release.
  const measured = btfArgs ? undefined : offsets();
  return {
    functions,
    argAccess: readme.includes("$arg<N>"),
    btfArgs,
    arch: Deno.build.arch,
    ...(measured && !("unavailable" in measured) ? { offsets: measured } : {}),
    ...(measured && "unavailable" in measured ? { offsetsUnavailable: measured.unavailable } : {}),
  };
}

/** The probe set as installed. */
export interface InstalledProbes {
  group: string;
  /** `group:event` of every event defined. */
  events: string[];
  /** The lines written to kprobe_events. */
  definitions: string[];
  /** Whether the events fetch the inode. */
  inode: boolean;
  /** How they reach it: field names through BTF, or offsets measured from the kernel tree. */
  inodeFrom?: "btf" | "offsets";
  /** The offsets file, when `inodeFrom` is `offsets`. */
  offsets?: string;
  /** Why the inode is not fetched, when it is not. */
  inodeUnavailable?: string;
  /** Whether the attach event names the buffer's exporter (`exp=`); absent: it does not. */
  exporter?: boolean;
  /** Why the attach event carries the inode but not the exporter, when the kernel refused it. */
  exporterUnavailable?: string;
}

const installed = new Map<string, () => void>();
/** The state-file records of the groups this process defined, until they are removed. */
const journaled = new Map<string, JournalRecord>();

/** Records `group` in the state file before its first event is defined. */
function journalGroup(tracefs: string, group: string): void {
  if (journaled.has(group)) return;
  const rec = TracefsJournal.current().record(`kprobe events ${group}`, {
    op: "kprobes",
    tracefs,
    group,
  });
  journaled.set(group, rec);
}
let unloadHooked = false;

/**
 * Defines the dma-buf probe events under `group` (with the inode where the kernel takes
 * it), from `kernel` (default: {@linkcode probeKernel} of `tracefs`). Nothing is enabled;
 * enable `group:*` like any event. {@linkcode removeDmabufProbes}
 * undoes it, and so does process exit; the group is in the process's state file
 * (`tracefs_journal.ts`) before it is defined, for a run killed with SIGKILL. Returns why
 * not when the kernel cannot.
 *
 * @example
 * ```ts ignore
 * import { installDmabufProbes, removeDmabufProbes } from "./kprobe_events.ts";
 * const p = installDmabufProbes("/sys/kernel/tracing", `axl_kp_${Deno.pid}`);
 * if (!("unavailable" in p)) removeDmabufProbes("/sys/kernel/tracing", p.group);
 * ```
 */
export function installDmabufProbes(
  tracefs: string,
  group: string,
  kernel: ReturnType<typeof probeKernel> = probeKernel(tracefs),
): InstalledProbes | { unavailable: string } {
  if (!/^\w+$/.test(group)) throw new RangeError(`installDmabufProbes(): bad group ${group}`);
  if ("unavailable" in kernel) return kernel;
  removeStaleProbes(tracefs);
  const defs = dmabufProbeDefinitions(group, kernel);
  if (!Array.isArray(defs)) return defs;
  const path = `${tracefs}/kprobe_events`;
  const inode = kernel.btfArgs || kernel.offsets !== undefined;
  const out: InstalledProbes = { group, events: [], definitions: [], inode };
  if (kernel.btfArgs) out.inodeFrom = "btf";
  else if (kernel.offsets) {
    out.inodeFrom = "offsets";
    out.offsets = kernel.offsets.source;
    if (kernel.offsets.dmabufExpName === undefined) {
      out.exporterUnavailable = `${kernel.offsets.source} has no offset dma_buf.exp_name ` +
        "(measured before verify named the exporter): measure it again with " +
        "scripts/kernel-offsets.sh";
    }
  } else {
    out.inodeUnavailable = "the kernel cannot name probe arguments through BTF " +
      "(CONFIG_PROBE_EVENTS_BTF_ARGS, Linux 6.6+)" +
      (kernel.offsetsUnavailable ? ` and ${kernel.offsetsUnavailable}` : "");
  }
  const remove = register(tracefs, group);
  hookUnload();
  if (inode && defs.some((d) => d.withExporter)) out.exporter = true;
  try {
    for (const d of defs) {
      const text = out.exporter
        ? d.withExporter ?? d.withInode!
        : out.inode
        ? d.withInode!
        : d.plain;
      try {
        append(path, text);
      } catch (e) {
        if (out.exporter) {
          // The kernel refused the exporter's fetch-arg: the inode alone, as before it was added.
          delete out.exporter;
          out.exporterUnavailable = `the kernel refused '${text}': ${(e as Error).message}`;
          startOver(tracefs, group);
          return installWithInode(tracefs, group, defs, out);
        }
        if (!out.inode) throw e;
        // The kernel refused the inode's fetch-args: no inode in any event, for the same fields.
        dropInode(out, text, e);
        startOver(tracefs, group);
        return retryPlain(path, group, defs, out);
      }
      out.definitions.push(text);
      out.events.push(`${group}:${DMABUF_PROBE_EVENTS[d.kind]}`);
    }
    return out;
  } catch (e) {
    remove();
    return { unavailable: `defining kprobe events failed: ${(e as Error).message}` };
  }
}

/** The events with the inode but no exporter; without the inode when the kernel refuses it. */
function installWithInode(
  tracefs: string,
  group: string,
  defs: ProbeDefinition[],
  out: InstalledProbes,
): InstalledProbes {
  const path = `${tracefs}/kprobe_events`;
  out.events = [];
  out.definitions = [];
  for (const d of defs) {
    try {
      append(path, d.withInode!);
    } catch (e) {
      dropInode(out, d.withInode!, e);
      startOver(tracefs, group);
      return retryPlain(path, group, defs, out);
    }
    out.definitions.push(d.withInode!);
    out.events.push(`${group}:${DMABUF_PROBE_EVENTS[d.kind]}`);
  }
  return out;
}

/**
 * Journals `group` (so that a later run removes it if this process dies) and registers its
 * removal for the unload hook; returns that removal.
 */
function register(tracefs: string, group: string): () => void {
  const remove = () => removeDmabufProbes(tracefs, group);
  journalGroup(tracefs, group);
  installed.set(group, remove);
  return remove;
}

/** Removes the events `group` defined so far, after the kernel refused one, and registers it again. */
function startOver(tracefs: string, group: string): void {
  removeDmabufProbes(tracefs, group);
  register(tracefs, group);
}

/** The kernel refused an inode fetch-arg (`refused`): the events go without the inode. */
function dropInode(out: InstalledProbes, refused: string, e: unknown): void {
  out.inode = false;
  delete out.inodeFrom;
  delete out.offsets;
  out.inodeUnavailable = `the kernel refused '${refused}': ${(e as Error).message}`;
}

function retryPlain(
  path: string,
  group: string,
  defs: ProbeDefinition[],
  out: InstalledProbes,
): InstalledProbes {
  out.events = [];
  out.definitions = [];
  for (const d of defs) {
    append(path, d.plain);
    out.definitions.push(d.plain);
    out.events.push(`${group}:${DMABUF_PROBE_EVENTS[d.kind]}`);
  }
  return out;
}

/**
 * Removes every event of `group`, the process probes' (`process_probes.ts`) too (they must be
 * disabled first). Idempotent; throws when an event stays defined.
 */
export function removeDmabufProbes(tracefs: string, group: string): void {
  installed.delete(group);
  const errors: string[] = [];
  for (
    const event of [...Object.values(DMABUF_PROBE_EVENTS), ...Object.values(PROCESS_PROBE_EVENTS)]
  ) {
    try {
      Deno.statSync(`${tracefs}/events/${group}/${event}`);
    } catch {
      continue;
    }
    try {
      append(`${tracefs}/kprobe_events`, `-:${group}/${event}`);
    } catch (e) {
      errors.push(`${group}/${event}: ${(e as Error).message}`);
    }
  }
  if (errors.length > 0) {
    throw new Error(
      `removing kprobe events failed (${errors.join("; ")}): ` +
        `disable them and run: echo '-:${group}/<event>' >> ${tracefs}/kprobe_events`,
    );
  }
  const rec = journaled.get(group);
  journaled.delete(group);
  if (rec) TracefsJournal.current().forget(rec);
}

/**
 * Removes the probe groups of runs that died without cleaning up (`axl_kp_<pid>` of a pid
 * that no longer exists). Best effort: a group still enabled somewhere stays.
 */
function removeStaleProbes(tracefs: string): void {
  let entries: Deno.DirEntry[];
  try {
    entries = [...Deno.readDirSync(`${tracefs}/events`)];
  } catch {
    return;
  }
  for (const e of entries) {
    const m = /^axl_kp_(\d+)$/.exec(e.name);
    if (!m || Number(m[1]) === Deno.pid) continue;
    try {
      Deno.statSync(`/proc/${m[1]}`);
      continue;
    } catch { /* the run is gone */ }
    try {
      removeDmabufProbes(tracefs, e.name);
    } catch { /* enabled in a leftover instance: leave it */ }
  }
}

function append(path: string, line: string): void {
  try {
    Deno.writeTextFileSync(path, line + "\n", { append: true });
  } catch (e) {
    const hint = e instanceof Deno.errors.PermissionDenied ? " (run as root)" : "";
    throw new Error(`write '${line}' to ${path}: ${(e as Error).message}${hint}`, { cause: e });
  }
}

function hookUnload(): void {
  if (unloadHooked) return;
  unloadHooked = true;
  globalThis.addEventListener("unload", () => {
    for (const remove of [...installed.values()]) {
      try {
        remove();
      } catch { /* exiting: nothing left to report to */ }
    }
  });
}
