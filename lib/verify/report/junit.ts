/**
 * A verify result as JUnit XML, the test report format GitLab, Jenkins and GitHub test
 * reporters read: one test suite `axl verify`, one test case per invariant. FAIL is a
 * `<failure>` with the invariant's summary and the diagnosis rows for it; INCONCLUSIVE an
 * `<error>` (the verdict could not be reached, which must not count as a pass); SKIP a
 * `<skipped>`. Each case's evidence and its source are in its `<system-out>`; the suite's
 * `<properties>` name the device, the kernel and each invariant's evidence source. The
 * output validates against the JUnit schema Jenkins publishes (junit-4.xsd).
 *
 * @module
 */
import type { VerifyResult } from "../schema.ts";
import { invariantsOf, type InvariantView } from "./_result_view.ts";

/** Options of {@linkcode junitReport}. */
export interface JunitOptions {
  /** When the run was judged (the suite's `timestamp`); absent: no timestamp. */
  timestamp?: Date;
  /** The machine's name (the suite's `hostname`); absent: none. */
  hostname?: string;
}

// XML 1.0 allows tab, newline, carriage return and the characters from U+0020 on
// (minus surrogates and U+FFFE/U+FFFF); anything else cannot appear even escaped.
const NOT_XML = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

/**
 * Escapes `text` for XML element content and double-quoted attribute values, replacing
 * the characters XML cannot carry with U+FFFD.
 *
 * @example
 * ```ts
 * import { escapeXml } from "./junit.ts";
 * console.log(escapeXml('a<b & "c"\u0001')); // "a&lt;b &amp; &quot;c&quot;\uFFFD"
 * ```
 */
export function escapeXml(text: string): string {
  return text.replace(NOT_XML, "\uFFFD").replace(
    /[&<>"\n]/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "\n": "&#10;" })[c]!,
  );
}

/** Element text: like attributes, but newlines stay newlines. */
function text(value: string): string {
  return escapeXml(value).replaceAll("&#10;", "\n");
}

function property(name: string, value: unknown): string {
  const shown = typeof value === "string" ? value : JSON.stringify(value);
  return `      <property name="${escapeXml(name)}" value="${escapeXml(shown ?? "")}"/>`;
}

/** The suite's properties: where the run was, and each invariant's evidence source. */
function properties(result: VerifyResult, invariants: InvariantView[]): string[] {
  const a = result.axl;
  const env = a.environment;
  const pairs: [string, unknown][] = [
    ["axl.status", a.status],
    ["axl.schema", a.schema],
    ["device", env.device],
    ["device.simulated", env.simulated],
    ["kernel", env.kernel],
    ["machine", env.machine],
    ["workload", a.workload.description],
    ["frames.submitted", a.frames.submitted],
    ["frames.traced", a.frames.traced],
    ["trace.lost_events", a.trace.lost_events],
    ...(a.evidence
      ? [["evidence.source", a.evidence.source], ["evidence.importer", a.evidence.importer]] as [
        string,
        unknown,
      ][]
      : []),
    ...invariants.map((i) => [`${i.id}.source`, i.source ?? "unknown"] as [string, unknown]),
  ];
  return ["    <properties>", ...pairs.map(([n, v]) => property(n, v)), "    </properties>"];
}

/**
 * The text of a failure or error: the summary and the evidence source, then each diagnosis
 * row for the invariant. GitLab shows only this text of a failed case (not its system-out).
 */
function explanation(result: VerifyResult, inv: InvariantView): string {
  const rows = result.axl.diagnosis.filter((d) => d.invariant === inv.id);
  return [
    inv.summary,
    `evidence source: ${inv.source ?? "unknown"}`,
    ...rows.map((d) => `\ndiagnosis: ${d.symptom}\n  cause: ${d.cause}\n  fix:   ${d.fix}`),
  ].join("\n");
}

function testcase(result: VerifyResult, inv: InvariantView): string[] {
  const open = `    <testcase name="${escapeXml(`${inv.id} ${inv.title}`)}" ` +
    `classname="axl.verify" time="0">`;
  const verdict: string[] = [];
  if (inv.status === "FAIL" || inv.status === "INCONCLUSIVE") {
    const tag = inv.status === "FAIL" ? "failure" : "error";
    verdict.push(
      `      <${tag} type="${inv.status}" message="${escapeXml(inv.summary)}">` +
        `${text(explanation(result, inv))}</${tag}>`,
    );
  } else if (inv.status === "SKIP") {
    verdict.push(`      <skipped>${text(inv.summary)}</skipped>`);
  }
  // every status keeps its diagnosis rows (a PASS can carry a warning, e.g. unnamed samples)
  const out =
    `${explanation(result, inv).replace(inv.summary, `${inv.status}: ${inv.summary}`)}\n` +
    `evidence: ${JSON.stringify(inv.evidence)}`;
  return [open, ...verdict, `      <system-out>${text(out)}</system-out>`, "    </testcase>"];
}

/** The run's own diagnosis rows (trace, perf, latency, workload) and notes. */
function suiteOut(result: VerifyResult, ids: Set<string>): string[] {
  const a = result.axl;
  const lines = [
    a.headline,
    ...a.diagnosis.filter((d) => !ids.has(d.invariant)).map((d) =>
      `diagnosis [${d.invariant}] ${d.symptom}\n  cause: ${d.cause}\n  fix:   ${d.fix}`
    ),
    ...a.notes.map((n) => `note: ${n}`),
  ];
  return [`    <system-out>${text(lines.join("\n"))}</system-out>`];
}

/**
 * The JUnit XML of `result`: one test case per invariant.
 *
 * @example
 * ```ts ignore
 * import { junitReport } from "./junit.ts";
 * await Deno.writeTextFile("verify.xml", junitReport(result, { timestamp: new Date() }));
 * ```
 */
export function junitReport(result: VerifyResult, options: JunitOptions = {}): string {
  const invariants = invariantsOf(result);
  const count = (status: string) => invariants.filter((i) => i.status === status).length;
  const attrs = [
    `name="axl verify"`,
    `tests="${invariants.length}"`,
    `failures="${count("FAIL")}"`,
    `errors="${count("INCONCLUSIVE")}"`,
    `skipped="${count("SKIP")}"`,
    `time="0"`,
    ...(options.timestamp
      ? [`timestamp="${options.timestamp.toISOString().replace(/\.\d+Z$/, "")}"`]
      : []),
    ...(options.hostname !== undefined ? [`hostname="${escapeXml(options.hostname)}"`] : []),
  ];
  return [
    `<?xml version="1.0" encoding="UTF-8"?>`,
    `<testsuites name="axl verify" tests="${invariants.length}" failures="${count("FAIL")}" ` +
    `errors="${count("INCONCLUSIVE")}">`,
    `  <testsuite ${attrs.join(" ")}>`,
    ...properties(result, invariants),
    ...invariants.flatMap((inv) => testcase(result, inv)),
    ...suiteOut(result, new Set(invariants.map((i) => i.id))),
    "  </testsuite>",
    "</testsuites>",
    "",
  ].join("\n");
}
