// The device shell against the real driver (run inside the VM rig, or on a Jetson): the
// README session, Ctrl-C during a workload, objects made by JavaScript, failures.
import assert from "node:assert/strict";
import { frameLayout } from "../../lib/frames/frame.ts";
import { fillPattern } from "../../lib/frames/producers/heap_producer.ts";
import { referenceResult } from "../../lib/frames/reference.ts";
import { parseBufinfo } from "../../lib/trace/parse/bufinfo.ts";
import { BUFINFO_PATH } from "../../lib/trace/capture/bufinfo_sampler.ts";

const REPO = new URL("../../", import.meta.url).pathname;
const SHELL = `${REPO}tasks/commands/shell.ts`;
const README_SESSION = `${REPO}tests/device/fixtures/readme-session.axl`;

interface ShellRecord {
  n?: number;
  line?: number;
  input?: string;
  kind: string;
  ok?: boolean;
  code: number;
  names?: string[];
  // deno-lint-ignore no-explicit-any
  value?: any;
  error?: { name: string; message: string };
  released?: string[];
  releaseErrors?: string[];
}

function shell(args: string[], stdin?: string) {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", SHELL, ...args],
    cwd: REPO,
    stdin: stdin === undefined ? "null" : "piped",
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).spawn();
  if (stdin !== undefined) {
    const w = child.stdin.getWriter();
    w.write(new TextEncoder().encode(stdin)).then(() => w.close());
  }
  return child;
}

async function finish(child: Deno.ChildProcess) {
  const o = await child.output();
  const dec = new TextDecoder();
  return { code: o.code, stdout: dec.decode(o.stdout), stderr: dec.decode(o.stderr) };
}

function records(stdout: string): ShellRecord[] {
  return stdout.trim().split("\n").map((l) => JSON.parse(l) as ShellRecord);
}

function byInput(rs: ShellRecord[], input: string): ShellRecord {
  const r = rs.find((x) => x.input === input);
  assert.ok(r, `no record for '${input}'`);
  return r;
}

/** Names of the dma-bufs alive system-wide right now. */
function liveBufferNames(): string[] {
  return parseBufinfo(Deno.readTextFileSync(BUFINFO_PATH)).buffers.map((b) => b.name);
}

Deno.test("shell -f readme-session.axl imports a frame, gets the reference result and releases all", async () => {
  const r = await finish(shell(["-f", README_SESSION, "--json"]));
  assert.equal(r.code, 0, r.stdout + r.stderr);
  const rs = records(r.stdout);
  for (const x of rs) assert.equal(x.code, 0, JSON.stringify(x));

  const info = byInput(rs, "info").value;
  const frame = byInput(rs, "frame = alloc NV12 640x480 --fill pattern");
  assert.deepEqual(frame.names, ["$3", "frame"]);
  const inode = frame.value.inode;
  assert.equal(frame.value.exporter, "system");

  const imp = byInput(rs, "imp = import frame").value;
  assert.deepEqual([imp.inode, imp.format, imp.width, imp.height], [inode, "NV12", 640, 480]);

  // While imported, bufinfo lists the NPU's device among the frame's attachments.
  const listed = byInput(rs, "ls").value.buffers.find((b: { inode: number }) => b.inode === inode);
  assert.ok(listed, "ls lists the frame");
  assert.ok(listed.attached.includes(info.device), JSON.stringify(listed));
  assert.deepEqual(listed.fdRefs.map((f: { comm: string }) => f.comm), ["deno"]);

  // The engine's result equals the reference model of the frame, computed here.
  const layout = frameLayout("NV12", 640, 480);
  const pixels = new Uint8Array(layout.size);
  fillPattern(pixels, layout, 1, 0);
  const want = referenceResult(pixels, layout);
  const waited = byInput(rs, "r = wait job").value;
  assert.equal(waited.status, "signaled");
  assert.equal(waited.result.crc32, want.crc32);
  assert.equal(waited.result.lumaSum, String(want.lumaSum));
  assert.deepEqual([waited.result.width, waited.result.height, waited.result.status], [
    640,
    480,
    0,
  ]);
  assert.equal(waited.matches, true);
  assert.ok(Number(waited.latencyNs) > 0);
  const shown = byInput(
    rs,
    "`crc32 0x${r.result.crc32.toString(16)}, ${Number(r.latencyNs) / 1e3} µs`",
  );
  assert.match(shown.value, new RegExp(`^crc32 0x${want.crc32.toString(16)}, `));

  // The trace saw exactly this import, its job and its release.
  const trace = byInput(rs, "trace stop").value;
  for (
    const e of ["axl_dmabuf_import", "axl_dmabuf_release", "axl_job_submit", "axl_job_complete"]
  ) {
    assert.equal(trace.counts[e], 1, `${e}: ${JSON.stringify(trace.counts)}`);
  }
  assert.ok(trace.counts.dma_fence_signaled >= 1);
  const importEvent = trace.events.find((e: { name: string }) => e.name === "axl_dmabuf_import");
  assert.equal(Number(importEvent.fields.inode), inode);
  const lines: string[] = byInput(rs, "trace show --event axl_*").value;
  assert.equal(lines.length, 4);
  assert.match(
    lines[0]!,
    new RegExp(`axl_dmabuf_import: handle=\\d+ inode=${inode} exporter=system`),
  );

  const end = rs.at(-1)!;
  assert.equal(end.kind, "end");
  assert.deepEqual(end.releaseErrors, []);
  assert.ok(end.released!.some((l) => l.includes("device /dev/axl: closed")), end.released!.join());
  const left = liveBufferNames();
  assert.ok(!left.includes("axl-nv12-640x480") && !left.includes("axl-result"), left.join());
});

Deno.test("shell -f readme-session.axl prints the session for people", async () => {
  const r = await finish(shell(["-f", README_SESSION]));
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.match(r.stdout, /^axl> r = wait job$/m);
  assert.match(r.stdout, /^reference crc32 0x[0-9a-f]{8}: matches$/m);
  assert.match(r.stdout, /^import #\d+ \(\$4, imp\) handle \d+ inode \d+ NV12 640x480 to-device/m);
  assert.match(r.stderr, /^released #\d+ device \/dev\/axl: closed$/m);
});

Deno.test("SIGINT stops 'run' between frames, the session releases everything, exit 130", async () => {
  const child = shell(["--json"], "run --frames 100000\n'not reached'\n");
  const stdoutText = new Response(child.stdout).text();
  // Wait for the first progress note, so frames are flowing.
  const reader = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
  let stderr = "";
  const deadline = Date.now() + 120_000;
  while (!/frame \d+\/100000/.test(stderr)) {
    assert.ok(Date.now() < deadline, `no progress note: ${stderr}`);
    const { value, done } = await reader.read();
    assert.ok(!done, `the shell ended before a progress note: ${stderr}`);
    stderr += value;
  }
  child.kill("SIGINT");
  while (!(await reader.read()).done) { /* drain */ }
  const status = await child.status;
  assert.equal(status.code, 130);
  const stdout = await stdoutText;
  const rs = records(stdout);
  const run = byInput(rs, "run --frames 100000");
  assert.equal(run.code, 130);
  assert.equal(run.value.aborted, true);
  assert.ok(run.value.completed > 0 && run.value.completed < 100000);
  assert.equal(run.value.imports, run.value.releases);
  assert.equal(run.value.mismatches, 0);
  assert.equal(rs.some((x) => x.input === "'not reached'"), false);
  const end = rs.at(-1)!;
  assert.deepEqual([end.kind, end.code, end.releaseErrors], ["end", 130, []]);
  const left = liveBufferNames();
  assert.ok(!left.some((n) => n.startsWith("axl-frame-") || n === "axl-result"), left.join());
});

Deno.test("producers, frames and JavaScript-made objects are tracked and released in order", async () => {
  const script = [
    "p = produce heap --size 320x240 --buffers 2",
    "f = produce next p",
    "fi = import f",
    "submit fi",
    "w = wait",
    "release fi f",
    "b = alloc 4096 --name shell-js-result",
    'const extra = Heap.open("system").allocate(8192, { name: "shell-js-frame" })',
    'const imp2 = dev.import(extra, { width: 4096, height: 2, format: "GREY" })',
    "dev.submit(imp2, { result: b }).seqno > 0n",
    "const acc = extra.cpuAccess({ read: true })",
    "ls --all",
    "objects",
  ].join("\n");
  const r = await finish(shell(["--json"], script + "\n"));
  assert.equal(r.code, 0, r.stdout + r.stderr);
  const rs = records(r.stdout);
  // A heap producer's frame knows its reference: wait checks the engine against it.
  const w = byInput(rs, "w = wait").value;
  assert.equal(w.matches, true);
  assert.deepEqual([w.result.width, w.result.height], [320, 240]);
  assert.deepEqual(byInput(rs, "release fi f").code, 0);

  const kinds = byInput(rs, "objects").value.map((o: { kind: string }) => o.kind).sort();
  assert.deepEqual(kinds, [
    "buffer",
    "buffer",
    "buffer",
    "device",
    "import",
    "job",
    "job",
    "producer",
  ]);
  // The mapped buffer shows a map ref of this shell; the imported one the NPU attachment.
  const all = byInput(rs, "ls --all").value.buffers;
  const frame = all.find((x: { name: string }) => x.name === "shell-js-frame");
  assert.equal(frame.mapRefs.length, 1);
  assert.equal(frame.attached.length, 1);

  const end = rs.at(-1)!;
  assert.deepEqual(end.releaseErrors, []);
  const order = end.released!.map((l) => /^#\d+ (\w+)/.exec(l)![1]);
  assert.deepEqual(order, [
    "job",
    "job",
    "import",
    "producer",
    "buffer",
    "buffer",
    "buffer",
    "device",
  ]);
  const left = liveBufferNames();
  assert.ok(
    !left.some((n) => n.startsWith("shell-js-") || n.startsWith("axl-frame-")),
    left.join(),
  );
});

Deno.test("a failing device step stops the script with exit status 1 and a one-line error", async () => {
  const script = "f = alloc 4096\nimport f --format GREY --width 8192 --height 1\n'not reached'\n";
  const r = await finish(shell([], script));
  assert.equal(r.code, 1, r.stdout + r.stderr);
  assert.match(r.stderr, /^error: device\.import\(inode \d+, GREY 8192x1\) failed: EINVAL .*$/m);
  assert.match(r.stderr, /^stopped at line 2 \(exit status 1\)$/m);
  assert.equal(r.stdout.includes("not reached"), false);
});

Deno.test("verify runs the I1–I4 check on the session's device and binds result.json", async () => {
  const dir = await Deno.makeTempDir({ prefix: "axl-shell-verify-" });
  try {
    const r = await finish(shell(
      ["--json"],
      `v = verify --frames 5 --producer heap --no-graph --no-perf --artifacts ${dir}\n`,
    ));
    const rs = records(r.stdout);
    const v = byInput(
      rs,
      `v = verify --frames 5 --producer heap --no-graph --no-perf --artifacts ${dir}`,
    );
    const exit: Record<string, number> = { PASS: 0, FAIL: 1, SKIP: 2, INCONCLUSIVE: 2 };
    assert.equal(v.code, exit[v.value.axl.status], JSON.stringify(v.value.axl.invariants));
    assert.equal(r.code, v.code);
    assert.equal(v.value.axl.invariants.I3.status, "PASS");
    assert.equal(v.value.axl.invariants.I4.status, "SKIP");
    assert.equal(v.value.detail.imports, 5);
    const saved = JSON.parse(await Deno.readTextFile(`${dir}/result.json`));
    assert.equal(saved.axl.status, v.value.axl.status);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

const METIS_SESSION = `${REPO}tests/device/fixtures/readme-session-metis.axl`;

Deno.test("shell --device metis -f readme-session-metis.axl: a frame to card memory and back, bytes checked", async () => {
  const r = await finish(shell(["--device", "metis", "-f", METIS_SESSION, "--json"]));
  assert.equal(r.code, 0, r.stdout + r.stderr);
  const rs = records(r.stdout);
  for (const x of rs) assert.equal(x.code, 0, JSON.stringify(x));

  const info = byInput(rs, "info").value;
  assert.match(info.path, /^\/dev\/(axl-)?metis-/);
  const frame = byInput(rs, "frame = alloc NV12 640x480 --fill pattern").value;
  const att = byInput(rs, "att = attach frame").value;
  assert.deepEqual([att.node, att.inode, att.attached], [info.path, frame.inode, true]);

  // While attached, bufinfo lists the card's PCI function among the frame's devices.
  const listed = byInput(rs, "ls").value.buffers.find((b: { inode: number }) =>
    b.inode === frame.inode
  );
  assert.ok(listed?.attached.includes(info.pci), JSON.stringify(listed));

  const sent = byInput(rs, "wait t").value;
  assert.deepEqual([sent.direction, sent.size], ["to-card", frame.size]);
  assert.equal(sent.matches, undefined);
  // The zeroed frame came back holding the pattern: every byte compared, none differs.
  const back = byInput(rs, "r = wait t2").value;
  assert.equal(back.direction, "from-card");
  assert.deepEqual([back.check.bytes, back.check.firstMismatch, back.matches], [
    sent.size,
    -1,
    true,
  ]);

  // The trace saw both transfers, and every import released: one per attach through the
  // node (attach maps the buffer once, as metis.ko does; nothing else imports it).
  const trace = byInput(rs, "trace stop").value;
  const counts = JSON.stringify(trace.counts);
  assert.equal(trace.counts.axl_metis_xfer, 2, counts);
  assert.equal(trace.counts.axl_dmabuf_import, 2, counts);
  assert.equal(trace.counts.axl_dmabuf_release, 2, counts);
  const xfers = trace.events.filter((e: { name: string }) => e.name === "axl_metis_xfer");
  assert.deepEqual(
    xfers.map((e: { fields: Record<string, string> }) => [
      Number(e.fields.inode),
      e.fields.dir,
      Number(e.fields.moved),
    ]),
    [[frame.inode, "write", frame.size], [
      byInput(rs, "back = alloc NV12 640x480 --fill zero")
        .value.inode,
      "read",
      frame.size,
    ]],
  );

  // After the detaches nothing is attached to the frames any more.
  const after = rs.filter((x) => x.input === "ls").at(-1)!.value.buffers
    .filter((b: { inode: number }) => b.inode === frame.inode);
  assert.deepEqual(after.flatMap((b: { attached: string[] }) => b.attached), []);

  const end = rs.at(-1)!;
  assert.deepEqual(end.releaseErrors, []);
  assert.ok(
    end.released!.some((l) => l.includes(`device ${info.path}: closed`)),
    end.released!.join(),
  );
});

Deno.test("shell --device metis prints the Metis session for people and refuses what metis.ko cannot do", async () => {
  const r = await finish(shell(["--device", "metis", "-f", METIS_SESSION]));
  assert.equal(r.code, 0, r.stdout + r.stderr);
  console.log(r.stdout + r.stderr); // the README's transcript comes from here
  assert.match(r.stdout, /^bytes {5}\d+ match what went to card 0x0$/m);
  assert.match(r.stdout, /^driver {4}axl-metis \(axl\.ko's node with metis\.ko's ABI;/m);

  const refused = await finish(shell(
    ["--device", "metis", "--json", "--keep-going"],
    [
      "a = alloc 4096",
      "b = alloc 4096",
      "attach a",
      "attach b",
      "submit",
      "import a --width 64",
    ].join("\n") + "\n",
  ));
  const rs = records(refused.stdout);
  assert.match(byInput(rs, "attach b").error!.message, /EBUSY.*one buffer per open file/s);
  assert.match(byInput(rs, "submit").error!.message, /poll\(\).*no dma_fence/s);
  assert.match(byInput(rs, "import a --width 64").error!.message, /does not apply on a Metis/);

  // and the other way round: an axl.ko session has no card memory
  const axl = await finish(shell(["--json", "--keep-going"], "a = alloc 4096\ntransfer to-card\n"));
  assert.match(byInput(records(axl.stdout), "transfer to-card").error!.message, /--device metis/);
});
