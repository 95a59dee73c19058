// SPDX-License-Identifier: GPL-2.0
/*
 * axl_errpaths: error paths of the ioctls that make something (an import,
 * a job, a fence fd, an attachment), each driven on purpose, checked for
 * its exact errno and for what the failed call leaves behind: nothing.
 *
 *  - IMPORT_FD2 whose answer cannot be copied out (the input half of the
 *    argument readable, the output half read-only): EFAULT, and no handle,
 *    attachment, writer mapping or pinned bytes stay;
 *  - SUBMIT with no free fd (RLIMIT_NOFILE): EMFILE, no job, the seqno not
 *    consumed, the result buffer neither attached, claimed nor pinned;
 *  - SUBMIT of an input whose kernel mapping is I/O memory, and DMA_ATTACH
 *    of such a buffer (the rig's nvmap-sim with debugfs next_iomem):
 *    EOPNOTSUPP, and the mapping is given back;
 *  - a job that would depend on itself: its result buffer is its input
 *    (EINVAL, nothing queued); a job reading the result of a job in flight
 *    waits for that job and ends well, not with EDEADLK;
 *  - DMA_ATTACH of a buffer the device maps for writing elsewhere: EBUSY,
 *    nothing attached or pinned, and the file attaches another buffer;
 *  - GET_RESOURCE_INFO and GET_DMA_STATS into memory that cannot be
 *    written: EFAULT, and the next call answers as before.
 *
 * Leaks are looked for where the driver would leave them: debugfs bufinfo
 * (attachments), /sys/kernel/debug/axl/stats (imports, jobs, fences),
 * GET_INFO (the file's imports and jobs), /proc/self/fd, the pinned-bytes
 * cap (max_user_pinned_mb set so that one leaked buffer makes the next
 * good call fail with ENOSPC) and the one-writer rule (a leaked writer
 * mapping makes the next writer fail with EBUSY).
 *
 * Needs root, axl.ko with its Metis node and the system heap; the
 * EOPNOTSUPP case needs nvmap-sim (the VM rig loads it).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>
#include <linux/axl_metis.h>
#include <linux/dma-heap.h>

#include "axl_util.h"

#define PAGE 4096u
#define MIB (1024u * 1024u)
#define NVMAP_IOMEM "/sys/kernel/debug/nvmap_sim/next_iomem"
#define TRACE_NAME "axl_errpaths_test"

/* ---- frames ---- */

/* A GREY frame in a system-heap buffer, filled, with the engine's answer for it. */
struct frame {
	int fd;
	uint8_t *map;
	size_t len;
	struct frame_geom g;
	struct axl_result ref;
};

static int frame_make(struct frame *f, uint32_t w, uint32_t h, uint64_t seed)
{
	int ret = frame_geom(&f->g, AXL_PIXFMT_GREY, w, h, 0);

	if (ret)
		return ret;
	f->len = (f->g.size + PAGE - 1) & ~(size_t)(PAGE - 1);
	f->fd = heap_alloc(f->len);
	if (f->fd < 0)
		return f->fd;
	f->map = buf_map(f->fd, f->len);
	if (!f->map)
		return -errno;
	ret = buf_sync(f->fd, true, true);
	if (ret)
		return ret;
	frame_fill(&f->g, f->map, seed);
	frame_reference(&f->g, f->map, &f->ref);
	return buf_sync(f->fd, false, true);
}

static void frame_free(struct frame *f)
{
	buf_unmap_close(&f->map, f->len, &f->fd);
}

/* Wait for a job's fence and check that it ended well with @ref's numbers. */
static int job_ok(const struct axl_submit *sub, int result, const struct axl_result *ref)
{
	struct fence_state st;
	struct axl_result r;

	FAIL_IF(fence_wait(sub->fence_fd, 5000), "seqno %llu: fence not signalled in 5 s",
		(unsigned long long)sub->seqno);
	EXPECT_RET(fence_state(sub->fence_fd, &st), 0);
	FAIL_IF(st.status != 1, "seqno %llu: fence status %d (%s)",
		(unsigned long long)sub->seqno, st.status, axl_errname(st.status));
	EXPECT_RET(result_read(result, &r), 0);
	FAIL_IF(r.magic != AXL_RESULT_MAGIC || r.status || r.seqno != sub->seqno,
		"result: magic 0x%x status %d seqno %llu (job's %llu)", r.magic, r.status,
		(unsigned long long)r.seqno, (unsigned long long)sub->seqno);
	FAIL_IF(r.crc32 != ref->crc32 || r.luma_sum != ref->luma_sum,
		"result crc32 0x%08x sum %llu, expected 0x%08x %llu", r.crc32,
		(unsigned long long)r.luma_sum, ref->crc32, (unsigned long long)ref->luma_sum);
	return KSFT_PASS;
}

/*
 * Two pages: the first read-write, the second read-only. An argument placed
 * so that its output fields start the second page can be read whole but
 * its answer cannot be written. NULL on failure.
 */
static uint8_t *split_pages(void)
{
	uint8_t *p = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	memset(p, 0, 2 * PAGE);
	if (mprotect(p + PAGE, PAGE, PROT_READ)) {
		munmap(p, 2 * PAGE);
		return NULL;
	}
	return p;
}

/* ---- IMPORT_FD2: EFAULT copying the answer out ---- */

/*
 * A BIDIRECTIONAL import (a writer mapping, pinned bytes) whose answer
 * cannot be written: the in-part of struct axl_import_fd2 is readable, the
 * part from @handle on read-only. The import is made, then dropped:
 * EFAULT, no handle in GET_INFO or debugfs stats, no attachment in
 * bufinfo, no fd made, and neither the buffer's writer mapping nor its
 * pinned bytes left: a Metis file attaches the same buffer under a cap of
 * exactly its size. The same argument in writable memory then imports.
 */
static int case_import2_efault(void)
{
	const size_t out = offsetof(struct axl_import_fd2, handle);
	struct axl_import_fd2 *req, good;
	struct axl_info info;
	long long imports0;
	int dev, buf, node, fds0;
	uint8_t *pages;

	dev = axl_open_dev();
	buf = heap_alloc(MIB);
	pages = split_pages();
	FAIL_IF(dev < 0 || buf < 0 || !pages, "setup: dev %d buf %d", dev, buf);
	EXPECT_RET(param_set("max_user_pinned_mb", 1), 0);

	good = (struct axl_import_fd2){
		.fd = buf, .flags = AXL_IMPORT_BIDIRECTIONAL, .width = 64, .height = 64,
		.pixfmt = AXL_PIXFMT_GREY, .nplanes = 1, .modifier = AXL_FORMAT_MOD_LINEAR,
		.planes = { { .offset = 0, .pitch = 64 } },
	};
	req = (struct axl_import_fd2 *)(pages + PAGE - out);
	memcpy(req, &good, out);

	imports0 = axl_stat("imports");
	fds0 = open_fd_count();
	EXPECT_RET(axl_ioctl(dev, AXL_IOCTL_IMPORT_FD2, req), -EFAULT);
	FAIL_IF(open_fd_count() != fds0, "fds %d, were %d", open_fd_count(), fds0);
	EXPECT_RET(axl_info(dev, &info), 0);
	FAIL_IF(info.file_imports != 0, "GET_INFO: %u imports after the EFAULT",
		info.file_imports);
	FAIL_IF(axl_stat("imports") != imports0, "debugfs stats: imports %lld, were %lld",
		axl_stat("imports"), imports0);
	FAIL_IF(bufinfo_attachments(buf) != 0, "bufinfo: the buffer has %d attachments",
		bufinfo_attachments(buf));
	/* the writer mapping and the pinned MiB were given back */
	node = metis_open();
	FAIL_IF(node < 0, "open %s: %s", metis_node_path, axl_errname(node));
	EXPECT_RET(metis_attach(node, buf), 0);
	EXPECT_RET(metis_detach(node), 0);
	close(node);

	/* the same request, answered */
	EXPECT_RET(axl_ioctl(dev, AXL_IOCTL_IMPORT_FD2, &good), 0);
	EXPECT_RET(axl_info(dev, &info), 0);
	FAIL_IF(info.file_imports != 1, "GET_INFO: %u imports", info.file_imports);
	FAIL_IF(bufinfo_attachments(buf) != 1, "bufinfo: %d attachments",
		bufinfo_attachments(buf));
	EXPECT_RET(axl_release(dev, good.handle), 0);
	FAIL_IF(bufinfo_attachments(buf) != 0, "attachment left after the release");
	munmap(pages, 2 * PAGE);
	close(buf);
	close(dev);
	return KSFT_PASS;
}

/* ---- SUBMIT: EMFILE ---- */

/*
 * Fill every fd below a lowered RLIMIT_NOFILE, so that the next fd the
 * kernel would hand out is past it. The fillers are dups of @fd, listed in
 * @fill (@max entries); returns how many, or -errno.
 */
static int fds_exhaust(int fd, int *fill, int max, struct rlimit *saved)
{
	struct rlimit lim;
	int n = 0, top;

	if (getrlimit(RLIMIT_NOFILE, saved))
		return -errno;
	top = fcntl(fd, F_DUPFD_CLOEXEC, 0);	/* the lowest free fd */
	if (top < 0)
		return -errno;
	close(top);
	/* the highest open fd decides the limit: find it */
	for (int i = 0; i < 1024; i++)
		if (fcntl(i, F_GETFD) >= 0)
			top = i > top ? i : top;
	lim = (struct rlimit){ .rlim_cur = (rlim_t)top + 1, .rlim_max = saved->rlim_max };
	if (setrlimit(RLIMIT_NOFILE, &lim))
		return -errno;
	for (;;) {
		int d = fcntl(fd, F_DUPFD_CLOEXEC, 0);

		if (d < 0)
			return errno == EMFILE ? n : -errno;
		if (n == max)
			return -E2BIG;
		fill[n++] = d;
	}
}

static void fds_restore(int *fill, int n, const struct rlimit *saved)
{
	while (n > 0)
		close(fill[--n]);
	setrlimit(RLIMIT_NOFILE, saved);
}

/*
 * SUBMIT when the caller has no free fd: it fails with EMFILE after it
 * mapped both buffers and began the engine's CPU access, before the job is
 * queued. Nothing may stay: no job or fence (debugfs stats, GET_INFO), no
 * fd, no seqno consumed (the next job's seqno follows the last good one),
 * the result buffer not attached (bufinfo), its pinned MiB given back (the
 * next job's 1 MiB result fits a 2 MiB cap beside the input) and its
 * writer mapping too (a job writes that buffer next).
 */
static int case_submit_emfile(void)
{
	struct frame x = { .fd = -1 };
	struct axl_import_fd imp;
	struct axl_submit a, b, c;
	struct axl_info info;
	struct rlimit saved;
	long long submitted0, fences0;
	int dev, r1, r2, r3, fill[1024], nfill, fds0, ret;

	dev = axl_open_dev();
	r1 = heap_alloc(PAGE);
	r2 = heap_alloc(MIB);
	r3 = heap_alloc(MIB);
	FAIL_IF(dev < 0 || r1 < 0 || r2 < 0 || r3 < 0, "setup");
	EXPECT_RET(frame_make(&x, 64, 64, 1), 0);
	EXPECT_RET(axl_import(dev, x.fd, 64, 64, AXL_PIXFMT_GREY, 0, AXL_IMPORT_TO_DEVICE,
			      &imp), 0);
	EXPECT_RET(param_set("max_user_pinned_mb", 2), 0);

	/* a good job first: the seqno the failed submit must not take follows it */
	EXPECT_RET(axl_submit(dev, imp.handle, r1, 0, &a), 0);
	ret = job_ok(&a, r1, &x.ref);
	if (ret != KSFT_PASS)
		return ret;
	close(a.fence_fd);
	FAIL_IF(!axl_stats_settle(1, 1, 0, axl_stat("fences"), 5000), "job a not cleaned up");

	/* nothing below may open a file until the fds are given back */
	submitted0 = axl_stat("submitted");
	fences0 = axl_stat("fences");
	fds0 = open_fd_count();
	nfill = fds_exhaust(dev, fill, ARRAY_SIZE(fill), &saved);
	FAIL_IF(nfill < 0, "exhausting fds: %s", axl_errname(nfill));
	ret = axl_submit(dev, imp.handle, r2, 0, &b);
	fds_restore(fill, nfill, &saved);
	EXPECT_RET(ret, -EMFILE);
	FAIL_IF(open_fd_count() != fds0, "fds %d, were %d", open_fd_count(), fds0);
	FAIL_IF(axl_stat("submitted") != submitted0, "submitted %lld, was %lld",
		axl_stat("submitted"), submitted0);
	FAIL_IF(!axl_stats_settle(1, 1, 0, fences0, 2000), "a job or fence left behind");
	EXPECT_RET(axl_info(dev, &info), 0);
	FAIL_IF(info.file_jobs != 0, "GET_INFO: %u jobs", info.file_jobs);
	FAIL_IF(bufinfo_attachments(r2) != 0, "bufinfo: the result has %d attachments",
		bufinfo_attachments(r2));

	/* the next jobs: seqno not consumed, pinned bytes and writer given back */
	EXPECT_RET(axl_submit(dev, imp.handle, r3, 0, &c), 0);
	FAIL_IF(c.seqno != a.seqno + 1, "seqno %llu after %llu: the failed submit took one",
		(unsigned long long)c.seqno, (unsigned long long)a.seqno);
	ret = job_ok(&c, r3, &x.ref);
	if (ret != KSFT_PASS)
		return ret;
	close(c.fence_fd);
	/* job c holds r3's MiB until its cleanup, after the signal */
	FAIL_IF(!axl_stats_settle(1, 1, 0, axl_stat("fences"), 5000), "job c not cleaned up");
	EXPECT_RET(axl_submit(dev, imp.handle, r2, 0, &b), 0);
	ret = job_ok(&b, r2, &x.ref);
	if (ret != KSFT_PASS)
		return ret;
	close(b.fence_fd);
	FAIL_IF(!axl_stats_settle(1, 1, 0, axl_stat("fences"), 5000), "jobs not cleaned up");
	EXPECT_RET(axl_release(dev, imp.handle), 0);
	frame_free(&x);
	close(r1);
	close(r2);
	close(r3);
	close(dev);
	return KSFT_PASS;
}

/* ---- SUBMIT and DMA_ATTACH: EOPNOTSUPP ---- */


/* Occurrences of @needle in @text. */
static int count_of(const char *text, const char *needle)
{
	int n = 0;

	for (const char *p = text; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

/*
 * An nvmap-sim buffer whose vmap is I/O memory (debugfs next_iomem), as
 * a device's memory would be: the engine and the simulated eDMA read with
 * plain loads, so SUBMIT with it as input and DMA_ATTACH of it fail with
 * EOPNOTSUPP. Nothing stays: the vmap is undone (nvmap-sim's vmap and
 * vunmap events pair up), no job (stats, seqno), the result buffer and the
 * Metis file hold no attachment, pinned bytes or writer mapping (under a
 * 2 MiB cap the Metis file attaches another MiB beside the frame, the
 * buffer imports FROM_DEVICE), and good calls work.
 */
static int case_iomem_eopnotsupp(void)
{
	static const char *const events[] = {
		"nvmap/nvmap_dmabuf_vmap", "nvmap/nvmap_dmabuf_vunmap", NULL,
	};
	struct frame x = { .fd = -1 };
	struct axl_import_fd io, ix;
	struct axl_submit a, b;
	struct axl_info info;
	long long submitted0, fences0;
	int dev, node, in, res, other, fds0, ret, vmaps, vunmaps;
	char *trace;

	if (access(NVMAP_IOMEM, W_OK)) {
		if (getenv("AXL_EXPECT_NVMAP_SIM")) {
			tap_diag("%s absent, but the rig loads nvmap_sim.ko", NVMAP_IOMEM);
			return KSFT_FAIL;
		}
		tap_diag("no %s (load tests/rig/nvmap_sim): no exporter with an I/O memory vmap",
			 NVMAP_IOMEM);
		return KSFT_SKIP;
	}
	dev = axl_open_dev();
	node = metis_open();
	res = heap_alloc(MIB);
	other = heap_alloc(MIB);
	FAIL_IF(dev < 0 || node < 0 || res < 0 || other < 0, "setup");
	EXPECT_RET(frame_make(&x, 64, 64, 2), 0);
	EXPECT_RET(sysfs_write(NVMAP_IOMEM, "1"), 0);
	in = heap_alloc_from(NVMAP_HEAP, MIB);
	FAIL_IF(in < 0, "nvmap-sim allocation: %s", axl_errname(in));
	EXPECT_RET(axl_import(dev, in, 64, 64, AXL_PIXFMT_GREY, 0, AXL_IMPORT_TO_DEVICE, &io), 0);
	EXPECT_RET(axl_import(dev, x.fd, 64, 64, AXL_PIXFMT_GREY, 0, AXL_IMPORT_TO_DEVICE, &ix), 0);
	EXPECT_RET(axl_submit(dev, ix.handle, res, 0, &a), 0);
	ret = job_ok(&a, res, &x.ref);
	if (ret != KSFT_PASS)
		return ret;
	close(a.fence_fd);
	FAIL_IF(!axl_stats_settle(2, 2, 0, axl_stat("fences"), 5000), "job a not cleaned up");
	/* the frame's page and two MiB buffers do not fit */
	EXPECT_RET(param_set("max_user_pinned_mb", 2), 0);

	trace_instance_remove(TRACE_NAME);
	ret = trace_instance_create(TRACE_NAME, events);
	FAIL_IF(ret, "tracefs instance with nvmap-sim's vmap events: %s", axl_errname(ret));
	submitted0 = axl_stat("submitted");
	fences0 = axl_stat("fences");
	fds0 = open_fd_count();
	EXPECT_RET(axl_submit(dev, io.handle, res, 0, &b), -EOPNOTSUPP);
	FAIL_IF(open_fd_count() != fds0, "fds %d, were %d", open_fd_count(), fds0);
	FAIL_IF(axl_stat("submitted") != submitted0, "submitted %lld, was %lld",
		axl_stat("submitted"), submitted0);
	FAIL_IF(!axl_stats_settle(2, 2, 0, fences0, 2000), "a job or fence left behind");
	EXPECT_RET(axl_info(dev, &info), 0);
	FAIL_IF(info.file_jobs != 0, "GET_INFO: %u jobs", info.file_jobs);
	FAIL_IF(bufinfo_attachments(res) != 0, "bufinfo: the result has %d attachments",
		bufinfo_attachments(res));
	/* the input is not busy: released at once (and imported again below) */
	EXPECT_RET(axl_release(dev, io.handle), 0);

	/* the Metis node copies through the vmap too */
	EXPECT_RET(metis_attach(node, in), -EOPNOTSUPP);
	EXPECT_RET(metis_detach(node), -EINVAL);
	FAIL_IF(bufinfo_attachments(in) != 0, "bufinfo: the nvmap-sim buffer has %d attachments",
		bufinfo_attachments(in));
	trace = trace_instance_read(TRACE_NAME);
	trace_instance_remove(TRACE_NAME);
	FAIL_IF(!trace, "reading the tracefs instance");
	vmaps = count_of(trace, "nvmap_dmabuf_vmap:");
	vunmaps = count_of(trace, "nvmap_dmabuf_vunmap:");
	free(trace);
	FAIL_IF(vmaps != 2 || vunmaps != 2,
		"nvmap-sim: %d vmaps and %d vunmaps by SUBMIT and DMA_ATTACH, expected 2 and 2",
		vmaps, vunmaps);

	/* good calls: the result buffer written by a job, the Metis file attaching */
	EXPECT_RET(axl_submit(dev, ix.handle, res, 0, &b), 0);
	FAIL_IF(b.seqno != a.seqno + 1, "seqno %llu after %llu: the failed submit took one",
		(unsigned long long)b.seqno, (unsigned long long)a.seqno);
	ret = job_ok(&b, res, &x.ref);
	if (ret != KSFT_PASS)
		return ret;
	close(b.fence_fd);
	FAIL_IF(!axl_stats_settle(2, 1, 0, axl_stat("fences"), 5000), "job b not cleaned up");
	EXPECT_RET(axl_release(dev, ix.handle), 0);
	EXPECT_RET(metis_attach(node, other), 0);
	EXPECT_RET(metis_detach(node), 0);
	/* and the I/O memory buffer imports again: the failed attach kept no writer */
	EXPECT_RET(axl_import(dev, in, 64, 64, AXL_PIXFMT_GREY, 0, AXL_IMPORT_FROM_DEVICE, &io), 0);
	EXPECT_RET(axl_release(dev, io.handle), 0);
	frame_free(&x);
	close(in);
	close(res);
	close(other);
	close(node);
	close(dev);
	return KSFT_PASS;
}

/* ---- a job depending on itself ---- */

/*
 * A job's fence can only signal after every job before it on the engine's
 * timeline, so a job that waited for its own fence (or a later one) would
 * never end: the engine would end it with EDEADLK. SUBMIT rules that out:
 *  - a job whose result buffer is its own input fails with EINVAL, queues
 *    nothing and consumes no seqno;
 *  - a job whose input is the result of a job in flight waits in SUBMIT
 *    for that job (its fence is the buffer's writer), then runs after it:
 *    it ends well (not EDEADLK), queued after the first job's fence
 *    signalled, and its numbers are those of the header the first job wrote.
 */
static int case_self_dependency(void)
{
	struct frame x = { .fd = -1 };
	struct axl_import_fd ix, ir, iself;
	struct axl_submit a, b;
	struct axl_result ref;
	struct fence_state st;
	struct frame_geom g;
	long long submitted0;
	int dev, r, out, ret;
	uint8_t *map;

	dev = axl_open_dev();
	r = heap_alloc(PAGE);
	out = heap_alloc(PAGE);
	FAIL_IF(dev < 0 || r < 0 || out < 0, "setup");
	EXPECT_RET(frame_make(&x, 64, 64, 3), 0);
	EXPECT_RET(axl_import(dev, x.fd, 64, 64, AXL_PIXFMT_GREY, 0, AXL_IMPORT_TO_DEVICE, &ix), 0);
	EXPECT_RET(axl_import(dev, r, PAGE, 1, AXL_PIXFMT_RAW, 0, AXL_IMPORT_TO_DEVICE, &ir), 0);

	/* its own input as its result */
	EXPECT_RET(axl_import(dev, out, PAGE, 1, AXL_PIXFMT_RAW, 0, AXL_IMPORT_TO_DEVICE, &iself),
		   0);
	submitted0 = axl_stat("submitted");
	EXPECT_RET(axl_submit(dev, iself.handle, out, 0, NULL), -EINVAL);
	FAIL_IF(axl_stat("submitted") != submitted0, "submitted %lld, was %lld",
		axl_stat("submitted"), submitted0);
	FAIL_IF(bufinfo_attachments(out) != 1, "bufinfo: %d attachments of the input, not its import's",
		bufinfo_attachments(out));
	EXPECT_RET(axl_release(dev, iself.handle), 0);

	/* b reads what a writes, a still in flight (the engine runs it 500 ms) */
	EXPECT_RET(param_set("latency_us", 500000), 0);
	EXPECT_RET(axl_submit(dev, ix.handle, r, 0, &a), 0);
	EXPECT_RET(fence_state(a.fence_fd, &st), 0);
	FAIL_IF(st.status != 0, "job a ended (%d) before job b was submitted", st.status);
	EXPECT_RET(axl_submit(dev, ir.handle, out, 0, &b), 0);
	FAIL_IF(b.seqno != a.seqno + 1, "seqnos %llu, %llu", (unsigned long long)a.seqno,
		(unsigned long long)b.seqno);
	FAIL_IF(fence_wait(a.fence_fd, 5000), "job a's fence not signalled in 5 s");
	EXPECT_RET(fence_state(a.fence_fd, &st), 0);
	FAIL_IF(st.status != 1, "job a: fence status %d (%s)", st.status, axl_errname(st.status));
	FAIL_IF(b.submit_ns < st.timestamp_ns,
		"job b was queued %.1f ms before job a's fence signalled",
		(st.timestamp_ns - b.submit_ns) / 1e6);
	FAIL_IF(fence_wait(b.fence_fd, 5000), "job b's fence not signalled in 5 s");
	FAIL_IF(!axl_stats_settle(1, 2, 0, axl_stat("fences"), 5000), "jobs not cleaned up");
	EXPECT_RET(axl_release(dev, ix.handle), 0);
	EXPECT_RET(axl_release(dev, ir.handle), 0);
	/*
	 * a's result, and what job b should have read: the buffer is read only
	 * once nothing maps it TO_DEVICE (a CPU read syncs every mapping the
	 * other way: a DMA-API report on the debug kernel)
	 */
	ret = job_ok(&a, r, &x.ref);
	if (ret != KSFT_PASS)
		return ret;
	close(a.fence_fd);
	EXPECT_RET(frame_geom(&g, AXL_PIXFMT_RAW, PAGE, 1, 0), 0);
	map = buf_map(r, PAGE);
	FAIL_IF(!map, "mmap of a's result");
	EXPECT_RET(buf_sync(r, true, false), 0);
	frame_reference(&g, map, &ref);
	EXPECT_RET(buf_sync(r, false, false), 0);
	munmap(map, PAGE);
	ret = job_ok(&b, out, &ref);
	if (ret != KSFT_PASS)
		return ret;
	close(b.fence_fd);
	frame_free(&x);
	close(r);
	close(out);
	close(dev);
	return KSFT_PASS;
}

/* ---- DMA_ATTACH: EBUSY for a buffer another mapping writes ---- */

/*
 * A buffer imported BIDIRECTIONAL on /dev/axl (the device maps it for
 * writing) cannot be attached on the Metis node: EBUSY, from the one-writer
 * rule, after the pin was charged. Nothing stays: the Metis file has nothing
 * attached (DETACH: EINVAL), bufinfo lists only the import's attachment,
 * the debugfs count of imports is the import's, and the pinned MiB is given
 * back: the file attaches another 1 MiB buffer under a cap of 2 MiB (the
 * import's and that one). Once the import is released, the buffer attaches.
 */
static int case_attach_writer_ebusy(void)
{
	struct axl_import_fd iw;
	long long imports0;
	int dev, node, w, v, fds0;

	dev = axl_open_dev();
	node = metis_open();
	w = heap_alloc(MIB);
	v = heap_alloc(MIB);
	FAIL_IF(dev < 0 || node < 0 || w < 0 || v < 0, "setup");
	EXPECT_RET(param_set("max_user_pinned_mb", 2), 0);
	EXPECT_RET(axl_import(dev, w, 64, 64, AXL_PIXFMT_GREY, 0, AXL_IMPORT_BIDIRECTIONAL, &iw), 0);

	imports0 = axl_stat("imports");
	fds0 = open_fd_count();
	EXPECT_RET(metis_attach(node, w), -EBUSY);
	FAIL_IF(open_fd_count() != fds0, "fds %d, were %d", open_fd_count(), fds0);
	EXPECT_RET(metis_detach(node), -EINVAL);
	FAIL_IF(axl_stat("imports") != imports0, "debugfs stats: imports %lld, were %lld",
		axl_stat("imports"), imports0);
	FAIL_IF(bufinfo_attachments(w) != 1, "bufinfo: %d attachments, the import's only expected",
		bufinfo_attachments(w));
	/* the pinned MiB went back: another MiB fits beside the import's */
	EXPECT_RET(metis_attach(node, v), 0);
	EXPECT_RET(metis_detach(node), 0);
	/* and the writer is the import alone: released, the buffer attaches */
	EXPECT_RET(axl_release(dev, iw.handle), 0);
	EXPECT_RET(metis_attach(node, w), 0);
	FAIL_IF(bufinfo_attachments(w) != 1, "bufinfo: %d attachments, the node's only expected",
		bufinfo_attachments(w));
	EXPECT_RET(metis_detach(node), 0);
	close(v);
	close(w);
	close(node);
	close(dev);
	return KSFT_PASS;
}

/* ---- GET_RESOURCE_INFO and GET_DMA_STATS: EFAULT ---- */

/*
 * Both copy a struct out and nothing else: NULL, an unmapped page, a
 * read-only page and a struct whose second half lies in a read-only page
 * fail with EFAULT; the next call into good memory answers as before
 * (card memory; counters that no transfer changed in between).
 */
static int case_query_efault(void)
{
	static const struct {
		unsigned long cmd;
		size_t size;
		const char *what;
	} calls[] = {
		{ AXL_METIS_IOCTL_GET_RESOURCE_INFO, sizeof(struct axl_metis_res_info),
		  "GET_RESOURCE_INFO" },
		{ AXL_METIS_IOCTL_GET_DMA_STATS, sizeof(struct axl_metis_dma_stats),
		  "GET_DMA_STATS" },
	};
	uint8_t before[1024], after[1024], *pages, *gone;
	int node = metis_open();

	FAIL_IF(node < 0, "open %s: %s", metis_node_path, axl_errname(node));
	pages = split_pages();
	gone = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	FAIL_IF(!pages || gone == MAP_FAILED || munmap(gone, PAGE), "setup");

	for (size_t i = 0; i < ARRAY_SIZE(calls); i++) {
		void *bad[] = { NULL, gone, pages + PAGE, pages + PAGE - calls[i].size / 2 };

		FAIL_IF(calls[i].size > sizeof(before), "%s: struct of %zu bytes", calls[i].what,
			calls[i].size);
		memset(before, 0xa5, sizeof(before));
		EXPECT_RET(axl_ioctl(node, calls[i].cmd, before), 0);
		for (size_t j = 0; j < ARRAY_SIZE(bad); j++) {
			int ret = axl_ioctl(node, calls[i].cmd, bad[j]);

			FAIL_IF(ret != -EFAULT, "%s into %s: %s, not EFAULT", calls[i].what,
				(const char *[]){ "NULL", "an unmapped page", "a read-only page",
						  "a struct half in a read-only page" }[j],
				axl_errname(ret));
		}
		memset(after, 0x5a, sizeof(after));
		EXPECT_RET(axl_ioctl(node, calls[i].cmd, after), 0);
		FAIL_IF(memcmp(before, after, calls[i].size), "%s answers differently after the EFAULTs",
			calls[i].what);
	}
	munmap(pages, 2 * PAGE);
	close(node);
	return KSFT_PASS;
}

int main(void)
{
	static const struct axl_case cases[] = {
		{ "IMPORT_FD2 whose answer cannot be copied out: EFAULT, no import left",
		  case_import2_efault },
		{ "SUBMIT without a free fd: EMFILE, no job, seqno, attachment or pin left",
		  case_submit_emfile },
		{ "SUBMIT and DMA_ATTACH of an I/O memory mapping: EOPNOTSUPP, nothing left",
		  case_iomem_eopnotsupp },
		{ "a job never depends on itself: its input as result EINVAL, a job in flight waited for",
		  case_self_dependency },
		{ "DMA_ATTACH of a buffer mapped for writing elsewhere: EBUSY, nothing left",
		  case_attach_writer_ebusy },
		{ "GET_RESOURCE_INFO and GET_DMA_STATS into unwritable memory: EFAULT",
		  case_query_efault },
	};

	if (tap_skip_unless_metis())
		return KSFT_SKIP;
	if (access(AXL_DEV_PATH, F_OK)) {
		printf("TAP version 13\n1..0 # SKIP %s absent (load axl.ko)\n", AXL_DEV_PATH);
		return KSFT_SKIP;
	}
	return tap_run(cases, ARRAY_SIZE(cases));
}
