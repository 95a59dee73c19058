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
