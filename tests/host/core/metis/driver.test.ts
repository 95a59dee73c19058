// parseMetisDriver()/readMetisDriver(): which metis.ko generation sysfs shows. The
// parameter sets are those the two source trees declare (metis-core.c for 1.4.4,
// axl-aipu-core.c for 1.4.16 and 1.6.2, which declare the same ones); values as sysfs prints
// them, with their newlines.
import assert from "node:assert/strict";
import {
  parseMetisDriver,
  readMetisDriver,
  readSimMetisDriver,
} from "../../../../lib/core/metis/driver.ts";

const GEN_1 = { dma_timeout: "2\n", irq_timeout: "1\n", single_msi: "0\n", dma_poll: "0\n" };
const GEN_16 = {
  ...GEN_1,
  europa_veloce: "0\n",
  enable_sg_host_dma: "0\n",
  force_gen3_retrain: "0\n",
  dma_trace_entries: "4000\n",
};

/** A sysfs tree of files (path → text); directories are the prefixes. */
function tree(files: Record<string, string>) {
  return {
    readText: (p: string) => files[p],
    list: (d: string) => {
      const names = Object.keys(files).filter((p) => p.startsWith(`${d}/`))
        .map((p) => p.slice(d.length + 1).split("/")[0]!);
      return names.length ? [...new Set(names)].sort() : undefined;
    },
  };
}

Deno.test("parseMetisDriver() calls 1.6.2 with its parameters the 1.6.x driver", () => {
  const d = parseMetisDriver({ version: "1.6.2\n", parameters: GEN_16 });
  assert.deepEqual(
    [d.version, d.generation, d.dmaTraceRing, d.dmaTraceEntries, d.sgHostDma],
    ["1.6.2", "1.6.x", true, 4000, false],
  );
  assert.match(d.summary, /^metis\.ko 1\.6\.2: the 1\.6\.x driver \(axl-aipu-\*\.c/);
});

Deno.test("parseMetisDriver() calls 1.4.4 with 1.x's parameters the 1.x driver, without dma-trace", () => {
  const d = parseMetisDriver({ version: "1.4.4\n", parameters: GEN_1 });
  assert.deepEqual([d.generation, d.dmaTraceRing, d.dmaTraceEntries, d.sgHostDma], [
    "1.x",
    false,
    undefined,
    undefined,
  ]);
  assert.match(
    d.summary,
    /no DMA trace \(dma-statistics only\), eDMA descriptors written to card memory/,
  );
});

Deno.test("parseMetisDriver() calls 1.4.17 with 1.4.16's parameters the 1.4.x driver, with a DMA trace", () => {
  // 1.4.16's axl-aipu-core.c declares 1.6.2's parameters: only the version tells them apart.
  const d = parseMetisDriver({ version: "1.4.17\n", parameters: GEN_16 });
  assert.deepEqual(
    [d.version, d.generation, d.dmaTraceRing, d.dmaTraceEntries, d.sgHostDma],
    ["1.4.17", "1.4.x", true, 4000, false],
  );
  assert.match(d.summary, /^metis\.ko 1\.4\.17: the 1\.4\.x driver \(axl-aipu-\*\.c/);
  assert.match(d.summary, /dma-trace, 4000 entries/);
});

Deno.test("parseMetisDriver() places a version by its tree, and says when only the tree is known", () => {
  const aipu = parseMetisDriver({ version: "dev-build", parameters: GEN_16 });
  assert.deepEqual([aipu.generation, aipu.dmaTraceRing], ["axl-aipu", true]);
  assert.match(aipu.summary, /1\.4\.16 or later .*no version to say which/);
  assert.equal(parseMetisDriver({ version: "1.7.0" }).generation, "1.6.x");
  assert.equal(parseMetisDriver({ version: "1.5.1" }).generation, "1.5.x");
  assert.equal(parseMetisDriver({ version: "1.4.4" }).generation, "1.x");
  const none = parseMetisDriver({ srcversion: "ABC\n" });
  assert.equal(none.generation, "unknown");
  assert.equal(none.srcversion, "ABC");
  assert.match(none.summary, /srcversion ABC: driver generation unknown/);
});

Deno.test("readMetisDriver() reads /sys/module/metis, and nothing when it is absent", () => {
  const files: Record<string, string> = { "/sys/module/metis/srcversion": "F00\n" };
  for (const [k, v] of Object.entries({ ...GEN_16, enable_sg_host_dma: "1\n" })) {
    files[`/sys/module/metis/parameters/${k}`] = v;
  }
  const d = readMetisDriver(tree(files))!;
  assert.deepEqual([d.generation, d.sgHostDma, d.srcversion], ["axl-aipu", true, "F00"]);
  assert.match(d.summary, /in host memory \(enable_sg_host_dma=1\)/);
  assert.equal(readMetisDriver(tree({})), undefined);
});

Deno.test("readSimMetisDriver() reads the release axl.ko's node presents, captured from the rig", () => {
  // tests/fixtures/metis-sim/: /sys/class/misc/axl-metis-0-0-2 of the x86 6.12 guest, loaded
  // with metis_generation=1.4.17 and with the default (1.6.2).
  for (
    const [gen, want, n] of [["1.4.17", "1.4.x", 7], ["1.6.2", "1.6.x", 7], [
      "1.4.4",
      "1.x",
      4,
    ]] as const
  ) {
    const root = new URL(`../../../fixtures/metis-sim/${gen}/`, import.meta.url).pathname;
    const sys = {
      readText: (p: string) => {
        try {
          return Deno.readTextFileSync(root + p);
        } catch {
          return undefined;
        }
      },
      list: (d: string) => {
        try {
          return [...Deno.readDirSync(root + d)].map((e) => e.name).sort();
        } catch {
          return undefined;
        }
      },
    };
    const d = readSimMetisDriver("/dev/axl-metis-0-0-2", sys)!;
    assert.deepEqual([d.version, d.generation, d.simulated], [gen, want, true]);
    assert.equal(
      Object.keys(sys.list("/sys/class/misc/axl-metis-0-0-2/metis_parameters")!).length,
      n,
    );
    assert.match(
      d.summary,
      new RegExp(`^axl\\.ko's metis-sim presenting metis\\.ko ${gen.replaceAll(".", "\\.")}: `),
    );
  }
  assert.equal(readSimMetisDriver("/dev/axl-metis-0-0-2", tree({})), undefined);
});
