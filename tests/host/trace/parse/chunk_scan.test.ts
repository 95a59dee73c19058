// The C chunk scanner (ffi/src/trace_scan.c through scanFtraceChunks) against the TypeScript
// scanner it mirrors: the same facts, to the order of their keys, on every captured trace,
// on generated ones, on odd lines and on random damage; and no crash on random bytes.
import assert from "node:assert/strict";
import { readTraceFacts, type TraceFacts } from "../../../../lib/verify/trace_facts.ts";
import { TraceChunkScanner } from "../../../../lib/core/trace_scan.ts";
import { scanFtraceChunks } from "../../../../lib/trace/parse/chunk_scan.ts";
import type { FtraceRecord } from "../../../../lib/trace/parse/ftrace.ts";
import type { LineSource } from "../../../../lib/trace/parse/lines.ts";
import { generateTrace } from "../../../../bench/trace_gen.ts";
import { mulberry32 } from "../../_rng.ts";
import { cut, stream } from "../_chunks.ts";

const root = new URL("../../../../", import.meta.url);

/** Every captured trace: the fixtures of each kernel and the benchmark's template. */
async function capturedTraces(): Promise<string[]> {
  const out = [new URL("bench/fixtures/axl-frames-6.12-std.trace", root).pathname];
  const walk = async (dir: URL): Promise<void> => {
    for await (const e of Deno.readDir(dir)) {
      if (e.isDirectory) await walk(new URL(`${e.name}/`, dir));
      else if (e.name.endsWith(".trace") || e.name === "trace.txt") {
        out.push(new URL(e.name, dir).pathname);
      }
    }
  };
  await walk(new URL("tests/fixtures/trace/", root));
  return out.sort();
}

/** Facts as plain data: frames instead of the join, and the order keys were first seen. */
function plainFacts(f: TraceFacts): Record<string, unknown> {
  const { join, ...rest } = f;
  return {
    ...rest,
    frames: join?.frames(),
    joinCounts: join && [join.imports, join.releases, join.submits, join.completes],
    graphOrder: Object.keys(f.graphCalls),
    eventOrder: Object.keys(f.eventCounts),
  };
}

async function both(source: () => LineSource | Promise<LineSource>, what: string) {
  const c = await readTraceFacts(await source(), { scanner: "c" });
  const ts = await readTraceFacts(await source(), { scanner: "typescript" });
  assert.deepEqual(plainFacts(c), plainFacts(ts), what);
  return c;
}

Deno.test("the C scanner gives the TypeScript scanner's facts on every captured trace", async () => {
  const files = await capturedTraces();
  assert.ok(files.length >= 15, `${files.length} traces`);
  for (const path of files) {
    const facts = await both(() => Deno.open(path), path);
    const bytes = await Deno.readFile(path);
    // Cut anywhere, as a pipe delivers it.
    await both(() => stream(cut(bytes, mulberry32(bytes.length), 700)), `${path} in pieces`);
    assert.ok(facts.unparsed + Object.keys(facts.eventCounts).length > 0 || bytes.length < 200);
  }
});

Deno.test("the C scanner gives the TypeScript scanner's facts on a generated trace", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const gen = await generateTrace(`${dir}/t.trace`, 3e6);
    const facts = await both(() => Deno.open(gen.path), "generated");
    // A record buffer for a few events: C stops early and is called again, many times a chunk.
    const small = await readTraceFacts(await Deno.open(gen.path), { recordWords: 100 });
    assert.deepEqual(plainFacts(small), plainFacts(facts), "small record buffer");
    assert.equal(facts.join?.submits, gen.frames);
    assert.ok(Object.values(facts.graphCalls).reduce((a, b) => a + b, 0) > gen.frames);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

const IMPORT = "   41.620275 |   0)    deno-186    |               |  " +
  "/* axl_dmabuf_import: handle=1 inode=1 exporter=system iova=0xfff80000 size=462848 */";
const SUBMIT = "  x-1 [000] ..... 1.000000: axl_job_submit: context=1 seqno=1 handle=1 inode=1";
const CALL = "   41.616164 |   0)    deno-186    |               |  dma_buf_attach() {";
const LEAF = "   41.616193 |   0)    deno-186    | ! 329.882 us  |    dma_buf_dynamic_attach();";
const EXIT = "   41.616534 |   0)    deno-186    | ! 388.680 us  |  } /* dma_buf_attach */";

/** Lines that take the unusual paths: each one alone and all together. */
const ODD_LINES = [
  "# tracer: function_graph",
  "CPU:1 [LOST 12 EVENTS]",
  "CPU:0 [LOST EVENTS]",
  "##### CPU 2 buffer started ####",
  " ------------------------------------------",
  " 0)    deno-186    =>   kworker-55  ",
  "",
  "   ",
  IMPORT,
  SUBMIT,
  CALL,
  LEAF,
  EXIT,
  " 1) + 24.815 us   |  }",
  " 1)               |  /* dma_fence_signaled: context=1 seqno=1 */",
  " 1)               |  dma_buf_attach()  {",
  "  x-1 (  12) [000] ..... 1.000001: axl_job_complete: context=1 seqno=1 status=0",
  "  x-1 ( ---) [000] ..... 1.000002: dma_fence_destroy: context=1 seqno=1",
  "  x-1 [000] ..... 99999999999.000000: axl_job_submit: context=2 seqno=2",
  "  x-1 [000] ..... 1.0000019999: dma_fence_signaled: context=2 seqno=2",
  `  x-1 [000] ..... 1.5: many: ${Array.from({ length: 20 }, (_, i) => `k${i}=${i}`).join(" ")}`,
  '  x-1 [000] ..... 1.6: quoted: name="a b" q="\\"x\\"" seqno=0x1f',
  "  x-1 [000] ..... 1.7: tab:\tcontext=1",
  "  tâsk-1 [000] ..... 1.8: axl_dmabuf_release: handle=1 inode=1",
  `${SUBMIT} x-2 [001] ..... 1.9: merged: a=1`,
  `${" ".repeat(4)}3.0 |   1)   a-1   |   |  ${"f".repeat(80)}();`,
  "\u00a0 1) | f();",
  "garbage that is not a trace line",
  "   41.6 |   0)    deno-186    |               |  /* not an event */",
];

Deno.test("the C scanner agrees on odd lines, CRLF, a byte-order mark and a last line without newline", async () => {
  const enc = new TextEncoder();
  for (const line of ODD_LINES) {
    for (const end of ["\n", "\r\n", ""]) {
      await both(() => [line + end], JSON.stringify(line + end));
      await both(() => stream([enc.encode(line + end)]), `bytes ${JSON.stringify(line + end)}`);
    }
  }
  const all = ODD_LINES.join("\n");
  const facts = await both(() => stream([enc.encode(`\ufeff${all}`)]), "all, with a BOM");
  assert.equal(facts.lostEvents, 12);
  assert.equal(facts.lostUnknown, 1);
  assert.ok(facts.unparsed >= 2);
  await both(() => [all + "\r\n" + all], "all, twice");
});

Deno.test("the C scanner agrees on lines longer than its buffer and on more calls than its table", async () => {
  const enc = new TextEncoder();
  const long = `  x-1 [000] ..... 1.000000: axl_job_submit: context=1 seqno=1 pad=${
    "x".repeat(3e6)
  }`;
  await both(() => stream([enc.encode(`${long}\n${IMPORT}\n${long}`)]), "3 MB lines");
  const calls = Array.from({ length: 600 }, (_, i) => LEAF.replace("dma_buf_dynamic", `f${i}`));
  await both(() => [[...calls, ...calls, LEAF, LEAF].join("\n")], "600 functions");
  const events = Array.from({ length: 600 }, (_, i) => SUBMIT.replace("axl_job_submit", `e${i}`));
  await both(() => [[...events, ...events, SUBMIT].join("\n")], "600 event names");
});

/** IMPORT with another timestamp column (`ts`) and comment (`comment`). */
const graphEvent = (ts: string, comment = "axl_dmabuf_import: handle=1 inode=1 exporter=system") =>
  IMPORT.replace("41.620275", ts).replace(/\/\*.*\*\//, `/* ${comment} */`);

Deno.test("the C scanner agrees on function_graph events that share all but their timestamp with an earlier line", async () => {
  // C remembers the bytes before a comment and takes the next line with the same bytes
  // (timestamp digits aside) without reading them again: each of these must still read as
  // the TypeScript scanner reads it, right after a line that taught C its prefix.
  const kworker = (ts: string) =>
    graphEvent(ts, "axl_dmabuf_release: handle=1 inode=1")
      .replace("0)    deno-186 ", "1)   kworker-55");
  const after = [
    graphEvent("41.620276"), // same shape: taken from the memory
    graphEvent("41.62027x"), // a letter where a digit was
    graphEvent("41,620276"), // no dot where the dot was
    graphEvent("99999999999.620276"), // a longer timestamp: another shape
    graphEvent("1000000.000000"), // a shape C learns...
    graphEvent("9007199.254741"), // ...and the same shape past 2^53 ns
    graphEvent("41.620277", "not an event"),
    graphEvent("41.620277", "axl_job_submit: context=1 seqno=x"),
    graphEvent("41.620278", ""),
    IMPORT.slice(0, IMPORT.indexOf("/*") + 1), // ends where the memory's '/' is
    IMPORT.slice(0, IMPORT.indexOf("/*")), // ends before it
    `${graphEvent("41.620279")}   `, // trailing spaces
    kworker("41.620280"), // another task and CPU, then the first again
    graphEvent("41.620281"),
    kworker("41.620282"),
  ];
  for (const [i, line] of after.entries()) {
    await both(() => [[IMPORT, line].join("\n")], `after IMPORT: ${JSON.stringify(line)}`);
    await both(() => [[IMPORT, ...after.slice(0, i + 1)].join("\n")], `all up to ${i}`);
  }
  // Without a task column to find, C does not remember: a dash later on the line decides.
  const noTask = "   41.620275 |   0)               |  /* axl_dmabuf_import: handle=1 inode=1 */";
  await both(() => [[noTask, noTask.replace("inode=1", "a-1 |")].join("\n")], "no task column");
});

Deno.test("the C scanner agrees on lines around the length it copies (4096 bytes)", async () => {
  for (const len of [4094, 4095, 4096, 4097, 4200]) {
    const pad = (line: string, at: string) => {
      const i = line.indexOf(at);
      return line.slice(0, i) + "x".repeat(Math.max(0, len - line.length)) + line.slice(i);
    };
    const lines = [
      pad(SUBMIT.replace(" handle=1", " pad=y"), "y"),
      pad(IMPORT.replace("system", "sys"), "sys"),
      pad(LEAF.replace("dma_buf_dynamic_attach", "f"), "f"),
      pad(EXIT.replace("dma_buf_attach */", "g */"), "g */"),
    ];
    for (const line of lines) {
      assert.ok(Math.abs(line.length - len) <= 1, `${line.length} bytes, ${len} wanted`);
      await both(
        () => [[IMPORT, line, SUBMIT, line].join("\n")],
        `${len} bytes: ${line.slice(0, 40)}`,
      );
    }
  }
});

Deno.test("the C scanner agrees on fields, names and timestamps it reads sixteen bytes at a time", async () => {
  // C reads the fields of up to 64 bytes, event and function names and a remembered line's
  // timestamp with SSE2 where it can (a bit per byte), byte by byte otherwise: each edge of
  // that, as a join event whose fields the facts show and as a function_graph comment.
  const fieldsOf = (len: number, body: string) => {
    const pad = ` p=${"x".repeat(Math.max(0, len - body.length - 3))}`;
    return (body + pad).slice(0, Math.max(len, body.length));
  };
  const bodies = [
    "context=5 seqno=7 handle=2 inode=4",
    "context=5 9=1 seqno=7 ==3 .a=1 handle=2=3 inode=4", // no key, an '=' in a value
    "1.context=5 x:seqno=7 handle=2 inode=4 seqno=8", // a key after digits and ':'; later wins
    'context=5 seqno=7 handle="2 3" inode=4', // quoted: byte by byte
    "context=5 seqno=7 [001] handle=2 inode=4", // a CPU column
    "context=5 seqno=7 a=[b] handle=2 inode=4",
    "context=5 seqno=7 handle=2\x7finode=4", // DEL
    "context=5 seqno=7 handle=2\tinode=4", // a tab
    "context=5 seqno=7 handle=2 inode=4 x=",
    "=context=5 seqno=7 handle=2 inode=4 $=1 _=2",
    Array.from({ length: 17 }, (_, i) => `k${i}=${i}`).join(" "), // more fields than a record holds
  ];
  const lines: string[] = [];
  for (const body of bodies) {
    for (const len of [0, 15, 16, 17, 63, 64, 65, 80]) {
      const fields = fieldsOf(len, body);
      lines.push(`  x-1 [000] ..... 1.000000: axl_job_submit: ${fields}`);
      lines.push(graphEvent("41.620276", `axl_job_submit: ${fields}`));
    }
  }
  // Event and function names around 16 and 32 bytes, and a name with DEL in it.
  for (const n of [15, 16, 17, 31, 32, 33]) {
    const name = `e${"v".repeat(n - 1)}`;
    lines.push(SUBMIT.replace("axl_job_submit", name));
    lines.push(graphEvent("41.620277", `${name}: context=1 seqno=1`));
    lines.push(LEAF.replace("dma_buf_dynamic_attach", `f${"$._9".repeat(8)}`.slice(0, n)));
    lines.push(CALL.replace("dma_buf_attach", `g${"a".repeat(n - 1)}`));
  }
  lines.push(graphEvent("41.620277", "axl_job\x7fsubmit: context=1 seqno=1"));
  lines.push(LEAF.replace("dma_buf_dynamic", "a\x7fb"));
  for (const line of lines) {
    await both(() => [[IMPORT, line, line].join("\n")], JSON.stringify(line));
  }
  await both(() => [lines.join("\n")], "all of them");
  // Timestamps of 15 to 17 bytes (under 2^53 ns), each right after a line of the same shape
  // (remembered).
  for (const ts of ["1234.1234567890", "1234.12345678901", "1234.123456789012"]) {
    const later = ts.replace(/\d$/, "9");
    for (const again of [later, later.replace(".", "x"), `a${later.slice(1)}`, `${ts}z`]) {
      await both(() => [[graphEvent(ts), graphEvent(again)].join("\n")], `${ts} then ${again}`);
    }
  }
});

/** A little random damage to every line of a captured trace: bytes changed, cut, doubled. */
function damaged(lines: string[], seed: number): string {
  let s = seed;
  const rand = (n: number) => (s = (s * 1103515245 + 12345) & 0x7fffffff) % n;
  const alphabet = ' 0123456789-|:;=.()[]{}*/"\\#!+xa\t\u00e9';
  return lines.map((l) => {
    if (l.length === 0 || rand(3) !== 0) return l;
    const at = rand(l.length);
    switch (rand(4)) {
      case 0:
        return l.slice(0, at) + alphabet[rand(alphabet.length)] + l.slice(at + 1);
      case 1:
        return l.slice(0, at);
      case 2:
        return l.slice(at);
      default:
        return l.slice(0, at) + l.slice(at - rand(8));
    }
  }).join("\n");
}

Deno.test("the C scanner agrees with the TypeScript one on damaged traces", async () => {
  const files = await capturedTraces();
  for (const [k, path] of files.entries()) {
    const lines = (await Deno.readTextFile(path)).split("\n").slice(0, 4000);
    for (let seed = 1; seed <= 3; seed++) {
      const text = damaged(lines, seed * 7919 + k);
      await both(() => [text], `${path} damaged (seed ${seed})`);
    }
  }
});

Deno.test("the C scanner reads random and truncated bytes without failing", () => {
  const scanner = new TraceChunkScanner();
  let s = 42;
  const rand = (n: number) => (s = (s * 1103515245 + 12345) & 0x7fffffff) % n;
  const sample = new TextEncoder().encode([IMPORT, SUBMIT, CALL, LEAF, EXIT].join("\n") + "\n");
  for (let round = 0; round < 2000; round++) {
    const len = rand(400);
    const bytes = new Uint8Array(len);
    for (let i = 0; i < len; i++) {
      bytes[i] = rand(4) === 0 ? rand(256) : sample[rand(sample.length)]!;
    }
    // Truncated: the length given may stop anywhere, also right after a byte C looks past.
    const upTo = rand(len + 1);
    const n = scanner.scan(bytes, upTo);
    assert.ok(n >= 0 && n <= upTo, `read ${n} of ${upTo}`);
    assert.ok(n === 0 || bytes[n - 1] === 10);
    const words = scanner.out[0]!;
    assert.ok(words >= 2 && words <= scanner.out.length);
  }
  assert.throws(() => scanner.scan(new Uint8Array(4), 5), RangeError);
});

Deno.test("readTraceFacts() under deno run without --allow-ffi fails with the loader's error", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const script = `${dir}/read.ts`;
    const facts = new URL("lib/verify/trace_facts.ts", root).href;
    await Deno.writeTextFile(
      script,
      `import { readTraceFacts } from "${facts}";\nawait readTraceFacts(["CPU:0 [LOST 1 EVENTS]\\n"]);\n`,
    );
    // No --allow-ffi: dlopen is refused, as on a machine where the library cannot load.
    const r = await new Deno.Command(Deno.execPath(), {
      args: ["run", "--no-check", "--allow-read", "--allow-env", script],
      stdout: "piped",
      stderr: "piped",
    }).output();
    const err = new TextDecoder().decode(r.stderr);
    assert.notEqual(r.code, 0);
    assert.match(err, /ShimLoadError: cannot load libaxl_shim\.so; tried:/);
    assert.match(err, /AXL_SHIM/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("switches: false leaves out exactly the switch records, on every captured trace", async () => {
  const records = async (path: string, switches: boolean) => {
    using file = await Deno.open(path);
    const out: FtraceRecord[] = [];
    await scanFtraceChunks(file, (r) => out.push(r), {
      switches,
      onCalls: () => {},
      onEvent: () => true,
    });
    return out;
  };
  let dropped = 0;
  for (const path of await capturedTraces()) {
    const all = await records(path, true);
    const some = await records(path, false);
    assert.deepEqual(some, all.filter((r) => r.kind !== "switch"), path);
    dropped += all.length - some.length;
  }
  assert.ok(dropped > 500, `${dropped} switch records left out`);
});

Deno.test("switches: false still parses lines only shaped like a switch", async () => {
  const lines = [
    " 0)    deno-186    =>   kworker-55  ", // a switch: left out
    " 1)   a-1   =>   b-2 | x", // a bar: the parser's to judge
    " 0)   deno-186  =>", // nothing after the arrow
    " 0)   a=>b-2", // no space before the arrow
  ];
  const kinds: string[] = [];
  await scanFtraceChunks([lines.join("\n") + "\n"], (r) => kinds.push(`${r.kind}:${r.line}`), {
    strict: false,
    switches: false,
    onCalls: () => {},
    onEvent: () => true,
  });
  assert.ok(!kinds.some((k) => k.endsWith(":1")), kinds.join());
  assert.equal(kinds.length, 3, kinds.join());
});
