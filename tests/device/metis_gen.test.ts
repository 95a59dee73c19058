// The metis.ko release axl.ko's node presents (metis_generation=): version and parameters
// where driver.ts reads them, and the card's own witness in debugfs — dma-trace and
// dma-statistics in 1.6.2's format on the releases whose source has them (1.4.16 on, so
// 1.4.17), dma-statistics alone on 1.4.4. With $AXL_RESULTS set, the sysfs and debugfs
// files are copied there as host fixtures (tests/fixtures/metis-sim/).
import assert from "node:assert/strict";
import { Heap, MetisDevice } from "../../mod.ts";
import { readSimMetisDriver } from "../../lib/core/metis/driver.ts";
import {
  findDmaTraceFiles,
  parseDmaStatistics,
  parseDmaTrace,
} from "../../lib/core/metis/dma_trace.ts";
import { AXL_PARAMS } from "./_module_param.ts";
import { metisInfo } from "../../lib/commands/info.ts";

const KO = Deno.env.get("AXL_KO") ?? "/run/axl/ctl/axl.ko";

function run(cmd: string, args: string[]): { ok: boolean; err: string } {
  const out = new Deno.Command(cmd, { args, stderr: "piped" }).outputSync();
  return { ok: out.success, err: new TextDecoder().decode(out.stderr) };
}

/** Reloads axl.ko with its parameters but metis_generation=`gen` (undefined: the default). */
async function load(gen: string | undefined): Promise<{ ok: boolean; err: string }> {
  const params = [...Deno.readDirSync(AXL_PARAMS)].filter((e) => e.name !== "metis_generation")
    .map((e) => `${e.name}=${Deno.readTextFileSync(`${AXL_PARAMS}/${e.name}`).trim()}`);
  const rm = run("rmmod", ["axl"]);
  if (!rm.ok) throw new Error(rm.err);
  const r = run("insmod", [KO, ...params, ...(gen ? [`metis_generation=${gen}`] : [])]);
  if (!r.ok) {
    const back = run("insmod", [KO, ...params]);
    if (!back.ok) throw new Error(back.err);
  }
  for (let t = 0; t < 200 && MetisDevice.discover().length === 0; t++) {
    await new Promise((res) => setTimeout(res, 10));
  }
  return r;
}

function capture(gen: string, node: string): void {
  const out = Deno.env.get("AXL_RESULTS");
  if (!out) return;
  const name = node.replace(/^\/dev\//, "");
  for (const sub of ["metis", "metis_parameters"]) {
    const from = `/sys/class/misc/${name}/${sub}`;
    const to = `${out}/metis-sim/${gen}/sys/class/misc/${name}/${sub}`;
    Deno.mkdirSync(to, { recursive: true });
    for (const e of Deno.readDirSync(from)) {
      Deno.writeTextFileSync(`${to}/${e.name}`, Deno.readTextFileSync(`${from}/${e.name}`));
    }
  }
  const files = findDmaTraceFiles(node)!;
  for (const f of [files.trace, files.statistics]) {
    if (f) {
      Deno.writeTextFileSync(
        `${out}/metis-sim/${gen}/${f.split("/").pop()}`,
        Deno.readTextFileSync(f),
      );
    }
  }
}

/** Two transfers to the card and one back, through the node. */
async function traffic(node: string, bytes: number): Promise<void> {
  using card = MetisDevice.open(node);
  using buf = Heap.open("system").allocate(bytes);
  card.attach(buf);
  await card.transfer({ direction: "to-card", card: 0 });
  card.transferSync({ direction: "to-card", card: bytes });
  card.transferSync({ direction: "from-card", card: 0 });
}

Deno.test("the node presents metis.ko 1.6.2 by default, 1.4.17 and 1.4.4 on request, with the card's DMA trace where the release has it", async () => {
  const t0 = performance.now();
  const bytes = 3 * 4096;
  try {
    for (
      const [gen, generation, params, hasTrace] of [
        [undefined, "1.6.x", 7, true],
        ["1.4.17", "1.4.x", 7, true],
        ["1.4.4", "1.x", 4, false],
      ] as const
    ) {
      const r = await load(gen);
      assert.ok(r.ok, r.err);
      const node = MetisDevice.discover()[0]!;
      const d = readSimMetisDriver(node)!;
      assert.equal(d.version, gen ?? "1.6.2");
      assert.deepEqual([d.generation, d.simulated, d.dmaTraceRing], [generation, true, hasTrace]);
      {
        // the shell's info on the node names the release too
        using card = MetisDevice.open(node);
        assert.match(
          metisInfo(card).driverVersion,
          new RegExp(
            `presenting metis\\.ko ${(gen ?? "1.6.2").replaceAll(".", "\\.")}: the ${
              generation.replaceAll(".", "\\.")
            } driver`,
          ),
        );
      }
      const names = [...Deno.readDirSync(`/sys/class/misc/${node.slice(5)}/metis_parameters`)];
      assert.equal(names.length, params);
      const files = findDmaTraceFiles(node);
      assert.ok(files?.statistics, `no dma-statistics for ${node}`);
      assert.equal(files.trace !== undefined, hasTrace);
      if (files.trace) {
        // writes are checked: an unknown command is refused, and changes nothing
        assert.throws(
          () => Deno.writeTextFileSync(files.trace!, "bogus\n"),
          /Invalid argument|os error 22/,
        );
        Deno.writeTextFileSync(files.trace, "enable\n");
        Deno.writeTextFileSync(files.trace, "reset\n");
      }
      Deno.writeTextFileSync(files.statistics, "1\n");
      assert.throws(
        () => Deno.writeTextFileSync(files.statistics!, "3\n"),
        /Invalid argument|os error 22/,
      );
      await traffic(node, bytes);
      const stats = parseDmaStatistics(Deno.readTextFileSync(files.statistics));
      assert.equal(stats.length, 8);
      const rd = stats.filter((s) => s.mode === "RD").reduce((a, s) => a + s.requests, 0);
      const wr = stats.filter((s) => s.mode === "WR").reduce((a, s) => a + s.requests, 0);
      assert.deepEqual([rd, wr], [2, 1], "RD counts transfers to the card, WR from it");
      if (files.trace) {
        const t = parseDmaTrace(Deno.readTextFileSync(files.trace));
        assert.deepEqual([t.enabled, t.total, t.overruns, t.size], [true, 3, 0, 4096]);
        assert.deepEqual(t.entries.map((e) => [e.mode, e.bytes]), [["RD", bytes], ["RD", bytes], [
          "WR",
          bytes,
        ]]);
        for (const e of t.entries) {
          assert.ok(e.requestNs <= e.workNs && e.workNs <= e.startNs && e.startNs <= e.endNs);
        }
        capture(gen ?? "1.6.2", node);
        Deno.writeTextFileSync(files.trace, "disable\n");
        Deno.writeTextFileSync(files.trace, "clear\n");
        const off = parseDmaTrace(Deno.readTextFileSync(files.trace));
        assert.deepEqual([off.enabled, off.entries.length, off.total], [false, 0, 3]);
      } else {
        capture(gen ?? "1.6.2", node);
      }
    }
    // a release the node does not know: the load fails
    const bad = await load("1.5.0");
    assert.equal(bad.ok, false);
  } finally {
    await load(undefined);
  }
  console.log(`metis_gen: ${((performance.now() - t0) / 1000).toFixed(1)} s`);
});
