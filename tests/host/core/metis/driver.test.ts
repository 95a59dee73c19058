// parseMetisDriver()/readMetisDriver(): which metis.ko generation sysfs shows. The
// parameter sets are those the two source generations declare (metis-core.c for 1.x,
// axl-aipu-core.c for 1.6.x); values as sysfs prints them, with their newlines.
import assert from "node:assert/strict";
import { parseMetisDriver, readMetisDriver } from "../../../../lib/core/metis/driver.ts";

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

Deno.test("parseMetisDriver() calls 1.4.4 with 1.x's parameters the 1.x driver, without 1.6.x features", () => {
  const d = parseMetisDriver({ version: "1.4.4\n", parameters: GEN_1 });
  assert.deepEqual([d.generation, d.dmaTraceRing, d.dmaTraceEntries, d.sgHostDma], [
    "1.x",
    false,
    undefined,
    undefined,
  ]);
  assert.match(d.summary, /no DMA trace ring, eDMA descriptors written to card memory/);
});

Deno.test("parseMetisDriver() trusts the parameters over a version it cannot place", () => {
  assert.equal(parseMetisDriver({ version: "dev-build", parameters: GEN_16 }).generation, "1.6.x");
  assert.equal(parseMetisDriver({ version: "1.7.0" }).generation, "1.6.x");
  assert.equal(parseMetisDriver({ version: "1.5.1" }).generation, "1.x");
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
  assert.deepEqual([d.generation, d.sgHostDma, d.srcversion], ["1.6.x", true, "F00"]);
  assert.match(d.summary, /in host memory \(enable_sg_host_dma=1\)/);
  assert.equal(readMetisDriver(tree({})), undefined);
});
