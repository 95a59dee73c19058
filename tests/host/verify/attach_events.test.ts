// I1 from the attach and detach probe events instead of bufinfo read every 20 ms: the fold
// alone, and the verify device test's real zero-copy run judged again with bufinfo's first
// and last samples only, its attach events carrying the exporter as the probes now fetch it.
import assert from "node:assert/strict";
import { join } from "node:path";
import { AttachFold, withAttachEvents } from "../../../lib/verify/evidence/attach_events.ts";
import {
  addSample,
  emptySummary,
  parseBufinfoSamples,
} from "../../../lib/trace/parse/bufinfo_summary.ts";
import { judgeArtifacts, readCapture } from "../../../lib/verify/replay.ts";
import { readTraceFacts } from "../../../lib/verify/trace_facts.ts";
import { runDir } from "./_runs.ts";

Deno.test("AttachFold() starts from bufinfo's first sample and counts each device once", () => {
  const fold = new AttachFold(new Map([[9, ["vivid.0"]], [8, ["vivid.0", "vivid.0"]]]));
  fold.attach(9, "0000:00:02.0", "system");
  fold.attach(9, "0000:00:02.0", "system"); // attached twice: still two devices
  assert.deepEqual(fold.observations().get(9), {
    inode: 9,
    exporter: "system",
    maxDevices: 2,
    devicesAtMax: ["0000:00:02.0", "vivid.0"],
    devicesSeen: ["vivid.0", "0000:00:02.0"],
    multiAttachEvents: 2,
  });
  // Inode 8: vivid attached twice before the trace; one detach leaves one attachment.
  fold.detach(8, "vivid.0");
  fold.attach(8, "0000:00:02.0", "");
  assert.equal(fold.observations().get(8)?.maxDevices, 2);
  // Both of vivid's attachments gone: the card alone after that.
  fold.detach(8, "vivid.0");
  fold.detach(8, "0000:00:02.0");
  fold.attach(8, "0000:00:02.0", "system");
  assert.equal(fold.observations().get(8)?.multiAttachEvents, 1);
  assert.equal(fold.observations().get(8)?.exporter, "system", "the first exporter named");
  // A detach of an attachment neither the events nor bufinfo saw changes nothing.
  fold.detach(7, "vgem");
  assert.equal(fold.observations().has(7), false);
  assert.deepEqual([fold.attaches, fold.withExporter, fold.detaches], [4, 3, 4]);
});

Deno.test("withAttachEvents() only adds to what bufinfo saw", () => {
  const bufinfo = addSample(emptySummary(), {
    buffers: [
      {
        size: 4096,
        flags: 2,
        mode: 7,
        count: 3,
        exporter: "system",
        inode: 9,
        name: "cam-0",
        devices: ["vivid.0", "0000:00:02.0"],
        fences: [],
        line: 3,
      },
      {
        size: 4096,
        flags: 2,
        mode: 7,
        count: 3,
        exporter: "system",
        inode: 5,
        name: "out",
        devices: ["0000:00:02.0"],
        fences: [],
        line: 6,
      },
    ],
  }, 0);
  const fold = new AttachFold(bufinfo.atStart);
  fold.detach(9, "vivid.0");
  fold.attach(4, "0000:00:02.0", "videobuf2_dma_contig");
  const merged = withAttachEvents(bufinfo, fold);
  assert.ok(!("unavailable" in merged));
  assert.equal(merged.inodes.get(9)?.maxDevices, 2, "bufinfo's two devices stay");
  assert.equal(merged.inodes.get(9)?.name, "cam-0");
  assert.deepEqual(merged.inodes.get(4), {
    inode: 4,
    exporter: "videobuf2_dma_contig",
    name: "",
    size: 0,
    maxDevices: 1,
    devicesAtMax: ["0000:00:02.0"],
    devicesSeen: ["0000:00:02.0"],
    samples: 0,
    multiAttachSamples: 0,
    firstSeenMs: NaN,
    lastSeenMs: NaN,
  });
  assert.equal(bufinfo.inodes.has(4), false, "the summary given is not changed");
  assert.deepEqual(withAttachEvents({ unavailable: "no debugfs" }, fold), {
    unavailable: "no debugfs",
  });
});

/**
 * The zero-copy run of the verify device test with bufinfo read only at the start and the
 * end (its first and last samples), and its attach events naming the exporter as the
 * probes fetch it now (`exp=`; every frame of that run came from the `system` heap, as its
 * bufinfo says).
 */
async function startAndEndOnly(exporter: boolean): Promise<string> {
  const from = runDir("zero-copy");
  const dir = await Deno.makeTempDir({ prefix: "axl-attach-events-" });
  for (const f of Deno.readDirSync(from)) {
    if (f.name !== "trace.txt" && f.name !== "bufinfo_samples.txt") {
      await Deno.copyFile(join(from, f.name), join(dir, f.name));
    }
  }
  const trace = await Deno.readTextFile(join(from, "trace.txt"));
  await Deno.writeTextFile(
    join(dir, "trace.txt"),
    exporter ? trace.replace(/(axl_kp_attach: .* ino=\d+) \*\//g, '$1 exp="system" */') : trace,
  );
  const samples = (await Deno.readTextFile(join(from, "bufinfo_samples.txt")))
    .split(/(?=^### sample )/m);
  await Deno.writeTextFile(join(dir, "bufinfo_samples.txt"), samples[0]! + samples.at(-1)!);
  return dir;
}

Deno.test("judgeArtifacts() with bufinfo at the start and the end only: I1 from the attach events is the 20 ms verdict", async () => {
  const every20ms = await judgeArtifacts(runDir("zero-copy"));
  assert.equal(every20ms.axl.invariants.I1.status, "PASS");
  const dir = await startAndEndOnly(true);
  try {
    const capture = await readCapture(dir);
    assert.equal("samples" in capture.bufinfo && capture.bufinfo.samples, 2);
    const r = await judgeArtifacts(capture);
    assert.equal(r.axl.invariants.I1.status, "PASS", r.axl.invariants.I1.summary);
    assert.equal(r.axl.invariants.I1.summary, every20ms.axl.invariants.I1.summary);
    assert.equal(r.axl.invariants.I2.status, every20ms.axl.invariants.I2.status);
    assert.equal(r.axl.status, every20ms.axl.status);
    assert.ok(
      r.axl.notes.some((n) =>
        n ===
          "attachments (I1) from 120 attach and 120 detach probe events merged with 2 bufinfo samples"
      ),
      r.axl.notes.join("\n"),
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("judgeArtifacts() says how many probe events carried an ino that is not an inode", async () => {
  const dir = await startAndEndOnly(true);
  try {
    // the first attach event's inode garbled into hex: that event's inode is left out, and said
    const trace = await Deno.readTextFile(join(dir, "trace.txt"));
    const garbled = trace.replace(
      /(axl_kp_attach: .* ino=)(\d+)/,
      (_, a, n) => `${a}0x${Number(n).toString(16)}`,
    );
    assert.notEqual(garbled, trace);
    await Deno.writeTextFile(join(dir, "trace.txt"), garbled);
    const r = await judgeArtifacts(await readCapture(dir));
    assert.ok(
      r.axl.notes.includes(
        "attachments (I1) from 119 attach and 120 detach probe events merged with 2 bufinfo " +
          "samples; 1 probe events carried an ino that is not an inode, left out",
      ),
      r.axl.notes.join("\n"),
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("judgeArtifacts() without the exporter in the events judges I1 from bufinfo alone, as before", async () => {
  const dir = await startAndEndOnly(false);
  try {
    const r = await judgeArtifacts(await readCapture(dir));
    // Two samples in which vivid alone held the frames: what a slow bufinfo misses.
    assert.equal(r.axl.invariants.I1.status, "FAIL", r.axl.invariants.I1.summary);
    assert.ok(!r.axl.notes.some((n) => n.startsWith("attachments (I1) from")));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("parseBufinfoSamples() keeps the first sample's attachments", async () => {
  const s = await parseBufinfoSamples(
    (await Deno.readTextFile(join(runDir("zero-copy"), "bufinfo_samples.txt"))).split(
      /(?<=\n)/,
    ),
  );
  assert.deepEqual(s.atStart?.get(352), ["vivid.0"]);
  assert.equal(s.atStart?.size, 4);
});

Deno.test("readTraceFacts() folds the exporter of an attach event alike in C and TypeScript", async () => {
  const line = "  195.007156 |   1)    deno-204    |               |  /* axl_kp_attach: " +
    '(dma_buf_dynamic_attach+0x4/0x260) buf=0xffff88807b0c0800 dev="0000:00:02.0" ino=1 ' +
    'exp="videobuf2_dma_contig" */\n';
  const seen = [];
  for (const scanner of ["c", "typescript"] as const) {
    const f = await readTraceFacts([line], {
      scanner,
      attachedAtStart: new Map([[1, ["vivid.0"]]]),
    });
    seen.push([...f.dmabuf!.attachments.observations().values()]);
  }
  assert.deepEqual(seen[0], [{
    inode: 1,
    exporter: "videobuf2_dma_contig",
    maxDevices: 2,
    devicesAtMax: ["0000:00:02.0", "vivid.0"],
    devicesSeen: ["vivid.0", "0000:00:02.0"],
    multiAttachEvents: 1,
  }]);
  assert.deepEqual(seen[1], seen[0]);
});

Deno.test("judgeArtifacts() merges the attach events of probes defined with the exporter, even where no name was read", async () => {
  // The capture read bufinfo slowly because its probes were defined with `exp=`; a kernel that
  // printed `(fault)` for every name must not leave I1 to two samples.
  const dir = await startAndEndOnly(false);
  try {
    const capture = await readCapture(dir);
    const probes = capture.record.probes;
    assert.ok(probes && "events" in probes);
    probes.exporter = true;
    const r = await judgeArtifacts({ ...capture, readBack: false });
    assert.equal(r.axl.invariants.I1.status, "PASS", r.axl.invariants.I1.summary);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("AttachFold() counts a detach it never saw attach, and the state after it stays right", () => {
  const fold = new AttachFold(new Map([[9, ["vivid.0"]]]));
  fold.detach(5, "vgem"); // neither the events nor bufinfo's first sample attached it
  fold.detach(5, "vgem");
  fold.detach(9, "0000:00:02.0"); // inode known, device not attached to it
  fold.attach(5, "0000:00:02.0", "system");
  assert.equal(fold.observations().get(5)?.maxDevices, 1, "no attachment went below zero");
  fold.attach(5, "vgem", "system");
  assert.equal(fold.observations().get(5)?.maxDevices, 2);
  assert.deepEqual(fold.observations().get(9)?.devicesSeen, ["vivid.0"]);
  assert.deepEqual([fold.detaches, fold.unmatchedDetaches], [3, 3]);
});

Deno.test("AttachFold() refuses what is not an inode, and counts it", () => {
  const fold = new AttachFold();
  for (const inode of [-3, NaN, 1.5, 2 ** 60, Infinity]) fold.attach(inode, "vivid.0", "system");
  fold.detach(-3, "vivid.0");
  assert.deepEqual([...fold.observations().keys()], []);
  assert.deepEqual([fold.attaches, fold.refused], [5, 6]);
});

// One attach line of a real 6.12 capture, then damaged as a cut or a garbled trace would be.
const ATTACH = "  195.007156 |   1)    deno-204    |               |  /* axl_kp_attach: " +
  '(dma_buf_dynamic_attach+0x4/0x260) buf=0xffff88807b0c0800 dev="0000:00:02.0" ino=1 ' +
  'exp="videobuf2_dma_contig" */';

Deno.test("readTraceFacts() leaves a cut attach line unparsed and folds nothing of it (C and TypeScript)", async () => {
  for (const cut of ["exp=", 'exp="video', "ino=", 'dev="0000:0']) {
    const line = ATTACH.slice(0, ATTACH.indexOf(cut) + cut.length) + "\n";
    for (const scanner of ["c", "typescript"] as const) {
      const f = await readTraceFacts([line], { scanner });
      assert.equal(f.unparsed, 1, `${scanner}: ${line}`);
      assert.equal(f.dmabuf?.attachments.attaches ?? 0, 0, `${scanner}: ${line}`);
    }
  }
});

Deno.test("readTraceFacts() takes no inode from an ino that is not a decimal inode (C and TypeScript)", async () => {
  // The probes fetch i_ino as u64: the kernel prints it in decimal. A sign, hex or more digits
  // than an inode number holds is damage: the event counts, its inode is left out, and said.
  for (const ino of ["-3", "0x10", "99999999999999999999", "1e3"]) {
    const line = ATTACH.replace("ino=1", `ino=${ino}`) + "\n";
    for (const scanner of ["c", "typescript"] as const) {
      const f = await readTraceFacts([line], { scanner });
      const d = f.dmabuf!;
      assert.equal(d.events, 1, `${scanner} ${ino}`);
      assert.equal(d.badInodes, 1, `${scanner} ${ino}`);
      assert.equal(d.inodes, false, `${scanner} ${ino}`);
      assert.deepEqual([...d.attachments.observations().keys()], [], `${scanner} ${ino}`);
      assert.equal(d.devices.get("0000:00:02.0")?.attaches, 1, `${scanner} ${ino}`);
    }
  }
});

Deno.test("readTraceFacts() folds an attach whose exporter the kernel could not read without one", async () => {
  for (const exp of ["exp=(fault)", 'exp=""']) {
    const line = ATTACH.replace('exp="videobuf2_dma_contig"', exp) + "\n";
    for (const scanner of ["c", "typescript"] as const) {
      const f = await readTraceFacts([line], { scanner });
      const a = f.dmabuf!.attachments;
      assert.deepEqual([a.attaches, a.withExporter], [1, 0], `${scanner} ${exp}`);
      assert.equal(a.observations().get(1)?.exporter, "", `${scanner} ${exp}`);
    }
  }
});
