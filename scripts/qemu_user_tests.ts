/**
 * Entry module for running host tests under qemu-user (scripts/test-aarch64.sh):
 * imports the test files given after `--` and registers their tests, except that
 * the tests which cannot work under qemu-user are registered as ignored — reported
 * as ignored, never as passed:
 *
 * - "deno task compile ...", "... under deno run ...": they spawn `Deno.execPath()`,
 *   the arm64 deno, which
 *   the host kernel cannot exec without binfmt_misc;
 * - "... -ENOTTY ...": ioctls on non-device fds; qemu-user answers ioctl numbers
 *   it does not know with ENOSYS instead of passing them to the kernel;
 * - "... DMA_BUF_SYNC ...": the same for the dma-buf sync ioctl, which qemu-user
 *   does not know either, so even a closed fd gets ENOSYS, not EBADF.
 *
 * Usage (paths absolute or relative to the working directory):
 *
 *     qemu-aarch64-static -L /usr/aarch64-linux-gnu deno test --no-check --allow-all \
 *       scripts/qemu_user_tests.ts -- tests/host/ffi/shim.test.ts
 *
 * @module
 */
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";

/** Names of tests that cannot pass under qemu-user (see the module doc). */
export const QEMU_USER_EXCLUDE = /deno task compile|under deno run|-ENOTTY|DMA_BUF_SYNC/;

type TestArgs = Parameters<typeof Deno.test>;

/** The name and body of a `Deno.test` call, whichever overload it used. */
function nameAndFn(args: unknown[]): { name: string; fn: unknown } {
  const [first] = args;
  const fn = args.findLast((a) => typeof a === "function") ??
    (args.find((a) => typeof a === "object" && a !== null && "fn" in a) as { fn?: unknown })?.fn;
  if (typeof first === "string") return { name: first, fn };
  if (typeof first === "function") return { name: first.name, fn };
  return { name: String((first as { name?: string } | undefined)?.name ?? ""), fn };
}

const register = Deno.test;
const filtered = (...args: unknown[]): void => {
  const { name, fn } = nameAndFn(args);
  if (QEMU_USER_EXCLUDE.test(name)) {
    register({ name, fn: fn as () => void, ignore: true });
    return;
  }
  register(...(args as TestArgs));
};
Object.assign(filtered, register);
Object.defineProperty(Deno, "test", { value: filtered });

for (const file of Deno.args) await import(pathToFileURL(resolve(file)).href);
