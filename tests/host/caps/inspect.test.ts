import { deepStrictEqual, ok, strictEqual, throws } from "node:assert/strict";
import {
  CapsSyntaxError,
  type ElementInfo,
  parseGstInspect,
  printCaps,
  runGstInspect,
  templateCaps,
} from "../../../lib/caps/mod.ts";
import { intIn, pick, seededRandom } from "../formats/_rand.ts";
import { needsGst, requireGst } from "./_gst.ts";

const DIR = new URL("../../fixtures/gst/gstreamer-1.22/", import.meta.url);

async function fixture(name: string): Promise<ElementInfo> {
  return parseGstInspect(await Deno.readTextFile(new URL(`${name}.txt`, DIR)), name);
}

async function allFixtures(): Promise<[string, string][]> {
  const out: [string, string][] = [];
  for await (const e of Deno.readDir(DIR)) {
    if (e.name.endsWith(".txt")) {
      out.push([e.name.slice(0, -4), await Deno.readTextFile(new URL(e.name, DIR))]);
    }
  }
  return out.sort();
}

Deno.test("parseGstInspect() reads factory and plugin details and the type hierarchy", async () => {
  const info = await fixture("videoconvert");
  strictEqual(info.factory, "videoconvert");
  strictEqual(info.details["Long-name"], "Video colorspace converter");
  strictEqual(info.details["Klass"], "Filter/Converter/Video/Colorspace");
  strictEqual(info.plugin["Name"], "videoconvertscale");
  strictEqual(info.plugin["Version"], "1.22.0");
  deepStrictEqual(info.hierarchy.slice(-3), [
    "GstVideoFilter",
    "GstVideoConvertScale",
    "GstVideoConvert",
  ]);
  strictEqual(info.hierarchy[0], "GObject");
});

Deno.test("parseGstInspect() reads videoconvert's templates: system memory and (ANY), 100+ formats", async () => {
  const info = await fixture("videoconvert");
  deepStrictEqual(info.padTemplates.map((t) => [t.name, t.direction, t.presence]), [
    ["sink", "sink", "always"],
    ["src", "src", "always"],
  ]);
  const sink = templateCaps(info, "sink");
  ok(!sink.any);
  deepStrictEqual(sink.structures.map((s) => s.features), [[], "ANY"]);
  const format = sink.structures[0]!.fields.find((f) => f.name === "format")!.value;
  ok(format.kind === "list" && format.items.length > 100);
  strictEqual(
    printCaps({
      any: false,
      structures: [{ ...sink.structures[0]!, fields: sink.structures[0]!.fields.slice(1) }],
    }),
    "video/x-raw, width=(int)[ 1, 32767 ], height=(int)[ 1, 32767 ], framerate=(fraction)[ 0/1, 2147483647/1 ]",
  );
});

Deno.test("parseGstInspect() reads ANY, EMPTY, request and sometimes pads, and multi-feature structures", async () => {
  const tee = await fixture("tee");
  deepStrictEqual(tee.padTemplates.map((t) => [t.name, t.presence, t.caps.any]), [
    ["sink", "always", true],
    ["src_%u", "request", true],
  ]);
  const decodebin = await fixture("decodebin");
  strictEqual(decodebin.padTemplates.find((t) => t.direction === "src")!.presence, "sometimes");
  const glupload = await fixture("glupload");
  const sink = templateCaps(glupload, "sink");
  ok(!sink.any);
  deepStrictEqual(sink.structures[0]!.features, [
    "memory:GLMemory",
    "meta:GstVideoOverlayComposition",
  ]);
  ok(sink.structures.some((s) => Array.isArray(s.features) && s.features[0] === "memory:DMABuf"));
  const gldownload = await fixture("gldownload");
  deepStrictEqual(templateCaps(gldownload, "src"), {
    any: false,
    structures: [
      { name: "video/x-raw", features: ["memory:DMABuf"], fields: [] },
      { name: "video/x-raw", features: [], fields: [] },
      { name: "video/x-raw", features: ["memory:GLMemory"], fields: [] },
    ],
  });
  const v4l2src = templateCaps(await fixture("v4l2src"), "src");
  ok(
    !v4l2src.any &&
      v4l2src.structures.some((s) =>
        Array.isArray(s.features) && s.features[0] === "format:Interlaced"
      ),
  );
  const audio = await fixture("audiotestsrc");
  ok(printCaps(templateCaps(audio, "src")).startsWith("audio/x-raw, format=(string){ S16LE"));
});

Deno.test("parseGstInspect() parses every captured gst-inspect-1.0 output", async () => {
  const all = await allFixtures();
  ok(all.length >= 20, `only ${all.length} fixtures`);
  for (const [name, text] of all) {
    const info = parseGstInspect(text, name);
    ok(info.padTemplates.length >= 1, name);
    for (const t of info.padTemplates) {
      ok(t.caps.any || t.caps.structures.length > 0, `${name} ${t.name}`);
    }
  }
});

Deno.test("parseGstInspect() guesses the factory from the documentation URL or the type name", async () => {
  const text = await Deno.readTextFile(new URL("videoscale.txt", DIR));
  strictEqual(parseGstInspect(text).factory, "videoscale");
  const noDocs = text.replace(/^ {2}Documentation.*$/gm, "");
  strictEqual(parseGstInspect(noDocs).factory, "videoscale");
});

Deno.test("parseGstInspect() joins values continued on the next line (wrapped lists, trailing \\)", () => {
  const info = parseGstInspect(
    [
      "Pad Templates:",
      "  SRC template: 'src'",
      "    Availability: Always",
      "    Capabilities:",
      "      video/x-raw(memory:DMABuf)",
      "                  width:  [ 16, 16384 ]",
      "                 format: DMA_DRM",
      "             drm-format: { (string)NV12:0x0100000000000001, \\",
      "                           (string)YU12, (string)YV12 }",
      "",
    ].join("\n"),
    "vapostproc",
  );
  strictEqual(
    printCaps(info.padTemplates[0]!.caps),
    "video/x-raw(memory:DMABuf), width=(int)[ 16, 16384 ], format=(string)DMA_DRM, " +
      "drm-format=(string){ NV12:0x0100000000000001, YU12, YV12 }",
  );
});

Deno.test("parseGstInspect() rejects text that is not gst-inspect output, with line and column", () => {
  throws(
    () => parseGstInspect("No such element or plugin 'nvvidconv'\n"),
    /not gst-inspect-1.0 <element> output/,
  );
  throws(() => parseGstInspect(""), CapsSyntaxError);
  let err: CapsSyntaxError | undefined;
  try {
    parseGstInspect(
      "Pad Templates:\n  SRC template: 'src'\n    Availability: Always\n    Capabilities:\n" +
        "      video/x-raw\n                 width: [ 1, \n",
      "x",
    );
  } catch (e) {
    err = e as CapsSyntaxError;
  }
  ok(err instanceof CapsSyntaxError);
  strictEqual(err.line, 6);
  // deno-lint-ignore no-explicit-any
  throws(() => parseGstInspect(undefined as any), TypeError);
});

Deno.test("mutated gst-inspect output parses or throws CapsSyntaxError with a line inside it", async () => {
  const { seed, next } = seededRandom("inspect-fuzz");
  const all = await allFixtures();
  for (let i = 0; i < 400; i++) {
    const [name, text] = pick(next, all);
    const lines = text.split("\n");
    for (let k = intIn(next, 1, 3); k > 0; k--) {
      const at = intIn(next, 0, lines.length - 1);
      const l = lines[at]!;
      const c = intIn(next, 0, l.length);
      lines[at] = next() < 0.5
        ? l.slice(0, c) + l.slice(c + 1)
        : l.slice(0, c) + pick(next, ["{", "}", "[", "(", ")", ",", " ", ":", "'", '"']) +
          l.slice(c);
    }
    try {
      parseGstInspect(lines.join("\n"), name);
    } catch (e) {
      if (!(e instanceof CapsSyntaxError)) {
        throw new Error(`AXL_TEST_SEED=${seed} ${name}: ${e}`, { cause: e });
      }
      ok(e.line >= 1 && e.line <= lines.length, `AXL_TEST_SEED=${seed}: line ${e.line}`);
      ok(e.column >= 1, `AXL_TEST_SEED=${seed}: column ${e.column}`);
    }
  }
});

Deno.test(
  "the captured fixtures match what gst-inspect-1.0 prints on this machine",
  needsGst(),
  async () => {
    requireGst();
    for (const name of ["videotestsrc", "videoconvert", "fakesink", "jpegenc", "queue"]) {
      const live = parseGstInspect(await runGstInspect(name), name);
      const saved = await fixture(name);
      deepStrictEqual(
        live.padTemplates.map((t) => [t.name, printCaps(t.caps)]),
        saved.padTemplates.map((t) => [t.name, printCaps(t.caps)]),
        `${name}: re-capture with tests/fixtures/gst/capture.sh if GStreamer was upgraded`,
      );
    }
  },
);
