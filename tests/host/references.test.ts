// The repository stands alone: no code, doc, fixture or verdict cites a document the repository
// does not have (the source documents it was designed from by number, an ADR, the design notes
// kept beside it, an issue tracker's numbers), and every diagnosis verify shows a user names the
// docs page and heading that explain it.
import assert from "node:assert/strict";
import { FAILURE_MODES } from "../../lib/verify/diagnosis.ts";
import { brokenLink, findInTextFiles, readRepoFile } from "./_markdown.ts";

/** What a reference to a missing document looks like, with what to write instead. */
const OUTSIDE_REFERENCES: readonly { pattern: RegExp; what: string }[] = [
  { pattern: /\bseeds?[\s_`'/]+0\d\d/i, what: "a source document by number" },
  { pattern: /\bthe seed's\b/i, what: "the source documents" },
  { pattern: /\bADR-?\d+/, what: "an ADR" },
  {
    pattern: /\bDESIGN(?:\.md\b|\s+(?:Corrections|Kernel facts))/,
    what: "the design notes kept outside",
  },
  { pattern: /\bCorrections\s+\d/, what: "a numbered correction of the design notes" },
  { pattern: /\b(?:issues?|PR|pull request)\s+#?\d+\b/i, what: "an issue number" },
  {
    // The kernel kits and the Jetson Multimedia API headers beside the clone are used by the
    // tests (booted, compiled against), not cited.
    pattern:
      /\.\.\/shared\/(?!kernels\b|jetson-mmapi\/include\b)|\.\.\/shared\/(?:kernels|jetson-mmapi)\/README/,
    what: "a document beside the repository",
  },
  { pattern: /\/work\/(?:shared|brief|main|wt-)/, what: "a path of the machine it was written on" },
];

/** The outside references in `text`, as `line: words (what)`. */
export function outsideReferences(text: string): string[] {
  const found: string[] = [];
  text.split("\n").forEach((line, i) => {
    for (const { pattern, what } of OUTSIDE_REFERENCES) {
      const m = pattern.exec(line);
      if (m) found.push(`${i + 1}: '${m[0].trim()}' (${what})`);
    }
  });
  return found;
}

/** This file spells the patterns out; every other text file is scanned. */
const SELF = "tests/host/references.test.ts";

Deno.test("outsideReferences() finds each kind of reference to a missing document", () => {
  const cases: [string, string][] = [
    ["the failure-mode table of seed 000", "a source document by number"],
    ["the NVMM contract (seed `004_…`)", "a source document by number"],
    ["result.json: the seed's keys", "the source documents"],
    ["snake_case as ADR-0011 dumps it", "an ADR"],
    ["(DESIGN Corrections 1: sampled)", "the design notes kept outside"],
    ["measured, see DESIGN.md", "the design notes kept outside"],
    ["source: DESIGN Kernel facts (overruns)", "the design notes kept outside"],
    ["see Corrections 4", "a numbered correction of the design notes"],
    ["since issue 13 each capture", "an issue number"],
    ["fixed by issue #27", "an issue number"],
    ["see ../shared/kernels/README.md", "a document beside the repository"],
    ["the prototype in ../shared/reference/", "a document beside the repository"],
    ["the origin in ../shared/jetson-mmapi/README.md", "a document beside the repository"],
    ["cd /work/wt-docs", "a path of the machine it was written on"],
  ];
  for (const [line, what] of cases) {
    const found = outsideReferences(line);
    assert.ok(
      found.some((hit) => hit.endsWith(`(${what})`)),
      `${JSON.stringify(line)}: expected ${what}, found ${found.join("; ") || "nothing"}`,
    );
  }
  for (
    const fine of [
      "pattern seed 1, index 3",
      "a seeded PRNG: the seed is printed on failure",
      "docs/design.md#exporter-names",
      "kits in ../shared/kernels by default",
      "AXL_MMAPI_INCLUDE:-../shared/jetson-mmapi/include",
      "CONFIG_I2C_DESIGNWARE_CORE=y",
      "## Design deviations",
      "#4 import handle 1: released",
      "an issue with the caps",
    ]
  ) {
    assert.deepEqual(outsideReferences(fine), [], fine);
  }
});

Deno.test("no file in the repository cites a document it does not have", () => {
  const offenders = findInTextFiles(outsideReferences, SELF);
  assert.deepEqual(
    offenders,
    [],
    `cite the page under docs/ that states the fact (or state it) instead of:\n${
      offenders.join("\n")
    }`,
  );
});

Deno.test("every diagnosis names the docs page and heading that explain it", () => {
  const bad: string[] = [];
  for (const [id, row] of Object.entries(FAILURE_MODES)) {
    if (!/^docs\/[\w-]+\.md#[\w-]+$/.test(row.source)) {
      bad.push(`${id}: source '${row.source}' is not docs/<page>.md#<anchor>`);
      continue;
    }
    const broken = brokenLink("README.md", row.source, readRepoFile);
    if (broken) bad.push(`${id}: ${broken}`);
  }
  assert.deepEqual(bad, []);
});
