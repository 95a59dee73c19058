// Opens a capture session (function_graph + events, tracing on), says READY, and waits to
// be interrupted. The session's own signal handler must restore tracefs and exit 130/143;
// with AXL_PROBES=1 the dma-buf kprobe events verify defines are enabled too, and must be
// gone after the exit.
import { TraceSession, VERIFY_EVENTS } from "../../../lib/trace/capture/tracefs.ts";
import { installDmabufProbes } from "../../../lib/trace/capture/kprobe_events.ts";

const probes = Deno.env.get("AXL_PROBES") === "1"
  ? installDmabufProbes("/sys/kernel/tracing", `axl_kp_${Deno.pid}`)
  : undefined;
if (probes && "unavailable" in probes) throw new Error(probes.unavailable);
const session = TraceSession.open({
  bufferSizeKb: 2048,
  topLevel: Deno.env.get("AXL_TOP_LEVEL") === "1",
  ...(probes ? { events: [...VERIFY_EVENTS, `${probes.group}:*`] } : {}),
});
session.start();
const enabled = session.info.events.filter((e) => e.startsWith("axl_kp_")).length;
console.log(
  `READY ${session.info.instance ?? "top-level"} ${session.info.tracer} probes=${enabled}`,
);
setInterval(() => {}, 1000);
