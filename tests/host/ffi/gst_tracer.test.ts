// The GStreamer tracer axlpads (ffi/src/gst/axl_gst_pads.c, built by ffi/build.sh) loaded into
// a real gst-launch-1.0 on the host: no dma-buf here (no DMA heap, no camera), so every pad
// pushes system memory, named by its allocator. The dma-buf and NVMM cases run in the VM rig
// (tests/device/gst_pipeline_memory.test.ts).
import assert from "node:assert/strict";
import { gstTracerDir, gstTracerEnv } from "../../../lib/core/gst_tracer.ts";
import { parseGstPads } from "../../../lib/trace/parse/gst_pads.ts";
import { judgePipeline } from "../../../lib/verify/pipeline.ts";

// Where this architecture's tracer is not built, or there is no GStreamer of this architecture
// to load it into (aarch64 under qemu-user on an x86_64 host: ffi/build.sh cross-builds the
// tracer, but the gst-launch-1.0 found is the host's), the tests are reported as ignored; on
// x86_64 a missing tracer fails them. The aarch64 tracer runs in the arm64 guest
// (tests/device/gst_nvmm_metis.test.ts).
const tracer = gstTracerDir();
const gstreamerHere = (() => {
  try {
    return Deno.statSync(`/usr/lib/${Deno.build.arch}-linux-gnu/libgstreamer-1.0.so.0`).isFile;
  } catch {
    return false;
  }
})();
const ignore = Deno.build.arch !== "x86_64" && (typeof tracer !== "string" || !gstreamerHere);
if (ignore) {
  console.error(
    `gst_tracer.test.ts: ignored on ${Deno.build.arch}: ` +
      (typeof tracer === "string" ? `no ${Deno.build.arch} GStreamer` : JSON.stringify(tracer)),
  );
}

async function launch(args: string[], env: Record<string, string>) {
  const dir = await Deno.makeTempDir({ prefix: "axl-gst-tracer-" });
  const base = { GST_REGISTRY_1_0: `${dir}/registry.bin`, ...env };
  const out = await new Deno.Command("gst-launch-1.0", {
    args: ["-q", ...args],
    env: base,
    stdin: "null",
  }).output();
  return { dir, out };
}

Deno.test({
  name: "axlpads records each pad's buffers of a real pipeline, in system memory here",
  ignore,
}, async () => {
  assert.equal(
    typeof tracer,
    "string",
    `build it first (deno task build): ${JSON.stringify(tracer)}`,
  );
  const file = `${await Deno.makeTempDir()}/pads.txt`;
  const { dir, out } = await launch(
    [
      ...["videotestsrc", "num-buffers=5", "!", "video/x-raw,format=YUY2,width=64,height=48"],
      ...["!", "videoconvert", "!", "video/x-raw,format=BGRx", "!", "fakesink"],
    ],
    gstTracerEnv(tracer as string, file, {}),
  );
  try {
    assert.ok(out.success, new TextDecoder().decode(out.stderr));
    const text = await Deno.readTextFile(file);
    const log = parseGstPads(text);
    assert.equal(log.unparsed, 0, text);
    const pads = [...log.pads.values()].map((p) => `${p.pad}>${p.peer} ${p.factory} ${p.buffers}`);
    assert.deepEqual(pads, [
      "videotestsrc0:src>capsfilter0:sink videotestsrc 5",
      "capsfilter0:src>videoconvert0:sink capsfilter 5",
      "videoconvert0:src>capsfilter1:sink videoconvert 5",
      "capsfilter1:src>fakesink0:sink capsfilter 5",
    ]);
    for (const p of log.pads.values()) {
      assert.deepEqual([...p.memory], [["sys:SystemMemory", 5]], p.pad);
      assert.match(p.caps[0]!, /^video\/x-raw, /);
    }
    // A test source that writes system memory: the chain breaks at the source itself.
    const v = judgePipeline(log);
    assert.equal(v.status, "FAIL");
    assert.match(
      v.summary,
      /^videotestsrc0:src pushed system memory \(SystemMemory\): the source's/,
    );
    assert.equal(
      v.drawing,
      "[videotestsrc0 ✗ system memory] ! capsfilter0 ! videoconvert0 ! capsfilter1 ! fakesink0",
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test(
  { name: "axlpads without AXL_GST_PADS records nothing and says so", ignore },
  async () => {
    assert.equal(typeof tracer, "string");
    const env = gstTracerEnv(tracer as string, "/unused", {});
    delete (env as Record<string, string | undefined>).AXL_GST_PADS;
    const { dir, out } = await launch(["fakesrc", "num-buffers=1", "!", "fakesink"], env);
    try {
      assert.ok(out.success);
      assert.match(new TextDecoder().decode(out.stderr), /axlpads: AXL_GST_PADS is not set/);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
);
