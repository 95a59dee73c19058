// SPDX-License-Identifier: GPL-2.0
/*
 * Helpers shared by the axl device tests (see axl_util.h).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/axl_metis.h>
#include <linux/dma-buf.h>
#include <linux/dma-heap.h>
#include <linux/sync_file.h>

#include "axl_util.h"

#define TRACEFS "/sys/kernel/tracing"
#define BUFINFO "/sys/kernel/debug/dma_buf/bufinfo"
#define AXL_STATS "/sys/kernel/debug/axl/stats"

/* Per-case time limit: a hung wait must fail the case, not the suite. */
#define CASE_TIMEOUT_S 120

/* ---- TAP ---- */

void tap_diag(const char *fmt, ...)
{
	va_list ap;

	fputs("# ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	fputc('\n', stdout);
	fflush(stdout);
}

const char *axl_errname(int negerr)
{
	const char *name;

	if (negerr >= 0)
		return negerr ? "positive" : "success";
	name = strerrorname_np(-negerr);
	return name ? name : "unknown errno";
}

/* The fault-injection knobs a case may turn; put back after every case. */
static const char *const tunables[] = {
	"latency_us", "timeout_ms", "fail_every", "fail_next", "stall_next", "stall_ms",
	"metis_xfer_us", "metis_done_us", "metis_ll_max", "metis_sync_wait_ms", "max_pinned_mb",
	"max_user_pinned_mb", "max_file_queued_ms", "max_user_queued_ms",
	"max_queued_ms", "import_copy_wait_ms",
};

struct saved_params {
	long value[ARRAY_SIZE(tunables)];
};

static void params_save(struct saved_params *s)
{
	for (size_t i = 0; i < ARRAY_SIZE(tunables); i++)
		s->value[i] = param_get(tunables[i]);
}

static void params_restore(const struct saved_params *s)
{
	for (size_t i = 0; i < ARRAY_SIZE(tunables); i++)
		if (s->value[i] >= 0)
			param_set(tunables[i], (unsigned long)s->value[i]);
}

static int run_case(const struct axl_case *c)
{
	int status;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		tap_diag("fork: %s", strerror(errno));
		return KSFT_FAIL;
	}
	if (pid == 0) {
		alarm(CASE_TIMEOUT_S);
		fflush(stdout);
		_exit(c->run());
	}
	if (waitpid(pid, &status, 0) < 0) {
		tap_diag("waitpid: %s", strerror(errno));
		return KSFT_FAIL;
	}
	if (WIFSIGNALED(status)) {
		tap_diag("case killed by signal %d%s", WTERMSIG(status),
			 WTERMSIG(status) == SIGALRM ? " (time limit)" : "");
		return KSFT_FAIL;
	}
	return WEXITSTATUS(status);
}

int tap_skip_unless_importable(const char *why_root)
{
	if (access(AXL_DEV_PATH, F_OK)) {
		printf("TAP version 13\n1..0 # SKIP %s absent (load axl.ko)\n", AXL_DEV_PATH);
		return KSFT_SKIP;
	}
	if (access(AXL_HEAP_PATH, R_OK)) {
		printf("TAP version 13\n1..0 # SKIP no %s (CONFIG_DMABUF_HEAPS_SYSTEM): nothing to import\n",
		       AXL_HEAP_PATH);
		return KSFT_SKIP;
	}
	if (geteuid() != 0) {
		printf("TAP version 13\n1..0 # SKIP needs root (%s)\n", why_root);
		return KSFT_SKIP;
	}
	return 0;
}

int tap_run(const struct axl_case *cases, size_t n)
{
	unsigned int pass = 0, fail = 0, skip = 0;
	struct saved_params saved;

	printf("TAP version 13\n1..%zu\n", n);
	fflush(stdout);
	params_save(&saved);
	for (size_t i = 0; i < n; i++) {
		int rc = run_case(&cases[i]);

		params_restore(&saved);
		if (rc == KSFT_PASS) {
			printf("ok %zu %s\n", i + 1, cases[i].name);
			pass++;
		} else if (rc == KSFT_SKIP) {
			printf("ok %zu %s # SKIP\n", i + 1, cases[i].name);
			skip++;
		} else {
			printf("not ok %zu %s\n", i + 1, cases[i].name);
			fail++;
		}
		fflush(stdout);
	}
	printf("# Totals: pass:%u fail:%u xfail:0 xpass:0 skip:%u error:0\n",
	       pass, fail, skip);
	if (fail)
		return KSFT_FAIL;
	return pass ? KSFT_PASS : KSFT_SKIP;
}

/* ---- device and ioctls ---- */

int axl_open_dev(void)
{
	int fd = open(AXL_DEV_PATH, O_RDWR | O_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

int axl_ioctl(int fd, unsigned long cmd, void *arg)
{
	int ret;

	do {
		ret = ioctl(fd, cmd, arg);
	} while (ret < 0 && errno == EINTR);
	return ret < 0 ? -errno : ret;
}

int axl_info(int dev, struct axl_info *info)
{
	memset(info, 0, sizeof(*info));
	return axl_ioctl(dev, AXL_IOCTL_GET_INFO, info);
}

int axl_import(int dev, int buf, uint32_t w, uint32_t h, uint32_t pixfmt,
	       uint32_t stride, uint32_t flags, struct axl_import_fd *out)
{
	struct axl_import_fd req = {
		.fd = buf, .width = w, .height = h, .pixfmt = pixfmt,
		.stride = stride, .flags = flags,
	};
	int ret = axl_ioctl(dev, AXL_IOCTL_IMPORT_FD, &req);

	if (out)
		*out = req;
	return ret;
}

int axl_submit(int dev, uint32_t handle, int result, uint32_t timeout_us,
	       struct axl_submit *out)
{
	struct axl_submit req = {
		.input_handle = handle, .result_fd = result, .model_id = 7,
		.timeout_us = timeout_us, .fence_fd = -1,
	};
	int ret = axl_ioctl(dev, AXL_IOCTL_SUBMIT, &req);

	if (out)
		*out = req;
	return ret;
}

int axl_release(int dev, uint32_t handle)
{
	struct axl_release req = { .handle = handle };

	return axl_ioctl(dev, AXL_IOCTL_RELEASE_IMPORT, &req);
}

/* ---- dma-bufs ---- */

int heap_alloc(size_t len)
{
	return heap_alloc_from(AXL_HEAP_PATH, len);
}

int heap_alloc_from(const char *path, size_t len)
{
	struct dma_heap_allocation_data data = {
		.len = len, .fd_flags = O_RDWR | O_CLOEXEC,
	};
	int heap, ret;

	heap = open(path, O_RDONLY | O_CLOEXEC);
	if (heap < 0)
		return -errno;
	ret = axl_ioctl(heap, DMA_HEAP_IOCTL_ALLOC, &data);
	close(heap);
	return ret < 0 ? ret : (int)data.fd;
}

void *buf_map(int buf, size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, buf, 0);

	return p == MAP_FAILED ? NULL : p;
}

int buf_sync(int buf, bool start, bool write)
{
	struct dma_buf_sync s = {
		.flags = (start ? DMA_BUF_SYNC_START : DMA_BUF_SYNC_END) |
			 (write ? DMA_BUF_SYNC_RW : DMA_BUF_SYNC_READ),
	};

	return axl_ioctl(buf, DMA_BUF_IOCTL_SYNC, &s);
}

ino_t fd_inode(int fd)
{
	struct stat st;

	return fstat(fd, &st) ? 0 : st.st_ino;
}

void buf_unmap_close(uint8_t **map, size_t len, int *buf)
{
	if (*map)
		munmap(*map, len);
	if (*buf >= 0)
		close(*buf);
	*map = NULL;
	*buf = -1;
}

int result_read(int buf, struct axl_result *out)
{
	void *p = buf_map(buf, sizeof(*out));
	int ret;

	if (!p)
		return -errno;
	ret = buf_sync(buf, true, false);
	if (!ret) {
		memcpy(out, p, sizeof(*out));
		ret = buf_sync(buf, false, false);
	}
	munmap(p, sizeof(*out));
	return ret;
}

/* ---- fences ---- */

int fence_wait(int fence, int timeout_ms)
{
	struct pollfd p = { .fd = fence, .events = POLLIN };
	int ret;

	do {
		ret = poll(&p, 1, timeout_ms);
	} while (ret < 0 && errno == EINTR);
	if (ret < 0)
		return -errno;
	return ret ? 0 : -ETIME;
}

int fence_state(int fence, struct fence_state *st)
{
	struct sync_fence_info fi;
	struct sync_file_info info;
	int ret;

	memset(&fi, 0, sizeof(fi));
	memset(&info, 0, sizeof(info));
	info.num_fences = 1;
	info.sync_fence_info = (uintptr_t)&fi;
	ret = axl_ioctl(fence, SYNC_IOC_FILE_INFO, &info);
	if (ret)
		return ret;
	if (info.num_fences != 1)
		return -EPROTO;
	st->status = fi.status;
	st->timestamp_ns = fi.timestamp_ns;
	snprintf(st->driver, sizeof(st->driver), "%.31s", fi.driver_name);
	snprintf(st->timeline, sizeof(st->timeline), "%.31s", fi.obj_name);
	return 0;
}

uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* ---- frames and the reference computation ---- */

/* Written from the uapi header's description, not from the driver. */
int frame_geom(struct frame_geom *g, uint32_t pixfmt, uint32_t w, uint32_t h,
	       uint32_t stride)
{
	memset(g, 0, sizeof(*g));
	g->pixfmt = pixfmt;
	g->width = w;
	g->height = h;
	g->nplanes = 1;
	g->line_bytes = w;
	if (pixfmt == AXL_PIXFMT_YUYV)
		g->line_bytes = 2 * w;
	else if (pixfmt == AXL_PIXFMT_NV12)
		g->nplanes = 2;
	else if (pixfmt != AXL_PIXFMT_GREY && pixfmt != AXL_PIXFMT_RAW)
		return -EINVAL;
	g->stride = stride ? stride : g->line_bytes;
	g->lines[0] = h;
	g->lines[1] = h / 2;
	g->offset[1] = (size_t)g->stride * h;
	g->size = (size_t)g->stride * h;
	if (g->nplanes == 2)
		g->size += (size_t)g->stride * (h / 2);
	return 0;
}

uint64_t prng_next(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/*
 * Random bytes everywhere, stride padding included (so a CRC that covered
 * padding would not match), with luma squeezed into a seed-dependent range
 * so min and max are not simply 0 and 255.
 */
void frame_fill(const struct frame_geom *g, uint8_t *base, uint64_t seed)
{
	uint64_t st = seed;
	unsigned int lo = seed % 40, hi = 215 + seed % 41;
	uint32_t step = g->pixfmt == AXL_PIXFMT_YUYV ? 2 : 1;

	for (size_t i = 0; i < g->size; i += 8) {
		uint64_t r = prng_next(&st);

		for (size_t k = 0; k < 8 && i + k < g->size; k++)
			base[i + k] = (uint8_t)(r >> (8 * k));
	}
	for (uint32_t l = 0; l < g->lines[0]; l++) {
		uint8_t *line = base + (size_t)l * g->stride;

		for (uint32_t x = 0; x < g->line_bytes; x += step)
			line[x] = (uint8_t)(lo + line[x] % (hi - lo + 1));
	}
}

/* zlib-compatible CRC-32 (reflected 0xEDB88320), chained like crc32(). */
uint32_t ref_crc32(uint32_t crc, const uint8_t *p, size_t n)
{
	static uint32_t table[256];
	static int ready;

	if (!ready) {
		for (uint32_t i = 0; i < 256; i++) {
			uint32_t c = i;

			for (int k = 0; k < 8; k++)
				c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
			table[i] = c;
		}
		ready = 1;
	}
	crc = ~crc;
	while (n--)
		crc = table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return ~crc;
}

void planes_reference(uint32_t pixfmt, uint32_t line_bytes, uint32_t nplanes,
		      const uint64_t *offset, const uint32_t *pitch,
		      const uint32_t *lines, const uint8_t *base, struct axl_result *ref)
{
	uint32_t step = pixfmt == AXL_PIXFMT_YUYV ? 2 : 1;
	uint32_t crc = 0;

	ref->luma_min = 255;
	for (uint32_t p = 0; p < nplanes; p++) {
		for (uint32_t l = 0; l < lines[p]; l++) {
			const uint8_t *line = base + offset[p] + (size_t)l * pitch[p];

			crc = ref_crc32(crc, line, line_bytes);
			if (p)
				continue;
			for (uint32_t x = 0; x < line_bytes; x += step) {
				uint8_t v = line[x];

				ref->histogram[v]++;
				ref->luma_sum += v;
				if (v < ref->luma_min)
					ref->luma_min = v;
				if (v > ref->luma_max)
					ref->luma_max = v;
			}
		}
	}
	ref->crc32 = crc;
}

void frame_reference(const struct frame_geom *g, const uint8_t *base,
		     struct axl_result *ref)
{
	uint64_t offset[2] = { g->offset[0], g->offset[1] };
	uint32_t pitch[2] = { g->stride, g->stride };

	memset(ref, 0, sizeof(*ref));
	ref->magic = AXL_RESULT_MAGIC;
	ref->version = AXL_RESULT_VERSION;
	ref->pixfmt = g->pixfmt;
	ref->width = g->width;
	ref->height = g->height;
	planes_reference(g->pixfmt, g->line_bytes, g->nplanes, offset, pitch, g->lines, base,
			 ref);
}

/* ---- system state ---- */

static char *read_file(const char *path)
{
	size_t cap = 8192, len = 0;
	char *buf = malloc(cap);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0 || !buf) {
		if (fd >= 0)
			close(fd);
		free(buf);
		return NULL;
	}
	while ((n = read(fd, buf + len, cap - len - 1)) > 0) {
		len += (size_t)n;
		if (cap - len < 4096) {
			char *nb = realloc(buf, cap *= 2);

			if (!nb) {
				free(buf);
				close(fd);
				return NULL;
			}
			buf = nb;
		}
	}
	close(fd);
	if (n < 0) {
		free(buf);
		return NULL;
	}
	buf[len] = 0;
	return buf;
}

int bufinfo_read(struct bufinfo_entry *entries, int max)
{
	char *text = read_file(BUFINFO), *save = NULL, *line;
	struct bufinfo_entry *cur = NULL;
	bool in_devices = false;
	int n = 0;

	if (!text)
		return -errno ? -errno : -EIO;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		struct bufinfo_entry e = { 0 };
		unsigned int flags, mode;
		long count;

		if (sscanf(line, "%zu %x %x %ld %63s %lu", &e.size, &flags, &mode,
			   &count, e.exporter, &e.inode) == 6 && line[0] != '\t') {
			e.count = count;
			cur = n < max ? &entries[n] : NULL;
			if (cur)
				*cur = e;
			n++;
			in_devices = false;
		} else if (!strcmp(line, "\tAttached Devices:")) {
			in_devices = true;
		} else if (!strncmp(line, "Total", 5)) {
			in_devices = false;
		} else if (in_devices && line[0] == '\t' && cur &&
			   cur->ndevices < 8) {
			snprintf(cur->devices[cur->ndevices++], 64, "%s", line + 1);
		}
	}
	free(text);
	return n;
}

const struct bufinfo_entry *bufinfo_find(const struct bufinfo_entry *e, int n,
					 unsigned long inode)
{
	for (int i = 0; i < n; i++)
		if (e[i].inode == inode)
			return &e[i];
	return NULL;
}

int bufinfo_attachments(int buf)
{
	static struct bufinfo_entry e[512];
	int n = bufinfo_read(e, 512);
	const struct bufinfo_entry *hit;

	if (n < 0)
		return n;
	hit = bufinfo_find(e, n < 512 ? n : 512, (unsigned long)fd_inode(buf));
	return hit ? hit->ndevices : -ENOENT;
}

int open_fd_count(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

int bufinfo_attached_to(const char *device)
{
	static struct bufinfo_entry e[512];
	int n = bufinfo_read(e, 512), hits = 0;

	if (n < 0)
		return n;
	for (int i = 0; i < n && i < 512; i++)
		for (int d = 0; d < e[i].ndevices; d++)
			hits += !strcmp(e[i].devices[d], device);
	return hits;
}

long long axl_stat(const char *name)
{
	char *text = read_file(AXL_STATS), *save = NULL, *line;
	long long v = -1;

	if (!text)
		return -1;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		size_t k = strlen(name);

		if (!strncmp(line, name, k) && line[k] == ' ')
			v = atoll(line + k + 1);
	}
	free(text);
	return v;
}

bool axl_stats_settle(long long files, long long imports, long long jobs,
		      long long fences, int timeout_ms)
{
	for (int t = 0;; t += 10) {
		long long f = axl_stat("files"), i = axl_stat("imports");
		long long j = axl_stat("jobs"), fe = axl_stat("fences");

		if (f == files && i == imports && j == jobs && fe == fences)
			return true;
		if (t >= timeout_ms) {
			tap_diag("axl stats: files %lld imports %lld jobs %lld fences %lld; "
				 "expected %lld %lld %lld %lld", f, i, j, fe,
				 files, imports, jobs, fences);
			return false;
		}
		usleep(10000);
	}
}

int param_set(const char *name, unsigned long value)
{
	char path[128], text[32];
	int fd, len, ret = 0;

	snprintf(path, sizeof(path), AXL_PARAM_DIR "/%s", name);
	len = snprintf(text, sizeof(text), "%lu", value);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write(fd, text, (size_t)len) != len)
		ret = -errno;
	close(fd);
	return ret;
}

long param_get(const char *name)
{
	char path[128], *text;
	long v;

	snprintf(path, sizeof(path), AXL_PARAM_DIR "/%s", name);
	text = read_file(path);
	if (!text)
		return -1;
	v = atol(text);
	free(text);
	return v;
}

int kmsg_mark(void)
{
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	if (lseek(fd, 0, SEEK_END) < 0) {
		int err = -errno;

		close(fd);
		return err;
	}
	return fd;
}

/*
 * A DMA-API report that a mapping was synced in a direction other than its
 * own, when the sync is a dma-heap's begin_cpu_access()/end_cpu_access():
 * the heaps sync every mapped attachment in the direction of the CPU's
 * access, so a buffer mapped in two directions (a camera's FROM_DEVICE, our
 * readers' TO_DEVICE) draws one for any CPU access. Or one that the sync
 * found no mapping: the heaps sync every attachment marked mapped without
 * holding off an unmap on another CPU (the heap's race). The same rules as
 * the device suites' log check, tests/device/kernel_splats.sh.
 */
static bool heap_sync_says(const char *rec)
{
	return strstr(rec, "DMA-API: ") &&
	       (strstr(rec, "device driver syncs DMA memory with different direction") ||
		strstr(rec, "device driver syncs device read-only DMA memory for cpu") ||
		strstr(rec, "device driver syncs device write-only DMA memory to device") ||
		strstr(rec, "device driver tries to sync DMA memory it has not allocated"));
}

static bool heap_sync_from(const char *rec)
{
	return strstr(rec, "_heap_dma_buf_begin_cpu_access+") ||
	       strstr(rec, "_heap_dma_buf_end_cpu_access+");
}

static bool splat_line(const char *rec)
{
	static const char *const pats[] = {
		"WARNING:", "BUG:", "Oops", "general protection fault",
		"kernel BUG", "UBSAN", "KASAN", "refcount_t:", "list_add corruption",
		"list_del corruption", "cut here", "released with pending",
	};

	for (size_t i = 0; i < ARRAY_SIZE(pats); i++)
		if (strstr(rec, pats[i]))
			return true;
	return false;
}

/*
 * A report ("cut here" to "end trace"), held until it ends. Two CPUs that
 * warn at once interleave their reports record by record, so a report that
 * starts before the open one ends joins it and the cluster is judged whole.
 */
struct kmsg_report {
	int open, reports, says, from, warns, expected, others, hits;
	char first[1024];
};

const char *kmsg_expected_warn;

/*
 * Counts what @r held unless every report in it is benign (above: as many
 * heap-sync messages and heap frames as reports, one WARNING each, no other
 * splat), and starts over.
 */
static void kmsg_report_close(struct kmsg_report *r, int *hits, char *first, size_t len)
{
	bool heap_race = r->says == r->reports && r->from >= r->says;
	bool expected = r->expected == r->reports;
	bool benign = r->reports && (heap_race || expected) &&
		      r->warns == r->reports && !r->others;

	if (r->hits && !benign) {
		if (!*hits && first && len)
			snprintf(first, len, "%s", r->first);
		*hits += r->hits;
	}
	memset(r, 0, sizeof(*r));
}

int kmsg_scan_splats(int mark, char *first, size_t len)
{
	struct kmsg_report report = { 0 };
	char rec[8192];
	int hits = 0;
	bool splat;
	ssize_t n;

	if (first && len)
		first[0] = 0;
	for (;;) {
		n = read(mark, rec, sizeof(rec) - 1);
		if (n < 0 && errno == EPIPE)
			continue; /* records overwritten; keep reading */
		if (n <= 0)
			break;
		rec[n] = 0;
		splat = splat_line(rec);
		if (strstr(rec, "cut here")) {
			report.open++;
			report.reports++;
		} else if (!report.open) {
			if (splat && !hits++ && first && len)
				snprintf(first, len, "%s", rec);
			continue;
		} else {
			report.says += heap_sync_says(rec);
			report.from += heap_sync_from(rec);
			if (strstr(rec, "WARNING: CPU: ")) {
				report.warns++;
				if (kmsg_expected_warn && strstr(rec, kmsg_expected_warn))
					report.expected++;
			} else if (splat)
				report.others++;
		}
		if (splat && !report.hits++)
			snprintf(report.first, sizeof(report.first), "%.1000s", rec);
		if (strstr(rec, "---[ end trace") && !--report.open)
			kmsg_report_close(&report, &hits, first, len);
	}
	kmsg_report_close(&report, &hits, first, len);
	return hits;
}

/* ---- tracefs instance ---- */

/* @flags: 0, or O_APPEND for kprobe_events (a plain write clears it) */
static int write_str_flags(const char *path, const char *s, int flags)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC | flags), ret = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, s, strlen(s)) != (ssize_t)strlen(s))
		ret = -errno;
	close(fd);
	return ret;
}

static int write_str(const char *path, const char *s)
{
	return write_str_flags(path, s, 0);
}

int trace_instance_create(const char *name, const char *const *events)
{
	char path[256];
	int ret;

	snprintf(path, sizeof(path), TRACEFS "/instances/%s", name);
	if (mkdir(path, 0755) && errno != EEXIST)
		return -errno;
	for (; *events; events++) {
		snprintf(path, sizeof(path), TRACEFS "/instances/%s/events/%s/enable",
			 name, *events);
		ret = write_str(path, "1");
		if (ret)
			return ret;
	}
	return 0;
}

char *trace_instance_read(const char *name)
{
	char path[256];

	snprintf(path, sizeof(path), TRACEFS "/instances/%s/trace", name);
	return read_file(path);
}

void trace_instance_remove(const char *name)
{
	char path[256];

	snprintf(path, sizeof(path), TRACEFS "/instances/%s/events/enable", name);
	write_str(path, "0");
	snprintf(path, sizeof(path), TRACEFS "/instances/%s", name);
	rmdir(path);
}

/* ---- the directions of dma_buf_begin_cpu_access() ---- */

#define BEGIN_CPU_EVENT "axl_cpu/begin_cpu"

static int append_str(const char *path, const char *s)
{
	return write_str_flags(path, s, O_APPEND);
}

int begin_cpu_record(const char *inst)
{
	static const char *const events[] = { BEGIN_CPU_EVENT, NULL };
	int ret;

	append_str(TRACEFS "/kprobe_events", "-:" BEGIN_CPU_EVENT "\n"); /* a crashed run's */
	ret = append_str(TRACEFS "/kprobe_events",
			 "p:" BEGIN_CPU_EVENT " dma_buf_begin_cpu_access dir=$arg2:s32\n");
	if (ret)
		return ret;
	ret = trace_instance_create(inst, events);
	if (ret) {
		int counts[3];

		begin_cpu_stop(inst, counts);
	}
	return ret;
}

int begin_cpu_stop(const char *inst, int counts[3])
{
	char *text = trace_instance_read(inst), *at;

	trace_instance_remove(inst);
	append_str(TRACEFS "/kprobe_events", "-:" BEGIN_CPU_EVENT "\n");
	counts[0] = counts[1] = counts[2] = 0;
	if (!text)
		return -EIO;
	for (at = text; (at = strstr(at, "begin_cpu: ")); at++) {
		const char *dir = strstr(at, " dir=");
		int v = dir ? atoi(dir + 5) : -1;

		if (v >= 0 && v <= 2)
			counts[v]++;
	}
	free(text);
	return 0;
}

/* ---- reloading the module ---- */

#define RIG_KO "/run/axl/ctl/axl.ko"

const char *axl_module_file(void)
{
	const char *ko = getenv("AXL_KO");

	if (!ko && !access(RIG_KO, R_OK))
		ko = RIG_KO;
	return ko && !access(ko, R_OK) ? ko : NULL;
}

int axl_module_params(char *out, size_t len)
{
	DIR *d = opendir(AXL_PARAM_DIR);
	struct dirent *e;
	size_t used = 0;

	if (!d)
		return -errno;
	out[0] = 0;
	while ((e = readdir(d))) {
		char path[300], value[64] = "";
		FILE *f;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), AXL_PARAM_DIR "/%s", e->d_name);
		f = fopen(path, "r");
		if (!f || !fgets(value, sizeof(value), f)) {
			if (f)
				fclose(f);
			continue;
		}
		fclose(f);
		value[strcspn(value, "\n")] = 0;
		used += (size_t)snprintf(out + used, len - used, "%s%s=%s", used ? " " : "",
					 e->d_name, value);
		if (used >= len) {
			closedir(d);
			return -ENAMETOOLONG;
		}
	}
	closedir(d);
	return 0;
}

int axl_module_unload(void)
{
	return syscall(SYS_delete_module, "axl", O_NONBLOCK) ? -errno : 0;
}

int axl_module_load(const char *ko, const char *params)
{
	int fd = open(ko, O_RDONLY | O_CLOEXEC), ret;

	if (fd < 0)
		return -errno;
	ret = syscall(SYS_finit_module, fd, params, 0) ? -errno : 0;
	close(fd);
	for (int t = 0; !ret && access(AXL_DEV_PATH, F_OK) && t < 200; t++)
		usleep(10000); /* a /dev kept by udev alone gets the node after the load */
	return ret;
}

/* Runs @check in a child: 0 when it passed, -EPROTO when not, or -errno. */
static int run_in_child(int (*check)(void))
{
	int status;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return -errno;
	if (!pid)
		_exit(check());
	if (waitpid(pid, &status, 0) != pid)
		return -errno;
	return WIFEXITED(status) && WEXITSTATUS(status) == KSFT_PASS ? 0 : -EPROTO;
}

int axl_module_run_reloaded(const char *extra, int (*check)(void))
{
	const char *ko = axl_module_file();
	char params[1024], changed[1280];
	int ret, back;

	if (!ko) {
		tap_diag("no module file to reload: set AXL_KO to the axl.ko that is loaded");
		return KSFT_SKIP;
	}
	ret = axl_module_params(params, sizeof(params));
	if (ret) {
		tap_diag("cannot read the module's parameters: %s", axl_errname(ret));
		return KSFT_FAIL;
	}
	snprintf(changed, sizeof(changed), "%s %s", params, extra);
	ret = axl_module_unload();
	if (ret) {
		tap_diag("cannot unload axl: %s", axl_errname(ret));
		return KSFT_FAIL;
	}
	ret = axl_module_load(ko, changed);
	if (ret)
		tap_diag("cannot load axl with '%s': %s", extra, axl_errname(ret));
	else
		ret = run_in_child(check);
	back = axl_module_unload();
	if (!back)
		back = axl_module_load(ko, params);
	if (back) {
		tap_diag("cannot restore the module with '%s': %s", params, axl_errname(back));
		return KSFT_FAIL;
	}
	return ret ? KSFT_FAIL : KSFT_PASS;
}

/* Writes @value to the sysfs file @path: 0 or -errno. */
int sysfs_write(const char *path, const char *value)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), ret = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, value, strlen(value)) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

bool device_is(int dev, const char *want, int timeout_ms, int step_ms)
{
	struct axl_info info;

	for (int t = 0; t <= timeout_ms; t += step_ms) {
		if (!axl_info(dev, &info) && !strcmp(info.device, want))
			return true;
		usleep(step_ms * 1000);
	}
	return false;
}

int pci_remove(const char *addr)
{
	char path[160];

	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/remove", addr);
	return sysfs_write(path, "1");
}

bool pci_restore(const char *addr, int step_ms)
{
	int dev = axl_open_dev(), ret;
	bool ok;

	if (dev < 0) {
		tap_diag("opening %s failed: %s", AXL_DEV_PATH, axl_errname(dev));
		return false;
	}
	ret = sysfs_write("/sys/bus/pci/rescan", "1");
	if (ret)
		tap_diag("writing /sys/bus/pci/rescan failed: %s", axl_errname(ret));
	ok = !ret && device_is(dev, addr, 5000, step_ms);
	close(dev);
	return ok;
}

/* ---- the Metis-compatible node ---- */

char metis_node_path[128];

bool metis_node_find(void)
{
	glob_t g;
	bool one;

	if (glob("/dev/" AXL_METIS_NODE_PREFIX "*", 0, NULL, &g))
		return false;
	one = g.gl_pathc == 1;
	if (one)
		snprintf(metis_node_path, sizeof(metis_node_path), "%s", g.gl_pathv[0]);
	globfree(&g);
	return one;
}

int tap_skip_unless_metis(void)
{
	if (geteuid() != 0) {
		printf("TAP version 13\n1..0 # SKIP needs root\n");
		return KSFT_SKIP;
	}
	if (!metis_node_find()) {
		printf("TAP version 13\n1..0 # SKIP no /dev/%s* (axl.ko with metis_node=1)\n",
		       AXL_METIS_NODE_PREFIX);
		return KSFT_SKIP;
	}
	if (access(AXL_HEAP_PATH, R_OK)) {
		printf("TAP version 13\n1..0 # SKIP no %s\n", AXL_HEAP_PATH);
		return KSFT_SKIP;
	}
	return 0;
}

int metis_open(void)
{
	int fd = open(metis_node_path, O_RDWR | O_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

int metis_attach(int fd, int buf)
{
	return axl_ioctl(fd, AXL_METIS_IOCTL_DMA_ATTACH, &buf);
}

int metis_detach(int fd)
{
	int unused = 0;

	return axl_ioctl(fd, AXL_METIS_IOCTL_DMA_DETACH, &unused);
}

int metis_xfer(int fd, uint64_t phy, size_t size, uint32_t offset, int flags)
{
	struct axl_metis_xfer x = {
		.phy = phy, .size = size, .offset = offset, .flags = flags, .channel = -1,
	};

	return axl_ioctl(fd, AXL_METIS_IOCTL_DMA_XFER, &x);
}

int metis_poll(int fd, int timeout_ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	int ret = poll(&p, 1, timeout_ms);

	if (ret < 0)
		return -errno;
	return ret && (p.revents & POLLIN);
}

/* ---- vgem ---- */

/* vgem's DRM node, opened read-write, or -errno (-ENOENT: vgem not loaded). */
int axl_vgem_open(void)
{
	DIR *d = opendir("/sys/class/drm");
	struct dirent *e;
	int fd = -ENOENT;

	if (!d)
		return -errno;
	while ((e = readdir(d)) && fd < 0) {
		char link[PATH_MAX], target[PATH_MAX], node[300];
		ssize_t n;

		if (strncmp(e->d_name, "card", 4) || strchr(e->d_name, '-'))
			continue;
		/* vgem's device is a platform device named "vgem" (no driver bound) */
		snprintf(link, sizeof(link), "/sys/class/drm/%s/device", e->d_name);
		n = readlink(link, target, sizeof(target) - 1);
		if (n < 0)
			continue;
		target[n] = 0;
		if (strcmp(strrchr(target, '/') ? strrchr(target, '/') + 1 : target, "vgem"))
			continue;
		snprintf(node, sizeof(node), "/dev/dri/%s", e->d_name);
		fd = open(node, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			fd = -errno;
	}
	closedir(d);
	return fd;
}

long axl_module_refcnt(void)
{
	FILE *f = fopen("/sys/module/axl/refcnt", "re");
	long v = -1;

	if (!f)
		return -1;
	if (fscanf(f, "%ld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}
