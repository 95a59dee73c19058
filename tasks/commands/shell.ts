/**
 * `axl shell`: the device shell — interactive on a terminal, or running a session file
 * (`-f`) or piped stdin non-interactively.
 *
 * @module
 */
import type { Command } from "../command.ts";
import { parseOptions, runCommand, UsageError } from "../_cli.ts";
import { historyPath, runRepl, runScript, Session, Shell } from "../../lib/shell/mod.ts";
import denoJson from "../../deno.json" with { type: "json" };

function env(name: string): string | undefined {
  try {
    return Deno.env.get(name);
  } catch {
    return undefined;
  }
}

/** The `shell` command. */
export const command: Command = {
  name: "shell",
  summary: "the device shell: commands and JavaScript, interactive or from a session file",
  help: `Usage: axl shell [-f FILE | < FILE] [--keep-going] [--json] [--device PATH]
                 [--heap NAME] [--no-history] [--no-echo]

On a terminal: an interactive shell. Lines are commands (info, doctor, heaps, alloc,
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

Options:
  -f, --file FILE   run a session file ('#' starts a comment line)
  -k, --keep-going  run every input even after a failure
  --json            one JSON object per input ({n, line, input, kind, ok, code,
                    names, value | error}) and a final {"kind":"end", ...}
  --device PATH     NPU device node (default: $AXL_DEVICE or /dev/axl)
  --heap NAME       default heap for alloc, submit, produce, run (default system)
  --no-history      do not read or write the history file
  --no-echo         do not echo inputs in non-interactive mode

Exit codes: 0 ok; 1 an input failed (an operation, a result check, JavaScript
threw); 2 inconclusive; 3 could not run (bad usage, syntax error, no device or
shim); 130 interrupted.`,
  async run(args: string[]): Promise<number> {
    return await runCommand("shell", async () => {
      const { values, positionals } = parseOptions("shell", args, {
        file: { type: "string", short: "f" },
        "keep-going": { type: "boolean", short: "k", default: false },
        json: { type: "boolean", default: false },
        device: { type: "string" },
        heap: { type: "string" },
        "no-history": { type: "boolean", default: false },
        "no-echo": { type: "boolean", default: false },
      }, true);
      if (positionals.length) {
        throw new UsageError(`shell: unexpected '${positionals[0]}' (a session file needs -f)`);
      }
      const session = new Session({
        ...(values.device !== undefined ? { device: values.device } : {}),
        ...(values.heap !== undefined ? { heap: values.heap } : {}),
      });
      const interactive = values.file === undefined && Deno.stdin.isTerminal();
      const colors = interactive && Deno.stdout.isTerminal() && !env("NO_COLOR");
      const shell = new Shell(session, {
        out: (t) => console.log(t),
        err: (t) => console.error(t),
      }, { json: values.json, colors });
      if (interactive) {
        return await runRepl(shell, {
          ...(values["no-history"] ? {} : { historyFile: historyPath(Deno.env.toObject()) }),
          banner: `axl ${denoJson.version} shell: 'help' lists commands; JavaScript works too ` +
            "(top-level await). Ctrl-D leaves.",
        });
      }
      let source: ReadableStream<Uint8Array>;
      if (values.file !== undefined) {
        try {
          source = (await Deno.open(values.file)).readable;
        } catch (err) {
          throw new UsageError(`shell: cannot read ${values.file}: ${(err as Error).message}`);
        }
      } else {
        source = Deno.stdin.readable;
      }
      const summary = await runScript(shell, source, {
        keepGoing: values["keep-going"],
        echo: !values["no-echo"],
        json: values.json,
      });
      return summary.code;
    });
  },
};

// Runnable on its own too: deno run -A tasks/commands/shell.ts [options].
if (import.meta.main) {
  Deno.exit(await command.run(Deno.args));
}
