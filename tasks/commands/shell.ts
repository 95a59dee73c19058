/**
 * `axl shell`: the device shell — interactive on a terminal, or running a session file
 * (`-f`) or piped stdin non-interactively.
 *
 * @module
 */
import { cliCommand } from "../command.ts";
import { ExitCode } from "../../lib/commands/exit_code.ts";
import { DEVICE_OPTION } from "../../lib/commands/options.ts";
import {
  type CommandSpec,
  type ParsedArgs,
  stringOption,
  UsageError,
} from "../../lib/commands/spec.ts";
import { historyPath } from "../../lib/shell/history.ts";
import { runRepl } from "../../lib/shell/repl.ts";
import { runScript } from "../../lib/shell/script.ts";
import { Session } from "../../lib/shell/session.ts";
import { Shell } from "../../lib/shell/shell.ts";
import denoJson from "../../deno.json" with { type: "json" };

function env(name: string): string | undefined {
  try {
    return Deno.env.get(name);
  } catch {
    return undefined;
  }
}

/** The declaration of `shell` (a command of the CLI only). */
const shellSpec: CommandSpec = {
  name: "shell",
  summary: "the device shell: commands and JavaScript, interactive or from a session file",
  // Declared so a session file given without -f reaches the body, which says so.
  positionals: [{ name: "FILE", kind: "path", optional: true }],
  options: {
    file: {
      type: "string",
      short: "f",
      kind: "path",
      arg: "FILE",
      description: "run a session file ('#' starts a comment line)",
    },
    "keep-going": {
      type: "boolean",
      short: "k",
      description: "run every input even after a failure",
    },
    json: {
      type: "boolean",
      description: "one JSON object per input ({n, line, input, kind, ok, code,\n" +
        'names, value | error}) and a final {"kind":"end", ...}',
    },
    device: {
      ...DEVICE_OPTION,
      arg: "PATH|metis",
      description: "device node (default: $AXL_DEVICE or /dev/axl); a Metis node\n" +
        "(/dev/metis-*, /dev/axl-metis-*, or 'metis' for $AXL_METIS_DEVICE or the first\n" +
        "one) makes a Metis session",
    },
    heap: {
      type: "string",
      kind: "heap",
      arg: "NAME",
      description: "default heap for alloc, submit, produce, run (default system)",
    },
    "no-history": { type: "boolean", description: "do not read or write the history file" },
    "no-echo": { type: "boolean", description: "do not echo inputs in non-interactive mode" },
  },
  details: "",
  cli: {
    usage: [
      "axl shell [-f FILE | < FILE] [--keep-going] [--json] [--device PATH|metis]",
      "          [--heap NAME] [--no-history] [--no-echo]",
    ],
    details: `On a terminal: an interactive shell. Lines are commands (info, doctor, heaps, alloc,
ls, import, submit, wait, release, produce, run, trace, verify, objects, help, ...)
or JavaScript with top-level await and the axl modules in scope. Command results
are bound to $1, $2, ... ('NAME = command ...' also binds NAME). Tab completes
commands, options, heaps, handles and paths; history is kept in
\${XDG_STATE_HOME:-~/.local/state}/axl/history; Ctrl-C cancels the running
command; Ctrl-D or 'exit' releases everything the session created and leaves.
Type 'help' inside for the commands.

With -f FILE, or with stdin not a terminal, the lines run non-interactively:
each input is echoed as 'axl> input' before its output, the run stops at the
first failing input, everything is released, and the exit status says how it went.

A session drives one driver, chosen by --device (or $AXL_DEVICE): axl.ko's
/dev/axl (import, submit, wait on fences), or a node with Axelera's metis.ko ABI
(attach, transfer to and from card memory, wait on poll(); submit is refused, as
metis.ko has no jobs or fences): axl shell --device metis`,
    exits: [
      [ExitCode.Ok, "ok"],
      [ExitCode.Fail, "an input failed (an operation, a result check, JavaScript threw)"],
      [ExitCode.Inconclusive, "inconclusive"],
      [ExitCode.CannotRun, "could not run (bad usage, syntax error, no device or shim)"],
      [ExitCode.Interrupted, "interrupted"],
    ],
  },
};

async function openSource(file: string | undefined): Promise<ReadableStream<Uint8Array>> {
  if (file === undefined) return Deno.stdin.readable;
  try {
    return (await Deno.open(file)).readable;
  } catch (err) {
    throw new UsageError(`shell: cannot read ${file}: ${(err as Error).message}`);
  }
}

/** Sends the console's stdout methods to stderr; returns what puts them back. */
function consoleToStderr(): () => void {
  const names = ["log", "info", "debug", "dir", "dirxml", "table"] as const;
  const saved = names.map((n) => [n, console[n]] as const);
  const toStderr = (...args: unknown[]) => console.error(...args);
  for (const n of names) console[n] = toStderr;
  return () => {
    for (const [n, fn] of saved) (console as unknown as Record<string, unknown>)[n] = fn;
  };
}

async function shell(args: ParsedArgs): Promise<number> {
  const { values, positionals } = args;
  if (positionals.length) {
    throw new UsageError(`shell: unexpected '${positionals[0]}' (a session file needs -f)`);
  }
  const device = stringOption(args, "device");
  const heap = stringOption(args, "heap");
  const file = stringOption(args, "file");
  const session = new Session({
    ...(device !== undefined ? { device } : {}),
    ...(heap !== undefined ? { heap } : {}),
  });
  const interactive = file === undefined && Deno.stdin.isTerminal();
  const colors = interactive && Deno.stdout.isTerminal() && !env("NO_COLOR");
  const json = values.json === true;
  const stdout = console.log.bind(console);
  const shell = new Shell(session, {
    out: (t) => stdout(t),
    err: (t) => console.error(t),
  }, { json, colors });
  if (interactive) {
    return await runRepl(shell, {
      ...(values["no-history"] ? {} : { historyFile: historyPath(Deno.env.toObject()) }),
      banner: `axl ${denoJson.version} shell: 'help' lists commands; JavaScript works too ` +
        "(top-level await). Ctrl-D leaves.",
    });
  }
  // With --json, stdout carries the JSON lines alone: what the session's own code prints
  // (console.log in a JavaScript input) goes to stderr.
  const restore = json ? consoleToStderr() : () => {};
  try {
    const summary = await runScript(shell, await openSource(file), {
      keepGoing: values["keep-going"] === true,
      echo: values["no-echo"] !== true,
      json,
      out: (t) => stdout(t),
    });
    return summary.code;
  } finally {
    restore();
  }
}

/** The `shell` command. */
export const command = cliCommand(shellSpec, shell);

// Runnable on its own too: deno run -A tasks/commands/shell.ts [options].
if (import.meta.main) {
  Deno.exit(await command.run(Deno.args));
}
