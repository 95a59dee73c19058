/**
 * The `axl` command-line entry point: `axl <command> [options]`. Shared by the deno
 * tasks and the compiled binary.
 *
 * @module
 */
import { COMMAND_LIST } from "./command_list.ts";
import denoJson from "../deno.json" with { type: "json" };

// Exit codes of lib/commands/exit_code.ts, which is not imported: `axl --help` and
// `--version` load nothing but this file and the command list.
const OK = 0;
const CANNOT_RUN = 3;

/**
 * The commands, loaded when one runs (they pull in the whole library). The shell loads
 * alone: it must reach its prompt fast, and loads its own commands as they are used.
 */
async function findCommand(name: string) {
  if (name === "shell") return (await import("./commands/shell.ts")).command;
  const { findCommand } = await import("./registry.ts");
  return findCommand(name);
}

/** Text of `axl --help`. */
export function usage(): string {
  const width = Math.max(...COMMAND_LIST.map((c) => c.name.length));
  return [
    `axl ${denoJson.version}: drive and verify the zero-copy camera → NPU frame path`,
    "",
    "Usage: axl <command> [options]      axl <command> --help for its options",
    "       axl                          the device shell",
    "",
    "Commands:",
    ...COMMAND_LIST.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    "",
    "Exit codes: 0 ok, 1 failed, 2 inconclusive or skipped, 3 could not run (bad usage, no",
    "device, tool or permission), 130 interrupted. The same in the shell (docs/outputs.md).",
  ].join("\n");
}

/** Runs `axl` with `args`; resolves to the exit code. */
export async function main(args: string[]): Promise<number> {
  const [name, ...rest] = args;
  // No command: the device shell (a REPL on a terminal, a script on piped stdin).
  if (name === undefined) return await (await findCommand("shell"))!.run([]);
  if (name === "--help" || name === "-h" || name === "help") {
    console.log(usage());
    return OK;
  }
  if (name === "--version") {
    console.log(`axl ${denoJson.version}`);
    return OK;
  }
  if (!COMMAND_LIST.some((c) => c.name === name)) {
    console.error(`axl: unknown command '${name}'\n\n${usage()}`);
    return CANNOT_RUN;
  }
  const command = (await findCommand(name))!;
  return await command.run(rest);
}

if (import.meta.main) {
  // `deno task` runs in the project root and names the caller's directory INIT_CWD:
  // paths the user gives (--artifacts, -f FILE, --replay, --config) are the caller's.
  const caller = Deno.env.get("INIT_CWD");
  if (caller) Deno.chdir(caller);
  Deno.exit(await main(Deno.args));
}
