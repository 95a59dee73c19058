// Private: summary statistics and CPU-time probes shared by the benchmarks.

/** Median and spread of a sample. */
export interface Summary {
  /** Sample size. */
  n: number;
  /** Median. */
  median: number;
  /** Smallest value. */
  min: number;
  /** Largest value. */
  max: number;
  /** 25th percentile (linear interpolation). */
  p25: number;
  /** 75th percentile (linear interpolation). */
  p75: number;
}

/** The `q` quantile (0..1) of sorted `v`, interpolating between ranks. */
function quantile(v: readonly number[], q: number): number {
  const pos = (v.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return v[lo]! + (v[hi]! - v[lo]!) * (pos - lo);
}

/** Median, min, max and quartiles of `values`; throws RangeError on an empty sample. */
export function summarize(values: readonly number[]): Summary {
  if (values.length === 0) throw new RangeError("summarize(): empty sample");
  const v = [...values].sort((a, b) => a - b);
  return {
    n: v.length,
    median: quantile(v, 0.5),
    min: v[0]!,
    max: v[v.length - 1]!,
    p25: quantile(v, 0.25),
    p75: quantile(v, 0.75),
  };
}

/** Relative spread of a summary: (p75 - p25) / median. */
export function iqrRatio(s: Summary): number {
  return s.median === 0 ? 0 : (s.p75 - s.p25) / s.median;
}

/** Process and thread CPU time, the same probes bench/frame_loop.c takes. */
export interface CpuSample {
  /** User time of the whole process (all threads), ns. */
  utimeNs: number;
  /** System time of the whole process, ns. */
  stimeNs: number;
  /** User time of the calling thread, ns. */
  threadUtimeNs: number;
  /** System time of the calling thread, ns. */
  threadStimeNs: number;
  /** CLOCK_PROCESS_CPUTIME_ID, ns. */
  cpuNs: number;
  /** CLOCK_MONOTONIC, ns. */
  wallNs: number;
}

const RUSAGE_SELF = 0;
const RUSAGE_THREAD = 1;
const CLOCK_MONOTONIC = 1;
const CLOCK_PROCESS_CPUTIME_ID = 2;

let libc:
  | Deno.DynamicLibrary<{
    getrusage: { parameters: ["i32", "buffer"]; result: "i32" };
    clock_gettime: { parameters: ["i32", "buffer"]; result: "i32" };
  }>
  | undefined;

function open(): NonNullable<typeof libc> {
  libc ??= Deno.dlopen(
    "libc.so.6",
    {
      getrusage: { parameters: ["i32", "buffer"], result: "i32" },
      clock_gettime: { parameters: ["i32", "buffer"], result: "i32" },
    } as const,
  );
  return libc;
}

// struct rusage starts with ru_utime and ru_stime, two struct timeval (two longs each);
// the rest of its 144 bytes on LP64 is not read.
const ru = new BigInt64Array(18);
const ts = new BigInt64Array(2);

function rusage(who: number): [number, number] {
  if (open().symbols.getrusage(who, ru) !== 0) throw new Error("getrusage() failed");
  return [
    Number(ru[0]!) * 1e9 + Number(ru[1]!) * 1e3,
    Number(ru[2]!) * 1e9 + Number(ru[3]!) * 1e3,
  ];
}

function clockNs(id: number): number {
  if (open().symbols.clock_gettime(id, ts) !== 0) throw new Error("clock_gettime() failed");
  return Number(ts[0]!) * 1e9 + Number(ts[1]!);
}

/** Takes a {@linkcode CpuSample} (libc through FFI: needs --allow-ffi). */
export function cpuSample(): CpuSample {
  const [utimeNs, stimeNs] = rusage(RUSAGE_SELF);
  const [threadUtimeNs, threadStimeNs] = rusage(RUSAGE_THREAD);
  return {
    utimeNs,
    stimeNs,
    threadUtimeNs,
    threadStimeNs,
    cpuNs: clockNs(CLOCK_PROCESS_CPUTIME_ID),
    wallNs: clockNs(CLOCK_MONOTONIC),
  };
}

/** `b - a`, field by field. */
export function cpuDelta(a: CpuSample, b: CpuSample): CpuSample {
  return {
    utimeNs: b.utimeNs - a.utimeNs,
    stimeNs: b.stimeNs - a.stimeNs,
    threadUtimeNs: b.threadUtimeNs - a.threadUtimeNs,
    threadStimeNs: b.threadStimeNs - a.threadStimeNs,
    cpuNs: b.cpuNs - a.cpuNs,
    wallNs: b.wallNs - a.wallNs,
  };
}

/** Peak resident set size (VmHWM) of this process in bytes, from /proc/self/status. */
export function peakRssBytes(): number {
  const m = /^VmHWM:\s+(\d+) kB$/m.exec(Deno.readTextFileSync("/proc/self/status"));
  if (!m) throw new Error("no VmHWM in /proc/self/status");
  return Number(m[1]) * 1024;
}
