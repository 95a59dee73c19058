// What `axl info` prints on its sync line for each driver and kernel.
import assert from "node:assert/strict";
import { infoText } from "../../../lib/commands/info.ts";
import type { DeviceInfo } from "../../../lib/core/device.ts";

const INFO: DeviceInfo = {
  path: "/dev/axl",
  abiVersion: 2,
  driver: "axl",
  engine: "metis-sim",
  device: "0000:00:01.0",
  timeline: "metis-0",
  caps: ["simulated", "implicit-sync"],
  maxImports: 64,
  maxJobs: 32,
  fileImports: 0,
  fileJobs: 0,
  implicitSync: "on",
};

function syncLine(info: DeviceInfo): string {
  return infoText(info).split("\n").find((l) => l.startsWith("sync")) ?? "";
}

Deno.test("infoText() says the driver adds the job's fence to the input too when it reports implicit-sync-input", () => {
  const line = syncLine({ ...INFO, caps: [...INFO.caps, "implicit-sync-input"] });
  assert(line.includes("to its input as a reader's"), line);
  assert(!line.includes("where the kernel allows"), line);
});

Deno.test("infoText() leaves the input's fence to the kernel's import for a driver without implicit-sync-input", () => {
  const line = syncLine(INFO);
  assert(line.includes("to its input where the kernel allows"), line);
});

Deno.test("infoText() says why sync is unavailable whatever the caps say", () => {
  const line = syncLine({
    ...INFO,
    caps: [...INFO.caps, "implicit-sync-input"],
    implicitSync: "unavailable",
  });
  assert(line.includes("unavailable"), line);
});
