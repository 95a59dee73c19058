/**
 * The symbols that count as a CPU copy of frame data for invariant I4. A pattern set, not one
 * name: glibc picks a memcpy variant per CPU at load time (x86_64: `__memmove_avx_unaligned_erms`
 * even with ERMS masked under QEMU; aarch64: `__memcpy_generic`, `__memcpy_simd`,
 * `__memcpy_thunderx2`, …), and the kernel copies through its own routines.
 *
 * Deliberately not counted: `copy_page_range`/`copy_pte_range` (page tables, not data),
 * `clear_page*` (zeroing), `copy_process` (fork). Hardware copies (Tegra VIC, the NPU's DMA)
 * never appear in perf at all.
 *
 * @module
 */

/** One documented family of copy routines. */
export interface CopyRoutinePattern {
  /** Short id, e.g. `glibc-x86_64`. */
  id: string;
  /** Matched against the symbol with any `+0x…` offset and `@plt`/`@@GLIBC…` suffix removed. */
  pattern: RegExp;
  /** Where these come from. */
  note: string;
}

/** The pattern set, in match order. */
export const COPY_ROUTINE_PATTERNS: readonly CopyRoutinePattern[] = [
  {
    id: "glibc-x86_64",
    pattern:
      /^(?:__GI_)?_*(?:mem(?:cpy|move|pcpy)|wmem(?:cpy|move))_(?:avx|avx2|avx512|evex|evex512|sse2|ssse3|erms|fsrm|unaligned|aligned|rtm)\w*$/,
    note: "glibc x86_64 IFUNC variants: __memmove_avx_unaligned_erms, __memcpy_ssse3, …",
  },
  {
    id: "glibc-aarch64",
    pattern:
      /^(?:__GI_)?_*mem(?:cpy|move)_(?:generic|simd|thunderx2?|falkor|a64fx|mops|sve|oryon1|kunpeng|aarch64\w*)$/,
    note: "glibc/arm optimized-routines aarch64 variants: __memcpy_generic, __memcpy_simd, …",
  },
  {
    id: "libc-generic",
    pattern: /^(?:__GI_)?_*(?:memcpy|memmove|mempcpy|bcopy)(?:_chk|_aarch64)?$/,
    note:
      "plain memcpy/memmove/mempcpy (static binaries, musl, the original design's memcpy_aarch64)",
  },
  {
    id: "kernel-user-copy",
    pattern:
      /^(?:_+)?(?:arch_)?(?:raw_)?copy_(?:to|from|in)_user\w*$|^copy_user_\w+$|^rep_movs_alternative$|^__copy_user_\w+$|^_copy_(?:to|from)_iter\w*$|^copy_(?:to|from)_iter\w*$|^copy_page_(?:to|from)_iter\w*$|^copyin$|^copyout$/,
    note: "kernel user copies: _copy_to_user, __arch_copy_from_user, rep_movs_alternative, …",
  },
  {
    id: "kernel-memcpy",
    pattern:
      /^(?:__)?mem(?:cpy|move)(?:_orig|_erms|_toio|_fromio|_flushcache)?$|^__memcpy_(?:toio|fromio)$|^copy_(?:mc_)?(?:user_)?(?:high)?page\w*$|^copy_mc_\w+$|^memcpy_\w+io$/,
    note: "kernel memcpy/memmove, copy_page/copy_highpage, copy_mc_*, memcpy_toio/fromio",
  },
];

/**
 * The normalized symbol perf printed: offset, `@plt` and symbol versions removed.
 *
 * @example
 * ```ts
 * import { normalizeSymbol } from "./copy_routines.ts";
 * console.log(normalizeSymbol("memcpy@plt+0x4")); // "memcpy"
 * ```
 */
export function normalizeSymbol(symbol: string): string {
  return symbol.replace(/\+0x[0-9a-fA-F]+$/, "").replace(/@.*$/, "");
}

/**
 * The pattern a symbol matches, or `undefined` when it is not a copy routine.
 *
 * @example
 * ```ts
 * import { copyRoutine } from "./copy_routines.ts";
 * console.log(copyRoutine("__memmove_avx_unaligned_erms+0x220")?.id); // "glibc-x86_64"
 * console.log(copyRoutine("__memcpy_generic")?.id); // "glibc-aarch64"
 * console.log(copyRoutine("copy_page_range")); // undefined
 * ```
 */
export function copyRoutine(symbol: string): CopyRoutinePattern | undefined {
  if (typeof symbol !== "string") throw new TypeError("copyRoutine(): symbol must be a string");
  const s = normalizeSymbol(symbol);
  if (/^copy_(?:page|pte|pmd|pud|p4d)_range$/.test(s)) return undefined;
  return COPY_ROUTINE_PATTERNS.find((p) => p.pattern.test(s));
}
