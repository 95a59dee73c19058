import assert from "node:assert/strict";
import {
  COMM_LENGTH,
  runtimeThread,
  V8_PLATFORM_WORKER,
} from "../../../../lib/trace/parse/perf_script_threads.ts";

Deno.test("runtimeThread() names V8's platform workers by the 15 bytes the kernel keeps", () => {
  // what perf prints: prctl(PR_SET_NAME) keeps 15 bytes of V8's thread name
  assert.equal(V8_PLATFORM_WORKER.name.slice(0, COMM_LENGTH), "V8 DefaultWorke");
  assert.equal(runtimeThread("V8 DefaultWorke")?.id, "v8-platform-worker");
  // a longer start of the name (a kernel that kept more) is the same thread
  assert.equal(runtimeThread("V8 DefaultWorkerThreadsTaskRunner")?.id, "v8-platform-worker");
  assert.equal(runtimeThread(V8_PLATFORM_WORKER.name)?.id, "v8-platform-worker");
});

Deno.test("runtimeThread() leaves every thread that can run user code counted", () => {
  for (
    const comm of [
      "deno", // Deno's main thread
      "worker-1", // a Deno Web Worker
      "tokio-runtime-w", // Deno's tokio threads (the builtin's frame loop ran there)
      "gst-launch-1.0",
      "V8", // shorter than the kernel keeps: not V8's name
      "V8 DefaultWork",
      "V8 DefaultWorkeX",
      "v8 defaultworke",
      "",
    ]
  ) {
    assert.equal(runtimeThread(comm), undefined, comm);
  }
});
