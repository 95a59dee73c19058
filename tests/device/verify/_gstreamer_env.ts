// GStreamer's environment for the device tests' pipelines.

/**
 * Only the `plugins` a test uses (`libgst<name>.so` of the system's plugin directory), and a
 * registry in a temporary directory: the guest's home is read-only, and scanning every
 * installed plugin for each gst-launch takes a minute under TCG. `element` is inspected once
 * so that a missing plugin fails here, naming the `packages` to install.
 */
export async function gstreamerEnv(
  plugins: string[],
  element: string,
  packages: string,
): Promise<Record<string, string>> {
  const dir = await Deno.makeTempDir({ prefix: "axl-gst-" });
  const system = `/usr/lib/${Deno.build.arch}-linux-gnu/gstreamer-1.0`;
  await Deno.mkdir(`${dir}/plugins`);
  for (const p of plugins) {
    await Deno.symlink(`${system}/libgst${p}.so`, `${dir}/plugins/libgst${p}.so`);
  }
  const env = {
    GST_PLUGIN_SYSTEM_PATH_1_0: `${dir}/plugins`,
    GST_REGISTRY_1_0: `${dir}/registry.bin`,
  };
  const inspect = await new Deno.Command("gst-inspect-1.0", { args: [element], env }).output();
  if (!inspect.success) {
    throw new Error(
      `gst-inspect-1.0 ${element} failed: ${new TextDecoder().decode(inspect.stderr)} ` +
        `(install ${packages})`,
    );
  }
  return env;
}
