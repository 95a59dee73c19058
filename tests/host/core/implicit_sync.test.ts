// Host tests of lib/core/implicit_sync.ts that need no kernel: what a failed publish says.
// The shim's publishing itself runs on the real kernels (tests/device/implicit_sync.test.ts).
import assert from "node:assert/strict";
import { AxlError } from "../../../lib/core/errors.ts";
import { publishError } from "../../../lib/core/implicit_sync.ts";
import type { DmaBuf } from "../../../lib/core/dmabuf.ts";

const buf = { fd: 9, inode: 1234 } as unknown as DmaBuf;

Deno.test("publishError() names the job, the buffer and the errno, and says the job still runs", () => {
  const err = publishError(7n, -12, 2, buf);
  assert.ok(err instanceof AxlError);
  assert.equal(err.code, "ENOMEM");
  assert.match(err.message, /job 7: publish fence into the input \(read fence\), inode 1234/);
  assert.match(err.message, /the job runs and its fence is valid/);
  assert.match(err.hint, /must wait on job\.fence/);
});

Deno.test("publishError() of step 1 names the result as the buffer written", () => {
  const err = publishError(8n, -22, 1, buf);
  assert.equal(err.code, "EINVAL");
  assert.match(err.message, /result \(write fence\), inode 1234/);
});
