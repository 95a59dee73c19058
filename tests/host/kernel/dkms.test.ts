// Deployment metadata that must agree: the DKMS package version and the axl version.
import assert from "node:assert/strict";
import denoJson from "../../../deno.json" with { type: "json" };

const conf = Deno.readTextFileSync(new URL("../../../kernel/dkms.conf", import.meta.url));

Deno.test("kernel/dkms.conf packages axl.ko as 'axl' at deno.json's version", () => {
  const field = (name: string) => new RegExp(`^${name}="?([^"\\n]*)"?$`, "m").exec(conf)?.[1];
  assert.equal(field("PACKAGE_NAME"), "axl");
  assert.equal(field("PACKAGE_VERSION"), denoJson.version);
  assert.equal(field("BUILT_MODULE_NAME\\[0\\]"), "axl");
});
