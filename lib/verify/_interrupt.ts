/**
 * Ctrl-C during a capture: the first SIGINT or SIGTERM asks the workload to stop, so the run
 * ends as if it had finished — the trace drained, tracefs restored, what was captured judged.
 * A second one exits at once (130/143); tracefs is then restored by the trace session's exit
 * hook.
 *
 * @module
 */

/**
 * Calls `stop` on the first SIGINT/SIGTERM and adds a note saying so; on the second calls
 * `beforeExit` (synchronous clean-up the exit hooks cannot do) and exits. Dispose it when
 * the capture is over.
 *
 * @example
 * ```ts ignore
 * using _ = stopOnSignal(() => running.stop(), notes);
 * ```
 */
export function stopOnSignal(
  stop: () => void,
  notes: string[],
  beforeExit: () => void = () => {},
): Disposable {
  let received = 0;
  const handlers: Array<[Deno.Signal, () => void]> = [];
  for (const [sig, code] of [["SIGINT", 130], ["SIGTERM", 143]] as const) {
    const h = () => {
      if (received++ > 0) {
        console.error(`axl: ${sig} again: exiting without judging`);
        beforeExit();
        Deno.exit(code);
      }
      notes.push(`stopped early by ${sig}: judged on what was captured until then`);
      console.error(`axl: ${sig}: stopping the workload; ${sig} again to exit at once`);
      stop();
    };
    Deno.addSignalListener(sig, h);
    handlers.push([sig, h]);
  }
  return {
    [Symbol.dispose]() {
      for (const [sig, h] of handlers) Deno.removeSignalListener(sig, h);
    },
  };
}
