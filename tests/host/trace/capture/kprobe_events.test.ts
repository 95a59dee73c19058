// The kprobe definitions verify writes to kprobe_events, for the kernels it meets: 6.12 with
// BTF probe arguments (the VM rig, where every line below was accepted), 5.15 without them,
// and kernels without $argN where the argument registers stand in.
import assert from "node:assert/strict";
import {
  dmabufProbeDefinitions,
  installDmabufProbes,
  loadKernelOffsets,
  parseKernelOffsets,
  type ProbeKernel,
  removeDmabufProbes,
} from "../../../../lib/trace/capture/kprobe_events.ts";

const FUNCS_612 = new Set(
  // available_filter_functions of Debian's 6.12.117 in the VM rig
  Deno.readTextFileSync(
    new URL("../../../fixtures/trace/6.12-std/filter_functions.txt", import.meta.url),
  ).split("\n").map((l) => l.split(/\s/)[0]!).filter(Boolean),
);
const k612: ProbeKernel = { functions: FUNCS_612, argAccess: true, btfArgs: true, arch: "x86_64" };

Deno.test("dmabufProbeDefinitions() on 6.12 probes the inner functions once, with the BTF inode", () => {
  const defs = dmabufProbeDefinitions("axl_kp_1", k612);
  assert.ok(Array.isArray(defs));
  assert.deepEqual(defs.map((d) => [d.kind, d.function]), [
    ["attach", "dma_buf_dynamic_attach"],
    ["map", "dma_buf_map_attachment"],
    ["unmap", "dma_buf_unmap_attachment"],
    ["detach", "dma_buf_detach"],
  ]);
  assert.equal(
    defs[1]!.withInode,
    "p:axl_kp_1/axl_kp_map dma_buf_map_attachment att=$arg1:x64 buf=+0($arg1):x64 " +
      "dev=+0(+0(+8($arg1))):string dir=$arg2:s32 ino=attach->dmabuf->file->f_inode->i_ino",
  );
  assert.equal(
    defs[0]!.plain,
    "p:axl_kp_1/axl_kp_attach dma_buf_dynamic_attach buf=$arg1:x64 dev=+0(+0($arg2)):string",
  );
  assert.match(defs[2]!.plain, / dir=\$arg3:s32$/, "unmap's direction is its third argument");
  assert.match(defs[3]!.plain, /att=\$arg2:x64 dev=\+0\(\+0\(\+8\(\$arg2\)\)\):string$/);
});

Deno.test("dmabufProbeDefinitions() on a 5.15-like kernel: no BTF inode, dma_buf_attach when it is the only one", () => {
  const defs = dmabufProbeDefinitions("g", {
    functions: new Set([
      "dma_buf_attach",
      "dma_buf_detach",
      "dma_buf_map_attachment",
      "dma_buf_unmap_attachment",
    ]),
    argAccess: true,
    btfArgs: false,
    arch: "aarch64",
  });
  assert.ok(Array.isArray(defs));
  assert.equal(defs[0]!.function, "dma_buf_attach");
  assert.ok(defs.every((d) => d.withInode === undefined));
});

Deno.test("dmabufProbeDefinitions() falls back to argument registers, and says why it cannot", () => {
  const arm = dmabufProbeDefinitions("g", {
    ...k612,
    argAccess: false,
    btfArgs: false,
    arch: "aarch64",
  });
  assert.ok(Array.isArray(arm));
  assert.match(arm[1]!.plain, /att=%x0:x64 .* dir=%x1:s32$/);
  const x86 = dmabufProbeDefinitions("g", { ...k612, argAccess: false, arch: "x86_64" });
  assert.ok(Array.isArray(x86));
  assert.match(x86[2]!.plain, /dir=%dx:s32$/);
  assert.deepEqual(
    dmabufProbeDefinitions("g", { ...k612, argAccess: false, arch: "riscv64" }),
    { unavailable: "no $argN fetch-args and no register names known for riscv64" },
  );
  assert.deepEqual(
    dmabufProbeDefinitions("g", { ...k612, functions: new Set(["dma_buf_attach"]) }),
    {
      unavailable:
        "cannot probe dma_buf_map_attachment, dma_buf_unmap_attachment, dma_buf_detach " +
        "(not in the kernel's function list)",
    },
  );
});

Deno.test("installDmabufProbes() writes the BTF lines and removes the groups of dead runs", async () => {
  // A stand-in tracefs: kprobe_events is a plain file here, so writes append and never fail.
  const root = await Deno.makeTempDir();
  // The group is recorded in a state file before it is defined: keep it out of /run/axl.
  Deno.env.set("AXL_STATE_DIR", `${root}/state`);
  try {
    await Deno.writeTextFile(`${root}/kprobe_events`, "");
    await Deno.writeTextFile(`${root}/README`, "$arg<N>, <argname>[->field[->field|.field...]],\n");
    await Deno.writeTextFile(
      `${root}/available_filter_functions`,
      [...FUNCS_612].join("\n") + "\n",
    );
    const dead = new Deno.Command("true").spawn();
    await dead.status;
    await Deno.mkdir(`${root}/events/axl_kp_${dead.pid}/axl_kp_map`, { recursive: true });
    const p = installDmabufProbes(root, "axl_kp_test");
    assert.ok(!("unavailable" in p));
    assert.equal(p.inode, true);
    assert.deepEqual(p.events, [
      "axl_kp_test:axl_kp_attach",
      "axl_kp_test:axl_kp_map",
      "axl_kp_test:axl_kp_unmap",
      "axl_kp_test:axl_kp_detach",
    ]);
    const written = (await Deno.readTextFile(`${root}/kprobe_events`)).trim().split("\n");
    assert.equal(written[0], `-:axl_kp_${dead.pid}/axl_kp_map`, "the dead run's group goes first");
    assert.deepEqual(written.slice(1), p.definitions);
    assert.ok(written.slice(1).every((l) => / ino=/.test(l)));
    assert.equal(p.exporter, true);
    assert.match(written[1]!, / exp=\+0\(dmabuf->exp_name\):string$/, "attach names the exporter");
    const state = [...Deno.readDirSync(`${root}/state`)].map((e) => e.name);
    assert.equal(state.length, 1, "the group is in the state file while defined");
    assert.match(
      await Deno.readTextFile(`${root}/state/${state[0]}`),
      /"op": "kprobes",\s+"tracefs": "[^"]+",\s+"group": "axl_kp_test"/,
    );
    removeDmabufProbes(root, "axl_kp_test"); // no events/ dirs: nothing to remove, no error
    assert.deepEqual([...Deno.readDirSync(`${root}/state`)], [], "and gone once removed");
  } finally {
    Deno.env.delete("AXL_STATE_DIR");
    await Deno.remove(root, { recursive: true });
  }
});

/** scripts/kernel-offsets.sh's output for the arm64 5.15 kit kernel of the VM rig. */
const OFFSETS_515 =
  `# axl kernel offsets: measured by scripts/kernel-offsets.sh from the build tree of this release
release=5.15.215-axl-jetson-vm
dma_buf_attachment.dmabuf=0
dma_buf_attachment.dev=8
device.kobj.name=0
dma_buf.file=8
file.f_inode=32
inode.i_ino=56
`;

Deno.test("dmabufProbeDefinitions() without BTF follows the measured offsets to the inode", () => {
  const offsets = parseKernelOffsets(OFFSETS_515, "offsets.txt");
  assert.ok(!("unavailable" in offsets));
  const defs = dmabufProbeDefinitions("g", {
    functions: FUNCS_612,
    argAccess: true,
    btfArgs: false,
    arch: "aarch64",
    offsets,
  });
  assert.ok(Array.isArray(defs));
  assert.deepEqual(defs.map((d) => d.withInode), [
    "p:g/axl_kp_attach dma_buf_dynamic_attach buf=$arg1:x64 dev=+0(+0($arg2)):string " +
    "ino=+56(+32(+8($arg1))):u64",
    "p:g/axl_kp_map dma_buf_map_attachment att=$arg1:x64 buf=+0($arg1):x64 " +
    "dev=+0(+0(+8($arg1))):string dir=$arg2:s32 ino=+56(+32(+8(+0($arg1)))):u64",
    "p:g/axl_kp_unmap dma_buf_unmap_attachment att=$arg1:x64 buf=+0($arg1):x64 " +
    "dev=+0(+0(+8($arg1))):string dir=$arg3:s32 ino=+56(+32(+8(+0($arg1)))):u64",
    "p:g/axl_kp_detach dma_buf_detach buf=$arg1:x64 att=$arg2:x64 " +
    "dev=+0(+0(+8($arg2))):string ino=+56(+32(+8($arg1))):u64",
  ]);
  // With BTF names the kernel's own field names win, whatever was measured.
  const btf = dmabufProbeDefinitions("g", { ...k612, offsets });
  assert.ok(Array.isArray(btf));
  assert.match(btf[1]!.withInode!, / ino=attach->dmabuf->file->f_inode->i_ino$/);
});

Deno.test("dmabufProbeDefinitions() names the exporter in the attach event where the inode is reached", () => {
  const btf = dmabufProbeDefinitions("g", k612);
  assert.ok(Array.isArray(btf));
  assert.equal(
    btf[0]!.withExporter,
    "p:g/axl_kp_attach dma_buf_dynamic_attach buf=$arg1:x64 dev=+0(+0($arg2)):string " +
      "ino=dmabuf->file->f_inode->i_ino exp=+0(dmabuf->exp_name):string",
  );
  assert.ok(btf.slice(1).every((d) => d.withExporter === undefined), "attach only");
  const measured = parseKernelOffsets(OFFSETS_515 + "dma_buf.exp_name=96\n", "offsets.txt");
  assert.ok(!("unavailable" in measured));
  assert.equal(measured.dmabufExpName, 96);
  const offs = dmabufProbeDefinitions("g", { ...k612, btfArgs: false, offsets: measured });
  assert.ok(Array.isArray(offs));
  assert.equal(
    offs[0]!.withExporter,
    "p:g/axl_kp_attach dma_buf_dynamic_attach buf=$arg1:x64 dev=+0(+0($arg2)):string " +
      "ino=+56(+32(+8($arg1))):u64 exp=+0(+96($arg1)):string",
  );
  // A file measured before exp_name was: the inode, no exporter.
  const older = parseKernelOffsets(OFFSETS_515, "offsets.txt");
  assert.ok(!("unavailable" in older));
  assert.equal(older.dmabufExpName, undefined);
  const old = dmabufProbeDefinitions("g", { ...k612, btfArgs: false, offsets: older });
  assert.ok(Array.isArray(old));
  assert.ok(old.every((d) => d.withExporter === undefined && d.withInode !== undefined));
  // No inode, no exporter: without the inode the events cannot stand in for bufinfo.
  const none = dmabufProbeDefinitions("g", { ...k612, btfArgs: false });
  assert.ok(Array.isArray(none));
  assert.ok(none.every((d) => d.withExporter === undefined));
});

Deno.test("parseKernelOffsets() and loadKernelOffsets() refuse what does not fit the running kernel", async () => {
  assert.deepEqual(parseKernelOffsets("release=5.15\ndma_buf.file=8\n", "f"), {
    unavailable: "f has no offset dma_buf_attachment.dmabuf",
  });
  assert.deepEqual(parseKernelOffsets("dma_buf.file=8\n", "f"), {
    unavailable: "f names no kernel release",
  });
  const dir = await Deno.makeTempDir();
  try {
    const file = `${dir}/offsets`;
    await Deno.writeTextFile(file, OFFSETS_515);
    const ok = loadKernelOffsets("5.15.215-axl-jetson-vm", file);
    assert.ok(!("unavailable" in ok));
    assert.equal(ok.inodeIno, 56);
    assert.equal(ok.source, file);
    assert.deepEqual(loadKernelOffsets("5.15.148-tegra", file), {
      unavailable: `the struct offsets in ${file} were measured for 5.15.215-axl-jetson-vm, ` +
        "not the running 5.15.148-tegra: measure them again with scripts/kernel-offsets.sh",
    });
    const missing = loadKernelOffsets("5.15.148-tegra", `${dir}/none`);
    assert.ok("unavailable" in missing);
    assert.match(missing.unavailable, /^cannot read the struct offsets in .*\/none/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("installDmabufProbes() without BTF names takes the inode from the offsets, or says why not", async () => {
  const root = await Deno.makeTempDir();
  Deno.env.set("AXL_STATE_DIR", `${root}/state`);
  const offsetsFile = `${root}/offsets`;
  try {
    await Deno.writeTextFile(`${root}/kprobe_events`, "");
    await Deno.writeTextFile(`${root}/README`, "$arg<N>, <argname>\n");
    await Deno.writeTextFile(`${root}/available_filter_functions`, [...FUNCS_612].join("\n"));
    const release = Deno.osRelease();
    await Deno.writeTextFile(
      offsetsFile,
      OFFSETS_515.replace(/^release=.*$/m, `release=${release}`),
    );
    Deno.env.set("AXL_KERNEL_OFFSETS", offsetsFile);
    const p = installDmabufProbes(root, "axl_kp_offsets");
    assert.ok(!("unavailable" in p));
    assert.equal(p.inode, true);
    assert.equal(p.inodeFrom, "offsets");
    assert.equal(p.offsets, offsetsFile);
    assert.ok(
      p.definitions.every((l) => / ino=\+56\(\+32\(\+8\(/.test(l)),
      p.definitions.join("\n"),
    );
    removeDmabufProbes(root, "axl_kp_offsets");

    await Deno.writeTextFile(
      offsetsFile,
      OFFSETS_515.replace(/^release=.*$/m, "release=0.0-other"),
    );
    const q = installDmabufProbes(root, "axl_kp_stale");
    assert.ok(!("unavailable" in q));
    assert.equal(q.inode, false);
    assert.ok(q.definitions.every((l) => !/ ino=/.test(l)));
    assert.match(
      q.inodeUnavailable!,
      /BTF .* and the struct offsets in .* were measured for 0\.0-other/,
    );
    removeDmabufProbes(root, "axl_kp_stale");
  } finally {
    Deno.env.delete("AXL_STATE_DIR");
    Deno.env.delete("AXL_KERNEL_OFFSETS");
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("installDmabufProbes() whose every line the kernel refuses tries each fallback, then cleans up and says why", async () => {
  // kprobe_events a directory: every write fails, so the exporter's line, then the inode's, then
  // the plain one are refused in turn (each fallback starts over), and the last failure is the
  // answer. Nothing stays journaled for a later run to remove.
  const root = await Deno.makeTempDir();
  Deno.env.set("AXL_STATE_DIR", `${root}/state`);
  try {
    await Deno.mkdir(`${root}/kprobe_events`);
    await Deno.writeTextFile(`${root}/README`, "$arg<N>, <argname>[->field[->field|.field...]],\n");
    await Deno.writeTextFile(`${root}/available_filter_functions`, [...FUNCS_612].join("\n"));
    const p = installDmabufProbes(root, "axl_kp_refused");
    assert.ok("unavailable" in p, JSON.stringify(p));
    // the plain line was the last one tried: no inode, no exporter in it
    assert.match(
      p.unavailable,
      /^defining kprobe events failed: write 'p:axl_kp_refused\/axl_kp_attach [^']*' to /,
    );
    assert.doesNotMatch(p.unavailable, / ino=| exp=/);
    assert.deepEqual([...Deno.readDirSync(`${root}/state`)], [], "no group left journaled");
  } finally {
    Deno.env.delete("AXL_STATE_DIR");
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("parseKernelOffsets() refuses a damaged exporter offset, naming what the file held", () => {
  const with_ = (line: string) => parseKernelOffsets(OFFSETS_515 + line, "f");
  assert.deepEqual(with_("dma_buf.exp_name=x\n"), {
    unavailable: "f: dma_buf.exp_name is 'x', not an offset (a whole number from 0 to 65535)",
  });
  for (const v of ["", "-8", "0x60", "9.6", " 96", "99999999999999999999", "65536"]) {
    const o = with_(`dma_buf.exp_name=${v}\n`);
    assert.ok("unavailable" in o, `'${v}' taken as ${JSON.stringify(o)}`);
    assert.equal(
      o.unavailable,
      `f: dma_buf.exp_name is '${v}', not an offset (a whole number from 0 to 65535)`,
    );
  }
  // the same for the inode's keys: a value no struct has is damage, not an offset
  const huge = parseKernelOffsets(OFFSETS_515.replace("inode.i_ino=56", "inode.i_ino=1e9"), "f");
  assert.deepEqual(huge, {
    unavailable: "f: inode.i_ino is '1e9', not an offset (a whole number from 0 to 65535)",
  });
});

Deno.test("parseKernelOffsets() refuses a file that gives one key twice with different values", () => {
  // e.g. the debug build's measurement appended to the normal one's (exp_name 208 against 96)
  assert.deepEqual(
    parseKernelOffsets(OFFSETS_515 + "dma_buf.exp_name=96\ndma_buf.exp_name=208\n", "f"),
    { unavailable: "f gives dma_buf.exp_name twice: 96, then 208" },
  );
  assert.deepEqual(
    parseKernelOffsets(OFFSETS_515 + "release=5.15.215-axl-jetson-vm-debug\n", "f"),
    {
      unavailable:
        "f gives release twice: 5.15.215-axl-jetson-vm, then 5.15.215-axl-jetson-vm-debug",
    },
  );
  // the same value twice says the same thing
  const same = parseKernelOffsets(OFFSETS_515 + "dma_buf.exp_name=96\ndma_buf.exp_name=96\n", "f");
  assert.ok(!("unavailable" in same) && same.dmabufExpName === 96);
});

Deno.test("loadKernelOffsets() refuses another release's exporter offset with the rest of its file", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(`${dir}/offsets`, OFFSETS_515 + "dma_buf.exp_name=96\n");
    const o = loadKernelOffsets("5.15.148-tegra", `${dir}/offsets`);
    assert.ok("unavailable" in o);
    assert.match(
      o.unavailable,
      /measured for 5\.15\.215-axl-jetson-vm, not the running 5\.15\.148-tegra/,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("installDmabufProbes() with offsets measured before the exporter's says why its events name none", async () => {
  const root = await Deno.makeTempDir();
  Deno.env.set("AXL_STATE_DIR", `${root}/state`);
  try {
    await Deno.writeTextFile(`${root}/kprobe_events`, "");
    await Deno.writeTextFile(`${root}/README`, "$arg<N>, <argname>\n");
    await Deno.writeTextFile(`${root}/available_filter_functions`, [...FUNCS_612].join("\n"));
    await Deno.writeTextFile(
      `${root}/offsets`,
      OFFSETS_515.replace(/^release=.*$/m, `release=${Deno.osRelease()}`),
    );
    Deno.env.set("AXL_KERNEL_OFFSETS", `${root}/offsets`);
    const p = installDmabufProbes(root, "axl_kp_noexp");
    assert.ok(!("unavailable" in p));
    assert.equal(p.inodeFrom, "offsets");
    assert.equal(p.exporter, undefined);
    assert.equal(
      p.exporterUnavailable,
      `${root}/offsets has no offset dma_buf.exp_name (measured before verify named the ` +
        "exporter): measure it again with scripts/kernel-offsets.sh",
    );
    removeDmabufProbes(root, "axl_kp_noexp");
  } finally {
    Deno.env.delete("AXL_STATE_DIR");
    Deno.env.delete("AXL_KERNEL_OFFSETS");
    await Deno.remove(root, { recursive: true });
  }
});
