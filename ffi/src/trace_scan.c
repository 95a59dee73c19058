// SPDX-License-Identifier: MIT
/*
 * The trace scanner in C: reads a chunk of ftrace text (function_graph or event lines) and
 * hands TypeScript only what the trace fold needs.
 *
 * - function_graph call lines ("f() {", "f();") are recognised from their call column, as
 *   callColumn() of lib/trace/parse/_ftrace_scan.ts does, and counted per function in the
 *   caller's state buffer; only the first call of each function is reported, so that the
 *   fold creates its counters in line order. Exits ("}") are skipped.
 * - event lines and function_graph "/ * name: body * /" comments that scanInto() of that file
 *   would read are reported as an event record: name, time, pid and the key=value spans.
 * - blank lines and separator rules are skipped.
 * - every other line (headers, markers, lost events, context switches, anything unusual or
 *   not ASCII) is reported as a line for the TypeScript parser to decide.
 *
 * This file mirrors the TypeScript scanner rule for rule; where it cannot be sure of giving
 * the same answer (a number too big for a double, too many fields, bytes past the line's end)
 * it reports the line as "other" instead. The text is untrusted: each line is copied
 * between zero bytes and read through at(), and no scan looks further than those (a build
 * with AXL_TRACE_SCAN_CHECKED defined aborts on a read outside them); a line longer than the
 * copy goes to the TypeScript parser whole. Where SSE2 is there (x86_64), event fields, event
 * and function names and a remembered timestamp are classified sixteen bytes at a time
 * instead (loads that stay within the line, or the fields' end and its padding, not through
 * at()), with the same answers; elsewhere they are read a byte at a time.
 */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "axl_shim.h"
#include "trace_join.h"

#define SPACE ' '
#define NS_EXACT_LIMIT (1ULL << 53) /* integers a double holds exactly */

enum { C_PRINTABLE = 1, C_DIGIT = 2, C_KEY_START = 4, C_KEY = 8, C_FUNC = 16, C_NAME = 32 };

/*
 * The line being scanned, copied into the scanner's line buffer: bytes u[a..b), with
 * LINE_PAD zero bytes on either side, so that the reads around the line (every scan looks
 * at most a few bytes past its ends) need no bounds check. A zero byte answers every
 * class test as the line's terminator would. Index i of the copy is byte i + off of the
 * text the line came from.
 */
struct line {
	const uint8_t *u;
	long a, b, off;
};

/* Zero bytes before and after a copied line; lines longer than LINE_MAX are not copied. */
#define LINE_PAD 16
#define LINE_MAX 4096
/* Bytes of a function_graph line before its comment that scan_graph() remembers. */
#define GRAPH_MEMO_MAX 128
/* Lines remembered. */
#define GRAPH_MEMOS 4

/* A byte of the line or of its zero padding: this is read for every byte of a trace. */
static inline int at(const struct line *l, long i)
{
#ifdef AXL_TRACE_SCAN_CHECKED
	/* Every read stays within the padding: a checked build says so. */
	if (i < l->a - LINE_PAD || i >= l->b + LINE_PAD)
		abort();
#endif
	return l->u[i];
}

/* Character classes of bytes, filled once (a table read per character). */
static uint8_t classes[256];

static void fill_classes(void)
{
	for (int c = 33; c <= 126; c++) {
		uint8_t k = C_PRINTABLE;

		if (c >= '0' && c <= '9')
			k |= C_DIGIT | C_KEY | C_FUNC;
		if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_')
			k |= C_KEY_START | C_KEY | C_FUNC;
		if (c == '.')
			k |= C_KEY | C_FUNC;
		if (c == '$')
			k |= C_FUNC;
		if (c != ':')
			k |= C_NAME; /* an event name's: printable, not ':' */
		classes[c] = k;
	}
}

static inline int cls(int c)
{
	return classes[c];
}

static inline int printable(int c) { return cls(c) & C_PRINTABLE; }
static inline int digit(int c) { return c >= '0' && c <= '9'; }
static inline int func_char(int c) { return cls(c) & C_FUNC; }
/* A character a regular expression might take for whitespace. */
static inline int odd(int c) { return c != SPACE && !printable(c); }
static int duration_mark(int c)
{
	return c == '!' || c == '#' || c == '*' || c == '@' || c == '$' || c == '+';
}

/* Eight spaces, as a word. */
#define SPACES 0x2020202020202020ULL

static inline long skip_spaces(const struct line *l, long i, long b)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	/* A word at a time: function_graph lines are mostly runs of spaces. */
	for (; i + 8 <= b; i += 8) {
		uint64_t w;

		memcpy(&w, l->u + i, 8);
		w ^= SPACES;
		if (w)
			return i + (__builtin_ctzll(w) >> 3);
	}
#endif
	while (i < b && at(l, i) == SPACE)
		i++;
	return i;
}

static long skip_digits(const struct line *l, long i, long b)
{
	while (i < b && digit(at(l, i)))
		i++;
	return i;
}

/* Index of the first @c in [i, b), or -1. */
static long find(const struct line *l, int c, long i, long b)
{
	const uint8_t *p;

	if (i >= b)
		return -1;
	p = memchr(l->u + i, c, (size_t)(b - i));
	return p ? p - l->u : -1;
}

/* Digits [a, b) as a number; -1 when longer than 15 digits (as the TypeScript scanner). */
static int64_t digits_value(const struct line *l, long a, long b)
{
	int64_t v = 0;

	if (b - a > 15)
		return -1;
	for (long i = a; i < b; i++)
		v = v * 10 + (at(l, i) - '0');
	return v;
}

/* seconds.fraction as ns (fraction cut to 9 digits); -1 when a double would not be exact. */
static int64_t timestamp_value(const struct line *l, long a, long dot, long end)
{
	int64_t sec = digits_value(l, a, dot), frac = 0;
	long last = end < dot + 10 ? end : dot + 10;

	if (sec < 0)
		return -1;
	if (dot == end)
		return (uint64_t)sec < NS_EXACT_LIMIT ? sec : -1;
	if ((uint64_t)sec >= NS_EXACT_LIMIT / 1000000000ULL)
		return -1;
	for (long i = dot + 1; i < last; i++)
		frac = frac * 10 + (at(l, i) - '0');
	for (long i = last - dot - 1; i < 9; i++)
		frac *= 10;
	if ((uint64_t)(sec * 1000000000LL + frac) >= NS_EXACT_LIMIT)
		return -1;
	return sec * 1000000000LL + frac;
}

static int plain(const struct line *l, long a, long b)
{
	for (long i = a; i < b; i++)
		if (at(l, i) != SPACE && !printable(at(l, i)))
			return 0;
	return 1;
}

/* ------------------------------------------------------------------------------------ */
/* What a scanned event is reported with.                                                 */

struct event {
	long name0, name1;
	double ts, pid;
	int fields;
	long spans[4 * AXL_TRACE_SCAN_MAX_FIELDS];
};

static int cpu_column_at(const struct line *l, long i, long b)
{
	long k = i + 1;

	while (k < b && digit(at(l, k)))
		k++;
	return k - i - 1 >= 3 && k < b && at(l, k) == ']';
}

/* End of a quoted value at @v0: -1 when not quoted, -2 when unsure (as quotedEnd()). */
static long quoted_end(const struct line *l, long v0, long b)
{
	if (at(l, v0) != '"')
		return -1;
	for (long k = v0 + 1; k < b; k++) {
		int c = at(l, k);

		if (c == '"')
			return k + 1;
		if (c == '\\') {
			if (k + 1 >= b)
				return -1;
			k++;
			if (at(l, k) != SPACE && !printable(at(l, k)))
				return -2;
		} else if (c != SPACE && !printable(c)) {
			return -2;
		}
	}
	return -1;
}

#ifdef __SSE2__
/*
 * The fields of an event line sixteen bytes at a time: a bit per byte of [a, b) (64 bytes at
 * most) for '=', space, key characters and the characters a key starts with. In a run of
 * printable bytes without '"' or '[' (the quoted values and CPU columns of scan_fields()), a
 * field is the first '=' after a run of key characters holding a key start, its key from that
 * start, its value up to the next space: the fields scan_fields() reads a byte at a time,
 * found without a branch per byte.
 */
#define FIELD_BITS_MAX 64

/* Bits [0, n) set, n <= 64. */
static inline uint64_t below(int n)
{
	return n >= 64 ? ~0ULL : (1ULL << n) - 1;
}

struct field_bits {
	uint64_t eq, space, key, key_start;
};

static inline uint64_t byte_bits(__m128i m, int k)
{
	return (uint64_t)(uint16_t)_mm_movemask_epi8(m) << k;
}

/* The bits of @p[0..n), n <= 64; 0 when a byte needs scan_fields()'s byte-wise rules. */
static int field_bits(const uint8_t *p, int n, struct field_bits *f)
{
	uint64_t odd_bytes = 0;

	memset(f, 0, sizeof(*f));
	/* Reads at most 15 bytes past the end: the line's zero padding. */
	for (int k = 0; k < n; k += 16) {
		__m128i x = _mm_loadu_si128((const __m128i *)(const void *)(p + k));
		__m128i low = _mm_or_si128(x, _mm_set1_epi8(0x20));
		__m128i letter = _mm_and_si128(_mm_cmpgt_epi8(low, _mm_set1_epi8('a' - 1)),
					       _mm_cmplt_epi8(low, _mm_set1_epi8('z' + 1)));
		__m128i digit = _mm_and_si128(_mm_cmpgt_epi8(x, _mm_set1_epi8('0' - 1)),
					      _mm_cmplt_epi8(x, _mm_set1_epi8('9' + 1)));
		__m128i start = _mm_or_si128(letter, _mm_cmpeq_epi8(x, _mm_set1_epi8('_')));
		__m128i key = _mm_or_si128(_mm_or_si128(start, digit),
					   _mm_cmpeq_epi8(x, _mm_set1_epi8('.')));
		/* Control bytes and bytes over 127 (negative as signed), DEL, '"', '['. */
		__m128i odd = _mm_or_si128(
			_mm_or_si128(_mm_cmplt_epi8(x, _mm_set1_epi8(SPACE)),
				     _mm_cmpeq_epi8(x, _mm_set1_epi8(127))),
			_mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8('"')),
				     _mm_cmpeq_epi8(x, _mm_set1_epi8('['))));

		f->eq |= byte_bits(_mm_cmpeq_epi8(x, _mm_set1_epi8('=')), k);
		f->space |= byte_bits(_mm_cmpeq_epi8(x, _mm_set1_epi8(SPACE)), k);
		f->key |= byte_bits(key, k);
		f->key_start |= byte_bits(start, k);
		odd_bytes |= byte_bits(odd, k);
	}
	if (odd_bytes & below(n))
		return 0;
	f->eq &= below(n);
	f->space &= below(n);
	return 1;
}

/* scan_fields() from the bits of [a, b): 1 or 0 as it answers, -1 when it must read them. */
static int scan_fields_bits(const struct line *l, struct event *e, long a, long b)
{
	struct field_bits f;
	int n = (int)(b - a), fields = 0;
	uint64_t eq;

	if (n <= 0 || n > FIELD_BITS_MAX || !field_bits(l->u + a, n, &f))
		return -1;
	for (eq = f.eq; eq;) {
		int q = __builtin_ctzll(eq), run, v1;
		uint64_t non_key = ~f.key & below(q), starts, spaces;

		/* The run of key characters before the '=', and its first key start. */
		run = non_key ? 64 - __builtin_clzll(non_key) : 0;
		starts = f.key_start & below(q) & ~below(run);
		if (!starts) {
			eq &= eq - 1; /* no key: the '=' is read as any other byte */
			continue;
		}
		spaces = f.space & ~below(q + 1);
		v1 = spaces ? __builtin_ctzll(spaces) : n;
		if (fields == AXL_TRACE_SCAN_MAX_FIELDS)
			return 0;
		e->spans[4 * fields] = a + __builtin_ctzll(starts);
		e->spans[4 * fields + 1] = a + q;
		e->spans[4 * fields + 2] = a + q + 1;
		e->spans[4 * fields + 3] = a + v1;
		fields++;
		eq &= ~below(v1); /* an '=' in the value is the value's */
	}
	e->fields = fields;
	return 1;
}
#endif

/* The key=value pairs of [a, b), as scanFieldsInto(); 0 when it would not read them. */
static int scan_fields(const struct line *l, struct event *e, long a, long b)
{
	const uint8_t *u = l->u;
	int n = 0;
	long i = a;

#ifdef __SSE2__
	n = scan_fields_bits(l, e, a, b);
	if (n >= 0)
		return n;
	n = 0;
#endif

	while (i < b) {
		long key_at = -1;
		int c = u[i], k = classes[c];

		/* A run of key characters: the key starts at its first letter or '_'. */
		while ((k & C_KEY) && !(k & C_KEY_START)) {
			if (++i == b)
				goto done;
			c = u[i];
			k = classes[c];
		}
		if (k & C_KEY) {
			key_at = i;
			do {
				if (++i == b)
					goto done;
				c = u[i];
				k = classes[c];
			} while (k & C_KEY);
		}
		if (c == '=' && key_at != -1) {
			long v0 = i + 1, v1 = quoted_end(l, v0, b);
			int quoted;

			if (v1 == -2)
				return 0;
			if (v1 == -1) {
				v1 = v0;
				while (v1 < b && (classes[u[v1]] & C_PRINTABLE))
					v1++;
				if (v1 < b && u[v1] != SPACE)
					return 0;
			}
			if (n == AXL_TRACE_SCAN_MAX_FIELDS)
				return 0; /* more than a record holds: TypeScript reads it */
			quoted = v1 - v0 >= 2 && u[v0] == '"' && u[v1 - 1] == '"';
			e->spans[4 * n] = key_at;
			e->spans[4 * n + 1] = i;
			e->spans[4 * n + 2] = quoted ? v0 + 1 : v0;
			e->spans[4 * n + 3] = quoted ? v1 - 1 : v1;
			n++;
			i = v1;
			continue;
		}
		if (c != SPACE && !(k & C_PRINTABLE))
			return 0;
		if (c == '[' && cpu_column_at(l, i, b))
			return 0;
		i++;
	}
done:
	e->fields = n;
	return 1;
}

/* ------------------------------------------------------------------------------------ */
/* function_graph lines: only "/ * name: body * /" comments are read here.               */

/* "[mark] N[.N] us" filling [a, bar) exactly (durationValue() >= 0). */
static int duration_ok(const struct line *l, long a, long bar)
{
	long k = a, int0, int1, frac1;

	if (duration_mark(at(l, k)))
		k = skip_spaces(l, k + 1, bar);
	int0 = k;
	int1 = skip_digits(l, k, bar);
	if (int1 == int0)
		return 0;
	frac1 = int1;
	if (at(l, int1) == '.') {
		frac1 = skip_digits(l, int1 + 1, bar);
		if (frac1 == int1 + 1)
			return 0;
	}
	k = skip_spaces(l, frac1, bar);
	return at(l, k) == 'u' && at(l, k + 1) == 's' && skip_spaces(l, k + 2, bar) == bar;
}

/* `^\s*(?:[!#*@$+ ]?\s*\d+(?:\.\d+)?\s*us\s*)?\|` at @i (durationCellThenBar()). */
static int duration_cell_then_bar(const struct line *l, long i, long b)
{
	long k = skip_spaces(l, i, b), e;

	if (at(l, k) == '|')
		return 1;
	if (duration_mark(at(l, k)))
		k = skip_spaces(l, k + 1, b);
	e = skip_digits(l, k, b);
	if (e == k)
		return 0;
	k = e;
	if (at(l, k) == '.') {
		k = skip_digits(l, k + 1, b);
		if (k == e + 1)
			return 0;
	}
	k = skip_spaces(l, k, b);
	if (at(l, k) != 'u' || at(l, k + 1) != 's')
		return 0;
	return at(l, skip_spaces(l, k + 2, b)) == '|';
}

/* End of the run of event-name bytes (C_NAME) from @n, not past @j. */
static inline long name_end(const struct line *l, long n, long j)
{
#ifdef __SSE2__
	for (; n + 16 <= j; n += 16) {
		__m128i x = _mm_loadu_si128((const __m128i *)(const void *)(l->u + n));
		/* Printable (33 to 126: bytes over 127 are negative as signed) and not ':'. */
		__m128i name = _mm_andnot_si128(_mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8(':')),
							     _mm_cmpeq_epi8(x, _mm_set1_epi8(127))),
						_mm_cmpgt_epi8(x, _mm_set1_epi8(SPACE)));
		uint32_t other = ~(uint32_t)_mm_movemask_epi8(name) & 0xffff;

		if (other)
			return n + __builtin_ctz(other);
	}
#endif
	while (n < j && (cls(at(l, n)) & C_NAME))
		n++;
	return n;
}

static int graph_comment(const struct line *l, struct event *e, long c0, long j)
{
	long n0, n, k, end;

	if (j - c0 < 4 || at(l, c0 + 1) != '*')
		return 0;
	if (at(l, j - 2) != '*' || at(l, j - 1) != '/')
		return 0;
	n0 = skip_spaces(l, c0 + 2, j);
	n = name_end(l, n0, j);
	if (n == n0 || at(l, n) != ':' || n >= j - 2)
		return 0;
	k = n + 1;
	if (at(l, k) == SPACE && k < j - 2)
		k++;
	end = j - 2;
	while (end > k && at(l, end - 1) == SPACE)
		end--;
	if (!scan_fields(l, e, k, end))
		return 0;
	e->name0 = n0;
	e->name1 = n;
	return 1;
}

/* The funcgraph-proc column "  task-pid  |" at @rest: where the duration starts (@rest when
 * there is no such column), or -1 to give up. */
static long graph_task(const struct line *l, struct event *e, long rest, long b)
{
	long t0 = skip_spaces(l, rest, b);

	if (at(l, t0) == '-')
		return -1;
	for (long d = find(l, '-', t0 + 1, b); d != -1; d = find(l, '-', d + 1, b)) {
		long x = skip_digits(l, d + 1, b), f;
		int64_t pid;

		if (x == d + 1)
			continue;
		if (at(l, x) != SPACE) {
			if (odd(at(l, x)))
				return -1;
			continue;
		}
		f = skip_spaces(l, x, b);
		if (at(l, f) != '|') {
			if (odd(at(l, f)))
				return -1;
			continue;
		}
		if (!plain(l, t0, d))
			return -1;
		pid = digits_value(l, d + 1, x);
		if (pid < 0)
			return -1;
		e->pid = (double)pid;
		return f + 1;
	}
	return rest;
}

/*
 * What scan_graph() learnt from the last line whose comment it reached through a task
 * column (or with none to look for): every check it makes before the comment reads only
 * the bytes before it, and of the timestamp only whether they are digits. A line with the
 * same bytes there, timestamp digits aside, passes the same checks with the same pid.
 */
struct graph_memo {
	long len;	     /* bytes before the comment's '/' (0: nothing learnt) */
	long ts0, dot, ts1; /* the timestamp [ts0, ts1), its '.' at dot (ts1: none); or 0s */
	double pid;
	uint8_t bytes[GRAPH_MEMO_MAX]; /* the line up to and including the '/' */
};

/* Whether the line starts as the memo's line did: the same bytes, timestamp digits aside. */
static int graph_memo_hit(const struct graph_memo *m, const struct line *l)
{
	const uint8_t *u = l->u + l->a;

	if (!m->len || l->b - l->a <= m->len)
		return 0;
	if (memcmp(u, m->bytes, (size_t)m->ts0) ||
	    memcmp(u + m->ts1, m->bytes + m->ts1, (size_t)(m->len + 1 - m->ts1)))
		return 0;
#ifdef __SSE2__
	/* The timestamp's digits and its '.', sixteen bytes at once (the line is longer). */
	if (m->ts1 - m->ts0 <= 16 && m->ts0 + 16 <= l->b - l->a) {
		__m128i x = _mm_loadu_si128((const __m128i *)(const void *)(u + m->ts0));
		__m128i digits = _mm_and_si128(_mm_cmpgt_epi8(x, _mm_set1_epi8('0' - 1)),
					       _mm_cmplt_epi8(x, _mm_set1_epi8('9' + 1)));
		uint32_t want = (1u << (m->ts1 - m->ts0)) - 1, got;

		if (m->dot < m->ts1) {
			want &= ~(1u << (m->dot - m->ts0));
			if (u[m->dot] != '.')
				return 0;
		}
		got = (uint32_t)_mm_movemask_epi8(digits);
		return (got & ((1u << (m->ts1 - m->ts0)) - 1)) == want;
	}
#endif
	for (long k = m->ts0; k < m->ts1; k++)
		if (k == m->dot ? u[k] != '.' : !digit(u[k]))
			return 0;
	return 1;
}

static void graph_memo_learn(struct graph_memo *m, const struct line *l, const struct event *e,
			     long ts0, long dot, long ts1, long c0)
{
	if (c0 - l->a >= GRAPH_MEMO_MAX)
		return;
	m->len = c0 - l->a;
	memcpy(m->bytes, l->u + l->a, (size_t)m->len + 1);
	m->ts0 = ts0 - l->a;
	m->dot = dot - l->a;
	m->ts1 = ts1 - l->a;
	m->pid = e->pid;
}

/* The comment of a line graph_memo_hit() took, read with the memo's answers. */
static int scan_graph_as_memo(const struct graph_memo *m, const struct line *l, struct event *e,
			      long j)
{
	long c0 = l->a + m->len;

	if (m->ts1 > m->ts0) {
		int64_t ts = timestamp_value(l, l->a + m->ts0, l->a + m->dot, l->a + m->ts1);

		if (ts < 0)
			return 0;
		e->ts = (double)ts;
	}
	e->pid = m->pid;
	if (c0 >= j)
		return 0;
	return graph_comment(l, e, c0, j);
}

static int scan_graph(const struct line *l, struct event *e, long i, long b, long j,
		      struct graph_memo *m)
{
	long q = skip_digits(l, i, b), cpu0 = i, cpu1 = q, rest, from, bar2, d0, c0;
	long ts0 = l->a, dot = l->a, ts1 = l->a;

	for (int k = 0; k < GRAPH_MEMOS; k++)
		if (graph_memo_hit(&m[k], l))
			return scan_graph_as_memo(&m[k], l, e, j);
	if (at(l, q) != ')') {
		long ts_end = q, k;
		int64_t ts;

		if (at(l, q) == '.') {
			ts_end = skip_digits(l, q + 1, b);
			if (ts_end == q + 1)
				return 0;
		}
		k = ts_end;
		if (at(l, k) != SPACE)
			return 0;
		k = skip_spaces(l, k, b);
		if (at(l, k) != '|' || at(l, k + 1) != SPACE)
			return 0;
		cpu0 = skip_spaces(l, k + 1, b);
		cpu1 = skip_digits(l, cpu0, b);
		if (cpu1 == cpu0 || at(l, cpu1) != ')')
			return 0;
		ts = timestamp_value(l, i, q, ts_end);
		if (ts < 0)
			return 0;
		e->ts = (double)ts;
		ts0 = i;
		dot = q;
		ts1 = ts_end;
	}
	if (digits_value(l, cpu0, cpu1) < 0)
		return 0;
	rest = cpu1 + 1;
	if (find(l, '|', rest, b) == -1)
		return 0; /* a context switch: TypeScript reads it */
	from = rest;
	if (at(l, rest) == SPACE) {
		from = graph_task(l, e, rest, b);
		if (from < 0)
			return 0;
	}
	if (isnan(e->pid) && !duration_cell_then_bar(l, rest, b))
		return 0;
	bar2 = find(l, '|', from, b);
	if (bar2 == -1)
		return 0;
	d0 = skip_spaces(l, from, bar2);
	if (d0 < bar2 && !duration_ok(l, d0, bar2))
		return 0;
	c0 = skip_spaces(l, bar2 + 1, b);
	if (c0 >= j || at(l, c0) != '/')
		return 0; /* a call line the call column did not take: TypeScript reads it */
	/* A task column looked for and not found: that search read the whole line. */
	if (at(l, rest) != SPACE || from != rest) {
		/* Oldest first out: the lines of a few tasks and CPUs interleave. */
		memmove(&m[1], &m[0], sizeof(*m) * (GRAPH_MEMOS - 1));
		graph_memo_learn(m, l, e, ts0, dot, ts1, c0);
	}
	return graph_comment(l, e, c0, j);
}

/* ------------------------------------------------------------------------------------ */
/* event lines                                                                            */

/* End of `\d+(\.\d+)?` at @t when a ':' follows (the ':'), else -1. */
static long timestamp_end(const struct line *l, long t, long b)
{
	long e = skip_digits(l, t, b), f;

	if (e == t)
		return -1;
	if (at(l, e) == ':')
		return e;
	if (at(l, e) != '.')
		return -1;
	f = skip_digits(l, e + 1, b);
	return f > e + 1 && at(l, f) == ':' ? f : -1;
}

static int event_tail(const struct line *l, struct event *e, long f, long b, long j)
{
	long t = f, ts_end = timestamp_end(l, t, b), dot, n0, n;
	int64_t ts;

	if (ts_end < 0) {
		long g = f;

		while (g < b && at(l, g) != SPACE) {
			int c = at(l, g);

			if (!printable(c) || c == ':')
				return 0;
			g++;
		}
		t = skip_spaces(l, g, b);
		ts_end = timestamp_end(l, t, b);
		if (ts_end < 0)
			return 0;
	}
	dot = t;
	while (dot < ts_end && at(l, dot) != '.')
		dot++;
	ts = timestamp_value(l, t, dot, ts_end);
	if (ts < 0)
		return 0;
	e->ts = (double)ts;
	if (at(l, ts_end + 1) != SPACE)
		return 0;
	n0 = skip_spaces(l, ts_end + 1, b);
	n = name_end(l, n0, b);
	if (n == n0 || at(l, n) != ':')
		return 0;
	e->fields = 0;
	if (n + 1 < b) {
		long b0;

		if (at(l, n + 1) != SPACE)
			return 0;
		b0 = skip_spaces(l, n + 2, b);
		if (b0 < j && !scan_fields(l, e, b0, j))
			return 0;
	}
	e->name0 = n0;
	e->name1 = n;
	return 1;
}

/* The "(tgid) " column after "-pid ": where the CPU column should start, 0 to try the next
 * dash, -1 to give up (as scanEvent()). */
static long tgid_column(const struct line *l, long k, long b)
{
	long g = skip_spaces(l, k + 1, b), h = skip_digits(l, g, b);
	int digits = h > g;

	if (!digits)
		while (h < b && at(l, h) == '-')
			h++;
	if (odd(at(l, g)) || odd(at(l, h + 1)))
		return -1;
	if (h == g || at(l, h) != ')' || at(l, h + 1) != SPACE)
		return 0;
	if (digits && digits_value(l, g, h) < 0)
		return -1;
	return skip_spaces(l, h + 1, b);
}

static int scan_event(const struct line *l, struct event *e, long t0, long b, long j)
{
	for (long d = find(l, '-', t0 + 1, b); d != -1; d = find(l, '-', d + 1, b)) {
		long x = skip_digits(l, d + 1, b), k, c0, c1, t1;
		int64_t pid;

		if (x == d + 1)
			continue;
		if (at(l, x) != SPACE) {
			if (odd(at(l, x)))
				return 0;
			continue;
		}
		k = skip_spaces(l, x, b);
		if (at(l, k) == '(') {
			k = tgid_column(l, k, b);
			if (k < 0)
				return 0;
			if (k == 0)
				continue;
		}
		if (odd(at(l, k)))
			return 0;
		if (at(l, k) != '[')
			continue;
		c0 = k + 1;
		c1 = skip_digits(l, c0, b);
		if (odd(at(l, c1 + 1)))
			return 0;
		if (c1 == c0 || at(l, c1) != ']' || at(l, c1 + 1) != SPACE)
			continue;
		t1 = d;
		while (at(l, t1 - 1) == SPACE)
			t1--;
		if (!plain(l, t0, t1))
			return 0;
		pid = digits_value(l, d + 1, x);
		if (pid < 0 || digits_value(l, c0, c1) < 0)
			return 0;
		e->pid = (double)pid;
		return event_tail(l, e, skip_spaces(l, c1 + 1, b), b, j);
	}
	return 0;
}

/* ------------------------------------------------------------------------------------ */
/* call lines, from their call column (callColumn())                                      */

enum { NOT_A_CALL, CALL_ENTRY, CALL_LEAF, CALL_EXIT };

#ifdef __SSE2__
/* A bit per byte of @x that is a function-name byte (C_FUNC: [0-9A-Za-z_.$]). */
static inline uint32_t func_bits(__m128i x)
{
	__m128i low = _mm_or_si128(x, _mm_set1_epi8(0x20));
	__m128i letter = _mm_and_si128(_mm_cmpgt_epi8(low, _mm_set1_epi8('a' - 1)),
				       _mm_cmplt_epi8(low, _mm_set1_epi8('z' + 1)));
	__m128i digit = _mm_and_si128(_mm_cmpgt_epi8(x, _mm_set1_epi8('0' - 1)),
				      _mm_cmplt_epi8(x, _mm_set1_epi8('9' + 1)));
	__m128i other = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8('_')),
						  _mm_cmpeq_epi8(x, _mm_set1_epi8('.'))),
				     _mm_cmpeq_epi8(x, _mm_set1_epi8('$')));

	return (uint32_t)_mm_movemask_epi8(_mm_or_si128(_mm_or_si128(letter, digit), other));
}
#endif

/* Start of the run of function-name bytes ending before @end (not before @a): sixteen
 * (SSE2) or eight bytes a time while they all are, then one at a time. */
static inline long func_start(const struct line *l, long a, long end)
{
	const uint8_t *u = l->u;
	long n = end;

#ifdef __SSE2__
	for (; n - 16 >= a; n -= 16) {
		uint32_t other = ~func_bits(_mm_loadu_si128((const __m128i *)(const void *)(u + n - 16))) &
				 0xffff;

		if (other)
			return n - 16 + 32 - __builtin_clz(other);
	}
#endif
	while (n - 8 >= a &&
	       (classes[u[n - 1]] & classes[u[n - 2]] & classes[u[n - 3]] & classes[u[n - 4]] &
		classes[u[n - 5]] & classes[u[n - 6]] & classes[u[n - 7]] & classes[u[n - 8]] &
		C_FUNC))
		n -= 8;
	while (n > a && (classes[u[n - 1]] & C_FUNC))
		n--;
	return n;
}

static int bar_before(const struct line *l, long a, long k)
{
	if (at(l, k) != SPACE)
		return 0;
	while (k > a && at(l, k) == SPACE)
		k--;
	return k > a && at(l, k) == '|';
}

/* Exit lines "} / * name * /" read backwards; an event comment fails within a few bytes. */
static int named_exit(const struct line *l, long a, long b)
{
	long k = b - 3, n1;

	if (at(l, b - 2) != '*')
		return NOT_A_CALL;
	while (k > a && at(l, k) == SPACE)
		k--;
	n1 = k;
	k = func_start(l, a + 1, k + 1) - 1; /* as "while (k > a && func_char(at(l, k))) k--" */
	if (k == n1)
		return NOT_A_CALL;
	while (k > a && at(l, k) == SPACE)
		k--;
	if (at(l, k) != '*' || at(l, k - 1) != '/')
		return NOT_A_CALL;
	k -= 2;
	while (k > a && at(l, k) == SPACE)
		k--;
	return at(l, k) == '}' && bar_before(l, a, k - 1) ? CALL_EXIT : NOT_A_CALL;
}

static int call_column(const struct line *l, long *n0_out, long *n1_out)
{
	long a = l->a, b = l->b, end, n0;
	int last, kind;

	if (b - a < 6 || !digit(at(l, skip_spaces(l, a, b))))
		return NOT_A_CALL;
	last = at(l, b - 1);
	if (last == '{') {
		if (at(l, b - 2) != SPACE || at(l, b - 3) != ')' || at(l, b - 4) != '(')
			return NOT_A_CALL;
		end = b - 4;
		kind = CALL_ENTRY;
	} else if (last == ';') {
		if (at(l, b - 2) != ')' || at(l, b - 3) != '(')
			return NOT_A_CALL;
		end = b - 3;
		kind = CALL_LEAF;
	} else if (last == '}') {
		return bar_before(l, a, b - 2) ? CALL_EXIT : NOT_A_CALL;
	} else if (last == '/') {
		return named_exit(l, a, b);
	} else {
		return NOT_A_CALL;
	}
	n0 = func_start(l, a, end);
	if (n0 == end || !bar_before(l, a, n0 - 1))
		return NOT_A_CALL;
	*n0_out = n0;
	*n1_out = end;
	return kind;
}

/* ------------------------------------------------------------------------------------ */
/* The state, in a buffer the caller holds: call counts per function, and event names by  */
/* number, so that TypeScript looks a name up by its number instead of by its bytes.      */

struct name_entry {
	uint8_t len;
	char name[AXL_TRACE_SCAN_NAME_MAX];
	double count; /* calls after the first, which was reported */
};

struct name_table {
	uint32_t used;
	uint32_t reserved;
	struct name_entry entries[AXL_TRACE_SCAN_FUNCS];
	uint16_t slots[2 * AXL_TRACE_SCAN_FUNCS]; /* entry index + 1 by hash, 0 when free */
};

struct scan_state {
	uint32_t magic;
	uint32_t reserved;
	struct name_table calls;
	struct name_table events;
	/* The frame join, once axl_trace_join_start() ran; NULL before. */
	struct trace_join *join;
	uint8_t event_kind[AXL_TRACE_SCAN_FUNCS]; /* per event name: EV_* */
	uint8_t announced[AXL_TRACE_SCAN_FUNCS];  /* its FOLDED record was written */
	struct graph_memo memo[GRAPH_MEMOS];
	/* The line being scanned, between zero bytes (struct line). */
	uint8_t line[LINE_PAD + LINE_MAX + LINE_PAD];
};

#define STATE_MAGIC 0x61786c73u

_Static_assert(offsetof(struct name_entry, count) == AXL_TRACE_SCAN_COUNT_OFFSET,
	       "the call table layout is read by lib/core/trace_scan.ts");
_Static_assert(sizeof(struct name_entry) == AXL_TRACE_SCAN_ENTRY_BYTES,
	       "the call table layout is read by lib/core/trace_scan.ts");
_Static_assert(offsetof(struct scan_state, calls.entries) == AXL_TRACE_SCAN_ENTRIES_OFFSET,
	       "the call table layout is read by lib/core/trace_scan.ts");

int32_t axl_trace_scan_state_bytes(void)
{
	return (int32_t)sizeof(struct scan_state);
}

/* The entry of @name in @t, added when new (*@fresh set); -1 when too long or no room. */
static long name_index(struct name_table *t, const uint8_t *name, long len, int *fresh)
{
	uint32_t h;
	unsigned mask = 2 * AXL_TRACE_SCAN_FUNCS - 1, slot;
	struct name_entry *e;

	*fresh = 0;
	if (len >= AXL_TRACE_SCAN_NAME_MAX || len < 1)
		return -1;
	/* A few bytes are enough: names differ early, late or in length. */
	h = (uint32_t)len * 0x9e3779b1u ^ (uint32_t)name[0] << 16 ^ (uint32_t)name[len - 1] << 8 ^
	    name[len / 2] ^ (uint32_t)name[len / 4] << 4 ^ (uint32_t)name[3 * len / 4] << 12;
	h ^= h >> 13;
	for (slot = h & mask; t->slots[slot]; slot = (slot + 1) & mask) {
		e = &t->entries[t->slots[slot] - 1];
		if (e->len == len && !memcmp(e->name, name, (size_t)len))
			return t->slots[slot] - 1;
	}
	/* At most half the slots are used: the probe above always ends at a free one. */
	if (t->used >= AXL_TRACE_SCAN_FUNCS)
		return -1;
	e = &t->entries[t->used++];
	e->len = (uint8_t)len;
	memcpy(e->name, name, (size_t)len);
	e->name[len] = 0;
	e->count = 0;
	t->slots[slot] = (uint16_t)t->used;
	*fresh = 1;
	return t->used - 1;
}

/* Counts a call of @name: 1 when counted here, 0 when the caller must count it (the first
 * call of a function, or no room in the table). */
static int count_call(struct scan_state *s, const uint8_t *name, long len)
{
	int fresh;
	long i = name_index(&s->calls, name, len, &fresh);

	if (i < 0 || fresh)
		return 0;
	s->calls.entries[i].count++;
	return 1;
}

/* ------------------------------------------------------------------------------------ */
/* One line, then whole chunks.                                                           */

/* Whether @p[0..n) is all ASCII: eight bytes at a time. */
static int ascii_only(const uint8_t *p, size_t n)
{
	uint64_t any = 0, w;
	size_t i = 0;

#ifdef __SSE2__
	__m128i high = _mm_setzero_si128();

	for (; i + 64 <= n; i += 64) {
		const __m128i *v = (const __m128i *)(const void *)(p + i);

		high = _mm_or_si128(high, _mm_or_si128(_mm_or_si128(_mm_loadu_si128(v),
								     _mm_loadu_si128(v + 1)),
						       _mm_or_si128(_mm_loadu_si128(v + 2),
								     _mm_loadu_si128(v + 3))));
	}
	if (_mm_movemask_epi8(high))
		return 0;
#endif
	for (; i + 32 <= n; i += 32) {
		uint64_t x[4];

		memcpy(x, p + i, 32);
		any |= x[0] | x[1] | x[2] | x[3];
	}
	for (; i + 8 <= n; i += 8) {
		memcpy(&w, p + i, 8);
		any |= w;
	}
	for (; i < n; i++)
		any |= p[i];
	return !(any & 0x8080808080808080ULL);
}

/* scanInto()'s answer for an event: 1 (read into @e), 0 (not read, or not an event). */
static int scan_event_line(const struct line *l, struct event *e, struct graph_memo *m)
{
	long i = skip_spaces(l, l->a, l->b), j = l->b;
	int first;

	if (i == l->b)
		return 0;
	while (at(l, j - 1) == SPACE)
		j--;
	first = at(l, i);
	if (!printable(first) || !printable(at(l, j - 1)) || first == '-' || first == '#')
		return 0;
	if (first == 'C' && at(l, i + 1) == 'P' && at(l, i + 2) == 'U')
		return 0;
	e->ts = NAN;
	e->pid = NAN;
	e->fields = 0;
	return digit(first) ? scan_graph(l, e, i, l->b, j, m) : scan_event(l, e, i, l->b, j);
}

/* Bytes checked for ASCII at once: lines within such a block skip their own check. */
#define ASCII_BLOCK 4096

/* Blank lines and separator rules, which the parser skips. */
static int blank_line(const struct line *l)
{
	long i = skip_spaces(l, l->a, l->b), j = l->b;

	if (i == l->b)
		return 1;
	while (at(l, j - 1) == SPACE)
		j--;
	if (at(l, i) != '-' || j - i < 4)
		return 0;
	for (long k = i; k < j; k++)
		if (at(l, k) != '-')
			return 0;
	return 1;
}

/* ------------------------------------------------------------------------------------ */
/* Events the join takes (foldEvent() of lib/verify/trace_facts.ts).                      */

enum { EV_UNKNOWN, EV_OTHER, EV_IMPORT, EV_RELEASE, EV_SUBMIT, EV_COMPLETE, EV_SIGNALED,
       EV_DESTROY, EV_WAIT, EV_COUNT /* only counted: axl_trace_join_count_only() */ };

static int event_kind(const uint8_t *name, long len)
{
	static const struct {
		const char *name;
		int kind;
	} kinds[] = {
		{ "axl_dmabuf_import", EV_IMPORT },	  { "axl_dmabuf_release", EV_RELEASE },
		{ "axl_job_submit", EV_SUBMIT },	  { "axl_job_complete", EV_COMPLETE },
		{ "dma_fence_signaled", EV_SIGNALED },	  { "dma_fence_destroy", EV_DESTROY },
		{ "dma_fence_wait_start", EV_WAIT },	  { "dma_fence_wait_end", EV_WAIT },
	};

	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (strlen(kinds[i].name) == (size_t)len && !memcmp(kinds[i].name, name, (size_t)len))
			return kinds[i].kind;
	return EV_OTHER;
}

/* Index in e->spans of the last field named @key (later keys win), or -1. */
/* Inlined, so that each key's length and comparison are constants. */
#define INLINE static inline __attribute__((always_inline))

INLINE int field_at(const struct line *l, const struct event *e, const char *key)
{
	size_t len = strlen(key);

	for (int i = e->fields - 1; i >= 0; i--) {
		long a = e->spans[4 * i], b = e->spans[4 * i + 1];

		if ((size_t)(b - a) == len && !memcmp(l->u + a, key, len))
			return 4 * i;
	}
	return -1;
}

/*
 * Field @key as the fold reads it (ScannedEvent.int()): NaN when absent. 0 when C cannot be
 * sure of the answer (anything but 1 to 15 digits: hex, signs, exponents...), 1 when read.
 */
INLINE int field_int(const struct line *l, const struct event *e, const char *key, double *v)
{
	int k = field_at(l, e, key);
	long a, b;

	*v = NAN;
	if (k < 0)
		return 1;
	a = e->spans[k + 2];
	b = e->spans[k + 3];
	if (b <= a || b - a > 15)
		return 0;
	for (long i = a; i < b; i++)
		if (!digit(at(l, i)))
			return 0;
	*v = (double)digits_value(l, a, b);
	return 1;
}

/* context (older tracepoints: ctx), as context() of trace_facts.ts. */
static int field_context(const struct line *l, const struct event *e, double *v)
{
	if (!field_int(l, e, "context", v))
		return 0;
	return isnan(*v) && field_at(l, e, "context") < 0 ? field_int(l, e, "ctx", v) : 1;
}

/* Folds a scanned event of @kind into the join: 1 when done, 0 when TypeScript must. */
static int fold_event(struct scan_state *s, const struct line *l, const struct event *e, int kind)
{
	struct trace_join *j = s->join;
	double a, b, c, d;

	switch (kind) {
	case EV_IMPORT: {
		int k = field_at(l, e, "exporter");
		long x0 = k < 0 ? 0 : e->spans[k + 2], x1 = k < 0 ? 0 : e->spans[k + 3];
		int32_t exporter;

		if (!field_int(l, e, "handle", &a) || !field_int(l, e, "inode", &b))
			return 0;
		exporter = trace_join_keep(j, l->u + x0, (uint32_t)(x1 - x0));
		if (exporter < 0)
			return 0;
		trace_join_import(j, a, b, exporter, e->ts, e->pid);
		return 1;
	}
	case EV_RELEASE:
		if (!field_int(l, e, "handle", &a) || !field_int(l, e, "inode", &b))
			return 0;
		trace_join_release(j, a, b, e->ts);
		return 1;
	case EV_SUBMIT:
		if (!field_context(l, e, &a) || !field_int(l, e, "seqno", &b) ||
		    !field_int(l, e, "handle", &c) || !field_int(l, e, "inode", &d))
			return 0;
		trace_join_submit(j, a, b, c, d, e->ts, e->pid);
		return 1;
	case EV_COMPLETE:
		if (!field_context(l, e, &a) || !field_int(l, e, "seqno", &b) ||
		    !field_int(l, e, "status", &c))
			return 0;
		if (isnan(c))
			c = 0; /* absent: the int would have read otherwise */
		trace_join_complete(j, a, b, c, e->ts);
		return 1;
	case EV_SIGNALED:
		if (!field_int(l, e, "context", &a) || !field_int(l, e, "seqno", &b))
			return 0;
		trace_join_signaled(j, a, b, e->ts);
		return 1;
	case EV_DESTROY:
		if (!field_int(l, e, "context", &a) || !field_int(l, e, "seqno", &b))
			return 0;
		trace_join_destroyed(j, a, b);
		return 1;
	case EV_WAIT:
		j->fence_wait_lines++;
		return 1;
	case EV_COUNT:
		return 1;
	}
	return 0;
}

/* The earliest and latest time of the events folded here (stamp() of trace_facts.ts). */
static void stamp(struct trace_join *j, double ts)
{
	if (isnan(ts))
		return;
	if (isnan(j->first_ts) || ts < j->first_ts)
		j->first_ts = ts;
	if (isnan(j->last_ts) || ts > j->last_ts)
		j->last_ts = ts;
}

/*
 * A function_graph context switch without a timestamp (isSwitchLine() of
 * lib/trace/parse/chunk_scan.ts), which the fold does not read.
 */
static int switch_line(const struct line *l)
{
	long i = skip_spaces(l, l->a, l->b), d = i, arrow = -1, from, to;

	i = skip_digits(l, i, l->b);
	if (i == d || at(l, i) != ')')
		return 0;
	for (long k = i + 1; k < l->b; k++) {
		int c = at(l, k);

		if (c < SPACE || c > 126 || c == '|')
			return 0;
		if (arrow == -1 && c == '=' && at(l, k + 1) == '>' && at(l, k - 1) == SPACE)
			arrow = k;
	}
	if (arrow == -1 || at(l, arrow + 2) != SPACE)
		return 0;
	from = arrow - 1;
	to = arrow + 2;
	while (from > i && at(l, from) == SPACE)
		from--;
	while (to < l->b && at(l, to) == SPACE)
		to++;
	return from > i && to < l->b;
}

/*
 * With the join running: folds the event of number @num when it can (1; a FOLDED record for
 * the first of its name goes to @out, *@words says its size); 0 when the join takes it but C
 * could not read it, -1 when the join does not take it.
 */
static int join_event(struct scan_state *s, const struct line *l, const struct event *e,
		      long num, double line, double *out, uint32_t *words)
{
	*words = 0;
	if (num < 0)
		return event_kind(l->u + e->name0, e->name1 - e->name0) == EV_OTHER ? -1 : 0;
	if (s->event_kind[num] == EV_UNKNOWN)
		s->event_kind[num] = (uint8_t)event_kind(l->u + e->name0, e->name1 - e->name0);
	if (s->event_kind[num] == EV_OTHER)
		return -1;
	if (!fold_event(s, l, e, s->event_kind[num]))
		return 0;
	s->events.entries[num].count++;
	stamp(s->join, e->ts);
	if (!s->announced[num]) {
		s->announced[num] = 1;
		out[0] = AXL_TRACE_SCAN_FOLDED;
		out[1] = line;
		out[2] = (double)(e->name0 + l->off);
		out[3] = (double)(e->name1 + l->off);
		out[4] = (double)num;
		*words = 5;
	}
	return 1;
}

/*
 * Writes one line's record at @out; returns the words written. With the join running, sets
 * *@stop after a record TypeScript may fold into the join (an event C could not fold, a line
 * for the parser): the scan must stop there, so that the join sees events in line order.
 */
static uint32_t scan_one(struct scan_state *s, const struct line *l, int ascii, double line,
			 double *out, int *stop)
{
	struct event e;
	long n0 = 0, n1 = 0;
	int call;

	if (!ascii && !ascii_only(l->u + l->a, (size_t)(l->b - l->a)))
		goto other;
	call = call_column(l, &n0, &n1);
	if (call == CALL_EXIT)
		return 0;
	if (call != NOT_A_CALL) {
		if (count_call(s, l->u + n0, n1 - n0))
			return 0;
		out[0] = AXL_TRACE_SCAN_CALL;
		out[1] = line;
		out[2] = (double)(n0 + l->off);
		out[3] = (double)(n1 + l->off);
		return 4;
	}
	if (blank_line(l))
		return 0;
	if (scan_event_line(l, &e, s->memo)) {
		int fresh;
		long num = name_index(&s->events, l->u + e.name0, e.name1 - e.name0, &fresh);
		uint32_t words;

		if (s->join) {
			int folded = join_event(s, l, &e, num, line, out, &words);

			if (folded == 1)
				return words;
			if (folded == 0)
				*stop = 1;
		}
		out[0] = AXL_TRACE_SCAN_EVENT;
		out[1] = line;
		out[2] = (double)(e.name0 + l->off);
		out[3] = (double)(e.name1 + l->off);
		out[4] = e.ts;
		out[5] = e.pid;
		out[6] = e.fields;
		out[7] = (double)num;
		for (int i = 0; i < 4 * e.fields; i++)
			out[8 + i] = (double)(e.spans[i] + l->off);
		return 8 + 4 * (uint32_t)e.fields;
	}
other:
	if (s->join) {
		if (switch_line(l))
			return 0;
		*stop = 1;
	}
	out[0] = AXL_TRACE_SCAN_OTHER;
	out[1] = line;
	out[2] = (double)(l->a + l->off);
	out[3] = (double)(l->b + l->off);
	return 4;
}

/* Copies @n bytes of a line: sixteen at a time (the last sixteen overlapping) with SSE2, where
 * an inlined memcpy() of a size only known to be at most LINE_MAX is a "rep movs" that costs
 * tens of cycles to start, once per line. */
static inline void copy_line(uint8_t *dst, const uint8_t *src, long n)
{
#ifdef __SSE2__
	if (n >= 16) {
		for (long k = 0; k + 16 <= n; k += 16)
			_mm_storeu_si128((__m128i *)(void *)(dst + k),
					 _mm_loadu_si128((const __m128i *)(const void *)(src + k)));
		_mm_storeu_si128((__m128i *)(void *)(dst + n - 16),
				 _mm_loadu_si128((const __m128i *)(const void *)(src + n - 16)));
		return;
	}
#endif
	memcpy(dst, src, (size_t)n);
}

/*
 * Scans line @text[@pos..@end) from a copy between zero bytes (struct line); a line too long
 * for the copy goes to the TypeScript parser whole.
 */
static uint32_t scan_line(struct scan_state *s, const uint8_t *text, long pos, long end,
			  int ascii, double line, double *out, int *stop)
{
	struct line l = { s->line, LINE_PAD, LINE_PAD + end - pos, pos - LINE_PAD };

	if (end - pos > LINE_MAX) {
		*stop = s->join != NULL;
		out[0] = AXL_TRACE_SCAN_OTHER;
		out[1] = line;
		out[2] = (double)pos;
		out[3] = (double)end;
		return 4;
	}
	copy_line(s->line + LINE_PAD, text + pos, end - pos);
	memset(s->line + l.b, 0, LINE_PAD);
	return scan_one(s, &l, ascii, line, out, stop);
}

/*
 * Scans the lines of @text[0..@len) that end in '\n' (a '\r' before it is not part of the
 * line). Records go to @out from out[2] on: out[0] is the words written, out[1] the lines
 * read. Stops early when @out could not hold another record. Returns the bytes read (up to
 * and including the last newline read), or -EINVAL.
 */
int32_t axl_trace_scan(uint8_t *state, const uint8_t *text, uint32_t len, double *out,
		       uint32_t out_len)
{
	struct scan_state *s = (struct scan_state *)(void *)state;
	uint32_t used = 2, lines = 0;
	long pos = 0, ascii_to = 0;
	int ascii = 0;

	if (!state || !out || (!text && len) || out_len < 2 + AXL_TRACE_SCAN_RECORD_MAX ||
	    len > INT32_MAX)
		return -EINVAL;
	if (s->magic != STATE_MAGIC) {
		memset(s, 0, sizeof(*s));
		s->magic = STATE_MAGIC;
	}
	if (!classes['a'])
		fill_classes();
	while (pos < (long)len && used + AXL_TRACE_SCAN_RECORD_MAX <= out_len) {
		const uint8_t *nl = memchr(text + pos, '\n', len - (size_t)pos);
		long end;
		int stop = 0;

		if (!nl)
			break;
		end = nl - text;
		if (end >= ascii_to) {
			/* The next block is checked at once; a scan that stops early checked little. */
			ascii_to = pos + ASCII_BLOCK > end + 1 ? pos + ASCII_BLOCK : end + 1;
			if (ascii_to > (long)len)
				ascii_to = (long)len;
			ascii = ascii_only(text + pos, (size_t)(ascii_to - pos));
		}
		if (end > pos && text[end - 1] == '\r')
			end--;
		used += scan_line(s, text, pos, end, ascii, lines, out + used, &stop);
		lines++;
		pos = nl - text + 1;
		if (stop)
			break;
	}
	out[0] = used;
	out[1] = lines;
	return (int32_t)pos;
}

/* ------------------------------------------------------------------------------------ */
/* The join's API.                                                                        */

static struct scan_state *state_of(uint8_t *state)
{
	struct scan_state *s = (struct scan_state *)(void *)state;

	if (!s)
		return NULL;
	if (s->magic != STATE_MAGIC) {
		memset(s, 0, sizeof(*s));
		s->magic = STATE_MAGIC;
	}
	if (!classes['a'])
		fill_classes();
	return s;
}

/*
 * Starts the frame join (FrameJoin with these options) in @state: from now on the scanner
 * folds the events it reads into it, and skips function_graph context switches. 0, -EINVAL
 * (bad options, or a join already running), -ENOMEM.
 */
int32_t axl_trace_join_start(uint8_t *state, double list_limit, double window)
{
	struct scan_state *s = state_of(state);
	int err;

	if (!s || s->join || !(list_limit >= 0) || !(window >= 1))
		return -EINVAL;
	s->join = malloc(sizeof(*s->join));
	if (!s->join)
		return -ENOMEM;
	err = trace_join_init(s->join, list_limit, window);
	if (err) {
		free(s->join);
		s->join = NULL;
	}
	return err;
}

/* An event TypeScript read, in line order with the scanner's (see AXL_TRACE_JOIN_*). */
int32_t axl_trace_join_add(uint8_t *state, int32_t kind, const double *a, const uint8_t *text,
			   uint32_t len)
{
	struct scan_state *s = state_of(state);
	struct trace_join *j = s ? s->join : NULL;
	int32_t exporter;

	if (!j || !a || j->ended || (!text && len))
		return -EINVAL;
	switch (kind) {
	case AXL_TRACE_JOIN_IMPORT:
		exporter = trace_join_keep(j, text, len);
		if (exporter < 0)
			return -ENOMEM;
		trace_join_import(j, a[0], a[1], exporter, a[2], a[3]);
		return 0;
	case AXL_TRACE_JOIN_RELEASE:
		trace_join_release(j, a[0], a[1], a[2]);
		return 0;
	case AXL_TRACE_JOIN_SUBMIT:
		trace_join_submit(j, a[0], a[1], a[2], a[3], a[4], a[5]);
		return 0;
	case AXL_TRACE_JOIN_COMPLETE:
		trace_join_complete(j, a[0], a[1], a[2], a[3]);
		return 0;
	case AXL_TRACE_JOIN_SIGNALED:
		trace_join_signaled(j, a[0], a[1], a[2]);
		return 0;
	case AXL_TRACE_JOIN_DESTROYED:
		trace_join_destroyed(j, a[0], a[1]);
		return 0;
	}
	return -EINVAL;
}

/*
 * Ends the join (open frames are closed) and writes its counts: imports, releases, submits,
 * completes, unimported submits, frames, t0, frames open at the end, fence wait lines,
 * earliest and latest time folded (NaN: none), strings kept. -ENOMEM when the join ran out
 * of memory on the way (its answer would be wrong).
 */
int32_t axl_trace_join_summary(uint8_t *state, double *out, uint32_t out_len)
{
	struct scan_state *s = state_of(state);
	struct trace_join *j = s ? s->join : NULL;
	struct table *t;

	if (!j || !out || out_len < AXL_TRACE_JOIN_SUMMARY_WORDS)
		return -EINVAL;
	t = trace_join_end(j);
	if (j->failed)
		return -ENOMEM;
	memset(out, 0, sizeof(*out) * AXL_TRACE_JOIN_SUMMARY_WORDS);
	out[0] = j->imports;
	out[1] = j->releases;
	out[2] = j->submits;
	out[3] = j->completes;
	out[4] = j->unimported_submits;
	out[5] = t->count;
	out[6] = t->t0;
	out[7] = j->live_at_end;
	out[8] = j->fence_wait_lines;
	out[9] = j->first_ts;
	out[10] = j->last_ts;
	out[11] = j->nstrings;
	return 0;
}

/* Writes the words of AXL_TRACE_JOIN_READ_@what; returns how many, or the room needed
 * when @out is NULL or shorter (nothing written then), or -EINVAL. */
int32_t axl_trace_join_read(uint8_t *state, int32_t what, double *out, uint32_t out_len)
{
	struct scan_state *s = state_of(state);
	int64_t n = 0;

	if (!s || !s->join)
		return -EINVAL;
	if (what == AXL_TRACE_JOIN_READ_EVENT_COUNTS) {
		struct name_table *t = &s->events;

		for (uint32_t i = 0; i < t->used; i++)
			n += t->entries[i].count > 0 ? 2 : 0;
		if (!out || n > out_len)
			return (int32_t)n;
		n = 0;
		for (uint32_t i = 0; i < t->used; i++) {
			if (t->entries[i].count > 0) {
				out[n++] = i;
				out[n++] = t->entries[i].count;
			}
		}
		return (int32_t)n;
	}
	n = trace_join_read(s->join, what, out, out_len);
	return n > INT32_MAX ? -E2BIG : (int32_t)n;
}

/* The bytes of string @id (an exporter); returns its length (more than @out_len: nothing
 * written), or -EINVAL. */
int32_t axl_trace_join_string(uint8_t *state, int32_t id, uint8_t *out, uint32_t out_len)
{
	struct scan_state *s = state_of(state);
	struct trace_join *j = s ? s->join : NULL;

	if (!j || id < 0 || id >= j->nstrings)
		return -EINVAL;
	if (out && j->strings[id].len <= out_len)
		memcpy(out, j->strings[id].bytes, j->strings[id].len);
	return (int32_t)j->strings[id].len;
}

/*
 * Events of name number @num are only counted from now on (and their time taken), not
 * reported: the caller saw the first one and folds nothing else of them. -EINVAL when no
 * join runs or the number is not a name's.
 */
int32_t axl_trace_join_count_only(uint8_t *state, int32_t num)
{
	struct scan_state *s = state_of(state);

	if (!s || !s->join || num < 0 || (uint32_t)num >= s->events.used)
		return -EINVAL;
	s->event_kind[num] = EV_COUNT;
	s->announced[num] = 1;
	return 0;
}

/* Frees the join; the scanner goes on without it. */
void axl_trace_join_stop(uint8_t *state)
{
	struct scan_state *s = state_of(state);

	if (!s || !s->join)
		return;
	trace_join_free(s->join);
	free(s->join);
	s->join = NULL;
}
