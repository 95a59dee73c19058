/**
 * The struct offsets verify's kprobe events follow where the kernel has no BTF probe arguments
 * (5.15): measured by `scripts/kernel-offsets.sh` from the kernel's own build tree
 * (`offsetof()` compiled against its headers), read from `$AXL_KERNEL_OFFSETS` or
 * `/etc/axl/kernel-offsets/RELEASE`, never assumed. The dma-buf events (`kprobe_events.ts`)
 * and the process probes (`process_probes.ts`) build their `+OFFS(...)` fetch-args from them.
 *
 * @module
 */

/**
 * The struct offsets of one kernel release, as `scripts/kernel-offsets.sh` measures them from
 * the build tree (`offsetof()` compiled against its headers).
 */
export interface KernelOffsets {
  /** `uname -r` of the kernel the tree builds modules for. */
  release: string;
  /** `offsetof(struct dma_buf_attachment, dmabuf)`. */
  attachmentDmabuf: number;
  /** `offsetof(struct dma_buf_attachment, dev)`. */
  attachmentDev: number;
  /** `offsetof(struct device, kobj.name)`. */
  deviceName: number;
  /** `offsetof(struct dma_buf, file)`. */
  dmabufFile: number;
  /** `offsetof(struct dma_buf, exp_name)`; absent in files measured before it was. */
  dmabufExpName?: number;
  /** `offsetof(struct file, f_inode)`. */
  fileInode: number;
  /** `offsetof(struct inode, i_ino)`. */
  inodeIno: number;
  /** `offsetof(struct inode, i_sb)`; absent in files measured before the process probes. */
  inodeSb?: number;
  /** `offsetof(struct super_block, s_magic)`; absent likewise. */
  sbMagic?: number;
  /** `offsetof(struct vm_area_struct, vm_start)`; absent likewise. */
  vmaStart?: number;
  /** `offsetof(struct vm_area_struct, vm_end)`; absent likewise. */
  vmaEnd?: number;
  /** `offsetof(struct vm_area_struct, vm_flags)`; absent likewise. */
  vmaFlags?: number;
  /** Where they were read from. */
  source: string;
}

/**
 * Offsets measured since a later part of verify needed them: a file measured before lacks them,
 * and the part that follows them says so (`dma_buf.exp_name`: the attach event's exporter; the
 * others: the process probes, `process_probes.ts`).
 */
const LATER_OFFSET_KEYS: Readonly<Record<string, keyof KernelOffsets>> = {
  "dma_buf.exp_name": "dmabufExpName",
  "inode.i_sb": "inodeSb",
  "super_block.s_magic": "sbMagic",
  "vm_area_struct.vm_start": "vmaStart",
  "vm_area_struct.vm_end": "vmaEnd",
  "vm_area_struct.vm_flags": "vmaFlags",
};

/** The largest offset taken from an offsets file: no member of these structs lies further. */
export const MAX_STRUCT_OFFSET = 65535;

const OFFSET_KEYS: Readonly<Record<string, keyof KernelOffsets>> = {
  "dma_buf_attachment.dmabuf": "attachmentDmabuf",
  "dma_buf_attachment.dev": "attachmentDev",
  "device.kobj.name": "deviceName",
  "dma_buf.file": "dmabufFile",
  "file.f_inode": "fileInode",
  "inode.i_ino": "inodeIno",
};

/**
 * Parses the output of `scripts/kernel-offsets.sh` (`key=value` lines, `#` comments).
 *
 * @example
 * ```ts
 * import { parseKernelOffsets } from "./kernel_offsets.ts";
 * const o = parseKernelOffsets("release=5.15.0\ndma_buf_attachment.dmabuf=0\n" +
 *   "dma_buf_attachment.dev=8\ndevice.kobj.name=0\ndma_buf.file=8\nfile.f_inode=32\n" +
 *   "inode.i_ino=56\n", "offsets.txt");
 * console.log("unavailable" in o ? o.unavailable : o.inodeIno); // 56
 * ```
 */
export function parseKernelOffsets(
  text: string,
  source: string,
): KernelOffsets | { unavailable: string } {
  const values = new Map<string, string>();
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (!line || line.startsWith("#")) continue;
    const eq = line.indexOf("=");
    if (eq <= 0) return { unavailable: `${source}: '${line}' is no key=value line` };
    const key = line.slice(0, eq), value = line.slice(eq + 1);
    // Two measurements run together (a debug build's appended to the normal one's): neither.
    const had = values.get(key);
    if (had !== undefined && had !== value) {
      return { unavailable: `${source} gives ${key} twice: ${had}, then ${value}` };
    }
    values.set(key, value);
  }
  const release = values.get("release");
  if (!release) return { unavailable: `${source} names no kernel release` };
  const out: Record<string, unknown> = { release, source };
  const offset = (key: string, v: string): number | { unavailable: string } =>
    /^\d{1,5}$/.test(v) && Number(v) <= MAX_STRUCT_OFFSET ? Number(v) : {
      unavailable: `${source}: ${key} is '${v}', not an offset (a whole number from 0 to ` +
        `${MAX_STRUCT_OFFSET})`,
    };
  for (const [key, field] of Object.entries(OFFSET_KEYS)) {
    const v = values.get(key);
    if (v === undefined) return { unavailable: `${source} has no offset ${key}` };
    const n = offset(key, v);
    if (typeof n !== "number") return n;
    out[field] = n;
  }
  for (const [key, field] of Object.entries(LATER_OFFSET_KEYS)) {
    const v = values.get(key);
    if (v === undefined) continue;
    const n = offset(key, v);
    if (typeof n !== "number") return n;
    out[field] = n;
  }
  return out as unknown as KernelOffsets;
}

/**
 * The measured struct offsets of the running kernel: the file `$AXL_KERNEL_OFFSETS` names,
 * else `/etc/axl/kernel-offsets/<release>`; or why there are none. A file measured for
 * another release is refused: the layout follows the kernel's configuration.
 *
 * @example
 * ```ts ignore
 * import { loadKernelOffsets } from "./kernel_offsets.ts";
 * console.log(loadKernelOffsets(Deno.osRelease()));
 * ```
 */
export function loadKernelOffsets(
  release: string,
  path: string | undefined = Deno.env.get("AXL_KERNEL_OFFSETS"),
): KernelOffsets | { unavailable: string } {
  const file = path || `/etc/axl/kernel-offsets/${release}`;
  let text: string;
  try {
    text = Deno.readTextFileSync(file);
  } catch (e) {
    if (!path && e instanceof Deno.errors.NotFound) {
      return {
        unavailable: `no struct offsets were measured for ${release}: run ` +
          `scripts/kernel-offsets.sh /lib/modules/${release}/build > FILE and set ` +
          `AXL_KERNEL_OFFSETS=FILE (or write it to ${file})`,
      };
    }
    return { unavailable: `cannot read the struct offsets in ${file}: ${(e as Error).message}` };
  }
  const o = parseKernelOffsets(text, file);
  if ("unavailable" in o) return o;
  if (o.release !== release) {
    return {
      unavailable: `the struct offsets in ${file} were measured for ${o.release}, ` +
        `not the running ${release}: measure them again with scripts/kernel-offsets.sh`,
    };
  }
  return o;
}

/**
 * The kprobe fetch-arg of `file->f_inode` through measured offsets, from a fetch-arg that holds
 * a `struct file *`.
 *
 * @example
 * ```ts
 * import { fileInodeArg } from "./kernel_offsets.ts";
 * console.log(fileInodeArg({ fileInode: 32 }, "$arg2")); // "+32($arg2)"
 * ```
 */
export function fileInodeArg(o: Pick<KernelOffsets, "fileInode">, file: string): string {
  return `+${o.fileInode}(${file})`;
}

/**
 * The kprobe fetch-arg of `file->f_inode->i_ino` (the dma-buf's inode number, as bufinfo and
 * `/proc/PID/fdinfo` print it) through measured offsets.
 *
 * @example
 * ```ts
 * import { fileInoArg } from "./kernel_offsets.ts";
 * console.log(fileInoArg({ fileInode: 32, inodeIno: 64 }, "$arg2")); // "+64(+32($arg2))"
 * ```
 */
export function fileInoArg(
  o: Pick<KernelOffsets, "fileInode" | "inodeIno">,
  file: string,
): string {
  return `+${o.inodeIno}(${fileInodeArg(o, file)})`;
}
