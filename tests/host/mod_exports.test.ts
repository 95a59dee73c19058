// The root module's public names: exported by name (no `export *`, so two modules exporting
// one name is a compile error instead of a silent shadow), one name per concept, and every
// name the README imports from it is there. The type-level half is checked by `deno check`.
import assert from "node:assert/strict";
import type {
  Frame,
  FrameLayout,
  ImportGeometry,
  PixelFormat,
  PlaneLayout,
  ReconciledBuffer,
  TracedFrame,
  VerifyResult,
  WorkloadRecord,
  WorkloadReport,
} from "../../mod.ts";
import * as axl from "../../mod.ts";

/** Compiles only when `A` and `B` are the same type. */
type Same<A, B> = [A] extends [B] ? [B] extends [A] ? true : false : false;
const proven = <T extends true>(): T => true as T;

const root = new URL("../../", import.meta.url);
const modSource = Deno.readTextFileSync(new URL("mod.ts", root));

/** The names `mod.ts` exports, values and types, from its `export { … } from` lists. */
function exportedNames(source: string): Set<string> {
  const names = new Set<string>();
  for (const list of source.matchAll(/^export (?:type )?\{([^}]*)\} from/gm)) {
    for (const item of list[1]!.split(",")) {
      const name = item.trim().replace(/^type\s+/, "");
      if (name) names.add(name);
    }
  }
  return names;
}

Deno.test("mod.ts: the frame layout is formats' FrameLayout, narrowed for producer frames", () => {
  const fourcc: FrameLayout["fourcc"] = 0x3231564e;
  const plane: PlaneLayout = axl.frameLayout("NV12", 64, 32).planes[1]!;
  proven<Same<FrameLayout["planes"][number], PlaneLayout>>();
  proven<Same<Frame["format"], PixelFormat>>();
  proven<Same<ImportGeometry["format"], PixelFormat>>();
  proven<Same<ReturnType<typeof axl.planeLayout>, FrameLayout>>();
  assert.equal(axl.frameLayout("NV12", 64, 32).fourcc, fourcc);
  assert.deepEqual([plane.offset, plane.rows, plane.rowBytes], [64 * 32, 16, 64]);
});

Deno.test("mod.ts: verify's names do not collide with the frame path's", () => {
  proven<Same<TracedFrame["inode"], number | undefined>>();
  proven<Same<WorkloadReport["mode"], "zero-copy" | "copy">>();
  proven<Same<WorkloadRecord["framesSubmitted"], number | null>>();
  proven<Same<VerifyResult["axl"]["frames"]["list"], VerifyResult["axl"]["frames"]["list"]>>();
  proven<Same<ReconciledBuffer["buffer"], axl.DmaBuf>>();
  assert.equal(typeof axl.FrameJoin, "function");
  assert.equal(typeof axl.allocateFor, "function");
});

Deno.test("mod.ts: names by name, no `export *`", () => {
  assert.doesNotMatch(modSource, /^export \*/m);
  const values = Object.keys(axl);
  const listed = exportedNames(modSource);
  assert.deepEqual(values.filter((name) => !listed.has(name)), []);
  assert.ok(values.length > 200, `only ${values.length} value exports: is mod.ts complete?`);
});

Deno.test("mod.ts: every name the README imports from it is exported", () => {
  const readme = Deno.readTextFileSync(new URL("README.md", root));
  const listed = exportedNames(modSource);
  const imported = [...readme.matchAll(/import (?:type )?\{([^}]*)\} from "\.\/mod\.ts"/g)]
    .flatMap((m) => m[1]!.split(",").map((name) => name.trim().replace(/^type\s+/, "")))
    .filter((name) => name !== "");
  assert.ok(imported.length > 0, "the README's library example imports nothing from mod.ts");
  assert.deepEqual(imported.filter((name) => !listed.has(name)), []);
});
