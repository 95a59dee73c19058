// SPDX-License-Identifier: GPL-2.0
/*
 * axl_race: the driver under hostile timing.
 *
 *  - removing the PCI device while other threads import, submit, wait,
 *    release, close, and submit with an argument the answer cannot be
 *    copied to: when the removal returns, nothing is attached to the
 *    device any more, and the kernel log stays clean (run it on the debug
 *    kernel: KASAN sees an unmap on a removed device);
 *  - RELEASE_IMPORT right after the job's fence signalled, many rounds on
 *    two files at once: every release returns (a lost wake-up leaves it
 *    asleep for good);
 *  - a user whose ioctl argument stalls in a page fault (userfaultfd)
 *    holds no lock another user needs: another file's SUBMIT and close
 *    finish within a second, also with a device removal queued;
 *  - IMPORT_FD and IMPORT_FD2 whose answer cannot be copied out while
 *    another thread of the file SUBMITs on the handle it guesses (the next
 *    one): the handle is nobody's before the answer is out, so the EFAULT
 *    leaves no import behind.
 *
 * The removal cases bring the device back (PCI rescan) and check that the
 * driver bound it again, so the programs after this one still run.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stddef.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/userfaultfd.h>

#include "axl_util.h"

#define PAGE 4096u
#define MS 1000000ull

static int kmsg_at_start = -1;

/* A small GREY frame at the start of a heap buffer of @len bytes. */
static int frame_buf_len(uint64_t seed, size_t len)
{
	struct frame_geom g;
	int fd = heap_alloc(len);
	uint8_t *p;

	if (fd < 0 || frame_geom(&g, AXL_PIXFMT_GREY, 64, 64, 0))
		return fd < 0 ? fd : -EINVAL;
	p = buf_map(fd, PAGE);
	if (!p)
		return -errno;
	frame_fill(&g, p, seed);
	munmap(p, PAGE);
	return fd;
}

static int frame_buf(uint64_t seed)
{
	return frame_buf_len(seed, PAGE);
}

static int import_grey(int dev, int buf, struct axl_import_fd *out)
{
	return axl_import(dev, buf, 64, 64, AXL_PIXFMT_GREY, 0, AXL_IMPORT_TO_DEVICE, out);
}

/* The engine's PCI address into @addr; false (with a diagnostic) without one. */
static bool engine_pci(char *addr, size_t len)
{
	struct axl_info info;
	int dev = axl_open_dev();
	bool pci;

	if (dev < 0 || axl_info(dev, &info)) {
		tap_diag("GET_INFO failed");
		return false;
	}
	close(dev);
	pci = info.caps & AXL_CAP_PCI;
	if (!pci)
		tap_diag("the engine is not on a PCI device (%s)", info.device);
	snprintf(addr, len, "%s", info.device);
	return pci;
}

/* GET_INFO polling step while waiting for the device */
#define POLL_MS 10

/* ---- removal racing release, close and a failed submit ---- */

static atomic_bool stop;
static atomic_long rounds_jobs, rounds_efault, rounds_close;

/*
 * {import, submit, wait, release}, whatever the device does meanwhile. The
 * buffer is large, so the job's cleanup (vunmap) takes a while and the
 * release often waits for it: the window a removal used to slip into.
 */
static void *loop_jobs(void *arg)
{
	int dev = axl_open_dev(), buf = frame_buf_len(81, 8u << 20), res = heap_alloc(PAGE);
	struct axl_import_fd imp;
	struct axl_submit sub;

	if (dev < 0 || buf < 0 || res < 0)
		return (void *)"setup";
	while (!atomic_load(&stop)) {
		if (import_grey(dev, buf, &imp)) {
			usleep(1000);
			continue;
		}
		if (!axl_submit(dev, imp.handle, res, 0, &sub)) {
			fence_wait(sub.fence_fd, 10000);
			close(sub.fence_fd);
		}
		/* at once: the job's cleanup may still hold the import */
		if (axl_release(dev, imp.handle))
			return (void *)"RELEASE_IMPORT after the fence signalled failed";
		atomic_fetch_add(&rounds_jobs, 1);
	}
	close(dev);
	/* the last job's fence stays in these until they are freed */
	close(buf);
	close(res);
	return NULL;
}

/* SUBMIT whose answer cannot be copied out: EFAULT, or ENODEV without a device. */
static void *loop_efault(void *arg)
{
	int dev = axl_open_dev(), buf = frame_buf(82), ret;
	struct axl_import_fd imp = { .handle = 0 };
	struct axl_submit *ro;

	ro = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (dev < 0 || buf < 0 || ro == MAP_FAILED)
		return (void *)"setup";
	while (!atomic_load(&stop)) {
		int res = heap_alloc(PAGE);

		if (res < 0)
			return (void *)"heap_alloc";
		if (!imp.handle && import_grey(dev, buf, &imp)) {
			close(res);
			usleep(1000);
			continue;
		}
		mprotect(ro, PAGE, PROT_READ | PROT_WRITE);
		memset(ro, 0, sizeof(*ro));
		ro->input_handle = imp.handle;
		ro->result_fd = res;
		mprotect(ro, PAGE, PROT_READ);
		ret = axl_ioctl(dev, AXL_IOCTL_SUBMIT, ro);
		close(res);
		if (ret == -ENODEV) { /* revoked: import again once the device is back */
			axl_release(dev, imp.handle);
			imp.handle = 0;
		} else if (ret == -EBUSY) { /* max_jobs of them still run */
			usleep(1000);
		} else if (ret != -EFAULT) {
			tap_diag("SUBMIT with a read-only argument: %s", axl_errname(ret));
			return (void *)"SUBMIT with a read-only argument did not fail with EFAULT";
		}
		atomic_fetch_add(&rounds_efault, 1);
	}
	close(dev);
	close(buf);
	munmap(ro, PAGE);
	return NULL;
}

/* {open, import, submit, close} without waiting: close drops what is left. */
static void *loop_close(void *arg)
{
	int buf = frame_buf(83), res = heap_alloc(PAGE);
	struct axl_import_fd imp;
	struct axl_submit sub;

	if (buf < 0 || res < 0)
		return (void *)"setup";
	while (!atomic_load(&stop)) {
		int dev = axl_open_dev();

		if (dev < 0)
			return (void *)"open";
		if (!import_grey(dev, buf, &imp) && !axl_submit(dev, imp.handle, res, 0, &sub))
			close(sub.fence_fd);
		close(dev);
		atomic_fetch_add(&rounds_close, 1);
		usleep(500);
	}
	close(buf);
	close(res);
	return NULL;
}

#define REMOVALS 40
#define REMOVE_SECONDS 30

static int case_remove_race(void)
{
	void *(*const loops[])(void *) = { loop_jobs, loop_jobs, loop_efault, loop_close };
	pthread_t th[ARRAY_SIZE(loops)];
	const char *why[ARRAY_SIZE(loops)] = { NULL };
	char addr[32], first[512];
	int removals = 0, left = 0, mark = kmsg_mark(), splats, ret = KSFT_PASS;
	uint64_t until = now_ns() + REMOVE_SECONDS * 1000 * MS;

	if (!engine_pci(addr, sizeof(addr)))
		return KSFT_SKIP;
	EXPECT_RET(param_set("latency_us", 0), 0);
	atomic_store(&stop, false);
	for (size_t i = 0; i < ARRAY_SIZE(loops); i++)
		FAIL_IF(pthread_create(&th[i], NULL, loops[i], NULL), "pthread_create");

	/* bounded in time: a removal takes seconds on a slow debug kernel */
	for (int i = 0; i < REMOVALS && now_ns() < until && ret == KSFT_PASS; i++) {
		removals++;
		usleep(20000 + 7000 * (i % 5));
		if (pci_remove(addr)) {
			tap_diag("writing remove for %s failed", addr);
			ret = KSFT_FAIL;
			break;
		}
		/* the removal returned: every attachment to the device is gone */
		left = bufinfo_attached_to(addr);
		if (left) {
			tap_diag("removal %d returned with %d attachment(s) left to %s", i, left,
				 addr);
			ret = KSFT_FAIL;
		}
		if (!pci_restore(addr, POLL_MS)) {
			tap_diag("driver did not bind %s again after a rescan", addr);
			ret = KSFT_FAIL;
		}
	}
	atomic_store(&stop, true);
	for (size_t i = 0; i < ARRAY_SIZE(loops); i++)
		pthread_join(th[i], (void **)&why[i]);
	pci_restore(addr, POLL_MS);
	tap_diag("%d removals; rounds: %ld import/submit/wait/release, %ld EFAULT submits, %ld closes",
		 removals, atomic_load(&rounds_jobs), atomic_load(&rounds_efault),
		 atomic_load(&rounds_close));
	for (size_t i = 0; i < ARRAY_SIZE(loops); i++)
		FAIL_IF(why[i], "thread %zu: %s", i, why[i]);
	FAIL_IF(ret != KSFT_PASS, "see above");
	FAIL_IF(!axl_stats_settle(0, 0, 0, 0, 5000), "driver state left behind");
	FAIL_IF(mark < 0, "no kernel log mark");
	splats = kmsg_scan_splats(mark, first, sizeof(first));
	FAIL_IF(splats, "%d splat line(s) around the removals, first: %s", splats, first);
	return KSFT_PASS;
}

/* ---- RELEASE_IMPORT waking up ---- */

#define WAKE_ROUNDS 200

struct wake_loop {
	atomic_long done;
	atomic_bool ended;
	const char *why;
};

static const char *loop_wake_rounds(struct wake_loop *w);

static void *loop_wake(void *arg)
{
	struct wake_loop *w = arg;

	w->why = loop_wake_rounds(w);
	atomic_store(&w->ended, true);
	return NULL;
}

static const char *loop_wake_rounds(struct wake_loop *w)
{
	int dev = axl_open_dev(), buf = frame_buf(91), res = heap_alloc(PAGE);
	struct axl_import_fd imp;
	struct axl_submit sub;

	if (dev < 0 || buf < 0 || res < 0)
		return "setup";
	for (int i = 0; i < WAKE_ROUNDS; i++) {
		if (import_grey(dev, buf, &imp) || axl_submit(dev, imp.handle, res, 0, &sub))
			return "import or submit failed";
		if (fence_wait(sub.fence_fd, 10000))
			return "fence did not signal";
		close(sub.fence_fd);
		if (axl_release(dev, imp.handle))
			return "RELEASE_IMPORT failed";
		atomic_fetch_add(&w->done, 1);
	}
	close(dev);
	close(buf);
	close(res);
	return NULL;
}

/*
 * Each round releases the import the moment its fence signalled, while the
 * job's cleanup may still hold the import: the release sleeps until that
 * reference goes. If the wake-up is lost it sleeps forever (uninterruptibly:
 * the case then hangs, and says so here first).
 */
static int case_release_wakeup(void)
{
	static struct wake_loop w[2];
	pthread_t th[2];
	long last = -1, now;
	int still = 0;

	EXPECT_RET(param_set("latency_us", 0), 0);
	for (int i = 0; i < 2; i++)
		FAIL_IF(pthread_create(&th[i], NULL, loop_wake, &w[i]), "pthread_create");
	while (!atomic_load(&w[0].ended) || !atomic_load(&w[1].ended)) {
		now = atomic_load(&w[0].done) + atomic_load(&w[1].done);
		still = now == last ? still + 1 : 0;
		last = now;
		if (still == 50) { /* 5 s without a round */
			tap_diag("no round finished in 5 s after %ld of %d: a RELEASE_IMPORT sleeps for good",
				 now, 2 * WAKE_ROUNDS);
			fflush(stdout);
			return KSFT_FAIL;
		}
		usleep(100000);
	}
	for (int i = 0; i < 2; i++) {
		pthread_join(th[i], NULL);
		FAIL_IF(w[i].why, "thread %d: %s", i, w[i].why);
	}
	tap_diag("%d rounds of submit, wait, release", 2 * WAKE_ROUNDS);
	FAIL_IF(!axl_stats_settle(0, 0, 0, 0, 3000), "driver state left behind");
	return KSFT_PASS;
}

/* ---- a user copy stalled in userfaultfd ---- */

/* A page whose writes stall in userfaultfd until uffd_release(). */
struct stall_page {
	int uffd;
	void *page;
};

/*
 * A page holding @len bytes of @data, write-protected: 0, -ENOSYS or
 * -EOPNOTSUPP when the kernel cannot do it, or -errno.
 */
static int stall_page_init(struct stall_page *s, const void *data, size_t len)
{
	struct uffdio_api api = { .api = UFFD_API, .features = UFFD_FEATURE_PAGEFAULT_FLAG_WP };
	struct uffdio_register reg = { .mode = UFFDIO_REGISTER_MODE_WP };
	struct uffdio_writeprotect wp = { .mode = UFFDIO_WRITEPROTECT_MODE_WP };

	s->page = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (s->page == MAP_FAILED)
		return -errno;
	memcpy(s->page, data, len);
	s->uffd = syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	if (s->uffd < 0)
		return -errno;
	if (ioctl(s->uffd, UFFDIO_API, &api))
		return errno == EINVAL ? -EOPNOTSUPP : -errno;
	reg.range.start = (unsigned long)s->page;
	reg.range.len = PAGE;
	if (ioctl(s->uffd, UFFDIO_REGISTER, &reg))
		return errno == EINVAL ? -EOPNOTSUPP : -errno;
	wp.range = reg.range;
	return ioctl(s->uffd, UFFDIO_WRITEPROTECT, &wp) ? -errno : 0;
}

/* Wait until a write to the page stalls: true when one did. */
static bool stall_page_hit(struct stall_page *s, int timeout_ms)
{
	struct pollfd p = { .fd = s->uffd, .events = POLLIN };
	struct uffd_msg msg;

	if (poll(&p, 1, timeout_ms) != 1 || read(s->uffd, &msg, sizeof(msg)) != sizeof(msg))
		return false;
	return msg.event == UFFD_EVENT_PAGEFAULT &&
	       (msg.arg.pagefault.flags & UFFD_PAGEFAULT_FLAG_WRITE);
}

/* Let the stalled write go on. */
static void stall_page_release(struct stall_page *s)
{
	struct uffdio_writeprotect wp = {
		.range = { .start = (unsigned long)s->page, .len = PAGE },
	};

	ioctl(s->uffd, UFFDIO_WRITEPROTECT, &wp);
}

struct stalled_call {
	int dev;
	unsigned long cmd;
	void *arg;
	int ret;
};

static void *stalled_call(void *arg)
{
	struct stalled_call *c = arg;

	c->ret = axl_ioctl(c->dev, c->cmd, c->arg);
	return NULL;
}

/* What another user does while the first one stalls: a SUBMIT, then close. */
struct bystander {
	int buf, res;
	atomic_bool done;
	int ret;
	uint64_t ns;
};

static void *bystander(void *arg)
{
	struct bystander *b = arg;
	struct axl_import_fd imp;
	struct axl_submit sub;
	uint64_t t0 = now_ns();
	int dev = axl_open_dev();

	b->ret = dev < 0 ? dev : import_grey(dev, b->buf, &imp);
	if (!b->ret)
		b->ret = axl_submit(dev, imp.handle, b->res, 0, &sub);
	if (!b->ret)
		close(sub.fence_fd);
	if (dev >= 0)
		close(dev);
	b->ns = now_ns() - t0;
	atomic_store(&b->done, true);
	return NULL;
}

static void *remover(void *arg)
{
	pci_remove(arg);
	return NULL;
}

/*
 * Run the bystander while @c stalls (and, with @addr, a removal of that
 * device is under way); fail unless it finished within 1 s.
 */
static int bystander_in_time(struct stall_page *s, struct stalled_call *c, pthread_t *ct,
			     const char *what, const char *addr)
{
	struct bystander b = { .buf = frame_buf(95), .res = heap_alloc(PAGE) };
	pthread_t bt, rt;
	bool in_time = false;

	FAIL_IF(b.buf < 0 || b.res < 0, "setup");
	FAIL_IF(pthread_create(ct, NULL, stalled_call, c), "pthread_create");
	FAIL_IF(!stall_page_hit(s, 5000), "the %s's copy to user space did not stall", what);
	if (addr) { /* queued behind the stalled call, if that holds the device */
		FAIL_IF(pthread_create(&rt, NULL, remover, (void *)addr), "pthread_create");
		usleep(100000);
	}
	FAIL_IF(pthread_create(&bt, NULL, bystander, &b), "pthread_create");
	for (int t = 0; t < 200 && !in_time; t++) {
		in_time = atomic_load(&b.done);
		usleep(10000);
	}
	stall_page_release(s);
	pthread_join(*ct, NULL);
	pthread_join(bt, NULL);
	if (addr)
		pthread_join(rt, NULL);
	tap_diag("another file's import, SUBMIT and close took %.1f ms while a %s stalled%s",
		 b.ns / 1e6, what, addr ? " and a removal was queued" : "");
	FAIL_IF(!in_time || b.ns > 1000 * MS, "they waited for the stalled %s", what);
	FAIL_IF(!addr && b.ret, "the bystander's submit failed: %s", axl_errname(b.ret));
	close(b.buf);
	close(b.res);
	return KSFT_PASS;
}

/* Skip (with the reason) when userfaultfd cannot write-protect here. */
static int stall_page_or_skip(struct stall_page *s, const void *data, size_t len)
{
	int ret = stall_page_init(s, data, len);

	if (ret == -ENOSYS || ret == -EOPNOTSUPP) {
		tap_diag("userfaultfd write-protect is not available on this kernel (%s)",
			 axl_errname(ret));
		return KSFT_SKIP;
	}
	EXPECT_RET(ret, 0);
	return KSFT_PASS;
}

/*
 * SUBMIT's answer goes to a page whose write stalls: another file's import,
 * SUBMIT and close still finish within a second, and the stalled submit
 * completes once the page is let go.
 */
static int case_submit_copy_stall(void)
{
	struct stall_page s;
	struct stalled_call c = { .cmd = AXL_IOCTL_SUBMIT };
	struct axl_import_fd imp;
	struct axl_submit sub = { .input_handle = 0 }, *args;
	int buf = frame_buf(93), res = heap_alloc(PAGE), ret;
	pthread_t ct;

	c.dev = axl_open_dev();
	FAIL_IF(c.dev < 0 || buf < 0 || res < 0, "setup");
	EXPECT_RET(import_grey(c.dev, buf, &imp), 0);
	sub.input_handle = imp.handle;
	sub.result_fd = res;
	ret = stall_page_or_skip(&s, &sub, sizeof(sub));
	if (ret != KSFT_PASS)
		return ret;
	c.arg = args = s.page;
	ret = bystander_in_time(&s, &c, &ct, "SUBMIT", NULL);
	if (ret != KSFT_PASS)
		return ret;
	EXPECT_RET(c.ret, 0);
	FAIL_IF(fence_wait(args->fence_fd, 10000), "the stalled submit's fence did not signal");
	close(args->fence_fd);
	EXPECT_RET(axl_release(c.dev, imp.handle), 0);
	close(c.dev);
	close(buf);
	close(res);
	FAIL_IF(!axl_stats_settle(0, 0, 0, 0, 3000), "driver state left behind");
	return KSFT_PASS;
}

/*
 * IMPORT_FD's answer goes to a page whose write stalls and a device removal
 * is queued: another file's ioctls and close still finish within a second.
 */
static int case_import_copy_stall(void)
{
	struct stall_page s;
	struct stalled_call c = { .cmd = AXL_IOCTL_IMPORT_FD };
	struct axl_import_fd args = {
		.width = 64, .height = 64, .pixfmt = AXL_PIXFMT_GREY,
		.flags = AXL_IMPORT_TO_DEVICE,
	};
	char addr[32];
	int buf = frame_buf(94), ret;
	pthread_t ct;

	if (!engine_pci(addr, sizeof(addr)))
		return KSFT_SKIP;
	c.dev = axl_open_dev();
	FAIL_IF(c.dev < 0 || buf < 0, "setup");
	args.fd = buf;
	ret = stall_page_or_skip(&s, &args, sizeof(args));
	if (ret != KSFT_PASS)
		return ret;
	c.arg = s.page;
	ret = bystander_in_time(&s, &c, &ct, "IMPORT_FD", addr);
	FAIL_IF(!pci_restore(addr, POLL_MS), "driver did not bind %s again after a rescan", addr);
	if (ret != KSFT_PASS)
		return ret;
	close(c.dev);
	FAIL_IF(!axl_stats_settle(0, 0, 0, 0, 3000), "driver state left behind");
	return KSFT_PASS;
}

static int case_baseline(void)
{
	char first[512];
	int splats;

	FAIL_IF(!axl_stats_settle(0, 0, 0, 0, 3000), "driver state left behind");
	FAIL_IF(kmsg_at_start < 0, "no kernel log mark: %s", axl_errname(kmsg_at_start));
	splats = kmsg_scan_splats(kmsg_at_start, first, sizeof(first));
	FAIL_IF(splats, "%d kernel log splat line(s), first: %s", splats, first);
	return KSFT_PASS;
}

/* ---- the result fd, dup2()ed over while SUBMIT runs ---- */

#define DUP2_DELAY_MS 300	/* submit_delay_ms: SUBMIT's window after its fence wait */
#define DUP2_BUSY_US 3000000	/* the engine's run time: how long the other buffer is busy */

struct dup2_submit {
	int dev;
	uint32_t handle;
	int result;
	int ret;
	uint64_t ns;
	struct axl_submit sub;
};

static void *dup2_submit(void *arg)
{
	struct dup2_submit *d = arg;
	uint64_t t0 = now_ns();

	d->ret = axl_submit(d->dev, d->handle, d->result, 0, &d->sub);
	d->ns = now_ns() - t0;
	return NULL;
}

/*
 * SUBMIT resolves its result fd once. In the window the test-only
 * submit_delay_ms opens after SUBMIT's wait for its buffers' fences, the fd
 * is dup2()ed to another buffer, the result of a slow job (busy for 3 s,
 * its writer's fence there). The job still writes the buffer the fd named
 * when SUBMIT began: SUBMIT neither fails with EBUSY nor waits for the
 * other buffer (a buffer with a foreign fence would be waited for holding
 * the device lock, stalling removal and every ioctl).
 */
static int case_result_dup2(void)
{
	struct dup2_submit d = { .ret = -1 };
	struct axl_import_fd slow_imp, imp;
	struct axl_submit slow;
	struct axl_result r;
	int slow_in = frame_buf(97), in = frame_buf(98), busy = heap_alloc(PAGE);
	int res = heap_alloc(PAGE), keep, other;
	pthread_t th;

	d.dev = axl_open_dev();
	FAIL_IF(d.dev < 0 || busy < 0 || in < 0 || slow_in < 0 || res < 0, "setup");
	keep = dup(res);
	FAIL_IF(keep < 0, "dup");
	EXPECT_RET(import_grey(d.dev, slow_in, &slow_imp), 0);
	EXPECT_RET(import_grey(d.dev, in, &imp), 0);
	EXPECT_RET(param_set("latency_us", DUP2_BUSY_US), 0);
	EXPECT_RET(param_set("submit_delay_ms", DUP2_DELAY_MS), 0);
	/* the slow job writes @busy: its writer's fence is there until it ends */
	EXPECT_RET(axl_submit(d.dev, slow_imp.handle, busy, 0, &slow), 0);

	d.handle = imp.handle;
	d.result = res;
	FAIL_IF(pthread_create(&th, NULL, dup2_submit, &d), "pthread_create");
	usleep(DUP2_DELAY_MS * 1000 / 3);
	other = dup2(busy, res); /* @res now names the busy buffer */
	pthread_join(th, NULL);
	FAIL_IF(other != res, "dup2: %s", strerror(errno));
	EXPECT_RET(param_set("submit_delay_ms", 0), 0);
	tap_diag("SUBMIT with its result fd dup2()ed to a busy buffer: %s after %.0f ms "
		 "(window %d ms, the other buffer busy for %d ms)", axl_errname(d.ret), d.ns / 1e6,
		 DUP2_DELAY_MS, DUP2_BUSY_US / 1000);
	EXPECT_RET(d.ret, 0);
	EXPECT_RET(fence_wait(d.sub.fence_fd, 3 * DUP2_BUSY_US / 1000), 0);
	EXPECT_RET(result_read(keep, &r), 0);
	FAIL_IF(r.magic != AXL_RESULT_MAGIC || r.seqno != d.sub.seqno,
		"the buffer the fd named when SUBMIT began holds magic 0x%x seqno %llu, "
		"expected the job's (%llu): the job wrote the dup2()ed buffer",
		r.magic, (unsigned long long)r.seqno, (unsigned long long)d.sub.seqno);
	FAIL_IF(d.ns >= (DUP2_DELAY_MS + DUP2_BUSY_US / 2000) * MS,
		"SUBMIT waited for the other buffer's job");
	EXPECT_RET(fence_wait(slow.fence_fd, 3 * DUP2_BUSY_US / 1000), 0);
	close(slow.fence_fd);
	close(d.sub.fence_fd);
	close(d.dev);
	close(keep);
	close(res); /* the busy buffer's second fd */
	close(busy);
	close(in);
	close(slow_in);
	FAIL_IF(!axl_stats_settle(0, 0, 0, 0, 3000), "driver state left behind");
	return KSFT_PASS;
}

/* ---- an import's EFAULT against a SUBMIT on the handle it would get ---- */

#define GUESS_WAIT_MS 300	/* import_copy_wait_ms: the window before the copy-out */
#define GUESS_BUSY_US 2000000	/* the engine's run time: a job got in stays in flight */

struct guessing_import {
	int dev;
	unsigned long cmd;
	void *arg;
	atomic_bool done;
	int ret;
};

static void *guessing_import(void *arg)
{
	struct guessing_import *g = arg;

	g->ret = axl_ioctl(g->dev, g->cmd, g->arg);
	atomic_store(&g->done, true);
	return NULL;
}

/*
 * @cmd's argument placed so that its in-part is readable and the part from
 * its handle on read-only: the import is made, its answer cannot be copied
 * out. Meanwhile this thread SUBMITs, again and again, on the handle the
 * import gets (handles are cyclic: the one after the last). The import
 * returns EFAULT, and then the file has no import: GET_INFO, debugfs stats
 * and bufinfo say so, the handle is unknown to RELEASE_IMPORT, and no
 * SUBMIT ever got in on it.
 */
static int import_efault_guessed(unsigned long cmd, const void *req, size_t out, int buf)
{
	struct guessing_import g = { .cmd = cmd };
	struct axl_import_fd probe;
	struct axl_submit sub = { .fence_fd = -1 };
	struct axl_info info;
	uint32_t next;
	int res = heap_alloc(PAGE), tries = 0, enoent = 0, other = 0, got = 0;
	long long imports0;
	uint8_t *pages;
	pthread_t th;

	g.dev = axl_open_dev();
	pages = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	FAIL_IF(g.dev < 0 || res < 0 || pages == MAP_FAILED, "setup");
	FAIL_IF(mprotect(pages + PAGE, PAGE, PROT_READ), "mprotect: %s", strerror(errno));
	g.arg = pages + PAGE - out;
	memcpy(g.arg, req, out);

	/* the handle the import will get: the one after this probe's */
	EXPECT_RET(import_grey(g.dev, buf, &probe), 0);
	EXPECT_RET(axl_release(g.dev, probe.handle), 0);
	next = probe.handle + 1;
	imports0 = axl_stat("imports");

	EXPECT_RET(param_set("latency_us", GUESS_BUSY_US), 0);
	EXPECT_RET(param_set("import_copy_wait_ms", GUESS_WAIT_MS), 0);
	FAIL_IF(pthread_create(&th, NULL, guessing_import, &g), "pthread_create");
	while (!atomic_load(&g.done)) {
		int ret = got ? 0 : axl_submit(g.dev, next, res, 0, &sub);

		if (!got) {
			tries++;
			if (!ret)
				got = tries;
			else if (ret == -ENOENT)
				enoent++;
			else
				other = ret;
		}
		usleep(2000);
	}
	pthread_join(th, NULL);
	EXPECT_RET(param_set("import_copy_wait_ms", 0), 0);
	tap_diag("%s, %d SUBMITs on guessed handle %u meanwhile: %d ENOENT%s%s, "
		 "submit %d got in", cmd == AXL_IOCTL_IMPORT_FD ? "IMPORT_FD" : "IMPORT_FD2",
		 tries, next, enoent, other ? ", last other " : "",
		 other ? axl_errname(other) : "", got);

	EXPECT_RET(g.ret, -EFAULT);
	EXPECT_RET(axl_info(g.dev, &info), 0);
	FAIL_IF(info.file_imports != 0, "GET_INFO: %u import(s) after the EFAULT: the caller "
		"was told it has none", info.file_imports);
	FAIL_IF(axl_stat("imports") != imports0, "debugfs stats: imports %lld, were %lld",
		axl_stat("imports"), imports0);
	FAIL_IF(bufinfo_attachments(buf) != 0, "bufinfo: the buffer has %d attachment(s)",
		bufinfo_attachments(buf));
	EXPECT_RET(axl_release(g.dev, next), -ENOENT);
	FAIL_IF(got, "SUBMIT %d on handle %u, which the import never returned, got in", got,
		next);
	FAIL_IF(other, "a SUBMIT on the guessed handle failed with %s, not ENOENT",
		axl_errname(other));
	FAIL_IF(tries < 2, "only %d SUBMIT(s) while the import ran", tries);

	close(g.dev);
	close(res);
	munmap(pages, 2 * PAGE);
	FAIL_IF(!axl_stats_settle(0, 0, 0, 0, 3000), "driver state left behind");
	return KSFT_PASS;
}

static int case_import_efault_guessed(void)
{
	struct axl_import_fd v1 = {
		.width = 64, .height = 64, .pixfmt = AXL_PIXFMT_GREY,
		.flags = AXL_IMPORT_TO_DEVICE,
	};
	struct axl_import_fd2 v2 = {
		.flags = AXL_IMPORT_TO_DEVICE, .width = 64, .height = 64,
		.pixfmt = AXL_PIXFMT_GREY, .nplanes = 1, .modifier = AXL_FORMAT_MOD_LINEAR,
		.planes = { { .offset = 0, .pitch = 64 } },
	};
	int buf = frame_buf(99), ret;

	FAIL_IF(buf < 0, "setup");
	v1.fd = v2.fd = buf;
	ret = import_efault_guessed(AXL_IOCTL_IMPORT_FD, &v1,
				    offsetof(struct axl_import_fd, handle), buf);
	if (ret == KSFT_PASS)
		ret = import_efault_guessed(AXL_IOCTL_IMPORT_FD2, &v2,
					    offsetof(struct axl_import_fd2, handle), buf);
	close(buf);
	return ret;
}

static const struct axl_case cases[] = {
	{ "removal racing release, close and an EFAULT submit leaves nothing attached",
	  case_remove_race },
	{ "RELEASE_IMPORT right after the fence always wakes up", case_release_wakeup },
	{ "a SUBMIT stalled copying out blocks no other file", case_submit_copy_stall },
	{ "an IMPORT_FD stalled copying out blocks no other file, removal queued",
	  case_import_copy_stall },
	{ "a result fd dup2()ed to a busy buffer while SUBMIT runs: the job writes the first",
	  case_result_dup2 },
	{ "an import's EFAULT while SUBMITs guess its handle leaves no import",
	  case_import_efault_guessed },
	{ "no leaks and a clean kernel log", case_baseline },
};

int main(void)
{
	int ret = tap_skip_unless_importable("PCI removal, module parameters");

	if (ret)
		return ret;
	kmsg_at_start = kmsg_mark();
	return tap_run(cases, ARRAY_SIZE(cases));
}
