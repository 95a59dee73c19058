// A user's own zero-copy client, as a new user would write it from the README: frames from the
// camera (V4l2Producer), each frame's own buffer attached to the Metis node, copied to card
// memory, detached. `axl verify -- deno run … _metis_user_client.ts FRAMES NODE CAMERA` judges
// it from outside (tests/device/verify_metis_user.test.ts).
import { MetisDevice, V4l2Producer } from "../../../mod.ts";

const [frames, node, camera] = [Number(Deno.args[0]), Deno.args[1], Deno.args[2]];
if (!(frames > 0) || !node || !camera) {
  console.error("usage: _metis_user_client.ts FRAMES METIS_NODE CAMERA");
  Deno.exit(2);
}
using card = MetisDevice.open(node);
using cam = V4l2Producer.open({ device: camera, width: 640, height: 480 });
for (let i = 0; i < frames; i++) {
  const frame = await cam.next();
  try {
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
console.log(`${frames} frames attached and transferred`);
