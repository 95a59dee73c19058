// `deno bench` microbenchmarks of one libaxl_shim call from Deno (host; dev_info only where
// /dev/axl exists). bench/run.ts compares the same calls against C with bench/ffi_calls.ts.
import { loadShim } from "../ffi/loader.ts";

const s = loadShim();
const sym = s.symbols;
const nul = (t: string): Uint8Array<ArrayBuffer> => new TextEncoder().encode(t + "\0");
const nullFd = sym.axl_shim_open(nul("/dev/null"), s.constant("O_RDWR"));
const getInfo = BigInt(s.constant("AXL_IOCTL_GET_INFO"));
const arg = new Uint8Array(256);
const devFd = sym.axl_shim_open(nul("/dev/axl"), s.constant("O_RDWR"));
const nums = new BigUint64Array(6);
const strings = new Uint8Array(128);

Deno.bench({
  name: "axl_shim_api_version() (no-op call)",
  group: "shim call",
  baseline: true,
  fn: () => {
    sym.axl_shim_api_version();
  },
});

Deno.bench({
  name: "axl_shim_clock_ns(CLOCK_MONOTONIC) (vDSO, i64 result)",
  group: "shim call",
  fn: () => {
    sym.axl_shim_clock_ns(1);
  },
});

Deno.bench({
  name: "axl_shim_ioctl(/dev/null) (one syscall, ENOTTY)",
  group: "shim call",
  fn: () => {
    sym.axl_shim_ioctl(nullFd, getInfo, arg);
  },
});

Deno.bench({
  name: "axl_shim_dev_info(/dev/axl) (AXL_IOCTL_GET_INFO)",
  group: "shim call",
  ignore: devFd < 0,
  fn: () => {
    sym.axl_shim_dev_info(devFd, nums, strings, 128n);
  },
});

Deno.bench({
  name: "u64 parameter passed a number instead of a bigint",
  group: "u64 parameter",
  fn: () => {
    // deno-lint-ignore no-explicit-any
    (sym.axl_shim_ioctl as any)(nullFd, Number(getInfo), arg);
  },
});

Deno.bench({
  name: "u64 parameter passed a bigint",
  group: "u64 parameter",
  baseline: true,
  fn: () => {
    sym.axl_shim_ioctl(nullFd, getInfo, arg);
  },
});
