// vivid's capture and output nodes for GStreamer pipelines: found by name, never by number,
// and the output switched to one that takes what the capture gives (progressive frames).

/** The node of the video4linux device called `name` (e.g. "vivid-000-vid-cap"). */
export function videoNode(name: string): string {
  for (const e of Deno.readDirSync("/sys/class/video4linux")) {
    const n = Deno.readTextFileSync(`/sys/class/video4linux/${e.name}/name`).trim();
    if (n === name) return `/dev/${e.name}`;
  }
  throw new Error(`no video4linux device named ${name} (load vivid: scripts/vm/run.sh --vivid)`);
}

// From <linux/videodev2.h>: _IOWR('V', 47, int).
const VIDIOC_S_OUTPUT = 0xc004562f;

/**
 * Selects vivid's HDMI output (output 1; output 0 is S-Video, which takes interlaced frames
 * only). The choice stays with the device after the file is closed.
 */
export function selectHdmiOutput(node: string): void {
  const libc = Deno.dlopen("libc.so.6", {
    ioctl: { parameters: ["i32", "u64", "buffer"], result: "i32" },
    open: { parameters: ["buffer", "i32"], result: "i32" },
    close: { parameters: ["i32"], result: "i32" },
  });
  try {
    const fd = libc.symbols.open(new TextEncoder().encode(`${node}\0`), 2 /* O_RDWR */);
    if (fd < 0) throw new Error(`cannot open ${node}`);
    try {
      if (libc.symbols.ioctl(fd, BigInt(VIDIOC_S_OUTPUT), new Int32Array([1])) !== 0) {
        throw new Error(`VIDIOC_S_OUTPUT 1 on ${node} failed`);
      }
    } finally {
      libc.symbols.close(fd);
    }
  } finally {
    libc.close();
  }
}
