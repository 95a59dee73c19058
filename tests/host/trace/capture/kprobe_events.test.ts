// The kprobe definitions verify writes to kprobe_events, for the kernels it meets: 6.12 with
// BTF probe arguments (the VM rig, where every line below was accepted), 5.15 without them,
// and kernels without $argN where the argument registers stand in.
import assert from "node:assert/strict";
import {
  dmabufProbeDefinitions,
  installDmabufProbes,
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
