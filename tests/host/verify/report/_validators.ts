// The real validators the machine-readable reports are checked with: xmllint against the
// JUnit schema Jenkins publishes (tests/fixtures/junit/), and Prometheus's promtool. Both
// come from Debian (libxml2-utils, prometheus; scripts/setup.sh installs them); without
// them a test fails saying what to install.

const XSD = new URL("../../../fixtures/junit/jenkins-junit.xsd", import.meta.url).pathname;

/** What a validator said: exit code and both streams. */
export interface Checked {
  code: number;
  output: string;
}

async function run(cmd: string, args: string[], stdin: string, pkg: string): Promise<Checked> {
  let child: Deno.ChildProcess;
  try {
    child = new Deno.Command(cmd, { args, stdin: "piped", stdout: "piped", stderr: "piped" })
      .spawn();
  } catch (e) {
    throw new Error(`${cmd} is not installed: apt-get install -y ${pkg} (scripts/setup.sh)`, {
      cause: e,
    });
  }
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(stdin));
  await writer.close();
  const out = await child.output();
  const decode = (b: Uint8Array) => new TextDecoder().decode(b);
  return { code: out.code, output: decode(out.stdout) + decode(out.stderr) };
}

/** `xmllint --schema jenkins-junit.xsd` on `xml`. */
export function validateJunit(xml: string): Promise<Checked> {
  return run("xmllint", ["--noout", "--schema", XSD, "-"], xml, "libxml2-utils");
}

/** `promtool check metrics` on `text` (exit 0: parsed, and no lint problem). */
export function checkMetrics(text: string): Promise<Checked> {
  return run("promtool", ["check", "metrics"], text, "prometheus");
}
