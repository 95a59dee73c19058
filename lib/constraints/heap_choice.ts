/**
 * Choosing the heap of a reconciled buffer: the heaps every accessor accepts, narrowed to
 * those present, then to contiguous ones when someone needs physical contiguity, to
 * CPU-mappable ones when someone maps it, and to those that guarantee the alignment. Each
 * step that leaves nothing records a conflict naming the accessors that caused it.
 *
 * @module
 */
import type { Access, AccessorConstraints, Conflict, HeapInfo } from "./types.ts";

/** CMA aligns a buffer to its size order, capped at CONFIG_CMA_ALIGNMENT (8 → 256 pages). */
const CMA_ALIGNMENT_ORDER = 8;

/** What the heap choice reads: the accessors and what the rest of reconciliation decided. */
export interface HeapChoice {
  accessors: readonly AccessorConstraints[];
  /** The heap table, in order of preference. */
  heapTable: readonly HeapInfo[];
  /** Heaps present; undefined: every heap in the table. */
  availableHeaps: readonly string[] | undefined;
  pageSize: number;
  /** The merged alignment and the accessors asking for it. */
  alignment: { value: number; from: readonly string[] };
  /** Bytes to allocate (page-aligned), 0 when not known. */
  allocSize: number;
  /** The merged CPU access. */
  cpuAccess: Access;
}

/** Conflicts and reasons the steps add to, in order. */
export interface Findings {
  conflicts: Conflict[];
  reasons: string[];
}

type Step = (c: HeapChoice, candidates: HeapInfo[], out: Findings) => HeapInfo[] | undefined;

/**
 * The heap for the buffer, or undefined with a conflict in `out`. The chosen heap's reason
 * goes first in `out.reasons`.
 */
export function chooseHeap(c: HeapChoice, out: Findings): HeapInfo | undefined {
  let candidates: HeapInfo[] | undefined = [...c.heapTable];
  for (const step of [acceptable, present, contiguous, mappable, aligned] as Step[]) {
    candidates = step(c, candidates, out);
    if (candidates === undefined) return undefined;
  }
  const chosen = candidates[0]!;
  out.reasons.unshift(`heap ${chosen.name}: ${chosen.description}`);
  return chosen;
}

const listing = (c: HeapChoice) => c.accessors.filter((a) => a.heaps !== undefined);
const names = (heaps: readonly HeapInfo[]) => heaps.map((h) => h.name).join(", ");

function acceptable(c: HeapChoice, candidates: HeapInfo[], out: Findings) {
  const listed = listing(c);
  const ok = candidates.filter((h) => listed.every((a) => a.heaps!.includes(h.name)));
  if (ok.length > 0) return ok;
  out.conflicts.push({
    attribute: "heap",
    accessors: listed.map((a) => ({ name: a.name, value: a.heaps!.join(", ") })),
    message: `no heap is acceptable to every accessor: ${
      listed.map((a) => `${a.name} takes ${a.heaps!.join(", ")}`).join("; ")
    }`,
  });
  return undefined;
}

function present(c: HeapChoice, candidates: HeapInfo[], out: Findings) {
  const available = c.availableHeaps;
  if (available === undefined) return candidates;
  const there = candidates.filter((h) => available.includes(h.name));
  if (there.length > 0) return there;
  out.conflicts.push({
    attribute: "heap",
    accessors: listing(c).map((a) => ({ name: a.name, value: a.heaps!.join(", ") })),
    message: `none of the acceptable heaps (${names(candidates)}) ` +
      `is present; /dev/dma_heap has ${available.length ? available.join(", ") : "nothing"}`,
  });
  return undefined;
}

function contiguityText(a: AccessorConstraints): string {
  return a.contiguity === "physical" ? "physically contiguous" : "contiguous DMA range, no IOMMU";
}

function contiguous(c: HeapChoice, candidates: HeapInfo[], out: Findings) {
  const physical = c.accessors.filter((a) =>
    a.contiguity === "physical" || (a.contiguity === "dma" && !a.iommu)
  );
  if (physical.length === 0) return scatterGatherFirst(c, candidates, out);
  const needing = physical.map((a) => `${a.name} (${contiguityText(a)})`).join(", ");
  const ok = candidates.filter((h) => h.contiguous);
  if (ok.length > 0) {
    out.reasons.push(`heap must be physically contiguous: ${needing}`);
    return ok;
  }
  const heapNamed = (name: string) => c.heapTable.find((h) => h.name === name);
  const limiting = listing(c).filter((a) => !a.heaps!.some((n) => heapNamed(n)?.contiguous));
  out.conflicts.push({
    attribute: "contiguity",
    accessors: [
      ...physical.map((a) => ({ name: a.name, value: contiguityText(a) })),
      ...limiting.map((a) => ({ name: a.name, value: `heaps ${a.heaps!.join(", ")}` })),
    ],
    message: `${needing} need${physical.length === 1 ? "s" : ""} physically contiguous memory, ` +
      "but " +
      (limiting.length > 0
        ? `${limiting.map((a) => a.name).join(", ")} only take${
          limiting.length === 1 ? "s" : ""
        } scatter-gather heaps (${[...new Set(limiting.flatMap((a) => a.heaps!))].join(", ")})`
        : `no contiguous heap is available (candidates: ${names(candidates)})`),
  });
  return undefined;
}

/** CMA is scarce: scatter-gather heaps first when nobody needs contiguity. */
function scatterGatherFirst(c: HeapChoice, candidates: HeapInfo[], out: Findings) {
  const viaIommu = c.accessors.filter((a) => a.contiguity === "dma" && a.iommu);
  if (viaIommu.length > 0) {
    out.reasons.push(
      `scatter-gather is fine: ${viaIommu.map((a) => a.name).join(", ")} map it through an IOMMU`,
    );
  }
  const sg = candidates.filter((h) => !h.contiguous);
  return sg.length > 0 ? [...sg, ...candidates.filter((h) => h.contiguous)] : candidates;
}

function mappable(c: HeapChoice, candidates: HeapInfo[], out: Findings) {
  if (c.cpuAccess === "none") return candidates;
  const ok = candidates.filter((h) => h.cpuMappable);
  if (ok.length > 0) return ok;
  const cpu = c.accessors.filter((a) => (a.cpuAccess ?? "none") !== "none");
  out.conflicts.push({
    attribute: "cpuAccess",
    accessors: cpu.map((a) => ({ name: a.name, value: `CPU ${a.cpuAccess}` })),
    message: `${cpu.map((a) => a.name).join(", ")} need CPU access, but the remaining heaps ` +
      `(${names(candidates)}) cannot be mapped`,
  });
  return undefined;
}

/** The largest alignment `h` guarantees for `bytes`: a page, or CMA's size order. */
function maxAlignment(h: HeapInfo, bytes: number, pageSize: number): number {
  if (!h.contiguous) return pageSize;
  const pages = Math.ceil(bytes / pageSize);
  const order = Math.min(Math.ceil(Math.log2(pages)), CMA_ALIGNMENT_ORDER);
  return pageSize * 2 ** Math.max(order, 0);
}

function aligned(c: HeapChoice, candidates: HeapInfo[], out: Findings) {
  const { alignment, allocSize, pageSize } = c;
  if (alignment.value <= pageSize || allocSize <= 0) return candidates;
  const most = (h: HeapInfo) => maxAlignment(h, allocSize, pageSize);
  const ok = candidates.filter((h) => most(h) >= alignment.value);
  if (ok.length > 0) return ok;
  out.conflicts.push({
    attribute: "alignment",
    accessors: alignment.from.map((n) => ({ name: n, value: `${alignment.value} bytes` })),
    message: `${alignment.from.join(", ")} need${alignment.from.length === 1 ? "s" : ""} ` +
      `${alignment.value}-byte alignment; ${names(candidates)} ` +
      `guarantee${candidates.length === 1 ? "s" : ""} at most ${
        Math.max(...candidates.map(most))
      } for ${allocSize} bytes`,
  });
  return undefined;
}
