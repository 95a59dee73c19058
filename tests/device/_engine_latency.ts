// The simulated engine's per-job latency (axl.ko's latency_us parameter), set for a test and
// put back after it, so that one test's slow engine never leaks into the next.
const LATENCY = "/sys/module/axl/parameters/latency_us";

/** Runs `fn` with the engine taking `us` microseconds per job, then restores what it had. */
export async function withEngineLatency<T>(us: number, fn: () => T | Promise<T>): Promise<T> {
  const old = Deno.readTextFileSync(LATENCY).trim();
  Deno.writeTextFileSync(LATENCY, String(us));
  try {
    return await fn();
  } finally {
    Deno.writeTextFileSync(LATENCY, old);
  }
}
