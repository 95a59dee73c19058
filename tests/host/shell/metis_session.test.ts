// A Metis shell session without a device: which driver a --device word selects, what the
// session refuses before opening anything, and the card ledger that checks bytes read back.
import assert from "node:assert/strict";
import { driverFor, Session } from "../../../lib/shell/session.ts";
import { CardLedger, compareBytes } from "../../../lib/shell/metis_objects.ts";
import { AxlError } from "../../../lib/core/errors.ts";

Deno.test("driverFor() picks Metis for 'metis' and metis-* / axl-metis-* nodes only", () => {
  for (
    const d of ["metis", "/dev/metis-0-1-0", "/dev/axl-metis-0-0-3", "/dev/axl-metis-platform"]
  ) {
    assert.equal(driverFor(d), "metis", d);
  }
  for (const d of [undefined, "/dev/axl", "/dev/metis", "/dev/axl-metis-x", "metis-0-1-0x"]) {
    assert.equal(driverFor(d), "axl", String(d));
  }
});

Deno.test("a Metis session refuses axl.ko's device and an axl.ko session refuses Metis, saying why", () => {
  const metis = new Session({ device: "/dev/axl-metis-0-0-3" });
  assert.equal(metis.driver, "metis");
  assert.throws(() => metis.device("submit"), (err: unknown) => {
    assert.ok(err instanceof AxlError);
    assert.match(err.message, /^submit \(\/dev\/axl-metis-0-0-3\).*no jobs, fences/s);
    assert.match(err.message, /'attach', 'transfer' and 'wait'/);
    return true;
  });
  const axl = new Session({ device: "/dev/axl" });
  assert.throws(() => axl.metis("transfer"), /transfer \(\/dev\/axl\).*--device metis/s);
  assert.equal(axl.deviceOpen, false);
});

Deno.test("CardLedger answers reads inside what was written and forgets overwritten areas", () => {
  const card = new CardLedger();
  card.wrote(0x1000n, new Uint8Array([1, 2, 3, 4]));
  assert.deepEqual([...card.read(0x1001n, 2)!], [2, 3]);
  assert.equal(card.read(0x1002n, 4), undefined, "past the end of what was written");
  assert.equal(card.read(0x0n, 1), undefined, "never written");
  card.wrote(0x1003n, new Uint8Array([9]));
  assert.equal(card.read(0x1000n, 1), undefined, "an overlapping write invalidates the record");
  assert.deepEqual([...card.read(0x1003n, 1)!], [9]);
});

Deno.test("compareBytes() names the first differing byte, and a short read as a difference", () => {
  assert.deepEqual(compareBytes(new Uint8Array(8), new Uint8Array(8)), {
    bytes: 8,
    firstMismatch: -1,
  });
  assert.deepEqual(compareBytes(new Uint8Array([0, 0, 7]), new Uint8Array(3)).firstMismatch, 2);
  assert.deepEqual(compareBytes(new Uint8Array(2), new Uint8Array(3)).firstMismatch, 2);
});
