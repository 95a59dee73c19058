// The library's third-party dependencies, each pinned here and only here. The specifiers
// resolve without the repository's deno.json, so a script anywhere can import mod.ts by
// path; deno.lock records their integrity. The rest of lib/ imports them from this file.
export { z } from "npm:zod@4.6.7";
