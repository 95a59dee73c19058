// The shell's `help`, `COMMAND --help` and Tab completion of options for the commands
// it shares with the `axl` CLI, pinned so that deriving them from one spec loses nothing.
import assert from "node:assert/strict";
import { complete } from "../../../lib/shell/completer.ts";
import { Session } from "../../../lib/shell/session.ts";
import { Shell } from "../../../lib/shell/shell.ts";
import { DEFAULT_ACCEPTED_EXPORTERS } from "../../../lib/verify/judge.ts";

async function shellOutput(input: string): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const shell = new Shell(new Session({ device: "/nonexistent/axl" }), {
    out: (t) => out.push(t),
    err: (t) => err.push(t),
  });
  const r = await shell.execute(input, new AbortController().signal);
  return { code: r.code, out: out.join("\n"), err: err.join("\n") };
}

const flat = (text: string): string => text.replace(/\s+/g, " ");

/** Options each shared command takes in the shell (Tab offers these and --help). */
const SHELL_OPTIONS: Record<string, string[]> = {
  info: ["--device"],
  doctor: ["--device"],
  heaps: [],
  run: ["--frames", "--mode", "--producer", "--heap", "--timeout", "--model"],
  verify: [
    "--frames",
    "--mode",
    "--producer",
    "--camera",
    "--size",
    "--job-timeout",
    "--config",
    "--pid",
    "--duration",
    "--artifacts",
    "--accept-exporter",
    "--threshold",
    "--buffer-kb",
    "--bufinfo-interval",
    "--importer",
    "--evidence",
    "--no-probes",
    "--no-process-probes",
    "--no-graph",
    "--no-stream",
    "--no-perf",
    "--junit",
    "--metrics",
  ],
  caps: [
    "--pipeline",
    "--filter",
    "--inspect-dir",
    "--no-gst-inspect",
    "--require-memory",
    "--verbose",
  ],
};

/** Phrases each shared command's shell help keeps (whitespace runs collapsed). */
const SHELL_FACTS: Record<string, string[]> = {
  info: [
    "info [options]",
    "show the NPU driver's ABI, engine, attach device and limits.",
    "--device PATH",
    "'this file' counts the imports and jobs this session holds",
  ],
  doctor: [
    "doctor [options]",
    "--device PATH",
    "Exit status 1 when a check FAILs; WARNs are limits, not failures",
  ],
  heaps: ["heaps", "list the DMA heaps under /dev/dma_heap.", "The value is the array of names"],
  run: [
    "run [options]",
    "-n, --frames N",
    "frames (default 30)",
    "--mode zero-copy|copy",
    "--producer PRODUCER",
    "--heap HEAP",
    "--timeout MS",
    "per-job timeout (default 2000)",
    "--model ID",
    "model id (default 0)",
    "Exit status 1 when a frame's result differed from the reference",
  ],
  verify: [
    "verify [options] [-- COMMAND...]",
    "-n, --frames N",
    "the builtin's count (default 60)",
    "observe --pid for at most S seconds",
    "--mode zero-copy|copy",
    "auto (v4l2 when a capture device exists, else heap; in copy mode heap), v4l2, heap, or in the shell a producer variable (default auto)",
    "--size WxH",
    "--camera PATH",
    "output directory (default artifacts/verify)",
    `default ${DEFAULT_ACCEPTED_EXPORTERS.join(", ")})`,
    "I4 copy-routine threshold in percent self (default 1)",
    "--buffer-kb KIB",
    "bufinfo sampling interval (default 20; 1000, a cross-check, when the dma-buf attach events name inode and exporter, except with --pid)",
    "no perf (I4 is then SKIP)",
    "0 PASS",
    "1 FAIL",
    "2 SKIP or INCONCLUSIVE",
    "3 could not run",
    "Ctrl-C stops the frames; the run is judged on what was captured",
  ],
  caps: [
    "caps [ELEMENT|CAPS|!...] [options]",
    "-p, --pipeline DESC",
    "--filter CAPS",
    "-d, --inspect-dir DIR",
    "-m, --require-memory FEATURE",
    "-v, --verbose",
    "caps videotestsrc ! 'video/x-raw(memory:DMABuf)' ! fakesink",
    "Exit status 1 when a link does not negotiate or misses --require-memory; 3 when an element cannot be read",
  ],
};

Deno.test("help lists every shell command in order with its summary", async () => {
  const r = await shellOutput("help");
  assert.equal(r.code, 0);
  const list = r.out.split("\n\n")[0]!.split("\n").slice(1).map((l) => l.trim().split(/\s+/)[0]);
  assert.deepEqual(list, [
    "info",
    "doctor",
    "heaps",
    "alloc",
    "ls",
    "import",
    "submit",
    "transfer",
    "wait",
    "release",
    "produce",
    "run",
    "trace",
    "verify",
    "caps",
    "objects",
    "vars",
    "sleep",
    "help",
    "exit",
  ]);
  assert.match(
    r.out,
    /^ {2}verify {4}prove the zero-copy path \(I1–I4\) on the builtin workload; value: result\.json$/m,
  );
  assert.match(
    r.out,
    /^ {2}run {7}run the builtin workload \(N frames import\/submit\/wait\/release\); value: the report$/m,
  );
  assert.ok(r.out.endsWith("help COMMAND shows its options."));
});

Deno.test("help COMMAND and COMMAND --help show the shared commands' options", async () => {
  for (const [name, facts] of Object.entries(SHELL_FACTS)) {
    const help = await shellOutput(`help ${name}`);
    assert.equal(help.code, 0, name);
    assert.equal((await shellOutput(`${name} --help`)).out, help.out, name);
    const text = flat(help.out);
    for (const fact of facts) assert.ok(text.includes(flat(fact)), `help ${name} lost: ${fact}`);
    for (const flag of SHELL_OPTIONS[name]!) assert.ok(text.includes(flag), `${name}: ${flag}`);
  }
});

Deno.test("Tab offers each shared command's shell options", () => {
  const s = new Session();
  for (const [name, options] of Object.entries(SHELL_OPTIONS)) {
    assert.deepEqual(complete(`${name} --`, s)[0], [...options, "--help"], name);
  }
  assert.deepEqual(complete("verify --mode ", s)[0], ["zero-copy", "copy"]);
  assert.deepEqual(complete("run --mode c", s)[0], ["copy"]);
});

Deno.test("shared commands reject bad options in the shell with exit 3", async () => {
  for (const name of Object.keys(SHELL_OPTIONS)) {
    const r = await shellOutput(`${name} --bogus`);
    assert.equal(r.code, 3, name);
    assert.match(r.err, new RegExp(`${name}: Unknown option '--bogus' \\(try 'help ${name}'\\)`));
  }
  const cases: [string, RegExp][] = [
    ["run extra", /run: unexpected 'extra'/],
    ["run --mode fast", /run: --mode must be zero-copy or copy, got 'fast'/],
    ["run --frames 0", /run: --frames must be an integer >= 1, got '0'/],
    ["verify extra", /verify: unexpected 'extra'/],
    ["verify --mode fast", /verify: --mode must be zero-copy or copy, got 'fast'/],
    ["verify --frames 0", /verify: --frames must be an integer >= 1, got '0'/],
    ["verify --threshold 0", /verify: --threshold must be a percentage in \(0, 100\], got '0'/],
    ["verify --threshold -1", /verify: --threshold must be a percentage in \(0, 100\], got '-1'/],
    ["verify --size 641x480", /verify: --size must be WIDTHxHEIGHT, even, 16\.\.8192 each/],
    ["verify --size big", /verify: --size must be WIDTHxHEIGHT/],
    ["caps", /caps: nothing to check: give two elements or a pipeline/],
    ["caps a", /caps: expected two elements, got 1 \(separate pipeline elements with "!"\)/],
    ["caps -p 'a ! b' a ! b", /caps: give the pipeline either with --pipeline or as arguments/],
    ["caps -m NVMM a b", /caps: --require-memory "NVMM" is not a caps feature such as memory:NVMM/],
  ];
  for (const [input, message] of cases) {
    const r = await shellOutput(input);
    assert.equal(r.code, 3, input);
    assert.match(r.err, message, input);
  }
});
