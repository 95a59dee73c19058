import assert from "node:assert/strict";
import { Session } from "../../../lib/shell/session.ts";
import { FakeProducer, FakeTrace } from "./_fakes.ts";

Deno.test("Session.bind() numbers results and binds names", () => {
  const s = new Session();
  assert.deepEqual(s.bind("a"), ["$1"]);
  assert.deepEqual(s.bind("b", "frame"), ["$2", "frame"]);
  assert.equal(s.scope.frame, "b");
  assert.equal(s.nextVariable, "$3");
  assert.throws(() => s.bind(1, "not a name"), TypeError);
});

Deno.test("Session puts the axl modules in scope without listing them as variables", async () => {
  const s = new Session();
  // Nothing of the library is loaded before the shell asks for it.
  assert.equal(s.scope.frameLayout, undefined);
  await s.loadModules();
  for (
    const name of ["Device", "Heap", "DmaBuf", "frameLayout", "referenceResult", "runWorkload"]
  ) {
    assert.equal(typeof s.scope[name], "function", name);
  }
  assert.deepEqual(Object.keys(s.scope).sort(), ["dev", "session"]);
});

Deno.test("Session.adopt() tracks objects made by JavaScript and releaseAll() frees them in order", async () => {
  const log: string[] = [];
  const s = new Session();
  const p = new FakeProducer("cam", log);
  const t = new FakeTrace(log);
  s.scope.p = p;
  s.adopt(t, "trace made in JS");
  assert.deepEqual(s.live().map((x) => x.kind).sort(), ["producer", "trace"]);
  assert.deepEqual(s.namesOf(p), ["p"]);
  const report = await s.releaseAll();
  // Traces stop before producers close (OBJECT_KINDS order).
  assert.deepEqual(log, ["stop trace", "close cam"]);
  assert.equal(report.released.length, 2);
  assert.deepEqual(report.errors, []);
  assert.equal(s.live().length, 0);
  assert.equal(s.all().length, 2);
});

Deno.test("Session.release() refuses things that are not session objects", async () => {
  const s = new Session();
  await assert.rejects(() => s.release({ plain: true }), /not a session object/);
});

Deno.test("Session.device() fails with the device hint when there is no NPU node", async () => {
  const s = new Session({ device: "/nonexistent/axl" });
  await s.load();
  assert.throws(() => s.device(), /device\.open\(\/nonexistent\/axl\) failed: ENOENT/);
  assert.equal(s.deviceOpen, false);
});
