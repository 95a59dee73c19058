// The process probes' events against the /proc scans of the same live runs (fixtures
// tests/fixtures/trace/6.12-refs-events/): the held user script of
// tests/device/verify_metis_user.test.ts (4 camera buffers held by fd, a bystander's 3 buffers of
// the same heap beside them) and the Voyager-shaped transform client of
// tests/device/verify_voyager.test.ts (8 buffers held and mapped rw-s on the CPU), both in the
// x86_64 guest (6.12, BTF) with the scans still running (every 1000 ms there); and the held user
// script again in the arm64 guest (5.15, no BTF: the probes follow measured struct offsets,
// tests/fixtures/trace/5.15-arm64-refs-events/). The events alone give the refs the scans gave,
// and the judge gives the same verdicts from them.
import assert from "node:assert/strict";
import { ProcessRefFold } from "../../../lib/verify/evidence/process_refs.ts";
import { parseFtraceLine } from "../../../lib/trace/parse/ftrace.ts";
import { parseBufinfoSamples } from "../../../lib/trace/parse/bufinfo_summary.ts";
import { judgeArtifacts } from "../../../lib/verify/replay.ts";
import { judgeEditedCopy } from "./_edited_copy.ts";

const dir = (run: string) =>
  new URL(
    run === "arm64-metis-user-held"
      ? "../../fixtures/trace/5.15-arm64-refs-events/metis-user-held"
      : `../../fixtures/trace/6.12-refs-events/${run}`,
    import.meta.url,
  ).pathname;
const options = { evidence: "generic" as const };
/** The held runs were judged live at `--threshold 2` (verify_metis_user.test.ts). */
const optionsOf = (run: string) =>
  run.endsWith("metis-user-held") ? { ...options, copyThresholdPercent: 2 } : options;

type FdRef = { pid: number; fd: number; inode: number; exporter: string };
type MapRef = { pid: number; inode: number; start: string; end: string; perms: string };
interface Record {
  workload: { pids: number[]; fdRefs: FdRef[]; mapRefs: MapRef[] };
  notes: string[];
  refEvents: { counts: { events: number }; lost: number };
}

async function record(run: string): Promise<Record> {
  return JSON.parse(await Deno.readTextFile(`${dir(run)}/capture.json`));
}

/** The events' refs, named from bufinfo's samples only (not from the scans' fdinfo). */
async function eventRefs(run: string) {
  const r = await record(run);
  const fold = new ProcessRefFold();
  const text = await Deno.readTextFile(`${dir(run)}/refs_trace.txt`);
  text.split("\n").forEach((l, i) => {
    const e = parseFtraceLine(l, i + 1);
    if (e?.kind === "event") fold.add(e);
  });
  const bufinfo = await parseBufinfoSamples(
    (await Deno.open(`${dir(run)}/bufinfo_samples.txt`)).readable,
  );
  return { fold, ...fold.refs(r.workload.pids, (ino) => bufinfo.inodes.get(ino)) };
}

const fdKey = (f: FdRef) => `${f.pid}:${f.inode}:${f.fd}:${f.exporter}`;
const mapKey = (m: MapRef) => `${m.pid}:${m.inode}:${m.start}-${m.end}:${m.perms}`;

const RUNS = [
  ["metis-user-held", 4, 0],
  ["voyager-transform", 8, 8],
  ["arm64-metis-user-held", 4, 0],
] as const;

for (const [run, fds, maps] of RUNS) {
  Deno.test(`ProcessRefFold on the ${run} run's events gives the fd and map refs its /proc scans gave`, async () => {
    const r = await record(run);
    // Nothing in workload.fdRefs/mapRefs came from the events alone: they are the scans'.
    assert.ok(
      r.notes.some((n) =>
        n.endsWith(`${fds} fd refs and ${maps} map refs, 0 and 0 of them not in the /proc scans`)
      ),
      r.notes.join("\n"),
    );
    assert.equal(r.refEvents.lost, 0);
    const ev = await eventRefs(run);
    assert.equal(ev.fold.counts.events, r.refEvents.counts.events);
    assert.deepEqual(ev.fdRefs.map(fdKey).sort(), r.workload.fdRefs.map(fdKey).sort());
    assert.deepEqual(ev.mapRefs.map(mapKey).sort(), r.workload.mapRefs.map(mapKey).sort());
    assert.equal(ev.fdRefs.length, fds);
    assert.equal(ev.mapRefs.length, maps);
  });

  Deno.test(`judgeArtifacts() on the ${run} run with the events' refs instead of the scans' gives the live verdicts`, async () => {
    const live = JSON.parse(await Deno.readTextFile(`${dir(run)}/result.json`));
    const ev = await eventRefs(run);
    const again = await judgeEditedCopy(dir(run), optionsOf(run), (c) => {
      const w = c.workload as { [k: string]: unknown };
      w.fdRefs = ev.fdRefs;
      w.mapRefs = ev.mapRefs;
    }, (t) => t);
    assert.equal(again.axl.status, live.axl.status);
    for (const inv of ["I1", "I2", "I3"] as const) {
      assert.equal(again.axl.invariants[inv].status, live.axl.invariants[inv].status, inv);
      assert.equal(again.axl.invariants[inv].summary, live.axl.invariants[inv].summary, inv);
    }
    assert.deepEqual(
      again.axl.invariants.I3.evidence.held_pool,
      live.axl.invariants.I3.evidence.held_pool,
    );
    assert.deepEqual(again.axl.chain, live.axl.chain);
  });
}

Deno.test("judgeArtifacts() on the held run without the workload's refs loses the held pool: the refs carry the verdict", async () => {
  const live = JSON.parse(await Deno.readTextFile(`${dir("metis-user-held")}/result.json`));
  assert.deepEqual(live.axl.invariants.I3.evidence.held_pool, { from: "workload", ignored: 3 });
  const without = await judgeEditedCopy(
    dir("metis-user-held"),
    optionsOf("metis-user-held"),
    (c) => {
      const w = c.workload as { [k: string]: unknown };
      delete w.fdRefs;
      delete w.mapRefs;
    },
    (t) => t,
  );
  assert.notEqual(without.axl.invariants.I3.summary, live.axl.invariants.I3.summary);
  assert.notDeepEqual(without.axl.invariants.I3.evidence.held_pool, {
    from: "workload",
    ignored: 3,
  });
});

Deno.test("judgeArtifacts() gives back the live results of the three runs as saved", async () => {
  for (const [run] of RUNS) {
    const live = JSON.parse(await Deno.readTextFile(`${dir(run)}/result.json`));
    const again = await judgeArtifacts(dir(run), optionsOf(run));
    assert.equal(again.axl.status, live.axl.status, run);
    for (const inv of ["I1", "I2", "I3"] as const) {
      assert.equal(
        again.axl.invariants[inv].summary,
        live.axl.invariants[inv].summary,
        `${run} ${inv}`,
      );
    }
  }
});

// The held run's capture with `refEvents.lost` edited from 0 to 5 (or to the message of stats
// that could not be read): the loss was edited in because a real overrun cannot be made to
// order in the rig without changing what the run did. It is a fair fixture for the judge: an
// overrun changes only that counter and drops events, and the judge cannot tell which; here
// every event is still in refs_trace.txt, so this is the mildest loss there is, and the held
// pool it narrows must still not pass as if the refs were complete.
for (const lost of [5, "reading per_cpu/cpu0/stats: No such file or directory"]) {
  Deno.test(`judgeArtifacts() on the held run with the process probes' loss edited to ${JSON.stringify(lost)} is INCONCLUSIVE on I3, naming the loss and --no-process-probes`, async () => {
    const live = JSON.parse(await Deno.readTextFile(`${dir("metis-user-held")}/result.json`));
    assert.equal(live.axl.invariants.I3.status, "PASS");
    const again = await judgeEditedCopy(
      dir("metis-user-held"),
      optionsOf("metis-user-held"),
      (c) => {
        (c.refEvents as { lost: number | string }).lost = lost;
      },
      (t) => t,
    );
    const i3 = again.axl.invariants.I3;
    assert.equal(i3.status, "INCONCLUSIVE", i3.summary);
    assert.match(
      i3.summary,
      typeof lost === "number"
        ? /the process probes lost 5 events .*once a second.*--no-process-probes/
        : /the process probes may have lost events \(reading per_cpu.*--no-process-probes/,
    );
    assert.equal(again.axl.status, "INCONCLUSIVE");
    // The other invariants keep their live verdicts.
    for (const inv of ["I1", "I2"] as const) {
      assert.equal(again.axl.invariants[inv].summary, live.axl.invariants[inv].summary, inv);
    }
  });
}

// The same held run with the fold's counts edited: one fd event it could not read (its fields
// damaged), or one mmap entry without its return. Such an event may be the only trace of a
// buffer the workload held between two scans, so the pool must not pass as complete.
for (const edit of [{ damaged: 1, unpaired: 0 }, { damaged: 0, unpaired: 1 }]) {
  Deno.test(`judgeArtifacts() on the held run with the fold's counts edited to ${JSON.stringify(edit)} is INCONCLUSIVE on I3, naming them`, async () => {
    const again = await judgeEditedCopy(
      dir("metis-user-held"),
      optionsOf("metis-user-held"),
      (c) => {
        const ev = c.refEvents as { counts: { damaged: number; unpaired: number } };
        Object.assign(ev.counts, edit);
      },
      (t) => t,
    );
    const i3 = again.axl.invariants.I3;
    assert.equal(i3.status, "INCONCLUSIVE", i3.summary);
    assert.match(
      i3.summary,
      new RegExp(
        `the process probes' fold could not read 1 event \\(${edit.damaged} damaged, ` +
          `${edit.unpaired} mmap entries.*--no-process-probes`,
      ),
    );
  });
}

Deno.test("judgeArtifacts() on the held run with a loss but the scans at 200 ms (the mmap part not placed) keeps the live verdict", async () => {
  const live = JSON.parse(await Deno.readTextFile(`${dir("metis-user-held")}/result.json`));
  const again = await judgeEditedCopy(
    dir("metis-user-held"),
    optionsOf("metis-user-held"),
    (c) => {
      const ev = c.refEvents as { lost: number; parts: string[] };
      ev.lost = 5;
      ev.parts = ["fd"];
    },
    (t) => t,
  );
  assert.equal(again.axl.invariants.I3.status, live.axl.invariants.I3.status);
  assert.equal(again.axl.invariants.I3.summary, live.axl.invariants.I3.summary);
});
