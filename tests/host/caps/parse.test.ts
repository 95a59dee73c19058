import { deepStrictEqual, ok, strictEqual, throws } from "node:assert/strict";
import {
  CapsSyntaxError,
  parseCaps,
  parseFeatures,
  parseStructure,
  parseValue,
  printCaps,
  printValue,
} from "../../../lib/caps/mod.ts";
import { intIn, pick, seededRandom } from "../formats/_rand.ts";
import { big, randomCaps } from "./_gen.ts";

const FIXTURES = new URL("../../fixtures/gst/", import.meta.url);

function columnOf(f: () => unknown): number {
  try {
    f();
  } catch (e) {
    if (e instanceof CapsSyntaxError) return e.column;
    throw e;
  }
  throw new Error("no error");
}

Deno.test("parseCaps() reads features, typed and untyped fields like gst_caps_from_string()", () => {
  const caps = parseCaps(
    "video/x-raw(memory:NVMM), width=1920, height=(int)1080, format=NV12, framerate=60/1, " +
      "interlaced=false, gain=0.5, big=4294967296; image/jpeg",
  );
  ok(!caps.any);
  const [s, j] = caps.structures;
  strictEqual(s!.name, "video/x-raw");
  deepStrictEqual(s!.features, ["memory:NVMM"]);
  deepStrictEqual(s!.fields.map((f) => [f.name, f.value.kind]), [
    ["width", "int"],
    ["height", "int"],
    ["format", "string"],
    ["framerate", "fraction"],
    ["interlaced", "boolean"],
    ["gain", "double"],
    // Too big for a 32-bit int: GStreamer falls back to double, and so do we.
    ["big", "double"],
  ]);
  strictEqual(j!.name, "image/jpeg");
  deepStrictEqual(j!.features, []);
});

Deno.test("parseCaps() accepts ANY, EMPTY, NONE, the empty string and trailing separators", () => {
  strictEqual(parseCaps("ANY").any, true);
  strictEqual(parseCaps(" ANY ").any, true);
  deepStrictEqual(parseCaps("EMPTY"), { any: false, structures: [] });
  deepStrictEqual(parseCaps("NONE"), { any: false, structures: [] });
  deepStrictEqual(parseCaps(""), { any: false, structures: [] });
  strictEqual(printCaps(parseCaps("video/x-raw;")), "video/x-raw");
  // The original design's example ends a structure with "," before the line break.
  strictEqual(printCaps(parseCaps("video/x-raw, width=(int)1,")), "video/x-raw, width=(int)1");
});

Deno.test("parseCaps() treats memory:SystemMemory as no features and keeps ANY", () => {
  deepStrictEqual(parseFeatures("memory:SystemMemory"), []);
  deepStrictEqual(parseFeatures(" memory:DMABuf , meta:Foo "), ["memory:DMABuf", "meta:Foo"]);
  strictEqual(parseFeatures("ANY"), "ANY");
  const s = parseStructure("video/x-raw(memory:SystemMemory, meta:Foo)");
  deepStrictEqual(s.features, ["memory:SystemMemory", "meta:Foo"]);
});

Deno.test("parseValue() infers int, double, fraction, flagset, boolean, then string", () => {
  deepStrictEqual(parseValue("42"), { kind: "int", type: "int", value: 42 });
  deepStrictEqual(parseValue("0x10"), { kind: "int", type: "int", value: 16 });
  deepStrictEqual(parseValue("010"), { kind: "int", type: "int", value: 8 });
  deepStrictEqual(parseValue("08"), { kind: "double", type: "double", value: 8 });
  deepStrictEqual(parseValue("-1.5e3"), { kind: "double", type: "double", value: -1500 });
  deepStrictEqual(parseValue("30000/1001"), { kind: "fraction", value: { num: 30000, den: 1001 } });
  strictEqual(parseValue("1/0").kind, "string");
  deepStrictEqual(parseValue("0:ffffffff:/right-view-first"), {
    kind: "flagset",
    type: "flagset",
    flags: 0,
    mask: 0xffffffff,
    names: ":/right-view-first",
  });
  deepStrictEqual(parseValue("yes"), { kind: "boolean", value: true });
  deepStrictEqual(parseValue("NV12:0x0100000000000001"), {
    kind: "string",
    value: "NV12:0x0100000000000001",
  });
  deepStrictEqual(parseValue('"a \\"quoted\\" \\101"'), { kind: "string", value: 'a "quoted" A' });
});

Deno.test("parseValue() reads typed values, ranges with steps, lists and arrays", () => {
  deepStrictEqual(parseValue("(uint)7"), { kind: "int", type: "uint", value: 7 });
  deepStrictEqual(parseValue("(gint64)-7"), { kind: "int", type: "int64", value: -7 });
  deepStrictEqual(parseValue("(float)2"), { kind: "double", type: "float", value: 2 });
  deepStrictEqual(parseValue("(string)123"), { kind: "string", value: "123" });
  deepStrictEqual(parseValue("(bitmask)0x3"), { kind: "bitmask", value: 3n });
  deepStrictEqual(parseValue("(fraction)25"), { kind: "fraction", value: { num: 25, den: 1 } });
  deepStrictEqual(parseValue("(GstVideoMultiviewFlagsSet)0:ffffffff"), {
    kind: "flagset",
    type: "GstVideoMultiviewFlagsSet",
    flags: 0,
    mask: 0xffffffff,
    names: "",
  });
  deepStrictEqual(parseValue("(GstFooMode)bar"), {
    kind: "other",
    type: "GstFooMode",
    text: "bar",
  });
  deepStrictEqual(parseValue("[ 0, 16, 4 ]"), {
    kind: "int-range",
    type: "int",
    min: 0,
    max: 16,
    step: 4,
  });
  deepStrictEqual(parseValue("(double)[ 0, 1 ]"), { kind: "double-range", min: 0, max: 1 });
  strictEqual(printValue(parseValue("(string){ NV12, I420 }")), "(string){ NV12, I420 }");
  strictEqual(printValue(parseValue("{ (int)1, (string)a }")), "{ (int)1, (string)a }");
  strictEqual(printValue(parseValue("< 1, 2 >")), "(int)< 1, 2 >");
  strictEqual(printValue(parseValue("{ }")), "{ }");
  strictEqual(printValue(parseValue("{ [ 1, 2 ], 5 }")), "{ (int)[ 1, 2 ], (int)5 }");
});

Deno.test("parse errors name the problem and carry the column", () => {
  const cases: [string, number, RegExp][] = [
    ["video/x-raw, width=[1, 2", 25, /range opened at column 20 is not closed/],
    ["video/x-raw(memory:NVMM", 13, /missing their closing "\)"/],
    ["video/x-raw, =5", 14, /expected a field name/],
    ["video/x-raw, width 5", 20, /expected "=" after field name "width"/],
    ["video/x-raw, w=(int)abc", 21, /"abc" is not an integer/],
    ["1video", 1, /must start with a letter/],
    ["video/x-raw, f={ 1, 2 ", 23, /"\{" opened at column 16 is not closed/],
    ["video/x-raw, w=[ 5, 1 ]", 18, /empty \(min > max\)/],
    ["video/x-raw, w=[ 1, 2.5 ]", 21, /"2.5" is not an integer/],
    ["video/x-raw, w=[ 1, 7, 2 ]", 16, /multiples of the step 2/],
    ["video/x-raw, w=[ a, b ]", 18, /range needs two integers/],
    ["video/x-raw(memory), w=1", 13, /namespace:name/],
    ["video/x-raw(a:b,), w=1", 17, /empty caps feature/],
    ['video/x-raw, s="open', 16, /missing its closing quote/],
    ["video/x-raw, w=1 x", 18, /expected ";" or end of caps/],
    ["video/x-raw, w=(int", 16, /expected a type name/],
    ["video/x-raw, w=", 16, /expected a value, found end of input/],
    ["video/x-raw, m=(bitmask)0x10000000000000000", 25, /64-bit bitmask/],
  ];
  for (const [text, column, message] of cases) {
    throws(() => parseCaps(text), message, text);
    strictEqual(columnOf(() => parseCaps(text)), column, text);
  }
  let e: CapsSyntaxError | undefined;
  try {
    parseCaps("video/x-raw, w=(int)abc", { line: 7, column: 11 });
  } catch (err) {
    e = err as CapsSyntaxError;
  }
  ok(e instanceof CapsSyntaxError);
  strictEqual(e.line, 7);
  strictEqual(e.column, 31);
  ok(e.message.endsWith("(line 7, column 31)"));
  // deno-lint-ignore no-explicit-any
  throws(() => parseCaps(5 as any), TypeError);
});

Deno.test("printCaps() output parses back to the same caps (random round trip)", () => {
  const { seed, next } = seededRandom("caps-roundtrip");
  for (let i = 0; i < 3000; i++) {
    const caps = randomCaps(next);
    const text = printCaps(caps);
    let again;
    try {
      again = parseCaps(text);
    } catch (e) {
      throw new Error(`AXL_TEST_SEED=${seed}: cannot re-parse ${text}`, { cause: e });
    }
    deepStrictEqual(
      JSON.stringify(again, big),
      JSON.stringify(caps, big),
      `AXL_TEST_SEED=${seed}: ${text}`,
    );
    strictEqual(printCaps(again), text);
  }
});

Deno.test("printCaps() prints every caps string gst-launch-1.0 printed exactly as GStreamer did", async () => {
  const text = await Deno.readTextFile(new URL("gst-launch-caps.txt", FIXTURES));
  let n = 0;
  for (const line of text.split("\n")) {
    if (line.trim() === "" || line.startsWith("#")) continue;
    strictEqual(printCaps(parseCaps(line)), line);
    n++;
  }
  ok(n >= 10, `only ${n} caps lines`);
});

// Characters that matter to the grammar, for mutations.
const SPECIAL = [
  "(",
  ")",
  "[",
  "]",
  "{",
  "}",
  "<",
  ">",
  ",",
  ";",
  "=",
  '"',
  "\\",
  " ",
  "/",
  ":",
  "0",
  "a",
  "-",
  ".",
];

Deno.test("mutated caps strings either parse or throw CapsSyntaxError with a column inside the text", async () => {
  const { seed, next } = seededRandom("caps-fuzz");
  const corpus = (await Deno.readTextFile(new URL("gst-launch-caps.txt", FIXTURES)))
    .split("\n").filter((l) => l.trim() !== "" && !l.startsWith("#"));
  for (let i = 0; i < 4000; i++) {
    let s = pick(next, corpus);
    const edits = intIn(next, 1, 4);
    for (let k = 0; k < edits; k++) {
      const at = intIn(next, 0, s.length);
      const op = next();
      if (op < 0.35) s = s.slice(0, at) + s.slice(at + 1);
      else if (op < 0.7) s = s.slice(0, at) + pick(next, SPECIAL) + s.slice(at);
      else if (op < 0.9) s = s.slice(0, at) + pick(next, SPECIAL) + s.slice(at + 1);
      else s = s.slice(0, at) + s.slice(at, at + intIn(next, 1, 12)) + s.slice(at);
    }
    try {
      const caps = parseCaps(s);
      // Whatever parses must print and re-parse.
      parseCaps(printCaps(caps));
    } catch (e) {
      if (!(e instanceof CapsSyntaxError)) {
        throw new Error(`AXL_TEST_SEED=${seed}: ${JSON.stringify(s)} threw ${e}`, { cause: e });
      }
      ok(
        e.column >= 1 && e.column <= s.length + 1,
        `AXL_TEST_SEED=${seed}: column ${e.column} for ${s}`,
      );
      strictEqual(e.line, 1);
    }
  }
});
