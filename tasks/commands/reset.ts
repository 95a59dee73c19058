/**
 * `axl reset`: puts back the tracefs state a killed verify left behind
 * (lib/commands/reset.ts).
 *
 * @module
 */
import { cliCommand } from "../command.ts";
import { resetSpec, resetTracefs } from "../../lib/commands/reset.ts";
import { printJson } from "../_cli.ts";

/** The `reset` command. */
export const command = cliCommand(resetSpec, (args) => {
  const { text, code, ...outcome } = resetTracefs();
  if (args.values.json) printJson(outcome);
  else console.log(text);
  return code;
});

if (import.meta.main) {
  Deno.exit(await command.run(Deno.args));
}
