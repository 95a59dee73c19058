// `axl <command>` with bad options: exit code 3 and a message that names the command,
// what was wrong and where the help is, before anything touches a device or tracefs.
import assert from "node:assert/strict";
import { main } from "../../../tasks/axl.ts";
import { COMMANDS } from "../../../tasks/registry.ts";
import { capture } from "./_capture.ts";

Deno.test("an unknown option exits 3 naming the command, the option and --help", async () => {
  for (const { name } of COMMANDS) {
    const r = await capture(() => main([name, "--bogus"]));
    assert.equal(r.code, 3, name);
    assert.equal(r.out, "", name);
    assert.ok(r.err.startsWith(`axl ${name}: `), r.err);
    assert.match(r.err, /Unknown option '--bogus'/, name);
    assert.ok(r.err.includes(`axl ${name} --help`), r.err);
  }
});

Deno.test("a missing option value exits 3", async () => {
  for (const [name, flag] of [["verify", "--frames"], ["run", "--size"], ["info", "--device"]]) {
    const r = await capture(() => main([name!, flag!]));
    assert.equal(r.code, 3, `${name} ${flag}`);
    assert.match(r.err, new RegExp(`Option '(-\\w, )?${flag} <value>' argument missing`), r.err);
  }
});

Deno.test("commands without arguments reject a positional word with exit 3", async () => {
  for (const name of ["verify", "run", "doctor", "info", "heaps"]) {
    const r = await capture(() => main([name, "extra"]));
    assert.equal(r.code, 3, name);
    assert.match(r.err, /extra/, name);
  }
  const shell = await capture(() => main(["shell", "session.axl"]));
  assert.equal(shell.code, 3);
  assert.match(shell.err, /unexpected 'session\.axl' \(a session file needs -f\)/);
});

Deno.test("run rejects bad values with exit 3 naming the option", async () => {
  const cases: [string[], RegExp][] = [
    [["--frames", "0"], /--frames/],
    [["--frames", "x"], /--frames/],
    [["--mode", "fast"], /--mode must be zero-copy or copy, got 'fast'/],
    [["--size", "big"], /--size must look like 640x480, got 'big'/],
    [["--format", "RGB3"], /--format must be NV12, GREY or YUYV, got 'RGB3'/],
    [["--producer", "argus"], /--producer must be heap or v4l2, got 'argus'/],
  ];
  for (const [args, message] of cases) {
    const r = await capture(() => main(["run", ...args]));
    assert.equal(r.code, 3, args.join(" "));
    assert.ok(r.err.startsWith("axl run: "), r.err);
    assert.match(r.err, message);
    assert.ok(r.err.includes("axl run --help"), r.err);
  }
});

Deno.test("verify rejects bad values with exit 3 naming the option", async () => {
  const cases: [string[], RegExp][] = [
    [["--frames", "0"], /--frames must be an integer >= 1/],
    [["--mode", "fast"], /--mode must be zero-copy or copy, got 'fast'/],
    [["--threshold", "0"], /--threshold must be a percentage in \(0, 100\], got '0'/],
    [["--threshold", "101"], /--threshold must be a percentage in \(0, 100\], got '101'/],
    [["--config", "x", "--pid", "1"], /--config and --pid exclude each other/],
    [["--config", "/nonexistent/axl.json"], /cannot read --config \/nonexistent\/axl\.json/],
    [["--pid", "0"], /--pid must be an integer >= 1/],
    [["--pid", "1", "--duration", "0"], /--duration must be > 0 seconds/],
  ];
  for (const [args, message] of cases) {
    const r = await capture(() => main(["verify", ...args]));
    assert.equal(r.code, 3, args.join(" "));
    assert.ok(r.err.startsWith("axl verify: "), r.err);
    assert.match(r.err, message);
  }
  const cfg = await Deno.makeTempFile({ suffix: ".json" });
  try {
    await Deno.writeTextFile(cfg, JSON.stringify({ command: [] }));
    const r = await capture(() => main(["verify", "--config", cfg]));
    assert.equal(r.code, 3);
    assert.match(r.err, /--config .*: command: /);
  } finally {
    await Deno.remove(cfg);
  }
});

Deno.test("info on a missing device exits 3 with the driver hint", async () => {
  for (
    const args of [["info", "--device", "/nonexistent/axl"], [
      "info",
      "--json",
      "--device",
      "/nonexistent/axl",
    ]]
  ) {
    const r = await capture(() => main(args));
    assert.equal(r.code, 3, args.join(" "));
    assert.equal(r.out, "");
    assert.match(r.err, /^axl info: device\.open\(\/nonexistent\/axl\) failed: ENOENT/);
  }
});

Deno.test("heaps says where the heaps are missing, or lists them; --json gives {dir, heaps}", async () => {
  const r = await capture(() => main(["heaps"]));
  const j = await capture(() => main(["heaps", "--json"]));
  const json = JSON.parse(j.out);
  assert.equal(json.dir, "/dev/dma_heap");
  assert.equal(j.code, json.heaps.length ? 0 : 1);
  if (json.heaps.length) {
    assert.deepEqual([r.code, r.out], [0, json.heaps.join("\n")]);
  } else {
    assert.deepEqual([r.code, r.out], [1, ""]);
    assert.equal(r.err, "no DMA heaps: /dev/dma_heap is missing or empty (CONFIG_DMABUF_HEAPS)");
  }
});

Deno.test("a negative number given to a number option is refused by the option's own check", async () => {
  const cases: [string[], RegExp][] = [
    [["run", "--frames", "-5"], /^axl run: --frames must be an integer >= 1, got '-5'$/m],
    [["run", "-n", "-5"], /^axl run: --frames must be an integer >= 1, got '-5'$/m],
    [["verify", "--frames", "-5"], /^axl verify: --frames must be an integer >= 1, got '-5'$/m],
    [
      ["verify", "--threshold", "-1"],
      /^axl verify: --threshold must be a percentage in \(0, 100\], got '-1'$/m,
    ],
    [
      ["verify", "--threshold", "-.5"],
      /^axl verify: --threshold must be a percentage in \(0, 100\], got '-\.5'$/m,
    ],
  ];
  for (const [args, message] of cases) {
    const r = await capture(() => main(args));
    assert.equal(r.code, 3, args.join(" "));
    assert.match(r.err, message);
    assert.doesNotMatch(r.err, /ambiguous/);
    assert.ok(r.err.endsWith(`Try 'axl ${args[0]} --help'.`), r.err);
  }
});

Deno.test("ls with a bad --pid, --count or --interval names the command once and says where help is", async () => {
  for (
    const [args, message] of [
      [["--pid", "abc"], "--pid must be a whole number, got 'abc'"],
      [["--watch", "--count", "x"], "--count must be a whole number, got 'x'"],
      [["--watch", "--interval", "0"], "--interval takes seconds from 0.05 to 3600, got '0'"],
      [["--count", "3"], "--interval and --count go with --watch"],
    ] as const
  ) {
    const r = await capture(() => main(["ls", ...args]));
    assert.equal(r.code, 3, args.join(" "));
    assert.equal(r.err, `axl ls: ${message}\nTry 'axl ls --help'.`);
  }
});
