// mergeRefEvents() (lib/verify/capture.ts): the process probes' refs added to the /proc scans'
// ones, with a note that says how many and whether the events were complete.
import assert from "node:assert/strict";
import { mergeRefEvents, type RefEvents } from "../../../lib/verify/capture.ts";
import { noProcessRefCounts } from "../../../lib/verify/evidence/process_refs.ts";

const counts = noProcessRefCounts();
const map = (pid: number, inode: number, start: string) => ({
  pid,
  inode,
  start,
  end: "7f0000100000",
  bytes: 0x100000,
  perms: "rw-s",
  name: "",
});

Deno.test("mergeRefEvents() adds what only the events saw and keeps the scans' refs as they were", () => {
  const seen = {
    fdRefs: [{ pid: 1, fd: 5, inode: 7, exporter: "system" }],
    mapRefs: [map(1, 7, "7f0000000000")],
  };
  const notes: string[] = [];
  const ev: RefEvents = {
    parts: ["fd", "mmap"],
    unavailable: {},
    counts: { ...counts, events: 5, paired: 2 },
    lost: 0,
    // The scans saw buffer 7 under fd 5; the events saw it first under fd 4 (then dup'd).
    fdRefs: [
      { pid: 1, fd: 4, inode: 7, exporter: "system" },
      { pid: 1, fd: 9, inode: 8, exporter: "" },
    ],
    mapRefs: [map(1, 7, "7f0000000000"), map(1, 8, "7f0000200000")],
  };
  mergeRefEvents(seen, ev, notes);
  assert.deepEqual(seen.fdRefs, [
    { pid: 1, fd: 5, inode: 7, exporter: "system" },
    { pid: 1, fd: 9, inode: 8, exporter: "" },
  ]);
  assert.deepEqual(seen.mapRefs.map((m) => m.start), ["7f0000000000", "7f0000200000"]);
  assert.deepEqual(notes, [
    "the workload's dma-buf fds and mappings from 5 process probe events (fd, mmap): 2 fd refs " +
    "and 2 map refs, 1 and 1 of them not in the /proc scans",
  ]);
});

Deno.test("mergeRefEvents() says when the events were incomplete", () => {
  const notes: string[] = [];
  mergeRefEvents({ fdRefs: [], mapRefs: [] }, {
    parts: ["fd", "mmap"],
    unavailable: {},
    counts: { ...counts, events: 9, unpaired: 1, noProcess: 2 },
    lost: 3,
    fdRefs: [],
    mapRefs: [],
  }, notes);
  assert.equal(
    notes[0],
    "the workload's dma-buf fds and mappings from 9 process probe events (fd, mmap): 0 fd refs " +
      "and 0 map refs, 0 and 0 of them not in the /proc scans; events 3 lost, 2 without their " +
      "process, 1 mmap entries or returns unpaired: a buffer the workload held or mapped only " +
      "between two scans may be missing from the refs",
  );
});
