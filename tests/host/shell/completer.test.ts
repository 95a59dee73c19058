import assert from "node:assert/strict";
import { complete } from "../../../lib/shell/completer.ts";
import { Session } from "../../../lib/shell/session.ts";
import { FakeProducer, FakeTrace } from "./_fakes.ts";

Deno.test("complete() offers command names and JavaScript names on the first word", async () => {
  const s = new Session();
  await s.load();
  // The alloc command first, then the module export that shares its prefix.
  assert.deepEqual(complete("all", s), [["alloc", "allocateFor"], "all"]);
  const [hits] = complete("He", s);
  assert.ok(hits.includes("Heap") && hits.includes("HeapProducer"), hits.join());
  const [afterBind, sub] = complete("frame = al", s);
  assert.ok(afterBind.includes("alloc") && sub === "al", afterBind.join());
});

Deno.test("complete() offers a command's options and their choices", async () => {
  const s = new Session();
  await s.load();
  assert.deepEqual(complete("alloc 4096 --fi", s), [["--fill"], "--fi"]);
  assert.deepEqual(complete("alloc NV12 640x480 --fill ", s), [["pattern", "zero"], ""]);
  assert.deepEqual(complete("import --direction b", s), [["bidirectional"], "b"]);
  assert.deepEqual(complete("alloc n", s)[0], []); // formats are upper case
  assert.deepEqual(complete("alloc N", s)[0], ["NV12"]);
  assert.deepEqual(complete("trace s", s)[0], ["start", "stop", "show"]);
  assert.deepEqual(complete("trace start --g", s)[0], ["--graph"]);
  assert.deepEqual(complete("help re", s)[0], ["release"]);
});

Deno.test("complete() offers live handles of the kind an argument takes", async () => {
  const s = new Session();
  await s.load();
  const cam = new FakeProducer("cam", []);
  s.bind(cam, "cam");
  s.adopt(cam, "test");
  s.bind(new FakeTrace([]), "tr");
  s.scope.n = 5;
  assert.deepEqual(complete("produce next ", s)[0], ["cam", "$1"]);
  assert.deepEqual(complete("run --producer c", s)[0], ["cam"]);
  assert.deepEqual(complete("release ", s)[0], ["cam", "tr", "$1", "$2"]);
  await s.release(cam);
  assert.deepEqual(complete("produce next ", s)[0], []);
});

Deno.test("complete() completes properties of values and paths", async () => {
  const s = new Session();
  await s.load();
  s.scope.frame = { inode: 5, info() {} };
  assert.deepEqual(complete("frame.in", s), [["frame.info", "frame.inode"], "frame.in"]);
  assert.deepEqual(complete("x = Heap.op", s), [["Heap.open"], "Heap.op"]);
  const dir = Deno.makeTempDirSync();
  try {
    Deno.mkdirSync(`${dir}/sub`);
    Deno.writeTextFileSync(`${dir}/session.axl`, "");
    assert.deepEqual(complete(`info --device ${dir}/s`, s)[0], [
      `${dir}/session.axl`,
      `${dir}/sub/`,
    ]);
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});
