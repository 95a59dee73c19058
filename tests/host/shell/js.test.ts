import assert from "node:assert/strict";
import { lexJs } from "../../../lib/shell/js_lexer.ts";
import { isIncomplete, rewriteJs } from "../../../lib/shell/js_rewrite.ts";
import { Evaluator } from "../../../lib/shell/evaluator.ts";

Deno.test("lexJs() tracks bracket depth through strings, templates, regexes and comments", () => {
  const src = "f('a)', `b${ {c: ')'}.c }`, /[)]/g, /* ) */ x) // )";
  const { tokens, depth, unterminated, unbalanced } = lexJs(src);
  assert.equal(depth, 0);
  assert.equal(unterminated, undefined);
  assert.equal(unbalanced, false);
  assert.deepEqual(tokens.map((t) => t.kind), [
    "ident",
    "punct",
    "string",
    "punct",
    "template",
    "punct",
    "regex",
    "punct",
    "ident",
    "punct",
  ]);
});

Deno.test("lexJs() tells division from a regular expression by the previous token", () => {
  assert.deepEqual(lexJs("a / b / c").tokens.map((t) => t.kind), [
    "ident",
    "punct",
    "ident",
    "punct",
    "ident",
  ]);
  assert.equal(lexJs("x = /ab+/.test(s)").tokens[2]!.kind, "regex");
  assert.equal(lexJs("return /x/").tokens[1]!.kind, "regex");
});

Deno.test("lexJs() reports what is unfinished", () => {
  assert.equal(lexJs("foo(1,").unterminated, "brackets");
  assert.equal(lexJs("'abc").unterminated, "string");
  assert.equal(lexJs("`a${b").unterminated, "template");
  assert.equal(lexJs("a /* b").unterminated, "comment");
  assert.equal(lexJs("a )").unbalanced, true);
});

Deno.test("isIncomplete() asks for more lines only when more could complete the input", () => {
  for (const s of ["[1, 2,", "1 +", "f(", "x = `a", "if (x) {", "a.", "x =>"]) {
    assert.equal(isIncomplete(s), true, s);
  }
  for (const s of ["1 + 2", "x++", "foo bar", "a )", "f()"]) {
    assert.equal(isIncomplete(s), false, s);
  }
});

Deno.test("rewriteJs() turns top-level declarations into scope assignments", () => {
  assert.match(rewriteJs("const a = 1").body, /^var a = 1/);
  assert.match(rewriteJs("let b").body, /var b = undefined/);
  assert.match(rewriteJs("function f() { return 1 }").body, /f = function f\(\) \{ return 1 \}/);
  assert.match(rewriteJs("class K { m() {} }").body, /K = class K \{ m\(\) \{\} \}/);
  // Nested declarations stay as they are.
  assert.match(rewriteJs("for (const x of [1]) { let y = x }").body, /const x of \[1\]\) \{ let y/);
});

Deno.test("rewriteJs() returns the last expression statement, earliest start first", () => {
  assert.equal(rewriteJs("1 + 2").returnsValue, true);
  assert.match(rewriteJs("a\n+ b").body, /return \(a\n\+ b\n\);$/);
  assert.match(rewriteJs("const x = 1\nx + 1").body, /return \(x \+ 1\n\);$/);
  assert.equal(rewriteJs("if (a) { b }").returnsValue, false);
});

Deno.test("rewriteJs() reports syntax errors as the input causes them", () => {
  assert.throws(() => rewriteJs("1 +"), SyntaxError);
  assert.throws(() => rewriteJs("import x from 'y'"), /await import/);
});

Deno.test("Evaluator.evaluate() keeps variables, functions and classes between inputs", async () => {
  const ev = new Evaluator();
  assert.equal(await ev.evaluate("const x = 5"), undefined);
  assert.equal(await ev.evaluate("x * 2"), 10);
  await ev.evaluate("let { a, b: [c] } = { a: 1, b: [2] }");
  assert.equal(await ev.evaluate("a + c"), 3);
  await ev.evaluate("function twice(n) { return 2 * n }");
  await ev.evaluate("class K { v() { return 'kv' } }");
  assert.equal(await ev.evaluate("twice(new K().v().length)"), 4);
  assert.deepEqual(Object.keys(ev.scope).sort(), ["K", "a", "c", "twice", "x"]);
});

Deno.test("Evaluator.evaluate() supports top-level await, for-await and multi-line input", async () => {
  const ev = new Evaluator();
  assert.equal(
    await ev.evaluate("await new Promise((r) => setTimeout(() => r('late'), 5))"),
    "late",
  );
  const sum = await ev.evaluate(
    "let total = 0\nfor await (const n of (async function* () { yield 1; yield 2 })()) total += n\ntotal",
  );
  assert.equal(sum, 3);
  assert.deepEqual(await ev.evaluate("{ a: 1 }"), { a: 1 });
});

Deno.test("Evaluator.evaluate() throws ReferenceError for unknown names and leaves globals alone", async () => {
  const ev = new Evaluator();
  await assert.rejects(() => ev.evaluate("nope + 1"), ReferenceError);
  assert.equal(await ev.evaluate("typeof Deno.version"), "object");
  await ev.evaluate("counter = 1");
  assert.equal(ev.scope.counter, 1);
  assert.equal("counter" in globalThis, false);
});

Deno.test("Evaluator.lookup() walks dotted names without running code", () => {
  const ev = new Evaluator();
  ev.scope.frame = { layout: { width: 640 } };
  assert.equal(ev.lookup("frame.layout.width"), 640);
  assert.equal(ev.lookup("frame.missing.width"), undefined);
  assert.equal(ev.lookup("Math.PI"), Math.PI);
});
