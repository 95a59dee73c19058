// gstTracerEnv(): the environment that loads axlpads into a GStreamer process, and
// commandWorkload() giving it to the command verify runs.
import assert from "node:assert/strict";
import { gstTracerDir, gstTracerEnv } from "../../../lib/core/gst_tracer.ts";
import { commandWorkload, GST_PADS_FILE } from "../../../lib/verify/workload.ts";

Deno.test("gstTracerEnv() prepends the plugin directory and keeps the tracers already asked for", () => {
  assert.deepEqual(gstTracerEnv("/t", "rel/pads.txt", {}), {
    GST_PLUGIN_PATH: "/t",
    GST_TRACERS: "axlpads",
    AXL_GST_PADS: `${Deno.cwd()}/rel/pads.txt`,
  });
  assert.deepEqual(
    gstTracerEnv("/t", "/p", { GST_PLUGIN_PATH: "/a:/b", GST_TRACERS: "latency(flags=pipeline)" }),
    {
      GST_PLUGIN_PATH: "/t:/a:/b",
      GST_TRACERS: "latency(flags=pipeline);axlpads",
      AXL_GST_PADS: "/p",
    },
  );
  // GStreamer reads GST_PLUGIN_PATH_1_0 instead of GST_PLUGIN_PATH when it is set.
  assert.deepEqual(gstTracerEnv("/t", "/p", { GST_PLUGIN_PATH_1_0: "/x", GST_PLUGIN_PATH: "/y" }), {
    GST_PLUGIN_PATH_1_0: "/t:/x",
    GST_TRACERS: "axlpads",
    AXL_GST_PADS: "/p",
  });
});

Deno.test("commandWorkload() started by a capture runs its command with the tracer's environment", async () => {
  const dir = gstTracerDir();
  assert.equal(
    typeof dir,
    "string",
    `build the tracer first (deno task build): ${JSON.stringify(dir)}`,
  );
  const artifacts = await Deno.makeTempDir();
  try {
    const w = commandWorkload([
      "sh",
      "-c",
      'printf "%s\\n%s\\n%s\\n" "$GST_PLUGIN_PATH" "$GST_TRACERS" "$AXL_GST_PADS" > "$0"',
      `${artifacts}/env.txt`,
    ]);
    const notes: string[] = [];
    const running = w.start({ artifacts, notes });
    running.release?.();
    assert.equal((await running.done).exitCode, 0);
    const [path, tracers, pads] = (await Deno.readTextFile(`${artifacts}/env.txt`)).split("\n");
    assert.equal(path!.split(":")[0], dir);
    assert.match(tracers!, /(^|;)axlpads$/);
    assert.equal(pads, `${artifacts}/${GST_PADS_FILE}`);
    assert.deepEqual(notes, []);
  } finally {
    await Deno.remove(artifacts, { recursive: true });
  }
});
