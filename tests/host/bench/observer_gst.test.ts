import assert from "node:assert/strict";
import { gstObserverCommand, gstObserverSample } from "../../../bench/observer_gst.ts";

// 40 live frames at 60 fps through videotestsrc ! fakesink with the latency and rusage
// tracers, as GStreamer 1.22 logs them (tests/fixtures/gst/capture-tracers.sh).
const fixture = new URL("../../fixtures/gst/tracers-latency-rusage.log.gz", import.meta.url);

async function log(): Promise<string> {
  const gz = (await Deno.open(fixture)).readable;
  return await new Response(gz.pipeThrough(new DecompressionStream("gzip"))).text();
}

Deno.test("gstObserverSample() measures the frames after the warm-up from a real tracer log", async () => {
  const s = gstObserverSample(await log(), 10);
  assert.equal(s.frames, 30);
  // A live source at 60 fps: the sink sees frames at that rate.
  assert.ok(s.fps > 50 && s.fps < 70, `fps ${s.fps}`);
  assert.ok(s.cpuUsPerFrame > 0, `cpu ${s.cpuUsPerFrame}`);
  assert.ok(s.latencyP50Us > 0 && s.latencyP50Us <= s.latencyP99Us, JSON.stringify(s));
});

Deno.test("gstObserverSample() names the tracers when too few frames reached the sink", async () => {
  assert.throws(() => gstObserverSample("", 0), /latency tracer/);
  const text = await log();
  assert.throws(
    () => gstObserverSample(text, 39),
    /40 frames reached the sink, 39 of them warm-up/,
  );
  const noCpu = text.split("\n").filter((l) => !l.includes("proc-rusage")).join("\n");
  assert.throws(() => gstObserverSample(noCpu, 10), /no proc-rusage line/);
});

Deno.test("gstObserverCommand() execs gst-launch with the bench's tracers after verify's", async () => {
  const argv = gstObserverCommand("/dev/video9", 5, "/tmp/x.log");
  assert.equal(argv[0], "sh");
  assert.match(argv[2]!, /GST_TRACERS="\$\{GST_TRACERS:\+\$GST_TRACERS;\}latency;rusage"/);
  assert.match(argv[2]!, /exec "\$@"$/);
  // The script as it is, exec'ing a shell that prints what gst-launch would see.
  const out = await new Deno.Command("sh", {
    args: ["-c", argv[2]!, argv[3]!, "sh", "-c", 'echo "$GST_TRACERS|$GST_DEBUG_FILE"'],
    env: { GST_TRACERS: "axlpads" },
  }).output();
  assert.equal(new TextDecoder().decode(out.stdout).trim(), "axlpads;latency;rusage|/tmp/x.log");
  assert.ok(argv.includes("device=/dev/video9") && argv.includes("num-buffers=5"));
});
