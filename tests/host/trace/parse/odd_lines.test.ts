// Lines a real trace can hold that are not events: trace_marker comments without a `name:`
// inside function_graph output, and two lines run together because a newline was lost.
import assert from "node:assert/strict";
import { parseFtraceLine } from "../../../../lib/trace/parse/ftrace.ts";
import { readTraceFacts } from "../../../../lib/verify/trace_facts.ts";

const MARKER = "   41.700000 |   0)   deno-186    |               |  /* frame 7 queued */";
const IMPORT =
  "            deno-226     [000] .....    41.000000: axl_dmabuf_import: handle=1 inode=9 exporter=system iova=0x0 size=4";
const RELEASE =
  "            deno-226     [001] .....    41.000001: axl_dmabuf_release: handle=1 inode=9";

Deno.test("a function_graph comment without 'name:' is a comment, not an error or an event", async () => {
  const r = parseFtraceLine(MARKER, 1, { strict: true });
  assert.deepEqual(r, { kind: "header", line: 1, text: "/* frame 7 queued */" });
  const facts = await readTraceFacts([`${MARKER}\n`]);
  assert.equal(facts.unparsed, 0);
  assert.deepEqual(facts.eventCounts, {});
});

Deno.test("a line whose newline was lost is counted as not understood, not folded", async () => {
  const merged = `${IMPORT}${RELEASE}`;
  assert.throws(() => parseFtraceLine(merged, 4, { strict: true }), /a newline was lost/);
  const r = parseFtraceLine(merged, 4, { strict: false });
  assert.equal(r?.kind, "unparsed");
  const facts = await readTraceFacts([`${IMPORT}\n`, `${merged}\n`, `${RELEASE}\n`]);
  assert.equal(facts.unparsed, 1);
  assert.match(facts.firstUnparsed[0]!, /^line 2: two trace lines on one line/);
  assert.equal(facts.join?.imports, 1, "only the intact import counts");
  assert.equal(facts.join?.releases, 1);
});

Deno.test("a [ddd] inside a quoted value or a short [n] is not taken for a lost newline", async () => {
  const quoted =
    '            deno-226     [000] .....    41.000000: axl_kp_map: (dma_buf_map_attachment+0x4/0xe0) att=0x1 buf=0x2 dev="x [000] y" dir=1';
  const facts = await readTraceFacts([
    `${quoted}\n`,
    `${IMPORT.replace("size=4", "size=4 [1]")}\n`,
  ]);
  assert.equal(facts.unparsed, 0);
  assert.equal(facts.dmabuf?.devices.get("x [000] y")?.maps, 1);
  assert.equal(facts.join?.imports, 1);
});
