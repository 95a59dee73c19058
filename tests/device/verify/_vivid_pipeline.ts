// vivid's capture and output nodes for GStreamer pipelines: found by name, never by number,
// and set up so that the output takes what the capture gives.

/** The node of the video4linux device called `name` (e.g. "vivid-000-vid-cap"). */
export function videoNode(name: string): string {
  for (const e of Deno.readDirSync("/sys/class/video4linux")) {
    const n = Deno.readTextFileSync(`/sys/class/video4linux/${e.name}/name`).trim();
    if (n === name) return `/dev/${e.name}`;
  }
  throw new Error(`no video4linux device named ${name} (load vivid: scripts/vm/run.sh --vivid)`);
}

// From <linux/videodev2.h>: _IOWR('V', 47, int) and _IOWR('V', 28, struct v4l2_control).
const VIDIOC_S_OUTPUT = 0xc004562f;
const VIDIOC_S_CTRL = 0xc008561c;
// vivid's own "Colorspace" control (VIVID_CID_VIVID_BASE + 25); menu item 0 is SMPTE 170M.
const VIVID_CID_COLORSPACE = 0x00f0f019;
const VIVID_COLORSPACE_SMPTE170M = 0;

/** One ioctl on `node` that must succeed; `what` names it in the error. */
function ioctl(node: string, request: number, arg: BufferSource, what: string): void {
  const libc = Deno.dlopen("libc.so.6", {
    ioctl: { parameters: ["i32", "u64", "buffer"], result: "i32" },
    open: { parameters: ["buffer", "i32"], result: "i32" },
    close: { parameters: ["i32"], result: "i32" },
  });
  try {
    const fd = libc.symbols.open(new TextEncoder().encode(`${node}\0`), 2 /* O_RDWR */);
    if (fd < 0) throw new Error(`cannot open ${node}`);
    try {
      if (libc.symbols.ioctl(fd, BigInt(request), arg) !== 0) {
        throw new Error(`${what} on ${node} failed`);
      }
    } finally {
      libc.symbols.close(fd);
    }
  } finally {
    libc.close();
  }
}

/**
 * Sets up a vivid capture → output pair; the settings stay with the devices after the files
 * are closed. The output is switched to HDMI (output 1: output 0 is S-Video, which takes
 * interlaced frames only); at a CE timing it accepts SMPTE 170M (bt601) but not the sRGB the
 * webcam input reports by default, so the capture is told to report SMPTE 170M.
 */
export function pairVivid(capture: string, output: string): void {
  ioctl(output, VIDIOC_S_OUTPUT, new Int32Array([1]), "VIDIOC_S_OUTPUT 1 (HDMI)");
  ioctl(
    capture,
    VIDIOC_S_CTRL,
    new Uint32Array([VIVID_CID_COLORSPACE, VIVID_COLORSPACE_SMPTE170M]),
    "VIDIOC_S_CTRL Colorspace = SMPTE 170M",
  );
}
