// The ABI layout check on both architectures, and that it catches drift.
import assert from "node:assert/strict";
import { checkAbi, TABLE_PATH } from "../../../ffi/abi/check.ts";
import { EXPECTED_ABI_VERSION, SHIM_API_VERSION } from "../../../ffi/loader.ts";

const table = Deno.readTextFileSync(TABLE_PATH);

Deno.test("checkAbi() finds the committed table matching x86_64 and aarch64", async () => {
  const report = await checkAbi(table);
  assert.deepEqual(report.diffs, []);
  assert.equal(report.ok, true);
  assert.deepEqual([...report.layouts.keys()], ["x86_64", "aarch64"]);
  assert.equal(report.layouts.get("aarch64")?.get("sizeof axl_import_fd"), 80n);
});

// metis.ko's numbers, worked out from its header's declarations (_IOWR('U', 7,
// struct dmabuf_xfer *) encodes a pointer's size) rather than read from ours.
function ioc(dir: number, nr: number, size: number): bigint {
  return BigInt(((dir << 30) | (size << 16) | (0x55 << 8) | nr) >>> 0);
}
const READ = 2, READ_WRITE = 3;

Deno.test("checkAbi() pins metis.ko's 64-bit struct layouts and ioctl numbers", async () => {
  const report = await checkAbi(table);
  for (const arch of ["x86_64", "aarch64"]) {
    const got = report.layouts.get(arch)!;
    // __u64 phy; size_t size; __u32 offset; int handle, flags, channel
    assert.deepEqual(
      ["sizeof", "phy", "size", "offset", "handle", "flags", "channel"].map((f) =>
        got.get(f === "sizeof" ? "sizeof axl_metis_xfer" : `offsetof axl_metis_xfer.${f}`)
      ),
      [32n, 0n, 8n, 16n, 20n, 24n, 28n],
      arch,
    );
    assert.equal(got.get("sizeof axl_metis_channel_stats"), 64n, arch);
    assert.equal(got.get("sizeof axl_metis_dma_stats"), 512n, arch);
    assert.equal(got.get("ioctl AXL_METIS_IOCTL_DMA_ATTACH"), ioc(READ_WRITE, 5, 4), arch);
    assert.equal(got.get("ioctl AXL_METIS_IOCTL_DMA_DETACH"), ioc(READ_WRITE, 6, 4), arch);
    assert.equal(got.get("ioctl AXL_METIS_IOCTL_DMA_XFER"), ioc(READ_WRITE, 7, 8), arch);
    assert.equal(
      got.get("ioctl AXL_METIS_IOCTL_DMA_GET_XFER_ASYNC_STATUS"),
      ioc(READ_WRITE, 8, 8),
      arch,
    );
    assert.equal(got.get("ioctl AXL_METIS_IOCTL_GET_DEV_PROPERTY"), ioc(READ_WRITE, 3, 8), arch);
    assert.equal(got.get("ioctl AXL_METIS_IOCTL_GET_DMA_STATS"), ioc(READ, 32, 512), arch);
  }
});

Deno.test("checkAbi() reports a mutated offset on every architecture", async () => {
  const mutated = table.replace(
    /^offsetof axl_submit\.seqno (\d+)$/m,
    (_, n) => `offsetof axl_submit.seqno ${Number(n) + 4}`,
  );
  assert.notEqual(mutated, table);
  const report = await checkAbi(mutated);
  assert.equal(report.ok, false);
  assert.deepEqual(report.diffs, [
    "x86_64: offsetof axl_submit.seqno: table 28, compiled 24",
    "aarch64: offsetof axl_submit.seqno: table 28, compiled 24",
  ]);
});

Deno.test("checkAbi() reports a changed ioctl number and a key missing from the table", async () => {
  const mutated = table
    .replace(/^ioctl AXL_IOCTL_SUBMIT 0x[0-9a-f]+$/m, "ioctl AXL_IOCTL_SUBMIT 0xc038d109")
    .replace(/^sizeof axl_release \d+\n/m, "");
  const report = await checkAbi(mutated);
  assert.equal(report.ok, false);
  assert.deepEqual(report.diffs, [
    "x86_64: ioctl AXL_IOCTL_SUBMIT: table 0xc038d109, compiled 0xc038d102",
    "x86_64: sizeof axl_release: compiled, missing from the table",
    "aarch64: ioctl AXL_IOCTL_SUBMIT: table 0xc038d109, compiled 0xc038d102",
    "aarch64: sizeof axl_release: compiled, missing from the table",
  ]);
});

Deno.test("the loader expects the ABI version linux/axl.h defines", () => {
  const header = Deno.readTextFileSync(
    new URL("../../../kernel/include/uapi/linux/axl.h", import.meta.url),
  );
  const m = /#define AXL_ABI_VERSION (\d+)/.exec(header);
  assert.equal(Number(m?.[1]), EXPECTED_ABI_VERSION);
});

Deno.test("the loader expects the shim API version ffi/src/axl_shim.h defines", () => {
  const header = Deno.readTextFileSync(new URL("../../../ffi/src/axl_shim.h", import.meta.url));
  const m = /#define AXL_SHIM_API_VERSION (\d+)/.exec(header);
  assert.equal(Number(m?.[1]), SHIM_API_VERSION);
});
