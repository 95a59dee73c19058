// Line splitting across arbitrary chunk boundaries, and parsing a chunked stream the same as
// parsing line by line: the fast path reads a line's bytes in place inside its chunk.
import assert from "node:assert/strict";
import {
  forEachLine,
  LineSplitter,
  READ_CHUNK_BYTES,
  readChunks,
  readLines,
} from "../../../../lib/trace/parse/lines.ts";
import { parseFtrace, parseFtraceLine, scanFtrace } from "../../../../lib/trace/parse/ftrace.ts";
import { fixtureText, KERNELS } from "../_fixtures.ts";
import { mulberry32 } from "../../_rng.ts";
import { cut, stream } from "../_chunks.ts";

function splitAll(chunks: (Uint8Array | string)[]): { lines: string[]; aligned: boolean } {
  const s = new LineSplitter();
  const lines: string[] = [];
  let aligned = true;
  const keep = (t: string, a: number, b: number, _n: number, u: Uint8Array | undefined) => {
    lines.push(t.slice(a, b));
    if (u !== undefined) {
      for (let i = a; i < b; i++) if (u[i] !== t.charCodeAt(i)) aligned = false;
      // One past the line: its terminator (a scanner may look there), never the line's text.
      if (![10, 13].includes(u[b]!)) aligned = false;
    }
  };
  for (const c of chunks) s.push(c, keep);
  s.end(keep);
  return { lines, aligned };
}

const TEXT = [
  "plain ascii",
  "crlf line\r",
  "é multibyte ✓ 😀",
  "",
  "x".repeat(40_000), // longer than a decode piece and a read chunk
  "after the long one\r",
  "last line without newline",
].join("\n");

Deno.test("LineSplitter gives the same lines however the bytes are cut", () => {
  const want = TEXT.split("\n").map((l) => l.endsWith("\r") ? l.slice(0, -1) : l);
  const bytes = new TextEncoder().encode(TEXT);
  const rand = mulberry32(7);
  for (const max of [1, 2, 3, 7, 64, 5000, 100_000]) {
    const { lines, aligned } = splitAll(cut(bytes, rand, max));
    assert.deepEqual(lines, want, `chunks of up to ${max} bytes`);
    assert.ok(aligned, `bytes line up with the text (chunks of up to ${max})`);
  }
  assert.deepEqual(splitAll([TEXT]).lines, want);
  assert.deepEqual(
    splitAll([TEXT.slice(0, 9), bytes.slice(9, 30), TEXT.slice(27)]).lines.length,
    7,
  );
});

Deno.test("LineSplitter drops one leading byte-order mark and makes bad UTF-8 U+FFFD", () => {
  const bom = new Uint8Array([0xef, 0xbb, 0xbf, 0x61, 0x0a, 0xff, 0x62, 0x0a]);
  assert.deepEqual(splitAll([bom]).lines, ["a", "\ufffdb"]);
  assert.deepEqual(splitAll([bom.slice(0, 2), bom.slice(2)]).lines, ["a", "\ufffdb"]);
});

Deno.test("readChunks() reads a regular file in reused chunks and a stream as it comes", async () => {
  const tmp = await Deno.makeTempFile();
  const data = new Uint8Array(READ_CHUNK_BYTES * 2 + 10).map((_, i) => 97 + (i % 26));
  await Deno.writeFile(tmp, data);
  try {
    using file = await Deno.open(tmp);
    let n = 0, chunks = 0;
    for await (const c of readChunks(file)) {
      n += c.length;
      chunks++;
    }
    assert.equal(n, data.length);
    assert.equal(chunks, 3);
    const stream = (await Deno.open(tmp)).readable;
    let m = 0;
    for await (const c of readChunks(stream)) m += c.length;
    assert.equal(m, data.length);
    assert.equal(await forEachLine(["a\nb\n", "c"], () => {}), 3);
    const got: string[] = [];
    for await (const l of readLines(["a\r\nb"])) got.push(`${l.line}:${l.text}`);
    assert.deepEqual(got, ["1:a", "2:b"]);
  } finally {
    await Deno.remove(tmp);
  }
});

Deno.test("parseFtrace() over a chunked stream equals parseFtraceLine() line by line", async () => {
  const rand = mulberry32(11);
  for (const k of KERNELS) {
    for (const name of ["events.trace", "instance-graph.trace", "overrun-pipe.trace"]) {
      const text = await fixtureText(k, name);
      const want = text.split("\n").flatMap((l, i) => {
        const r = parseFtraceLine(l.endsWith("\r") ? l.slice(0, -1) : l, i + 1, { strict: false });
        return r === undefined ? [] : [r];
      });
      const bytes = new TextEncoder().encode(text);
      const chunks = cut(bytes, rand, 300);
      const got = [];
      for await (const r of parseFtrace(stream(chunks), { strict: false })) got.push(r);
      assert.deepEqual(got, want, `${k}/${name}`);
      const scanned: unknown[] = [];
      await scanFtrace(stream(cut(bytes, rand, 300)), (r) => scanned.push(r), { strict: false });
      assert.deepEqual(scanned, want, `${k}/${name} (scanFtrace)`);
    }
  }
});
