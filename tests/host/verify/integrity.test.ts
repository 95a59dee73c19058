// Damaged artifacts never get a verdict: every mutation of every file of a real capture (the
// builtin run of tests/fixtures/trace/6.12-axl/integrity, captured with its integrity record)
// is refused with one line naming the file (ArtifactsDamagedError, exit 3 on the command line).
import assert from "node:assert/strict";
import { join } from "node:path";
import { gunzipSync, gzipSync } from "node:zlib";
import { replayVerify } from "../../../lib/verify/run.ts";
import { ArtifactsDamagedError, NO_RECORD_NOTE } from "../../../lib/verify/integrity.ts";

const FIXTURE = new URL("../../fixtures/trace/6.12-axl/integrity", import.meta.url).pathname;
const RAW = [
  "trace.txt",
  "per_cpu_stats.txt",
  "bufinfo_samples.txt",
  "perf.script.gz",
  "perf-record.log",
  "perf-script.err",
  "capture.json",
];

/** A copy of the fixture, without its verdict files (a replay does not read them). */
async function copyFixture(): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "axl-integrity-" });
  for (const f of RAW) await Deno.copyFile(join(FIXTURE, f), join(dir, f));
  return dir;
}

type Mutation = { name: string; file: string; apply(dir: string): Promise<void> };

/** Bytes of a file as the capture wrote them (perf.script.gz decompressed). */
async function content(dir: string, file: string): Promise<Uint8Array> {
  const raw = await Deno.readFile(join(dir, file));
  return file.endsWith(".gz") ? new Uint8Array(gunzipSync(raw)) : raw;
}
async function write(dir: string, file: string, bytes: Uint8Array): Promise<void> {
  await Deno.writeFile(join(dir, file), file.endsWith(".gz") ? gzipSync(bytes) : bytes);
}

function mutations(): Mutation[] {
  const out: Mutation[] = [];
  for (const file of RAW) {
    out.push({
      name: `${file} cut to half`,
      file,
      async apply(dir) {
        const b = await content(dir, file);
        await write(dir, file, b.subarray(0, Math.floor(b.length / 2)));
      },
    }, {
      name: `${file} with 2,000 bytes garbled`,
      file,
      async apply(dir) {
        const b = await content(dir, file);
        const g = b.length < 2000 ? new Uint8Array(2000 + b.length) : b.slice();
        g.set(b.subarray(0, g === b ? 0 : b.length));
        const at = Math.max(0, Math.floor(g.length / 2) - 1000);
        for (let i = 0; i < 2000; i++) g[at + i] = (i * 7919) % 256;
        await write(dir, file, g);
      },
    }, {
      name: `${file} empty`,
      file,
      async apply(dir) {
        await write(dir, file, new Uint8Array());
      },
    }, {
      name: `${file} missing`,
      file,
      async apply(dir) {
        await Deno.remove(join(dir, file));
      },
    });
  }
  // the raw gzip bytes of perf.script.gz themselves damaged
  out.push({
    name: "perf.script.gz not gzip any more",
    file: "perf.script.gz",
    async apply(dir) {
      const b = await Deno.readFile(join(dir, "perf.script.gz"));
      b.fill(0x41, 100, 2100);
      await Deno.writeFile(join(dir, "perf.script.gz"), b);
    },
  });
  for (
    const [a, b] of [["trace.txt", "perf-record.log"], ["bufinfo_samples.txt", "trace.txt"], [
      "per_cpu_stats.txt",
      "perf-record.log",
    ]] as const
  ) {
    out.push({
      name: `${a} and ${b} swapped`,
      file: a,
      async apply(dir) {
        const [x, y] = [await content(dir, a), await content(dir, b)];
        await write(dir, a, y);
        await write(dir, b, x);
      },
    });
  }
  // deno-lint-ignore no-explicit-any -- a parsed capture.json, edited anywhere
  const edits: Array<[string, string, (c: Record<string, any>) => void]> = [
    ["capture.json", "trace.txt lines", (c) => c.integrity.files["trace.txt"].lines++],
    ["capture.json", "trace.txt bytes", (c) => c.integrity.files["trace.txt"].bytes -= 100],
    ["capture.json", "perf samples", (c) => c.integrity.files["perf.script"].samples++],
    [
      "capture.json",
      "bufinfo samples",
      (c) => c.integrity.files["bufinfo_samples.txt"].samples--,
    ],
    ["capture.json", "frames submitted", (c) => c.workload.framesSubmitted = 60],
    ["capture.json", "exit code", (c) => c.workload.exitCode = 1],
    ["capture.json", "its own sha256", (c) => c.integrity.capture_sha256 = "0".repeat(64)],
    ["capture.json", 'shape ({"foo":1})', (c) => {
      for (const k of Object.keys(c)) delete c[k];
      c.foo = 1;
    }],
  ];
  for (const [file, what, edit] of edits) {
    out.push({
      name: `capture.json: ${what} edited`,
      file,
      async apply(dir) {
        const c = JSON.parse(await Deno.readTextFile(join(dir, "capture.json")));
        edit(c);
        await Deno.writeTextFile(join(dir, "capture.json"), JSON.stringify(c, null, 2) + "\n");
      },
    });
  }
  return out;
}

Deno.test("replayVerify() judges the undamaged capture (the mutations' baseline)", async () => {
  const dir = await copyFixture();
  const out = await Deno.makeTempDir();
  const { result } = await replayVerify(dir, out);
  assert.equal(result.axl.status, "INCONCLUSIVE"); // I4: 841 perf samples of 8 frames
  assert.equal(result.axl.invariants.I3.status, "PASS");
  assert.ok(!result.axl.notes.includes(NO_RECORD_NOTE));
});

Deno.test("replayVerify() refuses every mutation of a real capture with one line naming the file", async () => {
  const outcomes: string[] = [];
  for (const m of mutations()) {
    const dir = await copyFixture();
    const before = await Deno.readFile(join(dir, m.file)).catch(() => undefined);
    await m.apply(dir);
    const after = await Deno.readFile(join(dir, m.file)).catch(() => undefined);
    if (before && after && before.length === 0 && after.length === 0) continue; // no change
    const out = await Deno.makeTempDir();
    let outcome: string;
    try {
      const { result } = await replayVerify(dir, out);
      outcome = `VERDICT ${result.axl.status}`;
    } catch (e) {
      const msg = (e as Error).message;
      // a swap may be found at either file
      const named = RAW.some((f) => msg.includes(`damaged: ${f.replace(/\.gz$/, "")}`)) ||
        msg.includes(`no ${m.file.replace(/\.gz$/, "")}`);
      outcome = (e instanceof ArtifactsDamagedError ||
          (e instanceof Deno.errors.NotFound && m.name.includes("missing"))) &&
          !msg.includes("\n") && named && (m.name.includes("swapped") ||
            msg.includes(m.file.replace(/\.gz$/, "")))
        ? "refused"
        : `${(e as Error).name}: ${msg}`;
    }
    outcomes.push(`${m.name}: ${outcome}`);
    await Deno.remove(dir, { recursive: true });
    await Deno.remove(out, { recursive: true });
  }
  const wrong = outcomes.filter((o) => !o.endsWith(": refused"));
  assert.deepEqual(
    wrong,
    [],
    `${wrong.length} of ${outcomes.length} mutations:\n${wrong.join("\n")}`,
  );
});

Deno.test("verify --replay of a cut trace exits 3 with one line and no stack trace", async () => {
  const dir = await copyFixture();
  const b = await Deno.readFile(join(dir, "trace.txt"));
  await Deno.writeFile(join(dir, "trace.txt"), b.subarray(0, 10_000));
  const out = await Deno.makeTempDir();
  const cli = new URL("../../../tasks/axl.ts", import.meta.url).pathname;
  const r = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--no-check", cli, "verify", "--replay", dir, "--artifacts", out],
    env: { NO_COLOR: "1" },
    stdin: "null",
  }).output();
  const stderr = new TextDecoder().decode(r.stderr).split("\n").filter((l) =>
    l && !l.startsWith("Download") && !l.startsWith("Try")
  );
  assert.equal(r.code, 3, stderr.join("\n"));
  assert.equal(stderr.length, 1, stderr.join("\n"));
  assert.match(stderr[0]!, /the artifacts are damaged: trace\.txt has 10000 bytes, 35750 recorded/);
  assert.doesNotMatch(stderr[0]!, /\bat \S+:\d+/);
});

Deno.test("replayVerify() of a capture without a record says so and refuses an empty trace", async () => {
  const dir = await copyFixture();
  const c = JSON.parse(await Deno.readTextFile(join(dir, "capture.json")));
  delete c.integrity;
  await Deno.writeTextFile(join(dir, "capture.json"), JSON.stringify(c, null, 2) + "\n");
  const { result } = await replayVerify(dir, await Deno.makeTempDir());
  assert.ok(result.axl.notes.includes(NO_RECORD_NOTE));
  await Deno.writeTextFile(join(dir, "trace.txt"), "");
  await assert.rejects(
    () => replayVerify(dir, Deno.makeTempDirSync()),
    ArtifactsDamagedError,
    "the artifacts are damaged: trace.txt is empty",
  );
});

Deno.test("replayVerify() of a record-less capture refuses a trace with garbled lines", async () => {
  const dir = await copyFixture();
  const c = JSON.parse(await Deno.readTextFile(join(dir, "capture.json")));
  delete c.integrity;
  await Deno.writeTextFile(join(dir, "capture.json"), JSON.stringify(c, null, 2) + "\n");
  const b = await Deno.readFile(join(dir, "trace.txt"));
  for (let i = 0; i < 2000; i++) b[15_000 + i] = (i * 7919) % 256;
  await Deno.writeFile(join(dir, "trace.txt"), b);
  await assert.rejects(
    () => replayVerify(dir, Deno.makeTempDirSync()),
    ArtifactsDamagedError,
    "lines that are not trace lines",
  );
});
