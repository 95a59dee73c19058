/**
 * Streaming line splitting for kernel text files that can be large (a trace of a long run)
 * or endless (`trace_pipe`): lines are yielded as they arrive, never buffered whole.
 *
 * @module
 */

/** What {@linkcode readLines} accepts. */
export type LineSource =
  | ReadableStream<Uint8Array>
  | AsyncIterable<Uint8Array | string>
  | Iterable<string>;

/** One line and its 1-based number. */
export interface NumberedLine {
  /** The line without its terminator (`\n` or `\r\n`). */
  text: string;
  /** 1-based line number. */
  line: number;
}

/**
 * Yields the lines of `source` with their numbers. A final line without a newline is yielded
 * too. Invalid UTF-8 becomes U+FFFD instead of failing: kernel strings (task names, buffer
 * names) are bytes.
 *
 * @example
 * ```ts
 * import { readLines } from "./lines.ts";
 * const got: string[] = [];
 * for await (const l of readLines(["a\nb", "\r\nc"])) got.push(`${l.line}:${l.text}`);
 * if (got.join(" ") !== "1:a 2:b 3:c") throw new Error(got.join(" "));
 * ```
 */
export async function* readLines(source: LineSource): AsyncGenerator<NumberedLine> {
  const decoder = new TextDecoder();
  let pending = "";
  let line = 0;
  for await (const chunk of chunks(source)) {
    pending += typeof chunk === "string" ? chunk : decoder.decode(chunk, { stream: true });
    let start = 0;
    for (let nl = pending.indexOf("\n"); nl !== -1; nl = pending.indexOf("\n", start)) {
      const end = nl > start && pending.charCodeAt(nl - 1) === 13 ? nl - 1 : nl;
      yield { text: pending.slice(start, end), line: ++line };
      start = nl + 1;
    }
    pending = pending.slice(start);
  }
  pending += decoder.decode();
  if (pending.length > 0) {
    yield { text: pending.endsWith("\r") ? pending.slice(0, -1) : pending, line: ++line };
  }
}

/**
 * Yields the lines of the file at `path`, reading it in chunks.
 *
 * @example
 * ```ts
 * import { readFileLines } from "./lines.ts";
 * const tmp = await Deno.makeTempFile();
 * await Deno.writeTextFile(tmp, "x\ny\n");
 * let n = 0;
 * for await (const _ of readFileLines(tmp)) n++;
 * await Deno.remove(tmp);
 * if (n !== 2) throw new Error(String(n));
 * ```
 */
export async function* readFileLines(path: string | URL): AsyncGenerator<NumberedLine> {
  const file = await Deno.open(path, { read: true });
  // readable closes the file when the stream ends or is cancelled.
  yield* readLines(file.readable);
}

function chunks(source: LineSource): AsyncIterable<Uint8Array | string> | Iterable<string> {
  if (source instanceof ReadableStream) return source as AsyncIterable<Uint8Array>;
  return source;
}
