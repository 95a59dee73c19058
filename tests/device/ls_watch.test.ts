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

/** A shell session on the Metis node that holds `name` attached, then mapped, then detached. */
function workload(name: string): Deno.ChildProcess {
  const script = [
    `frame = alloc NV12 640x480 --fill pattern --name ${name}`,
    "att = attach frame",
    "sleep 3000",
    "const acc = frame.cpuAccess({ read: true })",
    "sleep 3000",
    "detach att",
    "sleep 3000",
  ].join("\n") + "\n";
  const child = new Deno.Command(DENO, {
    args: ["run", "--allow-all", AXL, "shell", "--device", "metis", "--json", "--no-history"],
    cwd: REPO,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const w = child.stdin.getWriter();
  w.write(new TextEncoder().encode(script)).then(() => w.close());
  return child;
}

function tmux(...args: string[]): string {
  const out = new Deno.Command("tmux", { args, stdout: "piped", stderr: "piped" }).outputSync();
  const dec = new TextDecoder();
  if (!out.success) throw new Error(`tmux ${args.join(" ")}: ${dec.decode(out.stderr)}`);
  return dec.decode(out.stdout);
}

/** Captures the pane until `pattern` shows (the view redraws every 0.2 s); returns the screen. */
async function paneShows(session: string, pattern: RegExp, what: string): Promise<string> {
  const deadline = Date.now() + 90_000; // TCG under load starts a deno process in seconds
  let screen = "";
  while (Date.now() < deadline) {
    screen = tmux("capture-pane", "-p", "-t", session);
    if (pattern.test(screen)) return screen;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`the pane did not show ${what} within 90 s (${pattern}); last screen:\n${screen}`);
}

/** Ends a workload that may have finished already. */
function stop(child: Deno.ChildProcess | undefined): void {
  try {
    child?.kill();
  } catch (err) {
    if (!(err instanceof TypeError)) throw err; // it exited on its own
  }
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

Deno.test("axl ls --watch in tmux shows a workload's frame gain and lose the card, its CPU mapping, and Ctrl-C exits 0", async () => {
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
  let child: Deno.ChildProcess | undefined;
  try {
    tmux(
      "send-keys",
      "-t",
      session,
      `cd ${REPO} && ${DENO} run --allow-all ${AXL} ls --watch --interval 0.2; echo axl-ls-exit=$?`,
      "Enter",
    );
    await paneShows(session, /^axl ls --watch {2}refresh \d+/m, "the view");
    child = workload("watch-frame");
    // the frame appears, then the card's device attaches (marked +PCI)
    const attached = await paneShows(
      session,
      new RegExp(`^\\S*\\+${pci}\\S*\\s+\\d+\\s+\\S+ \\S+\\s+system\\s+watch-frame\\s+${pci}`, "m"),
      "the attachment gained",
    );
    const inode = new RegExp(`(\\d+)\\s+\\S+ \\S+\\s+system\\s+watch-frame`).exec(attached)![1]!;
    await paneShows(
      session,
      new RegExp(
        `^CPU-MAPPED {2}deno:${child.pid} maps \\d+ dma-buf\\(s\\) \\(inode [\\d, ]*\\b${inode}\\b`,
        "m",
      ),
      "the workload's CPU mapping",
    );
    await paneShows(
      session,
      new RegExp(`^\\S*-${pci}\\S*\\s+${inode}\\s+\\S+ \\S+\\s+system\\s+watch-frame\\s+-\\s`, "m"),
      "the attachment lost",
    );
    tmux("send-keys", "-t", session, "C-c");
    // the alternate screen is gone: the shell prompt's screen shows the exit status
    const after = await paneShows(session, /^axl-ls-exit=\d+$/m, "the exit status");
    assert.match(after, /^axl-ls-exit=0$/m);
    assert.doesNotMatch(after, /refresh \d+/, "the view's screen was left behind");
    const out = await child.output();
    assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  } finally {
    stop(child);
    await child?.status;
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
    stderr: "piped",
  }).spawn();
  const lines = watch.stdout.pipeThrough(new TextDecoderStream()).getReader();
  const child = workload("watch-json");
  const refreshes: WatchRefresh[] = [];
  let buffered = "";
  let inode: number | undefined;
  const seen = new Set<string>();
  try {
    const deadline = Date.now() + 90_000; // TCG under load starts a deno process in seconds
    while (!(seen.has("attached") && seen.has("detached") && seen.has("mapped"))) {
      assert.ok(Date.now() < deadline, `saw ${[...seen]} in ${refreshes.length} refreshes`);
      const { value, done } = await lines.read();
      assert.ok(!done, "the watch ended on its own");
      buffered += value;
      let nl;
      while ((nl = buffered.indexOf("\n")) >= 0) {
        const r = JSON.parse(buffered.slice(0, nl)) as WatchRefresh;
        buffered = buffered.slice(nl + 1);
        assert.equal(r.refresh, refreshes.length + 1, "one object per refresh, in order");
        refreshes.push(r);
        inode ??= r.buffers.find((b) => b.name === "watch-json")?.inode;
        for (const c of r.changes) {
          if (c.inode === inode && c.device === pci) seen.add(c.kind);
        }
        if (r.cpuMappers.some((m) => m.pid === child.pid && m.inodes.includes(inode!))) {
          seen.add("mapped");
        }
      }
    }
  } finally {
    watch.kill("SIGINT");
    stop(child);
    await child.status;
  }
  const status = await watch.status;
  assert.equal(status.code, 0, "SIGINT ends the watch with exit 0");
  await lines.cancel();
  await watch.stderr.cancel();
});
