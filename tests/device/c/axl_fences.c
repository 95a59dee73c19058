// SPDX-License-Identifier: GPL-2.0
/*
 * axl_fences: the job's fence in its buffers' reservation objects.
 *
 * SUBMIT publishes each job's fence as a writer's on the result buffer and
 * as a reader's on the input, so what relies on implicit sync waits for the
 * job with no help from user space: poll() on the result, the CPU-access
 * bracket DMA_BUF_IOCTL_SYNC, DMA_BUF_IOCTL_EXPORT_SYNC_FILE (6.0 on), and
 * any other driver that reads the result; on the input, its writers (the
 * next capture into the frame). Readers of the input do not wait, so two
 * jobs reading one frame do not wait for each other. The engine takes
 * 100 ms per job here (latency_us), far longer than the calls right after
 * SUBMIT take.
 *
 * The fence holds a module reference while it lives, and a buffer holds its
 * fence until a later fence replaces it or the buffer is freed: the last
 * cases show both, for the result and for the input. Each case costs about
 * one job's 100 ms.
 *
 * Needs root (module parameters, debugfs). Skips (exit 4) without the
 * device node or the system heap.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>
#include <linux/dma-buf.h>

#include "axl_util.h"

#define PAGE 4096u
#define LATENCY_US 100000
#define MS 1000000ull
#define WAIT_MS 10000

#ifndef DMA_BUF_IOCTL_EXPORT_SYNC_FILE
/* <linux/dma-buf.h> of Linux 6.0 on; the toolchain's may be older */
struct dma_buf_export_sync_file {
	__u32 flags;
	__s32 fd;
};
#define DMA_BUF_IOCTL_EXPORT_SYNC_FILE _IOWR(DMA_BUF_BASE, 2, struct dma_buf_export_sync_file)
#endif

/* A 64x64 GREY frame imported for reading, a result buffer and a slow engine. */
struct setup {
	int dev, in, res;
	struct axl_import_fd imp;
};

static int setup(struct setup *s)
{
	struct frame_geom g;
	uint8_t *p;

	s->dev = axl_open_dev();
	s->in = heap_alloc(PAGE);
	s->res = heap_alloc(PAGE);
	if (s->dev < 0 || s->in < 0 || s->res < 0 || frame_geom(&g, AXL_PIXFMT_GREY, 64, 64, 0))
		return -ENODEV;
	p = buf_map(s->in, PAGE);
	if (!p)
		return -ENOMEM;
	frame_fill(&g, p, 39);
	munmap(p, PAGE);
	if (param_set("latency_us", LATENCY_US))
		return -EIO;
	return axl_import(s->dev, s->in, 64, 64, AXL_PIXFMT_GREY, 0, AXL_IMPORT_TO_DEVICE, &s->imp);
}

static void teardown(struct setup *s)
{
	close(s->res);
	close(s->in);
	close(s->dev);
}

/* poll() @fd for @events without waiting: 1 ready, 0 not, -errno. */
static int ready_now(int fd, short events)
{
	struct pollfd p = { .fd = fd, .events = events };
	int n = poll(&p, 1, 0);

	return n < 0 ? -errno : n;
}

/* The fence fd's state: 1 signalled, 0 active, -errno. */
static int fence_status(int fence)
{
	struct fence_state st;
	int ret = fence_state(fence, &st);

	return ret ? ret : st.status;
}

/*
 * Right after SUBMIT the result is not ready for a reader (poll POLLIN, which
 * waits for writers); it turns ready when the job's fence signals, and not
 * before.
 */
static int case_poll_result(void)
{
	struct setup s;
	struct axl_submit sub;
	struct pollfd p;
	uint64_t waited;
	int now, n;

	EXPECT_RET(setup(&s), 0);
	EXPECT_RET(axl_submit(s.dev, s.imp.handle, s.res, 0, &sub), 0);
	now = ready_now(s.res, POLLIN);
	FAIL_IF(fence_status(sub.fence_fd) != 0, "the job ended before the poll: engine too fast");
	FAIL_IF(now != 0, "poll(POLLIN) on the result right after SUBMIT: %d, expected 0 (not ready)",
		now);
	p = (struct pollfd){ .fd = s.res, .events = POLLIN };
	n = poll(&p, 1, WAIT_MS);
	waited = now_ns() - sub.submit_ns;
	FAIL_IF(n != 1, "poll(POLLIN) with a timeout: %d", n);
	FAIL_IF(fence_status(sub.fence_fd) != 1, "poll ready before the job's fence signalled");
	tap_diag("poll(POLLIN) on the result: not ready at once, ready %.1f ms after the submit",
		 waited / 1e6);
	close(sub.fence_fd);
	teardown(&s);
	return KSFT_PASS;
}

/*
 * Two jobs reading one frame do not wait for each other: the input holds
 * the job's fence as a reader's only, and SUBMIT begins the engine's access
 * to its input as a read, which waits only for writers, so a second SUBMIT
 * on the same input, writing another result, returns while the first job
 * runs.
 */
static int case_input_readers(void)
{
	struct setup s;
	struct axl_submit sub, sub2;
	uint64_t t0, took;
	int res2 = heap_alloc(PAGE), first;

	FAIL_IF(res2 < 0, "setup");
	EXPECT_RET(setup(&s), 0);
	EXPECT_RET(axl_submit(s.dev, s.imp.handle, s.res, 0, &sub), 0);
	t0 = now_ns();
	EXPECT_RET(axl_submit(s.dev, s.imp.handle, res2, 0, &sub2), 0);
	took = now_ns() - t0;
	first = fence_status(sub.fence_fd);
	tap_diag("second SUBMIT on the same input took %.2f ms; the first job's fence status %d",
		 took / 1e6, first);
	FAIL_IF(first != 0, "the second SUBMIT returned only after the first job ended");
	EXPECT_RET(fence_wait(sub2.fence_fd, WAIT_MS), 0);
	close(sub.fence_fd);
	close(sub2.fence_fd);
	close(res2);
	teardown(&s);
	return KSFT_PASS;
}

enum job_buffer { JOB_RESULT, JOB_INPUT };

/*
 * DMA_BUF_IOCTL_EXPORT_SYNC_FILE (Linux 6.0 on) with @flags on the job's
 * result or input (@which) right after SUBMIT gives a fence that has not
 * signalled, and signals with the job. @what names the buffer.
 */
static int export_while_job_runs(enum job_buffer which, __u32 flags, const char *what)
{
	struct dma_buf_export_sync_file exp = { .flags = flags, .fd = -1 };
	struct setup s;
	struct axl_submit sub;
	int buf, ret, status;

	EXPECT_RET(setup(&s), 0);
	buf = which == JOB_INPUT ? s.in : s.res;
	EXPECT_RET(axl_submit(s.dev, s.imp.handle, s.res, 0, &sub), 0);
	ret = ioctl(buf, DMA_BUF_IOCTL_EXPORT_SYNC_FILE, &exp) ? -errno : 0;
	if (ret == -ENOTTY) {
		fence_wait(sub.fence_fd, WAIT_MS);
		close(sub.fence_fd);
		teardown(&s);
		tap_diag("no DMA_BUF_IOCTL_EXPORT_SYNC_FILE in this kernel (before 6.0)");
		return KSFT_SKIP;
	}
	EXPECT_RET(ret, 0);
	status = fence_status(exp.fd);
	FAIL_IF(fence_status(sub.fence_fd) != 0, "the job ended before the export: engine too fast");
	tap_diag("%s's exported fence right after SUBMIT: status %d", what, status);
	FAIL_IF(status != 0, "the %s's exported fence is signalled while the job runs", what);
	EXPECT_RET(fence_wait(exp.fd, WAIT_MS), 0);
	FAIL_IF(fence_status(sub.fence_fd) != 1, "the exported fence signalled before the job's");
	close(exp.fd);
	close(sub.fence_fd);
	teardown(&s);
	return KSFT_PASS;
}

/* What a reader of the result must wait for: the job, as its writer. */
static int case_export_result(void)
{
	return export_while_job_runs(JOB_RESULT, DMA_BUF_SYNC_READ, "result");
}

/*
 * DMA_BUF_IOCTL_SYNC(START|@dir) on the job's result or input (@which) right
 * after SUBMIT returns only when the job is done: not before its fence
 * signalled, and at least 90% of the engine's latency after the job was
 * queued. @what names the buffer.
 */
static int sync_waits_for_job(enum job_buffer which, __u64 dir, const char *what)
{
	struct dma_buf_sync sync = { .flags = DMA_BUF_SYNC_START | dir };
	struct setup s;
	struct axl_submit sub;
	uint64_t start, took, since_submit;
	int buf, ret, status;

	EXPECT_RET(setup(&s), 0);
	buf = which == JOB_INPUT ? s.in : s.res;
	EXPECT_RET(axl_submit(s.dev, s.imp.handle, s.res, 0, &sub), 0);
	start = now_ns();
	ret = ioctl(buf, DMA_BUF_IOCTL_SYNC, &sync) ? -errno : 0;
	took = now_ns() - start;
	since_submit = now_ns() - sub.submit_ns;
	status = fence_status(sub.fence_fd);
	tap_diag("SYNC(START|%s) on the %s returned %d after %.2f ms (%.1f ms after the submit), "
		 "job fence status %d", dir == DMA_BUF_SYNC_READ ? "READ" : "WRITE", what, ret,
		 took / 1e6, since_submit / 1e6, status);
	EXPECT_RET(ret, 0);
	sync.flags = DMA_BUF_SYNC_END | dir;
	EXPECT_RET(ioctl(buf, DMA_BUF_IOCTL_SYNC, &sync) ? -errno : 0, 0);
	FAIL_IF(status != 1, "SYNC(START) on the %s returned while the job ran (fence status %d)",
		what, status);
	FAIL_IF(since_submit < LATENCY_US * 900ull, "returned %.1f ms after the submit",
		since_submit / 1e6);
	close(sub.fence_fd);
	teardown(&s);
	return KSFT_PASS;
}

/* A reader of the result waits for the job, its writer. */
static int case_sync_result(void)
{
	return sync_waits_for_job(JOB_RESULT, DMA_BUF_SYNC_READ, "result");
}

/*
 * A writer of the input (a CPU writer, or the next capture into the frame)
 * waits for the job reading it.
 */
static int case_sync_input_write(void)
{
	return sync_waits_for_job(JOB_INPUT, DMA_BUF_SYNC_WRITE, "input");
}

/*
 * A reader of the input does not wait for the job (another reader):
 * DMA_BUF_IOCTL_SYNC(START|READ) on the input returns while the job runs,
 * and poll() on the input is ready for POLLIN (readers) but not for POLLOUT
 * (writers) until the job's fence signals.
 */
static int case_input_reader_writer(void)
{
	struct dma_buf_sync sync = { .flags = DMA_BUF_SYNC_START | DMA_BUF_SYNC_READ };
	struct setup s;
	struct axl_submit sub;
	struct pollfd p;
	uint64_t start, took;
	int ret, in_now, out_now, status, n;

	EXPECT_RET(setup(&s), 0);
	EXPECT_RET(axl_submit(s.dev, s.imp.handle, s.res, 0, &sub), 0);
	start = now_ns();
	ret = ioctl(s.in, DMA_BUF_IOCTL_SYNC, &sync) ? -errno : 0;
	took = now_ns() - start;
	in_now = ready_now(s.in, POLLIN);
	out_now = ready_now(s.in, POLLOUT);
	status = fence_status(sub.fence_fd);
	tap_diag("on the input right after SUBMIT: SYNC(START|READ) %d after %.2f ms, "
		 "poll POLLIN %d, POLLOUT %d, job fence status %d", ret, took / 1e6, in_now,
		 out_now, status);
	EXPECT_RET(ret, 0);
	sync.flags = DMA_BUF_SYNC_END | DMA_BUF_SYNC_READ;
	EXPECT_RET(ioctl(s.in, DMA_BUF_IOCTL_SYNC, &sync) ? -errno : 0, 0);
	FAIL_IF(status != 0, "the job ended before the checks: engine too fast");
	FAIL_IF(in_now != 1, "poll(POLLIN) on the input: %d, expected 1 (a reader need not wait)",
		in_now);
	FAIL_IF(out_now != 0, "poll(POLLOUT) on the input: %d, expected 0 (a writer waits for the job)",
		out_now);
	p = (struct pollfd){ .fd = s.in, .events = POLLOUT };
	n = poll(&p, 1, WAIT_MS);
	FAIL_IF(n != 1, "poll(POLLOUT) on the input with a timeout: %d", n);
	FAIL_IF(fence_status(sub.fence_fd) != 1, "input writable before the job's fence signalled");
	close(sub.fence_fd);
	teardown(&s);
	return KSFT_PASS;
}

/* What a writer of the input must wait for: the job, as its reader. */
static int case_export_input(void)
{
	return export_while_job_runs(JOB_INPUT, DMA_BUF_SYNC_WRITE, "input");
}

/* Poll axl's live fence count until it is @want; false after 2 s. */
static bool fences_settle(long long want, long long *got)
{
	for (int t = 0; t < 200; t++) {
		*got = axl_stat("fences");
		if (*got == want)
			return true;
		usleep(10000);
	}
	return false;
}

/* Poll the module's refcount until it is @want; false after 2 s. */
static bool refcnt_settle(long want, long *got)
{
	for (int t = 0; t < 200; t++) {
		*got = axl_module_refcnt();
		if (*got == want)
			return true;
		usleep(10000);
	}
	return false;
}

/*
 * A result buffer keeps the fence of the last job that wrote it, and with it
 * a reference to the module, after every fence fd, the import and the device
 * are closed: the fence lives until a later one replaces it or the buffer is
 * freed. A second job's fence replaces the first's.
 */
static int case_fence_lifetime(void)
{
	struct setup s;
	struct axl_submit sub;
	long long got;

	FAIL_IF(!fences_settle(0, &got), "%lld axl fences alive before the case", got);
	EXPECT_RET(param_set("latency_us", 1000), 0);
	EXPECT_RET(setup(&s), 0);
	EXPECT_RET(param_set("latency_us", 1000), 0);
	for (int i = 0; i < 2; i++) {
		EXPECT_RET(axl_submit(s.dev, s.imp.handle, s.res, 0, &sub), 0);
		EXPECT_RET(fence_wait(sub.fence_fd, WAIT_MS), 0);
		close(sub.fence_fd);
		FAIL_IF(!fences_settle(1, &got),
			"after job %d: %lld axl fences alive, expected 1 (held by its result)",
			i + 1, got);
	}
	EXPECT_RET(axl_release(s.dev, s.imp.handle), 0);
	close(s.dev);
	FAIL_IF(!fences_settle(1, &got), "with the device closed: %lld fences, expected 1", got);
	close(s.in);
	FAIL_IF(!fences_settle(1, &got), "with the input freed: %lld fences, expected 1 (the result's)",
		got);
	/* freeing the result is what lets the fence, and the module, go */
	close(s.res);
	FAIL_IF(!fences_settle(0, &got), "with both buffers freed: %lld fences alive", got);
	return KSFT_PASS;
}

/*
 * The input keeps the job's fence too (a reader's), and with it the module,
 * once the result is freed: only freeing the input as well lets it go, and
 * the module then unloads as before (axl_unload's cases; here its refcount
 * falls back).
 */
static int case_fence_lifetime_input(void)
{
	struct setup s;
	struct axl_submit sub;
	long long got;
	long refs0, refs;

	FAIL_IF(!fences_settle(0, &got), "%lld axl fences alive before the case", got);
	EXPECT_RET(param_set("latency_us", 1000), 0);
	EXPECT_RET(setup(&s), 0);
	EXPECT_RET(param_set("latency_us", 1000), 0);
	EXPECT_RET(axl_submit(s.dev, s.imp.handle, s.res, 0, &sub), 0);
	EXPECT_RET(fence_wait(sub.fence_fd, WAIT_MS), 0);
	close(sub.fence_fd);
	EXPECT_RET(axl_release(s.dev, s.imp.handle), 0);
	close(s.dev);
	refs0 = axl_module_refcnt();
	FAIL_IF(refs0 < 1, "module refcount %ld with a buffer holding a fence", refs0);
	close(s.res);
	FAIL_IF(!fences_settle(1, &got),
		"with the result freed: %lld fences alive, expected 1 (held by the input)", got);
	refs = axl_module_refcnt();
	FAIL_IF(refs != refs0, "module refcount %ld with the result freed, was %ld", refs, refs0);
	close(s.in);
	FAIL_IF(!fences_settle(0, &got), "with both buffers freed: %lld fences alive", got);
	FAIL_IF(!refcnt_settle(refs0 - 1, &refs),
		"module refcount %ld once the input was freed, expected %ld", refs, refs0 - 1);
	tap_diag("module refcount %ld while the input held the fence, %ld once it was freed",
		 refs0, refs);
	return KSFT_PASS;
}

/* GET_INFO tells user space that it need not publish the fence itself. */
static int case_caps(void)
{
	struct axl_info info;
	int dev = axl_open_dev();

	FAIL_IF(dev < 0, "open: %s", axl_errname(dev));
	EXPECT_RET(axl_info(dev, &info), 0);
	FAIL_IF(!(info.caps & AXL_CAP_IMPLICIT_SYNC), "caps 0x%x lack AXL_CAP_IMPLICIT_SYNC",
		info.caps);
	FAIL_IF(!(info.caps & AXL_CAP_IMPLICIT_SYNC_INPUT),
		"caps 0x%x lack AXL_CAP_IMPLICIT_SYNC_INPUT", info.caps);
	close(dev);
	return KSFT_PASS;
}

static const struct axl_case cases[] = {
	{ "GET_INFO advertises AXL_CAP_IMPLICIT_SYNC and AXL_CAP_IMPLICIT_SYNC_INPUT", case_caps },
	{ "poll() on the result: not ready while the job runs, ready when it ends",
	  case_poll_result },
	{ "DMA_BUF_IOCTL_SYNC(START|READ) on the result waits for the job", case_sync_result },
	{ "two jobs reading one frame: the second SUBMIT does not wait for the first",
	  case_input_readers },
	{ "EXPORT_SYNC_FILE on the result right after SUBMIT: an unsignalled fence",
	  case_export_result },
	{ "DMA_BUF_IOCTL_SYNC(START|WRITE) on the input waits for the job reading it",
	  case_sync_input_write },
	{ "the input right after SUBMIT: readers go at once (SYNC READ, POLLIN), writers wait (POLLOUT)",
	  case_input_reader_writer },
	{ "EXPORT_SYNC_FILE(WRITE) on the input right after SUBMIT: an unsignalled fence",
	  case_export_input },
	{ "a buffer holds its last job's fence (and the module) until replaced or freed",
	  case_fence_lifetime },
	{ "the input holds the job's fence (and the module) until it is freed too",
	  case_fence_lifetime_input },
};

int main(void)
{
	int skip = tap_skip_unless_importable("module parameters, debugfs");

	if (skip)
		return skip;
	return tap_run(cases, ARRAY_SIZE(cases));
}
