// A Deno cache that holds an npm package but not its registry metadata (registry.json)
// made every axl run fetch the metadata again and print "Download https://…/zod" on
// stderr, also offline. scripts/axl and scripts/task keep the metadata once
// (scripts/npm-metadata.sh): a cached run is silent. A local registry stands in for npm.
import assert from "node:assert/strict";
import { cp } from "node:fs/promises";

const root = new URL("../../../", import.meta.url).pathname;
const text = new TextDecoder();

/** Where this machine's Deno keeps npm packages (the repo's own runs have cached zod). */
async function npmCache(): Promise<string> {
  const out = await new Deno.Command(Deno.execPath(), { args: ["info", "--json"] }).output();
  return JSON.parse(text.decode(out.stdout)).npmCache;
}

Deno.test("scripts/axl on a cache without npm metadata fetches it once and then runs silently", async () => {
  const lock = JSON.parse(await Deno.readTextFile(`${root}deno.lock`));
  const [pinned, { integrity }] = Object.entries(lock.npm)[0] as [string, { integrity: string }];
  const at = pinned.lastIndexOf("@");
  const [name, version] = [pinned.slice(0, at), pinned.slice(at + 1)];
  const fetched: string[] = [];
  await using server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (req) => {
    const path = new URL(req.url).pathname;
    fetched.push(path);
    if (path !== `/${name}`) return new Response("not here", { status: 404 });
    const tarball = `http://${req.headers.get("host")}/${name}/-/${name}-${version}.tgz`;
    return Response.json({
      name,
      "dist-tags": { latest: version },
      versions: { [version]: { name, version, dist: { tarball, integrity } } },
    });
  });
  const registry = `localhost_${server.addr.port}`; // how Deno names a registry with a port
  const denoDir = await Deno.makeTempDir({ prefix: "axl-deno-dir-" });
  try {
    // The package is cached, its metadata is not.
    await cp(
      `${await npmCache()}/registry.npmjs.org/${name}/${version}`,
      `${denoDir}/npm/${registry}/${name}/${version}`,
      {
        recursive: true,
      },
    );
    const env = Deno.env.toObject();
    for (const k of ["INIT_CWD", "HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"]) {
      delete env[k];
    }
    const axl = () =>
      new Deno.Command(`${root}scripts/axl`, {
        args: ["ls", "--pid", "abc"],
        cwd: denoDir,
        clearEnv: true,
        env: {
          ...env,
          NO_COLOR: "1",
          DENO_DIR: denoDir,
          AXL_DENO: Deno.execPath(),
          NPM_CONFIG_REGISTRY: `http://localhost:${server.addr.port}/`,
        },
        stdin: "null",
      }).output();
    for (const run of [1, 2]) {
      const out = await axl();
      const stderr = text.decode(out.stderr);
      assert.equal(out.code, 3, stderr);
      assert.equal(
        stderr,
        "axl ls: --pid must be a whole number, got 'abc'\nTry 'axl ls --help'.\n",
        `run ${run}`,
      );
    }
    await Deno.stat(`${denoDir}/npm/${registry}/${name}/registry.json`);
    assert.deepEqual(fetched, [`/${name}`], "the metadata is fetched once, the package never");
  } finally {
    await Deno.remove(denoDir, { recursive: true });
  }
});
