import assert from "node:assert/strict";
import { appendHistory, historyPath, loadHistory } from "../../../lib/shell/history.ts";

Deno.test("historyPath() follows XDG_STATE_HOME, then HOME", () => {
  assert.equal(historyPath({ XDG_STATE_HOME: "/state", HOME: "/home/u" }), "/state/axl/history");
  assert.equal(historyPath({ HOME: "/home/u" }), "/home/u/.local/state/axl/history");
  assert.equal(historyPath({}), undefined);
});

Deno.test("appendHistory() and loadHistory() keep entries newest first and trim the file", () => {
  const dir = Deno.makeTempDirSync();
  try {
    const file = `${dir}/axl/history`;
    assert.deepEqual(loadHistory(file), []);
    for (let i = 0; i < 25; i++) appendHistory(file, `line ${i}`);
    appendHistory(file, "   ");
    assert.deepEqual(loadHistory(file, 10).slice(0, 2), ["line 24", "line 23"]);
    assert.equal(loadHistory(file, 10).length, 10);
    // Past twice the size the file is rewritten with the newest entries.
    assert.equal(Deno.readTextFileSync(file).trim().split("\n").length, 10);
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});
