/**
 * {@linkcode SystemView}: the read-only window onto `/proc`, `/sys`, `/dev` and
 * `/boot` that every doctor check goes through. {@linkcode systemAt} reads a real
 * file system, either `/` or a tree captured by `tests/fixtures/doctor/capture.sh`,
 * so the checks are pure functions of what the view returns.
 *
 * Deno (2.9) lets a program read `/proc` and `/sys` only with `--allow-all`;
 * without it every method throws `Deno.errors.NotCapable` rather than report
 * the files as missing.
 *
 * @module
 */

/** What a path is, as far as the caller may know. */
export type PathKind = "file" | "dir" | "device" | "missing" | "denied" | "other";

/** Read-only access to a machine's files; every path is absolute on that machine. */
export interface SystemView {
  /** Where the machine's `/` is on this host (`/` for the running system). */
  readonly root: string;
  /** File content as text; `undefined` when missing or unreadable. */
  readText(path: string): string | undefined;
  /** File content as bytes; `undefined` when missing or unreadable. */
  readBytes(path: string): Uint8Array | undefined;
  /** Entry names of a directory, sorted; `undefined` when missing or unreadable. */
  list(dir: string): string[] | undefined;
  /** Target of a symlink; `undefined` when it is not one. */
  readLink(path: string): string | undefined;
  /** What is at `path` (following symlinks). */
  kind(path: string): PathKind;
  /** True when `path` is a regular file with an execute bit set. */
  isExecutable(path: string): boolean;
  /** True when this process can open `path` for reading. */
  canOpen(path: string): boolean;
}

function join(root: string, path: string): string {
  if (!path.startsWith("/")) throw new TypeError(`path must be absolute: '${path}'`);
  return root === "/" ? path : root.replace(/\/+$/, "") + path;
}

/**
 * `fn()`, or `fallback` when the file system says no. A denial by Deno's own
 * permissions (`NotCapable`) is rethrown: it says nothing about the machine.
 */
function tryOr<T>(fn: () => T, fallback: T): T {
  try {
    return fn();
  } catch (err) {
    if (err instanceof Deno.errors.NotCapable) throw err;
    return fallback;
  }
}

/**
 * A {@linkcode SystemView} of the file system under `root` (default `/`).
 *
 * @example Read the kernel release of the running system
 * ```ts
 * import { systemAt } from "./system.ts";
 * const release = systemAt("/").readText("/proc/sys/kernel/osrelease");
 * console.log(release?.trim()); // the running kernel's release, e.g. "6.12.0"; undefined without /proc
 * ```
 */
export function systemAt(root = "/"): SystemView {
  if (!root.startsWith("/")) throw new TypeError(`root must be an absolute path: '${root}'`);
  const decoder = new TextDecoder();
  return {
    root,
    readBytes(path) {
      const full = join(root, path);
      return tryOr(() => Deno.readFileSync(full), undefined);
    },
    readText(path) {
      const bytes = this.readBytes(path);
      return bytes === undefined ? undefined : decoder.decode(bytes);
    },
    list(dir) {
      const full = join(root, dir);
      return tryOr(() => [...Deno.readDirSync(full)].map((e) => e.name).sort(), undefined);
    },
    readLink(path) {
      const full = join(root, path);
      return tryOr(() => Deno.readLinkSync(full), undefined);
    },
    kind(path) {
      const full = join(root, path);
      try {
        const st = Deno.statSync(full);
        if (st.isFile) return "file";
        if (st.isDirectory) return "dir";
        if (st.isCharDevice || st.isBlockDevice) return "device";
        return "other";
      } catch (err) {
        if (err instanceof Deno.errors.NotCapable) throw err;
        return err instanceof Deno.errors.PermissionDenied ? "denied" : "missing";
      }
    },
    isExecutable(path) {
      const full = join(root, path);
      return tryOr(() => {
        const st = Deno.statSync(full);
        return st.isFile && ((st.mode ?? 0) & 0o111) !== 0;
      }, false);
    },
    canOpen(path) {
      const full = join(root, path);
      return tryOr(() => {
        Deno.openSync(full, { read: true }).close();
        return true;
      }, false);
    },
  };
}
