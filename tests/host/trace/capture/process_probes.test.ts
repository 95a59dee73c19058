// The process probes' definitions (an fd installed, a dma-buf mapped) for the kernels verify
// meets: 6.12 with BTF argument names (the x86_64 rig, where every line below was accepted and
// fired) and 5.15 without them (the arm64 kit), where neither the superblock's magic nor the
// mapping's flags can be reached and the /proc scans stay.
import assert from "node:assert/strict";
import {
  parseKernelOffsets,
  type ProbeKernel,
} from "../../../../lib/trace/capture/kprobe_events.ts";
import {
  FD_EVENT_FILTER,
  processProbeDefinitions,
} from "../../../../lib/trace/capture/process_probes.ts";

const k612: ProbeKernel = {
  functions: new Set(["fd_install", "dma_buf_mmap_internal"]),
  argAccess: true,
  btfArgs: true,
  arch: "x86_64",
};

// The offsets scripts/kernel-offsets.sh measured from the rig's arm64 5.15 kit (a held run's
// capture): they reach the inode, not the superblock or the mapping's flags.
const offsets515 = parseKernelOffsets(
  Deno.readTextFileSync(
    new URL("../../../fixtures/trace/5.15-arm64-generic/held/kernel-offsets", import.meta.url),
  ),
  "offsets-5.15",
);
assert.ok(!("unavailable" in offsets515));
const k515: ProbeKernel = {
  functions: new Set(["fd_install", "dma_buf_mmap_internal"]),
  argAccess: true,
  btfArgs: false,
  arch: "aarch64",
  offsets: offsets515,
};

Deno.test("processProbeDefinitions() on 6.12 probes fd_install and dma_buf_mmap_internal with BTF names", () => {
  const d = processProbeDefinitions("axl_kp_9", k612);
  assert.ok("lines" in d.fd && "lines" in d.mmap);
  assert.deepEqual(d.fd.lines, [
    "p:axl_kp_9/axl_kp_fd fd_install fd=$arg1:s32 ino=file->f_inode->i_ino:u64 " +
    "magic=file->f_inode->i_sb->s_magic:x64",
  ]);
  assert.deepEqual(d.mmap.lines, [
    "p:axl_kp_9/axl_kp_mmap dma_buf_mmap_internal ino=file->f_inode->i_ino:u64 " +
    "start=vma->vm_start:x64 end=vma->vm_end:x64 flags=vma->vm_flags:x64",
    "r:axl_kp_9/axl_kp_mmap_ret dma_buf_mmap_internal ret=$retval:s32",
  ]);
  // DMA_BUF_MAGIC, include/uapi/linux/magic.h ("DMAB").
  assert.equal(FD_EVENT_FILTER, "magic == 0x444d4142");
});

Deno.test("processProbeDefinitions() on 5.15 without BTF names leaves both parts to the scans, saying why", () => {
  const d = processProbeDefinitions("axl_kp_9", k515);
  assert.ok("unavailable" in d.fd && "unavailable" in d.mmap);
  assert.match(d.fd.unavailable, /s_magic.*CONFIG_PROBE_EVENTS_BTF_ARGS/);
  assert.match(d.mmap.unavailable, /vm_flags.*CONFIG_PROBE_EVENTS_BTF_ARGS/);
});

Deno.test("processProbeDefinitions() names a function the kernel does not offer", () => {
  const d = processProbeDefinitions("g", { ...k612, functions: new Set(["fd_install"]) });
  assert.ok("lines" in d.fd);
  assert.deepEqual(d.mmap, {
    unavailable: "cannot probe dma_buf_mmap_internal (not in the kernel's function list)",
  });
});
