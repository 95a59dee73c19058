/**
 * Streaming line splitting for kernel text files that can be large (a trace of a long run)
 * or endless (`trace_pipe`): lines are yielded as they arrive, never buffered whole.
 *
 * Two ways in: {@linkcode readLines} (an async iterator of numbered lines, convenient) and
 * {@linkcode forEachLine} (a synchronous callback per line, awaiting only once per chunk: an
 * `await` per line costs more than parsing a trace line does).
 *
 * @module
 */

/** Something that reads bytes into a buffer, as `Deno.FsFile` does. */
export interface ByteReader {
  /** Reads into `buffer`; resolves to the byte count, or `null` at the end. */
  read(buffer: Uint8Array): Promise<number | null>;
  /** The same, synchronously (used for regular files, see {@linkcode readChunks}). */
  readSync?(buffer: Uint8Array): number | null;
  /** What the reader reads (a regular file can be read synchronously without waiting). */
  statSync?(): { isFile: boolean };
}

/** What {@linkcode readLines} and {@linkcode forEachLine} accept. */
export type LineSource =
  | ReadableStream<Uint8Array>
  | AsyncIterable<Uint8Array | string>
  | Iterable<string>
  | ByteReader;

/** One line and its 1-based number. */
export interface NumberedLine {
  /** The line without its terminator (`\n` or `\r\n`). */
  text: string;
  /** 1-based line number. */
  line: number;
}

/**
 * Called per line with the line's place in a larger string: the line is
 * `text.slice(start, end)`. Taking the span instead of a sliced string lets a scanner look at
 * a few characters of a line without making a string of it. When the text around the line is
 * one byte per character (ASCII), `bytes` holds it at the same indices (`bytes[i]` is
 * `text.charCodeAt(i)`), which is faster to read; `bytes[end]` is then the line's `\r` or
 * `\n`. The bytes stay as they are until the splitter's next `push()` or `end()`.
 */
export type LineVisitor = (
  text: string,
  start: number,
  end: number,
  line: number,
  bytes: Uint8Array | undefined,
) => void;

/**
 * Bytes read at once from a {@linkcode ByteReader}: big enough that per-chunk costs vanish,
 * small enough that a chunk's text is an ordinary young object, which V8 collects cheaply.
 */
export const READ_CHUNK_BYTES = 64 * 1024;

const NL = 10, CR = 13;

/** Bytes decoded into one string at a time (cut at a newline). */
const DECODE_PIECE_BYTES = 16 * 1024;

/**
 * Splits text into numbered lines across chunk boundaries, synchronously. Invalid UTF-8
 * becomes U+FFFD instead of failing: kernel strings (task names, buffer names) are bytes.
 * Byte chunks are cut at their last newline and decoded up to it in one piece, so that a
 * character is never split and the text of an all-ASCII chunk lines up with its bytes.
 *
 * @example
 * ```ts
 * import { LineSplitter } from "./lines.ts";
 * const s = new LineSplitter();
 * const got: string[] = [];
 * const keep = (t: string, a: number, b: number, n: number) => got.push(`${n}:${t.slice(a, b)}`);
 * s.push("a\nb", keep);
 * s.push(new TextEncoder().encode("\r\nc"), keep);
 * s.end(keep);
 * console.log(got.join(" ")); // "1:a 2:b 3:c"
 * ```
 */
export class LineSplitter {
  #decoder = new TextDecoder("utf-8", { ignoreBOM: true });
  #encoder = new TextEncoder();
  /** Bytes of the unfinished last line, then of the chunk being split. */
  #work = new Uint8Array(0);
  /** Bytes of lines already handed out, before the unfinished one. */
  #skip = 0;
  #carried = 0;
  /** The unfinished last line of string chunks. */
  #pendingText = "";
  #started = false;
  #line = 0;
  readonly #wantBytes: boolean;

  /**
   * A splitter. With `bytes: false`, string chunks are not encoded to give their lines'
   * bytes (byte chunks always do: they cost nothing there).
   */
  constructor(options: { bytes?: boolean } = {}) {
    this.#wantBytes = options.bytes ?? true;
  }

  /** Lines handed out so far (the number of the last one). */
  get line(): number {
    return this.#line;
  }

  /** Calls `visit` for every line that `chunk` completes. */
  push(chunk: Uint8Array | string, visit: LineVisitor): void {
    if (typeof chunk === "string") return this.#pushText(chunk, visit);
    this.#compact();
    if (this.#pendingText !== "") {
      this.#carry(this.#encoder.encode(this.#pendingText));
      this.#pendingText = "";
    }
    let total = this.#carried + chunk.length;
    this.#reserve(total + 1);
    this.#work.set(chunk, this.#carried);
    if (!this.#started && (total >= 3 || chunk.includes(NL))) {
      this.#started = true;
      total -= this.#dropByteOrderMark(total);
    }
    const last = this.#work.lastIndexOf(NL, total - 1);
    if (last === -1) {
      this.#carried = total;
      return;
    }
    // Decoded in pieces cut at newlines: the piece being scanned is what survives a young
    // collection, and the less survives, the less V8 grows its young generation.
    for (let start = 0; start <= last;) {
      let end = start + DECODE_PIECE_BYTES >= last
        ? last
        : this.#work.lastIndexOf(NL, start + DECODE_PIECE_BYTES);
      if (end < start) end = this.#work.indexOf(NL, start + DECODE_PIECE_BYTES);
      const bytes = this.#work.subarray(start, end + 1);
      const text = this.#decoder.decode(bytes);
      this.#split(text, text.length === bytes.length ? bytes : undefined, visit);
      start = end + 1;
    }
    // The unfinished line moves to the front at the next push: until then the bytes handed
    // out stay as they were.
    this.#skip = last + 1;
    this.#carried = total - last - 1;
  }

  /** Moves the unfinished last line to the front of the buffer. */
  #compact(): void {
    if (this.#skip === 0) return;
    this.#work.copyWithin(0, this.#skip, this.#skip + this.#carried);
    this.#skip = 0;
  }

  /** Calls `visit` for a last line that had no newline. */
  end(visit: LineVisitor): void {
    this.#compact();
    let text = this.#pendingText;
    let bytes: Uint8Array | undefined;
    if (this.#carried > 0) {
      if (!this.#started) this.#carried -= this.#dropByteOrderMark(this.#carried);
      text = this.#decoder.decode(this.#work.subarray(0, this.#carried));
      // A newline after the data, so that a scanner looking one past the end sees an end.
      this.#work[this.#carried] = NL;
      if (text.length === this.#carried) bytes = this.#work;
    } else if (text !== "") {
      bytes = asciiBytes(this.#encoder, text + "\n");
    }
    this.#pendingText = "";
    this.#carried = 0;
    if (text.length === 0) return;
    const end = text.charCodeAt(text.length - 1) === CR ? text.length - 1 : text.length;
    visit(text, 0, end, ++this.#line, bytes);
  }

  /** Drops a byte-order mark that starts the stream (as a streaming TextDecoder would). */
  #dropByteOrderMark(total: number): number {
    const w = this.#work;
    if (total < 3 || w[0] !== 0xef || w[1] !== 0xbb || w[2] !== 0xbf) return 0;
    w.copyWithin(0, 3, total);
    return 3;
  }

  #pushText(chunk: string, visit: LineVisitor): void {
    this.#compact();
    if (this.#carried > 0) {
      this.#pendingText = this.#decoder.decode(this.#work.subarray(0, this.#carried));
      this.#carried = 0;
    }
    this.#started = true;
    const text = this.#pendingText + chunk;
    const last = text.lastIndexOf("\n");
    if (last === -1) {
      this.#pendingText = text;
      return;
    }
    const done = last === text.length - 1 ? text : text.slice(0, last + 1);
    this.#split(done, this.#wantBytes ? asciiBytes(this.#encoder, done) : undefined, visit);
    this.#pendingText = text.slice(last + 1);
  }

  #split(text: string, bytes: Uint8Array | undefined, visit: LineVisitor): void {
    let start = 0;
    for (let nl = text.indexOf("\n"); nl !== -1; nl = text.indexOf("\n", start)) {
      const end = nl > start && text.charCodeAt(nl - 1) === CR ? nl - 1 : nl;
      visit(text, start, end, ++this.#line, bytes);
      start = nl + 1;
    }
  }

  #carry(bytes: Uint8Array): void {
    this.#reserve(this.#carried + bytes.length + 1);
    this.#work.set(bytes, this.#carried);
    this.#carried += bytes.length;
  }

  #reserve(size: number): void {
    if (size <= this.#work.length) return;
    const grown = new Uint8Array(
      Math.max(size, READ_CHUNK_BYTES + 64 * 1024, this.#work.length * 2),
    );
    grown.set(this.#work.subarray(0, this.#carried));
    this.#work = grown;
  }
}

/** The UTF-8 of `text` when it is all ASCII (one byte per character), else undefined. */
function asciiBytes(encoder: TextEncoder, text: string): Uint8Array | undefined {
  const bytes = encoder.encode(text);
  return bytes.length === text.length ? bytes : undefined;
}

/**
 * Calls `visit` for every line of `source` and resolves to the number of lines. A
 * {@linkcode ByteReader} (an open `Deno.FsFile`) is read into one reused buffer, so reading
 * allocates nothing per chunk; the caller closes it.
 *
 * @example
 * ```ts
 * import { forEachLine } from "./lines.ts";
 * let longest = 0;
 * const n = await forEachLine(["ab\nc", "de\n"], (_t, a, b) => {
 *   longest = Math.max(longest, b - a);
 * });
 * console.log(n); // 2
 * console.log(longest); // 3
 * ```
 */
export async function forEachLine(source: LineSource, visit: LineVisitor): Promise<number> {
  const splitter = new LineSplitter();
  for await (const chunk of readChunks(source)) splitter.push(chunk, visit);
  splitter.end(visit);
  return splitter.line;
}

/**
 * Yields the lines of `source` with their numbers. A final line without a newline is yielded
 * too. Invalid UTF-8 becomes U+FFFD instead of failing.
 *
 * @example
 * ```ts
 * import { readLines } from "./lines.ts";
 * const got: string[] = [];
 * for await (const l of readLines(["a\nb", "\r\nc"])) got.push(`${l.line}:${l.text}`);
 * console.log(got.join(" ")); // "1:a 2:b 3:c"
 * ```
 */
export async function* readLines(source: LineSource): AsyncGenerator<NumberedLine> {
  const splitter = new LineSplitter({ bytes: false });
  let batch: NumberedLine[] = [];
  const keep: LineVisitor = (text, start, end, line) => {
    batch.push({ text: text.slice(start, end), line });
  };
  // Lines are gathered per chunk and handed out after it, so that one await serves a chunk.
  for await (const chunk of readChunks(source)) {
    splitter.push(chunk, keep);
    for (const item of batch) yield item;
    batch = [];
  }
  splitter.end(keep);
  for (const item of batch) yield item;
}

/**
 * The chunks of `source`. A {@linkcode ByteReader} is read into one reused buffer of
 * {@linkcode READ_CHUNK_BYTES}: each chunk it yields is valid until the next is asked for. A
 * regular file is read with `readSync`: an asynchronous read hands each call to a thread pool,
 * which costs Deno tens of microseconds per chunk, more than the reading; a regular file never
 * makes a synchronous read wait. Pipes (`trace_pipe`) and the like are read asynchronously.
 *
 * @example
 * ```ts
 * import { readChunks } from "./lines.ts";
 * const tmp = await Deno.makeTempFile();
 * await Deno.writeTextFile(tmp, "x\ny\n");
 * using file = await Deno.open(tmp);
 * let bytes = 0;
 * for await (const c of readChunks(file)) bytes += c.length;
 * await Deno.remove(tmp);
 * console.log(bytes); // 4
 * ```
 */
export async function* readChunks(source: LineSource): AsyncGenerator<Uint8Array | string> {
  if (isByteReader(source)) {
    const buffer = new Uint8Array(READ_CHUNK_BYTES);
    if (source.readSync !== undefined && source.statSync?.().isFile === true) {
      for (let n = source.readSync(buffer); n !== null; n = source.readSync(buffer)) {
        if (n > 0) yield buffer.subarray(0, n);
      }
      return;
    }
    for (let n = await source.read(buffer); n !== null; n = await source.read(buffer)) {
      yield buffer.subarray(0, n);
    }
    return;
  }
  yield* source as AsyncIterable<Uint8Array | string> | Iterable<string>;
}

/**
 * Yields the lines of the file at `path`, reading it in chunks into one buffer.
 *
 * @example
 * ```ts
 * import { readFileLines } from "./lines.ts";
 * const tmp = await Deno.makeTempFile();
 * await Deno.writeTextFile(tmp, "x\ny\n");
 * let n = 0;
 * for await (const _ of readFileLines(tmp)) n++;
 * await Deno.remove(tmp);
 * console.log(n); // 2
 * ```
 */
export async function* readFileLines(path: string | URL): AsyncGenerator<NumberedLine> {
  using file = await Deno.open(path, { read: true });
  yield* readLines(file);
}

function isByteReader(source: LineSource): source is ByteReader {
  return typeof source === "object" && source !== null && !(source instanceof ReadableStream) &&
    typeof (source as Partial<ByteReader>).read === "function";
}
