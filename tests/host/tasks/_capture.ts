// Private: runs a CLI entry with console.log/error captured.

/** What a command printed and the exit code it resolved to. */
export interface Captured {
  code: number;
  out: string;
  err: string;
}

/** Runs `fn` with console.log and console.error captured. */
export async function capture(fn: () => Promise<number>): Promise<Captured> {
  const out: string[] = [];
  const err: string[] = [];
  const log = console.log, error = console.error;
  console.log = (...a: unknown[]) => void out.push(a.join(" "));
  console.error = (...a: unknown[]) => void err.push(a.join(" "));
  try {
    const code = await fn();
    return { code, out: out.join("\n"), err: err.join("\n") };
  } finally {
    console.log = log;
    console.error = error;
  }
}

/** `text` with every run of whitespace one space, so re-wrapped help compares equal. */
export function flat(text: string): string {
  return text.replace(/\s+/g, " ");
}
