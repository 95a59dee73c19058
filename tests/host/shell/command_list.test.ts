// The shell classifies lines, lists commands and completes command words from the static
// SHELL_COMMAND_LIST and loads a command's module when the command first runs: the list
// has to stay what the modules declare, every module has to load, and start-up must not
// load them (nor the drivers and the library) before the first prompt.
import assert from "node:assert/strict";
import { SHELL_COMMAND_LIST } from "../../../lib/shell/command_list.ts";
import { loadedShellCommand, loadShellCommand } from "../../../lib/shell/registry.ts";

const root = new URL("../../../", import.meta.url);

Deno.test("SHELL_COMMAND_LIST has one entry per command module, in help's order, as each declares itself", async () => {
  const files = [...Deno.readDirSync(new URL("lib/shell/commands/", root))]
    .map((e) => e.name.replace(/\.ts$/, ""))
    .sort();
  assert.deepEqual(SHELL_COMMAND_LIST.map((c) => c.name).sort(), files);
  for (const entry of SHELL_COMMAND_LIST) {
    const command = await entry.load();
    assert.deepEqual(
      [command.name, command.aliases ?? [], command.summary],
      [entry.name, entry.aliases ?? [], entry.summary],
    );
    assert.equal(typeof command.run, "function", entry.name);
  }
});

Deno.test("loadShellCommand() loads a command by name or alias, and loadedShellCommand() then has it", async () => {
  assert.equal((await loadShellCommand("quit"))?.name, "exit");
  assert.equal(loadedShellCommand("exit")?.name, "exit");
  assert.equal(await loadShellCommand("nonesuch"), undefined);
});

/** Every module `entry` imports statically, directly or not (dynamic imports left out). */
async function staticClosure(entry: string): Promise<string[]> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", new URL(entry, root).pathname],
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  const graph = JSON.parse(new TextDecoder().decode(out.stdout)) as {
    roots: string[];
    redirects?: Record<string, string>;
    modules: {
      specifier: string;
      dependencies?: { isDynamic?: boolean; code?: { specifier?: string } }[];
    }[];
  };
  const bySpecifier = new Map(graph.modules.map((m) => [m.specifier, m]));
  const seen = new Set<string>();
  const todo = [...graph.roots];
  while (todo.length) {
    const s = todo.pop()!;
    if (seen.has(s)) continue;
    seen.add(s);
    for (const d of bySpecifier.get(s)?.dependencies ?? []) {
      const to = d.code?.specifier;
      if (!d.isDynamic && to) todo.push(graph.redirects?.[to] ?? to);
    }
  }
  return [...seen].map((s) => s.startsWith(root.href) ? s.slice(root.href.length) : s);
}

Deno.test("axl shell imports no command module, driver, schema library or axl library before its prompt", async () => {
  const loaded = await staticClosure("tasks/commands/shell.ts");
  assert.ok(loaded.includes("lib/shell/repl.ts"), loaded.join("\n"));
  const early = loaded.filter((m) =>
    m.startsWith("lib/shell/commands/") || m.includes("zod") ||
    ["mod.ts", "lib/shell/modules.ts", "lib/core/device.ts", "lib/core/metis/device.ts"]
      .includes(m)
  );
  assert.deepEqual(early, []);
});

Deno.test("every command loader is a literal import(), which deno compile puts in the binary", async () => {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", new URL("lib/shell/command_list.ts", root).pathname],
    stdout: "piped",
    stderr: "null",
  }).output();
  const graph = JSON.parse(new TextDecoder().decode(out.stdout)) as {
    modules: { specifier: string; dependencies?: { specifier: string; isDynamic?: boolean }[] }[];
  };
  const list = graph.modules.find((m) => m.specifier.endsWith("/lib/shell/command_list.ts"))!;
  const dynamic = (list.dependencies ?? []).filter((d) => d.isDynamic).map((d) => d.specifier);
  assert.deepEqual(
    dynamic.sort(),
    SHELL_COMMAND_LIST.map((c) => `./commands/${c.name}.ts`).sort(),
  );
});
