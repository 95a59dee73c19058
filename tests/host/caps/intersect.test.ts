import { deepStrictEqual, ok, strictEqual } from "node:assert/strict";
import {
  canIntersect,
  type Caps,
  featuresMatch,
  intersectCaps,
  intersectValue,
  parseCaps,
  parseValue,
  printCaps,
  printValue,
  runGstLaunch,
} from "../../../lib/caps/mod.ts";
import { envCount } from "../../_env_count.ts";
import { seededRandom } from "../formats/_rand.ts";
import { randomCaps } from "./_gen.ts";
import { needsGst, requireGst } from "./_gst.ts";

const iv = (a: string, b: string) => {
  const r = intersectValue(parseValue(a), parseValue(b));
  return r ? printValue(r) : undefined;
};

Deno.test("intersectValue() matches fixed values, ranges and lists", () => {
  strictEqual(iv("640", "640"), "(int)640");
  strictEqual(iv("640", "641"), undefined);
  strictEqual(iv("640", "[ 1, 32767 ]"), "(int)640");
  strictEqual(iv("40000", "[ 1, 32767 ]"), undefined);
  strictEqual(iv("[ 1, 100 ]", "[ 50, 200 ]"), "(int)[ 50, 100 ]");
  strictEqual(iv("[ 1, 100 ]", "[ 100, 200 ]"), "(int)100");
  strictEqual(iv("[ 0, 100, 4 ]", "[ 6, 48, 6 ]"), "(int)[ 12, 48, 12 ]");
  strictEqual(iv("[ 0, 100, 4 ]", "6"), undefined);
  strictEqual(iv("{ NV12, I420, YUY2 }", "{ YUY2, NV12 }"), "(string){ NV12, YUY2 }");
  strictEqual(iv("{ NV12, I420 }", "I420"), "(string)I420");
  strictEqual(iv("{ NV12, I420 }", "BGRx"), undefined);
  strictEqual(iv("30/1", "60/2"), "(fraction)30/1");
  strictEqual(iv("[ 0/1, 2147483647/1 ]", "30000/1001"), "(fraction)30000/1001");
  strictEqual(iv("[ 0/1, 30/1 ]", "[ 25/1, 60/1 ]"), "(fraction)[ 25/1, 30/1 ]");
  strictEqual(iv("[ 0/1, 30/1 ]", "[ 30/1, 60/1 ]"), "(fraction)30/1");
  strictEqual(iv("(double)[ 0, 1 ]", "(double)0.5"), "(double)0.5");
  strictEqual(iv("(double)[ 0, 1 ]", "(double)[ 0.5, 2 ]"), "(double)[ 0.5, 1 ]");
  strictEqual(iv("< 1, 2 >", "< 1, [ 0, 5 ] >"), "(int)< 1, 2 >");
  strictEqual(iv("< 1, 2 >", "< 1 >"), undefined);
  strictEqual(iv("(int)5", "(uint)5"), undefined);
  strictEqual(iv("(int)5", "(string)5"), undefined);
  strictEqual(iv("true", "yes"), "(boolean)true");
  strictEqual(iv("(bitmask)0x3", "(bitmask)0x3"), "(bitmask)0x0000000000000003");
  strictEqual(iv("(GstX)a", "(GstX)a"), "(GstX)a");
  strictEqual(iv("(GstX)a", "(GstY)a"), undefined);
});

Deno.test("intersectValue() merges flagsets that agree on the bits both care about", () => {
  strictEqual(iv("(flagset)1:1", "(flagset)4:4"), "(flagset)5:5");
  strictEqual(iv("(flagset)1:1", "(flagset)0:1"), undefined);
  strictEqual(iv("(flagset)0:ffffffff", "(flagset)0:1"), "(flagset)0:ffffffff");
});

Deno.test("featuresMatch(): ANY matches anything, other features compare as sets", () => {
  ok(featuresMatch("ANY", []));
  ok(featuresMatch(["a:b", "c:d"], ["c:d", "a:b"]));
  ok(!featuresMatch(["memory:NVMM"], []));
  ok(!featuresMatch(["memory:DMABuf"], ["memory:DMABuf", "meta:Foo"]));
});

Deno.test("intersectCaps() keeps fields of both sides and the non-ANY features", () => {
  const r = intersectCaps(
    parseCaps("video/x-raw(ANY), format={ NV12, I420 }, width=[ 1, 4096 ]"),
    parseCaps("video/x-raw(memory:NVMM), format=NV12, framerate=30/1"),
  );
  strictEqual(
    printCaps(r),
    "video/x-raw(memory:NVMM), format=(string)NV12, width=(int)[ 1, 4096 ], framerate=(fraction)30/1",
  );
  strictEqual(printCaps(intersectCaps(parseCaps("ANY"), parseCaps("EMPTY"))), "EMPTY");
  strictEqual(printCaps(intersectCaps(parseCaps("ANY"), parseCaps("ANY"))), "ANY");
  // First caps' order of preference is kept.
  strictEqual(
    printCaps(intersectCaps(parseCaps("b/b; a/a"), parseCaps("a/a; b/b"))),
    "b/b; a/a",
  );
});

// Properties every intersection must have.
Deno.test("intersectCaps() is symmetric in emptiness, idempotent, and its result lies in both inputs", () => {
  const { seed, next } = seededRandom("intersect-props");
  const key = (c: Caps) => printCaps(c);
  for (let i = 0; i < 3000; i++) {
    const a = randomCaps(next);
    const b = randomCaps(next);
    const ab = intersectCaps(a, b);
    const ba = intersectCaps(b, a);
    const msg = `AXL_TEST_SEED=${seed}: ${key(a)}  ∩  ${key(b)}`;
    strictEqual(canIntersect(a, b), canIntersect(b, a), msg);
    // Every structure of the result is compatible with both inputs.
    if (!ab.any) {
      for (const s of ab.structures) {
        const one: Caps = { any: false, structures: [s] };
        ok(canIntersect(one, a) && canIntersect(one, b), `${msg}\n  stray ${key(one)}`);
      }
    }
    strictEqual(canIntersect(ab, a), canIntersect(a, b), msg);
    strictEqual(ab.any || ab.structures.length > 0, ba.any || ba.structures.length > 0, msg);
    if (!a.any && a.structures.length > 0) {
      ok(canIntersect(a, a), `AXL_TEST_SEED=${seed}: ${key(a)} ∩ itself is empty`);
    }
  }
});

Deno.test(
  "canIntersect() agrees with gst-launch-1.0 linking random caps filters",
  needsGst(),
  async () => {
    requireGst();
    const { seed, next } = seededRandom("intersect-oracle");
    const trials = envCount("AXL_ORACLE_TRIALS", 200);
    let empty = 0;
    for (let i = 0; i < trials; i++) {
      const a = randomCaps(next, true);
      const b = randomCaps(next, true);
      // num-buffers=0: the source ends at once, so only linking is exercised.
      const d = `fakesrc num-buffers=0 ! '${printCaps(a)}' ! identity ! '${
        printCaps(b)
      }' ! fakesink`;
      const launch = await runGstLaunch(d, { timeoutMs: 10_000 });
      ok(
        launch.outcome === "ok" || launch.outcome === "link-failed",
        `AXL_TEST_SEED=${seed}: ${d}\n${launch.outcome}: ${launch.message}`,
      );
      const gstLinked = launch.outcome === "ok";
      const ours = canIntersect(a, b);
      if (!ours) empty++;
      strictEqual(
        ours,
        gstLinked,
        `AXL_TEST_SEED=${seed}: ${d}\n${launch.outcome} ${launch.message}`,
      );
      if (!gstLinked) deepStrictEqual(launch.failedLink, { from: "identity0", to: "fakesink0" });
    }
    // Both outcomes must have been exercised for the comparison to mean anything.
    ok(empty > trials / 10 && empty < trials * 0.9, `only ${empty}/${trials} empty intersections`);
  },
);
