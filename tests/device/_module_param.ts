// axl.ko's writable parameters (/sys/module/axl/parameters), set for a test and put back
// after it, so that one test's slow engine or node never leaks into the next.

/** Where axl.ko's parameters are. */
export const AXL_PARAMS = "/sys/module/axl/parameters";

/** Runs `fn` with axl.ko's parameter `name` set to `value`, then restores what it had. */
export async function withModuleParam<T>(
  name: string,
  value: number,
  fn: () => T | Promise<T>,
): Promise<T> {
  const path = `${AXL_PARAMS}/${name}`;
  const old = Deno.readTextFileSync(path).trim();
  Deno.writeTextFileSync(path, String(value));
  try {
    return await fn();
  } finally {
    Deno.writeTextFileSync(path, old);
  }
}
