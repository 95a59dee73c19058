// `axl ls` prints the listing on stdout and what it could not read on stderr.
import assert from "node:assert/strict";
import { listingText, listingWarnings } from "../../../lib/shell/dmabuf_listing.ts";
import type { DmaBufListing } from "../../../lib/shell/dmabuf_listing.ts";
import { main } from "../../../tasks/axl.ts";
import { capture } from "./_capture.ts";

const listing: DmaBufListing = {
  buffers: [],
  processes: [1, 2],
  errors: ["fd 0: Permission denied (os error 13): readlink '/proc/1/fd/0'"],
};

Deno.test("listingText() leaves the warnings out when asked, listingWarnings() has them", () => {
  assert.match(listingText(listing), /^warning: fd 0: Permission denied/m);
  assert.doesNotMatch(listingText(listing, false), /warning/);
  assert.deepEqual(listingWarnings(listing), [
    "warning: fd 0: Permission denied (os error 13): readlink '/proc/1/fd/0'",
  ]);
});

Deno.test("axl ls prints warnings on stderr, never on stdout", async () => {
  const r = await capture(() => main(["ls"]));
  assert.equal(r.code, 0, r.err);
  assert.doesNotMatch(r.out, /^warning:/m);
  for (const line of r.err.split("\n").filter(Boolean)) assert.match(line, /^warning: /);
  // Where some process cannot be read (another user's, or pid 1 in a container) there are
  // warnings, and the listing says how many processes it scanned on stdout.
  assert.match(r.out, /\d+ process\(es\) scanned/);
});
