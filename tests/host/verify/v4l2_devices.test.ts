import assert from "node:assert/strict";
import { v4l2DevicesOf } from "../../../lib/verify/v4l2_devices.ts";

// A /proc and /sys of one process with vivid's capture node, its output node (both owned by
// vivid.0), a dma-buf and a regular file open: the shapes the VM guest shows.
Deno.test("v4l2DevicesOf() names the device owning each V4L2 node a process has open", async () => {
  const root = await Deno.makeTempDir();
  try {
    const fd = `${root}/proc/42/fd`;
    await Deno.mkdir(fd, { recursive: true });
    await Deno.mkdir(`${root}/sys/devices/platform/vivid.0`, { recursive: true });
    for (const [n, name] of [["video0", "vivid-000-vid-cap"], ["video1", "vivid-000-vid-out"]]) {
      const dir = `${root}/sys/class/video4linux/${n}`;
      await Deno.mkdir(dir, { recursive: true });
      await Deno.writeTextFile(`${dir}/name`, `${name}\n`);
      await Deno.symlink(`${root}/sys/devices/platform/vivid.0`, `${dir}/device`);
    }
    await Deno.symlink("/dev/video0", `${fd}/3`);
    await Deno.symlink("/dev/video1", `${fd}/4`);
    await Deno.symlink("/dev/video0", `${fd}/5`); // the same node twice: listed once
    await Deno.symlink("/dmabuf:", `${fd}/6`);
    await Deno.symlink("/dev/video9", `${fd}/7`); // no sysfs entry: left out
    const refs = v4l2DevicesOf(42, `${root}/proc`, `${root}/sys`).sort((a, b) =>
      a.node.localeCompare(b.node)
    );
    assert.deepEqual(refs, [
      { node: "/dev/video0", name: "vivid-000-vid-cap", device: "vivid.0" },
      { node: "/dev/video1", name: "vivid-000-vid-out", device: "vivid.0" },
    ]);
    assert.deepEqual(v4l2DevicesOf(43, `${root}/proc`, `${root}/sys`), [], "no such process");
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
