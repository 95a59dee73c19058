// A fixture judged after an edit, for tests that ask what the judge says of a capture that
// differs from a real one in one known way.
import type { JudgeOptions } from "../../../lib/verify/judge.ts";
import { judgeArtifacts } from "../../../lib/verify/replay.ts";
import type { VerifyResult } from "../../../lib/verify/schema.ts";

/**
 * The fixture `dir` copied with `record` applied to its capture.json and `edit` to its
 * trace.txt, judged with `options`; the copy removed after. An edited copy is no longer what
 * the capture wrote, so its capture.json loses its integrity record.
 */
export async function judgeEditedCopy(
  dir: string,
  options: JudgeOptions,
  record: (r: Record<string, unknown>) => void,
  edit: (trace: string) => string,
): Promise<VerifyResult> {
  const tmp = await Deno.makeTempDir({ prefix: "axl-edited-fixture-" });
  try {
    for (const e of Deno.readDirSync(dir)) {
      const from = `${dir}/${e.name}`;
      if (e.name === "trace.txt") {
        await Deno.writeTextFile(`${tmp}/${e.name}`, edit(await Deno.readTextFile(from)));
      } else if (e.name === "capture.json") {
        const { integrity: _, ...r } = JSON.parse(await Deno.readTextFile(from));
        record(r);
        await Deno.writeTextFile(`${tmp}/${e.name}`, JSON.stringify(r));
      } else await Deno.copyFile(from, `${tmp}/${e.name}`);
    }
    return await judgeArtifacts(tmp, options);
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
}
