// The interactive shell in a real terminal: tmux runs it in a pseudo-terminal, keys go in
// with send-keys and the screen comes back with capture-pane. Every step polls the screen
// with a deadline instead of sleeping, so the test is as fast as the shell and stable in CI.
import assert from "node:assert/strict";

const REPO = new URL("../../../", import.meta.url).pathname;
const SHELL = "tasks/commands/shell.ts";
const STEP_MS = 30_000;

class Tmux {
  readonly socket = `axl-shell-test-${Deno.pid}`;

  run(...args: string[]): string {
    let out: Deno.CommandOutput;
    try {
      out = new Deno.Command("tmux", { args: ["-L", this.socket, ...args], stdin: "null" })
        .outputSync();
    } catch (err) {
      if (err instanceof Deno.errors.NotFound) {
        throw new Error("tmux is not installed: apt-get install -y tmux (CI installs it)");
      }
      throw err;
    }
    const text = new TextDecoder().decode(out.stdout);
    if (!out.success) {
      throw new Error(`tmux ${args.join(" ")}: ${new TextDecoder().decode(out.stderr)}`);
    }
    return text;
  }

  start(name: string, env: Record<string, string>): number {
    const vars = Object.entries(env).map(([k, v]) => `${k}='${v}'`).join(" ");
    const cmd = `cd '${REPO}' && env ${vars} '${Deno.execPath()}' run --allow-all ${SHELL}; ` +
      `echo "[exit $?]"; sleep 600`;
    const t0 = performance.now();
    this.run("new-session", "-d", "-s", name, "-x", "120", "-y", "50", cmd);
    return t0;
  }

  keys(name: string, ...keys: string[]): void {
    this.run("send-keys", "-t", name, ...keys);
  }

  /** Types text literally (no key-name interpretation). */
  type(name: string, text: string): void {
    this.run("send-keys", "-t", name, "-l", text);
  }

  /** The screen and scrollback, without the blank lines below the cursor. */
  screen(name: string): string {
    return this.run("capture-pane", "-p", "-J", "-t", name, "-S", "-200").replace(/\n+$/, "");
  }

  async waitFor(name: string, re: RegExp, what: string, stepMs = STEP_MS): Promise<string> {
    const deadline = performance.now() + stepMs;
    for (;;) {
      const s = this.screen(name);
      if (re.test(s)) return s;
      if (performance.now() > deadline) {
        throw new Error(`timed out waiting for ${what} (${re}); screen:\n${s}`);
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  kill(): void {
    try {
      this.run("kill-server");
    } catch { /* already gone */ }
  }
}

Deno.test("shell in a terminal: completion, history, Ctrl-C, errors, Ctrl-D", async () => {
  const tmux = new Tmux();
  const state = await Deno.makeTempDir({ prefix: "axl-state-" });
  const env = { XDG_STATE_HOME: state, NO_COLOR: "1", AXL_DEVICE: "/nonexistent/axl" };
  const s = "one";
  try {
    const t0 = tmux.start(s, env);
    await tmux.waitFor(s, /^axl> $/m, "the first prompt");
    console.log(`start to prompt: ${Math.round(performance.now() - t0)} ms`);

    // Completion: a unique command, an option, then the list of a subcommand's words.
    tmux.type(s, "allo");
    tmux.keys(s, "Tab");
    await tmux.waitFor(s, /axl> alloc\s*$/, "'allo' completed to 'alloc'");
    tmux.type(s, " 4096 --fi");
    tmux.keys(s, "Tab");
    await tmux.waitFor(s, /axl> alloc 4096 --fill\s*$/, "'--fi' completed to '--fill'");
    tmux.keys(s, "C-u");
    tmux.type(s, "trace s");
    // readline lists the candidates on a Tab that follows a Tab; two keys that arrive in
    // one read can count as one, so press again until the list shows.
    for (let tries = 1;; tries++) {
      tmux.keys(s, "Tab");
      try {
        await tmux.waitFor(s, /start\s+stop\s+show/, "the subcommands listed", 1000);
        break;
      } catch (err) {
        if (tries === 10) throw err;
      }
    }
    tmux.keys(s, "C-u");

    // JavaScript with a variable completed from the scope.
    tmux.type(s, "const answer = 6 * 7");
    tmux.keys(s, "Enter");
    await tmux.waitFor(s, /axl> const answer = 6 \* 7\naxl> $/, "the declaration to run");
    tmux.type(s, "ans");
    tmux.keys(s, "Tab");
    await tmux.waitFor(s, /axl> answer\s*$/, "'ans' completed to 'answer'");
    tmux.keys(s, "Enter");
    await tmux.waitFor(s, /^42\naxl> $/m, "the value 42");

    // Ctrl-C cancels a running command and a pending await, not the shell.
    for (const input of ["sleep 60000", "await new Promise((r) => setTimeout(r, 60000))"]) {
      tmux.type(s, input);
      tmux.keys(s, "Enter");
      await tmux.waitFor(s, new RegExp(`axl> ${input.replace(/[()=>*]/g, "\\$&")}$`), input);
      tmux.keys(s, "C-c");
      await tmux.waitFor(s, /\^C\ncancelled \(Ctrl-C\)\naxl> $/, "the cancel");
    }

    // Ctrl-C at the prompt drops the typed line.
    tmux.type(s, "never run this");
    tmux.keys(s, "C-c");
    await tmux.waitFor(s, /axl> never run this\^C\naxl> $/, "the line dropped");

    // A bad line prints one error and the shell goes on.
    tmux.type(s, "nope");
    tmux.keys(s, "Enter");
    await tmux.waitFor(s, /^ReferenceError: nope is not defined\naxl> $/m, "one-line error");
    tmux.type(s, "info");
    tmux.keys(s, "Enter");
    await tmux.waitFor(
      s,
      /^error: device\.open\(\/nonexistent\/axl\) failed: ENOENT .*\naxl> $/m,
      "device error",
    );
    tmux.type(s, "1 + 1");
    tmux.keys(s, "Enter");
    await tmux.waitFor(s, /^2\naxl> $/m, "still alive");

    // Ctrl-D leaves with status 0.
    tmux.keys(s, "C-d");
    await tmux.waitFor(s, /^\[exit 0\]$/m, "exit status 0");

    const history = await Deno.readTextFile(`${state}/axl/history`);
    assert.deepEqual(history.trim().split("\n"), [
      "const answer = 6 * 7",
      "answer",
      "sleep 60000",
      "await new Promise((r) => setTimeout(r, 60000))",
      "nope",
      "info",
      "1 + 1",
    ]);

    // A new shell recalls the history with the Up key, newest first.
    const s2 = "two";
    tmux.start(s2, env);
    await tmux.waitFor(s2, /^axl> $/m, "the second shell's prompt");
    tmux.keys(s2, "Up");
    await tmux.waitFor(s2, /axl> 1 \+ 1\s*$/, "the newest entry");
    tmux.keys(s2, "Up");
    await tmux.waitFor(s2, /axl> info\s*$/, "the entry before");
    tmux.keys(s2, "Enter");
    await tmux.waitFor(s2, /^error: device\.open/m, "the recalled line ran");
    tmux.type(s2, "exit 4");
    tmux.keys(s2, "Enter");
    await tmux.waitFor(s2, /^\[exit 4\]$/m, "exit status 4");
  } finally {
    tmux.kill();
    await Deno.remove(state, { recursive: true });
  }
});
