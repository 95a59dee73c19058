import assert from "node:assert/strict";
import { parseCount, parseGeometry, parseSize, splitWords } from "../../../lib/shell/args.ts";

Deno.test("splitWords() handles quotes, escapes and positions", () => {
  const s = splitWords(`alloc 4096 --name "my frame" 'a b' c\\ d`);
  assert.deepEqual(s.words.map((w) => w.value), [
    "alloc",
    "4096",
    "--name",
    "my frame",
    "a b",
    "c d",
  ]);
  assert.equal(s.words[3]!.quoted, true);
  assert.equal(s.words[1]!.start, 6);
  assert.equal(s.trailingSpace, false);
  assert.equal(splitWords("import ").trailingSpace, true);
  assert.equal(splitWords(`x "open`).openQuote, '"');
});

Deno.test("parseSize() reads bytes, hex and binary units", () => {
  assert.equal(parseSize("4096"), 4096);
  assert.equal(parseSize("0x1000"), 4096);
  assert.equal(parseSize("4K"), 4096);
  assert.equal(parseSize("1MiB"), 1 << 20);
  assert.equal(parseSize("1.5m"), 1.5 * (1 << 20));
  assert.throws(() => parseSize("0"), RangeError);
  assert.throws(() => parseSize("4 parsecs"), /not a size/);
  assert.throws(() => parseSize("0.5"), RangeError);
});

Deno.test("parseCount() and parseGeometry() name what was wrong", () => {
  assert.equal(parseCount("0x10", "model"), 16);
  assert.throws(
    () => parseCount("-1", "wait: --timeout"),
    /wait: --timeout must be a whole number/,
  );
  assert.deepEqual(parseGeometry("1920x1080"), { width: 1920, height: 1080 });
  assert.throws(() => parseGeometry("640*480"), /WIDTHxHEIGHT/);
});
