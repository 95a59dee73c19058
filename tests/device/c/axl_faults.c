// SPDX-License-Identifier: GPL-2.0
/*
 * axl fault-injection test: every failure site on the IMPORT, IMPORT_FD2,
 * SUBMIT, Metis ATTACH and XFER paths fails once, and the driver unwinds.
 *
 * The kernels axl is tested on have no CONFIG_FAULT_INJECTION or
 * fail_function, so the driver has test-only fault points of its own
 * (kernel/axl_fault.c): writing N to debugfs axl/fault_nth fails the Nth
 * point hit after it, once, with the errno the real call gives when it
 * fails; axl/fault_state says how many points were hit and which one
 * fired. For each path, N = 1, 2, ...: arm, call, and check
 *  - the call fails with the injected errno;
 *  - nothing leaked: axl's live counters (files, imports, jobs, fences,
 *    pins, users, writer mappings), the attachments and file references
 *    debugfs bufinfo lists for the test's buffers, the process's fds and
 *    the module's refcount
 *    are what they were before the call;
 *  - nothing was imported or queued (the debugfs totals), and a SUBMIT
 *    consumed no seqno: the next job's is the one after the last;
 *  - the same call, unarmed, then works (and is undone);
 * until the armed call succeeds with nothing fired. The last case unloads
 * and loads the module again, and every case fails on a kernel splat
 * (with the debug kernel's KASAN, lockdep and DMA-API checks).
 *
 * The points are global: nothing else may use axl while this runs.
 *
 * With --kernel (the rig's fault kernel: run.sh --fault-kernel), the same
 * paths are walked with the kernel's own fault injection instead, which
 * also fails the allocations inside the helpers axl calls (dma-buf core,
 * the heaps, sync_file, xarray, kmalloc): failslab and fail_page_alloc are
 * set to count every allocation, order 0 and sleeping ones included, whose
 * call stack passes through axl.ko's text, and N written to the thread's
 * /proc/thread-self/fail-nth fails the Nth such allocation of this thread,
 * once. The errno must be -ENOMEM, the same checks follow, and a last case
 * has kmemleak scan: an unreferenced object with axl.ko in its allocation
 * backtrace fails it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <linux/axl_metis.h>

#include "axl_util.h"

#define FAULT_NTH   "/sys/kernel/debug/axl/fault_nth"
#define FAULT_STATE "/sys/kernel/debug/axl/fault_state"
#define FAIL_NTH "/proc/thread-self/fail-nth"
#define KMEMLEAK "/sys/kernel/debug/kmemleak"

/*
 * More points than any path has: a path still failing at this N is a bug.
 * The kernel's allocations under a path (--kernel) are many more than
 * axl's own points: SUBMIT's passed 64.
 */
#define MAX_POINTS 64
#define MAX_KERNEL_ALLOCS 512
static unsigned int max_points = MAX_POINTS;

#define W 64
#define H 32

/* ---- the fault points ---- */

struct fault_state {
	int hits;
	char site[160]; /* "none" until one fired */
	int err;       /* negative errno it injected */
};

/* The kernel's fault injection (--kernel) instead of axl's own points. */
static bool kernel_mode;
static int nth_mark = -1; /* /dev/kmsg from the last arming, for the site */
static unsigned int armed;

static int fault_arm(unsigned int nth)
{
	char text[16];

	snprintf(text, sizeof(text), "%u", nth);
	if (!kernel_mode)
		return sysfs_write(FAULT_NTH, text);
	if (nth_mark >= 0)
		close(nth_mark);
	nth_mark = nth ? kmsg_mark() : -1;
	if (nth && nth_mark < 0)
		return nth_mark;
	armed = nth;
	return sysfs_write(FAIL_NTH, text);
}

/*
 * Which allocation the kernel failed, from the stack fail_dump() printed:
 * "failslab:CALLEE<AXL_FUNCTION", the frame that called into the kernel's
 * helpers and the first frame of axl.ko's under it.
 */
static void kernel_site(char *site, size_t len)
{
	char rec[1024], prev[64] = "?", attr[32] = "?", fn[64], *p;
	bool in = false;
	ssize_t n;

	snprintf(site, len, "?");
	while ((n = read(nth_mark, rec, sizeof(rec) - 1)) > 0 || (n < 0 && errno == EPIPE)) {
		if (n < 0)
			continue;
		rec[n] = 0;
		p = strchr(rec, ';');
		p = p ? p + 1 : rec;
		if (strstr(p, "FAULT_INJECTION: forcing a failure")) {
			/* one record: "...failure.\x0aname failslab, interval ..." */
			char *name = strstr(p, "name ");

			in = true;
			if (!name || sscanf(name, "name %31[^,]", attr) != 1)
				snprintf(attr, sizeof(attr), "?");
			continue;
		}
		if (!in)
			continue;
		if (strstr(p, "[axl]")) {
			while (*p == ' ' || *p == '?')
				p++;
			if (sscanf(p, "%63[^+ ]", fn) == 1)
				snprintf(site, len, "%s:%s<%s", attr, prev, fn);
			return;
		}
		while (*p == ' ' || *p == '?')
			p++; /* " ? " marks a frame the unwinder is unsure of */
		if (sscanf(p, "%63[^+ ]+0x", prev) != 1)
			snprintf(prev, sizeof(prev), "?");
	}
}

static int fault_read(struct fault_state *st)
{
	FILE *f;
	unsigned int left;
	int n;

	f = fopen(kernel_mode ? FAIL_NTH : FAULT_STATE, "re");
	if (!f)
		return -errno;
	if (kernel_mode) {
		/* fail-nth counts down each allocation it sees; 0: the Nth failed */
		n = fscanf(f, "%u", &left);
		fclose(f);
		if (n != 1)
			return -EINVAL;
		st->hits = left ? (int)(armed - left) : (int)armed - 1;
		st->err = -ENOMEM;
		if (left)
			snprintf(st->site, sizeof(st->site), "none");
		else
			kernel_site(st->site, sizeof(st->site));
		return 0;
	}
	n = fscanf(f, "hits %d fired %63s %d", &st->hits, st->site, &st->err);
	fclose(f);
	return n == 3 ? 0 : -EINVAL;
}

/* An ioctl without axl_ioctl()'s retry on EINTR: an injected -EINTR must show. */
static int raw_ioctl(int fd, unsigned long cmd, void *arg)
{
	return ioctl(fd, cmd, arg) < 0 ? -errno : 0;
}

/* ---- what may leak ---- */

static const char *const counters[] = {
	"files", "imports", "jobs", "fences", "pins", "users", "writers",
};

struct snapshot {
	long long stat[ARRAY_SIZE(counters)];
	int attachments; /* of the test's buffers, in debugfs bufinfo */
	long refs;       /* to their files, in debugfs bufinfo */
	int fds;
	long refcnt;
};

static unsigned long watched[4]; /* inodes of the test's buffers */
static int nwatched;

static void watch(int buf)
{
	watched[nwatched++] = fd_inode(buf);
}

static int snap(struct snapshot *s)
{
	static struct bufinfo_entry e[512];
	int n = bufinfo_read(e, 512);

	if (n < 0)
		return n;
	for (size_t i = 0; i < ARRAY_SIZE(counters); i++)
		s->stat[i] = axl_stat(counters[i]);
	s->attachments = 0;
	s->refs = 0;
	for (int i = 0; i < nwatched; i++) {
		const struct bufinfo_entry *b = bufinfo_find(e, n, watched[i]);

		if (b) {
			s->attachments += b->ndevices;
			s->refs += b->count;
		}
	}
	s->fds = open_fd_count();
	s->refcnt = axl_module_refcnt();
	return 0;
}

/* First difference of @now from @base into @why; 0 when equal. */
static int snap_diff(const struct snapshot *base, const struct snapshot *now,
		     char *why, size_t len)
{
	for (size_t i = 0; i < ARRAY_SIZE(counters); i++)
		if (now->stat[i] != base->stat[i])
			return snprintf(why, len, "stats %s %lld, was %lld", counters[i],
					now->stat[i], base->stat[i]);
	if (now->attachments != base->attachments)
		return snprintf(why, len, "bufinfo attachments %d, were %d",
				now->attachments, base->attachments);
	if (now->refs != base->refs)
		return snprintf(why, len, "dma-buf file references %ld, were %ld",
				now->refs, base->refs);
	if (now->fds != base->fds)
		return snprintf(why, len, "fds %d, were %d", now->fds, base->fds);
	if (now->refcnt != base->refcnt)
		return snprintf(why, len, "module refcnt %ld, was %ld", now->refcnt,
				base->refcnt);
	return 0;
}

/* Wait (2 s at most: jobs end and are cleaned up) until nothing differs from @base. */
static bool settled(const struct snapshot *base, char *why, size_t len)
{
	struct snapshot now;

	for (int t = 0; t <= 2000; t += 10) {
		if (snap(&now) < 0) {
			snprintf(why, len, "cannot read debugfs bufinfo");
			return false;
		}
		if (!snap_diff(base, &now, why, len))
			return true;
		usleep(10000);
	}
	return false;
}

/* ---- the paths ---- */

/*
 * One path: call() makes the call under test (0 or -errno) and leaves
 * what it made for undo() to take back after a success.
 */
struct path {
	const char *name;
	int (*call)(void);
	void (*undo)(void);
};

static int dev = -1, in_buf = -1, out_buf = -1, node = -1;
static uint32_t handle, input_handle;
static int fence_fd = -1;
static uint64_t last_seqno; /* of the last job queued */
static char call_err[256];  /* what a call saw wrong besides its return */

static int call_import(void)
{
	struct axl_import_fd a = {
		.fd = in_buf, .width = W, .height = H, .pixfmt = AXL_PIXFMT_GREY,
		.stride = W, .flags = AXL_IMPORT_BIDIRECTIONAL,
	};
	int ret = raw_ioctl(dev, AXL_IOCTL_IMPORT_FD, &a);

	handle = a.handle;
	return ret;
}

static int call_import2(void)
{
	struct axl_import_fd2 a = {
		.fd = in_buf, .width = W, .height = H, .pixfmt = AXL_PIXFMT_GREY,
		.nplanes = 1, .flags = AXL_IMPORT_BIDIRECTIONAL,
		.planes = { { .offset = 0, .pitch = W } },
	};
	int ret = raw_ioctl(dev, AXL_IOCTL_IMPORT_FD2, &a);

	handle = a.handle;
	return ret;
}

static void undo_import(void)
{
	axl_release(dev, handle);
}

static int call_submit(void)
{
	struct axl_submit a = {
		.input_handle = input_handle, .result_fd = out_buf, .timeout_us = 0,
	};
	int ret = raw_ioctl(dev, AXL_IOCTL_SUBMIT, &a);

	fence_fd = ret ? -1 : a.fence_fd;
	/* a failed submit consumes no seqno */
	if (!ret && last_seqno && a.seqno != last_seqno + 1)
		snprintf(call_err, sizeof(call_err), "seqno %llu after %llu",
			 (unsigned long long)a.seqno,
			 (unsigned long long)last_seqno);
	if (!ret)
		last_seqno = a.seqno;
	return ret;
}

static void undo_submit(void)
{
	fence_wait(fence_fd, 5000);
	close(fence_fd);
	fence_fd = -1;
}

static int call_attach(void)
{
	return raw_ioctl(node, AXL_METIS_IOCTL_DMA_ATTACH, &in_buf);
}

static void undo_attach(void)
{
	int unused = 0;

	axl_ioctl(node, AXL_METIS_IOCTL_DMA_DETACH, &unused);
}

static int call_xfer(void)
{
	struct axl_metis_xfer x = {
		.phy = 0, .size = W * H, .offset = 0, .channel = -1,
		.flags = AXL_METIS_XFER_WRITE | AXL_METIS_XFER_SYNC,
	};

	return raw_ioctl(node, AXL_METIS_IOCTL_DMA_XFER, &x);
}

static void undo_nothing(void)
{
}

/*
 * N = 1, 2, ... on @p until its call succeeds with no point fired. Prints
 * the points the path has, in order.
 */
static int run_path(const struct path *p)
{
	char why[256], sites[4096] = "", splat[512];
	struct snapshot base;
	struct fault_state st;
	int mark, ret;
	unsigned int n;

	mark = kmsg_mark();
	FAIL_IF(mark < 0, "cannot read /dev/kmsg");
	FAIL_IF(snap(&base) < 0, "cannot read debugfs bufinfo");
	for (n = 1; n <= max_points; n++) {
		long long imported = axl_stat("imported");
		long long submitted = axl_stat("submitted");

		EXPECT_RET(fault_arm(n), 0);
		ret = p->call();
		FAIL_IF(fault_read(&st) < 0, "cannot read %s", FAULT_STATE);
		EXPECT_RET(fault_arm(0), 0);
		FAIL_IF(call_err[0], "%s: N=%u: %s", p->name, n, call_err);
		if (!strcmp(st.site, "none")) {
			/* every point passed: the call must have succeeded */
			FAIL_IF(ret, "%s: N=%u: %s with no point fired (%d hits)",
				p->name, n, axl_errname(ret), st.hits);
			/*
			 * The kernel's count may come out lower: a slab refill or an
			 * xarray node is an allocation on one call and not the next.
			 */
			if (kernel_mode && st.hits != (int)n - 1)
				tap_diag("%s: N=%u: %d allocations this time, %u before",
					 p->name, n, st.hits, n - 1);
			FAIL_IF(!kernel_mode && st.hits != (int)n - 1,
				"%s: N=%u: %d points hit, but %u before", p->name, n,
				st.hits, n - 1);
			p->undo();
			FAIL_IF(!settled(&base, why, sizeof(why)),
				"%s: after the unarmed call and its undo: %s", p->name, why);
			break;
		}
		snprintf(sites + strlen(sites), sizeof(sites) - strlen(sites),
			 "%s%s", n > 1 ? " " : "", st.site);
		if (kernel_mode && !ret) {
			/* the kernel's helper took the failure and fell back: it must undo too */
			snprintf(sites + strlen(sites), sizeof(sites) - strlen(sites),
				 "(absorbed)");
			p->undo();
			FAIL_IF(!settled(&base, why, sizeof(why)),
				"%s: N=%u: after %s failed and the call still worked: %s",
				p->name, n, st.site, why);
			continue;
		}
		if (ret != st.err) {
			if (!ret)
				p->undo();
			FAIL_IF(true, "%s: N=%u: %s fired %s, the call returned %s",
				p->name, n, st.site, axl_errname(st.err), axl_errname(ret));
		}
		FAIL_IF(!settled(&base, why, sizeof(why)),
			"%s: N=%u: after %s failed with %s: %s", p->name, n, st.site,
			axl_errname(st.err), why);
		/* nothing was imported or queued */
		FAIL_IF(axl_stat("imported") != imported || axl_stat("submitted") != submitted,
			"%s: N=%u: after %s failed: imported %lld, was %lld; submitted %lld, was %lld",
			p->name, n, st.site, axl_stat("imported"), imported,
			axl_stat("submitted"), submitted);
		/* the same call, unarmed, works */
		ret = p->call();
		FAIL_IF(ret, "%s: N=%u: after %s, the unarmed call: %s", p->name, n,
			st.site, axl_errname(ret));
		FAIL_IF(call_err[0], "%s: N=%u: after %s, the unarmed call: %s", p->name,
			n, st.site, call_err);
		p->undo();
		FAIL_IF(!settled(&base, why, sizeof(why)),
			"%s: N=%u: after %s and an unarmed call: %s", p->name, n,
			st.site, why);
	}
	FAIL_IF(n > max_points, "%s: still failing at N=%u", p->name, n);
	tap_diag("%s: %u fault points: %s", p->name, n - 1, sites);
	/*
	 * dma_buf_vmap() warns once (WARN_ON_ONCE) when the exporter's vmap
	 * fails: the dma-buf core's answer to the failure injected there, not
	 * axl's. Only that warning, and only after such a failure, is left out.
	 */
	if (kernel_mode && strstr(sites, "dma_buf_vmap")) {
		kmsg_expected_warn = "dma_buf_vmap+0x";
		tap_diag("%s: the dma-buf core's warning in dma_buf_vmap() after a failed vmap is expected",
			 p->name);
	}
	ret = kmsg_scan_splats(mark, splat, sizeof(splat));
	kmsg_expected_warn = NULL;
	close(mark);
	FAIL_IF(ret, "kernel log: %s", splat);
	return KSFT_PASS;
}

/* The case's setup for /dev/axl: the device and two buffers. */
static int setup_axl(void)
{
	dev = axl_open_dev();
	FAIL_IF(dev < 0, "open %s: %s", AXL_DEV_PATH, axl_errname(dev));
	in_buf = heap_alloc(W * H);
	out_buf = heap_alloc(4096);
	FAIL_IF(in_buf < 0 || out_buf < 0, "heap: %s / %s", axl_errname(in_buf),
		axl_errname(out_buf));
	watch(in_buf);
	watch(out_buf);
	return KSFT_PASS;
}

static int case_import(void)
{
	static const struct path p = { "IMPORT", call_import, undo_import };

	if (setup_axl())
		return KSFT_FAIL;
	return run_path(&p);
}

static int case_import2(void)
{
	static const struct path p = { "IMPORT_FD2", call_import2, undo_import };

	if (setup_axl())
		return KSFT_FAIL;
	return run_path(&p);
}

static int case_submit(void)
{
	static const struct path p = { "SUBMIT", call_submit, undo_submit };
	struct axl_import_fd imp;

	if (setup_axl())
		return KSFT_FAIL;
	EXPECT_RET(axl_import(dev, in_buf, W, H, AXL_PIXFMT_GREY, W,
			      AXL_IMPORT_TO_DEVICE, &imp), 0);
	input_handle = imp.handle;
	/* one job first: from then on the result holds a fence (implicit sync) */
	EXPECT_RET(call_submit(), 0);
	undo_submit();
	FAIL_IF(!axl_stats_settle(1, 1, 0, 1, 2000),
		"the first job did not end");
	return run_path(&p);
}

static bool node_find(char *path, size_t len)
{
	glob_t g;
	bool one;

	if (glob("/dev/" AXL_METIS_NODE_PREFIX "*", 0, NULL, &g))
		return false;
	one = g.gl_pathc == 1;
	if (one)
		snprintf(path, len, "%s", g.gl_pathv[0]);
	globfree(&g);
	return one;
}

static int setup_metis(void)
{
	char path[128];

	if (!node_find(path, sizeof(path))) {
		tap_diag("no single /dev/%s* (axl.ko with metis_node=1)",
			 AXL_METIS_NODE_PREFIX);
		return KSFT_SKIP;
	}
	node = open(path, O_RDWR | O_CLOEXEC);
	FAIL_IF(node < 0, "open %s: %s", path, strerror(errno));
	in_buf = heap_alloc(W * H);
	FAIL_IF(in_buf < 0, "heap: %s", axl_errname(in_buf));
	watch(in_buf);
	return KSFT_PASS;
}

static int case_attach(void)
{
	static const struct path p = { "Metis ATTACH", call_attach, undo_attach };
	int ret = setup_metis();

	return ret ? ret : run_path(&p);
}

static int case_xfer(void)
{
	static const struct path p = { "Metis XFER", call_xfer, undo_nothing };
	int ret = setup_metis();

	if (ret)
		return ret;
	EXPECT_RET(call_attach(), 0);
	return run_path(&p);
}

/* After all that, the module's references are all gone: it unloads and loads. */
static int check_loaded(void)
{
	int fd = axl_open_dev();

	FAIL_IF(fd < 0, "open %s after the reload: %s", AXL_DEV_PATH,
		axl_errname(fd));
	close(fd);
	return KSFT_PASS;
}

static int case_reload(void)
{
	return axl_module_run_reloaded("", check_loaded);
}

static int kernel_main(void);

int main(int argc, char **argv)
{
	static const struct axl_case cases[] = {
		{ "IMPORT fails cleanly at each of its fault points", case_import },
		{ "IMPORT_FD2 fails cleanly at each of its fault points", case_import2 },
		{ "SUBMIT fails cleanly at each of its fault points", case_submit },
		{ "Metis ATTACH fails cleanly at each of its fault points", case_attach },
		{ "Metis XFER fails cleanly at each of its fault points", case_xfer },
		{ "the module unloads and loads again after the injected faults",
		  case_reload },
	};
	int ret;

	if (argc == 2 && !strcmp(argv[1], "--kernel"))
		return kernel_main();
	if (argc != 1) {
		fprintf(stderr, "usage: %s [--kernel]\n", argv[0]);
		return 2;
	}
	ret = tap_skip_unless_importable("debugfs and module reloads");
	if (ret)
		return ret;
	if (access(FAULT_NTH, W_OK)) {
		printf("TAP version 13\n1..0 # SKIP no %s (no debugfs, or an older axl.ko)\n",
		       FAULT_NTH);
		return KSFT_SKIP;
	}
	ret = tap_run(cases, ARRAY_SIZE(cases));
	fault_arm(0); /* whatever a case left */
	return ret;
}

/* ---- --kernel: the kernel's own fault injection and kmemleak ---- */

#define FAILSLAB "/sys/kernel/debug/failslab/"
#define FAIL_PAGE_ALLOC "/sys/kernel/debug/fail_page_alloc/"

/* [start, end) around axl.ko's functions, from /proc/kallsyms. */
static int axl_text(unsigned long *start, unsigned long *end)
{
	FILE *f = fopen("/proc/kallsyms", "re");
	char line[512], type, name[256], mod[64];
	unsigned long a;

	if (!f)
		return -errno;
	*start = ~0UL;
	*end = 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%lx %c %255s [%63[^]]]", &a, &type, name, mod) == 4 &&
		    !strcmp(mod, "axl") && (type == 't' || type == 'T') && a) {
			if (a < *start)
				*start = a;
			if (a > *end)
				*end = a;
		}
	fclose(f);
	if (!*end)
		return -ENOENT;
	*end += 65536; /* past the start of the last function: more than its length */
	return 0;
}

/*
 * failslab and fail_page_alloc: count every allocation with axl.ko on its
 * stack (sleeping and order-0 ones too), fail none on their own
 * (probability 0): fail-nth alone decides, for this thread only. Print
 * the stack of each failure (the site in the diagnostics).
 */
static int kernel_faults_setup(void)
{
	static const char *const attrs[] = { FAILSLAB, FAIL_PAGE_ALLOC };
	unsigned long start = 0, end = 0;
	char path[128], text[32];
	int ret;

	ret = axl_text(&start, &end);
	FAIL_IF(ret, "axl.ko's text in /proc/kallsyms: %s", axl_errname(ret));
	for (size_t i = 0; i < ARRAY_SIZE(attrs); i++) {
		const char *const set[][2] = {
			{ "probability", "0" }, { "ignore-gfp-wait", "N" },
			{ "stacktrace-depth", "32" }, { "verbose", "2" },
			{ "reject-start", "0" }, { "reject-end", "0" },
		};

		for (size_t j = 0; j < ARRAY_SIZE(set); j++) {
			snprintf(path, sizeof(path), "%s%s", attrs[i], set[j][0]);
			EXPECT_RET(sysfs_write(path, set[j][1]), 0);
		}
		snprintf(path, sizeof(path), "%srequire-start", attrs[i]);
		snprintf(text, sizeof(text), "%lu", start);
		EXPECT_RET(sysfs_write(path, text), 0);
		snprintf(path, sizeof(path), "%srequire-end", attrs[i]);
		snprintf(text, sizeof(text), "%lu", end);
		EXPECT_RET(sysfs_write(path, text), 0);
	}
	EXPECT_RET(sysfs_write(FAIL_PAGE_ALLOC "ignore-gfp-highmem", "N"), 0);
	EXPECT_RET(sysfs_write(FAIL_PAGE_ALLOC "min-order", "0"), 0);
	tap_diag("failslab and fail_page_alloc count allocations under axl.ko [%#lx, %#lx)",
		 start, end);
	return KSFT_PASS;
}

/*
 * kmemleak: after the walks, a scan; an unreferenced object whose
 * allocation backtrace has a frame in axl.ko is a leak of axl's. Others
 * (the kernel's own, from before or beside the test) are only counted.
 */
static int case_kmemleak(void)
{
	static char buf[1 << 20];
	char *p, *next, first[1024] = "";
	int fd, axl = 0, others = 0;
	size_t len = 0;
	ssize_t n;

	/*
	 * kmemleak reports an object only once it is 5 s old, and only when
	 * its contents did not change since the scan before: scan twice.
	 */
	sleep(6);
	EXPECT_RET(sysfs_write(KMEMLEAK, "scan"), 0);
	EXPECT_RET(sysfs_write(KMEMLEAK, "scan"), 0);
	fd = open(KMEMLEAK, O_RDONLY | O_CLOEXEC);
	FAIL_IF(fd < 0, "open %s: %s", KMEMLEAK, strerror(errno));
	while (len < sizeof(buf) - 1 && (n = read(fd, buf + len, sizeof(buf) - 1 - len)) > 0)
		len += n;
	close(fd);
	buf[len] = 0;
	for (p = strstr(buf, "unreferenced object"); p; p = next) {
		next = strstr(p + 1, "unreferenced object");
		if (next)
			next[-1] = 0;
		if (strstr(p, "[axl]")) {
			if (!axl++)
				snprintf(first, sizeof(first), "%s", p);
		} else {
			others++;
		}
	}
	tap_diag("kmemleak: %d unreferenced objects allocated under axl.ko, %d others",
		 axl, others);
	FAIL_IF(axl, "kmemleak: the first of axl's:\n%s", first);
	return KSFT_PASS;
}

static int kernel_main(void)
{
	static const struct axl_case cases[] = {
		{ "IMPORT fails cleanly at each kernel allocation under it", case_import },
		{ "IMPORT_FD2 fails cleanly at each kernel allocation under it", case_import2 },
		{ "SUBMIT fails cleanly at each kernel allocation under it", case_submit },
		{ "Metis ATTACH fails cleanly at each kernel allocation under it", case_attach },
		{ "Metis XFER fails cleanly at each kernel allocation under it", case_xfer },
		{ "kmemleak finds nothing allocated under axl.ko unreferenced", case_kmemleak },
		{ "the module unloads and loads again after the injected faults",
		  case_reload },
	};
	int ret;

	ret = tap_skip_unless_importable("debugfs, fail-nth and module reloads");
	if (ret)
		return ret;
	if (access(FAIL_NTH, W_OK) || access(FAILSLAB "require-start", W_OK) ||
	    access(FAIL_PAGE_ALLOC "min-order", W_OK) || access(KMEMLEAK, W_OK)) {
		printf("TAP version 13\n1..0 # SKIP no %s, failslab, fail_page_alloc or kmemleak"
		       " with stack filters (a kernel without fault injection: run.sh --fault-kernel)\n",
		       FAIL_NTH);
		return KSFT_SKIP;
	}
	kernel_mode = true;
	max_points = MAX_KERNEL_ALLOCS;
	ret = kernel_faults_setup();
	if (ret)
		return ret;
	/* what kmemleak found before is not this run's */
	if (sysfs_write(KMEMLEAK, "clear")) {
		printf("TAP version 13\n1..0 # SKIP kmemleak is off (kmemleak=off?)\n");
		return KSFT_SKIP;
	}
	ret = tap_run(cases, ARRAY_SIZE(cases));
	fault_arm(0);
	return ret;
}
