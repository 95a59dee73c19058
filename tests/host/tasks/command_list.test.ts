// axl --help prints the command list of tasks/command_list.ts without loading the commands:
// that list has to stay the registry's.
import assert from "node:assert/strict";
import { COMMAND_LIST } from "../../../tasks/command_list.ts";
import { COMMANDS } from "../../../tasks/registry.ts";
import { ExitCode } from "../../../lib/commands/exit_code.ts";

Deno.test("COMMAND_LIST names every registered command, in order, with its summary", () => {
  assert.deepEqual(
    COMMAND_LIST.map((c) => [c.name, c.summary]),
    COMMANDS.map((c) => [c.name, c.summary]),
  );
});

Deno.test("tasks/axl.ts loads the registry only when a command runs, by a dynamic import", async () => {
  const cli = new URL("../../../tasks/axl.ts", import.meta.url).pathname;
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", cli],
    stdout: "piped",
    stderr: "null",
  }).output();
  assert.equal(out.code, 0);
  const graph = JSON.parse(new TextDecoder().decode(out.stdout)) as {
    modules: { specifier: string; dependencies?: { specifier: string; isDynamic?: boolean }[] }[];
  };
  const axl = graph.modules.find((m) => m.specifier.endsWith("/tasks/axl.ts"))!;
  const deps = (axl.dependencies ?? []).map((d) => [d.specifier, d.isDynamic === true]);
  assert.deepEqual(deps.sort(), [
    ["../deno.json", false],
    ["./command_list.ts", false],
    ["./commands/shell.ts", true],
    ["./registry.ts", true],
  ]);
  const list = graph.modules.find((m) => m.specifier.endsWith("/tasks/command_list.ts"))!;
  assert.deepEqual(list.dependencies ?? [], []);
});

Deno.test("axl's own exit codes are ExitCode's", () => {
  // tasks/axl.ts spells out Ok and CannotRun so as not to import exit_code.ts.
  assert.equal(ExitCode.Ok, 0);
  assert.equal(ExitCode.CannotRun, 3);
});
