import { deepStrictEqual, ok, strictEqual, throws } from "node:assert/strict";
import {
  analyzeDescription,
  checkDmaDrm,
  describeDrmFormat,
  drmFormatsOf,
  parseCaps,
  parseDrmFormat,
  parseGstInspect,
  parseStructure,
  printDrmFormat,
} from "../../../lib/caps/mod.ts";
import { nvidia16Bx2Block } from "../../../lib/formats/mod.ts";

Deno.test("parseDrmFormat() reads FOURCC and FOURCC:MODIFIER", () => {
  deepStrictEqual(parseDrmFormat("NV12:0x0100000000000001"), {
    fourcc: "NV12",
    code: 0x3231564e,
    modifier: 0x0100000000000001n,
  });
  strictEqual(parseDrmFormat("NV12").modifier, 0n);
  strictEqual(parseDrmFormat("R8  ").fourcc, "R8");
});

Deno.test("parseDrmFormat() enforces GStreamer's rules and names the one broken", () => {
  throws(
    () => parseDrmFormat("NV12:0x0000000000000000"),
    /LINEAR modifier is never written; write drm-format=NV12/,
  );
  // The typo in the copy of GStreamer's "DMA buffers" design document this project started from.
  throws(() => parseDrmFormat("NV12:0x0x0100000000000001"), /doubled "0x"/);
  throws(() => parseDrmFormat("NV12:0x1"), /16 hex digits/);
  throws(() => parseDrmFormat("NV12:0x00ffffffffffffff"), /MOD_INVALID/);
  throws(() => parseDrmFormat("NV123:0x0100000000000001"), /not a DRM fourcc/);
  throws(() => parseDrmFormat(""), /not a DRM fourcc/);
  // deno-lint-ignore no-explicit-any
  throws(() => parseDrmFormat(1 as any), TypeError);
});

Deno.test("printDrmFormat() leaves LINEAR out and round-trips with parseDrmFormat()", () => {
  strictEqual(printDrmFormat("NV12", 0n), "NV12");
  const bl = nvidia16Bx2Block(4);
  const text = printDrmFormat("NV12", bl);
  strictEqual(text, "NV12:0x0300000000000014");
  strictEqual(parseDrmFormat(text).modifier, bl);
  ok(describeDrmFormat(text).startsWith("NV12 (DRM NV12, GStreamer NV12), NVIDIA block-linear 2D"));
});

Deno.test("checkDmaDrm() flags DMA_DRM outside memory:DMABuf, drm-format without DMA_DRM, bad entries", () => {
  const issues = checkDmaDrm(parseCaps(
    "video/x-raw, format=DMA_DRM; " +
      "video/x-raw(memory:DMABuf), format=NV12, drm-format=NV12; " +
      "video/x-raw(memory:DMABuf), format=DMA_DRM, drm-format={ NV12:0x0000000000000000, AR24, (int)5 }",
  ));
  deepStrictEqual(issues.map((i) => [i.structure, i.field]), [
    [0, "format"],
    [1, "drm-format"],
    [2, "drm-format"],
    [2, "drm-format"],
  ]);
  ok(issues[2]!.message.includes("write drm-format=NV12"));
  deepStrictEqual(checkDmaDrm(parseCaps("ANY")), []);
  deepStrictEqual(
    checkDmaDrm(
      parseCaps("video/x-raw(memory:DMABuf), format=DMA_DRM, drm-format=NV12:0x0100000000000001"),
    ),
    [],
  );
});

Deno.test("drmFormatsOf() lists the valid entries of a structure", () => {
  const s = parseStructure(
    "video/x-raw(memory:DMABuf), format=DMA_DRM, drm-format={ NV12:0x0100000000000001, YU12, bad:1 }",
  );
  deepStrictEqual(drmFormatsOf(s).map((f) => f.fourcc), ["NV12", "YU12"]);
});

const tmpl = (dir: string, caps: string) =>
  parseGstInspect(
    `Pad Templates:\n  ${dir} template: '${dir.toLowerCase()}'\n    Availability: Always\n` +
      `    Capabilities:\n${caps.split("\n").map((l) => `      ${l}`).join("\n")}\n`,
    dir === "SRC" ? "decoder" : "display",
  );

Deno.test("a drm-format mismatch is explained per fourcc with the modifiers in words", () => {
  // The example of GStreamer's "DMA buffers" design document: the decoder lists NV12 tiled and linear, the sink only linear BGRA.
  const decoder = tmpl(
    "SRC",
    "video/x-raw(memory:DMABuf)\n         format: DMA_DRM\n     drm-format: { (string)NV12:0x0300000000000014 }",
  );
  const display = tmpl(
    "SINK",
    "video/x-raw(memory:DMABuf)\n         format: DMA_DRM\n     drm-format: { (string)NV12, (string)AR24 }",
  );
  const report = analyzeDescription(
    "decoder ! display",
    new Map([["decoder", decoder], ["display", display]]),
  );
  strictEqual(report.negotiates, false);
  const reason = report.links[0]!.reasons[0]!;
  strictEqual(reason.field, "drm-format");
  ok(reason.message.includes("both use NV12"), reason.message);
  ok(reason.message.includes("NVIDIA block-linear 2D: blocks of 16 GOB(s)"), reason.message);
  ok(reason.message.includes("takes LINEAR"), reason.message);
});

Deno.test("a consumer without drm-format takes any DMA_DRM format, as the design note says", () => {
  const decoder = tmpl(
    "SRC",
    "video/x-raw(memory:DMABuf)\n         format: DMA_DRM\n     drm-format: { (string)NV12:0x0100000000000001, (string)NV12 }",
  );
  const glupload = tmpl("SINK", "video/x-raw(memory:DMABuf)\n         format: DMA_DRM");
  const report = analyzeDescription(
    "decoder ! display",
    new Map([["decoder", decoder], ["display", glupload]]),
  );
  ok(report.negotiates);
  deepStrictEqual(report.links[0]!.memory, ["memory:DMABuf"]);
  ok(report.links[0]!.caps.includes("drm-format=(string){ NV12:0x0100000000000001, NV12 }"));
});
