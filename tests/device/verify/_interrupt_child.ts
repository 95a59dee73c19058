// Opens a capture session (function_graph + events, tracing on), says READY, and waits to
// be interrupted. The session's own signal handler must restore tracefs and exit 130/143.
import { TraceSession } from "../../../lib/trace/capture/tracefs.ts";
const session = TraceSession.open({
  bufferSizeKb: 2048,
  topLevel: Deno.env.get("AXL_TOP_LEVEL") === "1",
});
session.start();
console.log(`READY ${session.info.instance ?? "top-level"} ${session.info.tracer}`);
setInterval(() => {}, 1000);
