/**
 * `caps`: format/caps negotiation between producer and NPU. lib/caps (the formats
 * issue) has not landed yet; until it does this command says so and fails with exit
 * status 3 instead of pretending.
 *
 * @module
 */
import { type ShellCommand, UsageError } from "../command.ts";

/** The `caps` command. */
export const command: ShellCommand = {
  name: "caps",
  summary: "negotiate formats/caps between producer and NPU (not available yet)",
  positionals: [],
  options: {},
  details: "Not available in this build: lib/caps has not landed.",
  run() {
    return Promise.reject(
      new UsageError("caps: not available yet: lib/caps (the formats issue) has not landed"),
    );
  },
};
