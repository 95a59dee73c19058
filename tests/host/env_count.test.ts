import assert from "node:assert/strict";
import { envCount } from "../_env_count.ts";

const NAME = "AXL_TEST_ENV_COUNT";

Deno.test("envCount() reads a positive integer and falls back when unset", () => {
  Deno.env.delete(NAME);
  assert.equal(envCount(NAME, 7), 7);
  Deno.env.set(NAME, "42");
  assert.equal(envCount(NAME, 7), 42);
  Deno.env.set(NAME, "4");
  assert.equal(envCount(NAME, 1024, 4), 4);
  Deno.env.set(NAME, "3");
  assert.throws(() => envCount(NAME, 1024, 4), RangeError, "below the minimum");
  Deno.env.delete(NAME);
});

Deno.test("envCount() refuses what a bare Number() would turn into no rounds", () => {
  for (const bad of ["", "abc", "0", "-3", "1.5", "1e3", " 5"]) {
    Deno.env.set(NAME, bad);
    assert.throws(() => envCount(NAME, 7), RangeError, `"${bad}" must be refused`);
  }
  Deno.env.delete(NAME);
});
