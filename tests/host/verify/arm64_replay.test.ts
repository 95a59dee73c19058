// verify's runs captured in the arm64 5.15 guest (tests/fixtures/trace/5.15-arm64/): frames
// from the linux,cma heap imported through the SMMUv3, perf on the ARMv8 PMU's cycles, and
// the copy control caught in glibc's aarch64 copy routine. Judging the artifacts again on
// the host must give back the result.json the guest wrote, and these facts must be in it.
import assert from "node:assert/strict";
import { judgeArtifacts } from "../../../lib/verify/replay.ts";
import { asSavedBeforeChain } from "./_runs.ts";
import { parseBufinfo } from "../../../lib/trace/parse/bufinfo.ts";

const dir = (name: string) =>
  new URL(`../../fixtures/trace/5.15-arm64/${name}`, import.meta.url).pathname;

for (const name of ["zero-copy", "copy"]) {
  Deno.test(`judgeArtifacts() gives back the result.json the arm64 ${name} run wrote live`, async () => {
    const saved = JSON.parse(await Deno.readTextFile(`${dir(name)}/result.json`));
    assert.deepEqual(asSavedBeforeChain(await judgeArtifacts(dir(name))), saved);
  });
}

Deno.test("arm64 zero-copy: PASS on linux,cma frames that vivid and metis-sim attach, cycles sampled", async () => {
  const r = await judgeArtifacts(dir("zero-copy"));
  assert.equal(r.axl.status, "PASS");
  assert.equal(r.axl.perf.event, "cycles");
  assert.match(r.axl.invariants.I2.summary, /exporter linux,cma is accepted/);
  assert.match(r.axl.invariants.I1.summary, /shared by two devices .*0000:00:01\.0, vivid\.0/);
});

Deno.test("arm64 zero-copy: the import tracepoint shows SMMU IOVAs for the linux,cma frames", async () => {
  const trace = await Deno.readTextFile(`${dir("zero-copy")}/trace.txt`);
  const imports = [...trace.matchAll(/axl_dmabuf_import: .* exporter=(\S+) iova=(0x[0-9a-f]+)/g)];
  assert.equal(imports.length, 60);
  for (const [, exporter, iova] of imports) {
    assert.equal(exporter, "linux,cma");
    // The SMMU's DMA domain hands out IOVAs from the top of the 32-bit space down.
    assert.ok(BigInt(iova!) >= 0xf0000000n && BigInt(iova!) < 0x100000000n, iova);
  }
});

Deno.test("arm64 copy control: I4 FAILs naming glibc's aarch64 __memcpy_generic", async () => {
  const r = await judgeArtifacts(dir("copy"));
  assert.equal(r.axl.status, "FAIL");
  assert.equal(r.axl.invariants.I4.status, "FAIL");
  assert.deepEqual(r.detail.memcpy_hot, ["__memcpy_generic"]);
  const top = r.axl.perf.top.find((t) => t.symbol === "__memcpy_generic")!;
  assert.equal(top.copy_routine, "glibc-aarch64");
  assert.equal(top.top_caller, "axl_shim_memcpy");
});

Deno.test("parseBufinfo() reads 5.15's rows, whose header has no name column, with their names", async () => {
  const text = await Deno.readTextFile(`${dir("zero-copy")}/bufinfo_samples.txt`);
  const first = text.split(/^### sample \d+ \d+\n/m).find((s) => s.includes("Dma-buf Objects"))!;
  assert.doesNotMatch(first, /\tname\n/);
  const snap = parseBufinfo(first);
  assert.ok(snap.buffers.length > 0);
  for (const b of snap.buffers) {
    assert.match(b.name, /^axl-v4l2-\d+$/);
    assert.equal(b.exporter, "linux,cma");
  }
});
