// vivid's capture and output nodes for GStreamer pipelines: found by name, never by number,
// and the output set up so it takes what the capture gives (progressive sRGB frames).

/** The node of the video4linux device called `name` (e.g. "vivid-000-vid-cap"). */
export function videoNode(name: string): string {
  for (const e of Deno.readDirSync("/sys/class/video4linux")) {
    const n = Deno.readTextFileSync(`/sys/class/video4linux/${e.name}/name`).trim();
    if (n === name) return `/dev/${e.name}`;
  }
  throw new Error(`no video4linux device named ${name} (load vivid: scripts/vm/run.sh --vivid)`);
}

// From <linux/videodev2.h>: _IOWR('V', 47, int), _IOWR('V', 28, struct v4l2_control),
// V4L2_CID_DV_TX_MODE (V4L2_CID_DV_CLASS_BASE + 4) and V4L2_DV_TX_MODE_DVI_D.
const VIDIOC_S_OUTPUT = 0xc004562f;
const VIDIOC_S_CTRL = 0xc008561c;
const V4L2_CID_DV_TX_MODE = 0x00a00904;
const V4L2_DV_TX_MODE_DVI_D = 0;

/**
 * Selects vivid's HDMI output (output 1; output 0 is S-Video, which takes interlaced
 * frames only) in DVI-D mode, where vivid keeps sRGB colorimetry instead of forcing BT.709:
 * then the output accepts the capture's 640x360 YUY2 frames as they are. Both settings stay
 * with the device after the file is closed.
 */
export function setUpVividOutput(node: string): void {
  const libc = Deno.dlopen("libc.so.6", {
    ioctl: { parameters: ["i32", "u64", "buffer"], result: "i32" },
    open: { parameters: ["buffer", "i32"], result: "i32" },
    close: { parameters: ["i32"], result: "i32" },
  });
  try {
    const fd = libc.symbols.open(new TextEncoder().encode(`${node}\0`), 2 /* O_RDWR */);
    if (fd < 0) throw new Error(`cannot open ${node}`);
    try {
      const output = new Int32Array([1]);
      if (libc.symbols.ioctl(fd, BigInt(VIDIOC_S_OUTPUT), output) !== 0) {
        throw new Error(`VIDIOC_S_OUTPUT 1 on ${node} failed`);
      }
      const ctrl = new Uint32Array([V4L2_CID_DV_TX_MODE, V4L2_DV_TX_MODE_DVI_D]);
      if (libc.symbols.ioctl(fd, BigInt(VIDIOC_S_CTRL), ctrl) !== 0) {
        throw new Error(`VIDIOC_S_CTRL DV_TX_MODE on ${node} failed`);
      }
    } finally {
      libc.symbols.close(fd);
    }
  } finally {
    libc.close();
  }
}
