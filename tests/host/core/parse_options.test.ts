// Option validation of the device API: zod schemas, errors as TypeError/RangeError,
// and the per-object cache the frame loop relies on.
import assert from "node:assert/strict";
import { ImportOptions, SubmitOptions } from "../../../lib/core/device.ts";
import { parseOptions } from "../../../lib/core/parse_options.ts";

Deno.test("parseOptions() fills defaults and rejects unknown keys and bad values", () => {
  assert.deepEqual(parseOptions(ImportOptions, { width: 64, height: 32 }, "import"), {
    width: 64,
    height: 32,
    format: "NV12",
    stride: 0,
    direction: "to-device",
  });
  assert.throws(
    () => parseOptions(ImportOptions, { width: 64, height: 32, colour: 1 }, "import"),
    TypeError,
  );
  assert.throws(() => parseOptions(ImportOptions, { width: 0, height: 32 }, "import"), RangeError);
  assert.throws(
    () => parseOptions(ImportOptions, { width: 64, height: 32, direction: "up" }, "import"),
    TypeError,
  );
  assert.throws(
    () => parseOptions(SubmitOptions, { result: 3 }, "submit"),
    /result must be a DmaBuf/,
  );
});

Deno.test("parseOptions() validates a reused object once and a rejected object every time", () => {
  const good = { width: 640, height: 480, format: "GREY" as const };
  const first = parseOptions(ImportOptions, good, "import");
  assert.equal(
    parseOptions(ImportOptions, good, "import"),
    first,
    "same parsed object from the cache",
  );
  const bad = { width: -1, height: 480 };
  assert.throws(() => parseOptions(ImportOptions, bad, "import"), RangeError);
  assert.throws(() => parseOptions(ImportOptions, bad, "import"), RangeError);
});

Deno.test("parseOptions() validates a reused object again once it was changed", () => {
  const options = {
    width: 64,
    height: 64,
    format: "NV12" as const,
    planes: [{ offset: 0, pitch: 64 }, { offset: 4096, pitch: 64 }],
  };
  const first = parseOptions(ImportOptions, options, "import");
  options.width = -1;
  assert.throws(() => parseOptions(ImportOptions, options, "import"), RangeError);
  options.width = 128;
  assert.equal(parseOptions(ImportOptions, options, "import").width, 128);
  // deep inside: a plane's pitch
  options.planes[1]!.pitch = -5;
  assert.throws(() => parseOptions(ImportOptions, options, "import"), RangeError);
  options.planes[1]!.pitch = 64;
  options.width = 64;
  assert.deepEqual(parseOptions(ImportOptions, options, "import"), first);
  // a key added after validation is seen too (the schema is strict)
  Object.assign(options, { colour: 1 });
  assert.throws(() => parseOptions(ImportOptions, options, "import"), TypeError);
});

Deno.test("parseOptions() keeps one cache per schema", () => {
  const value = { width: 64, height: 64 };
  parseOptions(ImportOptions, value, "import");
  // The same object is not a valid submit: the import schema's cache must not answer.
  assert.throws(() => parseOptions(SubmitOptions, value, "submit"), TypeError);
});
