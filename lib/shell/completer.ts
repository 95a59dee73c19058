/**
 * Tab completion for the shell: command names, their options and option values (heap
 * names, formats, directions), live handles of the right kind (buffers for `import`,
 * jobs for `wait`), paths, and for JavaScript the session's variables, the axl modules
 * and properties of values (`frame.in` → `frame.inode`).
 *
 * @module
 */
import { Heap } from "../core/heap.ts";
import { splitWords } from "./args.ts";
import { optionsOf, type PositionalSpec, type ValueKind } from "../commands/spec.ts";
import { commandWords, findShellCommand, loadedShellCommand } from "./registry.ts";
import type { ObjectKind, Session } from "./session.ts";

/** `[candidates, the text they replace]`, as `node:readline`'s completer returns. */
export type Completion = [string[], string];

const JS_WORDS = [
  "await",
  "async",
  "const",
  "let",
  "function",
  "class",
  "return",
  "typeof",
  "instanceof",
  "new",
  "for",
  "of",
  "in",
  "if",
  "else",
  "true",
  "false",
  "null",
  "undefined",
];

// Which session object kinds an argument kind accepts.
const KIND_OBJECTS: Partial<Record<ValueKind, ObjectKind[]>> = {
  buffer: ["buffer", "frame"],
  import: ["import"],
  job: ["job"],
  producer: ["producer"],
  frame: ["frame"],
  object: ["buffer", "import", "job", "producer", "frame", "trace", "device"],
};

function unique(list: Iterable<string>): string[] {
  return [...new Set(list)].sort();
}

function pathCandidates(prefix: string): string[] {
  const home = Deno.env.get("HOME") ?? "";
  const expanded = prefix.startsWith("~/") ? home + prefix.slice(1) : prefix;
  const slash = expanded.lastIndexOf("/");
  const dir = slash < 0 ? "." : expanded.slice(0, slash) || "/";
  const base = slash < 0 ? expanded : expanded.slice(slash + 1);
  const shown = slash < 0 ? "" : prefix.slice(0, prefix.lastIndexOf("/") + 1);
  const out: string[] = [];
  try {
    for (const e of Deno.readDirSync(dir)) {
      if (!e.name.startsWith(base)) continue;
      if (e.name.startsWith(".") && !base.startsWith(".")) continue;
      out.push(shown + e.name + (e.isDirectory ? "/" : ""));
    }
  } catch {
    // unreadable directory: nothing to offer
  }
  return out.sort();
}

function variablesOf(session: Session, kinds: readonly ObjectKind[]): string[] {
  const out: string[] = [];
  for (const name of Object.keys(session.scope)) {
    const d = Object.getOwnPropertyDescriptor(session.scope, name);
    if (!d || !("value" in d)) continue;
    const kind = session.kindOf(d.value);
    if (!kind || !kinds.includes(kind)) continue;
    const t = session.tracked(d.value);
    if (t && !session.isLive(t)) continue;
    out.push(name);
  }
  // Named variables before $N.
  return out.sort((a, b) =>
    Number(a.startsWith("$")) - Number(b.startsWith("$")) || a.localeCompare(b)
  );
}

function valuesFor(
  session: Session,
  kind: ValueKind | undefined,
  choices: readonly string[] | undefined,
  current: string,
): string[] {
  if (choices?.length) return [...choices];
  switch (kind) {
    case "heap":
      return Heap.list();
    case "path":
      return pathCandidates(current);
    case "command":
      return commandWords();
    default: {
      const kinds = kind ? KIND_OBJECTS[kind] : undefined;
      if (kinds) return variablesOf(session, kinds);
      return current.startsWith("/") || current.startsWith("./") ? pathCandidates(current) : [];
    }
  }
}

function propertyNames(value: unknown): string[] {
  const names = new Set<string>();
  let o: unknown = value;
  for (let depth = 0; o !== null && o !== undefined && depth < 8; depth++) {
    if (o === Object.prototype || o === Function.prototype) break;
    for (const k of Object.getOwnPropertyNames(o)) {
      if (k !== "constructor" && !k.startsWith("_")) names.add(k);
    }
    o = Object.getPrototypeOf(o);
  }
  return [...names];
}

function completeJs(line: string, session: Session, atStart: boolean): Completion {
  const m = /([\p{ID_Start}$_][\p{ID_Continue}$]*(?:\.[\p{ID_Continue}$]*)*)$/u.exec(line);
  const token = m?.[1] ?? "";
  if (!token && !atStart) return [[], ""];
  const dot = token.lastIndexOf(".");
  if (dot >= 0) {
    const base = token.slice(0, dot);
    const partial = token.slice(dot + 1);
    const value = session.evaluator.lookup(base);
    if (value === undefined || value === null) return [[], token];
    const hits = propertyNames(
      typeof value === "object" || typeof value === "function" ? value : Object(value),
    )
      .filter((n) => n.startsWith(partial)).sort().map((n) => `${base}.${n}`);
    return [hits, token];
  }
  const pool = [
    ...Object.getOwnPropertyNames(session.scope),
    ...Object.getOwnPropertyNames(globalThis),
    ...JS_WORDS,
    ...(atStart ? commandWords() : []),
  ];
  return [unique(pool.filter((n) => n.startsWith(token))), token];
}

/** The positional spec the word at `index` fills (the last variadic one repeats). */
function positionalAt(specs: readonly PositionalSpec[], index: number): PositionalSpec | undefined {
  const last = specs[specs.length - 1];
  return specs[index] ?? (last?.variadic ? last : undefined);
}

/**
 * Completes `line` (the text left of the cursor). A command whose module has not loaded
 * yet completes nothing after its name.
 *
 * @example
 * ```ts
 * import { Session } from "./session.ts";
 * import { complete } from "./completer.ts";
 * const session = new Session();
 * const [hits, sub] = complete("all", session);
 * console.log(sub); // "all"
 * console.log(hits.includes("alloc")); // true
 * // A command offers its options once its module is loaded (the shell loads them all
 * // after its first prompt).
 * await session.load();
 * const [opts] = complete("alloc 4096 --hea", session);
 * console.log(opts.join()); // "--heap"
 * ```
 */
export function complete(line: string, session: Session): Completion {
  const lead = /^\s*(?:([\p{ID_Start}$_][\p{ID_Continue}$]*)\s*=(?!=)\s*)?/u.exec(line)!;
  const afterBind = line.slice(lead[0].length);
  const firstEnd = afterBind.search(/\s/);
  if (firstEnd < 0) {
    // Still on the first word: a command, or the start of JavaScript.
    if (lead[1] !== undefined) {
      const hits = commandWords().filter((w) => w.startsWith(afterBind));
      const [js] = completeJs(afterBind, session, false);
      return [unique([...hits, ...js]), afterBind];
    }
    return completeJs(line, session, true);
  }
  const word = afterBind.slice(0, firstEnd);
  const command = loadedShellCommand(word);
  // A command whose module is still loading (the shell loads them all after its first
  // prompt) has nothing to offer yet.
  if (!command) return findShellCommand(word) ? [[], ""] : completeJs(line, session, false);

  const split = splitWords(afterBind.slice(firstEnd));
  const words = split.words.map((w) => w.value);
  const current = split.trailingSpace || !split.words.length ? "" : words.pop()!;
  const options = optionsOf(command, words, "shell");
  const filter = (list: string[]): Completion => [
    list.filter((c) => c.startsWith(current)),
    current,
  ];

  if (current.startsWith("-")) {
    const flags = Object.entries(options).map(([n]) => `--${n}`);
    return filter([...flags, "--help"]);
  }
  const prev = words[words.length - 1];
  if (prev?.startsWith("--")) {
    const spec = options[prev.slice(2)];
    if (spec?.type === "string") {
      return filter(valuesFor(session, spec.kind, spec.choices, current));
    }
  }
  // Count the positionals before the cursor, skipping option values.
  let index = 0;
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    if (w.startsWith("-")) {
      if (options[w.replace(/^-+/, "")]?.type === "string") i++;
      continue;
    }
    index++;
  }
  if (command.subcommands) {
    if (index === 0) return filter(Object.keys(command.subcommands));
    const sub = command.subcommands[words.find((w) => !w.startsWith("-"))!];
    const spec = sub ? positionalAt(sub.positionals, index - 1) : undefined;
    return filter(spec ? valuesFor(session, spec.kind, spec.choices, current) : []);
  }
  const spec = positionalAt(command.positionals, index);
  return filter(spec ? valuesFor(session, spec.kind, spec.choices, current) : []);
}
