// Test helpers: the captured fixture trees, and a view that overrides some of
// their files so a test can vary one fact while everything else stays real.
import { doctorContext } from "../../../lib/doctor/environment.ts";
import type { DoctorContext } from "../../../lib/doctor/context.ts";
import type { PathKind, SystemView } from "../../../lib/doctor/system.ts";

export const VM = new URL("../../fixtures/doctor/vm-6.12", import.meta.url).pathname;
export const VM_NO_MODULE =
  new URL("../../fixtures/doctor/vm-6.12-no-module", import.meta.url).pathname;

/** A path's replacement: text (a file), a symlink target, a directory listing, or removal. */
export type Override =
  | { text: string }
  | { link: string }
  | { dir: string[] }
  | { remove: true };

/** `base` with `overrides` applied (exact paths; a removed directory hides its subtree). */
export function overlay(base: SystemView, overrides: Record<string, Override>): SystemView {
  const get = (path: string): Override | undefined => {
    for (let p = path; p; p = p.slice(0, p.lastIndexOf("/"))) {
      const o = overrides[p];
      if (o && (p === path || "remove" in o)) return o;
    }
    return undefined;
  };
  // Names directly under `dir` that some added path passes through.
  const childrenOf = (dir: string) =>
    Object.entries(overrides)
      .filter(([p, o]) => !("remove" in o) && p.startsWith(`${dir}/`))
      .map(([p]) => p.slice(dir.length + 1).split("/")[0]!);
  return {
    root: base.root,
    readText(path) {
      const o = get(path);
      if (o) return "text" in o ? o.text : undefined;
      return base.readText(path);
    },
    readBytes(path) {
      const o = get(path);
      if (o) return "text" in o ? new TextEncoder().encode(o.text) : undefined;
      return base.readBytes(path);
    },
    list(dir) {
      const o = get(dir);
      if (o) return "dir" in o ? [...o.dir].sort() : undefined;
      const names = base.list(dir);
      const added = childrenOf(dir);
      if (names === undefined && !added.length) return undefined;
      const removed = new Set(
        Object.entries(overrides).filter(([p, o]) =>
          "remove" in o && p.slice(0, p.lastIndexOf("/")) === dir
        ).map(([p]) => p.slice(p.lastIndexOf("/") + 1)),
      );
      return [...new Set([...(names ?? []), ...added])].filter((n) => !removed.has(n)).sort();
    },
    readLink(path) {
      const o = get(path);
      if (o) return "link" in o ? o.link : undefined;
      return base.readLink(path);
    },
    kind(path): PathKind {
      const o = get(path);
      if (o) return "remove" in o ? "missing" : "dir" in o ? "dir" : "file";
      if (childrenOf(path).length && base.kind(path) === "missing") return "dir";
      return base.kind(path);
    },
    isExecutable(path) {
      return get(path) ? false : base.isExecutable(path);
    },
    canOpen(path) {
      const o = get(path);
      if (o) return "text" in o;
      return base.canOpen(path);
    },
  };
}

/** The captured VM context with some fields replaced. */
export function vmContext(
  changes: Partial<DoctorContext> & { overrides?: Record<string, Override> } = {},
  root = VM,
): DoctorContext {
  const ctx = doctorContext({ root });
  const { overrides, ...rest } = changes;
  return { ...ctx, ...(overrides ? { sys: overlay(ctx.sys, overrides) } : {}), ...rest };
}

/** Status by check id. */
export function statuses(results: { id: string; status: string }[]): Record<string, string> {
  return Object.fromEntries(results.map((r) => [r.id, r.status]));
}

/** The arm64 rig's guest (5.15, SMMUv3, a linux,cma heap from its device tree). */
export const ARM64 = new URL("../../fixtures/doctor/vm-arm64-5.15", import.meta.url).pathname;
/** The same guest booted without the device tree's CMA node: the heap is `reserved`. */
export const ARM64_RESERVED =
  new URL("../../fixtures/doctor/vm-arm64-5.15-reserved", import.meta.url).pathname;
