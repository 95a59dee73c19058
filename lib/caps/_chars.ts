// Characters GStreamer accepts in an unquoted string token (GST_ASCII_IS_STRING).
export function isStringChar(c: string | undefined): boolean {
  if (c === undefined) return false;
  const code = c.charCodeAt(0);
  return (code >= 0x30 && code <= 0x39) || (code >= 0x41 && code <= 0x5a) ||
    (code >= 0x61 && code <= 0x7a) || c === "_" || c === "-" || c === "+" || c === "/" ||
    c === ":" || c === ".";
}

export function isSpace(c: string | undefined): boolean {
  return c === " " || c === "\t" || c === "\n" || c === "\r" || c === "\f" || c === "\v";
}
