// `deno bench` of the per-frame work the typed API adds on top of the shim calls, measured on
// the host without a device: where the lib / lean gap of the VM frame loop comes from.
import { ImportOptions, SubmitOptions } from "../lib/core/device.ts";
import { parseOptions } from "../lib/core/parse_options.ts";
import { Fence } from "../lib/core/fence.ts";
import { loadShim } from "../ffi/loader.ts";

const s = loadShim();
const nullFd = s.symbols.axl_shim_open(
  new TextEncoder().encode("/dev/null\0"),
  s.constant("O_RDWR"),
);
const result = { fd: nullFd };
const name = new TextEncoder().encode("axl:metis-0\0".padEnd(96, "\0"));

Deno.bench({
  name: "lean: no per-frame JS beyond the shim calls",
  group: "per frame",
  baseline: true,
  fn: () => {},
});
Deno.bench({
  name: "Device.import options: zod parse",
  group: "per frame",
  fn: () => {
    parseOptions(ImportOptions, { width: 640, height: 480, format: "NV12", stride: 640 }, "import");
  },
});
const reused = { width: 640, height: 480, format: "NV12", stride: 640 } as const;
Deno.bench({
  name: "Device.import options: the same object again (validated once, cached)",
  group: "per frame",
  fn: () => {
    parseOptions(ImportOptions, reused, "import");
  },
});
Deno.bench({
  name: "Device.submit options: zod parse",
  group: "per frame",
  fn: () => {
    parseOptions(SubmitOptions, { result, model: 0, timeoutMs: 2000 }, "submit");
  },
});
Deno.bench({
  name: "Fence: fromFd + close (FinalizationRegistry register/unregister, close(2) of a dup)",
  group: "per frame",
  fn: () => {
    Fence.fromFd(s.symbols.axl_shim_dup(nullFd)).close();
  },
});
Deno.bench({
  name: "dup + close alone (the system calls of the line above)",
  group: "per frame",
  fn: () => {
    s.symbols.axl_shim_close(s.symbols.axl_shim_dup(nullFd));
  },
});
Deno.bench({
  name: "fence info: timeline name through a new TextDecoder",
  group: "per frame",
  fn: () => {
    const end = name.indexOf(0);
    new TextDecoder().decode(name.subarray(0, end));
  },
});
Deno.bench({
  name: "readResult: BigInt64Array(12) + Uint32Array(256) per frame",
  group: "per frame",
  fn: () => {
    new BigInt64Array(12);
    new Uint32Array(256);
  },
});
