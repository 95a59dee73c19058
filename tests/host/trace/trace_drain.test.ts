// TraceDrain against a stand-in tracefs directory: a FIFO as `trace_pipe` (a reader blocks
// on it as on the kernel's) and `per_cpu/cpuN/stats` files saying how much is unread.
import assert from "node:assert/strict";
import { TraceDrain } from "../../../lib/trace/capture/trace_drain.ts";

async function fakeTracefs(entries: number): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "axl-drain-test-" });
  const mk = await new Deno.Command("mkfifo", { args: [`${dir}/trace_pipe`] }).output();
  assert.ok(mk.success, "mkfifo");
  for (const cpu of [0, 1]) {
    await Deno.mkdir(`${dir}/per_cpu/cpu${cpu}`, { recursive: true });
    await Deno.writeTextFile(
      `${dir}/per_cpu/cpu${cpu}/stats`,
      `entries: ${cpu === 0 ? entries : 0}\noverrun: 0\n`,
    );
  }
  return dir;
}

const LINES = "  <idle>-0  [000] d.h1.  12.000001: axl_job_submit: seqno=1\n" +
  "CPU:1 [LOST 3 EVENTS]\n";

Deno.test("TraceDrain copies everything written to trace_pipe and ends at its end", async () => {
  const dir = await fakeTracefs(0);
  const drain = TraceDrain.start({ dir, output: `${dir}/out.txt` });
  // Opening the FIFO for writing waits for cat to open it for reading.
  await Deno.writeTextFile(`${dir}/trace_pipe`, LINES.repeat(1000));
  const s = await drain.finish({ pollMs: 20 });
  assert.equal(s.ended, "eof");
  assert.equal(s.bytes, LINES.length * 1000);
  assert.equal(await Deno.readTextFile(`${dir}/out.txt`), LINES.repeat(1000));
  await Deno.remove(dir, { recursive: true });
});

Deno.test("TraceDrain.finish() returns when the reader ends, not after the rest of a poll", async () => {
  // Kernels that wake trace_pipe's readers when tracing stops end cat at the end of the data:
  // the verdict then waits for cat, not for the poll that would have noticed it.
  const dir = await fakeTracefs(0);
  const drain = TraceDrain.start({ dir, output: `${dir}/out.txt` });
  await Deno.writeTextFile(`${dir}/trace_pipe`, LINES);
  const t0 = performance.now();
  const s = await drain.finish({ pollMs: 10_000 });
  const ms = performance.now() - t0;
  assert.equal(s.ended, "eof");
  assert.equal(await Deno.readTextFile(`${dir}/out.txt`), LINES);
  assert.ok(ms < 2000, `finish() took ${Math.round(ms)} ms after cat ended (poll 10000 ms)`);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("TraceDrain ends a reader that waits forever once the buffers are empty", async () => {
  const dir = await fakeTracefs(0);
  const drain = TraceDrain.start({ dir, output: `${dir}/out.txt` });
  // A writer that stays open and idle: cat never sees the end, like trace_pipe on a kernel
  // that does not wake its readers when tracing stops.
  const writer = await Deno.open(`${dir}/trace_pipe`, { write: true });
  await writer.write(new TextEncoder().encode(LINES));
  const s = await drain.finish({ pollMs: 20 });
  assert.equal(s.ended, "idle");
  assert.equal(await Deno.readTextFile(`${dir}/out.txt`), LINES);
  writer.close();
  await Deno.remove(dir, { recursive: true });
});

Deno.test("TraceDrain stops a reader that may end at the same moment, without failing", async () => {
  // cat ends at the end of its input while finish() decides the buffers are idle and kills
  // it: kill() then finds it gone ("Child process has already terminated", which failed a
  // verify run on the arm64 debug kernel). The moment is left to chance, many times: before
  // the fix about one round in seven failed.
  const dir = await fakeTracefs(0);
  for (let round = 0; round < 200; round++) {
    const drain = TraceDrain.start({ dir, output: `${dir}/out.txt` });
    const writer = await Deno.open(`${dir}/trace_pipe`, { write: true });
    const closed = new Promise<void>((r) => setTimeout(() => r(writer.close()), round % 7));
    const s = await drain.finish({ pollMs: 1 });
    assert.equal(s.bytes, 0);
    await closed;
  }
  await Deno.remove(dir, { recursive: true });
});

Deno.test("TraceDrain waits while events are unread and fails with the count at its deadline", async () => {
  const dir = await fakeTracefs(42);
  const drain = TraceDrain.start({ dir, output: `${dir}/out.txt` });
  const writer = await Deno.open(`${dir}/trace_pipe`, { write: true });
  await assert.rejects(
    () => drain.finish({ pollMs: 20, timeoutMs: 200 }),
    /did not finish in 200 ms \(42 events still unread\)/,
  );
  writer.close();
  await Deno.remove(dir, { recursive: true });
});

Deno.test("TraceDrain.start names the missing trace_pipe", () => {
  assert.throws(
    () => TraceDrain.start({ dir: "/nonexistent-tracefs", output: "/dev/null" }),
    /cannot drain the trace: \/nonexistent-tracefs\/trace_pipe/,
  );
});
