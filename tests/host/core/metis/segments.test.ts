// checkSegments(): how the Metis backend decides a buffer is one DMA segment before
// DMA_ATTACH, with the probe replaced (the device tests run the real one).
import assert from "node:assert/strict";
import { checkSegments } from "../../../../lib/core/metis/segments.ts";
import { parseNodeName } from "../../../../lib/core/metis/node.ts";
import type { DmaBuf } from "../../../../lib/core/dmabuf.ts";

const node = parseNodeName("/dev/axl-metis-0-0-2")!;
// checkSegments reads only these three facts of a buffer
function buffer(size: number, exporter: string, inode = 7): DmaBuf {
  return { size, exporter, inode } as DmaBuf;
}

Deno.test("checkSegments() passes one page and contiguous heaps without probing", () => {
  const probe = () => {
    throw new Error("must not probe");
  };
  assert.equal(checkSegments(buffer(4096, "system"), node, { probe }).source, "single-page");
  for (const heap of ["linux,cma", "reserved"]) {
    const c = checkSegments(buffer(8 << 20, heap), node, { probe });
    assert.deepEqual([c.ok, c.source, c.segments], [true, "contiguous-heap", 1]);
  }
});

Deno.test("checkSegments() refuses what the probe maps as several segments, whatever the caller says", () => {
  const c = checkSegments(buffer(3 << 20, "system", 41), node, {
    probe: () => 3,
    assumeContiguous: true,
  });
  assert.equal(c.ok, false);
  assert.equal(c.segments, 3);
  assert.match(c.detail, /inode 41, exporter system, 3145728 bytes\) maps as 3 DMA segments/);
  assert.match(c.detail, /\/dev\/axl-metis-0-0-2/);
});

Deno.test("checkSegments() passes a probed single segment and asks once per buffer and node", () => {
  let calls = 0;
  const buf = buffer(1 << 20, "system");
  const probe = () => (calls++, 1);
  assert.equal(checkSegments(buf, node, { probe }).ok, true);
  assert.equal(checkSegments(buf, node, { probe }).source, "axl-probe");
  assert.equal(calls, 1);
  checkSegments(buf, parseNodeName("/dev/metis-0-1-0")!, { probe });
  assert.equal(calls, 2);
});

Deno.test("checkSegments() refuses an unknown layout unless the caller vouches for it", () => {
  const nvmm = buffer(3 << 20, "nvmap_dmabuf");
  const unknown = checkSegments(nvmm, node, { probe: () => undefined });
  assert.deepEqual([unknown.ok, unknown.source], [false, "unknown"]);
  assert.match(unknown.detail, /cannot tell .* axl\.ko is not bound to that device/);
  const assumed = checkSegments(buffer(3 << 20, "nvmap_dmabuf", 8), node, {
    probe: () => undefined,
    assumeContiguous: true,
  });
  assert.deepEqual([assumed.ok, assumed.source], [true, "assumed"]);
});
