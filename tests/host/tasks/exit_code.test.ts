// One rule from error to exit code (lib/commands/exit_code.ts): every error class of axl,
// and JavaScript's and Deno's own, thrown through the CLI (tasks/_cli.ts runCommand), the
// shell (Shell.execute) and verify's couldNotRun, gives the code its kind says, the same on
// each surface.
import assert from "node:assert/strict";
import { runCommand } from "../../../tasks/_cli.ts";
import { errorKind, ExitCode, exitCodeOf } from "../../../lib/commands/exit_code.ts";
import { CannotRunError, UsageError } from "../../../lib/commands/spec.ts";
import { couldNotRun } from "../../../lib/commands/verify_builtin.ts";
import { AxlError } from "../../../lib/core/errors.ts";
import { ShimLoadError } from "../../../lib/core/shim.ts";
import { CancelledError } from "../../../lib/shell/abortable.ts";
import { Session } from "../../../lib/shell/session.ts";
import { Shell } from "../../../lib/shell/shell.ts";
import { GstToolError } from "../../../lib/caps/gst_tools.ts";
import { CapsSyntaxError } from "../../../lib/caps/errors.ts";
import { ParseError } from "../../../lib/trace/parse/parse_error.ts";
import { ReconcileError } from "../../../lib/constraints/reconcile.ts";
import { ArtifactsDamagedError } from "../../../lib/verify/integrity.ts";
import { WorkloadFailedEarlyError } from "../../../lib/verify/story.ts";
import { tsFiles } from "../_import_graph.ts";

/** One thrown value per error class, named by the class, with the code it must give. */
const CASES: readonly { name: string; error: unknown; code: number }[] = [
  { name: "UsageError", error: new UsageError("probe: expected SIZE"), code: 3 },
  { name: "CannotRunError", error: new CannotRunError("probe: no gst-inspect-1.0"), code: 3 },
  {
    name: "AxlError",
    error: new AxlError("device.open(/dev/axl)", 2, { code: "ENOENT", exitKind: "cannot-run" }),
    code: 3,
  },
  { name: "AxlError", error: new AxlError("heap.alloc(system)", 12, { code: "ENOMEM" }), code: 1 },
  {
    name: "ShimLoadError",
    error: new ShimLoadError([{ path: "/x/libaxl_shim.so", source: "env", reason: "ENOENT" }]),
    code: 3,
  },
  { name: "CancelledError", error: new CancelledError(), code: 130 },
  { name: "GstToolError", error: new GstToolError("no gst-inspect-1.0", "install it"), code: 3 },
  { name: "CapsSyntaxError", error: new CapsSyntaxError("bad caps", "video/x-raw,", 12), code: 3 },
  { name: "ParseError", error: new ParseError("no CPU column", { source: "t", line: 1 }), code: 1 },
  {
    name: "ReconcileError",
    error: new ReconcileError(
      {
        ok: false,
        conflicts: [{ attribute: "heap", message: "no heap is acceptable" }],
      } as unknown as ConstructorParameters<typeof ReconcileError>[0],
    ),
    code: 1,
  },
  {
    name: "ArtifactsDamagedError",
    error: new ArtifactsDamagedError("trace.txt", "has 10 bytes, 20 recorded at capture"),
    code: 3,
  },
  {
    name: "WorkloadFailedEarlyError",
    error: new WorkloadFailedEarlyError("/nonexistent/command", 127, "exec: not found"),
    code: 3,
  },
  { name: "SyntaxError", error: new SyntaxError("Unexpected token"), code: 3 },
  { name: "TypeError", error: new TypeError("unknown mode 'x'"), code: 3 },
  { name: "RangeError", error: new RangeError("frames must be >= 1"), code: 3 },
  { name: "Deno.errors.NotFound", error: new Deno.errors.NotFound("no such file"), code: 3 },
  { name: "Deno.errors.PermissionDenied", error: new Deno.errors.PermissionDenied("x"), code: 3 },
  { name: "Error", error: new Error("something broke"), code: 1 },
  { name: "a thrown string", error: "not an error", code: 1 },
];

const root = decodeURIComponent(new URL("../../..", import.meta.url).pathname).replace(/\/$/, "");

/** The error classes the sources declare, by name. */
function declaredErrorClasses(): string[] {
  const names = new Set<string>();
  for (const file of ["lib", "ffi", "tasks"].flatMap((dir) => tsFiles(root, dir))) {
    const text = Deno.readTextFileSync(`${root}/${file}`);
    for (const m of text.matchAll(/\bclass\s+(\w+)\s+extends\s+\w*Error\b/g)) names.add(m[1]!);
  }
  return [...names].sort();
}

/** The exit code `runCommand` gives when the body throws `error`, and what it printed. */
async function throughCli(error: unknown): Promise<{ code: number; printed: string }> {
  const printed: string[] = [];
  const original = console.error;
  console.error = (...args: unknown[]) => printed.push(args.join(" "));
  try {
    const code = await runCommand("probe", () => {
      throw error;
    });
    return { code, printed: printed.join("\n") };
  } finally {
    console.error = original;
  }
}

/** The exit code of a shell input that throws `error`. */
async function throughShell(error: unknown): Promise<number> {
  const session = new Session({ device: "/nonexistent/axl" });
  session.scope.probe = () => {
    throw error;
  };
  const shell = new Shell(session, { out: () => {}, err: () => {} });
  const result = await shell.execute("probe()", new AbortController().signal);
  assert.equal(result.error, error);
  return result.code;
}

Deno.test("every error class declared in lib/, ffi/ and tasks/ has a case here", () => {
  const covered = new Set(CASES.map((c) => c.name));
  const missing = declaredErrorClasses().filter((name) => !covered.has(name));
  assert.deepEqual(missing, [], `add a case to CASES for: ${missing.join(", ")}`);
});

for (const { name, error, code } of CASES) {
  const label = error instanceof Error ? `${name} (${error.message.split("\n")[0]})` : name;
  Deno.test(`exitCodeOf() gives ${label} ${code} in the CLI and the shell alike`, async () => {
    assert.equal(exitCodeOf(error), code);
    const cli = await throughCli(error);
    assert.equal(cli.code, code, `CLI printed: ${cli.printed}`);
    assert.equal(await throughShell(error), code, "shell");
  });

  Deno.test(`couldNotRun() makes ${label} a verify exit of 3 (130 when interrupted)`, async () => {
    const want = code === ExitCode.Interrupted ? code : ExitCode.CannotRun;
    const cli = await throughCli((() => {
      try {
        couldNotRun(error);
      } catch (thrown) {
        return thrown;
      }
    })());
    assert.equal(cli.code, want, `CLI printed: ${cli.printed}`);
  });
}

Deno.test("runCommand() prints a usage error with its help hint and a bug with its stack", async () => {
  const usage = await throughCli(new UsageError("verify: --frames must be >= 1"));
  assert.equal(usage.printed, "axl verify: --frames must be >= 1\nTry 'axl probe --help'.");
  const device = await throughCli(new AxlError("heap.alloc(system)", 12, { code: "ENOMEM" }));
  assert.equal(device.printed, "axl probe: heap.alloc(system) failed: ENOMEM");
  const bug = await throughCli(new Error("something broke"));
  assert.match(bug.printed, /^axl probe: Error: something broke\n\s+at /);
});

Deno.test("errorKind() reads the exitKind field, never the message", () => {
  const opened = new AxlError("device.open(/dev/axl)", 2, { code: "ENOENT" });
  assert.equal(errorKind(opened), "failed", "an AxlError is cannot-run only when it says so");
  assert.equal(errorKind(new Error("device.open(/dev/axl) failed")), "failed");
  assert.equal(errorKind({ exitKind: "usage" }), "usage");
  assert.equal(errorKind({ exitKind: "bogus" }), "failed");
});
