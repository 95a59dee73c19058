// scripts/kernel-offsets.sh: its refusals, on trees that are none or do not compile, and, where
// the VM rig has unpacked the arm64 5.15 kit's build tree (scripts/vm/lib.sh vm_kit_tree), its
// measurement of that tree, which must give back the offsets the arm64 fixtures' runs used.
import assert from "node:assert/strict";

const root = decodeURIComponent(new URL("../..", import.meta.url).pathname).replace(/\/$/, "");
const script = `${root}/scripts/kernel-offsets.sh`;
const FIXTURE = `${root}/tests/fixtures/trace/5.15-arm64-generic/held/kernel-offsets`;
const FIXTURE_REFS =
  `${root}/tests/fixtures/trace/5.15-arm64-refs-events/metis-user-held/kernel-offsets`;

async function run(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const out = await new Deno.Command("bash", {
    args: [script, ...args],
    stdout: "piped",
    stderr: "piped",
  })
    .output();
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}

function exists(path: string): boolean {
  try {
    Deno.statSync(path);
    return true;
  } catch {
    return false;
  }
}

/** The kit's tree as the rig unpacks it, when it has. */
const kitCache = `${
  Deno.env.get("XDG_CACHE_HOME") ?? `${Deno.env.get("HOME")}/.cache`
}/axl/kernels/linux-5.15-arm64`;
const kitTree = (() => {
  try {
    const d = [...Deno.readDirSync(kitCache)].find((e) => e.name.startsWith("linux-headers-"));
    return d ? `${kitCache}/${d.name}` : undefined;
  } catch {
    return undefined;
  }
})();
const cross = new Deno.Command("sh", { args: ["-c", "command -v aarch64-linux-gnu-gcc"] })
  .outputSync().success;
const haveKit = kitTree !== undefined && exists(`${kitTree}/Makefile`) && cross;
if (!haveKit) {
  console.log(
    `kernel_offsets.test.ts: no unpacked arm64 kit tree under ${kitCache} (or no ` +
      "aarch64-linux-gnu-gcc): the measurement of it is ignored",
  );
}

Deno.test("kernel-offsets.sh refuses a directory that is no kernel build tree", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const r = await run(dir);
    assert.equal(r.code, 1);
    assert.equal(r.stdout, "");
    assert.match(r.stderr, /is no kernel build tree \(no Makefile\): install the kernel headers/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("kernel-offsets.sh fails, with the compiler's output, on a tree it cannot compile against", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.mkdir(`${dir}/include/config`, { recursive: true });
    await Deno.writeTextFile(`${dir}/include/config/kernel.release`, "5.15.0-fake\n");
    await Deno.writeTextFile(
      `${dir}/Makefile`,
      "dmabuf_offsets.s:\n\t@echo 'fake tree: no kbuild here' >&2; false\n",
    );
    const r = await run(dir);
    assert.equal(r.code, 1);
    assert.equal(r.stdout, "", "nothing half-measured on stdout");
    assert.match(r.stderr, /fake tree: no kbuild here/);
    assert.match(r.stderr, /the offsets cannot be known from this tree/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test({
  name: "kernel-offsets.sh measures the arm64 5.15 kit's tree as the fixtures' runs used it",
  ignore: !haveKit,
}, async () => {
  const r = await run(kitTree!, "ARCH=arm64", "CROSS_COMPILE=aarch64-linux-gnu-");
  assert.equal(r.code, 0, r.stderr);
  // The process probes' run (5.15-arm64-refs-events) used every line.
  assert.equal(r.stdout, await Deno.readTextFile(FIXTURE_REFS));
  // The generic held run predates dma_buf.exp_name and the process probes' keys: every other
  // line as it used them.
  const later = /^(dma_buf\.exp_name|inode\.i_sb|super_block\.s_magic|vm_area_struct\.\w+)=/;
  const lines = r.stdout.split("\n");
  assert.deepEqual(lines.filter((l) => later.test(l)), [
    "dma_buf.exp_name=96",
    "inode.i_sb=40",
    "super_block.s_magic=96",
    "vm_area_struct.vm_start=0",
    "vm_area_struct.vm_end=8",
    "vm_area_struct.vm_flags=80",
  ]);
  assert.equal(
    lines.filter((l) => !later.test(l)).join("\n"),
    await Deno.readTextFile(FIXTURE),
  );
});
