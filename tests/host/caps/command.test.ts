import { ok, strictEqual } from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { capsCommand, runCaps } from "../../../tasks/commands/caps.ts";
import { GST_DIR, JETSON_DIR } from "./_elements.ts";
import { needsGst, requireGst } from "./_gst.ts";
import { capture as captureOutput, type Captured } from "../tasks/_capture.ts";

const gstDir = fileURLToPath(GST_DIR);
const jetsonDir = fileURLToPath(JETSON_DIR);
const offline = ["--no-gst-inspect", "-d", gstDir, "-d", jetsonDir];

function capture(args: string[]): Promise<Captured> {
  return captureOutput(() => runCaps(args));
}

Deno.test("capsCommand implements the Command interface", () => {
  strictEqual(capsCommand.name, "caps");
  ok(capsCommand.summary.length > 0 && capsCommand.help.includes("Exit codes"));
  strictEqual(capsCommand.run, runCaps);
});

Deno.test("axl caps --help prints usage and exits 0; bad usage exits 3", async () => {
  const help = await capture(["--help"]);
  strictEqual(help.code, 0);
  ok(help.out.startsWith("Usage: axl caps"));
  for (
    const args of [
      [],
      ["--bogus"],
      ["a"],
      ["a", "b", "c"],
      ["-p", "a ! b", "c"],
      ["--launch", "a", "b"],
      ["-m", "NVMM", "a", "b"],
      ["-p", "a ! b", "a", "!", "b"],
    ]
  ) {
    const r = await capture(args);
    strictEqual(r.code, 3, args.join(" "));
    ok(r.err.startsWith("axl caps: "), r.err);
  }
});

Deno.test("axl caps <file> <file> checks two saved gst-inspect outputs", async () => {
  const r = await capture([`${gstDir}videotestsrc.txt`, `${gstDir}jpegenc.txt`]);
  strictEqual(r.code, 0, r.err);
  ok(r.out.includes("verdict: OK"));
  const f = await capture([
    "-f",
    "video/x-raw,format=P010_10LE",
    `${gstDir}videotestsrc.txt`,
    `${gstDir}jpegenc.txt`,
  ]);
  strictEqual(f.code, 1);
  ok(f.out.includes("why   format: the caps filter offers P010_10LE (DRM P010)"), f.out);
});

Deno.test("axl caps <pipeline> --json reports each link and exits 1 when one fails", async () => {
  const r = await capture([
    ...offline,
    "--json",
    "nvarguscamerasrc",
    "!",
    "video/x-raw(memory:NVMM),format=NV12",
    "!",
    "nvvidconv",
    "!",
    "video/x-raw(memory:NVMM),format=NV12",
    "!",
    "example-npu-sysmem",
  ]);
  strictEqual(r.code, 1, r.err);
  const json = JSON.parse(r.out);
  strictEqual(json.negotiates, false);
  strictEqual(json.firstFailure, 2);
  strictEqual(json.links[1].reasons[0].kind, "features");
  ok(json.sources["nvvidconv"].endsWith("nvvidconv.txt"));
});

Deno.test("axl caps takes a pipeline quoted as one argument", async () => {
  const r = await capture([
    ...offline,
    "videotestsrc ! video/x-raw,format=NV12 ! videoconvert ! fakesink",
  ]);
  strictEqual(r.code, 0, r.err);
  ok(r.out.includes("verdict: OK: all 2 link(s) negotiate"), r.out);
});

Deno.test("axl caps --require-memory fails a pipeline that negotiates in the wrong memory", async () => {
  const r = await capture([
    ...offline,
    "-m",
    "memory:NVMM",
    "-p",
    "nvarguscamerasrc ! nvvidconv ! example-npu-sysmem",
  ]);
  strictEqual(r.code, 1);
  ok(
    r.out.includes(
      "memory: link 2 (nvvconv0 → examplenpu0) carries memory:SystemMemory, not memory:NVMM",
    ),
    r.out,
  );
  const good = await capture([
    ...offline,
    "-m",
    "memory:NVMM",
    "-p",
    "nvarguscamerasrc ! nvvidconv ! example-npu-nvmm",
  ]);
  strictEqual(good.code, 0, good.out);
});

Deno.test("axl caps reports unreadable input with what to do, exit 3", async () => {
  const missing = await capture([...offline, "-p", "videotestsrc ! nvinfer"]);
  strictEqual(missing.code, 3);
  ok(missing.err.includes('no saved capabilities for "nvinfer"'), missing.err);
  ok(missing.err.includes("gst-inspect-1.0 nvinfer >"), missing.err);
  const badCaps = await capture([
    ...offline,
    "-p",
    "videotestsrc ! video/x-raw,width=[1, ! fakesink",
  ]);
  strictEqual(badCaps.code, 3);
  ok(/column \d+/.test(badCaps.err), badCaps.err);
  const noFile = await capture(["/nonexistent/x.txt", "/nonexistent/y.txt"]);
  strictEqual(noFile.code, 3);
  ok(noFile.err.includes("cannot read /nonexistent/x.txt"), noFile.err);
  const notInspect = await capture([`${jetsonDir}README.md`, `${jetsonDir}README.md`]);
  strictEqual(notInspect.code, 3);
  ok(notInspect.err.includes("not gst-inspect-1.0 <element> output"), notInspect.err);
});

Deno.test(
  "axl caps --launch runs gst-launch-1.0 and agrees on a link that works and one that fails",
  needsGst(),
  async () => {
    requireGst();
    const good = await capture([
      "--launch",
      "videotestsrc",
      "num-buffers=1",
      "!",
      "video/x-raw,format=NV12",
      "!",
      "fakesink",
    ]);
    strictEqual(good.code, 0, good.out + good.err);
    ok(good.out.includes("gst-launch-1.0: AGREE"));
    const bad = await capture([
      "--launch",
      "videotestsrc",
      "num-buffers=1",
      "!",
      "video/x-raw(memory:DMABuf)",
      "!",
      "fakesink",
    ]);
    strictEqual(bad.code, 1);
    ok(
      bad.out.includes(
        "gst-launch-1.0: AGREE: gst-launch-1.0 also fails to link videotestsrc0 → fakesink0",
      ),
      bad.out,
    );
    // An error unrelated to caps (no EGL display for glupload on a headless machine) is
    // inconclusive, exit 2; where GL works the pipeline runs and both agree. glupload's
    // capabilities come from the fixture: without gstreamer1.0-gl, gst-launch-1.0's
    // "no element" is inconclusive too.
    const gl = await capture([
      "--launch",
      "-d",
      gstDir,
      "-p",
      "videotestsrc num-buffers=1 ! glupload ! fakesink",
    ]);
    ok(gl.code === 2 || gl.code === 0, gl.out + gl.err);
    ok(gl.out.includes(gl.code === 2 ? "INCONCLUSIVE" : "AGREE"), gl.out);
  },
);
