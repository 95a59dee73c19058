// SPDX-License-Identifier: GPL-2.0
/*
 * axl_sync_unmap: CPU access to a heap buffer while another thread imports
 * it into /dev/axl and releases it, no job running.
 *
 * Each import maps an attachment of axl's engine device and each release
 * unmaps it; the system heap's begin/end_cpu_access() (DMA_BUF_IOCTL_SYNC)
 * syncs every attachment it finds marked mapped, so now and then a sync
 * names a mapping the other CPU has just taken down. On a kernel with
 * DMA-API debugging, 5.15's search for that mapping never ends when the
 * device's maximum segment is 4 GiB - 8 KiB or more: the syncing thread
 * spins in the kernel for good, holding the buffer's lock (docs/rig.md,
 * kernel/axl_dev.c). With the maximum the driver sets there it ends in a
 * "tries to sync DMA memory it has not allocated" report, which the log
 * checks name as the heap's race.
 *
 * The case fails when the sync count stands still for AXL_SYNC_STALL_S
 * seconds (30); it runs AXL_SYNC_UNMAP_S seconds (8 in the suite, at most
 * 100: the harness ends a case after 120). A sync thread stuck in the walk
 * cannot be ended, so the program then waits for the suite's timeout; on
 * the arm64 debug kernel with UINT_MAX the whole guest stalled there and
 * not even the diagnostic came out (docs/rig.md).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>
#include <linux/dma-buf.h>

#include "axl_util.h"

#define BUF_LEN (4u << 20)

struct race {
	int dev, buf;
	atomic_long syncs, pairs, failed;
	atomic_int stop;
};

static long env_seconds(const char *name, long dflt)
{
	const char *v = getenv(name);
	char *end;
	long n;

	if (!v || !*v)
		return dflt;
	n = strtol(v, &end, 10);
	return *end || n <= 0 ? dflt : n;
}

/*
 * For writing only: the heap then syncs axl's TO_DEVICE mapping in its own
 * direction, and DMA-API debugging reports nothing but the race.
 */
static int sync_write(int buf, __u64 edge)
{
	struct dma_buf_sync s = { .flags = edge | DMA_BUF_SYNC_WRITE };

	return axl_ioctl(buf, DMA_BUF_IOCTL_SYNC, &s);
}

static long min_t_long(long a, long b)
{
	return a < b ? a : b;
}

static void *syncer(void *arg)
{
	struct race *r = arg;

	while (!atomic_load(&r->stop)) {
		if (sync_write(r->buf, DMA_BUF_SYNC_START) || sync_write(r->buf, DMA_BUF_SYNC_END))
			atomic_fetch_add(&r->failed, 1);
		atomic_fetch_add(&r->syncs, 1);
	}
	return NULL;
}

static void *importer(void *arg)
{
	struct race *r = arg;

	while (!atomic_load(&r->stop)) {
		struct axl_import_fd imp;

		if (axl_import(r->dev, r->buf, 64, 64, AXL_PIXFMT_GREY, 0,
			       AXL_IMPORT_TO_DEVICE, &imp)) {
			atomic_fetch_add(&r->failed, 1);
			continue;
		}
		if (axl_release(r->dev, imp.handle))
			atomic_fetch_add(&r->failed, 1);
		atomic_fetch_add(&r->pairs, 1);
	}
	return NULL;
}

static int case_sync_beside_unmap(void)
{
	long run_s = min_t_long(env_seconds("AXL_SYNC_UNMAP_S", 8), 100);
	long stall_s = env_seconds("AXL_SYNC_STALL_S", 30);
	struct race r = { .dev = axl_open_dev(), .buf = heap_alloc(BUF_LEN) };
	uint64_t start = now_ns(), moved = start;
	long last = 0;
	pthread_t a, b;

	FAIL_IF(r.dev < 0, "open: %s", axl_errname(r.dev));
	FAIL_IF(r.buf < 0, "heap: %s", axl_errname(r.buf));
	FAIL_IF(pthread_create(&a, NULL, syncer, &r), "pthread_create");
	FAIL_IF(pthread_create(&b, NULL, importer, &r), "pthread_create");
	while (now_ns() - start < (uint64_t)run_s * 1000000000ull) {
		long s;

		usleep(100 * 1000);
		s = atomic_load(&r.syncs);
		if (s != last) {
			last = s;
			moved = now_ns();
		} else if (now_ns() - moved >= (uint64_t)stall_s * 1000000000ull) {
			tap_diag("no sync returned for %ld s (after %ld syncs beside %ld import/release pairs): a sync is stuck in the kernel",
				 stall_s, s, atomic_load(&r.pairs));
			return KSFT_FAIL;
		}
	}
	atomic_store(&r.stop, 1);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	tap_diag("%ld syncs beside %ld import/release pairs in %ld s, %ld failed call(s)",
		 atomic_load(&r.syncs), atomic_load(&r.pairs), run_s, atomic_load(&r.failed));
	FAIL_IF(!atomic_load(&r.pairs), "no import/release pair ended");
	FAIL_IF(atomic_load(&r.failed), "%ld sync/import/release call(s) failed", atomic_load(&r.failed));
	close(r.buf);
	close(r.dev);
	return KSFT_PASS;
}

int main(void)
{
	static const struct axl_case cases[] = {
		{ "CPU access to a heap buffer beside its import and release never stops",
		  case_sync_beside_unmap },
	};
	int ret = tap_skip_unless_importable("importing heap buffers");

	if (ret)
		return ret;
	return tap_run(cases, ARRAY_SIZE(cases));
}
