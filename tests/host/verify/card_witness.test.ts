// judgeCardWitness(): the card's own dma-trace against the frames and the dma-buf events, on
// artifacts of real verify runs in the VM rig (tests/fixtures/verify/metis-witness/: 12 heap
// frames on metis-sim presenting 1.6.2, and the same on 1.4.4, which keeps no dma-trace), and
// on the same artifacts changed the way a broken path would change them.
import assert from "node:assert/strict";
import { type CardWitnessRecord, judgeCardWitness } from "../../../lib/verify/card_witness.ts";
import { parseDmaTrace } from "../../../lib/core/metis/dma_trace.ts";

const DIR = new URL("../../fixtures/verify/metis-witness/", import.meta.url).pathname;
const rec = (gen: string): CardWitnessRecord =>
  JSON.parse(Deno.readTextFileSync(`${DIR}${gen}/card_witness.json`));
const trace = Deno.readTextFileSync(`${DIR}1.6.2/dma-trace.txt`);
const inodes = (r: CardWitnessRecord) => new Set(r.frames.map((f) => f.inode!));

Deno.test("judgeCardWitness() agrees on a rig run: one transfer of the frame's bytes inside each frame", () => {
  const r = rec("1.6.2");
  const s = judgeCardWitness(r, trace, inodes(r));
  assert.equal(s.verdict, "agree", s.disagreements.join("; "));
  assert.deepEqual([s.frames, s.matched, s.to_card, s.attach_checked], [12, 12, 12, true]);
  assert.equal(s.card_bytes, s.frame_bytes);
  assert.match(
    s.summary,
    /^the card's dma-trace agrees: 12 of 12 frames each moved to the card once/,
  );
  for (const f of s.per_frame!) assert.ok(f.request_us! >= 0 && f.dma_us! >= 0);
});

Deno.test("judgeCardWitness() finds a transfer of a buffer the importer never mapped", () => {
  const r = rec("1.6.2");
  const maps = inodes(r);
  // the workload cycles a few buffers: every frame of that buffer loses its map
  const gone = r.frames[0]!.inode!;
  maps.delete(gone);
  const hit = r.frames.filter((f) => f.inode === gone).map((f) =>
    `frame ${f.index} (inode ${gone})`
  );
  const s = judgeCardWitness(r, trace, maps);
  assert.equal(s.verdict, "disagree");
  assert.ok(hit.length > 0);
  assert.match(
    s.disagreements.join("\n"),
    new RegExp(
      `the card transferred ${hit.length} frame\\(s\\) whose buffer the dma-buf events show no map ` +
        `of by the importer: ${
          hit.slice(0, 5).join(", ").replaceAll("(", "\\(").replaceAll(")", "\\)")
        }`,
    ),
  );
});

Deno.test("judgeCardWitness() finds transfers the workload did not make, and frames the card did not move", () => {
  const r = rec("1.6.2");
  // the card moved one more buffer than the workload handed it
  const fewer = { ...r, frames: r.frames.slice(0, -1) };
  const extra = judgeCardWitness(fewer, trace, inodes(r));
  assert.equal(extra.verdict, "disagree");
  assert.match(
    extra.disagreements[0]!,
    /1 transfer\(s\) to the card outside every frame's transfer/,
  );
  // a frame whose transfer is missing from the trace
  const lines = trace.trimEnd().split("\n");
  const missing = judgeCardWitness(r, lines.slice(0, -1).join("\n") + "\n", inodes(r));
  assert.equal(missing.verdict, "disagree");
  assert.match(
    missing.disagreements[0]!,
    /1 frame\(s\) with no transfer in the card's trace \(frames 11\)/,
  );
  // a transfer of another size
  const entry = parseDmaTrace(trace).entries[0]!;
  const resized = trace.replace(`, ${entry.bytes}\n`, `, ${entry.bytes - 4096}\n`);
  const short = judgeCardWitness(r, resized, inodes(r));
  assert.match(short.disagreements.join("\n"), /transfers of other sizes than the frame: frame 0/);
});

Deno.test("judgeCardWitness() says the witness is not available on 1.4.4", () => {
  const s = judgeCardWitness(rec("1.4.4"), undefined);
  assert.deepEqual([s.available, s.verdict], [false, "unavailable"]);
  assert.match(
    s.summary,
    /^the card's own witness is not available: .*metis\.ko 1\.4\.4.*keeps no dma-trace/,
  );
});
