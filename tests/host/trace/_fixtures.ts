// Paths of the trace fixtures captured in the VM (see tests/fixtures/trace/README.md).
export const FIXTURES = new URL("../../fixtures/trace/", import.meta.url);
export const KERNELS = ["6.12-std", "6.12-rt"] as const;
export function fixture(kernel: string, name: string): string {
  return new URL(`${kernel}/${name}`, FIXTURES).pathname;
}
export async function fixtureText(kernel: string, name: string): Promise<string> {
  return await Deno.readTextFile(fixture(kernel, name));
}
