// Private: runs one command module (tasks/commands/<name>.ts) directly, for commands the CLI
// registry does not list yet:  deno run -A bench/_run_command.ts shell --no-history
import type { Command } from "../tasks/command.ts";

const [name, ...args] = Deno.args;
if (!name || !/^[a-z][a-z0-9-]*$/.test(name)) {
  console.error("usage: _run_command.ts COMMAND [args...]");
  Deno.exit(3);
}
const mod = await import(`../tasks/commands/${name}.ts`) as { command: Command };
Deno.exit(await mod.command.run(args));
