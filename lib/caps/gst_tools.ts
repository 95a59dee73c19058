/**
 * Running GStreamer's command-line tools: `gst-inspect-1.0` to read an element's
 * capabilities (or a saved copy of its output), and `gst-launch-1.0` to see
 * what GStreamer itself does with a pipeline, so the analysis can be checked
 * against the real thing.
 *
 * @module
 */

import { basename, join } from "node:path";
import { type ElementInfo, parseGstInspect } from "./inspect.ts";

/** A tool or file needed for the analysis is missing. */
export class GstToolError extends Error {
  /** Exit status 3 (`cannot-run`): a tool or file is missing. */
  readonly exitKind = "cannot-run";
  /** What to do about it. */
  readonly hint: string;
  /** `message` says what is missing, `hint` what to do about it. */
  constructor(message: string, hint: string, options?: ErrorOptions) {
    super(`${message}: ${hint}`, options);
    this.name = "GstToolError";
    this.hint = hint;
  }
}

/** Where to look for element capabilities. */
export interface LoadOptions {
  /** Directories of saved `gst-inspect-1.0 <factory>` outputs named `<factory>.txt`. */
  inspectDirs?: readonly string[];
  /** Run `gst-inspect-1.0` when no saved output is found (default true). */
  runInspect?: boolean;
  /** The gst-inspect binary (default `gst-inspect-1.0`). */
  gstInspect?: string;
}

/** Parsed capabilities and where they came from. */
export interface LoadedElement {
  /** The element's capabilities as gst-inspect lists them. */
  readonly info: ElementInfo;
  /** The file read, or `gst-inspect-1.0 <factory>`. */
  readonly source: string;
}

/**
 * Loads an element's capabilities. `spec` is a factory name (looked up in the
 * inspect directories, then with gst-inspect-1.0) or a path to a saved output
 * (anything containing `/` or ending in `.txt`; the factory is the file's base
 * name). Throws {@linkcode GstToolError} saying how to get the output.
 *
 * @example
 * ```ts ignore
 * import { loadElement } from "./gst_tools.ts";
 * const { info } = await loadElement("videoconvert");
 * console.log(info.padTemplates.length);
 * ```
 */
export async function loadElement(spec: string, options: LoadOptions = {}): Promise<LoadedElement> {
  if (typeof spec !== "string" || spec === "") {
    throw new TypeError("element must be a factory name or a path to gst-inspect output");
  }
  if (spec.includes("/") || spec.endsWith(".txt")) {
    const factory = basename(spec).replace(/\.(txt|inspect)$/, "");
    return { info: parseGstInspect(await readText(spec), factory), source: spec };
  }
  for (const dir of options.inspectDirs ?? []) {
    const path = join(dir, `${spec}.txt`);
    let text: string;
    try {
      text = await Deno.readTextFile(path);
    } catch (e) {
      if (e instanceof Deno.errors.NotFound) continue;
      throw e;
    }
    return { info: parseGstInspect(text, spec), source: path };
  }
  const dirs = (options.inspectDirs ?? []).join(", ");
  if (options.runInspect === false) {
    throw new GstToolError(
      `no saved capabilities for "${spec}"${dirs ? ` in ${dirs}` : ""}`,
      `save them with \`gst-inspect-1.0 ${spec} > <dir>/${spec}.txt\` and pass --inspect-dir <dir>`,
    );
  }
  const text = await runGstInspect(spec, options.gstInspect);
  return { info: parseGstInspect(text, spec), source: `gst-inspect-1.0 ${spec}` };
}

async function readText(path: string): Promise<string> {
  try {
    return await Deno.readTextFile(path);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) {
      throw new GstToolError(`cannot read ${path}`, "the file does not exist", { cause: e });
    }
    throw e;
  }
}

/**
 * Runs `gst-inspect-1.0 <factory>` and returns its output.
 *
 * @example
 * ```ts ignore
 * import { runGstInspect } from "./gst_tools.ts";
 * console.log((await runGstInspect("fakesink")).includes("Pad Templates:"));
 * ```
 */
export async function runGstInspect(factory: string, binary = "gst-inspect-1.0"): Promise<string> {
  if (!/^[A-Za-z0-9][\w\-+.]*$/.test(factory)) {
    throw new RangeError(`"${factory}" is not an element factory name`);
  }
  const out = await run(binary, [factory], 30_000);
  if (out.code !== 0 || !out.stdout.includes("Pad Templates:")) {
    const why = (out.stderr || out.stdout).trim().split("\n")[0] ?? "";
    throw new GstToolError(
      `${binary} ${factory} failed (exit ${out.code}${why ? `: ${why}` : ""})`,
      "check the element name with `gst-inspect-1.0 | grep <name>`, or install the plugin " +
        "that provides it",
    );
  }
  return out.stdout;
}

/** Whether a GStreamer tool can be run here. */
export async function haveGstTool(binary: string): Promise<boolean> {
  try {
    const out = await run(binary, ["--version"], 10_000);
    return out.code === 0;
  } catch {
    return false;
  }
}

interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
  timedOut: boolean;
}

async function run(binary: string, args: string[], timeoutMs: number): Promise<RunResult> {
  let child: Deno.ChildProcess;
  try {
    child = new Deno.Command(binary, {
      args,
      stdout: "piped",
      stderr: "piped",
      stdin: "null",
      env: { GST_DEBUG_NO_COLOR: "1", LC_ALL: "C" },
    }).spawn();
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) {
      throw new GstToolError(
        `${binary} is not installed`,
        "install GStreamer's tools (Debian: apt-get install gstreamer1.0-tools), or pass saved " +
          "gst-inspect outputs",
        { cause: e },
      );
    }
    throw e;
  }
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    try {
      child.kill("SIGKILL");
    } catch { /* already gone */ }
  }, timeoutMs);
  try {
    const out = await child.output();
    const dec = new TextDecoder();
    return {
      code: out.code,
      stdout: dec.decode(out.stdout),
      stderr: dec.decode(out.stderr),
      timedOut,
    };
  } finally {
    clearTimeout(timer);
  }
}

/** What gst-launch-1.0 did with a pipeline. */
export interface LaunchOutcome {
  /**
   * `ok`: ran to EOS; `link-failed`: the description could not be linked;
   * `not-negotiated`: linked but caps negotiation failed while streaming;
   * `error`: another error (missing device, no display, …); `timeout`.
   */
  readonly outcome: "ok" | "link-failed" | "not-negotiated" | "error" | "timeout";
  /** For link-failed: the two element names gst-launch names. */
  readonly failedLink: { readonly from: string; readonly to: string } | undefined;
  /** Negotiated caps per pad, `element.pad` → caps string (with `-v`). */
  readonly padCaps: ReadonlyMap<string, string>;
  /** The first error line. */
  readonly message: string;
  /** gst-launch-1.0's exit code. */
  readonly exitCode: number;
}

/**
 * Reads gst-launch-1.0's output (stdout and stderr together).
 *
 * @example
 * ```ts
 * import { parseLaunchOutput } from "./gst_tools.ts";
 * import { strictEqual } from "node:assert/strict";
 * const o = parseLaunchOutput(
 *   "WARNING: erroneous pipeline: could not link videotestsrc0 to fakesink0, videotestsrc0 " +
 *     "can't handle caps video/x-raw(memory:DMABuf)\n",
 *   1,
 * );
 * strictEqual(o.outcome, "link-failed");
 * strictEqual(o.failedLink?.to, "fakesink0");
 * ```
 */
export function parseLaunchOutput(
  output: string,
  exitCode: number,
  timedOut = false,
): LaunchOutcome {
  const padCaps = new Map<string, string>();
  for (
    const m of output.matchAll(
      /^\/GstPipeline:[^\s]*?\/[A-Za-z0-9]+:([^\s/.]+)\.Gst[A-Za-z]*Pad:([^\s:]+): caps = (.*)$/gm,
    )
  ) {
    padCaps.set(`${m[1]}.${m[2]}`, m[3]!.trim());
  }
  const link = /could not link (\S+) to (\S+?)(?:,|\s|$)/.exec(output);
  const firstError = output.split("\n").find((l) => /^(ERROR|WARNING: erroneous)/.test(l)) ?? "";
  // "reason not-negotiated" also follows other failures (an element that could not
  // start stops the stream); it is a negotiation failure only when the first error
  // is the generic streaming error that carries it.
  const streaming = /^ERROR: from element \S+ Internal data stream error/.test(firstError);
  let outcome: LaunchOutcome["outcome"];
  if (link) outcome = "link-failed";
  else if (/reason not-negotiated/.test(output) && (streaming || firstError === "")) {
    outcome = "not-negotiated";
  } else if (timedOut) outcome = "timeout";
  else if (exitCode === 0 && !/^ERROR/m.test(output)) outcome = "ok";
  else outcome = "error";
  return Object.freeze({
    outcome,
    failedLink: link ? Object.freeze({ from: link[1]!, to: link[2]! }) : undefined,
    padCaps,
    message: firstError.trim(),
    exitCode,
  });
}

/**
 * Splits a pipeline description into arguments the way a shell would (quotes
 * removed), which is how gst-launch-1.0 expects to receive it. Caps arguments
 * lose their spaces outside quoted strings: gst-launch-1.0 1.22 escapes the
 * spaces of each argument and then cannot parse lists and ranges written with
 * spaces (`{ NV12, I420 }`), although `{NV12,I420}` means the same caps.
 *
 * @example
 * ```ts
 * import { launchArgs } from "./gst_tools.ts";
 * import { deepStrictEqual } from "node:assert/strict";
 * deepStrictEqual(launchArgs("a ! 'video/x-raw, format={ NV12, I420 }' ! b"), [
 *   "a", "!", "video/x-raw,format={NV12,I420}", "!", "b",
 * ]);
 * ```
 */
export function launchArgs(description: string): string[] {
  const args: string[] = [];
  let cur = "";
  let inWord = false;
  let quote: string | undefined;
  for (let i = 0; i < description.length; i++) {
    const c = description[i]!;
    if (quote) {
      if (c === quote) quote = undefined;
      else if (c === "\\" && quote === '"' && i + 1 < description.length) cur += description[++i];
      else cur += c;
      continue;
    }
    if (c === "'" || c === '"') {
      quote = c;
      inWord = true;
    } else if (/\s/.test(c)) {
      if (inWord) args.push(cur);
      cur = "";
      inWord = false;
    } else {
      cur += c;
      inWord = true;
    }
  }
  if (quote) throw new RangeError(`unterminated ${quote} quote in pipeline description`);
  if (inWord) args.push(cur);
  return args.map((a) => (/^[^\s,(=]*\//.test(a) && !a.includes("=/") ? compactCaps(a) : a));
}

function compactCaps(text: string): string {
  let out = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      out += c;
      if (c === "\\" && i + 1 < text.length) out += text[++i];
      else if (c === '"') quoted = false;
      continue;
    }
    if (c === '"') quoted = true;
    if (!/\s/.test(c)) out += c;
  }
  return out;
}

/**
 * Runs gst-launch-1.0 on a description with `-v` and reads the outcome. Use a
 * description that ends by itself (e.g. `num-buffers=1` on the source).
 *
 * @example
 * ```ts ignore
 * import { runGstLaunch } from "./gst_tools.ts";
 * const o = await runGstLaunch("videotestsrc num-buffers=1 ! fakesink");
 * console.log(o.outcome); // "ok"
 * ```
 */
export async function runGstLaunch(
  description: string,
  options: { binary?: string; timeoutMs?: number } = {},
): Promise<LaunchOutcome> {
  const out = await run(
    options.binary ?? "gst-launch-1.0",
    ["-v", ...launchArgs(description)],
    options.timeoutMs ?? 20_000,
  );
  return parseLaunchOutput(out.stdout + "\n" + out.stderr, out.code, out.timedOut);
}
