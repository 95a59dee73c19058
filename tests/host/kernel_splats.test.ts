// The device suites' kernel-log check (tests/device/kernel_splats.sh): a splat fails the
// suite unless it is one of the known benign ones, which are shown instead. Fixtures are
// kernel logs of the rig's guests (see tests/fixtures/dmesg/README.md).
import assert from "node:assert/strict";

const root = new URL("../..", import.meta.url).pathname;
const fixture = (name: string) => `${root}tests/fixtures/dmesg/${name}`;

/** Runs kernel_splats on `file`; the lines it counts as splats and as benign. */
async function splatsOf(file: string): Promise<{ splats: string[]; ignored: string[] }> {
  const script = `source "${root}tests/device/kernel_splats.sh"; kernel_splats "$1"; ` +
    `printf '%s\\n' "$splats"; echo '--'; printf '%s\\n' "$ignored"`;
  const out = await new Deno.Command("bash", { args: ["-c", script, "bash", file] }).output();
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  const [splats, ignored] = new TextDecoder().decode(out.stdout).split("--\n");
  const lines = (t = "") => t.split("\n").filter(Boolean);
  return { splats: lines(splats), ignored: lines(ignored) };
}

async function withLog(text: string, fn: (file: string) => Promise<void>) {
  const file = await Deno.makeTempFile();
  try {
    await Deno.writeTextFile(file, text);
    await fn(file);
  } finally {
    await Deno.remove(file);
  }
}

Deno.test("vivid's DMA-API max_seg_size report on the arm64 debug kernel is benign, whole", async () => {
  const { splats, ignored } = await splatsOf(fixture("5.15-arm64-debug-vivid.txt"));
  assert.deepEqual(splats, [], "nothing of the report counts, not even its Call trace");
  assert.equal(ignored.length, 1);
  assert.match(ignored[0]!, /DMA-API: vivid vivid\.0: mapping sg segment longer/);
});

Deno.test("any other report in the same log still fails the suite", async () => {
  const log = await Deno.readTextFile(fixture("5.15-arm64-debug-vivid.txt"));
  const other = log.replaceAll("vivid vivid.0", "axl 0000:00:01.0");
  await withLog(other, async (file) => {
    const { splats } = await splatsOf(file);
    assert.ok(splats.some((l) => /WARNING: CPU/.test(l)), splats.join("\n"));
    assert.ok(splats.some((l) => /Call trace/.test(l)));
  });
});

Deno.test("vivid's negative-timeout stack dump on a starved guest is benign, whole", async () => {
  const { splats, ignored } = await splatsOf(fixture("6.12-vivid-schedule-timeout.txt"));
  assert.deepEqual(splats, []);
  assert.equal(ignored.length, 2);
  assert.match(ignored[0]!, /schedule_timeout: wrong timeout value/);
});

Deno.test("the same dump from anything but vivid's threads fails the suite", async () => {
  const log = await Deno.readTextFile(fixture("6.12-vivid-schedule-timeout.txt"));
  await withLog(log.replaceAll("vivid_thread_vid_cap", "axl_engine_thread"), async (file) => {
    const { splats, ignored } = await splatsOf(file);
    assert.equal(splats.filter((l) => /Call Trace/.test(l)).length, 2);
    assert.deepEqual(ignored, []);
  });
});

Deno.test("the boot-time RCU Tasks Rude flush_work WARN of the arm64 debug kernel is benign, whole", async () => {
  const { splats, ignored } = await splatsOf(fixture("5.15-arm64-debug-boot-rcu-tasks-rude.txt"));
  assert.deepEqual(splats, [], "nothing of the report counts, not even its Call trace");
  assert.equal(ignored.length, 1);
  assert.match(ignored[0]!, /WARNING: CPU: 0 PID: 12 at kernel\/workqueue\.c:3087 __flush_work/);
});

Deno.test("the same WARN from any other path still fails the suite", async () => {
  const log = await Deno.readTextFile(fixture("5.15-arm64-debug-boot-rcu-tasks-rude.txt"));
  await withLog(log.replaceAll("rcu_tasks_rude_wait_gp", "axl_files_revoke"), async (file) => {
    const { splats, ignored } = await splatsOf(file);
    assert.ok(splats.some((l) => /WARNING: CPU: 0 PID: 12 at kernel\/workqueue/.test(l)));
    assert.ok(splats.some((l) => /Call trace/.test(l)));
    assert.deepEqual(ignored, []);
  });
});

Deno.test("DMA-API's sync-direction reports from a dma-heap's CPU access are benign, whole", async () => {
  const { splats, ignored } = await splatsOf(fixture("5.15-arm64-debug-heap-sync-direction.txt"));
  assert.deepEqual(splats, [], "nothing of the reports counts, not even their Call traces");
  assert.equal(ignored.length, 5);
  for (const line of ignored) {
    assert.match(line, /DMA-API: (vivid vivid\.0|axl-metis-sim \S+): device driver syncs/);
  }
});

Deno.test("the same sync reports from anything but a heap's CPU access fail the suite", async () => {
  const log = await Deno.readTextFile(fixture("5.15-arm64-debug-heap-sync-direction.txt"));
  const direct = log.replaceAll(/cma_heap_dma_buf_(begin|end)_cpu_access/g, "axl_engine_sync_$1");
  await withLog(direct, async (file) => {
    const { splats, ignored } = await splatsOf(file);
    assert.equal(splats.filter((l) => /WARNING: CPU/.test(l)).length, 5);
    assert.deepEqual(ignored, []);
  });
});

Deno.test("another DMA-API report under a heap's CPU access still fails the suite", async () => {
  const log = await Deno.readTextFile(fixture("5.15-arm64-debug-heap-sync-direction.txt"));
  const other = log.replaceAll(
    "device driver syncs DMA memory with different direction",
    "device driver frees DMA memory with wrong function",
  );
  await withLog(other, async (file) => {
    const { splats, ignored } = await splatsOf(file);
    assert.equal(
      splats.filter((l) => /WARNING: CPU/.test(l)).length,
      3,
      "the three reports of that message",
    );
    assert.equal(ignored.length, 2);
  });
});

Deno.test("DMA-API's has-not-allocated reports from a dma-heap's CPU access beside an unmap are benign, whole", async () => {
  const { splats, ignored } = await splatsOf(fixture("5.15-arm64-debug-heap-sync-unmap-race.txt"));
  assert.deepEqual(splats, [], "nothing of the reports counts, not even their Call traces");
  assert.equal(ignored.length, 3);
  for (const line of ignored) {
    assert.match(
      line,
      /DMA-API: axl-metis-sim \S+: device driver tries to sync DMA memory it has not allocated/,
    );
  }
});

Deno.test("the same has-not-allocated reports from anything but a heap's CPU access fail the suite", async () => {
  const log = await Deno.readTextFile(fixture("5.15-arm64-debug-heap-sync-unmap-race.txt"));
  const direct = log.replaceAll(
    /system_heap_dma_buf_(begin|end)_cpu_access/g,
    "axl_engine_sync_$1",
  );
  await withLog(direct, async (file) => {
    const { splats, ignored } = await splatsOf(file);
    assert.equal(splats.filter((l) => /WARNING: CPU/.test(l)).length, 3);
    assert.deepEqual(ignored, []);
  });
});

/** The fixture's first two reports, their lines taken in turn as two CPUs print them. */
async function interleavedReports(): Promise<string[]> {
  const lines = (await Deno.readTextFile(fixture("5.15-arm64-debug-heap-sync-direction.txt")))
    .split("\n");
  const report = (k: number) => {
    const starts = lines.flatMap((l, i) => (/cut here/.test(l) ? [i] : []));
    const end = lines.findIndex((l, i) => i > starts[k]! && /---\[ end trace/.test(l));
    return lines.slice(starts[k]!, end + 1);
  };
  const [a, b] = [report(0), report(1)];
  return Array.from({ length: Math.max(a.length, b.length) }, (_, i) => [a[i], b[i]])
    .flat().filter((l): l is string => l !== undefined);
}

Deno.test("two benign reports printed at once by two CPUs are benign together", async () => {
  await withLog((await interleavedReports()).join("\n") + "\n", async (file) => {
    const { splats, ignored } = await splatsOf(file);
    assert.deepEqual(splats, []);
    assert.equal(ignored.length, 2);
  });
});

Deno.test("anything else inside two interleaved reports fails the suite", async () => {
  const lines = await interleavedReports();
  lines.splice(30, 0, "[  504.9] BUG: KASAN: use-after-free in axl_job_cleanup+0x30/0xe0 [axl]");
  await withLog(lines.join("\n") + "\n", async (file) => {
    const { splats, ignored } = await splatsOf(file);
    assert.ok(splats.some((l) => /BUG: KASAN/.test(l)), splats.join("\n"));
    assert.equal(splats.filter((l) => /WARNING: CPU/.test(l)).length, 2);
    assert.deepEqual(ignored, []);
  });
});

Deno.test("the Metis node's overlapping-mapping report at attach is benign, whole", async () => {
  const { splats, ignored } = await splatsOf(fixture("5.15-arm64-debug-metis-attach-eexist.txt"));
  assert.deepEqual(splats, []);
  assert.equal(ignored.length, 1);
  assert.match(ignored[0]!, /axl-metis-sim 0000:00:01\.0: cacheline tracking EEXIST/);
});

Deno.test("an overlapping-mapping report from any other mapping fails the suite", async () => {
  const log = await Deno.readTextFile(fixture("5.15-arm64-debug-metis-attach-eexist.txt"));
  await withLog(log.replaceAll("axl_metis_attach", "axl_import_map"), async (file) => {
    const { splats, ignored } = await splatsOf(file);
    assert.ok(splats.some((l) => /WARNING: CPU/.test(l)), splats.join("\n"));
    assert.deepEqual(ignored, []);
  });
});

Deno.test("splats outside a cut-here report count line by line; the ORC note does not", async () => {
  const log = [
    "[   10.1] WARNING: stack going in the wrong direction? at return_to_handler+0x0/0x40",
    "[   11.2] BUG: sleeping function called from invalid context at mm/slab.h:494",
    "[   12.3] possible circular locking dependency detected",
    "[   13.4] axl 0000:00:02.0: imported 1 buffer",
  ].join("\n");
  await withLog(log, async (file) => {
    const { splats, ignored } = await splatsOf(file);
    assert.equal(splats.length, 2);
    assert.match(ignored.join(), /stack going in the wrong direction/);
  });
});

Deno.test("a report cut off by the end of the log still counts", async () => {
  const log = "------------[ cut here ]------------\nWARNING: CPU: 0 PID: 1 at x.c:1 f+0x0/0x4\n";
  await withLog(log, async (file) => {
    assert.equal((await splatsOf(file)).splats.length, 1);
  });
});

Deno.test("a kernel log that does not start at boot is reported: its ring wrapped", async () => {
  const check = async (text: string) => {
    let result = { code: -1, out: "" };
    await withLog(text, async (file) => {
      const script = `source "${root}tests/device/kernel_splats.sh"; ` +
        `kernel_log_from_boot "$1" || { echo "$log_gap"; exit 1; }`;
      const out = await new Deno.Command("bash", { args: ["-c", script, "bash", file] }).output();
      result = { code: out.code, out: new TextDecoder().decode(out.stdout) };
    });
    return result;
  };
  const whole = await check("[    0.000000] Booting Linux on physical CPU 0x0\n[    1.5] x\n");
  assert.equal(whole.code, 0);
  const wrapped = await check("[  312.104551] axl 0000:00:01.0: imported\n");
  assert.equal(wrapped.code, 1);
  assert.match(wrapped.out, /^the kernel log starts at \[ {2}312\.104551\], not at boot/);
});
