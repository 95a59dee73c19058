// The README and the pages under docs/ link only to files the repository has, and to headings
// those pages have: a moved section or a renamed heading fails here, naming the link.
import assert from "node:assert/strict";
import { anchors, brokenLink, links, readRepoFile, root, slug } from "./_markdown.ts";

/** The Markdown pages a reader follows: the front page, the docs, and the top-level guides. */
function pages(): string[] {
  const docs = [...Deno.readDirSync(`${root}/docs`)]
    .filter((e) => e.isFile && e.name.endsWith(".md"))
    .map((e) => `docs/${e.name}`)
    .sort();
  return ["README.md", "ARCHITECTURE.md", "kernel/README.md", "scripts/vm/README.md", ...docs];
}

/** Every link of `pages` that does not resolve, as `page:line: problem`. */
function brokenLinks(read: (path: string) => string | null, list: readonly string[]): string[] {
  const out: string[] = [];
  for (const page of list) {
    const text = read(page);
    if (text === null) {
      out.push(`${page}: missing`);
      continue;
    }
    for (const link of links(text)) {
      const problem = brokenLink(page, link.target, read);
      if (problem) out.push(`${page}:${link.line}: ${problem}`);
    }
  }
  return out;
}

Deno.test("slug() gives GitHub's anchors", () => {
  assert.equal(slug("I1: two devices attached"), "i1-two-devices-attached");
  assert.equal(slug("Any pipeline: `-- COMMAND` and `--pid`"), "any-pipeline----command-and---pid");
  assert.equal(slug("Voyager's pipeline breaks the chain"), "voyagers-pipeline-breaks-the-chain");
  assert.equal(slug("CPU mappings come from /proc"), "cpu-mappings-come-from-proc");
  assert.equal(
    slug("The Jetson-shaped target: arm64 Linux 5.15"),
    "the-jetson-shaped-target-arm64-linux-515",
  );
  assert.deepEqual(
    [...anchors("# A\n## Notes\n```sh\n# not a heading\n```\n## Notes\n")],
    ["a", "notes", "notes-1"],
  );
});

Deno.test("brokenLinks() names a missing file, a missing anchor and a link out of the repository", () => {
  const files: Record<string, string> = {
    "README.md": [
      "[ok](docs/a.md#first) [ok too](#top) [web](https://example.org/x)",
      "[gone](docs/b.md) [no heading](docs/a.md#second) [out](../elsewhere/x.md)",
      "`[in code](docs/c.md)`",
      "```",
      "[in a fence](docs/c.md)",
      "```",
      "# Top",
    ].join("\n"),
    "docs/a.md": "# First\n[back](../README.md#top) [self](#first)\n",
  };
  const read = (path: string) => files[path] ?? null;
  assert.deepEqual(brokenLinks(read, ["README.md", "docs/a.md"]), [
    "README.md:2: docs/b.md: docs/b.md does not exist",
    "README.md:2: docs/a.md#second: docs/a.md has no heading with anchor #second",
    "README.md:2: ../elsewhere/x.md leaves the repository",
  ]);
});

Deno.test("every link of the README and the docs resolves", () => {
  assert.deepEqual(brokenLinks(readRepoFile, pages()), []);
});

Deno.test("the docs index lists every page under docs/", () => {
  const index = readRepoFile("docs/README.md") ?? "";
  const listed = new Set(links(index).map((l) => l.target.split("#")[0]));
  const unlisted = pages()
    .filter((p) => p.startsWith("docs/") && p !== "docs/README.md")
    .map((p) => p.slice("docs/".length))
    .filter((p) => !listed.has(p));
  assert.deepEqual(unlisted, [], "add a line for each page to docs/README.md");
});

Deno.test("the README is a front page: under 250 lines, linking the docs index", () => {
  const readme = readRepoFile("README.md") ?? "";
  const lines = readme.split("\n").length;
  assert.ok(lines <= 250, `README.md has ${lines} lines: move the depth to a page under docs/`);
  assert.ok(
    links(readme).some((l) => l.target === "docs/README.md"),
    "README.md does not link docs/README.md",
  );
});
