/**
 * Start-up costs on the host: a Deno program that does nothing (the runtime's floor), the CLI
 * printing its help (directly and through `deno task`), and the device shell from start to its
 * first prompt (on a pseudo-terminal, through `script(1)`, since the shell is interactive only
 * on a terminal).
 *
 * @module
 */
import { summarize, type Summary } from "./_stats.ts";

/** One start-up measurement. */
export interface StartupResult {
  /** What was started. */
  name: string;
  /** The command line. */
  command: string[];
  /** Wall ms per start. */
  ms: Summary;
  /** Exit code of the last start. */
  exitCode: number;
  /** How it was started, when that needs saying. */
  note?: string;
}

const root = decodeURIComponent(new URL("..", import.meta.url).pathname).replace(/\/$/, "");

async function timeCommand(cmd: string[]): Promise<{ ms: number; code: number }> {
  const t0 = performance.now();
  const out = await new Deno.Command(cmd[0]!, {
    args: cmd.slice(1),
    cwd: root,
    stdout: "null",
    stderr: "null",
    stdin: "null",
  }).output();
  return { ms: performance.now() - t0, code: out.code };
}

/**
 * Runs `cmd` once to warm caches, then `reps` times, timing each start to exit.
 *
 * @example
 * ```ts ignore
 * import { timeStarts } from "./startup.ts";
 * console.log((await timeStarts("help", ["deno", "run", "-A", "tasks/axl.ts", "--help"], 5)).ms);
 * ```
 */
export async function timeStarts(
  name: string,
  cmd: string[],
  reps: number,
): Promise<StartupResult> {
  await timeCommand(cmd);
  const ms: number[] = [];
  let code = 0;
  for (let i = 0; i < reps; i++) {
    const r = await timeCommand(cmd);
    ms.push(r.ms);
    code = r.code;
  }
  return { name, command: cmd, ms: summarize(ms), exitCode: code };
}

/** Whether `axl shell` is a registered command (else the module is run directly). */
async function shellRegistered(): Promise<boolean> {
  const out = await new Deno.Command("deno", {
    args: ["run", "-A", "tasks/axl.ts", "shell", "--help"],
    cwd: root,
    stdout: "null",
    stderr: "null",
  }).output();
  return out.success;
}

async function toPrompt(cmd: string[], timeoutMs: number): Promise<number> {
  const t0 = performance.now();
  const child = new Deno.Command("script", {
    args: ["-qfec", cmd.map((a) => `'${a.replaceAll("'", `'\\''`)}'`).join(" "), "/dev/null"],
    cwd: root,
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
    env: { TERM: "dumb", NO_COLOR: "1" },
  }).spawn();
  const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
  const decoder = new TextDecoder();
  let seen = "", ms = NaN;
  const writer = child.stdin.getWriter();
  for await (const chunk of child.stdout) {
    seen += decoder.decode(chunk, { stream: true });
    if (Number.isNaN(ms) && seen.includes("axl> ")) {
      ms = performance.now() - t0;
      await writer.write(new TextEncoder().encode("exit\n"));
      await writer.close();
    }
  }
  clearTimeout(timer);
  await child.status;
  if (Number.isNaN(ms)) {
    throw new Error(`no 'axl> ' prompt within ${timeoutMs} ms: ${seen.slice(-300)}`);
  }
  return ms;
}

/**
 * Times the shell from start to its first prompt, `reps` times after a warm-up.
 *
 * @example
 * ```ts ignore
 * import { shellToPrompt } from "./startup.ts";
 * console.log((await shellToPrompt(5)).ms.median);
 * ```
 */
export async function shellToPrompt(reps: number): Promise<StartupResult> {
  const registered = await shellRegistered();
  const cmd = registered
    ? ["deno", "run", "-A", "tasks/axl.ts", "shell", "--no-history"]
    : ["deno", "run", "-A", "bench/_run_command.ts", "shell", "--no-history"];
  await toPrompt(cmd, 60_000);
  const ms: number[] = [];
  for (let i = 0; i < reps; i++) ms.push(await toPrompt(cmd, 60_000));
  const r: StartupResult = {
    name: "shell: start to first prompt",
    command: cmd,
    ms: summarize(ms),
    exitCode: 0,
  };
  if (!registered) {
    r.note = "'shell' is not registered in tasks/registry.ts yet: its module was run directly";
  }
  return r;
}

/** Every start-up measurement, `reps` starts each. */
export async function measureStartup(reps = 5): Promise<StartupResult[]> {
  await Deno.mkdir(`${root}/build/bench`, { recursive: true });
  const empty = `${root}/build/bench/empty.ts`;
  await Deno.writeTextFile(empty, "\n");
  return [
    await timeStarts("deno: empty program (runtime floor)", ["deno", "run", empty], reps),
    await timeStarts("axl --help (deno run tasks/axl.ts)", [
      "deno",
      "run",
      "-A",
      "tasks/axl.ts",
      "--help",
    ], reps),
    await timeStarts("axl --help (deno task axl)", ["deno", "task", "-q", "axl", "--help"], reps),
    await shellToPrompt(reps),
  ];
}

if (import.meta.main) {
  for (const r of await measureStartup(Number(Deno.args[0] ?? 5))) {
    console.log(JSON.stringify(r));
  }
}
