/**
 * The shape every `axl` subcommand has, and how one is made from a declared command
 * (`lib/commands/<name>.ts`): its `--help` is built from the declaration, its
 * arguments are parsed by it, and the body only decides what to print. One adapter file
 * per command under `tasks/commands/`, registered by name in `tasks/registry.ts`.
 *
 * @module
 */
import { commandHelp } from "../lib/commands/help.ts";
import { type CommandSpec, parseCommandArgs, type ParsedArgs } from "../lib/commands/spec.ts";
import { ExitCode } from "../lib/commands/exit_code.ts";
import { runCommand } from "./_cli.ts";

/** A subcommand of the `axl` CLI. */
export interface Command {
  /** Name typed on the command line, e.g. `verify`. */
  readonly name: string;
  /** One line for the command list. */
  readonly summary: string;
  /** Full `--help` text: usage, options, exit codes. */
  readonly help: string;
  /** Runs the command with the arguments after its name; resolves to the exit code. */
  run(args: string[]): Promise<number>;
}

/**
 * The CLI command of `spec`: `-h`/`--help` prints its help, other arguments are parsed
 * by the declaration and handed to `body`; errors become one line and exit code 3.
 *
 * @example
 * ```ts
 * import { cliCommand } from "./command.ts";
 * const hello = cliCommand({
 *   name: "hello", summary: "greet", positionals: [], details: "",
 *   options: { loud: { type: "boolean", description: "shout" } },
 *   cli: { details: "Says hello.", exits: [[0, "ok"]] },
 * }, (args) => (console.log(args.values.loud ? "HELLO" : "hello"), 0));
 * console.log(hello.help.includes("--loud")); // true
 * ```
 */
export function cliCommand(
  spec: CommandSpec,
  body: (args: ParsedArgs) => Promise<number> | number,
): Command {
  const help = commandHelp(spec, "cli");
  return {
    name: spec.name,
    summary: spec.cli?.summary ?? spec.summary,
    help,
    run(args: string[]): Promise<number> {
      if (args.includes("--help") || args.includes("-h")) {
        console.log(help);
        return Promise.resolve(ExitCode.Ok);
      }
      return runCommand(spec.name, () => body(parseCommandArgs(spec, args, "cli")));
    },
  };
}
