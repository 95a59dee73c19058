// The libc calls the shim's host tests make fds with (memfd, eventfd, pipe), shared by them.
import assert from "node:assert/strict";

/** libc, for making fds to hand the shim. */
export const libc = Deno.dlopen("libc.so.6", {
  memfd_create: { parameters: ["buffer", "u32"], result: "i32" },
  ftruncate: { parameters: ["i32", "i64"], result: "i32" },
  eventfd: { parameters: ["u32", "i32"], result: "i32" },
  write: { parameters: ["i32", "buffer", "usize"], result: "isize" },
  pipe: { parameters: ["buffer"], result: "i32" },
});

/** A NUL-terminated copy of `s`. */
export const cstr = (s: string): Uint8Array<ArrayBuffer> => new TextEncoder().encode(s + "\0");

/** A memfd of `size` bytes. */
export function memfd(size: number): number {
  const fd = libc.symbols.memfd_create(cstr("axl-test"), 1 /* MFD_CLOEXEC */);
  assert.ok(fd >= 0, "memfd_create failed");
  assert.equal(libc.symbols.ftruncate(fd, BigInt(size)), 0);
  return fd;
}

/**
 * An fd number no file holds, and none will soon: 256 above the highest fd open now. The
 * test modules run in workers of one process, and the kernel gives each open the lowest
 * free number, so the number of an fd a test just closed can be another worker's file by
 * the next call (a call on it then succeeds, and a second close would close that file).
 */
export function unusedFd(): number {
  let highest = 0;
  for (const e of Deno.readDirSync("/proc/self/fd")) highest = Math.max(highest, Number(e.name));
  return highest + 256;
}
