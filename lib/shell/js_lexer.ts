/**
 * A small JavaScript lexer, just enough for the shell: it finds top-level declarations,
 * statement boundaries and unfinished input (open brackets, strings, templates,
 * comments) without a parser dependency. It tracks bracket depth and tells regular
 * expressions from division by the previous token, as editors do.
 *
 * @module
 */

/** Kind of a {@linkcode JsToken}. */
export type JsTokenKind = "ident" | "number" | "string" | "template" | "regex" | "punct";

/** One significant token (comments and whitespace are skipped). */
export interface JsToken {
  /** Kind of token. */
  kind: JsTokenKind;
  /** Source text of the token. */
  text: string;
  /** Offset of the first character. */
  start: number;
  /** Offset after the last character. */
  end: number;
  /** Bracket depth (`()`, `[]`, `{}` together) before the token. */
  depth: number;
  /** A line break separates it from the previous token. */
  newlineBefore: boolean;
}

/** Result of {@linkcode lexJs}. */
export interface JsLexResult {
  /** Significant tokens in order. */
  tokens: JsToken[];
  /** Bracket depth at the end (> 0: unclosed brackets). */
  depth: number;
  /**
   * Why the input cannot be complete yet (`"string"`, `"template"`, `"comment"`,
   * `"regex"`, `"brackets"`), or undefined when it may be complete.
   */
  unterminated?: "string" | "template" | "comment" | "regex" | "brackets";
  /** A closing bracket had no opening one (a syntax error the evaluator reports). */
  unbalanced: boolean;
}

// After these keywords a `/` starts a regular expression, not a division.
const REGEX_AFTER_WORDS = new Set([
  "return",
  "typeof",
  "instanceof",
  "in",
  "of",
  "new",
  "delete",
  "void",
  "throw",
  "case",
  "do",
  "else",
  "yield",
  "await",
]);

const ID_START = /[\p{ID_Start}$_]/u;
const ID_PART = /[\p{ID_Continue}$\u200c\u200d]/u;

function regexAllowed(prev: JsToken | undefined): boolean {
  if (!prev) return true;
  if (prev.kind === "punct") return prev.text !== ")" && prev.text !== "]";
  if (prev.kind === "ident") return REGEX_AFTER_WORDS.has(prev.text);
  return false;
}

/**
 * Lexes `source` into significant tokens with their bracket depth.
 *
 * @example
 * ```ts
 * import { lexJs } from "./js_lexer.ts";
 * const { tokens, unterminated } = lexJs("const a = `x${ {b: 1}.b }` / 2");
 * console.log(tokens.length); // 6
 * console.log(unterminated); // false
 * console.log(lexJs("foo(1,").unterminated); // "brackets"
 * ```
 */
export function lexJs(source: string): JsLexResult {
  if (typeof source !== "string") throw new TypeError("lexJs(): source must be a string");
  const tokens: JsToken[] = [];
  let depth = 0;
  let unbalanced = false;
  let newline = false;
  let i = 0;
  const n = source.length;
  const push = (kind: JsTokenKind, start: number, end: number): void => {
    tokens.push({
      kind,
      text: source.slice(start, end),
      start,
      end,
      depth,
      newlineBefore: newline,
    });
    newline = false;
  };

  while (i < n) {
    const c = source[i]!;
    if (c === "\n" || c === "\r" || c === "\u2028" || c === "\u2029") {
      newline = true;
      i++;
      continue;
    }
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    if (c === "/" && source[i + 1] === "/") {
      while (i < n && source[i] !== "\n") i++;
      continue;
    }
    if (c === "/" && source[i + 1] === "*") {
      const close = source.indexOf("*/", i + 2);
      if (close < 0) return { tokens, depth, unterminated: "comment", unbalanced };
      if (source.slice(i, close).includes("\n")) newline = true;
      i = close + 2;
      continue;
    }
    if (c === "'" || c === '"') {
      const end = skipString(source, i);
      if (end < 0) return { tokens, depth, unterminated: "string", unbalanced };
      push("string", i, end);
      i = end;
      continue;
    }
    if (c === "`") {
      const end = skipTemplate(source, i);
      if (end < 0) return { tokens, depth, unterminated: "template", unbalanced };
      push("template", i, end);
      i = end;
      continue;
    }
    if (c === "/" && regexAllowed(tokens[tokens.length - 1])) {
      const end = skipRegex(source, i);
      if (end < 0) return { tokens, depth, unterminated: "regex", unbalanced };
      push("regex", i, end);
      i = end;
      continue;
    }
    if (/[0-9]/.test(c) || (c === "." && /[0-9]/.test(source[i + 1] ?? ""))) {
      let j = i + 1;
      while (j < n && /[0-9a-zA-Z_.]/.test(source[j]!)) {
        // An exponent sign belongs to the number: 1e-3.
        if (
          /[eE]/.test(source[j]!) && /[+-]/.test(source[j + 1] ?? "") &&
          !/^0[xX]/.test(source.slice(i, j))
        ) j++;
        j++;
      }
      push("number", i, j);
      i = j;
      continue;
    }
    const cp = source.codePointAt(i)!;
    const ch = String.fromCodePoint(cp);
    if (ID_START.test(ch) || c === "\\" || c === "#") {
      let j = i + ch.length;
      while (j < n) {
        const cj = String.fromCodePoint(source.codePointAt(j)!);
        if (!ID_PART.test(cj)) break;
        j += cj.length;
      }
      push("ident", i, j);
      i = j;
      continue;
    }
    if (c === "(" || c === "[" || c === "{") {
      push("punct", i, i + 1);
      depth++;
    } else if (c === ")" || c === "]" || c === "}") {
      if (depth === 0) unbalanced = true;
      else depth--;
      push("punct", i, i + 1);
    } else if (c === "=" && source[i + 1] === ">") {
      push("punct", i, i + 2);
      i++;
    } else {
      push("punct", i, i + 1);
    }
    i++;
  }
  return {
    tokens,
    depth,
    unterminated: depth > 0 ? "brackets" : undefined,
    unbalanced,
  };
}

function skipString(s: string, start: number): number {
  const quote = s[start];
  for (let i = start + 1; i < s.length; i++) {
    const c = s[i];
    if (c === "\\") i++;
    else if (c === quote) return i + 1;
    else if (c === "\n") return -1;
  }
  return -1;
}

// Returns the offset after the closing backtick, or -1 when the template is unfinished.
function skipTemplate(s: string, start: number): number {
  for (let i = start + 1; i < s.length; i++) {
    const c = s[i];
    if (c === "\\") i++;
    else if (c === "`") return i + 1;
    else if (c === "$" && s[i + 1] === "{") {
      const end = skipSubstitution(s, i + 2);
      if (end < 0) return -1;
      i = end - 1;
    }
  }
  return -1;
}

// Skips the expression of a `${...}` up to and including its closing brace.
function skipSubstitution(s: string, start: number): number {
  let depth = 0;
  for (let i = start; i < s.length; i++) {
    const c = s[i]!;
    if (c === "'" || c === '"') {
      const end = skipString(s, i);
      if (end < 0) return -1;
      i = end - 1;
    } else if (c === "`") {
      const end = skipTemplate(s, i);
      if (end < 0) return -1;
      i = end - 1;
    } else if (c === "/" && s[i + 1] === "/") {
      const nl = s.indexOf("\n", i);
      if (nl < 0) return -1;
      i = nl;
    } else if (c === "/" && s[i + 1] === "*") {
      const close = s.indexOf("*/", i + 2);
      if (close < 0) return -1;
      i = close + 1;
    } else if (c === "{") depth++;
    else if (c === "}") {
      if (depth === 0) return i + 1;
      depth--;
    }
  }
  return -1;
}

function skipRegex(s: string, start: number): number {
  let inClass = false;
  let i = start + 1;
  for (; i < s.length; i++) {
    const c = s[i];
    if (c === "\n") return -1;
    if (c === "\\") i++;
    else if (c === "[") inClass = true;
    else if (c === "]") inClass = false;
    else if (c === "/" && !inClass) break;
  }
  if (i >= s.length) return -1;
  i++;
  while (i < s.length && /[a-z]/i.test(s[i]!)) i++;
  return i;
}
