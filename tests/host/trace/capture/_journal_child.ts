// A run that changes a stand-in tracefs (plain files under argv[0]) the way verify does —
// kprobe events, the top-level buffer without function_graph, and a trace_pipe reader that
// outlives it — says READY with the reader's pid, and waits to be killed with SIGKILL.
import { TraceSession } from "../../../../lib/trace/capture/tracefs.ts";
import { installDmabufProbes } from "../../../../lib/trace/capture/kprobe_events.ts";
import { TraceDrain } from "../../../../lib/trace/capture/trace_drain.ts";

const root = Deno.args[0]!;
const probes = installDmabufProbes(root, `axl_kp_${Deno.pid}`);
if ("unavailable" in probes) throw new Error(probes.unavailable);
const session = TraceSession.open({
  tracefs: root,
  bufferSizeKb: 2048,
  topLevel: true,
  graphFunctions: false,
  events: [],
  clock: "mono",
  handleSignals: false,
});
const drain = TraceDrain.start({ dir: session.info.dir, output: `${root}/../drained.txt` });
session.start();
console.log(drain ? "READY" : "");
setInterval(() => {}, 1000);
