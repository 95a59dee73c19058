// `deno bench` microbenchmarks of the per-line work of trace analysis, on lines of the captured
// template (bench/fixtures/axl-frames-6.12-std.trace): where the MB/s of bench/run.ts go.
import { parseFtraceLine } from "../lib/trace/parse/ftrace.ts";
import { readLines } from "../lib/trace/parse/lines.ts";
import { addRecord, emptyTraceFacts } from "../lib/verify/trace_facts.ts";
import { TEMPLATE } from "./trace_gen.ts";

const text = Deno.readTextFileSync(TEMPLATE);
const lines = text.split("\n").filter((l) => l !== "" && !l.startsWith("#"));
const pick = (re: RegExp): string => {
  const l = lines.find((x) => re.test(x));
  if (!l) throw new Error(`no template line matches ${re}`);
  return l;
};
const eventLine = pick(/axl_job_submit:/);
const entryLine = pick(/dma_buf_attach\(\) \{/);
const leafLine = pick(/us\s+\|\s+dma_buf_detach\(\);/);
const bytes = new TextEncoder().encode(text);
const records = lines.map((l, i) => parseFtraceLine(l, i + 1)).filter((r) => r !== undefined);

Deno.bench({
  name: "parseFtraceLine: event in a function_graph comment",
  group: "line",
  baseline: true,
  fn: () => {
    parseFtraceLine(eventLine, 1);
  },
});
Deno.bench({
  name: "parseFtraceLine: function_graph entry",
  group: "line",
  fn: () => {
    parseFtraceLine(entryLine, 1);
  },
});
Deno.bench({
  name: "parseFtraceLine: function_graph leaf with duration",
  group: "line",
  fn: () => {
    parseFtraceLine(leafLine, 1);
  },
});
Deno.bench({
  name: `readLines: the template (${lines.length} lines, ${bytes.length} bytes)`,
  group: "template",
  baseline: true,
  async fn() {
    for await (const _ of readLines([text])) { /* count only */ }
  },
});
Deno.bench({
  name: "parseFtraceLine: every template line",
  group: "template",
  fn: () => {
    for (let i = 0; i < lines.length; i++) parseFtraceLine(lines[i]!, i + 1);
  },
});
Deno.bench({
  name: "addRecord: every template record (pre-parsed)",
  group: "template",
  fn: () => {
    const facts = emptyTraceFacts();
    for (const r of records) addRecord(facts, r);
  },
});
