// The hand-written scanner must give exactly what the regular expressions give: the same
// record (same keys in the same order), the same `undefined` for blank lines, the same
// ParseError. Checked on every line of every captured trace and on seeded mutations of them.
import assert from "node:assert/strict";
import {
  parseFields,
  parseFtraceLine,
  parseLineGeneral,
} from "../../../../lib/trace/parse/ftrace.ts";
import {
  CALL_KINDS,
  callColumn,
  Interned,
  NOT_A_CALL,
  NOT_SCANNED,
  scanLine,
} from "../../../../lib/trace/parse/_ftrace_scan.ts";
import { FIXTURES } from "../_fixtures.ts";
import { mulberry32 } from "../../_rng.ts";

async function capturedLines(): Promise<string[]> {
  const lines: string[] = [];
  for (const dir of ["6.12-std", "6.12-rt", "6.12-axl/zero-copy", "6.12-axl/tiny-buffer"]) {
    for await (const e of Deno.readDir(new URL(`${dir}/`, FIXTURES))) {
      if (!e.name.endsWith(".trace") && e.name !== "trace.txt") continue;
      const text = await Deno.readTextFile(new URL(`${dir}/${e.name}`, FIXTURES));
      lines.push(...text.split("\n"));
    }
  }
  return lines;
}

function outcome(parse: () => unknown): string {
  try {
    return JSON.stringify(parse()) ?? "undefined";
  } catch (e) {
    return `${(e as Error).name}: ${(e as Error).message}`;
  }
}

function scans(text: string, line: number): boolean {
  const bytes = new TextEncoder().encode(text);
  if (bytes.length !== text.length) return false;
  return scanLine(text, bytes, 0, text.length, line) !== NOT_SCANNED;
}

function same(text: string, line: number): void {
  for (const strict of [true, false]) {
    const options = { source: "x.trace", strict };
    const fast = outcome(() => parseFtraceLine(text, line, options));
    const general = outcome(() => parseLineGeneral(text, line, options));
    assert.equal(fast, general, `line ${JSON.stringify(text)} (strict: ${strict})`);
  }
}

// Characters that change how a line splits: separators, digits, and whitespace the regular
// expressions know but the scanner does not (tab, CR, vertical tab, NBSP, U+2028, BOM).
const INSERTS = [
  " ",
  "  ",
  "-",
  "-7",
  "|",
  ":",
  "=",
  '"',
  "\\",
  ".",
  "0",
  "9",
  ")",
  "(",
  "[",
  "]",
  "{",
  "}",
  ";",
  "/*",
  "*/",
  "=>",
  "us",
  "x",
  "\t",
  "\r",
  "\v",
  "\u00a0",
  "\u2028",
  "\ufeff",
  "é",
  "#",
  "!",
  "CPU:",
];

function mutateLine(text: string, rand: () => number): string {
  const pick = (n: number) => Math.floor(rand() * n);
  let t = text;
  // Mostly one change, so that many mutants still look like trace lines.
  for (let k = 0, ops = rand() < 0.7 ? 1 : 2 + pick(2); k < ops; k++) {
    const at = pick(t.length + 1);
    switch (pick(4)) {
      case 0:
        t = t.slice(0, at) + INSERTS[pick(INSERTS.length)] + t.slice(at);
        break;
      case 1:
        t = t.slice(0, at) + t.slice(at + 1 + pick(3));
        break;
      case 2:
        t = t.slice(0, at) + INSERTS[pick(INSERTS.length)] + t.slice(at + 1);
        break;
      case 3:
        t = pick(2) ? t.slice(0, at) : t.slice(at);
        break;
    }
  }
  return t;
}

Deno.test("parseFtraceLine() equals the regular-expression parser on every captured line", async () => {
  const lines = await capturedLines();
  let scanned = 0;
  lines.forEach((text, i) => {
    same(text, i + 1);
    if (scans(text, i + 1)) scanned++;
  });
  // The scanner must take the bulk of the lines, or it is not what makes parsing fast.
  assert.ok(lines.length > 3000, `${lines.length} lines`);
  assert.ok(scanned / lines.length > 0.95, `scanner took ${scanned} of ${lines.length} lines`);
});

Deno.test("parseFtraceLine() equals the regular-expression parser on 60000 mutated lines", async () => {
  const lines = (await capturedLines()).filter((l) => l.trim() !== "");
  const rand = mulberry32(20261122);
  let scanned = 0;
  for (let n = 0; n < 60000; n++) {
    const text = mutateLine(lines[Math.floor(rand() * lines.length)]!, rand);
    same(text, n + 1);
    if (scans(text, n + 1)) scanned++;
  }
  // Both sides exercised: many mutations still scan, many fall back.
  assert.ok(scanned > 10000 && scanned < 55000, `${scanned} of 60000 mutations scanned`);
});

Deno.test("parseFtraceLine() equals the regular-expression parser on hand-made edge cases", () => {
  const cases = [
    "",
    "   ",
    " ------------------------------------------",
    "---",
    "  a b-7 [000]   1.5: x: y=1",
    "  a b -7 [000]   1.5: x: y=1",
    "  x-1-2 [000] .... 1.0: ev: a=1",
    "  x-1 (  -----) [000] .... 1.0: ev: a=1",
    "  x-1 (   89) [000] d..2. 1.0: ev:",
    "  x-1 [000] d..2. 1.0: ev: ",
    "  x-1 [000] d..2. 1.0: ev:x",
    "  x-1 [000] 12abc 1.5: ev: y=1",
    "  x-1 [000] 1:2 1.5: ev: y=1",
    "  x-1 [000] .... 1.2.3: ev: y=1",
    '  x-1 [000] .... 1.0: ev: k="a b" j="c\\"d" m="open z=1',
    "  x-1 [000] .... 1.0: ev: 1a.b=2 .c=3 ==4 d==5 e=",
    "  x-1 [000] .... 1.0: ev: __proto__=x constructor=y",
    '  x-1 [000] .... 1.0: ev: k="a\\',
    " 0)   a-1   =>   b-2  ",
    " 0)   a => b => c ",
    " 0)  =>  b",
    " 0)   a =>",
    " 1) + 24.815 us   |  }",
    " 1)   1.5 us      |  f();",
    " 1)   1.5555 us   |  f();",
    " 1)   1 us        |  f();",
    " 1)               |  f() {",
    " 1)               |  } /* f */",
    " 1)               |  } /* f g */",
    " 1)               |  f(); /* x */",
    " 1)               |  /* ev: a=1 */",
    " 1)               |  /*ev:*/",
    " 1)               |  /* ev :a */",
    " 1)               |  ==========> |",
    " 1)  x-1  |               |  f();",
    "  1.0 |   1)  x-1  |               |  f();",
    "  1.0 |   1)  x-1  |               |  /* ev: a=1 */",
    "  1.0 |   1)               |  f();",
    "  1 |   1)               |  f();",
    "  1. |   1)               |  f();",
    "  1.0 |  1)  -1  |   |  f();",
    " 1)  x-1 |  f();",
    " 1)  x-1  |  1.0 us  |  f();  ",
    "  1.0123456789 |   1)  x-1  |   |  f();",
    "  12345678901234567.5 |   1)  x-1  |   |  f();",
    " 1)  x-1  |  12345678901 us  |  f();",
    "CPU:1 [LOST 3 EVENTS]",
    "##### CPU 2 buffer started ####",
    "# tracer: function_graph",
  ];
  cases.forEach((text, i) => same(text, i + 1));
});

Deno.test("parseFields() keeps the regular expression's reading of odd bodies", () => {
  assert.deepEqual(parseFields('a=1 b="x y" c=\\"q'), { a: "1", b: "x y", c: '\\"q' });
  assert.deepEqual(parseFields("x\u00a0y=1"), { y: "1" });
  assert.deepEqual(parseFields("k=v\u00a0w"), { k: "v" });
});

Deno.test("callColumn() recognises entries, leaves and exits and nothing else", () => {
  const names = new Interned();
  const at = (l: string) => {
    names.last = "";
    const kind = callColumn(l, new TextEncoder().encode(l), 0, l.length, names);
    return kind === NOT_A_CALL ? undefined : { kind: CALL_KINDS[kind], func: names.last };
  };
  const a = at("   41.6 |   0)    deno-186    |               |  dma_buf_attach() {");
  const b = at("   41.6 |   0)    deno-186    | ! 329.882 us  |    dma_buf_attach();");
  assert.deepEqual(a, { kind: "entry", func: "dma_buf_attach" });
  assert.deepEqual(b, { kind: "leaf", func: "dma_buf_attach" });
  assert.deepEqual(at(" 0) + 3.0 us |  } /* dma_buf_attach */"), { kind: "exit", func: "" });
  assert.deepEqual(at(" 0) + 3.0 us |  }"), { kind: "exit", func: "" });
  for (
    const l of [
      " 0)  |  /* axl_job_submit: context=1 seqno=1 */",
      " 0)  |  f-g() {",
      " 0)  |f() {",
      " 0)  |  () {",
      "  x-1 [000] .... 1.0: ev: a| f();",
      " 0)  |  } /* a b */",
      " 0)  |  x }",
      "f();",
    ]
  ) assert.equal(at(l), undefined, l);
});

function callOf(text: string, names: Interned): { kind: string; func?: string } | undefined {
  const bytes = new TextEncoder().encode(text);
  if (bytes.length !== text.length) return undefined;
  const kind = callColumn(text, bytes, 0, text.length, names);
  if (kind === NOT_A_CALL) return undefined;
  return kind === CALL_KINDS.indexOf("exit")
    ? { kind: "exit" }
    : { kind: CALL_KINDS[kind]!, func: names.last };
}

Deno.test("callColumn() agrees with the parser on captured lines, and never contradicts it", async () => {
  const names = new Interned();
  const lines = await capturedLines();
  let calls = 0;
  for (const text of lines) {
    const c = callOf(text, names);
    const r = parseFtraceLine(text, 1, { strict: false });
    const parsed = r?.kind === "graph"
      ? (r.call === "exit" ? { kind: "exit" } : { kind: r.call, func: r.func })
      : undefined;
    assert.deepEqual(c, parsed, text);
    if (c) calls++;
  }
  assert.ok(calls > 1000, `${calls} call lines`);
  // Mutated lines: where both read a call, they read the same one.
  const rand = mulberry32(5);
  const graph = lines.filter((l) => l.includes("|"));
  for (let n = 0; n < 30000; n++) {
    const text = mutateLine(graph[Math.floor(rand() * graph.length)]!, rand);
    const c = callOf(text, names);
    const r = parseFtraceLine(text, 1, { strict: false });
    if (c === undefined || r?.kind !== "graph") continue;
    assert.deepEqual(
      c,
      r.call === "exit" ? { kind: "exit" } : { kind: r.call, func: r.func },
      text,
    );
  }
});
