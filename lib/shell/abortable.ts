/**
 * Racing a promise against Ctrl-C: the shell stops waiting when the signal aborts,
 * even for work that cannot be cancelled (a fence poll on a worker thread, a user's
 * promise). The work itself runs on; its late result or error is dropped.
 *
 * @module
 */

/**
 * Thrown when the user cancels a running command (exit status 130).
 *
 * @example
 * ```ts
 * import { CancelledError } from "./abortable.ts";
 * console.log(new CancelledError().message); // "cancelled"
 * ```
 */
export class CancelledError extends Error {
  /** Exit status 130. */
  readonly exitKind = "interrupted";
  /** Creates the error. */
  constructor(message = "cancelled") {
    super(message);
    this.name = "CancelledError";
  }
}

/**
 * Resolves like `promise`, or rejects with {@linkcode CancelledError} as soon as
 * `signal` aborts.
 *
 * @example
 * ```ts
 * import { abortable, CancelledError } from "./abortable.ts";
 * const ac = new AbortController();
 * const p = abortable(new Promise(() => {}), ac.signal);
 * ac.abort();
 * try {
 *   await p;
 * } catch (err) {
 *   if (!(err instanceof CancelledError)) throw err;
 * }
 * ```
 */
export function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    promise.catch(() => {});
    return Promise.reject(new CancelledError());
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => {
      promise.catch(() => {});
      reject(new CancelledError());
    };
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (v) => {
        signal.removeEventListener("abort", onAbort);
        resolve(v);
      },
      (e) => {
        signal.removeEventListener("abort", onAbort);
        reject(e);
      },
    );
  });
}

/**
 * Sleeps `ms` milliseconds; rejects with {@linkcode CancelledError} when `signal` aborts.
 *
 * @example
 * ```ts
 * import { sleep } from "./abortable.ts";
 * await sleep(1, new AbortController().signal);
 * ```
 */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const p = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
  });
  signal.addEventListener("abort", () => clearTimeout(timer), { once: true });
  return abortable(p, signal);
}
