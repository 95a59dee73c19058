/**
 * Turns a line of shell JavaScript into the body of an async function that keeps its
 * variables: top-level `const`/`let` become `var` (whose initialisers assign through the
 * shell's scope object), top-level `function` and `class` declarations become
 * assignments, and the last expression statement is returned so the shell can print and
 * bind it. `node:repl` has no top-level `await` in Deno; this is what replaces it.
 *
 * @module
 */
import { type JsToken, lexJs } from "./js_lexer.ts";

/** The rewritten source, ready for {@linkcode compileBody}. */
export interface RewrittenJs {
  /** Statements, ending in `return (<expr>)` when the input ends in an expression. */
  body: string;
  /** True when the body returns the value of the last expression statement. */
  returnsValue: boolean;
}

const AsyncFunction = Object.getPrototypeOf(async function () {}).constructor as new (
  ...args: string[]
) => (scope: object) => Promise<unknown>;

/** Name of the scope parameter of compiled bodies. */
export const SCOPE_PARAM = "__axl_scope__";

/**
 * Compiles a rewritten body into an async function of the scope object. Throws
 * SyntaxError like `eval` does.
 *
 * @example
 * ```ts
 * import { compileBody } from "./js_rewrite.ts";
 * const fn = compileBody("return (await Promise.resolve(a + 1))");
 * console.log(await fn({ a: 1 })); // 2
 * ```
 */
export function compileBody(body: string): (scope: object) => Promise<unknown> {
  // `with` works because Function-constructed bodies are sloppy-mode code.
  return new AsyncFunction(SCOPE_PARAM, `with (${SCOPE_PARAM}) {\n${body}\n}`);
}

/**
 * True when `source` is an unfinished input that more lines could complete: open
 * brackets, strings, templates or comments, or a trailing operator.
 *
 * @example
 * ```ts
 * import { isIncomplete } from "./js_rewrite.ts";
 * console.log(isIncomplete("[1, 2,")); // true
 * console.log(isIncomplete("1 +")); // true
 * console.log(isIncomplete("1 + 2")); // false
 * ```
 */
export function isIncomplete(source: string): boolean {
  const lex = lexJs(source);
  if (lex.unbalanced) return false;
  if (lex.unterminated) return true;
  const last = lex.tokens[lex.tokens.length - 1];
  if (!last || last.kind !== "punct" || /^[;)\]}]$/.test(last.text)) return false;
  // `x++` and `x--` end complete statements.
  const prev = lex.tokens[lex.tokens.length - 2];
  if (
    (last.text === "+" || last.text === "-") && prev?.text === last.text &&
    prev.end === last.start
  ) return false;
  return true;
}

/** `source` stops inside a statement: after an operator, or with a bracket left open. */
function endsEarly(source: string): boolean {
  if (isIncomplete(source)) return true;
  let depth = 0;
  for (const t of lexJs(source).tokens) {
    if (t.kind !== "punct") continue;
    if (t.text === "(" || t.text === "[" || t.text === "{") depth++;
    else if (t.text === ")" || t.text === "]" || t.text === "}") depth--;
  }
  return depth > 0;
}

function compiles(body: string): boolean {
  try {
    compileBody(body);
    return true;
  } catch {
    return false;
  }
}

function atStatementStart(tokens: JsToken[], i: number): boolean {
  const t = tokens[i]!;
  if (t.depth !== 0) return false;
  const prev = tokens[i - 1];
  if (!prev) return true;
  if (prev.kind === "punct" && (prev.text === ";" || prev.text === "}")) return true;
  if (!t.newlineBefore) return false;
  // A line break ends a statement unless the previous token needs more.
  return prev.kind !== "punct" || prev.text === ")" || prev.text === "]";
}

// Index of the `}` closing the first `{` at depth 0 found after token `from`.
function declarationEnd(tokens: JsToken[], from: number): number {
  let open = -1;
  for (let i = from; i < tokens.length; i++) {
    const t = tokens[i]!;
    if (open < 0) {
      if (t.depth === 0 && t.text === "{") open = i;
      continue;
    }
    // A closing bracket carries the depth after it closes.
    if (t.text === "}" && t.depth === 0) return i;
  }
  return -1;
}

/** Applies the declaration rewrites; `edits` are (offset, delete count, insert) triples. */
function rewriteDeclarations(source: string): string {
  const { tokens } = lexJs(source);
  const edits: [number, number, string][] = [];
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    if (t.kind !== "ident" || !atStatementStart(tokens, i)) continue;
    const next = tokens[i + 1];
    if (
      t.text === "const" || (t.text === "let" && next && (next.kind === "ident" ||
        next.text === "[" || next.text === "{"))
    ) {
      edits.push([t.start, t.text.length, "var"]);
      // `let y` alone must still create y in the scope: give it an explicit undefined.
      const after = tokens[i + 2];
      if (
        next?.kind === "ident" && (!after || after.newlineBefore || after.text === ";" ||
          after.text === ",")
      ) edits.push([next.end, 0, " = undefined"]);
      continue;
    }
    let decl = i;
    if (t.text === "async" && next?.text === "function" && !next.newlineBefore) decl = i + 1;
    const kw = tokens[decl]!;
    if (kw.text !== "function" && kw.text !== "class") continue;
    let nameAt = decl + 1;
    if (tokens[nameAt]?.text === "*") nameAt++;
    const name = tokens[nameAt];
    if (!name || name.kind !== "ident") continue;
    const end = declarationEnd(tokens, nameAt + 1);
    if (end < 0) continue;
    edits.push([t.start, 0, `${name.text} = `]);
    edits.push([tokens[end]!.end, 0, ";"]);
    i = end;
  }
  let out = source;
  for (const [at, del, ins] of edits.reverse()) {
    out = out.slice(0, at) + ins + out.slice(at + del);
  }
  return out;
}

/**
 * Rewrites one input of the shell (a line or a multi-line block) for
 * {@linkcode compileBody}. Throws SyntaxError when the input does not compile.
 *
 * @example
 * ```ts
 * import { compileBody, rewriteJs } from "./js_rewrite.ts";
 * const scope: Record<string, unknown> = {};
 * const r = rewriteJs("const x = await Promise.resolve(20)\nx + 1");
 * const proxy = new Proxy(scope, { has: (_t, k) => typeof k === "string" && !(k in globalThis) });
 * console.log(r.returnsValue); // true
 * console.log(await compileBody(r.body)(proxy)); // 21
 * console.log(scope.x); // 20
 * ```
 */
export function rewriteJs(source: string): RewrittenJs {
  if (typeof source !== "string") throw new TypeError("rewriteJs(): source must be a string");
  const code = rewriteDeclarations(source);
  const { tokens } = lexJs(code);
  // Candidate starts of the last statement: the beginning, after `;` and at line breaks
  // at depth 0. The earliest one whose tail is one expression wins (`a\n+ b` is a + b).
  const starts = [0];
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    if (t.depth !== 0) continue;
    if (t.text === ";" && t.kind === "punct") starts.push(t.end);
    else if (i > 0 && t.newlineBefore) starts.push(t.start);
  }
  for (const at of [...new Set(starts)]) {
    let tail = code.slice(at);
    const tailTokens = lexJs(tail).tokens;
    while (tailTokens.length && tailTokens[tailTokens.length - 1]!.text === ";") {
      const last = tailTokens.pop()!;
      tail = tail.slice(0, last.start) + tail.slice(last.end);
    }
    if (!tailTokens.length) continue;
    const first = tailTokens[0]!;
    // `{` would turn a block into an object literal, except for the whole input.
    if (at > 0 && first.text === "{") continue;
    if (
      first.kind === "ident" &&
      [
        "var",
        "function",
        "class",
        "if",
        "for",
        "while",
        "do",
        "try",
        "switch",
        "throw",
        "return",
        "break",
        "continue",
        "import",
        "export",
      ]
        .includes(first.text)
    ) continue;
    const head = code.slice(0, at);
    const body = `${head}\nreturn (${tail}\n);`;
    if (compiles(body)) return { body, returnsValue: true };
  }
  const body = code;
  try {
    compileBody(body);
  } catch (wrapped) {
    // Report the error as the input itself produces it, not as our wrapper does.
    let err = wrapped;
    try {
      new AsyncFunction(code);
    } catch (own) {
      if (own instanceof SyntaxError) err = own;
    }
    // The Function constructor closes the body with its own `}`: an input that ends early
    // reads "Unexpected token '}'" there, about a brace the user never typed.
    if (
      err instanceof SyntaxError && err.message === "Unexpected token '}'" && endsEarly(source)
    ) {
      err = new SyntaxError("Unexpected end of input (the input ends before its statement does)");
    }
    if (err instanceof SyntaxError && /^\s*import\s*[\w{*]/m.test(source)) {
      throw new SyntaxError(
        `${err.message} (static import is not available in the shell: ` +
          `use const m = await import("...") )`,
      );
    }
    throw err;
  }
  return { body, returnsValue: false };
}
