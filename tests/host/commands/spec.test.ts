// One declaration, two surfaces: what parseCommandArgs() and commandHelp() make of a
// CommandSpec on the command line and in the shell.
import assert from "node:assert/strict";
import { commandHelp } from "../../../lib/commands/help.ts";
import {
  type CommandSpec,
  optionsOf,
  parseCommandArgs,
  UsageError,
} from "../../../lib/commands/spec.ts";

const SPEC: CommandSpec = {
  name: "probe",
  summary: "probe a thing",
  positionals: [],
  options: {
    count: { type: "string", short: "n", arg: "N", description: "how many", default: "3" },
    dir: { type: "string", arg: "DIR", description: "where\nand why", multiple: true },
    json: { type: "boolean", description: "JSON", only: "cli" },
    session: { type: "string", description: "a session object", only: "shell" },
  },
  details: "Shell details.",
  cli: {
    details: "CLI details.",
    epilogue: "After the options.",
    exits: [[0, "ok"], [3, "could not run:\nthe message says why"], [130, "interrupted"]],
  },
};

Deno.test("optionsOf() keeps the options of one surface", () => {
  assert.deepEqual(Object.keys(optionsOf(SPEC, [], "cli")), ["count", "dir", "json"]);
  assert.deepEqual(Object.keys(optionsOf(SPEC, [], "shell")), ["count", "dir", "session"]);
});

Deno.test("parseCommandArgs() fills defaults, collects repeated options, and knows its surface", () => {
  const a = parseCommandArgs(SPEC, ["--dir", "a", "-n", "5", "--dir", "b"], "cli");
  assert.deepEqual({ ...a.values }, { count: "5", dir: ["a", "b"] });
  assert.deepEqual({ ...parseCommandArgs(SPEC, [], "shell").values }, { count: "3" });
  assert.throws(
    () => parseCommandArgs(SPEC, ["--session", "x"], "cli"),
    (e: Error) => e instanceof UsageError && /^probe: Unknown option '--session'/.test(e.message),
  );
  assert.throws(
    () => parseCommandArgs(SPEC, ["--json"], "shell"),
    (e: Error) =>
      e instanceof UsageError && e.message === "probe: Unknown option '--json' (try 'help probe')",
  );
  // The command line rejects stray words when none are declared; the shell hands them on.
  assert.throws(() => parseCommandArgs(SPEC, ["x"], "cli"), /probe: Unexpected argument 'x'/);
  assert.deepEqual(parseCommandArgs(SPEC, ["x"], "shell").positionals, ["x"]);
});

Deno.test("commandHelp() on the command line: usage, details, options with defaults, exit codes", () => {
  assert.equal(
    commandHelp(SPEC, "cli"),
    [
      "Usage: axl probe [options]",
      "",
      "CLI details.",
      "",
      "Options:",
      "  -n, --count N  how many (default 3)",
      "      --dir DIR  where",
      "                 and why",
      "      --json     JSON",
      "  -h, --help     this text",
      "",
      "After the options.",
      "",
      "Exit codes:",
      "    0 ok",
      "    3 could not run:",
      "      the message says why",
      "  130 interrupted",
    ].join("\n"),
  );
});

Deno.test("commandHelp() in the shell: its own options and details, no exit table", () => {
  assert.equal(
    commandHelp(SPEC, "shell"),
    [
      "probe [options]",
      "",
      "probe a thing.",
      "",
      "Shell details.",
      "",
      "Options:",
      "  -n, --count N        how many (default 3)",
      "      --dir DIR        where",
      "                       and why",
      "      --session VALUE  a session object",
    ].join("\n"),
  );
  const shellOnly = { ...SPEC, cli: undefined };
  assert.throws(() => commandHelp(shellOnly, "cli"), /probe is not a command of the axl CLI/);
});
