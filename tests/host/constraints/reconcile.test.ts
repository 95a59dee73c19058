import { deepStrictEqual, ok, strictEqual, throws } from "node:assert/strict";
import type { AccessorConstraints, Allocation, Conflicts } from "../../../lib/constraints/types.ts";
import {
  describeConflicts,
  reconcile,
  ReconcileError,
  reconcileOrThrow,
} from "../../../lib/constraints/reconcile.ts";
import { jetsonRoles, vmRoles } from "../../../lib/constraints/roles.ts";
import { MOD_LINEAR, nvidia16Bx2Block } from "../../../lib/formats/mod.ts";
import { intIn, pick, seededRandom } from "../formats/_rand.ts";

const NV12_1080 = { kind: "image", format: "NV12", width: 1920, height: 1080 } as const;

function good(r: Allocation | Conflicts): Allocation {
  if (!r.ok) throw new Error(`unexpected conflicts:\n${describeConflicts(r)}`);
  return r;
}

function bad(r: Allocation | Conflicts): Conflicts {
  if (r.ok) throw new Error(`expected conflicts, got heap ${r.heap}`);
  return r;
}

Deno.test("reconcile() follows the design's heap table on the Jetson", () => {
  const r = jetsonRoles();
  strictEqual(good(reconcile([r["camera-isp"], r["npu-input"]], NV12_1080)).heap, "linux,cma");
  strictEqual(
    good(reconcile([r["npu-result"], r["cpu-reader"]], { kind: "raw", size: 4096 })).heap,
    "linux,cma",
  );
  strictEqual(good(reconcile([r.telemetry], { kind: "raw", size: 1 << 20 })).heap, "system");
  // With SMMU scatter-gather the result tensor no longer needs CMA.
  const sg = jetsonRoles({ npuScatterGather: true });
  const result = good(reconcile([sg["npu-result"], sg["cpu-reader"]], { kind: "raw", size: 4096 }));
  strictEqual(result.heap, "system");
  ok(
    result.reasons.some((x) => x.includes("npu-result map it through an IOMMU")),
    result.reasons.join("\n"),
  );
});

Deno.test("reconcile() sizes NV12 1920x1080 from the merged layout and rounds to pages", () => {
  const a = good(reconcile(
    [{ name: "isp", heightAlign: 16, strideAlign: 64 }, { name: "npu", strideAlign: 256 }],
    NV12_1080,
  ));
  strictEqual(a.layout!.paddedHeight, 1088);
  strictEqual(a.layout!.planes[0]!.stride, 2048);
  strictEqual(a.size, 2048 * 1088 + 2048 * 544);
  strictEqual(a.allocSize % 4096, 0);
  ok(a.allocSize >= a.size && a.allocSize - a.size < 4096);
  ok(
    a.reasons.some((x) => x.includes("stride x256 (npu), height padded to 1088 rows (isp)")),
    a.reasons.join("\n"),
  );
  strictEqual(a.modifier, MOD_LINEAR);
});

Deno.test("reconcile() merges alignment to the largest power of two and access to the union", () => {
  const a = good(reconcile([
    { name: "a", alignment: 64, cpuAccess: "read", deviceAccess: "read" },
    { name: "b", alignment: 4096, cpuAccess: "write", deviceAccess: "read" },
    { name: "c", alignment: 4096 },
  ], { kind: "raw", size: 100 }));
  strictEqual(a.alignment, 4096);
  strictEqual(a.cpuAccess, "readwrite");
  strictEqual(a.deviceAccess, "readwrite");
  ok(a.reasons.includes("alignment 4096 bytes (b, c)"));
  strictEqual(
    good(reconcile([{ name: "x", deviceAccess: "read" }], { kind: "raw", size: 1 })).deviceAccess,
    "read",
  );
});

Deno.test("reconcile() reports disjoint heap lists, naming both accessors", () => {
  const c = bad(
    reconcile([{ name: "isp", heaps: ["linux,cma"] }, { name: "log", heaps: ["system"] }], {
      kind: "raw",
      size: 4096,
    }),
  );
  strictEqual(c.conflicts[0]!.attribute, "heap");
  deepStrictEqual(c.conflicts[0]!.accessors, [{ name: "isp", value: "linux,cma" }, {
    name: "log",
    value: "system",
  }]);
});

Deno.test("reconcile() says when the needed heap is not on the machine (the VM has no CMA heap)", () => {
  const r = jetsonRoles();
  const c = bad(
    reconcile([r["camera-isp"], r["npu-input"]], NV12_1080, { availableHeaps: ["system"] }),
  );
  strictEqual(c.conflicts[0]!.attribute, "heap");
  ok(c.conflicts[0]!.message.includes("/dev/dma_heap has system"), c.conflicts[0]!.message);
});

Deno.test("reconcile() reports contiguity against scatter-gather-only accessors and missing CMA", () => {
  const c = bad(reconcile(
    [{ name: "isp", contiguity: "physical" }, { name: "telemetry", heaps: ["system"] }],
    { kind: "raw", size: 4096 },
  ));
  strictEqual(c.conflicts[0]!.attribute, "contiguity");
  deepStrictEqual(c.conflicts[0]!.accessors.map((a) => a.name), ["isp", "telemetry"]);
  ok(
    c.conflicts[0]!.message.includes(
      "isp (physically contiguous) needs physically contiguous memory",
    ),
  );
  const noCma = bad(reconcile([{ name: "npu", contiguity: "dma" }], { kind: "raw", size: 4096 }, {
    availableHeaps: ["system"],
  }));
  ok(
    noCma.conflicts[0]!.message.includes("no contiguous heap is available"),
    noCma.conflicts[0]!.message,
  );
  // Behind an IOMMU the same accessor is fine with the system heap.
  strictEqual(
    good(reconcile([{ name: "npu", contiguity: "dma", iommu: true }], { kind: "raw", size: 4096 }, {
      availableHeaps: ["system"],
    })).heap,
    "system",
  );
});

Deno.test("reconcile() checks alignment beyond a page against what each heap guarantees", () => {
  const c = bad(reconcile([{ name: "dsp", alignment: 65536 }], { kind: "raw", size: 1 << 20 }, {
    availableHeaps: ["system"],
  }));
  strictEqual(c.conflicts[0]!.attribute, "alignment");
  ok(
    c.conflicts[0]!.message.includes(
      "dsp needs 65536-byte alignment; system guarantees at most 4096",
    ),
  );
  // CMA aligns to the size's order, capped at 1 MiB.
  strictEqual(
    good(reconcile([{ name: "dsp", alignment: 65536 }], { kind: "raw", size: 1 << 20 })).heap,
    "linux,cma",
  );
  bad(
    reconcile([{ name: "dsp", alignment: 1 << 21, heaps: ["linux,cma"] }], {
      kind: "raw",
      size: 8 << 20,
    }),
  );
  bad(
    reconcile([{ name: "dsp", alignment: 65536, heaps: ["linux,cma"] }], {
      kind: "raw",
      size: 8192,
    }),
  );
});

Deno.test("reconcile() requires one format and one modifier every accessor takes", () => {
  const fmt = bad(
    reconcile(
      [{ name: "isp", formats: ["NV12"] }, { name: "npu", formats: ["RGB888", "BGR888"] }],
      NV12_1080,
    ),
  );
  strictEqual(fmt.conflicts[0]!.attribute, "format");
  ok(fmt.conflicts[0]!.message.includes("NV12 is not handled by npu (takes RGB888, BGR888)"));
  const bl = nvidia16Bx2Block(4);
  const mod = bad(reconcile([{ name: "isp", modifiers: [bl] }, { name: "npu" }], NV12_1080));
  strictEqual(mod.conflicts[0]!.attribute, "modifier");
  ok(
    mod.conflicts[0]!.message.includes(
      "isp takes NVIDIA_16BX2_BLOCK_SIXTEEN_GOB; npu takes LINEAR",
    ),
  );
  const both = good(
    reconcile([{ name: "isp", modifiers: [bl, MOD_LINEAR] }, {
      name: "gpu",
      modifiers: [MOD_LINEAR, bl],
    }], NV12_1080),
  );
  strictEqual(both.modifier, bl);
  strictEqual(both.layout!.planes[0]!.rows, 1152);
  const forced = bad(reconcile([{ name: "npu" }], { ...NV12_1080, modifier: bl }));
  ok(forced.conflicts[0]!.message.includes("not taken by npu (takes LINEAR)"));
});

Deno.test("reconcile() enforces maxSize: a 1080p frame is too big for vivid's dma-contig path in the VM", () => {
  const r = vmRoles();
  const c = bad(
    reconcile([r["camera-isp"], r["npu-input"]], NV12_1080, { availableHeaps: ["system"] }),
  );
  strictEqual(c.conflicts[0]!.attribute, "size");
  ok(c.conflicts[0]!.message.includes("takes at most 1048576"));
  const vga = good(
    reconcile([r["camera-isp"], r["npu-input"]], {
      kind: "image",
      format: "NV12",
      width: 640,
      height: 480,
    }, {
      availableHeaps: ["system"],
    }),
  );
  strictEqual(vga.heap, "system");
  strictEqual(vga.size, 460800);
});

Deno.test("reconcile() lists every conflict at once", () => {
  const c = bad(reconcile([
    { name: "isp", heaps: ["linux,cma"], formats: ["NV12"], maxSize: 4096 },
    { name: "log", heaps: ["system"] },
  ], { kind: "image", format: "YUYV", width: 64, height: 64 }));
  deepStrictEqual(c.conflicts.map((x) => x.attribute), ["format", "heap"]);
  const text = describeConflicts(c);
  ok(text.split("\n").length === 2 && text.startsWith("format: YUYV is not handled by isp"));
});

Deno.test("reconcile() rejects malformed constraints with TypeError/RangeError", () => {
  const raw = { kind: "raw", size: 10 } as const;
  throws(() => reconcile([], raw), TypeError);
  throws(() => reconcile([{ name: "" }], raw), TypeError);
  throws(() => reconcile([{ name: "a" }, { name: "a" }], raw), /listed twice/);
  throws(
    () => reconcile([{ name: "a", alignment: 48 }], raw),
    /a: alignment must be a power of two, got 48/,
  );
  throws(() => reconcile([{ name: "a", heightAlign: 0 }], raw), RangeError);
  throws(
    () => reconcile([{ name: "a", heaps: ["carveout"] }], raw),
    /unknown heap "carveout".*options\.heaps/,
  );
  throws(() => reconcile([{ name: "a", formats: ["NV99"] }], raw), /unknown pixel format/);
  // deno-lint-ignore no-explicit-any
  throws(() => reconcile([{ name: "a", contiguity: "maybe" as any }], raw), /contiguity/);
  // deno-lint-ignore no-explicit-any
  throws(() => reconcile([{ name: "a", cpuAccess: "rw" as any }], raw), /cpuAccess/);
  throws(() => reconcile([{ name: "a", maxSize: -1 }], raw), /maxSize/);
  // deno-lint-ignore no-explicit-any
  throws(() => reconcile([{ name: "a", modifiers: [0 as any] }], raw), TypeError);
  throws(() => reconcile([{ name: "a" }], { kind: "raw", size: 0 }), RangeError);
  throws(
    () => reconcile([{ name: "a" }], { kind: "image", format: "NV12", width: 0, height: 1 }),
    RangeError,
  );
  // deno-lint-ignore no-explicit-any
  throws(() => reconcile([{ name: "a" }], { kind: "blob" } as any), TypeError);
  throws(() => reconcile([{ name: "a" }], raw, { pageSize: 1000 }), /pageSize/);
});

Deno.test("reconcileOrThrow() throws ReconcileError carrying the conflicts", () => {
  try {
    reconcileOrThrow([{ name: "isp", heaps: ["linux,cma"] }, { name: "log", heaps: ["system"] }], {
      kind: "raw",
      size: 1,
    });
    throw new Error("no throw");
  } catch (e) {
    ok(e instanceof ReconcileError);
    strictEqual(e.conflicts[0]!.attribute, "heap");
    ok(e.message.startsWith("buffer constraints conflict:\nheap: "));
  }
});

Deno.test("reconcile() invariants hold for random accessor sets", () => {
  const { seed, next } = seededRandom("reconcile");
  const heapsPool = [undefined, ["system"], ["linux,cma"], ["system", "linux,cma"], [
    "reserved",
    "linux,cma",
  ]];
  for (let i = 0; i < 3000; i++) {
    const accessors: AccessorConstraints[] = [];
    for (let k = intIn(next, 1, 4); k > 0; k--) {
      accessors.push({
        name: `a${k}`,
        contiguity: pick(next, [undefined, "none", "physical", "dma"] as const),
        iommu: pick(next, [undefined, true, false]),
        alignment: pick(next, [undefined, 1, 64, 4096, 65536]),
        heaps: pick(next, heapsPool),
        cpuAccess: pick(next, [undefined, "none", "read", "readwrite"] as const),
        maxSize: pick(next, [undefined, undefined, 1 << 20]),
        strideAlign: pick(next, [undefined, 16, 256]),
        heightAlign: pick(next, [undefined, 2, 16]),
      });
    }
    const available = pick(next, [undefined, ["system"], ["system", "linux,cma"]]);
    const request = next() < 0.5 ? { kind: "raw" as const, size: intIn(next, 1, 4 << 20) } : {
      kind: "image" as const,
      format: pick(next, ["NV12", "YUYV", "XRGB8888"]),
      width: intIn(next, 1, 2000),
      height: intIn(next, 1, 1200),
    };
    const r = reconcile(accessors, request, { availableHeaps: available });
    const msg = `AXL_TEST_SEED=${seed}: ${JSON.stringify({ accessors, request, available })}`;
    if (r.ok) {
      for (const a of accessors) {
        ok(a.heaps === undefined || a.heaps.includes(r.heap), msg);
        ok(r.alignment >= (a.alignment ?? 1) && r.alignment % (a.alignment ?? 1) === 0, msg);
        if (a.contiguity === "physical" || (a.contiguity === "dma" && !a.iommu)) {
          ok(r.contiguous, msg);
        }
        ok(a.maxSize === undefined || r.allocSize <= a.maxSize, msg);
      }
      ok(available === undefined || available.includes(r.heap), msg);
      ok(r.allocSize >= r.size && r.allocSize % 4096 === 0, msg);
    } else {
      ok(r.conflicts.length > 0, msg);
      for (const c of r.conflicts) {
        ok(c.message.length > 0, msg);
        for (const a of c.accessors) ok(accessors.some((x) => x.name === a.name), msg);
      }
    }
  }
});
