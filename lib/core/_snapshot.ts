// Copies and compares the plain data of an options object, so a cache keyed by the
// object can tell when the caller changed it after it was validated.

/**
 * A structural copy of plain data: primitives as they are, arrays and plain objects
 * copied member by member, anything else (a DmaBuf, a class instance) by reference.
 */
export function snapshot(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(snapshot);
  if (isPlainObject(value)) {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value)) out[key] = snapshot(value[key]);
    return out;
  }
  return value;
}

/** Whether `value` still holds what {@linkcode snapshot} copied into `snap`. */
export function unchanged(value: unknown, snap: unknown): boolean {
  if (Array.isArray(value)) {
    return Array.isArray(snap) && value.length === snap.length &&
      value.every((v, i) => unchanged(v, snap[i]));
  }
  if (isPlainObject(value)) {
    if (!isPlainObject(snap)) return false;
    const keys = Object.keys(value);
    if (keys.length !== Object.keys(snap).length) return false;
    for (const key of keys) {
      if (!Object.hasOwn(snap, key) || !unchanged(value[key], snap[key])) return false;
    }
    return true;
  }
  return Object.is(value, snap);
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (typeof v !== "object" || v === null) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}
