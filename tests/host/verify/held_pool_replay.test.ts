// I3's held shape on a capture with a bystander (fixture
// tests/fixtures/trace/5.15-arm64-nvmap/held-bystander/): the held case of
// tests/device/verify_metis_user.test.ts in the arm64 5.15 guest, vivid capturing 40 frames into
// four nvmap-sim buffers the client attaches once each, while the test process (neither the
// workload nor its descendant) held three more nvmap-sim buffers for the whole run, as a Jetson's
// display and other apps hold nvmap buffers. The capture was judged live by the code before the
// pool was narrowed to the workload's buffers: I3 FAIL, a false verdict.
import assert from "node:assert/strict";
import { judgeArtifacts } from "../../../lib/verify/replay.ts";
import { judgeEditedCopy } from "./_edited_copy.ts";
import type { VerifyResult } from "../../../lib/verify/schema.ts";

const dir = new URL("../../fixtures/trace/5.15-arm64-nvmap/held-bystander", import.meta.url)
  .pathname;
/** As the live run judged it: `--threshold 2`, the CLI's sample floor for its frames. */
const options = { evidence: "generic" as const, copyThresholdPercent: 2, minPerfSamples: 500 };
const CARD = "0000:00:01.0";

/**
 * The fixture with `edit` applied to its trace.txt and `record` to its capture.json, judged; the
 * copy removed after. An edited copy is no longer what the capture wrote: it has no integrity
 * record.
 */
async function judgeEdited(
  record: (r: Record<string, unknown>) => void,
  edit: (trace: string) => string = (t) => t,
): Promise<VerifyResult> {
  return await judgeEditedCopy(dir, options, record, edit);
}

/** The capture's record of the workload's dma-buf fds. */
type FdRef = { pid: number; fd: number; inode: number; exporter: string };
const fdRefs = (r: Record<string, unknown>) => (r.workload as { fdRefs?: FdRef[] }).fdRefs;

Deno.test("judgeArtifacts() on a held run beside a bystander's nvmap buffers: I3 PASS held, the bystander's 3 ignored", async () => {
  const live = JSON.parse(await Deno.readTextFile(`${dir}/result.json`)) as VerifyResult;
  // What the code before the fix said of it, live: the bystander's buffers counted as the pool.
  assert.equal(live.axl.invariants.I3.status, "FAIL");
  assert.equal(
    live.axl.invariants.I3.summary,
    `${CARD} mapped frame buffers 4 times for 40 frames submitted`,
  );
  const a = (await judgeArtifacts(dir, options)).axl;
  const i3 = a.invariants.I3;
  assert.equal(i3.status, "PASS", i3.summary);
  assert.equal(
    i3.summary,
    `${CARD} held a mapping of each of the 4 buffers of nvmap_dmabuf the workload held, for 40 ` +
      "frames (3 other buffers of nvmap_dmabuf, held by no process of the workload, ignored); " +
      "4 unmaps (kprobes)",
  );
  assert.equal(i3.evidence.shape, "held");
  assert.deepEqual(i3.evidence.held_buffers, [4, 5, 6, 7]);
  assert.deepEqual(i3.evidence.held_pool, { from: "workload", ignored: 3 });
  assert.equal(a.status, "PASS", JSON.stringify(a.invariants));
});

Deno.test("judgeArtifacts() on the bystander run without the workload's fds judges the whole exporter, as before", async () => {
  const a = (await judgeEdited((r) => delete (r.workload as Record<string, unknown>).fdRefs)).axl;
  assert.equal(a.invariants.I3.status, "FAIL");
  assert.equal(
    a.invariants.I3.summary,
    `${CARD} mapped frame buffers 4 times for 40 frames submitted`,
  );
  assert.equal(a.invariants.I3.evidence.held_pool, undefined);
});

Deno.test("judgeArtifacts() on the bystander run still refuses the held shape for a buffer the workload held and the card never mapped", async () => {
  // As if the client had held bystander-0 (inode 1) too: a camera buffer the card never mapped.
  const a = (await judgeEdited((r) => {
    fdRefs(r)!.push({ pid: fdRefs(r)![0]!.pid, fd: 99, inode: 1, exporter: "nvmap_dmabuf" });
  })).axl;
  const i3 = a.invariants.I3;
  assert.equal(i3.status, "FAIL", i3.summary);
  assert.equal(i3.evidence.not_held, "inode 1 was mapped 0 times, not once");
  assert.deepEqual(i3.evidence.held_pool, { from: "workload", ignored: 2 });
});

Deno.test("judgeArtifacts() on the bystander run without measured offsets: nvmap's held count ignores the bystander's buffers too", async () => {
  // The capture as a 5.15 kernel without measured offsets makes it (nvmap_arm64_replay.test.ts).
  const a = (await judgeEdited(
    (r) => {
      const p = r.probes as Record<string, unknown>;
      p.definitions = (p.definitions as string[]).map((d) => d.replace(/ (ino|exp)=\S+/g, ""));
      p.inode = false;
      p.exporter = false;
      p.inodeUnavailable = "no struct offsets for this kernel";
      delete p.inodeFrom;
      delete p.offsets;
    },
    (t) => t.replaceAll(/ ino=\d+/g, "").replaceAll(/ exp="[^"]*"/g, ""),
  )).axl;
  const i3 = a.invariants.I3;
  assert.equal(i3.status, "PASS", i3.summary);
  assert.equal(i3.evidence.counted_from, "nvmap events");
  assert.match(
    i3.summary,
    new RegExp(
      `^${CARD} held an attachment of each of the 4 nvmap buffers the workload held for 40 ` +
        "frames \\(3 other nvmap buffers, held by no process of the workload, ignored\\) ",
    ),
  );
  assert.deepEqual(i3.evidence.held_pool, { from: "workload", ignored: 3 });
});
