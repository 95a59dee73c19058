// `axl ls --watch` against a running workload in the VM rig: the view runs in a tmux
// pane while a shell session attaches a frame to the Metis node, maps it for the CPU and
// detaches it; the pane must show the frame, the attachment gained and lost, and the
// process holding the mapping, and Ctrl-C must give the terminal back with exit 0. The
// --json form streams the same changes, one object per refresh.
import assert from "node:assert/strict";
import { MetisDevice } from "../../mod.ts";
import { metisInfo } from "../../lib/commands/info.ts";
import type { WatchRefresh } from "../../lib/shell/dmabuf_watch.ts";

const REPO = new URL("../../", import.meta.url).pathname;
const AXL = `${REPO}tasks/axl.ts`;
const DENO = Deno.execPath();

/** The PCI name bufinfo shows for the Metis node's device. */
function metisPci(): string {
  using dev = MetisDevice.open();
  const pci = metisInfo(dev).pci;
  assert.ok(pci, `${dev.path} is not on PCI`);
  return pci;
}

/**
 * A shell session on the Metis node, fed one input at a time: `step()` sends a line and
 * resolves with its JSON record once the shell ran it, so the test moves the workload on
 * only after the view has shown the previous step, however slowly the VM runs.
 */
class Workload {
  readonly child: Deno.ChildProcess;
  readonly #in: WritableStreamDefaultWriter<Uint8Array>;
  readonly #out: ReadableStreamDefaultReader<string>;
  #buffered = "";

  constructor() {
    this.child = new Deno.Command(DENO, {
      args: ["run", "--allow-all", AXL, "shell", "--device", "metis", "--json", "--no-history"],
      cwd: REPO,
      stdin: "piped",
      stdout: "piped",
      stderr: "inherit",
    }).spawn();
    this.#in = this.child.stdin.getWriter();
    this.#out = this.child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  }

  /** Runs `line` in the session; throws when it failed. */
  async step(line: string): Promise<{ ok: boolean; value?: unknown }> {
    await this.#in.write(new TextEncoder().encode(line + "\n"));
    for (;;) {
      const nl = this.#buffered.indexOf("\n");
      if (nl >= 0) {
        const record = JSON.parse(this.#buffered.slice(0, nl));
        this.#buffered = this.#buffered.slice(nl + 1);
        assert.ok(record.ok, `workload: ${line}: ${JSON.stringify(record)}`);
        return record;
      }
      const { value, done } = await this.#out.read();
      assert.ok(!done, `the workload ended at '${line}'`);
      this.#buffered += value;
    }
  }

  /** Ends the session (it releases everything) and checks it exited 0. */
  async end(): Promise<void> {
    await this.#in.close();
    while (!(await this.#out.read()).done) { /* the end record */ }
    assert.equal((await this.child.status).code, 0);
  }

  /** Kills a session a failed test left running. */
  kill(): void {
    try {
      this.child.kill();
    } catch (err) {
      if (!(err instanceof TypeError)) throw err; // it exited already
    }
  }
}

function tmux(...args: string[]): string {
  const out = new Deno.Command("tmux", { args, stdout: "piped", stderr: "piped" }).outputSync();
  const dec = new TextDecoder();
  if (!out.success) throw new Error(`tmux ${args.join(" ")}: ${dec.decode(out.stderr)}`);
  return dec.decode(out.stdout);
}

/** Captures the pane until `pattern` shows (the view redraws every 0.2 s); returns the screen. */
async function paneShows(
  session: string,
  pattern: RegExp,
  what: string,
  seconds = 180,
): Promise<string> {
  // a refresh scans every process's fds and maps: seconds in a loaded TCG guest
  const deadline = Date.now() + seconds * 1000;
  let screen = "";
  while (Date.now() < deadline) {
    screen = tmux("capture-pane", "-p", "-t", session);
    if (pattern.test(screen)) return screen;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(
    `the pane did not show ${what} within ${seconds} s (${pattern}); last screen:\n${screen}`,
  );
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

// The arm64 guest's root carries no tmux (scripts/vm/arm64/root.sh); the x86_64 guest runs the
// host's root, where the rig installs it. The --json test below runs on both.
Deno.test({
  name:
    "axl ls --watch in tmux shows a workload's frame gain and lose the card, its CPU mapping, and Ctrl-C exits 0",
  ignore: Deno.build.arch !== "x86_64",
}, async () => {
  const pci = escape(metisPci());
  const session = `axl-watch-${Deno.pid}`;
  tmux(
    "new-session",
    "-d",
    "-s",
    session,
    "-x",
    "220",
    "-y",
    "60",
    "bash",
    "--norc",
    "--noprofile",
  );
  let work: Workload | undefined;
  try {
    tmux(
      "send-keys",
      "-t",
      session,
      `cd ${REPO} && ${DENO} run --allow-all ${AXL} ls --watch --interval 0.2; echo axl-ls-exit=$?`,
      "Enter",
    );
    // deno starts in tens of seconds in a loaded TCG guest
    await paneShows(session, /^axl ls --watch {2}refresh \d+/m, "the view", 300);
    work = new Workload();
    await work.step("frame = alloc NV12 640x480 --fill pattern --name watch-frame");
    await work.step("att = attach frame");
    // the card's device attaches to the frame: marked +PCI, and listed as attached
    const row = (mark: string, attached: string) =>
      new RegExp(
        `^\\S*${mark}${pci}\\S*\\s+(\\d+)\\s+\\S+ \\S+\\s+system\\s+watch-frame\\s+${attached}\\s`,
        "m",
      );
    const screen = await paneShows(session, row("\\+", pci), "the attachment gained");
    const inode = row("\\+", pci).exec(screen)![1]!;
    await work.step("const acc = frame.cpuAccess({ read: true })");
    await paneShows(
      session,
      new RegExp(
        `^CPU-MAPPED {2}deno:${work.child.pid} maps \\d+ dma-buf\\(s\\) \\(inode [\\d, ]*\\b${inode}\\b`,
        "m",
      ),
      "the workload's CPU mapping",
    );
    await work.step("detach att");
    await paneShows(session, row("-", "-"), "the attachment lost");
    await work.end();
    tmux("send-keys", "-t", session, "C-c");
    // the alternate screen is gone: the shell prompt's screen shows the exit status
    const after = await paneShows(session, /^axl-ls-exit=\d+$/m, "the exit status");
    assert.match(after, /^axl-ls-exit=0$/m);
    assert.doesNotMatch(after, /refresh \d+/, "the view's screen was left behind");
  } finally {
    work?.kill();
    await work?.child.status;
    try {
      tmux("kill-session", "-t", session);
    } catch { /* already gone */ }
  }
});

Deno.test("axl ls --watch --json streams one refresh per line with the workload's attach and detach", async () => {
  const pci = metisPci();
  const watch = new Deno.Command(DENO, {
    args: ["run", "--allow-all", AXL, "ls", "--watch", "--json", "--interval", "0.2"],
    cwd: REPO,
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const lines = watch.stdout.pipeThrough(new TextDecoderStream()).getReader();
  const work = new Workload();
  let buffered = "";
  let refreshes = 0;
  /** Reads refreshes until `seen` says one shows what it waits for, within `seconds`. */
  const until = async (what: string, seen: (r: WatchRefresh) => boolean, seconds = 180) => {
    // TCG under load starts deno and scans /proc slowly
    const deadline = Date.now() + seconds * 1000;
    for (;;) {
      const nl = buffered.indexOf("\n");
      if (nl < 0) {
        assert.ok(Date.now() < deadline, `no refresh showed ${what} in ${seconds} s`);
        const { value, done } = await lines.read();
        assert.ok(!done, "the watch ended on its own");
        buffered += value;
        continue;
      }
      const r = JSON.parse(buffered.slice(0, nl)) as WatchRefresh;
      buffered = buffered.slice(nl + 1);
      assert.equal(r.refresh, ++refreshes, "one object per refresh, in order");
      if (seen(r)) return r;
    }
  };
  try {
    await until("the first refresh", () => true, 300);
    await work.step("frame = alloc NV12 640x480 --fill pattern --name watch-json");
    await work.step("att = attach frame");
    const attached = await until(
      "the attachment",
      (r) =>
        r.changes.some((c) =>
          c.kind === "attached" && c.device === pci &&
          r.buffers.find((b) => b.inode === c.inode)?.name === "watch-json"
        ),
    );
    const inode = attached.buffers.find((b) => b.name === "watch-json")!.inode;
    await work.step("const acc = frame.cpuAccess({ read: true })");
    await until(
      "the CPU mapping",
      (r) => r.cpuMappers.some((m) => m.pid === work.child.pid && m.inodes.includes(inode)),
    );
    await work.step("detach att");
    await until(
      "the detach",
      (r) => r.changes.some((c) => c.kind === "detached" && c.device === pci && c.inode === inode),
    );
    await work.end();
    await until(
      "the frame gone",
      (r) => r.changes.some((c) => c.kind === "gone" && c.inode === inode),
    );
  } finally {
    watch.kill("SIGINT");
    work.kill();
    await work.child.status;
  }
  assert.equal((await watch.status).code, 0, "SIGINT ends the watch with exit 0");
  await lines.cancel();
});
