// A user's own client over Jetson-shaped camera frames: the camera (vivid) captures into buffers
// of the rig's nvmap stand-in (/dev/dma_heap/nvmap-sim, exported as nvmap_dmabuf), each frame's
// own buffer is attached to the Metis node, copied to card memory, detached. With `read` it also
// reads every frame on the CPU (mmap + DMA_BUF_SYNC), which nvmap's events name as CPU touches.
// `axl verify -- deno run … _nvmap_client.ts FRAMES NODE CAMERA [read]`
// (tests/device/verify_nvmap.test.ts).
import { MetisDevice, V4l2Producer } from "../../../mod.ts";

const [frames, node, camera, mode] = [
  Number(Deno.args[0]),
  Deno.args[1],
  Deno.args[2],
  Deno.args[3],
];
if (!(frames > 0) || !node || !camera) {
  console.error("usage: _nvmap_client.ts FRAMES METIS_NODE CAMERA [read]");
  Deno.exit(2);
}
using card = MetisDevice.open(node);
using cam = V4l2Producer.open({ device: camera, heap: "nvmap-sim", width: 640, height: 480 });
let sum = 0;
for (let i = 0; i < frames; i++) {
  const frame = await cam.next();
  try {
    if (mode === "read") {
      using access = frame.buffer.cpuAccess({ read: true });
      for (let j = 0; j < access.bytes.length; j += 4096) sum += access.bytes[j]!;
    }
    card.attach(frame.buffer);
    try {
      await card.transfer({ direction: "to-card", card: 0, size: frame.size });
    } finally {
      card.detach();
    }
  } finally {
    cam.recycle(frame);
  }
}
console.log(
  `${frames} nvmap-sim frames attached and transferred${mode === "read" ? ` (read: ${sum})` : ""}`,
);
