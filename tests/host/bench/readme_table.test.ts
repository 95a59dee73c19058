import assert from "node:assert/strict";
import {
  BEGIN,
  END,
  findBlock,
  renderTable,
  type RunForTable,
  unpadded,
} from "../../../bench/readme_table.ts";

const root = new URL("../../../", import.meta.url);

function run(targets: RunForTable["targets"]): RunForTable {
  return {
    command: "deno task bench --only startup",
    startedAt: "2026-11-27T10:41:07.000Z",
    host: { deno: "2.1.4", arch: "x86_64", cpus: 2, kernel: "6.1.0" },
    noise: {
      "startup start": { loadavg: [1.24, 1, 1], otherQemu: 0 },
      "end": { loadavg: [0.81, 1, 1], otherQemu: 1 },
    },
    targets,
  };
}

Deno.test("the README's benchmark table is the one bench/last-run.json gives", async () => {
  const readme = await Deno.readTextFile(new URL("README.md", root));
  const last = JSON.parse(await Deno.readTextFile(new URL("bench/last-run.json", root)));
  const { start, end } = findBlock(readme);
  assert.equal(
    unpadded(readme.slice(start, end)),
    unpadded(renderTable(last)),
    "regenerate it: deno run -A bench/readme_table.ts bench/last-run.json",
  );
  assert.ok(last.targets.length > 0 && last.command.startsWith("deno task bench"));
});

Deno.test("renderTable() names the run and marks each target met, missed or n/a", () => {
  const md = renderTable(run([
    { name: "shell start", target: "< 150 ms", value: "69 ms", met: true },
    { name: "a | b", target: "≤ 1.30×", value: "1.34×", met: false },
    { name: "soak", target: "PASS", value: "not run", met: null },
  ]));
  assert.ok(md.startsWith(BEGIN) && md.endsWith(END));
  assert.match(md, /`deno task bench --only startup` started 2026-11-27 10:41 UTC/);
  assert.match(md, /host load 0\.8–1\.2, at most 1 QEMU process running\): 1 of 2 targets met/);
  assert.ok(md.includes("| shell start | 69 ms | < 150 ms | met |"));
  assert.ok(md.includes("| a \\| b | 1.34× | ≤ 1.30× | **missed** |"));
  assert.ok(md.includes("| soak | not run | PASS | n/a |"));
});

Deno.test("unpadded() compares a table as deno fmt pads it with the table as rendered", () => {
  const md = renderTable(run([{ name: "x", target: "< 1", value: "0.5", met: true }]));
  const padded = md.replace("| x | 0.5 | < 1 | met |", "| x      | 0.5      | < 1   | met |")
    .replace("| --- | --- | --- | --- |", "| ------ | -------- | ----- | --- |");
  assert.notEqual(padded, md);
  assert.equal(unpadded(padded), unpadded(md));
  assert.notEqual(unpadded(md.replace("0.5", "0.6")), unpadded(md));
});

Deno.test("findBlock() says which markers to add when README.md has none", () => {
  assert.throws(() => findBlock("# axl\n"), /add the two lines '<!-- bench-targets/);
  assert.throws(() => findBlock(`${END}\n${BEGIN}\n`), /no benchmark block/);
});

Deno.test("docs/verify.md gives the judge's peak RSS on a 1 GB trace that bench/last-run.json measured", async () => {
  const doc = (await Deno.readTextFile(new URL("docs/verify.md", root))).replace(/\s+/g, " ");
  const last = JSON.parse(await Deno.readTextFile(new URL("bench/last-run.json", root)));
  const judge = last.targets.find((t: { name: string }) =>
    t.name === "trace 1000 MB: peak RSS of judge"
  );
  assert.ok(judge, "bench/last-run.json measures the judge's peak RSS");
  const said = /a 1 GB trace is judged in (?:about )?(\d+ MB) of memory/.exec(doc);
  assert.ok(said, "docs/verify.md says how much memory judging a 1 GB trace takes");
  assert.equal(said[1], judge.value);
});
