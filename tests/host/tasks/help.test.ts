// `axl <command> --help`: every flag, default and exit code each command's help
// documents, pinned so that deriving help from the command specs loses nothing.
import assert from "node:assert/strict";
import { main, usage } from "../../../tasks/axl.ts";
import { COMMANDS } from "../../../tasks/registry.ts";
import { DEFAULT_EXPECTATIONS } from "../../../lib/doctor/mod.ts";
import { DEFAULT_ACCEPTED_EXPORTERS } from "../../../lib/verify/judge.ts";
import denoJson from "../../../deno.json" with { type: "json" };
import { capture, flat } from "./_capture.ts";

interface HelpFacts {
  /** Flags the help names (long, and short where the command has one). */
  flags: string[];
  /** Phrases that must stay (compared with whitespace runs collapsed). */
  facts: string[];
}

const HELP: Record<string, HelpFacts> = {
  verify: {
    flags: [
      "--accept-exporter",
      "--artifacts",
      "--buffer-kb",
      "--bufinfo-interval",
      "--camera",
      "--config",
      "--device",
      "--duration",
      "--evidence",
      "--frames",
      "--importer",
      "--json",
      "--junit",
      "--metrics",
      "--mode",
      "--no-graph",
      "--no-perf",
      "--no-probes",
      "--no-process-probes",
      "--no-stream",
      "--pid",
      "--producer",
      "--threshold",
    ],
    facts: [
      "axl verify",
      "I1 a frame buffer was shared by two devices during the run",
      "I2 its exporter is in the accepted set",
      "I3 imports equal frames submitted and releases balance",
      "I4 no CPU copy routine at or above the threshold",
      "tracefs is restored afterwards",
      '{"command": [argv...], "frames": N, "acceptExporters": [...]}',
      "axl verify [options] [-- COMMAND...]",
      "default 60",
      "-- COMMAND...  run a command, e.g. a GStreamer pipeline",
      "a process already running, until it exits, for --duration",
      "default artifacts/verify",
      "default 20",
      "(default 1)",
      "zero-copy",
      "negative control",
      "auto",
      "v4l2",
      "heap",
      "$AXL_DEVICE or /dev/axl",
      DEFAULT_ACCEPTED_EXPORTERS.join(", "),
      "I4 is then SKIP",
      "trace.txt",
      "per_cpu_stats.txt",
      "bufinfo_samples.txt",
      "perf.script",
      "capture.json",
      "result.json",
      "ui.perfetto.dev",
      "report.html",
      "0 PASS",
      "1 FAIL",
      "2 INCONCLUSIVE or SKIP",
      "3 could not run",
    ],
  },
  run: {
    flags: [
      "--camera",
      "--device",
      "--format",
      "--frames",
      "--heap",
      "--json",
      "--mode",
      "--producer",
      "--quiet",
      "--size",
      "--timeout-ms",
    ],
    facts: [
      "axl run",
      "AXL_IOCTL_IMPORT_FD",
      "fence's signal time minus the driver's submit time",
      "default 30",
      "default system",
      "NV12, GREY or YUYV (heap producer) (default NV12)",
      "default 640x480",
      "default 2000",
      "first capture device",
      "$AXL_DEVICE or /dev/axl",
      "no per-frame lines",
      "0 every frame completed with a correct result",
      "1 a frame failed or a result did not match",
      "3 could not run",
      "Ctrl-C stops after the current frame and still releases everything",
    ],
  },
  shell: {
    flags: [
      "-f",
      "--file",
      "-k",
      "--keep-going",
      "--json",
      "--device",
      "--heap",
      "--no-history",
      "--no-echo",
    ],
    facts: [
      "axl shell",
      "top-level await",
      "${XDG_STATE_HOME:-~/.local/state}/axl/history",
      "Ctrl-D or 'exit' releases everything",
      "'axl> input'",
      "({n, line, input, kind, ok, code, names, value | error})",
      '{"kind":"end", ...}',
      "default system",
      "0 ok",
      "1 an input failed",
      "2 inconclusive",
      "3 could not run",
      "130 interrupted",
    ],
  },
  doctor: {
    flags: ["--json", "--device", "--root", "--cma-mib", "--link-gts", "--link-width"],
    facts: [
      "axl doctor",
      "OK, WARN or FAIL",
      "DMABUF_SYSFS_STATS",
      "Metis 1f9d:1100",
      "--allow-all",
      "tests/fixtures/doctor/capture.sh",
      "{release, arch, root, counts, checks: [...]}",
      "$AXL_DEVICE or /dev/axl",
      `default ${DEFAULT_EXPECTATIONS.cmaMiB}`,
      `default ${DEFAULT_EXPECTATIONS.linkGTs}`,
      `default ${DEFAULT_EXPECTATIONS.linkWidth}`,
      "0 no FAIL (WARNs allowed)",
      "1 at least one FAIL",
      "3 bad usage",
    ],
  },
  reset: {
    flags: ["--json"],
    facts: [
      "axl reset",
      "/run/axl/ (or $AXL_STATE_DIR)",
      "with its pid and start time",
      "Files of runs still going are left alone.",
      "0 nothing was left, or everything left was put back",
      "1 a change could not be undone",
      "3 bad usage, or the state directory cannot be read or locked",
    ],
  },
  info: {
    flags: ["--device", "--json"],
    facts: [
      "axl info",
      "$AXL_DEVICE or /dev/axl",
      "ABI version",
      "per-file limits",
      "0 ok",
      "3 the device could not be opened",
    ],
  },
  ls: {
    flags: ["--all", "-a", "--pid", "--watch", "-w", "--interval", "--count", "--json"],
    facts: [
      "axl ls --watch [--interval S] [--count N] [--json]",
      "one JSON object per refresh (NDJSON)",
      "Ctrl-C ends the view, puts the terminal back and exits 0",
      "0 ok (also after Ctrl-C ends --watch)",
      "3 bad usage",
    ],
  },
  heaps: {
    flags: ["--json"],
    facts: [
      "axl heaps",
      "/dev/dma_heap",
      "'linux,cma' (CONFIG_DMABUF_HEAPS_CMA)",
      "0 at least one heap",
      "1 none (CONFIG_DMABUF_HEAPS is off",
    ],
  },
  caps: {
    flags: [
      "-p",
      "--pipeline",
      "-f",
      "--filter",
      "-d",
      "--inspect-dir",
      "--no-gst-inspect",
      "-m",
      "--require-memory",
      "--launch",
      "--json",
      "-v",
      "--verbose",
      "-h",
      "--help",
    ],
    facts: [
      "axl caps",
      "<upstream> <downstream>",
      '--pipeline "<gst-launch-1.0 description>"',
      "memory:NVMM",
      "gst-inspect-1.0 nvvidconv > nvvidconv.txt",
      "(repeatable)",
      "0 every link negotiates",
      "1 a link does not negotiate, misses the required memory, or --launch disagrees",
      "2 --launch was inconclusive",
      "3 cannot run",
    ],
  },
};

Deno.test("axl --help lists every command in order, with the exit codes", async () => {
  const r = await capture(() => main(["--help"]));
  assert.equal(r.code, 0);
  assert.equal(r.out, usage());
  assert.equal(
    r.out,
    [
      `axl ${denoJson.version}: drive and verify the zero-copy camera → NPU frame path`,
      "",
      "Usage: axl <command> [options]      axl <command> --help for its options",
      "       axl                          the device shell",
      "",
      "Commands:",
      "  verify  prove the zero-copy frame path (I1–I4) with ftrace, bufinfo and perf",
      "  run     run the builtin frame workload against the NPU and report latency",
      "  shell   the device shell: commands and JavaScript, interactive or from a session file",
      "  doctor  check kernel config, heaps, CMA, tracing, perf, the NPU link and the driver ABI",
      "  reset   put back the tracefs state a killed verify left behind",
      "  info    show the NPU driver's ABI, engine, attach device and limits",
      "  ls      list dma-bufs: attached devices (bufinfo), fd refs and map refs",
      "  heaps   list the DMA heaps under /dev/dma_heap",
      "  caps    explain whether GStreamer caps negotiate, in which memory, and why not",
      "",
      "Exit codes: 0 ok, 1 failed, 2 inconclusive or skipped, 3 could not run (bad usage, no",
      "device, tool or permission), 130 interrupted. The same in the shell (docs/outputs.md).",
    ].join("\n"),
  );
  for (const args of [["-h"], ["help"]]) {
    assert.equal((await capture(() => main(args))).out, r.out);
  }
});

Deno.test("axl --version prints the version; an unknown command exits 3 with the list", async () => {
  const v = await capture(() => main(["--version"]));
  assert.deepEqual([v.code, v.out], [0, `axl ${denoJson.version}`]);
  const u = await capture(() => main(["bogus"]));
  assert.equal(u.code, 3);
  assert.ok(u.err.startsWith("axl: unknown command 'bogus'\n\n"), u.err);
  assert.ok(u.err.endsWith(usage()));
});

Deno.test("every command's --help keeps its flags, defaults and exit codes", async () => {
  assert.deepEqual(COMMANDS.map((c) => c.name).sort(), Object.keys(HELP).sort());
  for (const command of COMMANDS) {
    const facts = HELP[command.name]!;
    for (const flag of ["--help", "-h"]) {
      const r = await capture(() => main([command.name, flag]));
      assert.equal(r.code, 0, `${command.name} ${flag}`);
      assert.equal(r.out, command.help);
    }
    const words = new Set(command.help.match(/(?<![\w-])--?[a-z][a-z-]*/g));
    for (const flag of facts.flags) assert.ok(words.has(flag), `${command.name}: ${flag}`);
    const text = flat(command.help);
    for (const fact of facts.facts) {
      assert.ok(text.includes(flat(fact)), `${command.name} --help lost: ${fact}`);
    }
    assert.ok(command.summary.length > 0 && !command.summary.includes("\n"));
  }
});
