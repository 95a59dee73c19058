// The Metis backend (lib/core/metis) against axl.ko's Metis-compatible node in the VM
// rig: metis.ko's ABI served on metis-sim, on QEMU's edu PCI device behind the
// Intel IOMMU, and on the platform stand-in (no IOMMU), where a system-heap buffer maps
// as several scatterlist entries and must transfer whole, as metis.ko moves it.
import assert from "node:assert/strict";
import { AxlError, Device, Heap, MetisDevice } from "../../mod.ts";
import { shim } from "../../lib/core/_shim.ts";
import { parseBufinfo } from "../../lib/trace/parse/bufinfo.ts";
import { AXL_PARAMS, withModuleParam } from "./_module_param.ts";

const BUFINFO = "/sys/kernel/debug/dma_buf/bufinfo";
const STATS = "/sys/kernel/debug/axl/stats";
const MIB = 1 << 20;
/** metis_xfer_us that keeps a transfer in flight far longer than the calls after it take. */
const SLOW_US = 2_000_000;

function attachedDevices(inode: number): string[] {
  const snap = parseBufinfo(Deno.readTextFileSync(BUFINFO));
  return snap.buffers.find((b) => b.inode === inode)?.devices ?? [];
}

/** A counter of axl.ko's debugfs stats ("imported": every map of a buffer, both nodes). */
function axlStat(name: string): number {
  const line = Deno.readTextFileSync(STATS).split("\n").find((l) => l.startsWith(`${name} `));
  if (line === undefined) throw new Error(`no '${name}' in ${STATS}`);
  return Number(line.slice(name.length + 1));
}

function random(bytes: Uint8Array, seed: number): void {
  let x = seed >>> 0 || 1;
  for (let i = 0; i < bytes.length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    bytes[i] = x & 0xff;
  }
}

/** The module file to reload: $AXL_KO or the VM rig's copy. */
function moduleFile(): string | undefined {
  const ko = Deno.env.get("AXL_KO") ?? "/run/axl/ctl/axl.ko";
  try {
    Deno.statSync(ko);
    return ko;
  } catch {
    return undefined;
  }
}

function run(cmd: string, args: string[]): void {
  const out = new Deno.Command(cmd, { args, stderr: "piped" }).outputSync();
  if (!out.success) {
    throw new Error(`${cmd} ${args.join(" ")}: ${new TextDecoder().decode(out.stderr)}`);
  }
}

/** Reloads axl.ko with `extra` parameters for `fn`, then with the parameters it had. */
async function withModule(ko: string, extra: string[], fn: () => Promise<void>): Promise<void> {
  const params = [...Deno.readDirSync(AXL_PARAMS)].map((e) =>
    `${e.name}=${Deno.readTextFileSync(`${AXL_PARAMS}/${e.name}`).trim()}`
  );
  const load = async (args: string[]) => {
    run("rmmod", ["axl"]);
    run("insmod", [ko, ...args]);
    for (let t = 0; t < 200 && MetisDevice.discover().length === 0; t++) {
      await new Promise((r) => setTimeout(r, 10)); // devtmpfs adds nodes asynchronously
    }
  };
  await load([...params, ...extra]);
  try {
    await fn();
  } finally {
    await load(params);
  }
}

Deno.test("MetisDevice.open() finds the simulator node by path and by PCI address", () => {
  const nodes = MetisDevice.discover();
  assert.equal(nodes.length, 1, `nodes: ${nodes}`);
  assert.match(nodes[0]!, /^\/dev\/axl-metis-[0-9a-f]+-[0-9a-f]+-[0-9a-f]+$/);
  using axl = Device.open();
  const pci = axl.info().device;
  using byPci = MetisDevice.open({ pci });
  assert.equal(byPci.path, nodes[0]);
  using dev = MetisDevice.open();
  assert.deepEqual(dev.properties(), { hwGen: 0, aicoreCount: 4, pveCoreCount: 0, pesGroup: -1 });
  const res = dev.resources();
  assert.equal(res.ddr[0]!.base, 0n);
  assert.ok(res.ddr[0]!.size >= 16n * BigInt(MIB), `card memory ${res.ddr[0]!.size}`);
  assert.throws(
    () => MetisDevice.open("0000:7f:1f.0"),
    (e) => e instanceof AxlError && e.code === "ENOENT" && /metis-0-7f-1f/.test(e.message),
  );
  assert.throws(
    () => MetisDevice.open("/dev/axl"),
    (e) =>
      e instanceof AxlError && e.code === "ENOTTY" && /metis\.ko's dma-buf ABI/.test(e.message),
  );
});

Deno.test("a heap frame goes to card memory and back with its bytes intact", async () => {
  const heap = Heap.open("system");
  const size = 640 * 480 * 3 / 2;
  using frame = heap.allocate(size, { name: "metis-frame" });
  using back = heap.allocate(size, { name: "metis-back" });
  {
    using a = frame.cpuAccess({ write: true });
    random(a.bytes, 15);
  }
  using tx = MetisDevice.open();
  using rx = MetisDevice.open();
  const stats0 = tx.dmaStats();
  const imported0 = axlStat("imported");
  tx.attach(frame);
  rx.attach(back);
  // one map per attach: nothing else (no layout probe through /dev/axl) maps the buffers
  const maps = axlStat("imported") - imported0;
  assert.equal(maps, 2, `${maps} maps for two attaches`);
  assert.ok(attachedDevices(frame.inode).length === 1, "bufinfo lists the card's device");

  const done = await tx.transfer({ direction: "to-card", card: 3 * MIB });
  assert.equal(done.size, frame.size);
  rx.transferSync({ direction: "from-card", card: 3 * MIB });
  {
    using a = frame.cpuAccess({ read: true });
    using b = back.cpuAccess({ read: true });
    assert.ok(a.bytes.every((v, i) => v === b.bytes[i]), "bytes differ after the round trip");
  }
  // a part, at offsets
  await tx.transfer({ direction: "to-card", card: 100, offset: 4096, size: 1000 });
  await rx.transfer({ direction: "from-card", card: 100, offset: 0, size: 1000 });
  {
    using a = frame.cpuAccess({ read: true });
    using b = back.cpuAccess({ read: true });
    assert.deepEqual(b.bytes.subarray(0, 1000), a.bytes.subarray(4096, 5096));
  }
  const stats1 = tx.dmaStats();
  const sum = (s: typeof stats0, k: "read" | "write") => s[k].reduce((n, c) => n + c.transfers, 0);
  assert.equal(sum(stats1, "write") - sum(stats0, "write"), 2);
  assert.equal(sum(stats1, "read") - sum(stats0, "read"), 2);
  assert.equal(tx.status(), "done");

  tx.detach();
  assert.deepEqual(attachedDevices(frame.inode), []);
});

Deno.test("a second attach on the same file is refused, by the backend and by the driver", () => {
  const heap = Heap.open("system");
  using a = heap.allocate(4096);
  using b = heap.allocate(4096);
  using dev = MetisDevice.open();
  dev.attach(a);
  assert.throws(
    () => dev.attach(b),
    (e) =>
      e instanceof AxlError && e.code === "EBUSY" &&
      /one buffer per open file/.test(e.message) && e.message.includes(`inode ${a.inode}`),
  );
  // the ioctl itself, past the backend's check
  assert.equal(shim().symbols.axl_shim_metis_attach(dev.fd, b.fd), -16);
  assert.equal(dev.attached, a);
  dev.detach();
  dev.attach(b);
});

Deno.test("detach while a transfer is in flight fails with EBUSY; after it, it succeeds", async () => {
  using buf = Heap.open("system").allocate(64 * 1024);
  using dev = MetisDevice.open();
  dev.attach(buf);
  await withModuleParam("metis_xfer_us", SLOW_US, async () => {
    const pending = dev.transfer({ direction: "to-card", card: 0 });
    assert.equal(dev.status(), "pending");
    assert.throws(
      () => dev.detach(),
      (e) => e instanceof AxlError && e.code === "EBUSY" && /in flight/.test(e.hint),
    );
    assert.throws(
      () => dev.transferSync({ direction: "from-card", card: 0 }),
      (e) => e instanceof AxlError && e.code === "EBUSY",
    );
    await pending;
  });
  dev.detach();
  assert.equal(dev.attached, undefined);
});

Deno.test("closing the device with a transfer in flight rejects it and leaves nothing attached", async () => {
  using buf = Heap.open("system").allocate(64 * 1024);
  const dev = MetisDevice.open();
  dev.attach(buf);
  await withModuleParam("metis_xfer_us", SLOW_US, async () => {
    const pending = dev.transfer({ direction: "to-card", card: 0 });
    dev.close();
    await assert.rejects(
      pending,
      (e) => e instanceof AxlError && e.code === "ECANCELED" && /closed/.test(e.message),
    );
  });
  for (let t = 0; t < 100 && attachedDevices(buf.inode).length; t++) {
    await new Promise((r) => setTimeout(r, 20));
  }
  assert.deepEqual(attachedDevices(buf.inode), []);
});

Deno.test("fences are refused: metis.ko completes through poll() only", () => {
  using dev = MetisDevice.open();
  assert.throws(
    () => dev.submit(),
    (e) => e instanceof AxlError && e.code === "EOPNOTSUPP" && /no dma_fence/.test(e.message),
  );
});

const ko = moduleFile();
Deno.test({
  name: "a scattered system-heap buffer attaches and transfers byte-exact (platform device)",
  ignore: ko === undefined,
  async fn() {
    await withModule(ko!, ["bind_pci=0", "metis_ll_max=4"], async () => {
      assert.deepEqual(MetisDevice.discover(), ["/dev/axl-metis-platform"]);
      const heap = Heap.open("system");
      // 3 order-8 chunks, 15 order-4, 15 order-0: 33 entries without an IOMMU
      const size = 3 * MIB + 15 * 65536 + 15 * 4096;
      using big = heap.allocate(size);
      using back = heap.allocate(size);
      {
        using a = big.cpuAccess({ write: true });
        random(a.bytes, 77);
      }
      using tx = MetisDevice.open();
      using rx = MetisDevice.open();
      tx.attach(big);
      rx.attach(back);
      await tx.transfer({ direction: "to-card", card: 0 });
      rx.transferSync({ direction: "from-card", card: 0 });
      assert.ok(tx.maxSegments() > 4, `${tx.maxSegments()} entries: not scattered`);
      {
        using a = big.cpuAccess({ read: true });
        using b = back.cpuAccess({ read: true });
        const at = a.bytes.findIndex((v, i) => v !== b.bytes[i]);
        assert.equal(at, -1, `byte ${at} of ${size} differs after the round trip`);
      }
    });
  },
});
