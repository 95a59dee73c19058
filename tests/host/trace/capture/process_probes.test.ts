// The process probes' definitions (an fd installed, a dma-buf mapped) for the kernels verify
// meets: 6.12 with BTF argument names (the x86_64 rig, where every line below was accepted and
// fired) and 5.15 without them (the arm64 kit), where the fields are followed through the struct
// offsets scripts/kernel-offsets.sh measured from the kit's tree: the lines are compared to those
// the arm64 guest's kernel accepted in a live run (5.15-arm64-refs-events). An offsets file
// measured before the process probes cannot reach the superblock's magic or the mapping's flags,
// and the /proc scans stay.
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

// The offsets scripts/kernel-offsets.sh measured from the rig's arm64 5.15 kit before the process
// probes (a held run's capture): they reach the inode, not the superblock or the mapping's flags.
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

Deno.test("processProbeDefinitions() on 5.15 with an offsets file measured before the process probes leaves both parts to the scans, saying why", () => {
  const d = processProbeDefinitions("axl_kp_9", k515);
  assert.ok("unavailable" in d.fd && "unavailable" in d.mmap);
  assert.match(d.fd.unavailable, /s_magic.*CONFIG_PROBE_EVENTS_BTF_ARGS/);
  assert.match(d.mmap.unavailable, /vm_flags.*CONFIG_PROBE_EVENTS_BTF_ARGS/);
  assert.match(
    d.fd.unavailable,
    /has no offset inode\.i_sb, super_block\.s_magic .*measure it again/,
  );
  assert.match(
    d.mmap.unavailable,
    /has no offset vm_area_struct\.vm_start, vm_area_struct\.vm_end, vm_area_struct\.vm_flags/,
  );
});

// A held run of tests/device/verify_metis_user.test.ts in the arm64 guest (5.15, no BTF): the
// offsets the rig measured for it, and the process probe lines its kernel accepted (capture.json
// refEvents.definitions; the events fired: refs_trace.txt).
const live515 = new URL(
  "../../../fixtures/trace/5.15-arm64-refs-events/metis-user-held/",
  import.meta.url,
);
const measured515 = parseKernelOffsets(
  Deno.readTextFileSync(new URL("kernel-offsets", live515)),
  "offsets-5.15",
);

Deno.test("processProbeDefinitions() on 5.15 follows the measured offsets from $argN: the lines the arm64 guest's kernel accepted", () => {
  assert.ok(!("unavailable" in measured515), JSON.stringify(measured515));
  const capture = JSON.parse(Deno.readTextFileSync(new URL("capture.json", live515)));
  const accepted: string[] = capture.refEvents.definitions;
  const group = accepted[0]!.slice(2, accepted[0]!.indexOf("/"));
  const d = processProbeDefinitions(group, { ...k515, offsets: measured515 });
  assert.ok("lines" in d.fd && "lines" in d.mmap);
  assert.deepEqual([...d.fd.lines, ...d.mmap.lines], accepted);
  assert.deepEqual(capture.refEvents.parts, ["fd", "mmap"]);
  // file->f_inode->i_sb->s_magic and vma->vm_flags, by offset, on the same fields as with BTF.
  assert.match(
    d.fd.lines[0]!,
    / fd=\$arg1:s32 ino=\+\d+\(\+\d+\(\$arg2\)\):u64 magic=\+\d+\(\+\d+\(\+\d+\(\$arg2\)\)\):x64$/,
  );
  assert.match(
    d.mmap.lines[0]!,
    / start=\+\d+\(\$arg2\):x64 end=\+\d+\(\$arg2\):x64 flags=\+\d+\(\$arg2\):x64$/,
  );
});

Deno.test("processProbeDefinitions() without BTF names needs $argN", () => {
  const d = processProbeDefinitions("g", {
    ...k515,
    argAccess: false,
    offsets: measured515 as never,
  });
  assert.ok("unavailable" in d.fd && "unavailable" in d.mmap);
  assert.match(d.fd.unavailable, /no \$argN fetch-args/);
});

Deno.test("processProbeDefinitions() names a function the kernel does not offer", () => {
  const d = processProbeDefinitions("g", { ...k612, functions: new Set(["fd_install"]) });
  assert.ok("lines" in d.fd);
  assert.deepEqual(d.mmap, {
    unavailable: "cannot probe dma_buf_mmap_internal (not in the kernel's function list)",
  });
});
