/**
 * `submit`: queues a job on the NPU reading an import and writing a result buffer
 * (AXL_IOCTL_SUBMIT); the value is the Job with its sync_file fence.
 *
 * @module
 */
import type { DmaBuf } from "../../core/dmabuf.ts";
import type { Import } from "../../core/device.ts";
import { Heap } from "../../core/heap.ts";
import { resultBytes } from "../../core/shim.ts";
import { parseCount } from "../args.ts";
import { type ShellCommand } from "../command.ts";
import { UsageError } from "../../commands/spec.ts";
import { resolveObject, resolveOrLatest } from "../resolve.ts";

/** The `submit` command. */
export const command: ShellCommand = {
  name: "submit",
  summary: "submit a job on an import; value: the Job (fence, seqno); 'wait' finishes it",
  positionals: [{ name: "IMPORT", kind: "import", optional: true }],
  options: {
    result: {
      type: "string",
      kind: "buffer",
      arg: "BUFFER",
      description: "result buffer (default: a new one from the session's heap)",
    },
    model: { type: "string", kind: "number", arg: "ID", description: "model id (default 0)" },
    timeout: {
      type: "string",
      kind: "number",
      arg: "MS",
      description: "engine-side job timeout in ms (default 0: the driver's)",
    },
  },
  details: "Not on a Metis session: metis.ko has no jobs or fences ('transfer' there).\n" +
    "Returns at once: the job runs on the engine and signals its fence. The import\n" +
    "cannot be released until the job has been waited for (or released).",
  run(ctx, args) {
    if (args.positionals.length > 1) throw new UsageError("submit: one import at a time");
    // metis.ko has no jobs: the backend says why and what to use instead
    if (ctx.session.driver === "metis") ctx.session.metis("submit").submit();
    const imp = resolveOrLatest(ctx.session, args.positionals[0], ["import"], "submit") as Import;
    const v = args.values as Record<string, string | undefined>;
    let result: DmaBuf;
    if (v.result !== undefined) {
      result = resolveObject(ctx.session, v.result, ["buffer"], "submit --result") as DmaBuf;
    } else {
      result = Heap.open(ctx.session.heap).allocate(resultBytes(), {
        name: "axl-result",
      });
      ctx.session.track("buffer", result, "submit (result buffer)");
      ctx.note(`result buffer: inode ${result.inode} (${ctx.session.heap} heap)`);
    }
    const job = imp.device.submit(imp, {
      result,
      model: v.model === undefined ? 0 : parseCount(v.model, "submit: --model"),
      timeoutMs: v.timeout === undefined ? 0 : parseCount(v.timeout, "submit: --timeout"),
    });
    ctx.session.track("job", job, `submit ${args.positionals.join(" ")}`.trim());
    return Promise.resolve({ value: job });
  },
};
