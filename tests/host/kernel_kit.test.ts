// scripts/vm/kernel-kit.sh without a kernel build: its packaging step on a tiny fake tree, its
// refusals, its configuration check, and, where the arm64 kits are at hand, its configuration
// step run by the kernel's own kconfig on the kits' kernel tree, which must give back the kits'
// configs.
import assert from "node:assert/strict";
import { join } from "node:path";

const root = decodeURIComponent(new URL("../..", import.meta.url).pathname).replace(/\/$/, "");
const script = `${root}/scripts/vm/kernel-kit.sh`;

/** The kits directory the rig uses: $AXL_KERNEL_KITS, else ../shared/kernels beside the repo. */
const kits = Deno.env.get("AXL_KERNEL_KITS") ?? `${root}/../shared/kernels`;
const FLAVOURS = [["plain", "linux-5.15-arm64"], ["debug", "linux-5.15-arm64-debug"]] as const;
const haveKits = FLAVOURS.every(([, kit]) => exists(`${kits}/${kit}/config`));
if (!haveKits) {
  console.log(`kernel_kit.test.ts: no arm64 kits in ${kits}: the tests against them are ignored`);
}

function exists(path: string): boolean {
  try {
    Deno.statSync(path);
    return true;
  } catch {
    return false;
  }
}

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

async function run(cmd: string, args: string[], cwd = root): Promise<Run> {
  const out = await new Deno.Command(cmd, { args, cwd, stdout: "piped", stderr: "piped" }).output();
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}

const kernelKit = (...args: string[]) => run("bash", [script, "--no-install", ...args]);

/** Writes `files` (path → content; a leading "+x " makes it executable) under `dir`. */
function writeTree(dir: string, files: Record<string, string>): void {
  for (const [path, content] of Object.entries(files)) {
    const full = join(dir, path);
    Deno.mkdirSync(join(full, ".."), { recursive: true });
    const executable = content.startsWith("+x ");
    Deno.writeTextFileSync(full, executable ? content.slice(3) : content);
    if (executable) Deno.chmodSync(full, 0o755);
  }
}

const RELEASE = "5.15.215-axl-jetson-vm";

/** A source tree and a finished O= build, with only the files the packaging step looks at. */
function fakeKernel(dir: string, version = "VERSION = 5\nPATCHLEVEL = 15\nSUBLEVEL = 215\n"): {
  src: string;
  build: string;
} {
  const src = `${dir}/src`, build = `${dir}/build`;
  writeTree(src, {
    "Makefile": version,
    "Kconfig": 'source "arch/$(SRCARCH)/Kconfig"\n',
    "scripts/kconfig/merge_config.sh": "+x #!/bin/sh\n",
    "scripts/Makefile.build": "# build rules\n",
    "scripts/basic/fixdep.c": "int main(void) { return 0; }\n",
    "scripts/dtc/dtc.c": "/* the device-tree compiler */\n",
    "scripts/gcc-plugins/Kconfig": "config GCC_PLUGINS\n",
    "scripts/gcc-plugins/stackleak_plugin.c": "/* a plugin */\n",
    "include/linux/dma-buf.h": "struct dma_buf;\n",
    "arch/arm64/Makefile": "# arm64\n",
    "arch/arm64/Kconfig": "config ARM64\n",
    "arch/arm64/include/asm/io.h": "/* io */\n",
    "drivers/dma-buf/Kconfig": "config DMA_SHARED_BUFFER\n",
    "drivers/dma-buf/Makefile": "obj-y := dma-buf.o\n",
    "drivers/dma-buf/dma-buf.c": "/* not needed for modules */\n",
    "Documentation/Kconfig": "config WARN_MISSING_DOCUMENTS\n",
    "Documentation/Makefile": "# docs build\n",
    "Documentation/dma-buf.rst": "text\n",
    "tools/testing/selftests/Makefile": "# selftests\n",
  });
  writeTree(build, {
    ".config": "CONFIG_ARM64=y\n",
    "Module.symvers": "0x0\tdma_buf_get\tvmlinux\tEXPORT_SYMBOL_GPL\t\n",
    "include/config/kernel.release": `${RELEASE}\n`,
    "include/generated/autoconf.h": "#define CONFIG_ARM64 1\n",
    "arch/arm64/include/generated/asm/cpucaps.h": "/* caps */\n",
    "arch/arm64/boot/Image": "ARM64 kernel image bytes",
    "scripts/basic/fixdep": "+x \x7fELF fixdep",
    "scripts/module.lds": "SECTIONS {}\n",
    "scripts/mod/modpost.o": "object",
    "scripts/mod/notes.txt": "not a tool\n",
    "drivers/dma-buf/dma-buf.o": "object",
  });
  return { src, build };
}

/** The files (not directories) in a tar.xz, sorted. */
async function tarFiles(tarball: string): Promise<string[]> {
  const r = await run("tar", ["-tJf", tarball]);
  assert.equal(r.code, 0, r.stderr);
  return r.stdout.split("\n").filter((p) => p !== "" && !p.endsWith("/")).sort();
}

Deno.test("kernel-kit.sh --package writes a kit from a finished build of a tiny tree", async () => {
  const dir = Deno.makeTempDirSync({ prefix: "axl-kernel-kit-" });
  try {
    const { src, build } = fakeKernel(dir);
    const out = `${dir}/kits`;
    for (const round of [1, 2]) { // the second run replaces the kit it wrote
      const r = await kernelKit("--flavour", "plain", "--out", out, "--package", build, src);
      assert.equal(r.code, 0, `round ${round}: ${r.stderr}`);
    }
    const kit = `${out}/linux-5.15-arm64`;
    assert.deepEqual([...Deno.readDirSync(kit)].map((e) => e.name).sort(), [
      "Image",
      "RELEASE",
      "config",
      "headers.tar.xz",
    ]);
    assert.equal(Deno.readTextFileSync(`${kit}/RELEASE`), `${RELEASE}\n`);
    assert.equal(Deno.readTextFileSync(`${kit}/config`), "CONFIG_ARM64=y\n");
    assert.equal(Deno.readTextFileSync(`${kit}/Image`), "ARM64 kernel image bytes");
    const tree = `linux-headers-${RELEASE}`;
    assert.deepEqual(
      await tarFiles(`${kit}/headers.tar.xz`),
      [
        // from the build: configuration, generated headers, symbols, host tools
        ".config",
        "Module.symvers",
        "arch/arm64/include/generated/asm/cpucaps.h",
        "include/config/kernel.release",
        "include/generated/autoconf.h",
        "scripts/basic/fixdep",
        "scripts/mod/modpost.o",
        "scripts/module.lds",
        // from the source: build files, Kconfig everywhere, headers, scripts
        "Documentation/Kconfig",
        "Kconfig",
        "Makefile",
        "arch/arm64/Kconfig",
        "arch/arm64/Makefile",
        "arch/arm64/include/asm/io.h",
        "drivers/dma-buf/Kconfig",
        "drivers/dma-buf/Makefile",
        "include/linux/dma-buf.h",
        "scripts/Makefile.build",
        "scripts/basic/fixdep.c",
        "scripts/gcc-plugins/Kconfig",
        "scripts/kconfig/merge_config.sh",
      ].map((p) => `${tree}/${p}`).sort(),
    );
    // The host tool stays executable in the tarball, as make will run it.
    const listing = await run("tar", [
      "-tvJf",
      `${kit}/headers.tar.xz`,
      `${tree}/scripts/basic/fixdep`,
    ]);
    assert.match(listing.stdout, /^-rwx/);
    assert.equal(exists(`${kit}.new`), false);
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("kernel-kit.sh refuses another kernel version, a non-tree, a configured tree and an unfinished build", async () => {
  const dir = Deno.makeTempDirSync({ prefix: "axl-kernel-kit-" });
  try {
    const other = fakeKernel(`${dir}/other`, "VERSION = 6\nPATCHLEVEL = 12\nSUBLEVEL = 0\n");
    let r = await kernelKit("--config-only", "--out", `${dir}/kits`, other.src);
    assert.equal(r.code, 3);
    assert.match(
      r.stderr,
      /is Linux 6\.12\.0; the kits are Linux 5\.15.*linux-5\.15\.y stable tree/s,
    );

    Deno.mkdirSync(`${dir}/empty`);
    r = await kernelKit("--config-only", "--out", `${dir}/kits`, `${dir}/empty`);
    assert.equal(r.code, 3);
    assert.match(r.stderr, /is not a Linux source tree .*merge_config\.sh/s);

    const configured = fakeKernel(`${dir}/configured`);
    Deno.writeTextFileSync(`${configured.src}/.config`, "CONFIG_ARM64=y\n");
    r = await kernelKit(
      "--config-only",
      "--out",
      `${dir}/kits`,
      "--build",
      `${dir}/b`,
      configured.src,
    );
    assert.equal(r.code, 3);
    assert.match(r.stderr, /has been configured in place.*make mrproper/s);
    assert.equal(exists(`${dir}/b`), false, "nothing built before the refusal");

    const unfinished = fakeKernel(`${dir}/unfinished`);
    Deno.removeSync(`${unfinished.build}/arch/arm64/boot/Image`);
    r = await kernelKit(
      "--flavour",
      "plain",
      "--out",
      `${dir}/kits`,
      "--package",
      unfinished.build,
      unfinished.src,
    );
    assert.equal(r.code, 3);
    assert.match(r.stderr, /arch\/arm64\/boot\/Image is missing: the build did not finish/);
    Deno.removeSync(`${unfinished.build}/include/config/kernel.release`);
    r = await kernelKit(
      "--flavour",
      "plain",
      "--out",
      `${dir}/kits`,
      "--package",
      unfinished.build,
      unfinished.src,
    );
    assert.equal(r.code, 3);
    assert.match(r.stderr, /has no include\/config\/kernel\.release/);
    assert.equal(exists(`${dir}/kits/linux-5.15-arm64`), false, "no kit from an unfinished build");

    r = await kernelKit("--package", unfinished.build, unfinished.src);
    assert.equal(r.code, 3);
    assert.match(r.stderr, /take one flavour/);
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

/** A .config that has exactly what the plain fragment asks for, in the kernel's own syntax. */
function configOf(fragment: string, drop: string[] = []): string {
  return fragment.split("\n")
    .filter((line) => /^CONFIG_/.test(line) && !drop.some((name) => line.startsWith(`${name}=`)))
    .map((line) => line.endsWith("=n") ? `# ${line.slice(0, -2)} is not set` : line)
    .join("\n") + "\n";
}

Deno.test("kernel-kit.sh --check names each option a fragment asks for that the config lacks", async () => {
  const dir = Deno.makeTempDirSync({ prefix: "axl-kernel-kit-" });
  try {
    const fragment = Deno.readTextFileSync(`${root}/scripts/vm/kit/jetson-vm.config`);
    Deno.writeTextFileSync(`${dir}/full`, configOf(fragment));
    let r = await kernelKit("--flavour", "plain", "--check", `${dir}/full`);
    assert.equal(r.code, 0, r.stderr);

    // KPROBE_EVENTS missing, COMPAT on although the fragment turns it off.
    Deno.writeTextFileSync(
      `${dir}/partial`,
      configOf(fragment, ["CONFIG_KPROBE_EVENTS"]) + "CONFIG_COMPAT=y\n",
    );
    r = await kernelKit("--flavour", "plain", "--check", `${dir}/partial`);
    assert.equal(r.code, 1);
    assert.deepEqual(r.stderr.trim().split("\n").slice(1), [
      "CONFIG_COMPAT: asked for not set, got y",
      "CONFIG_KPROBE_EVENTS: asked for y, got not set",
    ]);

    // The debug flavour adds its own fragment on top.
    r = await kernelKit("--flavour", "debug", "--check", `${dir}/full`);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /CONFIG_KASAN: asked for y, got not set/);
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test({
  name: "kernel-kit.sh --check passes the arm64 kits' configs against the fragments",
  ignore: !haveKits,
  fn: async () => {
    for (const [flavour, kit] of FLAVOURS) {
      const r = await kernelKit("--flavour", flavour, "--check", `${kits}/${kit}/config`);
      assert.equal(r.code, 0, `${kit}: ${r.stderr}`);
    }
  },
});

/** The CONFIG_ lines of a .config (set and not set), sorted. */
function configLines(text: string): string[] {
  return text.split("\n").filter((l) => /^(# )?CONFIG_/.test(l)).sort();
}

Deno.test({
  name: "kernel-kit.sh --config-only gives back the kits' configs from the kits' own kernel tree",
  ignore: !haveKits,
  fn: async () => {
    const dir = Deno.makeTempDirSync({ prefix: "axl-kernel-kit-" });
    try {
      // The kit's external-module tree has the kernel's Kconfig files, Makefiles and kconfig
      // sources: enough for allnoconfig, merge_config.sh and olddefconfig. Symlinked, less
      // what configured it in place; the two Kconfig files its packaging left out (the GCC
      // plugins' and the documentation's) stand in empty.
      const unpack = await run("bash", [
        "-c",
        'source scripts/vm/lib.sh && vm_kit_tree "$1"',
        "_",
        `${kits}/linux-5.15-arm64-debug`,
      ]);
      assert.equal(unpack.code, 0, unpack.stderr);
      const tree = `${dir}/src`;
      const copy = await run("cp", ["-as", unpack.stdout.trim(), tree]);
      assert.equal(copy.code, 0, copy.stderr);
      for (
        const p of [
          ".config",
          "Module.symvers",
          "include/config",
          "include/generated",
          "arch/arm64/include/generated",
        ]
      ) {
        Deno.removeSync(`${tree}/${p}`, { recursive: true });
      }
      const stubbed: string[] = [];
      for (const p of ["scripts/gcc-plugins/Kconfig", "Documentation/Kconfig"]) {
        if (exists(`${tree}/${p}`)) continue;
        writeTree(tree, { [p]: "" });
        stubbed.push(p);
      }
      // Configures the flavours asked for (all without any) from the tree into dir/kits.
      const configure = (...flavour: string[]) =>
        kernelKit(
          ...flavour,
          "--config-only",
          "--out",
          `${dir}/kits`,
          "--build",
          `${dir}/build`,
          tree,
        );
      const r = await configure();
      assert.equal(r.code, 0, r.stderr);
      // Only an empty gcc-plugins Kconfig changes the result: it defines HAVE_GCC_PLUGINS.
      const ignored = stubbed.includes("scripts/gcc-plugins/Kconfig")
        ? ["CONFIG_HAVE_GCC_PLUGINS=y"]
        : [];
      for (const [, kit] of FLAVOURS) {
        const want = configLines(Deno.readTextFileSync(`${kits}/${kit}/config`)).filter((l) =>
          !ignored.includes(l)
        );
        assert.deepEqual(
          configLines(Deno.readTextFileSync(`${dir}/kits/${kit}/config`)),
          want,
          kit,
        );
      }

      // The fault flavour, configured on the same 5.15 tree: the debug kit's config with the
      // kernel's fault injection and kmemleak (scripts/vm/kit/fault.config) added, and nothing
      // else changed. No fault kit is built; this shows that the fragment takes on 5.15 arm64.
      const fault = await configure("--flavour", "fault");
      assert.equal(fault.code, 0, fault.stderr);
      const off = [
        "# CONFIG_DEBUG_KMEMLEAK is not set",
        "# CONFIG_FAULT_INJECTION is not set",
        "# CONFIG_FUNCTION_ERROR_INJECTION is not set",
      ];
      const on = [
        "# CONFIG_DEBUG_KMEMLEAK_AUTO_SCAN is not set",
        "# CONFIG_DEBUG_KMEMLEAK_DEFAULT_OFF is not set",
        "# CONFIG_DEBUG_KMEMLEAK_TEST is not set",
        "# CONFIG_FAIL_FUTEX is not set",
        "# CONFIG_FAIL_IO_TIMEOUT is not set",
        "# CONFIG_FAIL_MAKE_REQUEST is not set",
        "# CONFIG_FAULT_INJECTION_USERCOPY is not set",
        "CONFIG_DEBUG_KMEMLEAK=y",
        "CONFIG_DEBUG_KMEMLEAK_MEM_POOL_SIZE=16000",
        "CONFIG_FAILSLAB=y",
        "CONFIG_FAIL_FUNCTION=y",
        "CONFIG_FAIL_PAGE_ALLOC=y",
        "CONFIG_FAULT_INJECTION=y",
        "CONFIG_FAULT_INJECTION_DEBUG_FS=y",
        "CONFIG_FAULT_INJECTION_STACKTRACE_FILTER=y",
        "CONFIG_FUNCTION_ERROR_INJECTION=y",
      ];
      const debug = configLines(
        Deno.readTextFileSync(`${kits}/linux-5.15-arm64-debug/config`),
      ).filter((l) => !ignored.includes(l) && !off.includes(l));
      assert.deepEqual(
        configLines(Deno.readTextFileSync(`${dir}/kits/linux-5.15-arm64-fault/config`)),
        [...debug, ...on].sort(),
      );
    } finally {
      Deno.removeSync(dir, { recursive: true });
    }
  },
});
