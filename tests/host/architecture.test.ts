// The layer rule of ARCHITECTURE.md as a test: every module of lib/, ffi/, tasks/, the root
// mod.ts, bench/ and tests/ belongs to one layer, imports only from its own layer or lower ones,
// only the core (and the FFI's own tests and benchmarks) reaches the shim's bindings in ffi/,
// and a private module (`_name.ts`) is imported only from its own directory and the
// directories below it, or from the host tests that mirror that directory. A failure names
// the offending import.
import assert from "node:assert/strict";
import { type ImportEdge, importGraph, importsOf, tsFiles } from "./_import_graph.ts";

/** Lowest first; a module may import from its own layer and the layers before it. */
const LAYERS: readonly { name: string; paths: readonly string[] }[] = [
  { name: "dependencies", paths: ["lib/_deps.ts"] },
  { name: "ffi", paths: ["ffi/"] },
  { name: "pure data", paths: ["lib/formats/", "lib/nvmm/"] },
  { name: "core", paths: ["lib/core/"] },
  { name: "trace parse", paths: ["lib/trace/parse/"] },
  { name: "trace capture", paths: ["lib/trace/capture/", "lib/trace/mod.ts"] },
  { name: "frame path", paths: ["lib/frames/"] },
  { name: "policy", paths: ["lib/constraints/", "lib/caps/", "lib/doctor/"] },
  { name: "verify", paths: ["lib/verify/"] },
  { name: "commands", paths: ["lib/commands/"] },
  { name: "public API", paths: ["mod.ts"] },
  { name: "shell", paths: ["lib/shell/"] },
  { name: "tasks", paths: ["tasks/"] },
  { name: "bench", paths: ["bench/"] },
  { name: "tests", paths: ["tests/"] },
];

/** The layers allowed to import `ffi/`: the bindings themselves and the typed core. */
const SHIM_LAYERS = new Set(["ffi", "core"]);

/** Outside the core, what may call the shim's bindings directly: their own tests, and the
 * benchmarks that measure a raw FFI call. */
const SHIM_CALLERS = ["tests/host/ffi/", "bench/"] as const;

/**
 * What the test reads: the library, the bindings, the entry points, the root module, the
 * benchmarks and the tests.
 */
const SCANNED = ["lib", "ffi", "tasks", "mod.ts", "bench", "tests"] as const;

/**
 * Private imports allowed by name, each with why: a test that needs a private module
 * of a directory it does not mirror.
 */
const PRIVATE_ALLOWED: readonly { from: string; to: string; why: string }[] = [
  {
    from: "tests/device/metis.test.ts",
    to: "lib/core/_shim.ts",
    why: "calls axl_shim_metis_attach directly to see the driver refuse a second attach " +
      "(EBUSY), a call the typed MetisDevice never makes; a typed core wrapper would remove it",
  },
];

const root = decodeURIComponent(new URL("../..", import.meta.url).pathname).replace(/\/$/, "");

/** The index in {@linkcode LAYERS} of `file` (longest matching path), or -1. */
function layerOf(file: string): number {
  let best = -1;
  let bestLength = -1;
  LAYERS.forEach((layer, index) => {
    for (const path of layer.paths) {
      const matches = path.endsWith("/") ? file.startsWith(path) : file === path;
      if (matches && path.length > bestLength) [best, bestLength] = [index, path.length];
    }
  });
  return best;
}

const where = (edge: ImportEdge) => `${edge.from}:${edge.line} imports ${edge.to}`;
const layerName = (index: number) => LAYERS[index]?.name ?? "no layer";

/** Files that no layer claims: a new directory must be given a place in LAYERS. */
function unplaced(files: readonly string[]): string[] {
  return files.filter((file) => layerOf(file) < 0);
}

/** Imports that go up: the importer's layer is below the imported module's. */
function upwardImports(edges: readonly ImportEdge[]): string[] {
  return edges.flatMap((edge) => {
    const [from, to] = [layerOf(edge.from), layerOf(edge.to)];
    if (from < 0 || to < 0 || to <= from) return [];
    return [`${where(edge)}: ${layerName(from)} may not import ${layerName(to)} (a higher layer)`];
  });
}

/** Imports of `ffi/` from outside the core: only typed core wrappers call the shim. */
function shimImports(edges: readonly ImportEdge[]): string[] {
  return edges.flatMap((edge) => {
    const from = layerName(layerOf(edge.from));
    if (!edge.to.startsWith("ffi/") || SHIM_LAYERS.has(from)) return [];
    if (SHIM_CALLERS.some((dir) => edge.from.startsWith(dir))) return [];
    return [`${where(edge)}: only the core calls the shim; add a typed wrapper in lib/core/`];
  });
}

/**
 * The host test directory that mirrors `dir` (`lib/trace/parse/` → `tests/host/trace/parse/`,
 * `tasks/` → `tests/host/tasks/`), or undefined for tests/ and bench/.
 */
function mirrorOf(dir: string): string | undefined {
  if (dir.startsWith("lib/")) return `tests/host/${dir.slice("lib/".length)}`;
  if (dir.startsWith("ffi/") || dir.startsWith("tasks/")) return `tests/host/${dir}`;
  return undefined;
}

/**
 * Imports of a private module (`_name.ts`) from outside its directory's tree. The host tests
 * that mirror the directory may import it too; under tests/, `_name.ts` marks a shared test
 * helper, which any test may import.
 */
function privateImports(
  edges: readonly ImportEdge[],
  allowed: typeof PRIVATE_ALLOWED = PRIVATE_ALLOWED,
): string[] {
  const dirOf = (file: string) => file.slice(0, file.lastIndexOf("/") + 1);
  return edges.flatMap((edge) => {
    const name = edge.to.slice(edge.to.lastIndexOf("/") + 1);
    const dir = dirOf(edge.to);
    if (!name.startsWith("_") || edge.from.startsWith(dir)) return [];
    if (edge.to.startsWith("tests/") && edge.from.startsWith("tests/")) return [];
    const mirror = mirrorOf(dir);
    if (mirror !== undefined && edge.from.startsWith(mirror)) return [];
    if (allowed.some((a) => a.from === edge.from && a.to === edge.to)) return [];
    return [`${where(edge)}: ${name} is private to ${dir}`];
  });
}

/**
 * Import circles among the modules below the shell, each as the path that closes it. The
 * shell and the tasks are left out: their help command lists the registry that holds it.
 */
function circles(edges: readonly ImportEdge[]): string[] {
  const shell = LAYERS.findIndex((layer) => layer.name === "shell");
  const next = new Map<string, string[]>();
  for (const { from, to } of edges) {
    if (from === to || layerOf(from) >= shell || layerOf(to) >= shell) continue;
    next.set(from, [...(next.get(from) ?? []), to]);
  }
  const done = new Set<string>();
  const found: string[] = [];
  const visit = (file: string, path: string[]) => {
    const at = path.indexOf(file);
    if (at >= 0) return void found.push(`import circle: ${[...path.slice(at), file].join(" → ")}`);
    if (done.has(file)) return;
    for (const to of next.get(file) ?? []) visit(to, [...path, file]);
    done.add(file);
  };
  for (const file of [...next.keys()].sort()) visit(file, []);
  return found;
}

/** Every broken rule in a graph, one line each. */
function violations(files: readonly string[], edges: readonly ImportEdge[]): string[] {
  return [
    ...unplaced(files).map((file) => `${file} belongs to no layer: add its directory to LAYERS`),
    ...upwardImports(edges),
    ...shimImports(edges),
    ...privateImports(edges),
    ...circles(edges),
  ];
}

Deno.test("architecture: every module imports only from its own layer or lower ones", () => {
  const files = SCANNED.flatMap((dir) => tsFiles(root, dir));
  const edges = importGraph(root, SCANNED);
  assert.ok(edges.length > 100, `only ${edges.length} imports found: is the parser broken?`);
  const broken = violations(files, edges);
  assert.deepEqual(broken, [], `layer rule broken (ARCHITECTURE.md):\n${broken.join("\n")}`);
});

Deno.test("architecture: planted bad imports are named", () => {
  const source = [
    'import { frameLayout } from "./frame.ts";',
    'import type { Verdict } from "../verify/judge.ts";',
    "export {",
    "  loadShim,",
    '} from "../../ffi/loader.ts";',
    'import { scan } from "../trace/parse/_ftrace_scan.ts";',
    'const late = await import("../shell/mod.ts");',
  ].join("\n");
  const back = importsOf("lib/frames/frame.ts", 'import { planted } from "./planted.ts";');
  const edges = importsOf("lib/frames/planted.ts", source);
  assert.deepEqual(edges.map((edge) => `${edge.to}:${edge.line}`), [
    "lib/frames/frame.ts:1",
    "lib/verify/judge.ts:2",
    "ffi/loader.ts:3",
    "lib/trace/parse/_ftrace_scan.ts:6",
    "lib/shell/mod.ts:7",
  ]);
  assert.deepEqual(
    violations(["lib/frames/planted.ts", "lib/elsewhere/x.ts"], [...edges, ...back]),
    [
      "lib/elsewhere/x.ts belongs to no layer: add its directory to LAYERS",
      "lib/frames/planted.ts:2 imports lib/verify/judge.ts: frame path may not import verify (a higher layer)",
      "lib/frames/planted.ts:7 imports lib/shell/mod.ts: frame path may not import shell (a higher layer)",
      "lib/frames/planted.ts:3 imports ffi/loader.ts: only the core calls the shim; add a typed wrapper in lib/core/",
      "lib/frames/planted.ts:6 imports lib/trace/parse/_ftrace_scan.ts: _ftrace_scan.ts is private to lib/trace/parse/",
      "import circle: lib/frames/frame.ts → lib/frames/planted.ts → lib/frames/frame.ts",
    ],
  );
});

/**
 * Host tests whose directory mirrors nothing: `tests/host/X/y.test.ts` tests `lib/X/`, or a
 * top-level directory X (`ffi/`, `tasks/`, `kernel/`); tests of the whole tree stand at the top.
 */
function unmirroredTests(tests: readonly string[], exists: (path: string) => boolean): string[] {
  return tests.flatMap((test) => {
    const dir = test.slice("tests/host/".length, test.lastIndexOf("/") + 1);
    if (dir === "" || exists(`lib/${dir}`) || exists(dir)) return [];
    return [
      `${test} mirrors no source directory: move it under tests/host/<dir of lib/ it tests>/`,
    ];
  });
}

const isDirectory = (path: string) => {
  try {
    return Deno.statSync(`${root}/${path}`).isDirectory;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
};

Deno.test("architecture: host tests mirror the source tree", () => {
  const tests = tsFiles(root, "tests/host").filter((file) => file.endsWith(".test.ts"));
  assert.ok(tests.length > 50, `only ${tests.length} host tests found`);
  const stray = unmirroredTests(tests, isDirectory);
  assert.deepEqual(stray, [], stray.join("\n"));
  assert.deepEqual(
    unmirroredTests(
      ["tests/host/a.test.ts", "tests/host/trace/parse/x.test.ts", "tests/host/compile/y.test.ts"],
      isDirectory,
    ),
    ["tests/host/compile/y.test.ts mirrors no source directory: move it under tests/host/<dir of lib/ it tests>/"],
  );
});

Deno.test("architecture: tests and benchmarks follow the rule with their own allowances", () => {
  const edge = (from: string, to: string): ImportEdge => ({ from, to, line: 1 });
  const edges = [
    edge("bench/planted.ts", "tests/host/_import_graph.ts"),
    edge("tests/host/verify/planted.test.ts", "ffi/loader.ts"),
    edge("tests/host/verify/planted.test.ts", "lib/core/_shim.ts"),
    edge("tests/host/core/planted.test.ts", "lib/core/_shim.ts"),
    edge("tests/host/ffi/planted.test.ts", "ffi/loader.ts"),
    edge("bench/planted.ts", "ffi/loader.ts"),
    edge("tests/host/caps/planted.test.ts", "tests/host/formats/_rand.ts"),
    edge("tests/device/planted.test.ts", "bench/verify_soak.ts"),
    edge("lib/frames/planted.ts", "tests/host/_import_graph.ts"),
  ];
  const files = ["bench/planted.ts", "tests/host/verify/planted.test.ts", "lib/frames/planted.ts"];
  assert.deepEqual(violations(files, edges), [
    "bench/planted.ts:1 imports tests/host/_import_graph.ts: bench may not import tests (a higher layer)",
    "lib/frames/planted.ts:1 imports tests/host/_import_graph.ts: frame path may not import tests (a higher layer)",
    "tests/host/verify/planted.test.ts:1 imports ffi/loader.ts: only the core calls the shim; add a typed wrapper in lib/core/",
    "bench/planted.ts:1 imports tests/host/_import_graph.ts: _import_graph.ts is private to tests/host/",
    "tests/host/verify/planted.test.ts:1 imports lib/core/_shim.ts: _shim.ts is private to lib/core/",
    "lib/frames/planted.ts:1 imports tests/host/_import_graph.ts: _import_graph.ts is private to tests/host/",
  ]);
  const metis = edge("tests/device/metis.test.ts", "lib/core/_shim.ts");
  assert.deepEqual(privateImports([metis]), [], "allowed by name, with its reason");
  assert.deepEqual(privateImports([metis], []), [
    "tests/device/metis.test.ts:1 imports lib/core/_shim.ts: _shim.ts is private to lib/core/",
  ]);
});

/** What in a directory's `mod.ts` is not a module doc or a re-export, one line each. */
function notReexports(file: string, source: string): string[] {
  const problems = /^\/\*\*[^]*?@module[^]*?\*\//.test(source)
    ? []
    : [`${file}: no module doc (/** … @module */) saying what the directory is`];
  const body = source.replace(/\/\*[^]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");
  for (const statement of body.split(";").map((s) => s.trim()).filter(Boolean)) {
    if (/^export (?:type )?(?:\*|\{[^}]*\}) from "[^"]+"$/.test(statement)) continue;
    problems.push(`${file}: '${statement.split("\n")[0]}' is not a re-export`);
  }
  return problems;
}

Deno.test("architecture: a directory's mod.ts is documented and holds only re-exports", () => {
  const mods = tsFiles(root, "lib").filter((file) => file.endsWith("/mod.ts"));
  assert.ok(mods.length >= 10, `only ${mods.length} mod.ts files found`);
  const problems = mods.flatMap((file) =>
    notReexports(file, Deno.readTextFileSync(`${root}/${file}`))
  );
  assert.deepEqual(problems, [], problems.join("\n"));
  assert.deepEqual(
    notReexports("lib/x/mod.ts", 'export * from "./a.ts";\nexport const b = 1;\n'),
    [
      "lib/x/mod.ts: no module doc (/** … @module */) saying what the directory is",
      "lib/x/mod.ts: 'export const b = 1' is not a re-export",
    ],
  );
});
