// Kernel config reading: /proc/config.gz first, /boot/config-<release> second.
import assert from "node:assert/strict";
import { gzipSync } from "node:zlib";
import { parseKernelConfig, readKernelConfig } from "../../../lib/doctor/kconfig.ts";
import { systemAt } from "../../../lib/doctor/system.ts";
import { VM } from "./_helpers.ts";

const RELEASE = "6.12.117+deb12-amd64";
const config = Deno.readTextFileSync(`${VM}/boot/config-${RELEASE}`);

Deno.test("parseKernelConfig() reads the captured Debian config, unset options absent", () => {
  const v = parseKernelConfig(config);
  assert.equal(v.get("DMABUF_HEAPS"), "y");
  assert.equal(v.get("DRM_VGEM"), "m");
  assert.equal(v.get("LOCALVERSION"), "");
  assert.equal(v.has("CMA"), false, "'# CONFIG_CMA is not set' means absent");
  assert.ok(v.size > 5000);
});

Deno.test("readKernelConfig() prefers /proc/config.gz and decompresses it", () => {
  const root = Deno.makeTempDirSync({ prefix: "axl-doctor-" });
  try {
    Deno.mkdirSync(`${root}/proc`);
    Deno.mkdirSync(`${root}/boot`);
    const changed = config.replace("# CONFIG_CMA is not set", "CONFIG_CMA=y");
    Deno.writeFileSync(`${root}/proc/config.gz`, gzipSync(new TextEncoder().encode(changed)));
    Deno.writeTextFileSync(`${root}/boot/config-${RELEASE}`, config);
    const got = readKernelConfig(systemAt(root), RELEASE);
    assert.equal(got?.source, "/proc/config.gz");
    assert.equal(got?.values.get("CMA"), "y");
    Deno.removeSync(`${root}/proc/config.gz`);
    const fallback = readKernelConfig(systemAt(root), RELEASE);
    assert.equal(fallback?.source, `/boot/config-${RELEASE}`);
    assert.equal(fallback?.values.has("CMA"), false);
    assert.equal(readKernelConfig(systemAt(root), "6.1.0-other"), undefined);
  } finally {
    Deno.removeSync(root, { recursive: true });
  }
});

Deno.test("systemAt() rejects relative roots and paths with TypeError", () => {
  assert.throws(() => systemAt("fixtures"), TypeError);
  assert.throws(() => systemAt(VM).readText("proc/meminfo"), TypeError);
});
