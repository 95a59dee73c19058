// Axelera's metis.ko next to (or instead of) our axl.ko, on the captured VM tree with the
// facts of a Jetson + Metis laid over it. There is no capture from a Metis card: the
// attribute formats are drivers/pci/pci-sysfs.c's, the names are metis.ko's (pci_driver
// "axl", class "metis", nodes /dev/metis-<domain>-<bus>-<slot>).
import assert from "node:assert/strict";
import { checkMetisKo, findMetisKo } from "../../../lib/doctor/metis_ko.ts";
import { checkNpuPci } from "../../../lib/doctor/pci.ts";
import { runDoctor } from "../../../lib/doctor/run.ts";
import { chooseImporter } from "../../../lib/verify/evidence/importer.ts";
import { overlay, type Override, statuses, vmContext } from "./_helpers.ts";

const CARD = "/sys/bus/pci/devices/0004:01:00.0";

/** metis.ko 1.6.2's parameters (axl-aipu-core.c), as sysfs shows them. */
const PARAMS_1_6: Record<string, string> = {
  dma_timeout: "2",
  irq_timeout: "1",
  single_msi: "0",
  dma_poll: "0",
  europa_veloce: "0",
  enable_sg_host_dma: "0",
  force_gen3_retrain: "0",
  dma_trace_entries: "4000",
};
/** metis.ko 1.4.x's parameters (metis-core.c). */
const PARAMS_1_4: Record<string, string> = {
  dma_timeout: "2",
  irq_timeout: "1",
  single_msi: "0",
  dma_poll: "0",
};

function jetsonWithMetis(
  o: {
    speed?: string;
    width?: string;
    withAxl?: boolean;
    version?: string | null;
    params?: Record<string, string>;
  } = {},
) {
  const params = o.params ?? PARAMS_1_4;
  const version = o.version === undefined ? "1.4.2" : o.version;
  const over: Record<string, Override> = {
    "/sys/module/metis": {
      dir: [...(version === null ? [] : ["version"]), "drivers", "parameters", "srcversion"],
    },
    ...(version === null ? {} : { "/sys/module/metis/version": { text: `${version}\n` } }),
    "/sys/module/metis/srcversion": { text: "4F3A2B1C0D9E8F7A6B5C4D3\n" },
    "/sys/module/metis/parameters": { dir: Object.keys(params) },
    ...Object.fromEntries(
      Object.entries(params).map((
        [k, v],
      ) => [`/sys/module/metis/parameters/${k}`, { text: `${v}\n` }]),
    ),
    [`${CARD}/vendor`]: { text: "0x1f9d\n" },
    [`${CARD}/device`]: { text: "0x1100\n" },
    [`${CARD}/driver`]: { link: "../../../bus/pci/drivers/axl" },
    [`${CARD}/iommu_group`]: { link: "../../../kernel/iommu_groups/5" },
    [`${CARD}/current_link_speed`]: { text: `${o.speed ?? "8.0 GT/s PCIe"}\n` },
    [`${CARD}/current_link_width`]: { text: `${o.width ?? "4"}\n` },
    "/dev/metis-0004-01-00": { text: "" },
  };
  if (!o.withAxl) {
    // No axl.ko: nothing bound to axl-metis-sim, no /dev/axl, no /sys/module/axl.
    over["/sys/bus/pci/devices/0000:00:02.0/driver"] = { remove: true };
    over["/dev/axl"] = { remove: true };
    over["/sys/module/axl"] = { remove: true };
  }
  return vmContext({ overrides: over });
}

Deno.test("findMetisKo() sees nothing of metis.ko on the VM tree with axl.ko", () => {
  assert.equal(findMetisKo(vmContext().sys), undefined);
  assert.deepEqual(checkMetisKo(vmContext()), []);
});

Deno.test("checkMetisKo() names Axelera's driver, its functions, nodes, link and limits", () => {
  const ctx = jetsonWithMetis();
  const found = findMetisKo(ctx.sys)!;
  assert.equal(found.driver?.generation, "1.x");
  delete found.driver;
  assert.deepEqual(found, {
    loaded: true,
    version: "1.4.2",
    functions: [{
      address: "0004:01:00.0",
      vendor: 0x1f9d,
      device: 0x1100,
      driver: "axl",
      iommuGroup: "5",
      linkSpeed: "8.0 GT/s PCIe",
      linkWidth: "4",
    }],
    nodes: ["/dev/metis-0004-01-00"],
  });
  const r = checkMetisKo(ctx);
  assert.deepEqual(statuses(r), {
    "metis.module": "ok",
    "metis.functions": "ok",
    "metis.nodes": "ok",
    "metis.zero-copy": "ok",
  });
  assert.match(r[0]!.message, /^metis\.ko 1\.4\.2 is loaded \(Axelera's driver, not axl's/);
  assert.match(
    r[0]!.message,
    /the 1\.x driver \(metis-\*\.c, by version 1\.4\.2, parameters without enable_sg_host_dma or dma_trace_entries\): no DMA trace \(dma-statistics only\)/,
  );
  assert.match(
    r[1]!.message,
    /0004:01:00\.0 bound to metis\.ko: link 8\.0 GT\/s PCIe x4 .*IOMMU group 5/,
  );
  assert.match(
    r[3]!.message,
    /maps the whole of an attached dma-buf.*walks every scatterlist entry.*one attached buffer per open file/,
  );
  assert.doesNotMatch(r[3]!.message, /truncat|first scatterlist segment|contiguous/);
  assert.match(r[3]!.message, /axl verify --importer 0004:01:00\.0/);
  // pci.ts's own NPU check says whose driver "axl" is.
  assert.match(checkNpuPci(ctx)[0]!.message, /driver axl \(Axelera's metis\.ko\)$/);
});

Deno.test("checkMetisKo() says which metis.ko generation is loaded, by parameters or by version", () => {
  const gen16 = checkMetisKo(jetsonWithMetis({ version: "1.6.2", params: PARAMS_1_6 }));
  assert.match(
    gen16[0]!.message,
    /metis\.ko 1\.6\.2 is loaded .*the 1\.6\.x driver \(axl-aipu-\*\.c, by version 1\.6\.2, parameter enable_sg_host_dma, dma_trace_entries\): a DMA trace in debugfs \(dma-trace, 4000 entries\) beside dma-statistics, eDMA descriptors built in card memory \(enable_sg_host_dma=0\)/,
  );
  // no MODULE_VERSION: the parameters still tell, and srcversion names the build
  const hostDma = findMetisKo(
    jetsonWithMetis({ version: null, params: { ...PARAMS_1_6, enable_sg_host_dma: "1" } }).sys,
  )!;
  assert.equal(hostDma.version, "4F3A2B1C0D9E8F7A6B5C4D3");
  // 1.4.16 declares 1.6.2's parameters: without a version only the source tree is known
  assert.equal(hostDma.driver?.generation, "axl-aipu");
  assert.equal(hostDma.driver?.sgHostDma, true);
  assert.match(hostDma.driver!.summary, /in host memory \(enable_sg_host_dma=1\)/);
  const old = findMetisKo(jetsonWithMetis({ version: null }).sys)!;
  assert.equal(old.driver?.generation, "1.x");
  assert.equal(old.driver?.dmaTraceRing, false);
  // 1.4.17 (Voyager 1.6.1's pin) with 1.4.16's parameters: the 1.4.x driver, with dma-trace
  const pinned = findMetisKo(jetsonWithMetis({ version: "1.4.17", params: PARAMS_1_6 }).sys)!;
  assert.deepEqual([pinned.driver?.generation, pinned.driver?.dmaTraceRing], ["1.4.x", true]);
  assert.match(pinned.driver!.summary, /^metis\.ko 1\.4\.17: the 1\.4\.x driver \(axl-aipu-\*\.c/);
  assert.match(old.driver!.basis, /parameters without enable_sg_host_dma or dma_trace_entries/);
});

Deno.test("checkMetisKo() warns on GET_USER_PA when the card's IOMMU group translates", () => {
  const ctx = jetsonWithMetis({ version: "1.6.2", params: PARAMS_1_6 });
  const userPa = (over: Record<string, Override>) =>
    checkMetisKo({ ...ctx, sys: overlay(ctx.sys, over) }).find((x) => x.id === "metis.user-pa");
  const dma = userPa({ "/sys/kernel/iommu_groups/5/type": { text: "DMA-FQ\n" } })!;
  assert.equal(dma.status, "warn");
  assert.match(
    dma.message,
    /^metis\.ko 1\.6\.2 serves GET_USER_PA \('U', 50\), which answers with page_to_phys\(\): a CPU physical address, but 0004:01:00\.0 \(IOMMU group 5, DMA-FQ domain\) sits behind an IOMMU/,
  );
  assert.match(dma.fix!, /DMA_ATTACH maps the buffer through the IOMMU/);
  // A capture without the group's type: the group alone is enough to warn, and says so.
  assert.match(userPa({})!.message, /IOMMU group 5, domain type unread/);
  assert.equal(userPa({})!.status, "warn");
  // Identity domain, or no IOMMU group: the physical address is the bus address.
  const identity = userPa({ "/sys/kernel/iommu_groups/5/type": { text: "identity\n" } })!;
  assert.equal(identity.status, "ok");
  assert.match(identity.message, /no Metis function is behind a translating IOMMU/);
  assert.equal(userPa({ [`${CARD}/iommu_group`]: { remove: true } })!.status, "ok");
});

Deno.test("checkMetisKo() says nothing of GET_USER_PA for the versions without it", () => {
  const userPa = (o: Parameters<typeof jetsonWithMetis>[0]) =>
    checkMetisKo(jetsonWithMetis(o)).find((x) => x.id === "metis.user-pa");
  assert.equal(userPa({ version: "1.4.17" }), undefined);
  assert.equal(userPa({ version: "1.5.6", params: PARAMS_1_6 }), undefined);
  assert.equal(userPa({ version: null }), undefined); // the 1.x generation by its parameters
  // The 1.6.x generation with no version: it may have it.
  const unknown = userPa({ version: null, params: PARAMS_1_6 })!;
  assert.equal(unknown.status, "warn");
  assert.match(
    unknown.message,
    /^metis\.ko \(no version; an axl-aipu-\*\.c driver, 1\.4\.16 or later, by its parameter/,
  );
  assert.match(unknown.message, /may serve GET_USER_PA/);
});

Deno.test("checkMetisKo() warns on a link below Gen3 x4 and on missing nodes", () => {
  const slow = checkMetisKo(jetsonWithMetis({ speed: "5.0 GT/s PCIe", width: "2" }));
  assert.equal(slow.find((x) => x.id === "metis.functions")?.status, "warn");
  const ctx = jetsonWithMetis();
  const noNode = checkMetisKo({
    ...ctx,
    sys: overlay(ctx.sys, { "/dev/metis-0004-01-00": { remove: true } }),
  });
  assert.equal(noNode.find((x) => x.id === "metis.nodes")?.status, "warn");
});

Deno.test("runDoctor() on a Jetson with metis.ko and no axl.ko: axl's driver check fails on its own terms", () => {
  const r = runDoctor(jetsonWithMetis());
  const driver = r.find((x) => x.id === "driver")!;
  assert.equal(driver.status, "fail");
  assert.match(driver.message, /axl\.ko is not loaded/);
  assert.ok(r.some((x) => x.id === "metis.module" && x.status === "ok"));
});

Deno.test("chooseImporter() takes the axl device, else metis.ko's function, else asks for --importer", () => {
  const ours = chooseImporter(vmContext().sys, {});
  assert.deepEqual(ours, {
    name: "0000:00:02.0",
    axl: true,
    reason: "the axl device (axl.ko, PCI driver axl-metis-sim)",
  });
  const metis = chooseImporter(jetsonWithMetis().sys, {});
  assert.equal(metis.name, "0004:01:00.0");
  assert.equal(metis.axl, false, "metis.ko's PCI driver 'axl' is not our axl device");
  assert.match(metis.reason, /Axelera's metis\.ko/);
  // Both loaded: ours is the default, the card is one --importer away.
  assert.equal(chooseImporter(jetsonWithMetis({ withAxl: true }).sys, {}).axl, true);
  assert.deepEqual(
    chooseImporter(jetsonWithMetis({ withAxl: true }).sys, { explicit: "0004:01:00.0" }),
    {
      name: "0004:01:00.0",
      axl: false,
      reason: "--importer",
    },
  );
  const bare = vmContext({
    overrides: { "/sys/bus/pci/devices/0000:00:02.0/driver": { remove: true } },
  });
  assert.equal(chooseImporter(bare.sys, {}).name, null);
  assert.throws(() => chooseImporter(bare.sys, { explicit: "two words" }), TypeError);
});
