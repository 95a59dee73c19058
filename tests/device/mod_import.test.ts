// A user's script outside the repository drives the real device: it imports mod.ts by path
// with no --config (the library's specifiers resolve without the repository's deno.json),
// runs one frame through axl.ko's metis-sim and checks the result against the TypeScript
// reference, all from a temporary directory.
import assert from "node:assert/strict";

const modUrl = new URL("../../mod.ts", import.meta.url).href;
const frameUrl = new URL("../../lib/frames/frame.ts", import.meta.url).href;
const referenceUrl = new URL("../../lib/frames/reference.ts", import.meta.url).href;

const SCRIPT = `
import { Device, Heap } from "${modUrl}";
import { frameLayout } from "${frameUrl}";
import { referenceResult } from "${referenceUrl}";

using dev = Device.open();
const layout = frameLayout("NV12", 320, 240);
using frame = Heap.open("system").allocate(layout.size, { name: "user-frame" });
using result = Heap.open("system").allocate(4096, { name: "user-result" });
let want;
{
  using access = frame.cpuAccess({ read: true, write: true });
  access.bytes.forEach((_, i, bytes) => bytes[i] = (i * 7) & 0xff);
  want = referenceResult(access.bytes, layout);
}
using imp = dev.import(frame, { width: 320, height: 240, format: "NV12" });
using job = dev.submit(imp, { result });
const done = await job.wait(10000);
const got = job.readResult();
console.log(JSON.stringify({
  engine: dev.info().engine,
  fence: done.fence.status,
  crcMatches: got.crc32 === want.crc32,
}));
`;

Deno.test("a script outside the repository runs a frame on the device with no --config", async () => {
  const dir = await Deno.makeTempDir({ prefix: "axl-user-" });
  try {
    await Deno.writeTextFile(`${dir}/frame.ts`, SCRIPT);
    const out = await new Deno.Command(Deno.execPath(), {
      // --allow-all: Deno grants /proc/self/fdinfo (dma-buf details) only with all access
      args: ["run", "--allow-all", "frame.ts"],
      cwd: dir,
      env: { NO_COLOR: "1" },
      stdout: "piped",
      stderr: "piped",
    }).output();
    const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
    assert.equal(out.code, 0, text);
    assert.deepEqual(JSON.parse(text.trim().split("\n").at(-1)!), {
      engine: "metis-sim",
      fence: "signaled",
      crcMatches: true,
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
