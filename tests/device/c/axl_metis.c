// SPDX-License-Identifier: GPL-2.0
/*
 * axl_metis: the Metis-compatible node (linux/axl_metis.h) against the real
 * driver, kselftest-style.
 *
 * Buffers come from /dev/dma_heap/system and are written from user space;
 * transfers go to the simulated card memory and back, and the bytes are
 * compared. Then: poll() completion, one buffer per file, detach and close
 * with a transfer in flight, bad arguments, the DMA statistics, two threads
 * transferring on one file (each sees its own transfer complete, never the
 * other's), and, with the module reloaded on the platform stand-in (no
 * IOMMU, so a multi-chunk heap buffer maps as several scatterlist entries),
 * that one user's attachments count against its share of pinned bytes and
 * leave room for another user's, and that a scattered buffer transfers byte-exact both ways over every entry,
 * in several passes of descriptors, the way metis.ko does.
 *
 * Needs root. Skips (exit 4) when the node is absent (metis_node=0).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/axl_metis.h>

#include "axl_util.h"

#define PAGE 4096u
#define MIB (1024u * 1024u)
/* Three order-8 system-heap chunks at most: several entries without an IOMMU. */
#define BIG (3 * MIB)
/*
 * A buffer of 3 order-8, 15 order-4 and 15 order-0 system-heap chunks: 33
 * scatterlist entries at least without an IOMMU, so descriptors cross chunk
 * sizes and, at LL_PASS descriptors per pass, take 9 passes.
 */
#define SCATTERED (3 * MIB + 15 * 64 * 1024 + 15 * PAGE)
#define LL_PASS 4
/* metis_xfer_us that keeps a transfer in flight far longer than the calls after it take */
#define SLOW_US 2000000
/* The race: the next transfer's set-up outlasts the gap before a completion is reported. */
#define RACE_XFER_US 40000
#define RACE_DONE_US 20000
#define RACE_ROUNDS 12
#define RACE_CHUNK (64 * 1024)
#define RACE_CARD (16 * MIB)
#define TRACE_NAME "axl_metis_test"

/* ---- the node ---- */

static int node_status(int fd)
{
	struct axl_metis_xfer x = {};

	return axl_ioctl(fd, AXL_METIS_IOCTL_DMA_GET_XFER_ASYNC_STATUS, &x);
}

static int node_clear_event(int fd)
{
	int unused = 0;

	return axl_ioctl(fd, AXL_METIS_IOCTL_CLEAR_POLL_EVENT, &unused);
}

/* ---- buffers ---- */

struct buf {
	int fd;
	uint8_t *map;
	size_t len;
};

static int buf_make(struct buf *b, size_t len, uint64_t seed)
{
	b->len = len;
	b->fd = heap_alloc(len);
	if (b->fd < 0)
		return b->fd;
	b->map = buf_map(b->fd, len);
	if (!b->map)
		return -errno;
	buf_sync(b->fd, true, true);
	for (size_t i = 0; i < len; i++)
		b->map[i] = (uint8_t)(prng_next(&seed) >> 56);
	return buf_sync(b->fd, false, true);
}

/* Rewrites @b with bytes from @seed. */
static int buf_fill(struct buf *b, uint64_t seed)
{
	buf_sync(b->fd, true, true);
	for (size_t i = 0; i < b->len; i++)
		b->map[i] = (uint8_t)(prng_next(&seed) >> 56);
	return buf_sync(b->fd, false, true);
}

/* The most scatterlist entries GET_DMA_STATS saw in one transfer, or -errno. */
static int stats_max_sgt(int fd)
{
	struct axl_metis_dma_stats st;
	int most = 0, ret = axl_ioctl(fd, AXL_METIS_IOCTL_GET_DMA_STATS, &st);

	if (ret)
		return ret;
	for (int c = 0; c < AXL_METIS_DMA_CHANNELS; c++) {
		most = st.rd_channels[c].max_sgt > most ? st.rd_channels[c].max_sgt : most;
		most = st.wr_channels[c].max_sgt > most ? st.wr_channels[c].max_sgt : most;
	}
	return most;
}

/* Compares @len bytes at @a_off of @a with @b at @b_off; -1 or the first differing index. */
static long buf_diff(const struct buf *a, size_t a_off, const struct buf *b, size_t b_off,
		     size_t len)
{
	long at = -1;

	buf_sync(b->fd, true, false);
	for (size_t i = 0; i < len && at < 0; i++)
		if (a->map[a_off + i] != b->map[b_off + i])
			at = (long)i;
	buf_sync(b->fd, false, false);
	return at;
}

/* Devices debugfs bufinfo lists as attached to @buf, or -1. */
static int attached_devices(int buf)
{
	static struct bufinfo_entry e[512];
	int n = bufinfo_read(e, 512);
	const struct bufinfo_entry *hit = n > 0 ? bufinfo_find(e, n, fd_inode(buf)) : NULL;

	return hit ? hit->ndevices : -1;
}

/* ---- cases ---- */

static int case_queries(void)
{
	static const uint64_t want[] = { 0, 4, 0, UINT64_MAX };
	struct axl_metis_res_info res;
	struct axl_metis_dma_stats st;
	int fd = metis_open();
	uint64_t v;

	FAIL_IF(fd < 0, "open %s: %s", metis_node_path, axl_errname(fd));
	for (uint64_t id = 0; id < ARRAY_SIZE(want); id++) {
		v = id;
		EXPECT_RET(axl_ioctl(fd, AXL_METIS_IOCTL_GET_DEV_PROPERTY, &v), 0);
		FAIL_IF(v != want[id], "property %llu = %llu", (unsigned long long)id,
			(unsigned long long)v);
	}
	v = 4;
	EXPECT_RET(axl_ioctl(fd, AXL_METIS_IOCTL_GET_DEV_PROPERTY, &v), -EINVAL);
	EXPECT_RET(axl_ioctl(fd, AXL_METIS_IOCTL_GET_RESOURCE_INFO, &res), 0);
	FAIL_IF(res.ddr_size[0] < 16 * MIB, "card memory %llu bytes",
		(unsigned long long)res.ddr_size[0]);
	EXPECT_RET(axl_ioctl(fd, AXL_METIS_IOCTL_GET_DMA_STATS, &st), 0);
	/* the struct's own size in the number instead of a pointer's is another ioctl */
	EXPECT_RET(axl_ioctl(fd, _IOWR('U', 7, struct axl_metis_xfer), &st), -ENOTTY);
	EXPECT_RET(axl_ioctl(fd, _IOWR('U', 4, int), &st), -ENOTTY);
	EXPECT_RET(node_status(fd), 0); /* no transfer yet */
	EXPECT_RET(node_clear_event(fd), 0);
	close(fd);
	return KSFT_PASS;
}

/* One buffer to card memory and back into another, whole and at offsets. */
static int case_roundtrip(void)
{
	struct buf a, b;
	int fa = metis_open(), fb = metis_open();
	long at;

	FAIL_IF(fa < 0 || fb < 0, "open %s", metis_node_path);
	EXPECT_RET(buf_make(&a, BIG, 1), 0);
	EXPECT_RET(buf_make(&b, BIG, 2), 0);
	EXPECT_RET(metis_attach(fa, a.fd), 0);
	EXPECT_RET(metis_attach(fb, b.fd), 0);
	FAIL_IF(attached_devices(a.fd) != 1, "bufinfo: %d devices attached to the buffer",
		attached_devices(a.fd));

	EXPECT_RET(metis_xfer(fa, MIB, BIG, 0, AXL_METIS_XFER_WRITE | AXL_METIS_XFER_SYNC), 0);
	EXPECT_RET(metis_xfer(fb, MIB, BIG, 0, AXL_METIS_XFER_READ | AXL_METIS_XFER_SYNC), 0);
	at = buf_diff(&a, 0, &b, 0, BIG);
	FAIL_IF(at >= 0, "whole buffer: byte %ld differs after the round trip", at);
	tap_diag("3 MiB buffers; most scatterlist entries of a transfer so far: %d",
		 stats_max_sgt(fa));

	/* 5000 bytes from offset 777 of a, to card 12345, back into b at offset 4099 */
	EXPECT_RET(metis_xfer(fa, 12345, 5000, 777, AXL_METIS_XFER_WRITE | AXL_METIS_XFER_SYNC),
		   0);
	EXPECT_RET(metis_xfer(fb, 12345, 5000, 4099, AXL_METIS_XFER_READ | AXL_METIS_XFER_SYNC),
		   0);
	at = buf_diff(&a, 777, &b, 4099, 5000);
	FAIL_IF(at >= 0, "offsets: byte %ld differs", at);
	/* b was a's copy: the bytes just outside the range are a's still */
	FAIL_IF(buf_diff(&a, 4098, &b, 4098, 1) >= 0 || buf_diff(&a, 9099, &b, 9099, 1) >= 0,
		"a byte next to the range changed");
	EXPECT_RET(metis_detach(fa), 0);
	FAIL_IF(attached_devices(a.fd) != 0, "bufinfo: still attached after DMA_DETACH");
	EXPECT_RET(metis_detach(fb), 0);
	close(fa);
	close(fb);
	return KSFT_PASS;
}

/*
 * The eDMA begins its CPU access by what it does (kernel/axl_drv.h): a
 * WRITE (buffer to card) reads the buffer DMA_FROM_DEVICE, a READ (card to
 * buffer) stores into part of it DMA_BIDIRECTIONAL, so the rest of a cache
 * line it ends in is fresh before the end cleans the line. Seen by a
 * kprobe on dma_buf_begin_cpu_access() around one transfer each way.
 */
static int case_cpu_access_directions(void)
{
	int f = metis_open(), ret, n[3];
	char inst[64];
	struct buf a;

	FAIL_IF(f < 0, "open %s", metis_node_path);
	EXPECT_RET(buf_make(&a, MIB, 3), 0);
	EXPECT_RET(metis_attach(f, a.fd), 0);
	snprintf(inst, sizeof(inst), "axl_metis_cpu_%d", getpid());
	ret = begin_cpu_record(inst);
	FAIL_IF(ret, "kprobe on dma_buf_begin_cpu_access: %s", axl_errname(ret));
	ret = metis_xfer(f, 0, 5000, 777, AXL_METIS_XFER_WRITE | AXL_METIS_XFER_SYNC);
	if (!ret)
		ret = metis_xfer(f, 0, 5000, 4099, AXL_METIS_XFER_READ | AXL_METIS_XFER_SYNC);
	FAIL_IF(begin_cpu_stop(inst, n), "cannot read the trace");
	FAIL_IF(ret, "transfer: %s", axl_errname(ret));
	tap_diag("two transfers began CPU access %d time(s) FROM_DEVICE, %d TO_DEVICE, "
		 "%d BIDIRECTIONAL", n[2], n[1], n[0]);
	FAIL_IF(n[2] != 1, "the WRITE's read began FROM_DEVICE %d time(s), not once", n[2]);
	FAIL_IF(n[0] != 1, "the READ's store began BIDIRECTIONAL %d time(s), not once", n[0]);
	FAIL_IF(n[1], "%d access(es) began TO_DEVICE", n[1]);
	EXPECT_RET(metis_detach(f), 0);
	close(f);
	return KSFT_PASS;
}

static int case_async_poll(void)
{
	struct buf a;
	int fd = metis_open();

	FAIL_IF(fd < 0, "open %s", metis_node_path);
	EXPECT_RET(buf_make(&a, 64 * 1024, 3), 0);
	EXPECT_RET(metis_attach(fd, a.fd), 0);
	EXPECT_RET(param_set("metis_xfer_us", SLOW_US), 0);
	EXPECT_RET(metis_xfer(fd, 0, a.len, 0, AXL_METIS_XFER_WRITE | AXL_METIS_XFER_ASYNC), 0);
	EXPECT_RET(node_status(fd), AXL_METIS_XFER_PENDING);
	EXPECT_RET(metis_poll(fd, 0), 0);
	EXPECT_RET(metis_poll(fd, 10000), 1);
	EXPECT_RET(node_status(fd), AXL_METIS_XFER_DONE);
	/* the event stays until it is consumed, once */
	EXPECT_RET(metis_poll(fd, 0), 1);
	EXPECT_RET(node_clear_event(fd), 1);
	EXPECT_RET(node_clear_event(fd), 0);
	EXPECT_RET(metis_poll(fd, 0), 0);

	/* a SYNC transfer raises an event too, and leaves the ASYNC state alone */
	EXPECT_RET(param_set("metis_xfer_us", 100), 0);
	EXPECT_RET(metis_xfer(fd, 0, a.len, 0, AXL_METIS_XFER_READ | AXL_METIS_XFER_SYNC), 0);
	EXPECT_RET(metis_poll(fd, 0), 1);
	EXPECT_RET(node_clear_event(fd), 1);
	EXPECT_RET(node_status(fd), AXL_METIS_XFER_DONE);
	close(fd);
	return KSFT_PASS;
}

static int case_one_buffer(void)
{
	struct buf a, b;
	int fd = metis_open(), other = metis_open();

	FAIL_IF(fd < 0 || other < 0, "open %s", metis_node_path);
	EXPECT_RET(buf_make(&a, PAGE, 4), 0);
	EXPECT_RET(buf_make(&b, PAGE, 5), 0);
	EXPECT_RET(metis_attach(fd, a.fd), 0);
	EXPECT_RET(metis_attach(fd, b.fd), -EBUSY);
	/* the first stays attached and works */
	EXPECT_RET(metis_xfer(fd, 0, PAGE, 0, AXL_METIS_XFER_WRITE | AXL_METIS_XFER_SYNC), 0);
	/* another file takes another buffer */
	EXPECT_RET(metis_attach(other, b.fd), 0);
	EXPECT_RET(metis_detach(fd), 0);
	EXPECT_RET(metis_detach(fd), -EINVAL);
	EXPECT_RET(metis_attach(fd, a.fd), 0);
	close(fd);
	close(other);
	return KSFT_PASS;
}

static int case_detach_pending(void)
{
	struct buf a;
	int fd = metis_open();

	FAIL_IF(fd < 0, "open %s", metis_node_path);
	EXPECT_RET(buf_make(&a, PAGE, 6), 0);
	EXPECT_RET(metis_attach(fd, a.fd), 0);
	EXPECT_RET(param_set("metis_xfer_us", SLOW_US), 0);
	EXPECT_RET(metis_xfer(fd, 0, PAGE, 0, AXL_METIS_XFER_WRITE | AXL_METIS_XFER_ASYNC), 0);
	EXPECT_RET(metis_detach(fd), -EBUSY);
	EXPECT_RET(metis_xfer(fd, 0, PAGE, 0, AXL_METIS_XFER_WRITE | AXL_METIS_XFER_ASYNC), -EBUSY);
	EXPECT_RET(metis_poll(fd, 10000), 1);
	EXPECT_RET(metis_detach(fd), 0);
	close(fd);
	return KSFT_PASS;
}

/* Closing with a transfer queued: cancelled, nothing copied, nothing left attached. */
static int case_close_pending(void)
{
	struct buf a, probe;
	long long files = axl_stat("files"), imports = axl_stat("imports");
	int fd = metis_open(), reader = metis_open();
	uint8_t *before = malloc(64 * 1024);
	long at = 0;

	FAIL_IF(fd < 0 || reader < 0 || !before, "open %s", metis_node_path);
	EXPECT_RET(buf_make(&a, 64 * 1024, 7), 0);
	EXPECT_RET(buf_make(&probe, 64 * 1024, 8), 0);
	memcpy(before, probe.map, probe.len);
	/* card range 8 MiB holds probe's bytes */
	EXPECT_RET(metis_attach(reader, probe.fd), 0);
	EXPECT_RET(metis_xfer(reader, 8 * MIB, probe.len, 0,
			     AXL_METIS_XFER_WRITE | AXL_METIS_XFER_SYNC), 0);
	EXPECT_RET(metis_attach(fd, a.fd), 0);
	EXPECT_RET(param_set("metis_xfer_us", SLOW_US), 0);
	EXPECT_RET(metis_xfer(fd, 8 * MIB, a.len, 0, AXL_METIS_XFER_WRITE | AXL_METIS_XFER_ASYNC),
		   0);
	close(fd);
	FAIL_IF(!axl_stats_settle(files + 1, imports + 1, 0, 0, 5000),
		"files %lld imports %lld after close", axl_stat("files"), axl_stat("imports"));
	FAIL_IF(attached_devices(a.fd) != 0, "bufinfo: still attached after close");
	/* the card range still holds probe's bytes: read them back over probe */
	EXPECT_RET(param_set("metis_xfer_us", 100), 0);
	EXPECT_RET(metis_xfer(reader, 8 * MIB, probe.len, 0,
			     AXL_METIS_XFER_READ | AXL_METIS_XFER_SYNC), 0);
	buf_sync(probe.fd, true, false);
	while (at < (long)probe.len && probe.map[at] == before[at])
		at++;
	buf_sync(probe.fd, false, false);
	FAIL_IF(at != (long)probe.len, "card byte %ld changed: the cancelled transfer ran", at);
	free(before);
	close(reader);
	return KSFT_PASS;
}

static int case_bad_arguments(void)
{
	struct buf a;
	int fd = metis_open(), null = open("/dev/null", O_RDONLY | O_CLOEXEC);
	const int w = AXL_METIS_XFER_WRITE | AXL_METIS_XFER_SYNC;
	struct axl_metis_xfer x = { .size = 1, .flags = w, .channel = AXL_METIS_DMA_CHANNELS };
	uint64_t card = 64ull * MIB;

	FAIL_IF(fd < 0, "open %s", metis_node_path);
	EXPECT_RET(buf_make(&a, PAGE, 9), 0);
	EXPECT_RET(metis_xfer(fd, 0, PAGE, 0, w), -EINVAL); /* nothing attached */
	EXPECT_RET(metis_detach(fd), -EINVAL);
	EXPECT_RET(metis_attach(fd, -1), -EBADF);
	EXPECT_RET(metis_attach(fd, null), -EINVAL);
	EXPECT_RET(axl_ioctl(fd, AXL_METIS_IOCTL_DMA_ATTACH, NULL), -EFAULT);
	EXPECT_RET(metis_attach(fd, a.fd), 0);
	EXPECT_RET(axl_ioctl(fd, AXL_METIS_IOCTL_DMA_XFER, NULL), -EFAULT);
	EXPECT_RET(axl_ioctl(fd, AXL_METIS_IOCTL_GET_DEV_PROPERTY, NULL), -EFAULT);
	EXPECT_RET(metis_xfer(fd, 0, PAGE, 0, 0), -EINVAL);
	EXPECT_RET(metis_xfer(fd, 0, PAGE, 0, AXL_METIS_XFER_SYNC), -EINVAL);
	EXPECT_RET(metis_xfer(fd, 0, PAGE, 0, AXL_METIS_XFER_READ | AXL_METIS_XFER_WRITE |
					   AXL_METIS_XFER_SYNC), -EINVAL);
	EXPECT_RET(metis_xfer(fd, 0, PAGE, 0, AXL_METIS_XFER_WRITE), -EINVAL);
	EXPECT_RET(metis_xfer(fd, 0, PAGE, 0, w | AXL_METIS_XFER_ASYNC), -EINVAL);
	EXPECT_RET(metis_xfer(fd, 0, PAGE, 0, w | 0x10), -EINVAL);
	EXPECT_RET(metis_xfer(fd, 0, 0, 0, w), -EINVAL);
	EXPECT_RET(metis_xfer(fd, 0, PAGE + 1, 0, w), -EINVAL);
	EXPECT_RET(metis_xfer(fd, 0, PAGE, 1, w), -EINVAL);
	EXPECT_RET(metis_xfer(fd, 0, SIZE_MAX, 2, w), -EINVAL);
	EXPECT_RET(metis_xfer(fd, 0, 1, UINT32_MAX, w), -EINVAL);
	if (param_get("metis_card_mb") > 0)
		card = (uint64_t)param_get("metis_card_mb") * MIB;
	EXPECT_RET(metis_xfer(fd, card - 1, 2, 0, w), -EINVAL);
	EXPECT_RET(metis_xfer(fd, UINT64_MAX, 2, 0, w), -EINVAL);
	EXPECT_RET(axl_ioctl(fd, AXL_METIS_IOCTL_DMA_XFER, &x), -EINVAL); /* channel */
	x.channel = AXL_METIS_DMA_CHANNELS - 1;
	EXPECT_RET(axl_ioctl(fd, AXL_METIS_IOCTL_DMA_XFER, &x), 0);
	EXPECT_RET(metis_xfer(fd, card - PAGE, PAGE, 0, w), 0);
	close(null);
	close(fd);
	return KSFT_PASS;
}

static int case_stats(void)
{
	struct axl_metis_dma_stats before, after;
	struct buf a;
	int fd = metis_open();
	uint64_t rd = 0, wr = 0, n_rd = 0, n_wr = 0;

	FAIL_IF(fd < 0, "open %s", metis_node_path);
	EXPECT_RET(buf_make(&a, 2 * PAGE, 10), 0);
	EXPECT_RET(metis_attach(fd, a.fd), 0);
	EXPECT_RET(axl_ioctl(fd, AXL_METIS_IOCTL_GET_DMA_STATS, &before), 0);
	for (int i = 0; i < 3; i++)
		EXPECT_RET(metis_xfer(fd, 0, 100 + i, 0,
				     AXL_METIS_XFER_WRITE | AXL_METIS_XFER_SYNC), 0);
	EXPECT_RET(metis_xfer(fd, 0, PAGE, 8, AXL_METIS_XFER_READ | AXL_METIS_XFER_SYNC), 0);
	EXPECT_RET(axl_ioctl(fd, AXL_METIS_IOCTL_GET_DMA_STATS, &after), 0);
	for (int c = 0; c < AXL_METIS_DMA_CHANNELS; c++) {
		n_wr += after.wr_channels[c].num_xfer - before.wr_channels[c].num_xfer;
		wr += after.wr_channels[c].bytes_xfer - before.wr_channels[c].bytes_xfer;
		n_rd += after.rd_channels[c].num_xfer - before.rd_channels[c].num_xfer;
		rd += after.rd_channels[c].bytes_xfer - before.rd_channels[c].bytes_xfer;
		FAIL_IF(after.rd_channels[c].count || after.wr_channels[c].count,
			"channel %d still counts transfers in flight", c);
	}
	FAIL_IF(n_wr != 3 || wr != 303, "write: %llu transfers, %llu bytes",
		(unsigned long long)n_wr, (unsigned long long)wr);
	FAIL_IF(n_rd != 1 || rd != PAGE, "read: %llu transfers, %llu bytes",
		(unsigned long long)n_rd, (unsigned long long)rd);
	FAIL_IF(after.rd_channels[0].size != PAGE || after.rd_channels[0].max_sgt < 1,
		"read channel 0: size %zu max_sgt %d", (size_t)after.rd_channels[0].size,
		after.rd_channels[0].max_sgt);
	close(fd);
	return KSFT_PASS;
}

/* ---- two threads on one file ---- */

struct racer {
	int fd;
	int index;        /* which half of the buffer and of the card range */
	bool async;
	const struct buf *buf;
	const uint8_t *want; /* what the card range holds */
	int round;        /* first round whose bytes were wrong, or -1 */
	long at;          /* first wrong byte of that round */
	int err;          /* a transfer's unexpected error, or 0 */
};

/* Waits for the file's ASYNC status to leave PENDING: the state, or -errno. */
static int race_status_wait(int fd)
{
	for (int i = 0; i < 5000; i++) {
		int st = node_status(fd);

		if (st != AXL_METIS_XFER_PENDING)
			return st;
		usleep(1000);
	}
	return -ETIMEDOUT;
}

/*
 * Each round: zero my half, READ my card range into it (retrying while the
 * other thread's transfer is in flight), and once the transfer says it is
 * done (SYNC returned, or the ASYNC status reads DONE), check my half.
 */
static void *racer_run(void *arg)
{
	struct racer *r = arg;
	const int flags = AXL_METIS_XFER_READ | (r->async ? AXL_METIS_XFER_ASYNC :
							      AXL_METIS_XFER_SYNC);
	size_t off = (size_t)r->index * RACE_CHUNK;
	uint8_t *mine = r->buf->map + off;
	int ret;

	for (int round = 0; round < RACE_ROUNDS && r->round < 0 && !r->err; round++) {
		buf_sync(r->buf->fd, true, true);
		memset(mine, 0, RACE_CHUNK);
		buf_sync(r->buf->fd, false, true);
		do
			ret = metis_xfer(r->fd, RACE_CARD + off, RACE_CHUNK, off, flags);
		while (ret == -EBUSY);
		if (!ret && r->async)
			ret = race_status_wait(r->fd) == AXL_METIS_XFER_DONE ? 0 : -EIO;
		if (ret) {
			r->err = ret;
			break;
		}
		buf_sync(r->buf->fd, true, false);
		for (long i = 0; i < RACE_CHUNK && r->round < 0; i++)
			if (mine[i] != r->want[off + i]) {
				r->round = round;
				r->at = i;
			}
		buf_sync(r->buf->fd, false, false);
	}
	return NULL;
}

/* Two threads READ on one file; each must see its own bytes when its transfer is done. */
static int race(bool async)
{
	struct racer r[2];
	pthread_t t[2];
	struct buf src, dst;
	int fd = metis_open(), loader = metis_open(), set;

	FAIL_IF(fd < 0 || loader < 0, "open %s", metis_node_path);
	EXPECT_RET(buf_make(&src, 2 * RACE_CHUNK, 21), 0);
	EXPECT_RET(buf_make(&dst, 2 * RACE_CHUNK, 22), 0);
	EXPECT_RET(metis_attach(loader, src.fd), 0);
	EXPECT_RET(metis_xfer(loader, RACE_CARD, src.len, 0,
			     AXL_METIS_XFER_WRITE | AXL_METIS_XFER_SYNC), 0);
	EXPECT_RET(metis_attach(fd, dst.fd), 0);
	set = param_set("metis_xfer_us", RACE_XFER_US);
	if (!set)
		set = param_set("metis_done_us", RACE_DONE_US);
	for (int i = 0; i < 2 && !set; i++) {
		r[i] = (struct racer){ .fd = fd, .index = i, .async = async, .buf = &dst,
				       .want = src.map, .round = -1 };
		pthread_create(&t[i], NULL, racer_run, &r[i]);
	}
	for (int i = 0; i < 2 && !set; i++)
		pthread_join(t[i], NULL);
	param_set("metis_done_us", 0);
	param_set("metis_xfer_us", 100);
	EXPECT_RET(set, 0);
	for (int i = 0; i < 2; i++) {
		FAIL_IF(r[i].err, "thread %d: transfer: %s", i, axl_errname(r[i].err));
		FAIL_IF(r[i].round >= 0,
			"thread %d, round %d: byte %ld not yet copied when its %s transfer was done",
			i, r[i].round, r[i].at, async ? "ASYNC status said its" : "SYNC");
	}
	tap_diag("2 threads x %d rounds: every transfer's bytes were there when it was done",
		 RACE_ROUNDS);
	close(fd);
	close(loader);
	return KSFT_PASS;
}

static int case_race_sync(void)
{
	return race(false);
}

static int case_race_async(void)
{
	return race(true);
}

/* ---- a scattered buffer ---- */

/*
 * On the platform stand-in (no IOMMU) a system-heap buffer maps as one
 * entry per chunk. Every entry is transferred, at LL_PASS descriptors per
 * pass: a whole buffer to the card and back into another, and a range that
 * starts and ends inside entries, between different entries of the two.
 */
static int check_scattered(void)
{
	/* a's range crosses its first 1 MiB chunk; b's its 64 KiB and 4 KiB ones */
	const size_t a_off = MIB - 100, b_off = 3 * MIB + 3 * PAGE + 5, len = 1000000;
	const uint64_t card = 5 * MIB + 3;
	struct buf a, b;
	int fa, fb, sgt;
	long at;

	FAIL_IF(!metis_node_find(), "no node after the reload");
	fa = metis_open();
	fb = metis_open();
	FAIL_IF(fa < 0 || fb < 0, "open %s", metis_node_path);
	EXPECT_RET(buf_make(&a, SCATTERED, 11), 0);
	EXPECT_RET(buf_make(&b, SCATTERED, 12), 0);
	EXPECT_RET(metis_attach(fa, a.fd), 0);
	EXPECT_RET(metis_attach(fb, b.fd), 0);

	EXPECT_RET(metis_xfer(fa, 0, SCATTERED, 0, AXL_METIS_XFER_WRITE | AXL_METIS_XFER_SYNC), 0);
	EXPECT_RET(metis_xfer(fb, 0, SCATTERED, 0, AXL_METIS_XFER_READ | AXL_METIS_XFER_SYNC), 0);
	sgt = stats_max_sgt(fa);
	tap_diag("%u-byte buffers map as %d scatterlist entries (%d passes of %d)", SCATTERED,
		 sgt, (sgt + LL_PASS - 1) / LL_PASS, LL_PASS);
	FAIL_IF(sgt <= LL_PASS, "%d entries: not scattered enough to take several passes", sgt);
	at = buf_diff(&a, 0, &b, 0, SCATTERED);
	FAIL_IF(at >= 0, "whole buffer: byte %ld of %u differs after the round trip", at,
		SCATTERED);

	EXPECT_RET(buf_fill(&b, 13), 0);
	EXPECT_RET(metis_xfer(fa, card, len, a_off, AXL_METIS_XFER_WRITE | AXL_METIS_XFER_SYNC), 0);
	EXPECT_RET(metis_xfer(fb, card, len, b_off, AXL_METIS_XFER_READ | AXL_METIS_XFER_SYNC), 0);
	at = buf_diff(&a, a_off, &b, b_off, len);
	FAIL_IF(at >= 0, "range: byte %ld of %zu differs", at, len);
	/* the bytes just outside b's range are still from b's refill, not a's */
	{
		struct buf ref;

		EXPECT_RET(buf_make(&ref, SCATTERED, 13), 0);
		FAIL_IF(buf_diff(&ref, b_off - 1, &b, b_off - 1, 1) >= 0 ||
			buf_diff(&ref, b_off + len, &b, b_off + len, 1) >= 0,
			"a byte next to the range changed");
	}
	close(fa);
	close(fb);
	return KSFT_PASS;
}

static int case_scattered(void)
{
	char extra[64];

	snprintf(extra, sizeof(extra), "bind_pci=0 metis_ll_max=%d", LL_PASS);
	return axl_module_run_reloaded(extra, check_scattered);
}

/* ---- per-user accounting ---- */

#define UID_A 60011
#define UID_B 60012
#define USER_CAP_MB 4
/* Metis files of uid A: one 1 MiB buffer each; the last is one too many. */
#define A_FILES (USER_CAP_MB + 1)

struct share {
	int node[A_FILES];
	struct buf a[A_FILES];
	int dev_a, node_b, dev_b;
	struct buf b, res;
};

/* In a child running as @uid: @check(@s), its KSFT status as the child's exit status. */
static int as_user(uid_t uid, int (*check)(struct share *), struct share *s)
{
	int status;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return -errno;
	if (!pid) {
		if (setresgid(uid, uid, uid) || setresuid(uid, uid, uid))
			_exit(KSFT_FAIL);
		_exit(check(s));
	}
	if (waitpid(pid, &status, 0) != pid)
		return -errno;
	return WIFEXITED(status) && WEXITSTATUS(status) == KSFT_PASS ? 0 : -EPROTO;
}

/* uid A: its Metis attachments fill its share; the next attach or import fails. */
static int user_a_fills(struct share *s)
{
	struct axl_import_fd imp;

	for (int i = 0; i < USER_CAP_MB; i++)
		EXPECT_RET(metis_attach(s->node[i], s->a[i].fd), 0);
	EXPECT_RET(metis_attach(s->node[USER_CAP_MB], s->a[USER_CAP_MB].fd), -ENOSPC);
	/* the same share as its imports on /dev/axl */
	EXPECT_RET(axl_import(s->dev_a, s->b.fd, 64, 64, AXL_PIXFMT_GREY, 0,
			      AXL_IMPORT_TO_DEVICE, &imp), -ENOSPC);
	return KSFT_PASS;
}

/* uid B: a 4 KiB attach and transfer, a 4 KiB import and its job. */
static int user_b_runs(struct share *s)
{
	struct axl_import_fd imp;
	struct axl_submit sub;
	struct axl_result r;

	EXPECT_RET(metis_attach(s->node_b, s->b.fd), 0);
	EXPECT_RET(metis_xfer(s->node_b, 0, PAGE, 0, AXL_METIS_XFER_WRITE | AXL_METIS_XFER_SYNC), 0);
	EXPECT_RET(axl_import(s->dev_b, s->b.fd, 64, 64, AXL_PIXFMT_GREY, 0,
			      AXL_IMPORT_TO_DEVICE, &imp), 0);
	EXPECT_RET(axl_submit(s->dev_b, imp.handle, s->res.fd, 0, &sub), 0);
	EXPECT_RET(fence_wait(sub.fence_fd, 10000), 0);
	EXPECT_RET(result_read(s->res.fd, &r), 0);
	FAIL_IF(r.status != 0, "uid B's job ended with %d", r.status);
	close(sub.fence_fd);
	return KSFT_PASS;
}

/* uid A, once one of its buffers is detached: the room is back. */
static int user_a_again(struct share *s)
{
	EXPECT_RET(metis_attach(s->node[USER_CAP_MB], s->a[USER_CAP_MB].fd), 0);
	return KSFT_PASS;
}

/*
 * One user's Metis attachments count against that user's share of pinned
 * bytes, as its imports on /dev/axl do: with max_user_pinned_mb at 4, uid A
 * attaches four 1 MiB buffers on four files, and a fifth attach and any
 * import fail with ENOSPC, while uid B still attaches, transfers, imports
 * and runs a job. Detaching one of A's buffers gives its bytes back.
 */
static int case_user_share(void)
{
	long long files = axl_stat("files"), imports = axl_stat("imports");
	struct share s;

	s.dev_a = axl_open_dev();
	s.dev_b = axl_open_dev();
	s.node_b = metis_open();
	FAIL_IF(s.dev_a < 0 || s.dev_b < 0 || s.node_b < 0, "open the nodes");
	for (int i = 0; i < A_FILES; i++) {
		s.node[i] = metis_open();
		FAIL_IF(s.node[i] < 0, "open %s", metis_node_path);
		EXPECT_RET(buf_make(&s.a[i], MIB, 40 + i), 0);
	}
	EXPECT_RET(buf_make(&s.b, PAGE, 50), 0);
	EXPECT_RET(buf_make(&s.res, PAGE, 51), 0);
	EXPECT_RET(param_set("max_user_pinned_mb", USER_CAP_MB), 0);

	FAIL_IF(as_user(UID_A, user_a_fills, &s),
		"uid A's Metis attachments were not bounded by max_user_pinned_mb (%d)",
		USER_CAP_MB);
	FAIL_IF(as_user(UID_B, user_b_runs, &s),
		"uid B could not attach, transfer, import and run while uid A is at its cap");
	/* A's attachments stay charged to A when root detaches one */
	EXPECT_RET(metis_detach(s.node[0]), 0);
	FAIL_IF(as_user(UID_A, user_a_again, &s), "uid A's detached bytes did not come back");

	for (int i = 0; i < A_FILES; i++)
		close(s.node[i]);
	close(s.node_b);
	close(s.dev_a);
	close(s.dev_b);
	/* uid B's job left its fence in its buffers: free them */
	munmap(s.b.map, s.b.len);
	close(s.b.fd);
	munmap(s.res.map, s.res.len);
	close(s.res.fd);
	FAIL_IF(!axl_stats_settle(files, imports, 0, 0, 5000),
		"attachments or imports left behind");
	return KSFT_PASS;
}

int main(void)
{
	static const struct axl_case cases[] = {
		{ "properties, resources, statistics, unknown ioctls", case_queries },
		{ "a buffer to card memory and back, whole and at offsets", case_roundtrip },
		{ "the eDMA reads a buffer FROM_DEVICE and stores into one BIDIRECTIONAL",
		  case_cpu_access_directions },
		{ "ASYNC completion by poll(), status, CLEAR_POLL_EVENT", case_async_poll },
		{ "one buffer per file: a second attach is refused", case_one_buffer },
		{ "detach while a transfer is in flight: -EBUSY", case_detach_pending },
		{ "close with a transfer in flight: cancelled, detached", case_close_pending },
		{ "bad arguments", case_bad_arguments },
		{ "DMA statistics count transfers and bytes", case_stats },
		{ "two threads, SYNC: each returns after its own bytes are copied", case_race_sync },
		{ "two threads, ASYNC: DONE only once its own bytes are copied", case_race_async },
		{ "one user's Metis attachments leave room for another user", case_user_share },
		{ "a scattered buffer transfers byte-exact over every entry (platform device)",
		  case_scattered },
	};

	if (tap_skip_unless_metis())
		return KSFT_SKIP;
	return tap_run(cases, ARRAY_SIZE(cases));
}
