// The C device tests' own kernel-log check (kmsg_scan_splats() in tests/device/c/axl_util.c)
// leaves out the same heap-sync reports as the suites' check (tests/device/kernel_splats.sh)
// and counts everything else. Built for the host and fed the kernel logs of the fixtures.
import assert from "node:assert/strict";

const root = new URL("../..", import.meta.url).pathname;
const fixture = (name: string) => `${root}tests/fixtures/dmesg/${name}`;
const heapSync = fixture("5.15-arm64-debug-heap-sync-direction.txt");

let feeder: string | undefined;

/** Builds the feeder once: tests/host/kmsg_feed.c with the C tests' util. */
async function build(): Promise<string> {
  if (feeder) return feeder;
  const dir = `${root}build/host-tests`;
  await Deno.mkdir(dir, { recursive: true });
  const out = await new Deno.Command("cc", {
    args: [
      "-std=gnu11",
      "-O1",
      "-pthread",
      `-I${root}kernel/include/uapi`,
      `-I${root}tests/device/c`,
      "-o",
      `${dir}/kmsg_feed`,
      `${root}tests/host/kmsg_feed.c`,
      `${root}tests/device/c/axl_util.c`,
    ],
  }).output();
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  return feeder = `${dir}/kmsg_feed`;
}

/** The splat count and first splat kmsg_scan_splats() gives for `text`. */
async function scan(text: string): Promise<{ hits: number; first: string }> {
  const log = await Deno.makeTempFile();
  try {
    await Deno.writeTextFile(log, text);
    const out = await new Deno.Command(await build(), { args: [log] }).output();
    assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
    const [hits, ...first] = new TextDecoder().decode(out.stdout).split("\n");
    return { hits: Number(hits), first: first.join("\n") };
  } finally {
    await Deno.remove(log);
  }
}

Deno.test("the C tests' log scan leaves out DMA-API sync reports from a heap's CPU access", async () => {
  assert.deepEqual(await scan(await Deno.readTextFile(heapSync)), { hits: 0, first: "" });
});

Deno.test("the same reports from anything but a heap's CPU access count", async () => {
  const log = (await Deno.readTextFile(heapSync)).replaceAll(
    /cma_heap_dma_buf_(begin|end)_cpu_access/g,
    "axl_engine_sync_$1",
  );
  const { hits, first } = await scan(log);
  assert.equal(hits, 10, "cut here and WARNING of each of the five reports");
  assert.match(first, /cut here/);
});

Deno.test("the C tests' log scan leaves out has-not-allocated reports from a heap's CPU access", async () => {
  const race = fixture("5.15-arm64-debug-heap-sync-unmap-race.txt");
  assert.deepEqual(await scan(await Deno.readTextFile(race)), { hits: 0, first: "" });
  const direct = (await Deno.readTextFile(race)).replaceAll(
    /system_heap_dma_buf_(begin|end)_cpu_access/g,
    "axl_engine_sync_$1",
  );
  const { hits } = await scan(direct);
  assert.equal(
    hits,
    6,
    "cut here and WARNING of each of the three reports, from anything but a heap",
  );
});

Deno.test("the C tests' log scan judges two interleaved reports together", async () => {
  const lines = (await Deno.readTextFile(heapSync)).split("\n");
  const starts = lines.flatMap((l, i) => (/cut here/.test(l) ? [i] : []));
  const [a, b] = [lines.slice(starts[0]!, starts[1]!), lines.slice(starts[1]!, starts[2]!)];
  const mixed = Array.from({ length: Math.max(a.length, b.length) }, (_, i) => [a[i], b[i]])
    .flat().filter((l): l is string => l !== undefined);
  assert.equal((await scan(mixed.join("\n") + "\n")).hits, 0);
  mixed.splice(30, 0, "[  504.9] BUG: KASAN: use-after-free in axl_job_cleanup+0x30/0xe0 [axl]");
  assert.equal((await scan(mixed.join("\n") + "\n")).hits, 5, "both reports and the KASAN line");
});

Deno.test("reports the C tests have no rule for count whole", async () => {
  const { hits } = await scan(await Deno.readTextFile(fixture("5.15-arm64-debug-vivid.txt")));
  assert.equal(hits, 2);
});
