/**
 * Finding the object a command argument names: a variable (`frame`, `$3`) or a tracked
 * object number (`#4`), checked against the kinds the argument accepts; and, when the
 * argument is left out, the most recent live object of that kind.
 *
 * @module
 */
import { type ObjectKind, type Session } from "./session.ts";
import { UsageError } from "../commands/spec.ts";

/**
 * The object `word` names, which must be one of `kinds`. Throws UsageError naming
 * the word and what it is instead.
 *
 * @example
 * ```ts
 * import { Session } from "./session.ts";
 * import { resolveObject } from "./resolve.ts";
 * const s = new Session();
 * s.bind(5, "n");
 * try {
 *   resolveObject(s, "n", ["buffer"], "import");
 * } catch (err) {
 *   console.log((err as Error).message); // import: n is a number, …
 * }
 * ```
 */
export function resolveObject(
  session: Session,
  word: string,
  kinds: readonly ObjectKind[],
  command: string,
): unknown {
  let value: unknown;
  const id = /^#(\d+)$/.exec(word);
  if (id) {
    const t = session.all().find((x) => x.id === Number(id[1]));
    if (!t) throw new UsageError(`${command}: no session object ${word} (see 'objects')`);
    value = t.object;
  } else if (Object.hasOwn(session.scope, word)) {
    value = session.scope[word];
  } else {
    throw new UsageError(`${command}: no variable '${word}' (see 'vars' or 'objects')`);
  }
  const kind = session.kindOf(value);
  if (!kind || !kinds.includes(kind)) {
    const is = kind ?? (value === null ? "null" : Array.isArray(value) ? "an array" : typeof value);
    throw new UsageError(
      `${command}: ${word} is ${
        kind ? `a ${kind}` : /^[aeiou]/.test(is) ? `an ${is}` : `a ${is}`
      }` +
        `, expected ${kinds.map((k) => `a ${k}`).join(" or ")}`,
    );
  }
  return value;
}

/**
 * The object `word` names, or when `word` is undefined the newest live tracked object
 * of one of `kinds`; UsageError when there is none.
 *
 * @example
 * ```ts
 * import { Session } from "./session.ts";
 * import { resolveOrLatest } from "./resolve.ts";
 * try {
 *   resolveOrLatest(new Session(), undefined, ["job"], "wait");
 * } catch (err) {
 *   if (!(err instanceof Error) || !/no job/.test(err.message)) throw err;
 * }
 * ```
 */
export function resolveOrLatest(
  session: Session,
  word: string | undefined,
  kinds: readonly ObjectKind[],
  command: string,
): unknown {
  if (word !== undefined) return resolveObject(session, word, kinds, command);
  const live = session.live().filter((t) => kinds.includes(t.kind));
  const latest = live[live.length - 1];
  if (!latest) {
    throw new UsageError(
      `${command}: no ${kinds.join(" or ")} in this session; name one or create one first`,
    );
  }
  return latest.object;
}
