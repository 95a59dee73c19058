import { deepStrictEqual, ok, strictEqual, throws } from "node:assert/strict";
import {
  CapsSyntaxError,
  launchArgs,
  parseLaunchOutput,
  parsePipeline,
  printCaps,
} from "../../../lib/caps/mod.ts";
import { intIn, pick, seededRandom } from "../formats/_rand.ts";

Deno.test("parsePipeline() reads elements, properties and caps filters", () => {
  const p = parsePipeline(
    "nvarguscamerasrc sensor-id=0 ! 'video/x-raw(memory:NVMM),width=1920,height=1080,format=NV12,framerate=60/1' ! " +
      "nvvidconv ! 'video/x-raw(memory:NVMM),format=NV12' ! " +
      "axinferencenet model=/opt/axelera/models/yolov8n-coco.json device=metis-0:01:0 ! fakesink sync=false",
  );
  deepStrictEqual(p.elements.map((e) => e.factory), [
    "nvarguscamerasrc",
    "nvvidconv",
    "axinferencenet",
    "fakesink",
  ]);
  deepStrictEqual(p.elements[2]!.props, {
    model: "/opt/axelera/models/yolov8n-coco.json",
    device: "metis-0:01:0",
  });
  deepStrictEqual(p.links.map((l) => [l.from, l.to, l.filter ? printCaps(l.filter) : null]), [
    [
      0,
      1,
      "video/x-raw(memory:NVMM), width=(int)1920, height=(int)1080, format=(string)NV12, framerate=(fraction)60/1",
    ],
    [1, 2, "video/x-raw(memory:NVMM), format=(string)NV12"],
    [2, 3, null],
  ]);
});

Deno.test("parsePipeline() accepts caps with spaces, as a shell passes unquoted words", () => {
  const p = parsePipeline("videotestsrc ! video/x-raw, format=NV12, width=640 ! fakesink");
  strictEqual(p.links[0]!.filterText, "video/x-raw, format=NV12, width=640");
});

Deno.test("parsePipeline() follows name= references into branches", () => {
  const p = parsePipeline(
    "videotestsrc ! tee name=t ! queue ! fakesink t. ! queue ! fakesink t.src_1 ! fakesink",
  );
  deepStrictEqual(p.links.map((l) => [l.from, l.to, l.fromPad ?? ""]), [
    [0, 1, ""],
    [1, 2, ""],
    [2, 3, ""],
    [1, 4, ""],
    [4, 5, ""],
    [1, 6, "src_1"],
  ]);
  strictEqual(p.elements[1]!.name, "t");
  // Unlinked elements separated by a space start a new chain.
  strictEqual(parsePipeline("a ! b c ! d").links.length, 2);
});

Deno.test("parsePipeline() reports malformed descriptions with the column", () => {
  const cases: [string, RegExp, number][] = [
    ["a ! ! b", /nothing between two "!"/, 4],
    ["! a", /starts with "!"/, 1],
    ["a ! video/x-raw", /caps at the end/, 5],
    ["video/x-raw ! a", /caps must sit between two elements/, 1],
    ["a ! x/y ! x/z ! b", /two caps filters in a row/, 11],
    ['a b="unterminated', /unterminated " quote/, 5],
    ["a ! zz. ! c", /no element is named "zz"/, 5],
    ["a name=x ! b name=x", /two elements are named "x"/, 14],
    ["a ! 5b", /not an element factory name/, 5],
    ["a ! x/y, w=[1, ! b", /"\[" is not closed/, 12],
    ["", /empty pipeline|starts with/, 1],
  ];
  for (const [text, re, column] of cases) {
    throws(() => parsePipeline(text), re, text);
    if (column > 0) {
      try {
        parsePipeline(text);
      } catch (e) {
        ok(e instanceof CapsSyntaxError, text);
        strictEqual(e.column, column, text);
      }
    }
  }
});

Deno.test("mutated pipeline descriptions parse or throw CapsSyntaxError", () => {
  const { seed, next } = seededRandom("pipeline-fuzz");
  const corpus = [
    "videotestsrc num-buffers=1 ! video/x-raw,format=NV12,width=640,height=480 ! videoconvert ! video/x-raw,format=BGRx ! fakesink",
    "tee name=t ! queue ! fakesink t. ! queue ! fakesink",
    "fakesrc ! 'video/x-raw(memory:DMABuf), format={ NV12, I420 }' ! identity ! fakesink",
  ];
  for (let i = 0; i < 3000; i++) {
    let s = pick(next, corpus);
    for (let k = intIn(next, 1, 3); k > 0; k--) {
      const at = intIn(next, 0, s.length);
      s = next() < 0.5
        ? s.slice(0, at) + s.slice(at + 1)
        : s.slice(0, at) + pick(next, ["!", " ", "'", '"', "=", ".", "(", "{", ",", "/"]) +
          s.slice(at);
    }
    try {
      parsePipeline(s);
    } catch (e) {
      if (!(e instanceof CapsSyntaxError)) {
        throw new Error(`AXL_TEST_SEED=${seed}: ${s}: ${e}`, { cause: e });
      }
      ok(
        e.column >= 1 && e.column <= s.length + 1,
        `AXL_TEST_SEED=${seed}: ${s} column ${e.column}`,
      );
    }
  }
});

Deno.test("launchArgs() splits like a shell and compacts caps for gst-launch-1.0", () => {
  deepStrictEqual(launchArgs(`a x="1 2" ! 'video/x-raw, s=(string)"a b", f={ NV12, I420 }' ! b`), [
    "a",
    "x=1 2",
    "!",
    'video/x-raw,s=(string)"a b",f={NV12,I420}',
    "!",
    "b",
  ]);
  deepStrictEqual(launchArgs("filesrc location=/tmp/x ! b"), [
    "filesrc",
    "location=/tmp/x",
    "!",
    "b",
  ]);
  throws(() => launchArgs("a 'b"), RangeError);
});

const LAUNCH = new URL("../../fixtures/gst/launch/", import.meta.url);

Deno.test("parseLaunchOutput() classifies real gst-launch-1.0 outputs", async () => {
  const read = (name: string) => Deno.readTextFile(new URL(`${name}.txt`, LAUNCH));
  const ok1 = parseLaunchOutput(await read("ok"), 0);
  strictEqual(ok1.outcome, "ok");
  ok(
    ok1.padCaps.get("videoconvert0.sink")!.startsWith(
      "video/x-raw, format=(string)NV12, width=(int)64",
    ),
  );
  ok(ok1.padCaps.has("fakesink0.sink"));
  const link = parseLaunchOutput(await read("link-failed"), 1);
  strictEqual(link.outcome, "link-failed");
  deepStrictEqual(link.failedLink, { from: "videotestsrc0", to: "fakesink0" });
  const nn = parseLaunchOutput(await read("not-negotiated"), 1);
  strictEqual(nn.outcome, "not-negotiated");
  ok(nn.message.includes("Internal data stream error"));
  // The stream also stops with not-negotiated after EGL fails: that is not a caps failure.
  const egl = parseLaunchOutput(await read("egl-error"), 1);
  strictEqual(egl.outcome, "error");
  ok(egl.message.includes("EGL_NOT_INITIALIZED"));
  strictEqual(parseLaunchOutput("", 0, true).outcome, "timeout");
});
