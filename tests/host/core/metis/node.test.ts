// Metis node names and PCI addresses, as metis.ko and axl.ko's node print them.
import assert from "node:assert/strict";
import {
  metisNodes,
  nodePathsForPci,
  parseNodeName,
  parsePciAddress,
  sameDevice,
} from "../../../../lib/core/metis/node.ts";

Deno.test("parseNodeName() reads both drivers' names in hex, and the platform node", () => {
  assert.deepEqual(parseNodeName("/dev/metis-0-1a-0"), {
    path: "/dev/metis-0-1a-0",
    driver: "metis",
    pci: { domain: 0, bus: 0x1a, slot: 0 },
  });
  assert.deepEqual(parseNodeName("/dev/axl-metis-platform"), {
    path: "/dev/axl-metis-platform",
    driver: "axl-metis",
  });
  for (const bad of ["/dev/axl", "/dev/metis", "/dev/metis-0-1", "/dev/metis-0-1-0-2"]) {
    assert.equal(parseNodeName(bad), undefined, bad);
  }
});

Deno.test("parsePciAddress() takes lspci's forms and rejects the rest with a TypeError", () => {
  assert.deepEqual(parsePciAddress("0001:0a:1f.3"), { domain: 1, bus: 10, slot: 31, fn: 3 });
  assert.deepEqual(parsePciAddress("01:00.0"), { domain: 0, bus: 1, slot: 0, fn: 0 });
  assert.throws(() => parsePciAddress("1:0:0"), TypeError);
  assert.throws(() => parsePciAddress("0000:01:00.8"), /lspci -D/);
});

Deno.test("nodePathsForPci() gives metis.ko's node first, then axl.ko's", () => {
  assert.deepEqual(nodePathsForPci("0000:1a:00.0", "/d"), [
    "/d/metis-0-1a-0",
    "/d/axl-metis-0-1a-0",
  ]);
});

Deno.test("sameDevice() matches domain, bus and slot, and platform names to the platform node", () => {
  const pci = parseNodeName("/dev/axl-metis-0-0-2")!;
  assert.equal(sameDevice(pci, "0000:00:02.0"), true);
  assert.equal(sameDevice(pci, "0000:00:03.0"), false);
  assert.equal(sameDevice(pci, "metis-sim"), false);
  const plat = parseNodeName("/dev/axl-metis-platform")!;
  assert.equal(sameDevice(plat, "metis-sim"), true);
  assert.equal(sameDevice(plat, "0000:00:02.0"), false);
});

Deno.test("metisNodes() lists metis.ko's nodes before axl.ko's and ignores other files", () => {
  const dir = Deno.makeTempDirSync();
  try {
    for (const n of ["axl-metis-0-0-2", "metis-0-1-0", "axl", "null", "metis-x"]) {
      Deno.writeTextFileSync(`${dir}/${n}`, "");
    }
    assert.deepEqual(metisNodes(dir), [`${dir}/metis-0-1-0`, `${dir}/axl-metis-0-0-2`]);
    assert.deepEqual(metisNodes(`${dir}/absent`), []);
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});
