// SPDX-License-Identifier: GPL-2.0
/*
 * axl_fuzz: a seeded storm of random and half-valid axl ioctls.
 *
 *   axl_fuzz [--seed N] [--iterations N] [--threads N] [--time-limit S]
 *            [--no-remove]
 *
 * Defaults: seed 1 (or $AXL_FUZZ_SEED), 100000 ioctls, 2 threads, 240 s.
 * Every thread has its own seeded generator and its own two open files;
 * all threads also share a third open file, so handle lookups, releases
 * and submits on one file race each other. With --threads 1 a run is
 * reproducible call for call.
 *
 * Commands (IMPORT_FD, IMPORT_FD2, SUBMIT, RELEASE_IMPORT, GET_INFO, the
 * Metis-compatible node's ioctls on its own files, near-valid ones with
 * wrong size/direction, other magics, random), argument sizes and pointers (NULL, unmapped, read-only), fds
 * (dma-bufs, closed, /dev/null, the device, fences, random), flags,
 * reserved fields, geometry, planes and handles are all drawn at random, with
 * the fault injection knobs turned now and then. When the engine is a PCI
 * device, another thread removes it and rescans the bus every so often
 * meanwhile (then ENODEV is expected too; --no-remove turns that off), and
 * brings it back at the end. Every return code must be in
 * the documented set for its command. Afterwards: every file's import
 * count matches what the fuzzer kept, the driver's live counters and the
 * dma-buf count are back to their baseline, nothing is attached to the
 * engine's device, the kernel log shows no WARN/BUG/Oops, and every ioctl
 * of both ABIs was answered 0 at least once (a storm that never gets past
 * a command's checks has not fuzzed it).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <glob.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>
#include <linux/axl_metis.h>

#include "axl_util.h"

#define PAGE 4096u
#define NBUFS 8
#define NFENCES 24
#define MAX_HANDLES 256

/* errno sets, as bit masks over errno values below 128 */
typedef unsigned __int128 errset;
#define E(x) ((errset)1 << (x))
#define OK_INFO    (E(0) | E(EFAULT))
#define OK_IMPORT  (E(0) | E(EINVAL) | E(EBADF) | E(ENOSPC) | E(EFAULT) | E(EBUSY) | \
		    OK_GONE)
#define OK_IMPORT2 (OK_IMPORT | E(EOPNOTSUPP))
/*
 * ETIMEDOUT: a job's fence is in its result buffer, and a submit reading that
 * buffer (the fuzzer uses its buffers as inputs and results alike) waits for
 * the writing job at most its own timeout
 */
#define OK_SUBMIT  (E(0) | E(EINVAL) | E(EBADF) | E(ENOENT) | E(EBUSY) | E(EFAULT) | \
		    E(EMFILE) | E(ENOSPC) | E(ETIMEDOUT) | OK_GONE)
#define OK_RELEASE (E(0) | E(EINVAL) | E(ENOENT) | E(EBUSY) | E(EFAULT))
#define OK_UNKNOWN E(ENOTTY)
/* the Metis node: its documented errors; a status or event count is >= 0 */
#define OK_METIS   (E(0) | E(EINVAL) | E(EBADF) | E(EBUSY) | E(EFAULT) | E(ETIMEDOUT) | \
		    E(EINTR) | E(ENOTTY) | OK_GONE | OK_CANCELLED)
/* ENODEV only while the engine's device is removed by the remover thread */
#define OK_GONE    (removing ? E(ENODEV) : 0)
/* and only then: a Metis transfer still queued when the device goes ends -ECANCELED
 * (axl_metis_stop() in kernel/axl_metis_xfer.c) */
#define OK_CANCELLED (removing ? E(ECANCELED) : 0)

enum op { OP_INFO, OP_IMPORT, OP_IMPORT2, OP_SUBMIT, OP_RELEASE, OP_UNKNOWN, OP_METIS, OP_COUNT };
static const char *const op_names[] = { "GET_INFO", "IMPORT_FD", "IMPORT_FD2", "SUBMIT",
					"RELEASE", "unknown", "metis" };

/* Every ioctl of both ABIs: the fuzzer must get each one answered 0 at least once. */
static const struct {
	const char *name;
	unsigned long cmd;
	bool metis; /* on the Metis node, not /dev/axl */
} covered[] = {
	{ "GET_INFO", AXL_IOCTL_GET_INFO, false },
	{ "IMPORT_FD", AXL_IOCTL_IMPORT_FD, false },
	{ "IMPORT_FD2", AXL_IOCTL_IMPORT_FD2, false },
	{ "SUBMIT", AXL_IOCTL_SUBMIT, false },
	{ "RELEASE_IMPORT", AXL_IOCTL_RELEASE_IMPORT, false },
	{ "metis GET_DEV_PROPERTY", AXL_METIS_IOCTL_GET_DEV_PROPERTY, true },
	{ "metis DMA_ATTACH", AXL_METIS_IOCTL_DMA_ATTACH, true },
	{ "metis DMA_DETACH", AXL_METIS_IOCTL_DMA_DETACH, true },
	{ "metis DMA_XFER", AXL_METIS_IOCTL_DMA_XFER, true },
	{ "metis DMA_GET_XFER_ASYNC_STATUS", AXL_METIS_IOCTL_DMA_GET_XFER_ASYNC_STATUS, true },
	{ "metis CLEAR_POLL_EVENT", AXL_METIS_IOCTL_CLEAR_POLL_EVENT, true },
	{ "metis GET_RESOURCE_INFO", AXL_METIS_IOCTL_GET_RESOURCE_INFO, true },
	{ "metis GET_DMA_STATS", AXL_METIS_IOCTL_GET_DMA_STATS, true },
};
#define NCOVERED ARRAY_SIZE(covered)

static struct {
	uint64_t seed;
	long iterations;
	int threads;
	int time_limit;
	bool remove;
} opt = { 1, 100000, 2, 240, true };

static int bufs[NBUFS];
static size_t buf_len[NBUFS];
static int shared_dev = -1;
static int null_fd = -1;
static void *ro_page;     /* readable, not writable */
static void *gap_page;    /* PROT_NONE */
static uint64_t deadline_ns;
static char metis_path[128]; /* the Metis-compatible node, or "" */
static bool removing;        /* the remover thread runs */
static atomic_bool workers_done;

struct worker {
	pthread_t tid;
	int id;
	uint64_t rng;
	long iterations;
	int devs[3];                      /* [0] shared, [1] [2] own */
	int metis;                        /* own file of the Metis node, or -1 */
	void *ro;                         /* page for read-only argument copies */
	uint32_t handles[3][MAX_HANDLES]; /* handles this worker imported */
	int nhandles[3];
	int fences[NFENCES];
	int nfences;
	long calls[OP_COUNT];
	long errs[OP_COUNT][128];
	long answered_ok[NCOVERED]; /* by ioctl, as in covered[] */
	long unexpected;
	char first_unexpected[256];
	long done;
	uint64_t ns;
	char failure[256];
};

static uint32_t rnd(struct worker *w)
{
	return (uint32_t)prng_next(&w->rng);
}

static uint32_t below(struct worker *w, uint32_t n)
{
	return n ? rnd(w) % n : 0;
}

static bool chance(struct worker *w, uint32_t percent)
{
	return below(w, 100) < percent;
}

/* Any fd-ish value: mostly dma-bufs, then everything that is not one. */
static int pick_fd(struct worker *w)
{
	switch (below(w, 12)) {
	case 0:
		return -1;
	case 1:
		return null_fd;
	case 2:
		return w->devs[below(w, 3)];
	case 3:
		return w->nfences ? w->fences[below(w, (uint32_t)w->nfences)] : -1;
	case 4:
		return (int)rnd(w);
	case 5:
		return 1000 + (int)below(w, 24); /* very likely closed */
	default:
		return bufs[below(w, NBUFS)];
	}
}

static uint32_t pick_dim(struct worker *w)
{
	static const uint32_t dims[] = { 0, 1, 2, 3, 63, 64, 320, 480, 640, 1080, 1920,
					 4096, 16384, 65535, 0x10000, 0xffffffff };

	return chance(w, 85) ? dims[below(w, ARRAY_SIZE(dims))] : rnd(w);
}

static uint32_t pick_handle(struct worker *w, int d)
{
	if (w->nhandles[d] && chance(w, 75))
		return w->handles[d][below(w, (uint32_t)w->nhandles[d])];
	switch (below(w, 4)) {
	case 0: return 0;
	case 1: return below(w, 300);
	case 2: return 0xffffffff;
	default: return rnd(w);
	}
}

static void forget_handle(struct worker *w, int d, uint32_t handle)
{
	for (int i = 0; i < w->nhandles[d]; i++) {
		if (w->handles[d][i] == handle) {
			w->handles[d][i] = w->handles[d][--w->nhandles[d]];
			return;
		}
	}
}

static void keep_fence(struct worker *w, int fd)
{
	if (w->nfences == NFENCES) {
		int victim = below(w, NFENCES);

		close(w->fences[victim]);
		w->fences[victim] = fd;
		return;
	}
	w->fences[w->nfences++] = fd;
}

/* A copy of @good the kernel can read but not write back to. */
static void *readonly_copy(struct worker *w, const void *good, size_t len)
{
	if (mprotect(w->ro, PAGE, PROT_READ | PROT_WRITE))
		return NULL;
	memcpy(w->ro, good, len);
	mprotect(w->ro, PAGE, PROT_READ);
	return w->ro;
}

/* A pointer for the argument: mostly a good buffer, sometimes a bad one. */
static void *pick_ptr(struct worker *w, void *good, size_t len, bool *bad)
{
	*bad = true;
	switch (below(w, 40)) {
	case 0:
		return NULL;
	case 1:
		return (void *)(uintptr_t)1;
	case 2:
		return gap_page;
	case 3:
		return ro_page;
	case 4:
		return (char *)gap_page - 8; /* straddles into the unmapped page */
	case 5:
		/*
		 * Valid request whose answer cannot be copied out: the full
		 * unwind. Rare: mprotect() means TLB shootdowns, slow under TCG.
		 */
		if (chance(w, 10))
			return readonly_copy(w, good, len);
		return NULL;
	default:
		*bad = false;
		return good;
	}
}

static void fill_import(struct worker *w, struct axl_import_fd *r)
{
	static const uint32_t fmts[] = { AXL_PIXFMT_RAW, AXL_PIXFMT_NV12, AXL_PIXFMT_GREY,
					 AXL_PIXFMT_YUYV };
	static const uint32_t flags[] = { AXL_IMPORT_TO_DEVICE, AXL_IMPORT_FROM_DEVICE,
					  AXL_IMPORT_BIDIRECTIONAL };

	memset(r, 0, sizeof(*r));
	r->fd = pick_fd(w);
	r->width = pick_dim(w);
	r->height = pick_dim(w);
	r->pixfmt = chance(w, 90) ? fmts[below(w, 4)] : rnd(w);
	r->stride = chance(w, 60) ? 0 : chance(w, 50) ? r->width + below(w, 128) : rnd(w);
	r->flags = chance(w, 85) ? flags[below(w, 3)] : rnd(w) >> below(w, 32);
	if (chance(w, 40)) { /* small even geometry: fits most buffers, imports succeed */
		r->width = 64 << below(w, 4);
		r->height = 2 + 2 * below(w, 16);
		r->stride = chance(w, 70) ? 0 : r->width * 2 + 2 * below(w, 64);
		r->flags = flags[below(w, 3)];
	}
	if (chance(w, 5))
		r->pad = rnd(w);
	if (chance(w, 5))
		r->reserved[below(w, 2)] = 1ull << below(w, 64);
	if (chance(w, 10)) /* stale outputs must not matter */
		r->handle = rnd(w), r->iova_base = rnd(w);
}

static void fill_submit(struct worker *w, int d, struct axl_submit *s)
{
	/* the 10 s maximum is rare: a stalled job blocks the queue that long */
	static const uint32_t timeouts[] = { 0, 0, 0, 1, 1000, 20000, 50000,
					     AXL_SUBMIT_MAX_TIMEOUT_US + 1 };

	memset(s, 0, sizeof(*s));
	s->input_handle = pick_handle(w, d);
	s->result_fd = pick_fd(w);
	s->model_id = rnd(w);
	s->timeout_us = chance(w, 90) ? timeouts[below(w, 8)] : rnd(w);
	if (chance(w, 1))
		s->timeout_us = AXL_SUBMIT_MAX_TIMEOUT_US;
	if (chance(w, 5))
		s->flags = 1u << below(w, 32);
	if (chance(w, 5))
		s->reserved[below(w, 2)] = rnd(w) | 1;
	s->fence_fd = (int)rnd(w);
}

/* A command that is none of ours, but often close to one. */
static unsigned long pick_unknown_cmd(struct worker *w)
{
	static const unsigned long ours[] = { AXL_IOCTL_GET_INFO, AXL_IOCTL_IMPORT_FD,
					      AXL_IOCTL_SUBMIT, AXL_IOCTL_RELEASE_IMPORT,
					      AXL_IOCTL_IMPORT_FD2 };
	/* types the VFS handles itself before the driver (FIONBIO, FIFREEZE, FICLONE...) */
	static const unsigned int vfs_types[] = { 0x00, 0x15, 0x54, 0x58, 0x66, 0x94 };
	unsigned long cmd;

	for (;;) {
		switch (below(w, 4)) {
		case 0: /* our type, any number/size/direction */
			cmd = _IOC(below(w, 4), AXL_IOCTL_MAGIC, below(w, 64), below(w, 1 << 14));
			break;
		case 1: /* one of ours with the size changed */
			cmd = (ours[below(w, 4)] & ~(_IOC_SIZEMASK << _IOC_SIZESHIFT)) |
			      ((unsigned long)below(w, 1 << 14) << _IOC_SIZESHIFT);
			break;
		case 2: /* one of ours with the direction changed */
			cmd = (ours[below(w, 4)] & ~(_IOC_DIRMASK << _IOC_DIRSHIFT)) |
			      ((unsigned long)below(w, 4) << _IOC_DIRSHIFT);
			break;
		default:
			cmd = rnd(w);
		}
		bool vfs = false;

		for (size_t i = 0; i < ARRAY_SIZE(vfs_types); i++)
			vfs |= _IOC_TYPE(cmd) == vfs_types[i];
		if (vfs)
			continue;
		if (cmd != ours[0] && cmd != ours[1] && cmd != ours[2] && cmd != ours[3] &&
		    cmd != ours[4])
			return cmd;
	}
}

static void record(struct worker *w, enum op op, int ret, errset allowed,
		   unsigned long cmd)
{
	int e = ret < 0 ? -ret : 0;

	w->calls[op]++;
	w->errs[op][e < 128 ? e : 127]++;
	for (size_t i = 0; !ret && i < NCOVERED; i++)
		if (covered[i].cmd == cmd)
			w->answered_ok[i]++;
	if (e < 128 && (allowed & E(e)))
		return;
	if (!w->unexpected++)
		snprintf(w->first_unexpected, sizeof(w->first_unexpected),
			 "%s (cmd 0x%08lx) returned %d (%s)", op_names[op], cmd, ret,
			 axl_errname(ret));
}

static void do_import(struct worker *w, int d)
{
	struct axl_import_fd req, *arg;
	bool bad;
	int ret;

	fill_import(w, &req);
	arg = pick_ptr(w, &req, sizeof(req), &bad);
	ret = axl_ioctl(w->devs[d], AXL_IOCTL_IMPORT_FD, arg);
	record(w, OP_IMPORT, ret, OK_IMPORT, AXL_IOCTL_IMPORT_FD);
	if (!ret && bad)
		snprintf(w->failure, sizeof(w->failure),
			 "import succeeded without writing its answer back");
	if (ret || bad)
		return;
	if (req.inode != fd_inode(req.fd) || !req.handle)
		snprintf(w->failure, sizeof(w->failure), "import of fd %d: inode %llu, fstat %lu, handle %u",
			 req.fd, (unsigned long long)req.inode, (unsigned long)fd_inode(req.fd),
			 req.handle);
	if (w->nhandles[d] < MAX_HANDLES)
		w->handles[d][w->nhandles[d]++] = req.handle;
}

static void fill_import2(struct worker *w, struct axl_import_fd2 *r)
{
	struct axl_import_fd v1;

	fill_import(w, &v1);
	memset(r, 0, sizeof(*r));
	r->fd = v1.fd;
	r->flags = v1.flags;
	r->width = v1.width;
	r->height = v1.height;
	r->pixfmt = v1.pixfmt;
	r->nplanes = chance(w, 85) ? (v1.pixfmt == AXL_PIXFMT_NV12 ? 2 : 1) : below(w, 4);
	r->modifier = chance(w, 90) ? AXL_FORMAT_MOD_LINEAR : (uint64_t)rnd(w) << below(w, 32);
	for (uint32_t i = 0; i < AXL_MAX_PLANES; i++) {
		uint32_t pitch = v1.stride ? v1.stride : v1.width * 2;

		if (i >= r->nplanes && chance(w, 90))
			continue;
		r->planes[i].pitch = chance(w, 80) ? pitch : rnd(w);
		r->planes[i].offset = chance(w, 50) ? (uint64_t)i * pitch * v1.height :
				      chance(w, 50) ? below(w, 1 << 20) : ((uint64_t)rnd(w) << 32) | rnd(w);
		if (chance(w, 3))
			r->planes[i].reserved = rnd(w) | 1;
	}
	if (chance(w, 5))
		r->pad = rnd(w);
	if (chance(w, 5))
		r->reserved[below(w, 4)] = 1ull << below(w, 64);
}

static void do_import2(struct worker *w, int d)
{
	struct axl_import_fd2 req, *arg;
	bool bad;
	int ret;

	fill_import2(w, &req);
	arg = pick_ptr(w, &req, sizeof(req), &bad);
	ret = axl_ioctl(w->devs[d], AXL_IOCTL_IMPORT_FD2, arg);
	record(w, OP_IMPORT2, ret, OK_IMPORT2, AXL_IOCTL_IMPORT_FD2);
	if (!ret && bad)
		snprintf(w->failure, sizeof(w->failure),
			 "IMPORT_FD2 succeeded without writing its answer back");
	if (ret || bad)
		return;
	if (w->nhandles[d] < MAX_HANDLES)
		w->handles[d][w->nhandles[d]++] = req.handle;
}

/* One of the Metis node's ioctls, half-valid arguments, on the worker's own file. */
static void do_metis(struct worker *w)
{
	static const unsigned long cmds[] = {
		AXL_METIS_IOCTL_GET_DEV_PROPERTY, AXL_METIS_IOCTL_DMA_ATTACH,
		AXL_METIS_IOCTL_DMA_DETACH, AXL_METIS_IOCTL_DMA_XFER,
		AXL_METIS_IOCTL_DMA_GET_XFER_ASYNC_STATUS, AXL_METIS_IOCTL_CLEAR_POLL_EVENT,
		AXL_METIS_IOCTL_GET_RESOURCE_INFO, AXL_METIS_IOCTL_GET_DMA_STATS,
	};
	static const int32_t dirs[] = { AXL_METIS_XFER_READ, AXL_METIS_XFER_WRITE };
	static const int32_t modes[] = { AXL_METIS_XFER_SYNC, AXL_METIS_XFER_ASYNC };
	union {
		uint64_t prop;
		int fd;
		struct axl_metis_xfer x;
		struct axl_metis_res_info res;
		struct axl_metis_dma_stats stats;
	} u;
	unsigned long cmd = cmds[below(w, ARRAY_SIZE(cmds))];
	bool bad;
	int ret;

	if (w->metis < 0)
		return;
	memset(&u, 0, sizeof(u));
	if (cmd == AXL_METIS_IOCTL_GET_DEV_PROPERTY) {
		u.prop = chance(w, 80) ? below(w, 5) : rnd(w);
	} else if (cmd == AXL_METIS_IOCTL_DMA_ATTACH || cmd == AXL_METIS_IOCTL_DMA_DETACH) {
		u.fd = pick_fd(w);
	} else if (cmd == AXL_METIS_IOCTL_DMA_XFER) {
		u.x.flags = chance(w, 85) ? dirs[below(w, 2)] | modes[below(w, 2)] : (int32_t)rnd(w);
		u.x.size = chance(w, 80) ? PAGE << below(w, 6) : rnd(w);
		u.x.offset = chance(w, 80) ? 0 : rnd(w);
		u.x.phy = chance(w, 80) ? (uint64_t)below(w, 64) << 20 : ((uint64_t)rnd(w) << 32);
		u.x.channel = chance(w, 80) ? (int32_t)below(w, 5) - 1 : (int32_t)rnd(w);
	}
	ret = axl_ioctl(w->metis, cmd, pick_ptr(w, &u, sizeof(u), &bad));
	record(w, OP_METIS, ret < 0 ? ret : 0, OK_METIS, cmd);
}

static void do_submit(struct worker *w, int d)
{
	struct axl_submit req, *arg;
	bool bad;
	int ret;

	fill_submit(w, d, &req);
	arg = pick_ptr(w, &req, sizeof(req), &bad);
	ret = axl_ioctl(w->devs[d], AXL_IOCTL_SUBMIT, arg);
	record(w, OP_SUBMIT, ret, OK_SUBMIT, AXL_IOCTL_SUBMIT);
	if (!ret && bad)
		snprintf(w->failure, sizeof(w->failure),
			 "submit succeeded without writing its answer back");
	if (!ret && !bad)
		keep_fence(w, req.fence_fd);
}

static void do_release(struct worker *w, int d)
{
	struct axl_release req = { .handle = pick_handle(w, d) }, *arg;
	bool bad;
	int ret;

	if (chance(w, 3))
		req.reserved = rnd(w) | 1;
	arg = pick_ptr(w, &req, sizeof(req), &bad);
	ret = axl_ioctl(w->devs[d], AXL_IOCTL_RELEASE_IMPORT, arg);
	record(w, OP_RELEASE, ret, OK_RELEASE, AXL_IOCTL_RELEASE_IMPORT);
	/* success through a read-only copy counts: release writes nothing back */
	if (!ret)
		forget_handle(w, d, req.handle);
}

static void do_info(struct worker *w, int d)
{
	struct axl_info info, *arg;
	bool bad;

	arg = pick_ptr(w, &info, sizeof(info), &bad);
	record(w, OP_INFO, axl_ioctl(w->devs[d], AXL_IOCTL_GET_INFO, arg), OK_INFO,
	       AXL_IOCTL_GET_INFO);
}

static void do_unknown(struct worker *w, int d)
{
	static __thread uint8_t scratch[1 << 14];
	unsigned long cmd = pick_unknown_cmd(w);
	bool bad;

	for (size_t i = 0; i < 64; i++)
		scratch[i] = (uint8_t)rnd(w);
	record(w, OP_UNKNOWN, axl_ioctl(w->devs[d], cmd, pick_ptr(w, scratch, 64, &bad)),
	       OK_UNKNOWN, cmd);
}

/* Now and then: reopen an own file (dropping its handles), or a throwaway buffer. */
static void do_churn(struct worker *w)
{
	if (chance(w, 50)) {
		int d = 1 + (int)below(w, 2), fd = axl_open_dev();

		if (fd < 0) {
			snprintf(w->failure, sizeof(w->failure), "reopen: %s", axl_errname(fd));
			return;
		}
		close(w->devs[d]);
		w->devs[d] = fd;
		w->nhandles[d] = 0;
	} else {
		/* imported, then the fd closed: the import keeps the buffer alive */
		int buf = heap_alloc(PAGE * (1 + below(w, 4)));
		struct axl_import_fd req;
		int d = (int)below(w, 3);

		if (buf < 0)
			return;
		if (!axl_import(w->devs[d], buf, 64, 8, AXL_PIXFMT_GREY, 0,
				AXL_IMPORT_TO_DEVICE, &req) && w->nhandles[d] < MAX_HANDLES)
			w->handles[d][w->nhandles[d]++] = req.handle;
		close(buf);
	}
}

/* Fault injection while fuzzing: every kind of ending, briefly. */
static void do_faults(struct worker *w)
{
	switch (below(w, 4)) {
	case 0:
		param_set("fail_next", below(w, 3));
		break;
	case 1:
		param_set("stall_next", 1);
		break;
	case 2:
		param_set("fail_every", below(w, 2) ? 0 : 7);
		break;
	default:
		param_set("latency_us", below(w, 2) ? 50 : 3000);
		break;
	}
}

static void *worker_run(void *arg)
{
	struct worker *w = arg;
	uint64_t t0 = now_ns();

	for (w->done = 0; w->done < w->iterations; w->done++) {
		int d = (int)below(w, 3);
		uint32_t r = below(w, 1000);

		if (r < 200)
			do_import(w, d);
		else if (r < 280)
			do_import2(w, d);
		else if (r < 500)
			do_submit(w, d);
		else if (r < 700)
			do_release(w, d);
		else if (r < 760)
			do_info(w, d);
		else if (r < 880)
			do_unknown(w, d);
		else
			do_metis(w);
		if (chance(w, 1) && chance(w, 20))
			do_churn(w);
		if (chance(w, 1) && chance(w, 10))
			do_faults(w);
		if (w->failure[0])
			break;
		if (!(w->done & 255) && now_ns() > deadline_ns) {
			snprintf(w->failure, sizeof(w->failure),
				 "time limit of %d s reached after %ld calls", opt.time_limit, w->done);
			break;
		}
	}
	w->ns = now_ns() - t0;
	return NULL;
}

/* The driver's per-file import count must match what this worker kept. */
static int check_accounting(struct worker *w)
{
	for (int d = 1; d < 3; d++) {
		struct axl_info info;
		int ret = axl_info(w->devs[d], &info);

		if (ret || info.file_imports != (uint32_t)w->nhandles[d]) {
			tap_diag("worker %d file %d: driver holds %u imports, fuzzer kept %d (%s)",
				 w->id, d, info.file_imports, w->nhandles[d], axl_errname(ret));
			return -1;
		}
	}
	return 0;
}

static void worker_close(struct worker *w)
{
	if (w->metis >= 0)
		close(w->metis);
	for (int i = 0; i < w->nfences; i++)
		close(w->fences[i]);
	close(w->devs[1]);
	close(w->devs[2]);
}

static int setup(void)
{
	static const size_t sizes[NBUFS] = { PAGE, PAGE, 2 * PAGE, 16 * PAGE, 64 * 1024,
					     462848, 1 << 20, 3317760 };
	uint8_t *area;

	for (int i = 0; i < NBUFS; i++) {
		bufs[i] = heap_alloc(sizes[i]);
		buf_len[i] = sizes[i];
		if (bufs[i] < 0)
			return bufs[i];
	}
	null_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
	shared_dev = axl_open_dev();
	if (null_fd < 0 || shared_dev < 0)
		return -ENODEV;
	/*
	 * A read-only page followed by an inaccessible one. PROT_NONE rather
	 * than unmapped: a later mmap() could land in a hole and make it valid.
	 */
	area = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (area == MAP_FAILED)
		return -errno;
	memset(area, 0, PAGE);
	if (mprotect(area, PAGE, PROT_READ) || mprotect(area + PAGE, PAGE, PROT_NONE))
		return -errno;
	ro_page = area;
	gap_page = area + PAGE;
	return 0;
}

/* The Metis-compatible node, when there is exactly one. */
static void metis_find(void)
{
	glob_t g;

	if (glob("/dev/" AXL_METIS_NODE_PREFIX "*", 0, NULL, &g))
		return;
	if (g.gl_pathc == 1)
		snprintf(metis_path, sizeof(metis_path), "%s", g.gl_pathv[0]);
	globfree(&g);
}

/* GET_INFO polling step while waiting for the device after a rescan */
#define POLL_MS 10

struct remover {
	pthread_t tid;
	char addr[64];
	int removals;
	bool restored;
};

/* Remove the engine's PCI device now and then while the workers run. */
static void *remover_run(void *arg)
{
	struct remover *r = arg;
	uint64_t rng = opt.seed ^ 0x5eed;

	r->restored = true;
	while (!atomic_load(&workers_done)) {
		usleep(200000 + (uint32_t)prng_next(&rng) % 600000);
		if (atomic_load(&workers_done) || pci_remove(r->addr))
			break;
		r->removals++;
		usleep((uint32_t)prng_next(&rng) % 100000);
		r->restored = pci_restore(r->addr, POLL_MS);
		if (!r->restored)
			break;
	}
	return NULL;
}

static void usage(const char *argv0)
{
	fprintf(stderr, "usage: %s [--seed N] [--iterations N] [--threads N] [--time-limit S] "
		"[--no-remove]\n", argv0);
}

static int parse(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "seed", required_argument, NULL, 's' },
		{ "iterations", required_argument, NULL, 'n' },
		{ "threads", required_argument, NULL, 't' },
		{ "time-limit", required_argument, NULL, 'l' },
		{ "no-remove", no_argument, NULL, 'R' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	const char *env = getenv("AXL_FUZZ_SEED");
	int c;

	if (env)
		opt.seed = strtoull(env, NULL, 0);
	while ((c = getopt_long(argc, argv, "s:n:t:l:h", longopts, NULL)) != -1) {
		switch (c) {
		case 's':
			opt.seed = strtoull(optarg, NULL, 0);
			break;
		case 'n':
			opt.iterations = atol(optarg);
			break;
		case 't':
			opt.threads = atoi(optarg);
			break;
		case 'l':
			opt.time_limit = atoi(optarg);
			break;
		case 'R':
			opt.remove = false;
			break;
		default:
			usage(argv[0]);
			return -1;
		}
	}
	if (opt.iterations < 1 || opt.threads < 1 || opt.threads > 16 || opt.time_limit < 1) {
		usage(argv[0]);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static const char *const tunables[] = { "latency_us", "timeout_ms", "fail_every",
						"fail_next", "stall_next", "stall_ms" };
	static struct bufinfo_entry e[512];
	struct worker *ws;
	long saved[6], total = 0, unexpected = 0, per_op[OP_COUNT] = { 0 };
	uint64_t wall = 0;
	char first[512] = "", device[64];
	struct axl_info info;
	struct remover rm = { .removals = 0 };
	int kmsg, n0, ret, failures = 0, attached;
	long long imported0, released0;

	if (parse(argc, argv))
		return KSFT_FAIL;
	ret = tap_skip_unless_importable("module parameters, debugfs");
	if (ret)
		return ret;
	printf("TAP version 13\n");
	printf("1..6\n");
	tap_diag("seed %llu, %ld ioctls over %d threads, time limit %d s",
		 (unsigned long long)opt.seed, opt.iterations, opt.threads, opt.time_limit);

	kmsg = kmsg_mark();
	n0 = bufinfo_read(e, 512);
	imported0 = axl_stat("imported");
	released0 = axl_stat("released");
	for (int i = 0; i < 6; i++)
		saved[i] = param_get(tunables[i]);
	/* fast jobs, short default timeout: stalls must not eat the time budget */
	param_set("latency_us", 200);
	param_set("timeout_ms", 20);
	ret = setup();
	if (ret || axl_info(shared_dev, &info)) {
		printf("not ok 1 setup # %s\n", axl_errname(ret));
		return KSFT_FAIL;
	}
	snprintf(device, sizeof(device), "%s", info.device);
	metis_find();
	removing = opt.remove && (info.caps & AXL_CAP_PCI);
	tap_diag("Metis node: %s; removal while fuzzing: %s", metis_path[0] ? metis_path : "none",
		 removing ? device : "no");

	ws = calloc((size_t)opt.threads, sizeof(*ws));
	deadline_ns = now_ns() + (uint64_t)opt.time_limit * 1000000000ull;
	for (int i = 0; i < opt.threads; i++) {
		struct worker *w = &ws[i];

		w->id = i;
		w->rng = opt.seed * 0x100000001b3ull + (uint64_t)i;
		w->iterations = opt.iterations / opt.threads + (i < opt.iterations % opt.threads);
		w->devs[0] = shared_dev;
		w->ro = mmap(NULL, PAGE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		w->devs[1] = axl_open_dev();
		w->devs[2] = axl_open_dev();
		w->metis = metis_path[0] ? open(metis_path, O_RDWR | O_CLOEXEC) : -1;
		if (w->devs[1] < 0 || w->devs[2] < 0 || w->ro == MAP_FAILED) {
			printf("not ok 1 setup # open %s\n", AXL_DEV_PATH);
			return KSFT_FAIL;
		}
	}
	for (int i = 0; i < opt.threads; i++)
		pthread_create(&ws[i].tid, NULL, worker_run, &ws[i]);
	if (removing) {
		snprintf(rm.addr, sizeof(rm.addr), "%s", device);
		pthread_create(&rm.tid, NULL, remover_run, &rm);
	}
	for (int i = 0; i < opt.threads; i++) {
		struct worker *w = &ws[i];

		pthread_join(w->tid, NULL);
		total += w->done;
		unexpected += w->unexpected;
		wall = w->ns > wall ? w->ns : wall;
		for (int op = 0; op < OP_COUNT; op++)
			per_op[op] += w->calls[op];
	}

	atomic_store(&workers_done, true);
	if (removing) {
		pthread_join(rm.tid, NULL);
		if (!rm.restored)
			rm.restored = pci_restore(device, POLL_MS);
		tap_diag("%d removals of %s while fuzzing%s", rm.removals, device,
			 rm.restored ? "" : "; the driver did not bind it again");
		if (!rm.restored)
			failures++;
	}

	/* 1: every call answered within its documented errno set */
	for (int i = 0; i < opt.threads; i++) {
		if (ws[i].failure[0]) {
			tap_diag("worker %d: %s", i, ws[i].failure);
			failures++;
		}
		if (ws[i].unexpected)
			tap_diag("worker %d: %ld unexpected return codes, first: %s", i,
				 ws[i].unexpected, ws[i].first_unexpected);
	}
	tap_diag("%ld ioctls in %.1f s: %.0f ioctls/s", total, wall / 1e9, total / (wall / 1e9));
	for (int op = 0; op < OP_COUNT; op++) {
		char line[512];
		int len = snprintf(line, sizeof(line), "%-9s %7ld:", op_names[op], per_op[op]);

		for (int err = 0; err < 128; err++) {
			long c = 0;

			for (int i = 0; i < opt.threads; i++)
				c += ws[i].errs[op][err];
			if (c && len < (int)sizeof(line) - 32)
				len += snprintf(line + len, sizeof(line) - (size_t)len, " %s=%ld",
						err ? axl_errname(-err) : "ok", c);
		}
		tap_diag("%s", line);
	}
	ret = unexpected || failures || total < opt.iterations;
	failures = 0;
	printf("%sok 1 %ld random ioctls, all answered with an expected code\n",
	       ret ? "not " : "", total);
	failures = ret;

	/* 2: per-file accounting */
	ret = 0;
	for (int i = 0; i < opt.threads; i++)
		ret |= check_accounting(&ws[i]);
	printf("%sok 2 per-file import counts match the fuzzer's bookkeeping\n", ret ? "not " : "");
	failures += !!ret;

	/* 3: back to baseline once everything is closed */
	for (int i = 0; i < opt.threads; i++)
		worker_close(&ws[i]);
	close(shared_dev);
	for (int i = 0; i < NBUFS; i++)
		close(bufs[i]);
	for (int i = 0; i < 6; i++)
		if (saved[i] >= 0)
			param_set(tunables[i], (unsigned long)saved[i]);
	ret = !axl_stats_settle(0, 0, 0, 0, 15000);
	for (int t = 0; bufinfo_read(e, 512) != n0 && t < 500; t++)
		usleep(10000); /* deferred fput of buffers freed from the engine's worker */
	attached = bufinfo_attached_to(device);
	if (bufinfo_read(e, 512) != n0 || attached) {
		tap_diag("dma-bufs %d (baseline %d), attached to %s: %d", bufinfo_read(e, 512), n0,
			 device, attached);
		ret = 1;
	}
	printf("%sok 3 driver counters, dma-buf count and attachments back to baseline\n",
	       ret ? "not " : "");
	failures += ret;

	/* 4: imports balanced by releases */
	ret = axl_stat("imported") - imported0 != axl_stat("released") - released0;
	tap_diag("imports %lld, releases %lld, jobs: submitted %lld completed %lld failed %lld "
		 "timed_out %lld cancelled %lld (since load)", axl_stat("imported") - imported0,
		 axl_stat("released") - released0, axl_stat("submitted"), axl_stat("completed"),
		 axl_stat("failed"), axl_stat("timed_out"), axl_stat("cancelled"));
	if (axl_stat("submitted") != axl_stat("completed") + axl_stat("failed") +
				     axl_stat("timed_out") + axl_stat("cancelled"))
		ret = 1;
	printf("%sok 4 every import released and every job ended\n", ret ? "not " : "");
	failures += ret;

	/* 5: the kernel log */
	ret = kmsg < 0 ? -1 : kmsg_scan_splats(kmsg, first, sizeof(first));
	if (ret)
		tap_diag("%d splat line(s) in the kernel log, first: %s", ret, first);
	printf("%sok 5 no WARN/BUG/Oops in the kernel log\n", ret ? "not " : "");
	failures += !!ret;

	/* 6: what the fuzzer reached: each ioctl past its checks at least once */
	ret = 0;
	for (size_t i = 0; i < NCOVERED; i++) {
		long ok = 0;

		for (int t = 0; t < opt.threads; t++)
			ok += ws[t].answered_ok[i];
		if (covered[i].metis && !metis_path[0])
			continue; /* said above: no Metis node to fuzz */
		tap_diag("%-31s answered 0 %ld time(s)", covered[i].name, ok);
		if (!ok) {
			tap_diag("%s was never answered 0: the fuzzer did not get past its checks",
				 covered[i].name);
			ret = 1;
		}
	}
	printf("%sok 6 every ioctl of both ABIs answered 0 at least once\n", ret ? "not " : "");
	failures += ret;

	printf("# Totals: pass:%d fail:%d xfail:0 xpass:0 skip:0 error:0\n", 6 - failures, failures);
	free(ws);
	return failures ? KSFT_FAIL : KSFT_PASS;
}
