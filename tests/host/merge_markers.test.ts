// No file in the repository keeps a merge's conflict markers. deno fmt rewraps a Markdown
// paragraph with the markers in it, so they can stand mid-line ("… a splat. ======= no caches")
// where git's own check, which looks only at the start of a line, no longer sees them.
import assert from "node:assert/strict";
import { findInTextFiles } from "./_markdown.ts";

/** The lines of `text` that hold a conflict marker, as `line: marker`. */
export function mergeMarkers(text: string): string[] {
  const found: string[] = [];
  text.split("\n").forEach((line, i) => {
    const m = /(?:^|\s)(<{7} \S+|>{7} \S+|={7})(?=\s|$)/.exec(line);
    if (m) found.push(`${i + 1}: ${m[1]}`);
  });
  return found;
}

/** This file spells the markers out; every other text file is scanned. */
const SELF = "tests/host/merge_markers.test.ts";

Deno.test("mergeMarkers() finds git's markers at a line's start and rewrapped inside a line", () => {
  const text = [
    "<<<<<<< HEAD",
    "ours",
    "=======",
    "theirs",
    ">>>>>>> faultkit",
    "  an unbalanced mapping is a splat. ======= no caches. The second",
    "  <<<<<<< HEAD no caches. The engine begins its reads",
  ].join("\n");
  assert.deepEqual(mergeMarkers(text), [
    "1: <<<<<<< HEAD",
    "3: =======",
    "5: >>>>>>> faultkit",
    "6: =======",
    "7: <<<<<<< HEAD",
  ]);
  for (const fine of ["a == b", "// ====== six", "x <<<<<<<y", "|========|", "a=======b"]) {
    assert.deepEqual(mergeMarkers(fine), [], fine);
  }
});

Deno.test("no file in the repository keeps a merge's conflict markers", () => {
  const offenders = findInTextFiles(mergeMarkers, SELF);
  assert.deepEqual(offenders, [], `resolve the merge:\n${offenders.join("\n")}`);
});
