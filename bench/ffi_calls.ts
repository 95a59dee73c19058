/**
 * The per-call cost of libaxl_shim functions called from Deno, with the same harness as
 * `bench/ffi_calls.c` (batches of calls timed with CLOCK_MONOTONIC), so that the two can be
 * compared median to median. Run as a program it prints one JSON line per call, as the C
 * program does:
 *
 * ```sh
 * deno run --allow-ffi --allow-read --allow-env bench/ffi_calls.ts [--batches B] [--calls K] CALL...
 * ```
 *
 * @module
 */
import { parseArgs } from "node:util";
import { loadShim } from "../ffi/loader.ts";

/** The calls both harnesses know. */
export const CALLS = [
  "api_version",
  "clock_ns",
  "ioctl_null",
  "dev_info",
  "close_badf",
  "sync_badf",
] as const;
/** One of {@linkcode CALLS}. */
export type CallName = typeof CALLS[number];

/** What one call measured: per-call ns of each batch. */
export interface CallResult {
  /** `deno` or `c`. */
  impl: "deno" | "c";
  /** Which call. */
  call: CallName;
  /** Calls per batch. */
  calls: number;
  /** Per-call ns of every batch. */
  perCallNs: number[];
}

const CLOCK_MONOTONIC = 1;

/**
 * A function that makes `k` calls of `name` and returns the elapsed ns. Opens what the call
 * needs (/dev/null, the device); `close` releases it.
 *
 * @example
 * ```ts ignore
 * import { batchRunner } from "./ffi_calls.ts";
 * const r = batchRunner("api_version");
 * console.log(r.run(100_000) / 100_000, "ns per call");
 * r.close();
 * ```
 */
export function batchRunner(
  name: CallName,
  device = "/dev/axl",
): { run: (k: number) => number; close: () => void } {
  const s = loadShim();
  const sym = s.symbols;
  const fds: number[] = [];
  const openFd = (path: string): number => {
    const fd = sym.axl_shim_open(new TextEncoder().encode(path + "\0"), s.constant("O_RDWR"));
    if (fd < 0) throw new Error(`${path}: ${errnoName(fd)}`);
    fds.push(fd);
    return fd;
  };
  const close = (): void => {
    for (const fd of fds.splice(0)) sym.axl_shim_close(fd);
  };
  const now = (): number => Number(sym.axl_shim_clock_ns(CLOCK_MONOTONIC));
  let sink = 0;
  let run: (k: number) => number;
  switch (name) {
    case "api_version":
      run = (k) => {
        const t0 = now();
        for (let i = 0; i < k; i++) sink += sym.axl_shim_api_version();
        return now() - t0;
      };
      break;
    case "clock_ns":
      run = (k) => {
        const t0 = now();
        for (let i = 0; i < k; i++) sink += Number(sym.axl_shim_clock_ns(CLOCK_MONOTONIC));
        return now() - t0;
      };
      break;
    case "close_badf":
      run = (k) => {
        const t0 = now();
        for (let i = 0; i < k; i++) sink += sym.axl_shim_close(-1);
        return now() - t0;
      };
      break;
    case "sync_badf": {
      const flags = BigInt(s.constant("DMA_BUF_SYNC_START") | s.constant("DMA_BUF_SYNC_READ"));
      run = (k) => {
        const t0 = now();
        for (let i = 0; i < k; i++) sink += sym.axl_shim_dmabuf_sync(-1, flags);
        return now() - t0;
      };
      break;
    }
    case "ioctl_null": {
      const fd = openFd("/dev/null");
      const req = BigInt(s.constant("AXL_IOCTL_GET_INFO"));
      const arg = new Uint8Array(256);
      run = (k) => {
        const t0 = now();
        for (let i = 0; i < k; i++) sink += Number(sym.axl_shim_ioctl(fd, req, arg));
        return now() - t0;
      };
      break;
    }
    case "dev_info": {
      const fd = openFd(device);
      const nums = new BigUint64Array(6);
      const strings = new Uint8Array(128);
      const len = BigInt(strings.length);
      run = (k) => {
        const t0 = now();
        for (let i = 0; i < k; i++) sink += sym.axl_shim_dev_info(fd, nums, strings, len);
        return now() - t0;
      };
      break;
    }
    default:
      throw new TypeError(`unknown call '${name}' (known: ${CALLS.join(" ")})`);
  }
  // Keeps the loop bodies observable.
  return { run: (k) => run(k) + (sink === -1 ? 1 : 0), close };
}

function errnoName(ret: number): string {
  try {
    const p = loadShim().symbols.axl_shim_errno_name(-ret);
    return p ? Deno.UnsafePointerView.getCString(p) : `errno ${-ret}`;
  } catch {
    return `errno ${-ret}`;
  }
}

/**
 * Times `batches` batches of `calls` calls of `name` after one warm-up batch.
 *
 * @example
 * ```ts ignore
 * import { measureCall } from "./ffi_calls.ts";
 * console.log(measureCall("ioctl_null", { batches: 11, calls: 50_000 }).perCallNs);
 * ```
 */
export function measureCall(
  name: CallName,
  options: { batches?: number; calls?: number; device?: string } = {},
): CallResult {
  const batches = options.batches ?? 31;
  const calls = options.calls ?? 100_000;
  if (!Number.isInteger(batches) || batches < 1) throw new RangeError(`batches: ${batches}`);
  if (!Number.isInteger(calls) || calls < 1) throw new RangeError(`calls: ${calls}`);
  const r = batchRunner(name, options.device);
  try {
    r.run(calls);
    const perCallNs: number[] = [];
    for (let b = 0; b < batches; b++) perCallNs.push(Math.round(r.run(calls) / calls * 1e3) / 1e3);
    return { impl: "deno", call: name, calls, perCallNs };
  } finally {
    r.close();
  }
}

if (import.meta.main) {
  const { values, positionals } = parseArgs({
    args: Deno.args,
    options: {
      batches: { type: "string", default: "31" },
      calls: { type: "string", default: "100000" },
      device: { type: "string", default: "/dev/axl" },
    },
    allowPositionals: true,
  });
  const bad = positionals.filter((p) => !(CALLS as readonly string[]).includes(p));
  if (bad.length || !positionals.length) {
    console.error(`ffi_calls.ts: name calls from: ${CALLS.join(" ")}`);
    Deno.exit(3);
  }
  try {
    for (const call of positionals as CallName[]) {
      const r = measureCall(call, {
        batches: Number(values.batches),
        calls: Number(values.calls),
        device: values.device,
      });
      console.log(JSON.stringify(r));
    }
  } catch (err) {
    console.error(`ffi_calls.ts: ${err instanceof Error ? err.message : err}`);
    Deno.exit(3);
  }
}
