/**
 * {@linkcode Session}: everything one shell session created — the device, dma-bufs,
 * imports, jobs, producers, frames, trace captures — with the variables they are bound
 * to, so they can be listed on demand and released, in dependency order, on exit.
 *
 * @module
 */
import type { Device, Import, Job } from "../core/device.ts";
import { DmaBuf } from "../core/dmabuf.ts";
import { AxlError } from "../core/errors.ts";
import type { MetisDevice } from "../core/metis/device.ts";
import { drivers, isDriverObject, loadDrivers } from "./_drivers.ts";
import { loadShellCommands } from "./registry.ts";
import { parseNodeName } from "../core/metis/node.ts";
import { CardLedger, MetisAttachment, MetisTransfer } from "./metis_objects.ts";
import type { Frame } from "../frames/frame.ts";
import type { FrameLayout } from "../formats/layout.ts";
import type { PixelFormat } from "../core/pixel_format.ts";
import type { Producer } from "../frames/producers/producer.ts";
import type { ReferenceResult } from "../frames/reference.ts";
import { Evaluator, type Scope } from "./evaluator.ts";

/** Kinds of objects a session tracks, in the order they are released. */
export const OBJECT_KINDS = [
  "frame",
  "job",
  "import",
  "trace",
  "producer",
  "buffer",
  "device",
] as const;
/** One of {@linkcode OBJECT_KINDS}. */
export type ObjectKind = typeof OBJECT_KINDS[number];

/** Something with a stop (a trace capture); tracked as kind `trace`. */
export interface Stoppable {
  /** What it is, for listings. */
  readonly description: string;
  /** True once stopped. */
  readonly stopped: boolean;
  /** Stops and frees what it holds; idempotent. */
  stop(): Promise<unknown> | unknown;
}

/** A tracked object. */
export interface Tracked {
  /** Session-wide number, shown as `#N`. */
  readonly id: number;
  /** What it is. */
  readonly kind: ObjectKind;
  /** The object itself. */
  readonly object: unknown;
  /** The input that created it. */
  readonly origin: string;
}

/** What the session knows about a buffer it allocated. */
export interface BufferMeta {
  /** Frame layout, when allocated as a frame. */
  layout?: FrameLayout<PixelFormat>;
  /** How it was filled (`pattern seed 1`, `zero`, `0x80`). */
  fill?: string;
  /** The engine result the content must produce (known for filled frames). */
  reference?: ReferenceResult;
}

/** Which driver a session drives: axl.ko's `/dev/axl`, or a node with metis.ko's ABI. */
export type SessionDriver = "axl" | "metis";

/** What `--device` takes to open the first Metis node (`AXL_METIS_DEVICE` or discovered). */
export const METIS_DEVICE_WORD = "metis";

/**
 * The driver a device argument selects: `metis` or a `metis-*`/`axl-metis-*` node path
 * is a Metis node, anything else (or nothing) axl.ko.
 *
 * @example
 * ```ts
 * import { driverFor } from "./session.ts";
 * console.log(driverFor("/dev/axl-metis-0-0-3")); // "metis"
 * console.log(driverFor(undefined)); // "axl"
 * ```
 */
export function driverFor(device: string | undefined): SessionDriver {
  if (device === METIS_DEVICE_WORD) return "metis";
  return device !== undefined && parseNodeName(device) ? "metis" : "axl";
}

function envDevice(): string | undefined {
  try {
    return Deno.env.get("AXL_DEVICE") || undefined;
  } catch {
    return undefined;
  }
}

/** Options of {@linkcode Session}. */
export interface SessionOptions {
  /**
   * Device node (default: `AXL_DEVICE` or /dev/axl): a Metis node (`/dev/metis-*`,
   * `/dev/axl-metis-*`, or `metis` for the first one) makes a Metis session.
   */
  device?: string;
  /** Default heap for allocations (default `system`). */
  heap?: string;
}

/** Result of {@linkcode Session.releaseAll}. */
export interface ReleaseReport {
  /** One line per released object. */
  released: string[];
  /** One line per object that failed to release. */
  errors: string[];
}

function isProducer(v: object): v is Producer {
  const p = v as Partial<Producer>;
  return typeof p.next === "function" && typeof p.recycle === "function" &&
    typeof p.close === "function" && typeof p.name === "string";
}

const EOPNOTSUPP = 95;

function isFrame(v: object): v is Frame {
  const f = v as Partial<Frame>;
  return f.buffer instanceof DmaBuf && Array.isArray(f.planes) && typeof f.sequence === "number";
}

const IDENTIFIER = /^[\p{ID_Start}$_][\p{ID_Continue}$]*$/u;

/**
 * One shell session.
 *
 * @example Bind values and list what is tracked
 * ```ts
 * import { Session } from "./session.ts";
 * const s = new Session();
 * const names = s.bind({ answer: 42 }, "x");
 * console.log(names.join()); // "$1,x"
 * console.log(s.scope.x === s.scope.$1); // true
 * console.log(s.live().length); // 0
 * ```
 */
export class Session {
  /** The JavaScript evaluator sharing {@linkcode Session.scope}. */
  readonly evaluator: Evaluator;
  /** Default heap for allocations. */
  readonly heap: string;
  /** The driver this session drives (see {@linkcode driverFor}). */
  readonly driver: SessionDriver;
  /** The bytes this session's transfers put on the card (Metis sessions). */
  readonly card: CardLedger = new CardLedger();
  readonly #devicePath: string | undefined;
  #device: Device | undefined;
  #metis: MetisDevice | undefined;
  #nextVar = 1;
  #nextId = 1;
  readonly #objects: Tracked[] = [];
  readonly #byObject = new Map<unknown, Tracked>();
  readonly #bufferMeta = new WeakMap<DmaBuf, BufferMeta>();
  readonly #frameOwner = new WeakMap<object, Producer>();
  readonly #done = new WeakSet<object>();
  // Buffers a producer owns: never adopted as session buffers (the producer frees them).
  readonly #producerOwned = new WeakSet<object>();
  #modules: Promise<void> | undefined;

  /** Creates an empty session; the device opens on first use. */
  constructor(options: SessionOptions = {}) {
    this.evaluator = new Evaluator();
    this.heap = options.heap ?? "system";
    this.#devicePath = options.device ?? envDevice();
    this.driver = driverFor(this.#devicePath);
    Object.defineProperty(this.scope, "dev", {
      get: () => this.driver === "metis" ? this.metis() : this.device(),
      enumerable: true,
      configurable: true,
    });
    Object.defineProperty(this.scope, "session", {
      value: this,
      enumerable: true,
      configurable: true,
      writable: true,
    });
  }

  /**
   * Puts the library in the scope (see `modules.ts`), importing it on the first call:
   * the shell awaits it before running JavaScript, and starts it after its first prompt.
   */
  loadModules(): Promise<void> {
    this.#modules ??= import("./modules.ts").then(({ installModules }) => {
      installModules(this.scope);
    });
    return this.#modules;
  }

  /**
   * Loads what the shell otherwise loads on first use: the driver classes, the library in
   * the scope and every command (the interactive shell starts this after its first prompt).
   */
  async load(): Promise<void> {
    await Promise.all([loadDrivers(), this.loadModules(), loadShellCommands()]);
  }

  /** The variables shared by commands and JavaScript. */
  get scope(): Scope {
    return this.evaluator.scope;
  }

  /** True once the device has been opened. */
  get deviceOpen(): boolean {
    const dev = this.driver === "metis" ? this.#metis : this.#device;
    return dev !== undefined && !dev.closed;
  }

  /**
   * The session's axl.ko device, opened on first use and tracked. On a Metis session
   * throws, saying why: `what` (e.g. `submit`) needs axl.ko's jobs and fences.
   */
  device(what = "this command"): Device {
    if (this.driver === "metis") {
      throw new AxlError(`${what} (${this.#devicePath})`, EOPNOTSUPP, {
        code: "EOPNOTSUPP",
        detail: "this session drives a Metis node (metis.ko's ABI), which has no jobs, " +
          "fences or engine results",
        hint: "use 'attach', 'transfer' and 'wait' here; start 'axl shell' without " +
          "--device NODE (or with --device /dev/axl) for axl.ko",
        exitKind: "cannot-run",
      });
    }
    if (this.#device && !this.#device.closed) return this.#device;
    this.#device = drivers().Device.open(this.#devicePath);
    this.track("device", this.#device, "device");
    return this.#device;
  }

  /**
   * The session's Metis node, opened on first use and tracked. On an axl.ko session
   * throws, saying how to start a Metis one.
   */
  metis(what = "this command"): MetisDevice {
    if (this.driver !== "metis") {
      throw new AxlError(`${what} (${this.#devicePath ?? "/dev/axl"})`, EOPNOTSUPP, {
        code: "EOPNOTSUPP",
        detail: "this session drives axl.ko, which moves frames by jobs, not by card " +
          "memory transfers",
        hint: "start 'axl shell --device metis' (or --device /dev/metis-*, " +
          "/dev/axl-metis-*) for a Metis node; here use 'import', 'submit' and 'wait'",
        exitKind: "cannot-run",
      });
    }
    if (this.#metis && !this.#metis.closed) return this.#metis;
    const target = this.#devicePath === METIS_DEVICE_WORD ? undefined : this.#devicePath;
    this.#metis = drivers().MetisDevice.open(target);
    this.track("device", this.#metis, "device");
    return this.#metis;
  }

  /** The next `$N` name that {@linkcode Session.bind} will use. */
  get nextVariable(): string {
    return `$${this.#nextVar}`;
  }

  /**
   * Binds `value` to the next `$N` and, when given, to `name`; returns the names.
   * Throws TypeError for a name that is not a JavaScript identifier.
   */
  bind(value: unknown, name?: string): string[] {
    if (name !== undefined && !IDENTIFIER.test(name)) {
      throw new TypeError(`not a variable name: '${name}'`);
    }
    const names = [`$${this.#nextVar++}`];
    if (name !== undefined) names.push(name);
    for (const n of names) {
      Object.defineProperty(this.scope, n, {
        value,
        enumerable: true,
        configurable: true,
        writable: true,
      });
    }
    return names;
  }

  /** Starts tracking `object` (no-op when already tracked); returns its record. */
  track(kind: ObjectKind, object: object, origin: string): Tracked {
    const known = this.#byObject.get(object);
    if (known) return known;
    const t: Tracked = { id: this.#nextId++, kind, object, origin };
    this.#objects.push(t);
    this.#byObject.set(object, t);
    return t;
  }

  /** The record of a tracked object. */
  tracked(object: unknown): Tracked | undefined {
    return this.#byObject.get(object);
  }

  /** Remembers how a buffer was allocated and filled. */
  setBufferMeta(buf: DmaBuf, meta: BufferMeta): void {
    this.#bufferMeta.set(buf, meta);
  }

  /** What the session knows about `buf`. */
  bufferMeta(buf: DmaBuf): BufferMeta | undefined {
    return this.#bufferMeta.get(buf);
  }

  /** Records that `frame` came from `producer` (release recycles it). */
  setFrameOwner(frame: Frame, producer: Producer): void {
    this.#frameOwner.set(frame, producer);
    this.#producerOwned.add(frame.buffer);
  }

  /** What kind of session object `value` is, if any. */
  kindOf(value: unknown): ObjectKind | undefined {
    if (typeof value !== "object" || value === null) return undefined;
    if (value instanceof DmaBuf) return "buffer";
    if (isDriverObject(value, "Import") || value instanceof MetisAttachment) return "import";
    if (isDriverObject(value, "Job") || value instanceof MetisTransfer) return "job";
    if (isDriverObject(value, "Device") || isDriverObject(value, "MetisDevice")) return "device";
    if (isFrame(value)) return "frame";
    if (isProducer(value)) return "producer";
    const s = value as Partial<Stoppable>;
    if (typeof s.stop === "function" && typeof s.stopped === "boolean") return "trace";
    return undefined;
  }

  /** True while `t`'s object still holds something. */
  isLive(t: Tracked): boolean {
    const o = t.object;
    if (this.#done.has(o as object)) return false;
    switch (t.kind) {
      case "buffer":
        return !(o as DmaBuf).closed;
      case "import":
        if (o instanceof MetisAttachment) return o.live;
        return !(o as Import).released && !(o as Import).device.closed;
      case "job":
        // a transfer holds nothing once finished; it stays listed until released
        if (o instanceof MetisTransfer) return true;
        return !(o as Job).fence.closed;
      case "device":
        return !(o as Device | MetisDevice).closed;
      case "trace":
        return !(o as Stoppable).stopped;
      default:
        return true;
    }
  }

  /** Tracked objects that are still live, oldest first. */
  live(): Tracked[] {
    return this.#objects.filter((t) => this.isLive(t));
  }

  /** Every tracked object, live or not, oldest first. */
  all(): readonly Tracked[] {
    return this.#objects;
  }

  /** Variable names bound to `object`. */
  namesOf(object: unknown): string[] {
    return Object.keys(this.scope).filter((k) => {
      const d = Object.getOwnPropertyDescriptor(this.scope, k);
      return d !== undefined && "value" in d && d.value === object;
    });
  }

  /**
   * Tracks session objects found in `value` (one level into arrays and plain objects)
   * and in the scope's variables, and the imports and jobs of tracked devices: things
   * made by JavaScript lines are listed and released like command results.
   */
  adopt(value: unknown, origin: string): void {
    const seen = new Set<unknown>();
    const visit = (v: unknown, depth: number): void => {
      if (typeof v !== "object" || v === null || seen.has(v)) return;
      seen.add(v);
      if (this.#producerOwned.has(v)) return;
      const kind = this.kindOf(v);
      if (kind) {
        this.track(kind, v, origin);
        if (kind === "import") visit((v as Import).buffer, depth);
        if (kind === "job") {
          visit((v as Job).input, depth);
          visit((v as Job).result, depth);
        }
        return;
      }
      if (depth <= 0) return;
      if (Array.isArray(v)) { for (const x of v) visit(x, depth - 1); }
      else if (Object.getPrototypeOf(v) === Object.prototype) {
        // Data properties only: adopting must not run getters.
        for (const d of Object.values(Object.getOwnPropertyDescriptors(v))) {
          if ("value" in d) visit(d.value, depth - 1);
        }
      }
    };
    visit(value, 1);
    for (const k of Object.keys(this.scope)) {
      const d = Object.getOwnPropertyDescriptor(this.scope, k);
      if (d && "value" in d && d.value !== this) visit(d.value, 1);
    }
    for (const t of [...this.#objects]) {
      if (!isDriverObject(t.object, "Device") || !this.isLive(t)) continue;
      const dev = t.object;
      for (const imp of dev.imports) this.track("import", imp, origin);
      for (const job of dev.jobs) this.track("job", job, origin);
    }
  }

  /** Releases one object by its kind; returns a line saying what was done. */
  async release(object: unknown): Promise<string> {
    const t = typeof object === "object" && object !== null
      ? this.#byObject.get(object)
      : undefined;
    const kind = t?.kind ?? this.kindOf(object);
    if (!kind) {
      throw new TypeError(
        "release: not a session object (a buffer, import, job, producer, frame, trace or device)",
      );
    }
    const o = object as object;
    const tag = t ? `#${t.id} ${kind}` : kind;
    switch (kind) {
      case "frame": {
        const owner = this.#frameOwner.get(o);
        owner?.recycle(o as Frame);
        this.#done.add(o);
        return `${tag}: recycled to its producer`;
      }
      case "job": {
        if (o instanceof MetisTransfer) {
          await o.promise.catch(() => undefined);
          this.#done.add(o);
          return `${tag} ${o.direction} card 0x${o.card.toString(16)}: ${
            o.done ? "finished" : "failed"
          }`;
        }
        const job = o as Job;
        if (!job.fence.closed && job.fence.info().status === "active") {
          // Closing an unsignalled fence is allowed; the driver still signals it.
          await job.fence.wait(5000).catch(() => undefined);
        }
        job.close();
        return `${tag} seqno ${job.seqno}: fence closed`;
      }
      case "import": {
        if (o instanceof MetisAttachment) {
          o.detach();
          return `${tag} inode ${o.inode}: detached from ${o.path}`;
        }
        const imp = o as Import;
        if (imp.device.closed) return `${tag}: already released with its device`;
        imp.release();
        return `${tag} handle ${imp.handle}: released (inode ${imp.inode})`;
      }
      case "trace": {
        await (o as Stoppable).stop();
        return `${tag}: stopped`;
      }
      case "producer": {
        (o as Producer).close();
        this.#done.add(o);
        return `${tag} ${(o as Producer).name}: closed`;
      }
      case "buffer": {
        const buf = o as DmaBuf;
        buf.close();
        return `${tag} inode ${buf.inode}: closed`;
      }
      case "device": {
        const dev = o as Device | MetisDevice;
        dev.close();
        if (dev === this.#device) this.#device = undefined;
        if (dev === this.#metis) this.#metis = undefined;
        return `${tag} ${dev.path}: closed`;
      }
    }
  }

  /** Releases every live object, jobs before imports before buffers before the device. */
  async releaseAll(): Promise<ReleaseReport> {
    const report: ReleaseReport = { released: [], errors: [] };
    for (const kind of OBJECT_KINDS) {
      for (const t of this.live().filter((x) => x.kind === kind).reverse()) {
        try {
          report.released.push(await this.release(t.object));
        } catch (err) {
          report.errors.push(`#${t.id} ${t.kind}: ${err instanceof Error ? err.message : err}`);
        }
      }
    }
    return report;
  }
}
