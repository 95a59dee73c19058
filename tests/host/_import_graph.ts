// The static import graph of the repository's own modules, read from source text: what the
// architecture test checks the layer rule against.

/** One relative import: the importing module and the module it names, both repo-relative. */
export interface ImportEdge {
  from: string;
  to: string;
  /** 1-based line of the import statement in `from`. */
  line: number;
}

// `import … from "x"`, `export … from "x"`, `import "x"` and `import("x")` with a literal.
const IMPORT_RE =
  /^[ \t]*(?:import|export)\b(?:\s+type\b)?(?:[^"'`;]*?\bfrom)?\s*["']([^"']+)["']|\bimport\(\s*["']([^"']+)["']\s*\)/gm;

/** Joins a directory and a relative specifier into a normalized repo-relative path. */
export function resolveRelative(fromFile: string, specifier: string): string {
  const parts = fromFile.split("/").slice(0, -1);
  for (const part of specifier.split("/")) {
    if (part === "..") parts.pop();
    else if (part !== "." && part !== "") parts.push(part);
  }
  return parts.join("/");
}

/** The relative imports of one module's source; bare and URL specifiers are left out. */
export function importsOf(file: string, source: string): ImportEdge[] {
  const edges: ImportEdge[] = [];
  for (const match of source.matchAll(IMPORT_RE)) {
    const specifier = match[1] ?? match[2] ?? "";
    if (!specifier.startsWith("./") && !specifier.startsWith("../")) continue;
    const line = source.slice(0, match.index).split("\n").length;
    edges.push({ from: file, to: resolveRelative(file, specifier), line });
  }
  return edges;
}

/** The `.ts` files under `dir` (repo-relative), skipping build output and test data. */
export function tsFiles(root: string, dir: string): string[] {
  const out: string[] = [];
  const info = Deno.statSync(`${root}/${dir}`);
  if (info.isFile) return dir.endsWith(".ts") ? [dir] : [];
  for (const entry of Deno.readDirSync(`${root}/${dir}`)) {
    if (entry.name === "build" || entry.name.startsWith(".")) continue;
    // captured sysfs trees (with their dangling symlinks) and other data, not modules
    if (entry.name === "fixtures" || entry.isSymlink) continue;
    out.push(...tsFiles(root, `${dir}/${entry.name}`));
  }
  return out.sort();
}

/** Every relative import of the modules under `dirs`. */
export function importGraph(root: string, dirs: readonly string[]): ImportEdge[] {
  return dirs.flatMap((dir) =>
    tsFiles(root, dir).flatMap((file) => importsOf(file, Deno.readTextFileSync(`${root}/${file}`)))
  );
}
