/**
 * One guest command in the VM rig for a bench section, and the JSON file it wrote into the
 * rig's results directory. The soak and function_graph sections share it.
 *
 * @module
 */

/** How to boot the rig for one bench section. */
export interface GuestRun {
  /** Repository root (the rig runs from it). */
  root: string;
  /** New or empty directory for the rig's results (console log, run.env, the JSON). */
  out: string;
  /** Shell command run in the guest; it writes `$AXL_RESULTS/<json>`. */
  guest: string;
  /** File name of the JSON the guest writes, relative to `out`. */
  json: string;
  /** Rig's time limit in seconds. */
  timeoutS: number;
  /** Extra `scripts/vm/run.sh` options before `--`, e.g. `--vivid`. */
  rigArgs?: string[];
}

/**
 * Boots the rig, runs `guest` and returns the JSON it wrote and the rig's wall time in
 * seconds (from `run.env`). Throws, naming the console log, when the run fails.
 */
export async function runGuestJson<T>(run: GuestRun): Promise<{ value: T; vmWallS: number }> {
  const child = new Deno.Command("bash", {
    args: [
      "scripts/vm/run.sh",
      ...(run.rigArgs ?? []),
      "--results",
      run.out,
      "--timeout",
      String(run.timeoutS),
      "--",
      "bash",
      "-c",
      run.guest,
    ],
    cwd: run.root,
    stdin: "null",
    stdout: "inherit",
    stderr: "inherit",
  }).spawn();
  const status = await child.status;
  if (!status.success) {
    throw new Error(`VM run exited ${status.code} (console log: ${run.out}/console.log)`);
  }
  const value = JSON.parse(await Deno.readTextFile(`${run.out}/${run.json}`)) as T;
  const runEnv = await Deno.readTextFile(`${run.out}/run.env`).catch(() => "");
  return { value, vmWallS: Number(/wall_s=([\d.]+)/.exec(runEnv)?.[1] ?? NaN) };
}
