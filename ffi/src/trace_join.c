// SPDX-License-Identifier: MIT
/*
 * The frame join in C: axl and dma_fence events joined into frames as the scanner reads them
 * (trace_scan.c feeds it), so that TypeScript receives frames and counts, not events.
 *
 * This is FrameJoin of lib/verify/frames.ts, rule for rule, and that class stays the
 * reference a test holds this one against. Numbers are doubles as in TypeScript (NaN is a
 * value: a field that was absent or not a number); map keys compare as a JavaScript Map
 * compares numbers (NaN equals NaN, -0 equals 0), and maps that TypeScript iterates keep
 * their insertion order. Frames keep the order their fields were first set in, so that the
 * frames TypeScript rebuilds serialise to the same JSON.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "trace_join.h"

/* ------------------------------------------------------------------------------------ */
/* A map keyed by a pair of numbers, in insertion order.                                 */


static double canon(double x)
{
	return x == 0 ? 0 : isnan(x) ? NAN : x;
}

static int same(double x, double y)
{
	return x == y || (isnan(x) && isnan(y));
}

static uint32_t pair_hash(double a, double b)
{
	uint64_t x, y;

	a = canon(a);
	b = canon(b);
	memcpy(&x, &a, 8);
	memcpy(&y, &b, 8);
	x ^= y * 0x9e3779b97f4a7c15ULL;
	x ^= x >> 29;
	x *= 0xbf58476d1ce4e5b9ULL;
	return (uint32_t)(x ^ (x >> 32));
}

static void omap_free(struct omap *m)
{
	free(m->e);
	free(m->buckets);
	memset(m, 0, sizeof(*m));
}

static int omap_rehash(struct omap *m, int32_t nbuckets)
{
	int32_t *b = malloc(sizeof(*b) * (size_t)nbuckets);

	if (!b)
		return -ENOMEM;
	for (int32_t i = 0; i < nbuckets; i++)
		b[i] = -1;
	free(m->buckets);
	m->buckets = b;
	m->nbuckets = nbuckets;
	for (int32_t i = m->oldest; i != -1; i = m->e[i].newer) {
		uint32_t h = pair_hash(m->e[i].a, m->e[i].b) & (uint32_t)(nbuckets - 1);

		m->e[i].chain = b[h];
		b[h] = i;
	}
	return 0;
}

static int omap_init(struct omap *m)
{
	memset(m, 0, sizeof(*m));
	m->free_list = m->oldest = m->newest = -1;
	return omap_rehash(m, 16);
}

static int32_t omap_find(const struct omap *m, double a, double b)
{
	uint32_t h = pair_hash(a, b) & (uint32_t)(m->nbuckets - 1);

	for (int32_t i = m->buckets[h]; i != -1; i = m->e[i].chain)
		if (same(m->e[i].a, a) && same(m->e[i].b, b))
			return i;
	return -1;
}

/* The entry of (a, b), added last in order when new (*@fresh set); -1 without memory. */
static int32_t omap_put(struct omap *m, double a, double b, int *fresh)
{
	int32_t i = omap_find(m, a, b);
	uint32_t h;

	*fresh = 0;
	if (i != -1)
		return i;
	if (m->free_list != -1) {
		i = m->free_list;
		m->free_list = m->e[i].chain;
	} else {
		if (m->used == m->cap) {
			int32_t cap = m->cap ? 2 * m->cap : 16;
			struct omap_entry *e = realloc(m->e, sizeof(*e) * (size_t)cap);

			if (!e)
				return -1;
			m->e = e;
			m->cap = cap;
		}
		i = m->used++;
	}
	m->e[i] = (struct omap_entry){ .a = canon(a), .b = canon(b), .older = m->newest,
				       .newer = -1 };
	if (m->newest != -1)
		m->e[m->newest].newer = i;
	else
		m->oldest = i;
	m->newest = i;
	m->size++;
	*fresh = 1;
	if (m->size > m->nbuckets && omap_rehash(m, 2 * m->nbuckets) == 0)
		return i; /* the rehash chained the new entry too */
	h = pair_hash(a, b) & (uint32_t)(m->nbuckets - 1);
	m->e[i].chain = m->buckets[h];
	m->buckets[h] = i;
	return i;
}

static void omap_delete(struct omap *m, int32_t i)
{
	uint32_t h;
	int32_t *p;

	if (i < 0)
		return;
	h = pair_hash(m->e[i].a, m->e[i].b) & (uint32_t)(m->nbuckets - 1);
	for (p = &m->buckets[h]; *p != i; p = &m->e[*p].chain)
		;
	*p = m->e[i].chain;
	if (m->e[i].older != -1)
		m->e[m->e[i].older].newer = m->e[i].newer;
	else
		m->oldest = m->e[i].newer;
	if (m->e[i].newer != -1)
		m->e[m->e[i].newer].older = m->e[i].older;
	else
		m->newest = m->e[i].older;
	m->e[i].chain = m->free_list;
	m->free_list = i;
	m->size--;
}

/* ------------------------------------------------------------------------------------ */
/* Frames and their tables (FrameTable).                                                 */

static void frame_set(struct join_frame *f, int field, double v)
{
	if (!(f->present & (1u << field))) {
		f->present |= (uint16_t)(1u << field);
		f->order[f->n++] = (uint8_t)field;
	}
	f->v[field] = v;
}

static void frame_delete(struct join_frame *f, int field)
{
	int k = 0;

	if (!(f->present & (1u << field)))
		return;
	f->present &= (uint16_t)~(1u << field);
	for (int i = 0; i < f->n; i++)
		if (f->order[i] != field)
			f->order[k++] = f->order[i];
	f->n = (uint8_t)k;
}

static int frame_has(const struct join_frame *f, int field)
{
	return !!(f->present & (1u << field));
}



static int table_init(struct table *t)
{
	memset(t, 0, sizeof(*t));
	t->t0 = INFINITY;
	return omap_init(&t->awaiting_release);
}

static void table_free(struct table *t)
{
	free(t->seqno);
	free(t->latency);
	free(t->source);
	free(t->list);
	free(t->open);
	omap_free(&t->awaiting_release);
	memset(t, 0, sizeof(*t));
}

static struct open_frame *open_at(struct table *t, int32_t index)
{
	int32_t slot = index - t->base;

	return index < 0 || slot < 0 || slot >= t->len ? NULL : &t->open[slot];
}

static int grow(void **p, int32_t *cap, int32_t need, size_t size)
{
	int32_t n = *cap ? *cap : 64;
	void *q;

	if (need <= *cap)
		return 0;
	while (n < need)
		n *= 2;
	q = realloc(*p, size * (size_t)n);
	if (!q)
		return -ENOMEM;
	*p = q;
	*cap = n;
	return 0;
}

/* ------------------------------------------------------------------------------------ */
/* The join.                                                                              */

static int32_t keep_string(struct trace_join *j, const uint8_t *s, uint32_t len)
{
	for (int32_t i = 0; i < j->nstrings; i++)
		if (j->strings[i].len == len && !memcmp(j->strings[i].bytes, s, len))
			return i;
	if (grow((void **)&j->strings, &j->strings_cap, j->nstrings + 1, sizeof(*j->strings)))
		return -ENOMEM;
	j->strings[j->nstrings].bytes = malloc(len ? len : 1);
	if (!j->strings[j->nstrings].bytes)
		return -ENOMEM;
	memcpy(j->strings[j->nstrings].bytes, s, len);
	j->strings[j->nstrings].len = len;
	return j->nstrings++;
}

int trace_join_init(struct trace_join *j, double list_limit, double window)
{
	memset(j, 0, sizeof(*j));
	j->list_limit = list_limit;
	j->window = window;
	j->first_ts = NAN;
	j->last_ts = NAN;
	j->import_frames_on = 1;
	if (omap_init(&j->inodes) || omap_init(&j->exporter_of) || omap_init(&j->exporters) ||
	    omap_init(&j->balance) || omap_init(&j->last_import) || omap_init(&j->early) ||
	    omap_init(&j->by_key) || table_init(&j->jobs) || table_init(&j->import_frames)) {
		trace_join_free(j);
		return -ENOMEM;
	}
	return 0;
}

void trace_join_free(struct trace_join *j)
{
	for (int32_t i = 0; i < j->nstrings; i++)
		free(j->strings[i].bytes);
	free(j->strings);
	omap_free(&j->inodes);
	omap_free(&j->exporter_of);
	omap_free(&j->exporters);
	omap_free(&j->balance);
	omap_free(&j->last_import);
	omap_free(&j->early);
	omap_free(&j->by_key);
	table_free(&j->jobs);
	table_free(&j->import_frames);
	memset(j, 0, sizeof(*j));
}

static void set_add(struct trace_join *j, struct omap *m, double a)
{
	int fresh;

	if (omap_put(m, a, 0, &fresh) < 0)
		j->failed = 1;
}

/* Map.set(key, v0): an existing key keeps its place. */
static int32_t map_set(struct trace_join *j, struct omap *m, double a, double b)
{
	int fresh;
	int32_t i = omap_put(m, a, b, &fresh);

	if (i < 0)
		j->failed = 1;
	return i;
}

static void columns_set(struct trace_join *j, struct table *t, const struct join_frame *f)
{
	int32_t i = (int32_t)f->v[JF_INDEX];

	if (i >= t->columns_cap) {
		/* The three columns share one capacity. */
		int32_t cap = t->columns_cap, lat_cap = cap, src_cap = cap;

		if (grow((void **)&t->seqno, &cap, i + 1, sizeof(double)) ||
		    grow((void **)&t->latency, &lat_cap, i + 1, sizeof(double)) ||
		    grow((void **)&t->source, &src_cap, i + 1, 1)) {
			j->failed = 1;
			return;
		}
		t->columns_cap = cap;
	}
	t->seqno[i] = frame_has(f, JF_SEQNO) ? f->v[JF_SEQNO] : NAN;
	t->latency[i] = frame_has(f, JF_LATENCY) ? f->v[JF_LATENCY] : NAN;
	t->source[i] = frame_has(f, JF_LATENCY_SOURCE) ? (uint8_t)f->v[JF_LATENCY_SOURCE] : 0;
}

static void unlink_frame(struct table *t, struct omap *m, double a, double b, int32_t index,
			 int by_key)
{
	int32_t e = omap_find(m, a, b), prev = -1;

	if (e < 0)
		return;
	for (int32_t x = m->e[e].i0; x != -1;) {
		struct open_frame *o = open_at(t, x);
		int32_t next;

		if (!o)
			return;
		next = by_key ? o->same_key : o->same_handle;
		if (x != index) {
			prev = x;
			x = next;
			continue;
		}
		if (prev != -1) {
			struct open_frame *p = open_at(t, prev);

			if (by_key)
				p->same_key = next;
			else
				p->same_handle = next;
		} else if (next != -1) {
			m->e[e].i0 = next;
		} else {
			omap_delete(m, e);
		}
		return;
	}
}

static void close_frame(struct trace_join *j, struct table *t, struct open_frame *o)
{
	struct join_frame *f = &o->f;
	int32_t index = (int32_t)f->v[JF_INDEX];

	t->live--;
	if (o->has_signal)
		frame_set(f, JF_SIGNAL_TS, o->fence_signal);
	else if (o->completed && frame_has(f, JF_COMPLETE_TS))
		frame_set(f, JF_SIGNAL_TS, f->v[JF_COMPLETE_TS]);
	if (frame_has(f, JF_SUBMIT_TS) && frame_has(f, JF_SIGNAL_TS) &&
	    f->v[JF_SIGNAL_TS] >= f->v[JF_SUBMIT_TS]) {
		frame_set(f, JF_LATENCY, f->v[JF_SIGNAL_TS] - f->v[JF_SUBMIT_TS]);
		frame_set(f, JF_LATENCY_SOURCE, JF_FROM_TRACE);
	}
	columns_set(j, t, f);
	if ((double)index < j->list_limit) {
		if (grow((void **)&t->list, &t->list_cap, index + 1, sizeof(*t->list))) {
			j->failed = 1;
		} else {
			while (t->list_len <= index)
				t->list[t->list_len++].n = 0;
			t->list[index] = *f;
		}
	}
	if (o->has_key)
		unlink_frame(t, &j->by_key, o->key_a, o->key_b, index, 1);
	if (!o->released && frame_has(f, JF_HANDLE))
		unlink_frame(t, &t->awaiting_release, f->v[JF_HANDLE], 0, index, 0);
}

static void settle(struct trace_join *j, struct table *t, struct open_frame *o)
{
	if (!o->released || (o->has_key && (!o->completed || !o->has_signal)))
		return;
	close_frame(j, t, o);
	o->present = 0;
}

/* FrameTable.add(): the new frame's index, or -1 without memory. */
static int32_t table_add(struct trace_join *j, struct table *t, const struct join_frame *f)
{
	struct open_frame *o;
	int32_t index = (int32_t)f->v[JF_INDEX];

	if (grow((void **)&t->open, &t->open_cap, t->len + 1, sizeof(*t->open))) {
		j->failed = 1;
		return -1;
	}
	o = &t->open[t->len++];
	memset(o, 0, sizeof(*o));
	o->f = *f;
	o->present = 1;
	o->same_key = o->same_handle = -1;
	if (frame_has(f, JF_IMPORT_TS) && f->v[JF_IMPORT_TS] < t->t0)
		t->t0 = f->v[JF_IMPORT_TS];
	if (frame_has(f, JF_SUBMIT_TS) && f->v[JF_SUBMIT_TS] < t->t0)
		t->t0 = f->v[JF_SUBMIT_TS];
	if (!isnan(f->v[JF_HANDLE])) {
		int fresh;
		int32_t e = omap_put(&t->awaiting_release, f->v[JF_HANDLE], 0, &fresh);

		if (e < 0) {
			j->failed = 1;
		} else {
			o->same_handle = fresh ? -1 : t->awaiting_release.e[e].i0;
			t->awaiting_release.e[e].i0 = index;
		}
	}
	t->live++;
	return index;
}

static void table_trim(struct trace_join *j, struct table *t)
{
	while ((double)(t->len - t->head) > j->window) {
		struct open_frame *o = &t->open[t->head++];

		if (o->present) {
			close_frame(j, t, o);
			o->present = 0;
		}
	}
	while (t->head < t->len && !t->open[t->head].present)
		t->head++;
	if (t->head > 1024 && t->head * 2 > t->len) {
		memmove(t->open, t->open + t->head, sizeof(*t->open) * (size_t)(t->len - t->head));
		t->len -= t->head;
		t->base += t->head;
		t->head = 0;
	}
}

static void complete(struct open_frame *o, double status, double ts)
{
	o->completed = 1;
	frame_set(&o->f, JF_STATUS, status);
	if (!isnan(ts))
		frame_set(&o->f, JF_COMPLETE_TS, ts);
	else
		frame_delete(&o->f, JF_COMPLETE_TS);
}

void trace_join_import(struct trace_join *j, double handle, double inode, int32_t exporter,
		       double ts, double pid)
{
	struct join_frame f = { 0 };
	int32_t e;

	j->imports++;
	if (isfinite(inode))
		set_add(j, &j->inodes, inode);
	if (j->strings[exporter].len) {
		e = map_set(j, &j->exporter_of, inode, 0);
		if (e >= 0)
			j->exporter_of.e[e].i0 = exporter;
		set_add(j, &j->exporters, exporter);
	}
	e = map_set(j, &j->balance, handle, 0);
	if (e >= 0)
		j->balance.e[e].v0++;
	if (!isnan(handle) && !isnan(inode)) {
		omap_delete(&j->last_import, omap_find(&j->last_import, handle, inode));
		e = map_set(j, &j->last_import, handle, inode);
		if (e >= 0) {
			j->last_import.e[e].i0 = exporter;
			j->last_import.e[e].v0 = ts;
		}
		if ((double)j->last_import.size > j->window)
			omap_delete(&j->last_import, j->last_import.oldest);
	}
	if (!j->import_frames_on)
		return;
	frame_set(&f, JF_INDEX, j->import_frames.count++);
	frame_set(&f, JF_HANDLE, handle);
	frame_set(&f, JF_INODE, inode);
	frame_set(&f, JF_EXPORTER, exporter);
	if (!isnan(pid))
		frame_set(&f, JF_PID, pid);
	if (!isnan(ts))
		frame_set(&f, JF_IMPORT_TS, ts);
	table_add(j, &j->import_frames, &f);
	table_trim(j, &j->import_frames);
}

static void release_in(struct trace_join *j, struct table *t, double handle, double ts)
{
	int32_t e = omap_find(&t->awaiting_release, handle, 0), x;

	if (e < 0)
		return;
	x = t->awaiting_release.e[e].i0;
	omap_delete(&t->awaiting_release, e);
	while (x != -1) {
		struct open_frame *o = open_at(t, x);

		if (!o)
			break;
		o->released = 1;
		if (!isnan(ts))
			frame_set(&o->f, JF_RELEASE_TS, ts);
		x = o->same_handle;
		settle(j, t, o);
	}
}

void trace_join_release(struct trace_join *j, double handle, double inode, double ts)
{
	int32_t e = omap_find(&j->balance, handle, 0);
	double n = (e >= 0 ? j->balance.e[e].v0 : 0) - 1;

	j->releases++;
	if (n == 0) {
		omap_delete(&j->balance, e);
	} else {
		e = map_set(j, &j->balance, handle, 0);
		if (e >= 0)
			j->balance.e[e].v0 = n;
	}
	if (!isnan(handle) && !isnan(inode))
		omap_delete(&j->last_import, omap_find(&j->last_import, handle, inode));
	release_in(j, &j->jobs, handle, ts);
	if (j->import_frames_on)
		release_in(j, &j->import_frames, handle, ts);
}

static int32_t remember(struct trace_join *j, double context, double seqno)
{
	int fresh;
	int32_t e = omap_put(&j->early, context, seqno, &fresh);

	if (e < 0) {
		j->failed = 1;
		return -1;
	}
	if (fresh) {
		j->early.e[e].v0 = NAN; /* signalled at */
		j->early.e[e].i0 = 0;	/* completed */
		if ((double)j->early.size > j->window) {
			omap_delete(&j->early, j->early.oldest);
			/* the oldest was never the fresh one while the window is >= 1 */
		}
	}
	return e;
}

void trace_join_submit(struct trace_join *j, double context, double seqno, double handle,
		       double inode, double ts, double pid)
{
	struct table *t = &j->jobs;
	struct join_frame f = { 0 };
	struct open_frame *o;
	int32_t e, index;

	j->submits++;
	j->import_frames_on = 0;
	if (isfinite(inode))
		set_add(j, &j->inodes, inode);
	frame_set(&f, JF_INDEX, t->count++);
	frame_set(&f, JF_CONTEXT, context);
	frame_set(&f, JF_SEQNO, seqno);
	frame_set(&f, JF_HANDLE, handle);
	frame_set(&f, JF_INODE, inode);
	if (!isnan(pid))
		frame_set(&f, JF_PID, pid);
	if (!isnan(ts))
		frame_set(&f, JF_SUBMIT_TS, ts);
	e = isnan(handle) || isnan(inode) ? -1 : omap_find(&j->last_import, handle, inode);
	if (e >= 0) {
		frame_set(&f, JF_EXPORTER, j->last_import.e[e].i0);
		if (!isnan(j->last_import.e[e].v0))
			frame_set(&f, JF_IMPORT_TS, j->last_import.e[e].v0);
	} else if (!isnan(handle) && !isnan(inode)) {
		j->unimported_submits++;
	}
	index = table_add(j, t, &f);
	o = open_at(t, index);
	if (!o)
		return;
	o->has_key = 1;
	o->key_a = context;
	o->key_b = seqno;
	{
		int fresh;

		e = omap_put(&j->by_key, context, seqno, &fresh);
		if (e < 0) {
			j->failed = 1;
		} else {
			o->same_key = fresh ? -1 : j->by_key.e[e].i0;
			j->by_key.e[e].i0 = index;
		}
	}
	e = omap_find(&j->early, context, seqno);
	if (e >= 0) {
		if (!isnan(j->early.e[e].v0)) {
			o->has_signal = 1;
			o->fence_signal = j->early.e[e].v0;
		}
		if (j->early.e[e].i0)
			complete(o, j->early.e[e].v2, j->early.e[e].v1);
	}
	table_trim(j, t);
}

/* The newest open job frame of (context, seqno), or -1. */
static int32_t job_of(struct trace_join *j, double context, double seqno)
{
	int32_t e = omap_find(&j->by_key, context, seqno);

	return e < 0 ? -1 : j->by_key.e[e].i0;
}

void trace_join_complete(struct trace_join *j, double context, double seqno, double status,
			 double ts)
{
	int32_t x = job_of(j, context, seqno);

	j->completes++;
	if (x == -1) {
		int32_t e = remember(j, context, seqno);

		if (e >= 0) {
			j->early.e[e].i0 = 1;
			j->early.e[e].v1 = ts;
			j->early.e[e].v2 = status;
		}
		return;
	}
	while (x != -1) {
		struct open_frame *o = open_at(&j->jobs, x);

		if (!o)
			break;
		complete(o, status, ts);
		x = o->same_key;
		settle(j, &j->jobs, o);
	}
}

void trace_join_signaled(struct trace_join *j, double context, double seqno, double ts)
{
	int32_t x;

	if (isnan(ts))
		return;
	x = job_of(j, context, seqno);
	if (x == -1) {
		int32_t e = remember(j, context, seqno);

		if (e >= 0 && isnan(j->early.e[e].v0))
			j->early.e[e].v0 = ts;
		return;
	}
	while (x != -1) {
		struct open_frame *o = open_at(&j->jobs, x);

		if (!o)
			break;
		if (!o->has_signal) {
			o->has_signal = 1;
			o->fence_signal = ts;
		}
		x = o->same_key;
		settle(j, &j->jobs, o);
	}
}

void trace_join_destroyed(struct trace_join *j, double context, double seqno)
{
	omap_delete(&j->early, omap_find(&j->early, context, seqno));
}

struct table *trace_join_end(struct trace_join *j)
{
	struct table *t = j->import_frames_on ? &j->import_frames : &j->jobs;

	if (!j->ended) {
		j->ended = 1;
		j->live_at_end = t->live;
		for (int32_t i = t->head; i < t->len; i++) {
			if (t->open[i].present) {
				close_frame(j, t, &t->open[i]);
				t->open[i].present = 0;
			}
		}
		t->len = t->head = 0;
	}
	return t;
}

/* ------------------------------------------------------------------------------------ */
/* Reading the result.                                                                    */

/* Words that AXL_TRACE_JOIN_READ_* of @what needs. */
static int64_t read_words(struct trace_join *j, struct table *t, int32_t what)
{
	switch (what) {
	case AXL_TRACE_JOIN_READ_SEQNO:
	case AXL_TRACE_JOIN_READ_LATENCY:
	case AXL_TRACE_JOIN_READ_SOURCE:
		return t->count;
	case AXL_TRACE_JOIN_READ_LIST: {
		int64_t n = 0;

		for (int32_t i = 0; i < t->list_len; i++)
			n += 1 + 2 * t->list[i].n;
		return n;
	}
	case AXL_TRACE_JOIN_READ_INODES:
		return j->inodes.size;
	case AXL_TRACE_JOIN_READ_EXPORTER_OF:
		return 2 * (int64_t)j->exporter_of.size;
	case AXL_TRACE_JOIN_READ_EXPORTERS:
		return j->exporters.size;
	case AXL_TRACE_JOIN_READ_UNRELEASED:
		return j->balance.size;
	}
	return -1;
}

int64_t trace_join_read(struct trace_join *j, int32_t what, double *out, uint32_t out_len)
{
	struct table *t = trace_join_end(j);
	int64_t need = read_words(j, t, what), n = 0;

	if (need < 0)
		return -EINVAL;
	if (!out || need > out_len)
		return need;
	switch (what) {
	case AXL_TRACE_JOIN_READ_SEQNO:
		for (int32_t i = 0; i < t->count; i++)
			out[i] = t->seqno[i];
		return t->count;
	case AXL_TRACE_JOIN_READ_LATENCY:
		for (int32_t i = 0; i < t->count; i++)
			out[i] = t->latency[i];
		return t->count;
	case AXL_TRACE_JOIN_READ_SOURCE:
		for (int32_t i = 0; i < t->count; i++)
			out[i] = t->source[i];
		return t->count;
	case AXL_TRACE_JOIN_READ_LIST:
		for (int32_t i = 0; i < t->list_len; i++) {
			const struct join_frame *f = &t->list[i];

			out[n++] = f->n;
			for (int k = 0; k < f->n; k++) {
				out[n++] = f->order[k];
				out[n++] = f->v[f->order[k]];
			}
		}
		return n;
	case AXL_TRACE_JOIN_READ_INODES:
		for (int32_t i = j->inodes.oldest; i != -1; i = j->inodes.e[i].newer)
			out[n++] = j->inodes.e[i].a;
		return n;
	case AXL_TRACE_JOIN_READ_EXPORTER_OF:
		for (int32_t i = j->exporter_of.oldest; i != -1; i = j->exporter_of.e[i].newer) {
			out[n++] = j->exporter_of.e[i].a;
			out[n++] = j->exporter_of.e[i].i0;
		}
		return n;
	case AXL_TRACE_JOIN_READ_EXPORTERS:
		for (int32_t i = j->exporters.oldest; i != -1; i = j->exporters.e[i].newer)
			out[n++] = j->exporters.e[i].a;
		return n;
	case AXL_TRACE_JOIN_READ_UNRELEASED:
		for (int32_t i = j->balance.oldest; i != -1; i = j->balance.e[i].newer)
			if (j->balance.e[i].v0 > 0)
				out[n++] = j->balance.e[i].a;
		return n;
	}
	return -EINVAL;
}

int32_t trace_join_keep(struct trace_join *j, const uint8_t *s, uint32_t len)
{
	int32_t id = keep_string(j, s, len);

	if (id < 0)
		j->failed = 1;
	return id;
}
