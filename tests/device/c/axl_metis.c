// SPDX-License-Identifier: GPL-2.0
/*
 * axl_metis: the Metis-compatible node (linux/axl_metis.h) against the real
 * driver, kselftest-style.
 *
 * Buffers come from /dev/dma_heap/system and are written from user space;
 * transfers go to the simulated card memory and back, and the bytes are
 * compared. Then: poll() completion, one buffer per file, detach and close
 * with a transfer in flight, bad arguments, the DMA statistics, and, with
 * the module reloaded on the platform stand-in (no IOMMU, so a multi-chunk
 * heap buffer maps as several scatterlist entries), that the node keeps
 * only the first entry the way metis.ko does: a transfer past it moves less
 * than asked and still reports success.
 *
 * Needs root. Skips (exit 4) when the node is absent (metis_node=0).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>
#include <linux/axl_metis.h>

#include "axl_util.h"

#define PAGE 4096u
#define MIB (1024u * 1024u)
/* Three order-8 system-heap chunks at most: several entries without an IOMMU. */
#define BIG (3 * MIB)
/* metis_xfer_us that keeps a transfer in flight far longer than the calls after it take */
#define SLOW_US 2000000
#define TRACE_NAME "axl_metis_test"

/* ---- the node ---- */

static char node_path[128];

/* Finds /dev/axl-metis-*; false when there is none or several. */
static bool node_find(void)
{
	glob_t g;
	bool one;

	if (glob("/dev/" AXL_METIS_NODE_PREFIX "*", 0, NULL, &g))
		return false;
	one = g.gl_pathc == 1;
	if (one)
		snprintf(node_path, sizeof(node_path), "%s", g.gl_pathv[0]);
	globfree(&g);
	return one;
}

static int node_open(void)
{
	int fd = open(node_path, O_RDWR | O_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

static int node_attach(int fd, int buf)
{
	return axl_ioctl(fd, AXL_METIS_IOCTL_DMA_ATTACH, &buf);
}

static int node_detach(int fd)
{
	int unused = 0;

	return axl_ioctl(fd, AXL_METIS_IOCTL_DMA_DETACH, &unused);
}

static int node_xfer(int fd, uint64_t phy, size_t size, uint32_t offset, int flags)
{
	struct axl_metis_xfer x = {
		.phy = phy, .size = size, .offset = offset, .flags = flags, .channel = -1,
	};

	return axl_ioctl(fd, AXL_METIS_IOCTL_DMA_XFER, &x);
}

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

/* POLLIN within @timeout_ms: 1, 0 on timeout, or -errno. */
static int node_poll(int fd, int timeout_ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	int ret = poll(&p, 1, timeout_ms);

	if (ret < 0)
		return -errno;
	return ret && (p.revents & POLLIN);
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
	int fd = node_open();
	uint64_t v;

	FAIL_IF(fd < 0, "open %s: %s", node_path, axl_errname(fd));
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
	int fa = node_open(), fb = node_open();
	long at;

	FAIL_IF(fa < 0 || fb < 0, "open %s", node_path);
	EXPECT_RET(buf_make(&a, BIG, 1), 0);
	EXPECT_RET(buf_make(&b, BIG, 2), 0);
	EXPECT_RET(node_attach(fa, a.fd), 0);
	EXPECT_RET(node_attach(fb, b.fd), 0);
	FAIL_IF(attached_devices(a.fd) != 1, "bufinfo: %d devices attached to the buffer",
		attached_devices(a.fd));

	EXPECT_RET(node_xfer(fa, MIB, BIG, 0, AXL_METIS_XFER_WRITE | AXL_METIS_XFER_SYNC), 0);
	EXPECT_RET(node_xfer(fb, MIB, BIG, 0, AXL_METIS_XFER_READ | AXL_METIS_XFER_SYNC), 0);
	at = buf_diff(&a, 0, &b, 0, BIG);
	FAIL_IF(at >= 0, "whole buffer: byte %ld differs after the round trip", at);

	/* 5000 bytes from offset 777 of a, to card 12345, back into b at offset 4099 */
	EXPECT_RET(node_xfer(fa, 12345, 5000, 777, AXL_METIS_XFER_WRITE | AXL_METIS_XFER_SYNC),
		   0);
	EXPECT_RET(node_xfer(fb, 12345, 5000, 4099, AXL_METIS_XFER_READ | AXL_METIS_XFER_SYNC),
		   0);
	at = buf_diff(&a, 777, &b, 4099, 5000);
	FAIL_IF(at >= 0, "offsets: byte %ld differs", at);
	/* b was a's copy: the bytes just outside the range are a's still */
	FAIL_IF(buf_diff(&a, 4098, &b, 4098, 1) >= 0 || buf_diff(&a, 9099, &b, 9099, 1) >= 0,
		"a byte next to the range changed");
	EXPECT_RET(node_detach(fa), 0);
	FAIL_IF(attached_devices(a.fd) != 0, "bufinfo: still attached after DMA_DETACH");
	EXPECT_RET(node_detach(fb), 0);
	close(fa);
	close(fb);
	return KSFT_PASS;
}

static int case_async_poll(void)
{
	struct buf a;
	int fd = node_open();

	FAIL_IF(fd < 0, "open %s", node_path);
	EXPECT_RET(buf_make(&a, 64 * 1024, 3), 0);
	EXPECT_RET(node_attach(fd, a.fd), 0);
	EXPECT_RET(param_set("metis_xfer_us", SLOW_US), 0);
	EXPECT_RET(node_xfer(fd, 0, a.len, 0, AXL_METIS_XFER_WRITE | AXL_METIS_XFER_ASYNC), 0);
	EXPECT_RET(node_status(fd), AXL_METIS_XFER_PENDING);
	EXPECT_RET(node_poll(fd, 0), 0);
	EXPECT_RET(node_poll(fd, 10000), 1);
	EXPECT_RET(node_status(fd), AXL_METIS_XFER_DONE);
	/* the event stays until it is consumed, once */
	EXPECT_RET(node_poll(fd, 0), 1);
	EXPECT_RET(node_clear_event(fd), 1);
	EXPECT_RET(node_clear_event(fd), 0);
	EXPECT_RET(node_poll(fd, 0), 0);

	/* a SYNC transfer raises an event too, and leaves the ASYNC state alone */
	EXPECT_RET(param_set("metis_xfer_us", 100), 0);
	EXPECT_RET(node_xfer(fd, 0, a.len, 0, AXL_METIS_XFER_READ | AXL_METIS_XFER_SYNC), 0);
	EXPECT_RET(node_poll(fd, 0), 1);
	EXPECT_RET(node_clear_event(fd), 1);
	EXPECT_RET(node_status(fd), AXL_METIS_XFER_DONE);
	close(fd);
	return KSFT_PASS;
}

static int case_one_buffer(void)
{
	struct buf a, b;
	int fd = node_open(), other = node_open();

	FAIL_IF(fd < 0 || other < 0, "open %s", node_path);
	EXPECT_RET(buf_make(&a, PAGE, 4), 0);
	EXPECT_RET(buf_make(&b, PAGE, 5), 0);
	EXPECT_RET(node_attach(fd, a.fd), 0);
	EXPECT_RET(node_attach(fd, b.fd), -EBUSY);
	/* the first stays attached and works */
	EXPECT_RET(node_xfer(fd, 0, PAGE, 0, AXL_METIS_XFER_WRITE | AXL_METIS_XFER_SYNC), 0);
	/* another file takes another buffer */
	EXPECT_RET(node_attach(other, b.fd), 0);
	EXPECT_RET(node_detach(fd), 0);
	EXPECT_RET(node_detach(fd), -EINVAL);
	EXPECT_RET(node_attach(fd, a.fd), 0);
	close(fd);
	close(other);
	return KSFT_PASS;
}

static int case_detach_pending(void)
{
	struct buf a;
	int fd = node_open();

	FAIL_IF(fd < 0, "open %s", node_path);
	EXPECT_RET(buf_make(&a, PAGE, 6), 0);
	EXPECT_RET(node_attach(fd, a.fd), 0);
	EXPECT_RET(param_set("metis_xfer_us", SLOW_US), 0);
	EXPECT_RET(node_xfer(fd, 0, PAGE, 0, AXL_METIS_XFER_WRITE | AXL_METIS_XFER_ASYNC), 0);
	EXPECT_RET(node_detach(fd), -EBUSY);
	EXPECT_RET(node_xfer(fd, 0, PAGE, 0, AXL_METIS_XFER_WRITE | AXL_METIS_XFER_ASYNC), -EBUSY);
	EXPECT_RET(node_poll(fd, 10000), 1);
	EXPECT_RET(node_detach(fd), 0);
	close(fd);
	return KSFT_PASS;
}

/* Closing with a transfer queued: cancelled, nothing copied, nothing left attached. */
static int case_close_pending(void)
{
	struct buf a, probe;
	long long files = axl_stat("files"), imports = axl_stat("imports");
	int fd = node_open(), reader = node_open();
	uint8_t *before = malloc(64 * 1024);
	long at = 0;

	FAIL_IF(fd < 0 || reader < 0 || !before, "open %s", node_path);
	EXPECT_RET(buf_make(&a, 64 * 1024, 7), 0);
	EXPECT_RET(buf_make(&probe, 64 * 1024, 8), 0);
	memcpy(before, probe.map, probe.len);
	/* card range 8 MiB holds probe's bytes */
	EXPECT_RET(node_attach(reader, probe.fd), 0);
	EXPECT_RET(node_xfer(reader, 8 * MIB, probe.len, 0,
			     AXL_METIS_XFER_WRITE | AXL_METIS_XFER_SYNC), 0);
	EXPECT_RET(node_attach(fd, a.fd), 0);
	EXPECT_RET(param_set("metis_xfer_us", SLOW_US), 0);
	EXPECT_RET(node_xfer(fd, 8 * MIB, a.len, 0, AXL_METIS_XFER_WRITE | AXL_METIS_XFER_ASYNC),
		   0);
	close(fd);
	FAIL_IF(!axl_stats_settle(files + 1, imports + 1, 0, 0, 5000),
		"files %lld imports %lld after close", axl_stat("files"), axl_stat("imports"));
	FAIL_IF(attached_devices(a.fd) != 0, "bufinfo: still attached after close");
	/* the card range still holds probe's bytes: read them back over probe */
	EXPECT_RET(param_set("metis_xfer_us", 100), 0);
	EXPECT_RET(node_xfer(reader, 8 * MIB, probe.len, 0,
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
	int fd = node_open(), null = open("/dev/null", O_RDONLY | O_CLOEXEC);
	const int w = AXL_METIS_XFER_WRITE | AXL_METIS_XFER_SYNC;
	struct axl_metis_xfer x = { .size = 1, .flags = w, .channel = AXL_METIS_DMA_CHANNELS };
	uint64_t card = 64ull * MIB;

	FAIL_IF(fd < 0, "open %s", node_path);
	EXPECT_RET(buf_make(&a, PAGE, 9), 0);
	EXPECT_RET(node_xfer(fd, 0, PAGE, 0, w), -EINVAL); /* nothing attached */
	EXPECT_RET(node_detach(fd), -EINVAL);
	EXPECT_RET(node_attach(fd, -1), -EBADF);
	EXPECT_RET(node_attach(fd, null), -EINVAL);
	EXPECT_RET(axl_ioctl(fd, AXL_METIS_IOCTL_DMA_ATTACH, NULL), -EFAULT);
	EXPECT_RET(node_attach(fd, a.fd), 0);
	EXPECT_RET(axl_ioctl(fd, AXL_METIS_IOCTL_DMA_XFER, NULL), -EFAULT);
	EXPECT_RET(axl_ioctl(fd, AXL_METIS_IOCTL_GET_DEV_PROPERTY, NULL), -EFAULT);
	EXPECT_RET(node_xfer(fd, 0, PAGE, 0, 0), -EINVAL);
	EXPECT_RET(node_xfer(fd, 0, PAGE, 0, AXL_METIS_XFER_SYNC), -EINVAL);
	EXPECT_RET(node_xfer(fd, 0, PAGE, 0, AXL_METIS_XFER_READ | AXL_METIS_XFER_WRITE |
					   AXL_METIS_XFER_SYNC), -EINVAL);
	EXPECT_RET(node_xfer(fd, 0, PAGE, 0, AXL_METIS_XFER_WRITE), -EINVAL);
	EXPECT_RET(node_xfer(fd, 0, PAGE, 0, w | AXL_METIS_XFER_ASYNC), -EINVAL);
	EXPECT_RET(node_xfer(fd, 0, PAGE, 0, w | 0x10), -EINVAL);
	EXPECT_RET(node_xfer(fd, 0, 0, 0, w), -EINVAL);
	EXPECT_RET(node_xfer(fd, 0, PAGE + 1, 0, w), -EINVAL);
	EXPECT_RET(node_xfer(fd, 0, PAGE, 1, w), -EINVAL);
	EXPECT_RET(node_xfer(fd, 0, SIZE_MAX, 2, w), -EINVAL);
	EXPECT_RET(node_xfer(fd, 0, 1, UINT32_MAX, w), -EINVAL);
	if (param_get("metis_card_mb") > 0)
		card = (uint64_t)param_get("metis_card_mb") * MIB;
	EXPECT_RET(node_xfer(fd, card - 1, 2, 0, w), -EINVAL);
	EXPECT_RET(node_xfer(fd, UINT64_MAX, 2, 0, w), -EINVAL);
	EXPECT_RET(axl_ioctl(fd, AXL_METIS_IOCTL_DMA_XFER, &x), -EINVAL); /* channel */
	x.channel = AXL_METIS_DMA_CHANNELS - 1;
	EXPECT_RET(axl_ioctl(fd, AXL_METIS_IOCTL_DMA_XFER, &x), 0);
	EXPECT_RET(node_xfer(fd, card - PAGE, PAGE, 0, w), 0);
	close(null);
	close(fd);
	return KSFT_PASS;
}

static int case_stats(void)
{
	struct axl_metis_dma_stats before, after;
	struct buf a;
	int fd = node_open();
	uint64_t rd = 0, wr = 0, n_rd = 0, n_wr = 0;

	FAIL_IF(fd < 0, "open %s", node_path);
	EXPECT_RET(buf_make(&a, 2 * PAGE, 10), 0);
	EXPECT_RET(node_attach(fd, a.fd), 0);
	EXPECT_RET(axl_ioctl(fd, AXL_METIS_IOCTL_GET_DMA_STATS, &before), 0);
	for (int i = 0; i < 3; i++)
		EXPECT_RET(node_xfer(fd, 0, 100 + i, 0,
				     AXL_METIS_XFER_WRITE | AXL_METIS_XFER_SYNC), 0);
	EXPECT_RET(node_xfer(fd, 0, PAGE, 8, AXL_METIS_XFER_READ | AXL_METIS_XFER_SYNC), 0);
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

/*
 * On the platform stand-in (no IOMMU) a 3 MiB system-heap buffer maps as
 * one entry per chunk (1 MiB at most). The node keeps the first, as
 * metis.ko does: writing all 3 MiB reports success, the trace event says
 * less moved, and the card's last page never got the buffer's bytes.
 */
static int check_truncation(void)
{
	static const char *const events[] = { "axl/axl_metis_xfer", NULL };
	struct buf big, page;
	int fd, pf;
	char *text, *moved;
	unsigned long long n = 0;

	FAIL_IF(!node_find(), "no node after the reload");
	fd = node_open();
	pf = node_open();
	FAIL_IF(fd < 0 || pf < 0, "open %s", node_path);
	EXPECT_RET(buf_make(&big, BIG, 11), 0);
	EXPECT_RET(buf_make(&page, PAGE, 12), 0);
	EXPECT_RET(trace_instance_create(TRACE_NAME, events), 0);
	EXPECT_RET(node_attach(fd, big.fd), 0);
	EXPECT_RET(node_xfer(fd, 0, BIG, 0, AXL_METIS_XFER_WRITE | AXL_METIS_XFER_SYNC), 0);
	text = trace_instance_read(TRACE_NAME);
	trace_instance_remove(TRACE_NAME);
	moved = text ? strstr(text, "moved=") : NULL;
	FAIL_IF(!moved || sscanf(moved, "moved=%llu", &n) != 1, "no axl_metis_xfer event");
	tap_diag("3 MiB transfer, first entry moved %llu bytes", n);
	FAIL_IF(n == 0 || n >= BIG, "moved %llu of %u bytes", n, BIG);
	free(text);

	EXPECT_RET(node_attach(pf, page.fd), 0);
	EXPECT_RET(node_xfer(pf, 0, PAGE, 0, AXL_METIS_XFER_READ | AXL_METIS_XFER_SYNC), 0);
	FAIL_IF(buf_diff(&big, 0, &page, 0, PAGE) >= 0, "the first page did not reach the card");
	EXPECT_RET(node_xfer(pf, BIG - PAGE, PAGE, 0, AXL_METIS_XFER_READ | AXL_METIS_XFER_SYNC),
		   0);
	FAIL_IF(buf_diff(&big, BIG - PAGE, &page, 0, PAGE) < 0,
		"the last page reached the card past the first entry");
	close(fd);
	close(pf);
	return KSFT_PASS;
}

static int case_first_entry_only(void)
{
	const char *ko = axl_module_file();
	char params[1024], platform[1100];
	int ret, back;

	if (!ko) {
		tap_diag("no module file to reload: set AXL_KO to the axl.ko that is loaded");
		return KSFT_SKIP;
	}
	EXPECT_RET(axl_module_params(params, sizeof(params)), 0);
	snprintf(platform, sizeof(platform), "%s bind_pci=0", params);
	EXPECT_RET(axl_module_unload(), 0);
	ret = axl_module_load(ko, platform);
	if (!ret)
		ret = check_truncation() == KSFT_PASS ? 0 : -EPROTO;
	back = axl_module_unload();
	if (!back)
		back = axl_module_load(ko, params);
	FAIL_IF(back, "cannot restore the module with '%s': %s", params, axl_errname(back));
	EXPECT_RET(ret, 0);
	return KSFT_PASS;
}

int main(void)
{
	static const struct axl_case cases[] = {
		{ "properties, resources, statistics, unknown ioctls", case_queries },
		{ "a buffer to card memory and back, whole and at offsets", case_roundtrip },
		{ "ASYNC completion by poll(), status, CLEAR_POLL_EVENT", case_async_poll },
		{ "one buffer per file: a second attach is refused", case_one_buffer },
		{ "detach while a transfer is in flight: -EBUSY", case_detach_pending },
		{ "close with a transfer in flight: cancelled, detached", case_close_pending },
		{ "bad arguments", case_bad_arguments },
		{ "DMA statistics count transfers and bytes", case_stats },
		{ "only the first scatterlist entry is kept (platform device)", case_first_entry_only },
	};

	if (geteuid() != 0) {
		printf("TAP version 13\n1..0 # SKIP needs root\n");
		return KSFT_SKIP;
	}
	if (!node_find()) {
		printf("TAP version 13\n1..0 # SKIP no /dev/%s* (axl.ko with metis_node=1)\n",
		       AXL_METIS_NODE_PREFIX);
		return KSFT_SKIP;
	}
	if (access(AXL_HEAP_PATH, R_OK)) {
		printf("TAP version 13\n1..0 # SKIP no %s\n", AXL_HEAP_PATH);
		return KSFT_SKIP;
	}
	return tap_run(cases, ARRAY_SIZE(cases));
}
