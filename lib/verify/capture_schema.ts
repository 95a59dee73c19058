/**
 * The shape of `capture.json` as a replay reads it: every field the judge uses, with its
 * type, so that a file of another shape is refused with the field at fault instead of
 * failing somewhere inside the judge. Objects are loose: keys a newer axl adds pass.
 *
 * @module
 */
import { z } from "../_deps.ts";
import { IntegritySchema } from "./integrity.ts";

const int = z.number().int();
const strings = z.array(z.string());

/** `capture.json`: what {@linkcode CaptureRecord} holds (`capture.ts`). */
export const CaptureRecordSchema = z.looseObject({
  headline: z.string(),
  setup: z.looseObject({
    instance: z.string().nullable(),
    tracer: z.string(),
    graphFunctions: strings,
    events: strings,
    missingEvents: strings,
    clock: z.string(),
    bufferSizeKb: int,
  }),
  workload: z.looseObject({
    kind: z.string(),
    description: z.string(),
    pids: z.array(int),
    framesSubmitted: int.nonnegative().nullable(),
    exitCode: int.nullable(),
    exitSignal: z.string().optional(),
    stopped: z.boolean().optional(),
    stderrTail: z.string().optional(),
    frames: z.array(z.looseObject({})).optional(),
    mapRefs: z.array(z.looseObject({ pid: int })).optional(),
    fdRefs: z.array(z.looseObject({ pid: int, fd: int, inode: int, exporter: z.string() }))
      .optional(),
    v4l2Devices: z.array(z.looseObject({})).optional(),
    sysfs: z.looseObject({ present: z.boolean(), buffers: z.array(z.looseObject({})) })
      .optional(),
  }),
  environment: z.looseObject({
    kernel: z.string(),
    preemptRt: z.boolean(),
    machine: z.string(),
    device: z.string(),
    simulated: z.boolean(),
    tracers: strings,
    pmu: z.boolean(),
  }),
  notes: strings,
  bufinfoUnavailable: z.string().nullable(),
  bufinfoIntervalMs: int.nonnegative().optional(),
  perf: z.union([
    z.looseObject({ unavailable: z.string() }),
    z.looseObject({
      event: z.string(),
      reason: z.string(),
      rate: z.looseObject({ hz: int.positive(), rule: z.string() }).optional(),
    }),
  ]),
  importer: z.looseObject({ name: z.string().nullable(), axl: z.boolean(), reason: z.string() })
    .optional(),
  probes: z.union([
    z.looseObject({ events: strings, inode: z.boolean() }),
    z.looseObject({ unavailable: z.string() }),
  ]).optional(),
  drain: z.looseObject({ bytes: int.nonnegative(), ms: z.number(), ended: z.string() }).optional(),
  procScans: int.nonnegative().optional(),
  refEvents: z.looseObject({
    parts: strings,
    counts: z.looseObject({ events: int.nonnegative() }),
    lost: z.union([int.nonnegative(), z.string()]),
    fdRefs: z.array(z.looseObject({ pid: int, fd: int, inode: int, exporter: z.string() })),
    mapRefs: z.array(z.looseObject({ pid: int })),
  }).optional(),
  integrity: IntegritySchema.optional(),
});

/**
 * The first problem of `raw` as `capture.json`, as `path: message`, or undefined when it has
 * the shape.
 *
 * @example
 * ```ts
 * import { captureShapeProblem } from "./capture_schema.ts";
 * console.log(captureShapeProblem({ foo: 1 })); // "headline: Invalid input: expected string, received undefined"
 * ```
 */
export function captureShapeProblem(raw: unknown): string | undefined {
  const parsed = CaptureRecordSchema.safeParse(raw);
  if (parsed.success) return undefined;
  const issue = parsed.error.issues[0]!;
  return `${issue.path.join(".") || "(root)"}: ${issue.message}`;
}
