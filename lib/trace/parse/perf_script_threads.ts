/**
 * Threads of a sampled process whose copies are the runtime's own, never a frame's: V8's
 * platform worker threads. V8's default platform runs its background tasks (garbage
 * collection: concurrent marking, scavenging and compaction of the JS heap; concurrent
 * compilation) on a pool of threads it names `V8 DefaultWorkerThreadsTaskRunner WorkerThread`.
 * Linux keeps 15 bytes of a thread's name (`prctl(PR_SET_NAME)` into a 16-byte `comm`), so
 * perf prints them as `V8 DefaultWorke`. User JavaScript never runs there: Deno runs it on its
 * main thread and on one thread per Web Worker, named `worker-N`, which stay counted.
 *
 * @module
 */

/** One kind of runtime thread whose copies are kept apart from the frames'. */
export interface RuntimeThread {
  /** Short id, e.g. `v8-platform-worker`. */
  id: string;
  /** The thread name the runtime sets, in full (the kernel may keep only its start). */
  name: string;
  /** What runs there. */
  note: string;
}

/** V8's platform worker threads (the only runtime threads kept apart). */
export const V8_PLATFORM_WORKER: RuntimeThread = {
  id: "v8-platform-worker",
  name: "V8 DefaultWorkerThreadsTaskRunner WorkerThread",
  note: "V8's background tasks (garbage collection, concurrent compilation), no user JavaScript",
};

/** Bytes of a thread name the kernel keeps (`TASK_COMM_LEN` 16, less the NUL). */
export const COMM_LENGTH = 15;

/**
 * The runtime thread a sampled thread's `comm` names, or `undefined` for any other thread.
 * A `comm` matches when it is the start of the runtime's full thread name and holds at least
 * the {@linkcode COMM_LENGTH} bytes the kernel keeps: `V8 DefaultWorke` (what perf prints)
 * and any longer start of the name match; a shorter one (`V8`) or another thread does not.
 *
 * @example
 * ```ts
 * import { runtimeThread } from "./perf_script_threads.ts";
 * console.log(runtimeThread("V8 DefaultWorke")?.id); // "v8-platform-worker"
 * console.log(runtimeThread("worker-1")); // undefined
 * console.log(runtimeThread("tokio-runtime-w")); // undefined
 * ```
 */
export function runtimeThread(comm: string): RuntimeThread | undefined {
  const t = V8_PLATFORM_WORKER;
  return comm.length >= COMM_LENGTH && t.name.startsWith(comm) ? t : undefined;
}
