// Reading the repository's Markdown for the docs tests: heading anchors as GitHub makes them,
// the links of a page, and the repository's text files.
import { dirname, join, normalize, relative } from "node:path";

/** The repository root (no trailing slash). */
export const root = decodeURIComponent(new URL("../..", import.meta.url).pathname).replace(
  /\/$/,
  "",
);

/** Lines of `text` outside fenced code blocks, with their 1-based line numbers. */
export function proseLines(text: string): { line: number; text: string }[] {
  const out: { line: number; text: string }[] = [];
  let fence: string | null = null;
  text.split("\n").forEach((line, i) => {
    const mark = /^\s*(`{3,}|~{3,})/.exec(line)?.[1]?.[0];
    if (mark !== undefined) {
      if (fence === null) fence = mark;
      else if (mark === fence) fence = null;
      return;
    }
    if (fence === null) out.push({ line: i + 1, text: line });
  });
  return out;
}

/**
 * The anchor GitHub gives a heading: lower case, inline markup removed, every character that is
 * not a letter, digit, space, `-` or `_` dropped, spaces turned into `-`.
 */
export function slug(heading: string): string {
  return heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/[`*]/g, "")
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-");
}

/** The anchors of a page's headings, numbered (`-1`, `-2`) when a heading repeats. */
export function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const { text: line } of proseLines(text)) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const base = slug(heading);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

/** One link of a page: its target as written, and where it is. */
export interface Link {
  target: string;
  line: number;
}

/** The inline links and images of a page outside code (`[text](target)`, `![alt](target)`). */
export function links(text: string): Link[] {
  const out: Link[] = [];
  for (const { line, text: prose } of proseLines(text)) {
    const code = /`[^`]*`/g;
    for (
      const m of prose.replace(code, "").matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)
    ) {
      if (m[1] !== undefined) out.push({ target: m[1], line });
    }
  }
  return out;
}

/**
 * What is wrong with a link from the page `from` (a path relative to the root), or null when it
 * resolves: a relative file must exist, an anchor must be a heading of its page. Links to other
 * sites are not followed.
 */
export function brokenLink(
  from: string,
  target: string,
  read: (path: string) => string | null,
): string | null {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target)) return null;
  const [path, anchor] = target.split("#", 2) as [string, string | undefined];
  const file = path === "" ? from : normalize(join(dirname(from), decodeURIComponent(path)));
  if (file.startsWith("..")) return `${target} leaves the repository`;
  const text = read(file);
  if (text === null) return `${target}: ${file} does not exist`;
  if (anchor === undefined || anchor === "") return null;
  if (!file.endsWith(".md")) return `${target}: an anchor into ${file}, which is not Markdown`;
  return anchors(text).has(anchor)
    ? null
    : `${target}: ${file} has no heading with anchor #${anchor}`;
}

/** Reads a file of the repository (a path relative to the root), or null when there is none. */
export function readRepoFile(path: string): string | null {
  try {
    const full = join(root, path);
    if (Deno.statSync(full).isDirectory) return "";
    return Deno.readTextFileSync(full);
  } catch {
    return null;
  }
}

const SKIPPED_DIRS = new Set([".git", "build", "artifacts", "coverage", "node_modules"]);
const BINARY = /\.(gz|xz|zst|o|ko|so|a|png|jpg|data)$/;

/**
 * Every text file of the repository (paths relative to the root), without build output or
 * compressed data. In a git checkout: the files git tracks and the untracked ones it does not
 * ignore, so that what a run writes into ignored files (`bench/results.json`, with this
 * machine's paths in it) is not taken for the repository's; elsewhere every file under `dir`.
 */
export function textFiles(dir = root): string[] {
  const git = dir === root ? gitFiles() : undefined;
  if (git) return git.filter((f) => !BINARY.test(f));
  const out: string[] = [];
  for (const entry of Deno.readDirSync(dir)) {
    const full = join(dir, entry.name);
    if (entry.isDirectory) {
      if (!SKIPPED_DIRS.has(entry.name)) out.push(...textFiles(full));
      continue;
    }
    if (!entry.isFile || BINARY.test(entry.name)) continue;
    out.push(relative(root, full));
  }
  return out.sort();
}

/**
 * What `find` reports in every text file of the repository but `self` (the test that spells the
 * patterns out), as `file:hit`; files with a NUL byte are not text and are passed over.
 */
export function findInTextFiles(find: (text: string) => string[], self: string): string[] {
  const found: string[] = [];
  for (const file of textFiles()) {
    if (file === self) continue;
    const text = readRepoFile(file);
    if (text === null || text.includes("\0")) continue;
    for (const hit of find(text)) found.push(`${file}:${hit}`);
  }
  return found;
}

/** `git ls-files` of the root, tracked and untracked but not ignored, or undefined without git. */
function gitFiles(): string[] | undefined {
  try {
    const out = new Deno.Command("git", {
      args: ["-C", root, "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
      stdout: "piped",
      stderr: "null",
    }).outputSync();
    if (!out.success) return undefined;
    const files = new TextDecoder().decode(out.stdout).split("\0").filter((f) => f !== "");
    // A file deleted in the work tree is still in the index until the change is staged.
    return [...new Set(files)].filter((f) => {
      try {
        return Deno.statSync(join(root, f)).isFile;
      } catch {
        return false;
      }
    }).sort();
  } catch {
    return undefined;
  }
}
