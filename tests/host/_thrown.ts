// The AxlError a call throws, for tests that look at its fields (node's assert.throws
// does not hand the error back).
import assert from "node:assert/strict";
import { AxlError } from "../../lib/core/errors.ts";

/** Calls `fn` and returns the AxlError it throws; fails the test when it throws nothing else. */
export function thrownAxlError(fn: () => unknown): AxlError {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof AxlError, `expected an AxlError, got ${err}`);
    return err;
  }
  assert.fail("expected an AxlError, nothing was thrown");
}
