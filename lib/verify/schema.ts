/**
 * The `result.json` of a verification run. The top-level keys are exactly those of the
 * original design (`I1_attach_count_ge2` … `pass`, docs/design.md), so existing consumers keep
 * working; everything new lives under the versioned `axl` key.
 *
 * @module
 */
import { z } from "../_deps.ts";
import { ChainSchema } from "./chain_schema.ts";
import { PipelineSectionSchema } from "./pipeline_schema.ts";

/** Version of the `axl` extension; bumped on incompatible changes. */
export const RESULT_SCHEMA_VERSION = "axl.verify/1";

/** Status of one invariant, or of the whole run. */
export const StatusSchema = z.enum(["PASS", "FAIL", "SKIP", "INCONCLUSIVE"]);
/** PASS, FAIL, SKIP or INCONCLUSIVE. */
export type Status = z.infer<typeof StatusSchema>;

/** One invariant's verdict. */
export const InvariantSchema = z.object({
  id: z.enum(["I1", "I2", "I3", "I4"]),
  title: z.string(),
  status: StatusSchema,
  /** One sentence saying why. */
  summary: z.string(),
  /** The numbers and names the verdict rests on. */
  evidence: z.record(z.string(), z.unknown()),
  /**
   * Where that evidence came from (`axl-tracepoints`, `kprobes`, `bufinfo`, `perf`, `none`);
   * absent in results written before sources were named.
   */
  source: z.string().optional(),
});
/** One invariant's verdict. */
export type Invariant = z.infer<typeof InvariantSchema>;

/** One row of the failure-mode table, applied to this run. */
export const DiagnosisSchema = z.object({
  id: z.string(),
  invariant: z.enum([
    "I1",
    "I2",
    "I3",
    "I4",
    "trace",
    "perf",
    "latency",
    "workload",
    "pipeline",
  ]),
  symptom: z.string(),
  cause: z.string(),
  fix: z.string(),
  /** The docs page and anchor that explain the rule, e.g. `docs/design.md#exporter-names`. */
  source: z.string(),
});
/** One applied failure-mode row. */
export type Diagnosis = z.infer<typeof DiagnosisSchema>;

const num = z.number().finite();

/**
 * nvmap's dma-buf events of a run: how many, whether their `dmabuf=%p` pointers printed raw
 * (tracefs `hash-ptr` cleared: they join the probes' `buf=`) or hashed, and per device the
 * attaches, the exporter's map calls (nvmap maps a buffer once per device: never a frame
 * count), the buffers and the inodes they joined.
 */
export const NvmapEvidenceSchema = z.object({
  events: z.number().int(),
  pointers: z.enum(["raw", "hashed"]),
  devices: z.record(
    z.string(),
    z.object({
      attaches: z.number().int(),
      maps: z.number().int(),
      buffers: z.number().int(),
      inodes: z.array(z.number().int()),
    }),
  ),
  /** Distinct buffers the events named, and how many joined an inode. */
  buffers: z.number().int(),
  withInode: z.number().int(),
});
/** The `nvmap` part of the evidence section. */
export type NvmapEvidence = z.infer<typeof NvmapEvidenceSchema>;

/** One frame in the result (times in µs relative to the first event, for humans). */
export const FrameSchema = z.object({
  index: z.number().int(),
  seqno: num.optional(),
  context: num.optional(),
  handle: num.optional(),
  inode: num.optional(),
  exporter: z.string().optional(),
  pid: num.optional(),
  import_ns: num.optional(),
  submit_ns: num.optional(),
  signal_ns: num.optional(),
  release_ns: num.optional(),
  latency_us: num.optional(),
  status: num.optional(),
});

/** The complete result file. */
/** The card's own witness (`card_witness.ts`, `CardWitnessSection`). */
export const CardWitnessSchema = z.object({
  available: z.boolean(),
  reason: z.string().optional(),
  node: z.string(),
  driver: z.string().optional(),
  verdict: z.enum(["agree", "disagree", "unavailable"]),
  summary: z.string(),
  disagreements: z.array(z.string()),
  transfers: z.number().int().optional(),
  to_card: z.number().int().optional(),
  frames: z.number().int().optional(),
  matched: z.number().int().optional(),
  frame_bytes: z.number().optional(),
  card_bytes: z.number().optional(),
  attach_checked: z.boolean().optional(),
  per_frame: z.array(z.object({
    index: z.number().int(),
    inode: z.number().optional(),
    bytes: z.number(),
    card_bytes: z.number().optional(),
    request_us: z.number().optional(),
    dma_us: z.number().optional(),
  })).optional(),
});

export const VerifyResultSchema = z.object({
  I1_attach_count_ge2: z.boolean(),
  I2_known_exporter: z.boolean(),
  I3_axl_imports: z.boolean(),
  I4_no_memcpy_hot: z.boolean(),
  detail: z.object({
    imports: z.number().int(),
    releases: z.number().int(),
    fence_wait_lines: z.number().int(),
    multi_attach_inodes: z.array(z.string()),
    exporters: z.array(z.string()),
    memcpy_hot: z.array(z.string()),
  }),
  pass: z.boolean(),
  axl: z.object({
    schema: z.literal(RESULT_SCHEMA_VERSION),
    status: StatusSchema,
    /** First line of the human output (e.g. that this ran on the simulated device). */
    headline: z.string(),
    invariants: z.object({
      I1: InvariantSchema,
      I2: InvariantSchema,
      I3: InvariantSchema,
      I4: InvariantSchema,
    }),
    frames: z.object({
      submitted: z.number().int().nullable(),
      /** `workload` (the builtin counted), `--frames`, `evidence (…)`, or `unknown`. */
      submitted_from: z.string().optional(),
      traced: z.number().int(),
      list: z.array(FrameSchema),
    }),
    latency: z.object({
      source: z.enum(["trace", "workload", "mixed", "none"]),
      unit: z.literal("us"),
      count: z.number().int(),
      min: num.optional(),
      max: num.optional(),
      mean: num.optional(),
      p50: num.optional(),
      p90: num.optional(),
      p99: num.optional(),
      histogram: z.array(z.object({ lo: num, hi: num, count: z.number().int() })),
    }),
    trace: z.object({
      instance: z.string().nullable(),
      top_level_reason: z.string().optional(),
      tracer: z.string(),
      graph_functions: z.array(z.string()),
      graph_unavailable: z.string().optional(),
      events: z.array(z.string()),
      missing_events: z.array(z.string()),
      clock: z.string(),
      buffer_size_kb: z.number().int(),
      lost_events: z.number().int(),
      lost_unknown: z.number().int(),
      overrun: z.number().int(),
      entries: z.object({ in_buffer: z.number().int(), written: z.number().int() }).optional(),
      unparsed_lines: z.number().int(),
      graph_calls: z.record(z.string(), z.number().int()),
    }),
    bufinfo: z.object({
      available: z.boolean(),
      reason: z.string().optional(),
      samples: z.number().int(),
      inodes_seen: z.number().int(),
      errors: z.array(z.string()),
      /** /sys/kernel/dmabuf/buffers entries of frame buffers, when the kernel has them. */
      sysfs: z.object({
        present: z.boolean(),
        buffers: z.array(
          z.object({ inode: z.number().int(), exporter: z.string(), size: z.number() }),
        ),
      }).optional(),
    }),
    perf: z.object({
      available: z.boolean(),
      reason: z.string().optional(),
      event: z.string().optional(),
      /**
       * The rate perf was asked for and why (docs/verify.md#perfs-rate); absent in runs made
       * before it was recorded. `max_sample_rate_after`: the kernel lowered its limit during
       * the run (samples throttled).
       */
      rate: z.object({
        hz: z.number().int(),
        rule: z.string(),
        max_sample_rate: z.number().int().optional(),
        capped_by: z.enum(["perf_event_max_sample_rate", "max", "min"]).optional(),
        max_sample_rate_after: z.number().int().optional(),
      }).optional(),
      samples: z.number().int(),
      /** Copy routines' self share in the workload's threads: the frames' candidates. */
      copy_percent: num,
      /**
       * Copy routines' self share in V8's platform worker threads (its garbage collector and
       * compilers): counted in `samples`, not in `copy_percent`; present only when non-zero.
       */
      runtime_copy_percent: num.optional(),
      top: z.array(z.object({
        symbol: z.string(),
        dso: z.string(),
        self_percent: num,
        samples: z.number().int(),
        copy_routine: z.string().optional(),
        /** `v8-platform-worker`: this row holds that runtime thread's copies, not a frame's. */
        runtime_thread: z.string().optional(),
        top_caller: z.string().optional(),
      })),
    }),
    environment: z.object({
      kernel: z.string(),
      preempt_rt: z.boolean(),
      machine: z.string(),
      device: z.string(),
      simulated: z.boolean(),
      tracers: z.array(z.string()),
      pmu: z.boolean(),
    }),
    workload: z.object({
      kind: z.string(),
      description: z.string(),
      pids: z.array(z.number().int()),
      exit_code: z.number().int().nullable(),
      /** The signal that ended a command workload. */
      exit_signal: z.string().optional(),
      /** Stopped on request (Ctrl-C) before it ended by itself. */
      stopped: z.boolean().optional(),
      /** The last lines of a command workload's stderr. */
      stderr_tail: z.string().optional(),
      /** The V4L2 nodes the workload had open, with the device owning each. */
      v4l2_devices: z.array(z.object({ node: z.string(), name: z.string(), device: z.string() }))
        .optional(),
      map_refs: z.array(
        z.object({
          pid: z.number().int(),
          inode: z.number().int(),
          name: z.string(),
          bytes: z.number(),
        }),
      ),
    }),
    /** How frames, imports and releases were observed (absent in older results). */
    evidence: z.object({
      /** `auto`, `axl` or `generic` (`--evidence`). */
      mode: z.string(),
      /** The source I3 and I1's frame inodes used. */
      source: z.enum(["axl-tracepoints", "kprobes", "bufinfo", "none"]),
      /** The importing device as bufinfo names it, and how it was chosen. */
      importer: z.string().nullable(),
      importer_reason: z.string(),
      /** Why each better source was not used. */
      passed_over: z.array(z.string()),
      /** The dma-buf kprobe events of the capture, or why there were none. */
      probes: z.object({
        available: z.boolean(),
        reason: z.string().optional(),
        inode: z.boolean(),
        events: z.number().int(),
      }),
      /** nvmap's dma-buf events (a Jetson's nvmap, the rig's nvmap-sim), when present. */
      nvmap: NvmapEvidenceSchema.optional(),
    }).optional(),
    /**
     * Why the run has its status, in one sentence: where the chain broke when the pipeline or
     * chain section knows, else the first invariant that did not pass (absent in older
     * results).
     */
    reason: z.string().optional(),
    /** Where the camera → card chain of buffers held or broke (absent in older results). */
    chain: ChainSchema.optional(),
    diagnosis: z.array(DiagnosisSchema),
    notes: z.array(z.string()),
    /** GStreamer workloads: where frames left the camera's dma-buf (`pipeline.ts`). */
    pipeline: PipelineSectionSchema.optional(),
    /** Metis runs: what the card's own dma-trace says it transferred (`card_witness.ts`). */
    card_witness: CardWitnessSchema.optional(),
  }),
});

/** The complete result file. */
export type VerifyResult = z.infer<typeof VerifyResultSchema>;

/**
 * Validates a parsed result.json; throws a readable error naming the first bad field.
 *
 * @example
 * ```ts
 * import { parseVerifyResult } from "./mod.ts";
 * try {
 *   parseVerifyResult({ pass: true });
 * } catch (e) {
 *   console.log(e instanceof TypeError); // true
 *   console.log((e as Error).message);
 *   // "result.json is not a valid axl.verify/1 result: I1_attach_count_ge2: Invalid input: …"
 * }
 * ```
 */
export function parseVerifyResult(value: unknown): VerifyResult {
  const r = VerifyResultSchema.safeParse(value);
  if (r.success) return r.data;
  const issue = r.error.issues[0]!;
  throw new TypeError(
    `result.json is not a valid ${RESULT_SCHEMA_VERSION} result: ${
      issue.path.join(".") || "(root)"
    }: ${issue.message}` +
      (r.error.issues.length > 1 ? ` (and ${r.error.issues.length - 1} more issues)` : ""),
  );
}
