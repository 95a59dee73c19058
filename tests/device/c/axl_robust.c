// SPDX-License-Identifier: GPL-2.0
/*
 * axl_robust: what user space cannot break.
 *
 *  - every fence signals, whatever user space adds to the buffers' implicit
 *    fences (its own fences included), and SUBMIT's wait for fences that
 *    never signal is bounded by the job's timeout and interruptible;
 *  - the IOVA (a physical address without an IOMMU) is hidden from callers
 *    without CAP_SYS_ADMIN;
 *  - an input imported FROM_DEVICE cannot be submitted;
 *  - a submit whose answer cannot be copied out runs its job and leaves
 *    no fd behind;
 *  - a global cap bounds the bytes imports pin, a per-user one what one
 *    user pins, and a buffer imported many times counts once;
 *  - the engine's work per job is bounded by the job's timeout;
 *  - removing the PCI device revokes every import and fails what comes
 *    after with ENODEV, and a rescan brings the engine back.
 *
 * The removal case restores the device (PCI rescan) and checks the driver
 * bound it again, so the programs and Deno tests after this one still run.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/capability.h>
#include <linux/dma-buf.h>

#include "axl_util.h"

#define PAGE 4096u
#define WAIT_MS 10000
#define MS 1000000ull

static int kmsg_at_start = -1;

/* The few DRM and vgem definitions needed (no libdrm headers required). */
struct t_drm_mode_create_dumb {
	uint32_t height, width, bpp, flags;
	uint32_t handle, pitch;
	uint64_t size;
};
struct t_drm_prime_handle {
	uint32_t handle, flags;
	int32_t fd;
};
struct t_vgem_fence_attach {
	uint32_t handle, flags, out_fence, pad;
};
struct t_vgem_fence_signal {
	uint32_t fence, flags;
};
#define T_DRM_IOCTL_MODE_CREATE_DUMB _IOWR('d', 0xB2, struct t_drm_mode_create_dumb)
#define T_DRM_IOCTL_PRIME_HANDLE_TO_FD _IOWR('d', 0x2d, struct t_drm_prime_handle)
#define T_VGEM_FENCE_WRITE 0x1
#define T_VGEM_IOCTL_FENCE_ATTACH _IOWR('d', 0x40 + 0x1, struct t_vgem_fence_attach)
#define T_VGEM_IOCTL_FENCE_SIGNAL _IOW('d', 0x40 + 0x2, struct t_vgem_fence_signal)

/* A small GREY frame in a heap buffer, filled and with its reference result. */
struct tframe {
	int fd;
	struct frame_geom g;
	struct axl_result ref;
};

static int tframe_make(struct tframe *f, uint32_t w, uint32_t h, uint64_t seed)
{
	size_t len;
	uint8_t *p;
	int ret = frame_geom(&f->g, AXL_PIXFMT_GREY, w, h, 0);

	if (ret)
		return ret;
	len = (f->g.size + PAGE - 1) & ~(size_t)(PAGE - 1);
	f->fd = heap_alloc(len);
	if (f->fd < 0)
		return f->fd;
	p = buf_map(f->fd, len);
	if (!p)
		return -errno;
	buf_sync(f->fd, true, true);
	frame_fill(&f->g, p, seed);
	buf_sync(f->fd, false, true);
	frame_reference(&f->g, p, &f->ref);
	munmap(p, len);
	return 0;
}

/* Wait for a fence; its status (1, or the error it carries), or -ETIME. */
static int fence_end(int fence, int timeout_ms, uint64_t *stamp)
{
	struct fence_state st;
	int ret = fence_wait(fence, timeout_ms);

	if (ret)
		return ret;
	ret = fence_state(fence, &st);
	if (stamp)
		*stamp = st.timestamp_ns;
	return ret ? ret : st.status;
}

/* The job behind @sub succeeded and wrote @ref's statistics into @res. */
static int job_ok(const struct axl_submit *sub, int res, const struct axl_result *ref)
{
	struct axl_result r;
	int st = fence_end(sub->fence_fd, WAIT_MS, NULL);

	FAIL_IF(st != 1, "seqno %llu: fence status %d (%s)", (unsigned long long)sub->seqno,
		st, axl_errname(st));
	EXPECT_RET(result_read(res, &r), 0);
	FAIL_IF(r.magic != AXL_RESULT_MAGIC || r.status || r.seqno != sub->seqno,
		"result magic 0x%x status %d seqno %llu", r.magic, r.status,
		(unsigned long long)r.seqno);
	FAIL_IF(r.crc32 != ref->crc32 || r.luma_sum != ref->luma_sum, "result differs");
	return KSFT_PASS;
}

/* Add the fence of @fence_fd to @buf's reservation object, as a writer. */
static int add_write_fence(int buf, int fence_fd)
{
	struct dma_buf_import_sync_file arg = { .flags = DMA_BUF_SYNC_WRITE, .fd = fence_fd };

	return ioctl(buf, DMA_BUF_IOCTL_IMPORT_SYNC_FILE, &arg) ? -errno : 0;
}

/*
 * A job's input carrying its own fence, a later job's fence, and its result
 * buffer carrying its own fence: the engine used to wait for those inside
 * its worker, forever. Dependencies are now taken when a job is submitted,
 * so a fence added later (its own, or a later job's) is not one of them:
 * the jobs end (successfully) within their timeouts, and a job submitted
 * afterwards waits for both (SUBMIT waits for the input's writers) and runs.
 */
static int case_own_fence(void)
{
	struct tframe x = { .fd = -1 }, y = { .fd = -1 };
	struct axl_import_fd ix, iy;
	struct axl_submit a, b, c;
	int dev = axl_open_dev(), ra = heap_alloc(PAGE), rb = heap_alloc(PAGE),
	    rc = heap_alloc(PAGE), ret;
	uint64_t t0, stamp = 0;

	FAIL_IF(dev < 0 || ra < 0 || rb < 0 || rc < 0, "setup");
	EXPECT_RET(tframe_make(&x, 64, 64, 11), 0);
	EXPECT_RET(tframe_make(&y, 64, 64, 12), 0);
	EXPECT_RET(axl_import(dev, x.fd, 64, 64, AXL_PIXFMT_GREY, 0, AXL_IMPORT_TO_DEVICE, &ix), 0);
	EXPECT_RET(axl_import(dev, y.fd, 64, 64, AXL_PIXFMT_GREY, 0, AXL_IMPORT_TO_DEVICE, &iy), 0);
	EXPECT_RET(param_set("latency_us", 100000), 0);

	t0 = now_ns();
	EXPECT_RET(axl_submit(dev, ix.handle, ra, 500000, &a), 0);
	EXPECT_RET(axl_submit(dev, iy.handle, rb, 500000, &b), 0);
	ret = add_write_fence(x.fd, a.fence_fd);
	if (ret == -ENOTTY) {
		tap_diag("DMA_BUF_IOCTL_IMPORT_SYNC_FILE not supported (before 6.0)");
		return KSFT_SKIP;
	}
	EXPECT_RET(ret, 0);
	EXPECT_RET(add_write_fence(x.fd, b.fence_fd), 0);
	EXPECT_RET(add_write_fence(ra, a.fence_fd), 0);

	ret = job_ok(&a, ra, &x.ref);
	if (ret != KSFT_PASS)
		return ret;
	EXPECT_RET(fence_end(a.fence_fd, 0, &stamp), 1);
	FAIL_IF(stamp - t0 > 500 * MS + 100 * MS, "job with its own fence took %.1f ms",
		(stamp - t0) / 1e6);
	ret = job_ok(&b, rb, &y.ref);
	if (ret != KSFT_PASS)
		return ret;

	/* depends on a and b through x's reservation object: runs after them */
	EXPECT_RET(param_set("latency_us", 2000), 0);
	EXPECT_RET(axl_submit(dev, ix.handle, rc, 0, &c), 0);
	ret = job_ok(&c, rc, &x.ref);
	if (ret != KSFT_PASS)
		return ret;
	EXPECT_RET(axl_release(dev, ix.handle), 0);
	EXPECT_RET(axl_release(dev, iy.handle), 0);
	close(dev);
	return KSFT_PASS;
}

/*
 * A sync_file holding an unsignalled vgem fence, and the vgem fence id to
 * signal it with. vgem signals it itself after 10 s.
 */
static int vgem_fence(int vgem, int *sync_fd, uint32_t *fence_id)
{
	struct t_drm_mode_create_dumb dumb = { .height = 1, .width = 1024, .bpp = 32 };
	struct t_vgem_fence_attach att = { .flags = T_VGEM_FENCE_WRITE };
	struct t_drm_prime_handle prime = { .flags = O_CLOEXEC | O_RDWR };
	struct dma_buf_export_sync_file exp = { .flags = DMA_BUF_SYNC_WRITE };

	if (ioctl(vgem, T_DRM_IOCTL_MODE_CREATE_DUMB, &dumb))
		return -errno;
	att.handle = dumb.handle;
	if (ioctl(vgem, T_VGEM_IOCTL_FENCE_ATTACH, &att))
		return -errno;
	prime.handle = dumb.handle;
	if (ioctl(vgem, T_DRM_IOCTL_PRIME_HANDLE_TO_FD, &prime))
		return -errno;
	if (ioctl(prime.fd, DMA_BUF_IOCTL_EXPORT_SYNC_FILE, &exp)) {
		/* before 6.0 a foreign fence cannot be put on a heap buffer */
		int ret = errno == ENOTTY ? -EOPNOTSUPP : -errno;

		close(prime.fd);
		return ret;
	}
	close(prime.fd);
	*sync_fd = exp.fd;
	*fence_id = att.out_fence;
	return 0;
}

/*
 * A fence that does not signal within the job's timeout (a vgem fence
 * nobody signals), on the input or on the result buffer: SUBMIT waits for
 * it, as the CPU access it begins must, and fails with ETIMEDOUT after the
 * timeout, queueing nothing. A job on other buffers still runs, and once
 * the fence signals a job on the same buffers runs too.
 */
static int case_dep_timeout(void)
{
	struct tframe x = { .fd = -1 }, y = { .fd = -1 };
	struct axl_import_fd ix, iy;
	struct axl_submit j, k, l;
	struct t_vgem_fence_signal sig = { 0 };
	int dev = axl_open_dev(), vgem = axl_vgem_open(), rj = heap_alloc(PAGE),
	    rk = heap_alloc(PAGE), rl = heap_alloc(PAGE), sync = -1, ret;
	long long submitted0 = axl_stat("submitted");
	uint64_t t0, in_ns, out_ns;

	if (vgem < 0) {
		tap_diag("no vgem device (%s): cannot make a fence that stays unsignalled",
			 axl_errname(vgem));
		return KSFT_SKIP;
	}
	FAIL_IF(dev < 0 || rj < 0 || rk < 0 || rl < 0, "setup");
	ret = vgem_fence(vgem, &sync, &sig.fence);
	if (ret == -EOPNOTSUPP) {
		tap_diag("DMA_BUF_IOCTL_EXPORT/IMPORT_SYNC_FILE not supported (before 6.0)");
		return KSFT_SKIP;
	}
	EXPECT_RET(ret, 0);
	EXPECT_RET(tframe_make(&x, 64, 64, 21), 0);
	EXPECT_RET(tframe_make(&y, 64, 64, 22), 0);
	EXPECT_RET(axl_import(dev, x.fd, 64, 64, AXL_PIXFMT_GREY, 0, AXL_IMPORT_TO_DEVICE, &ix), 0);
	EXPECT_RET(axl_import(dev, y.fd, 64, 64, AXL_PIXFMT_GREY, 0, AXL_IMPORT_TO_DEVICE, &iy), 0);
	EXPECT_RET(add_write_fence(x.fd, sync), 0);
	EXPECT_RET(add_write_fence(rl, sync), 0);

	t0 = now_ns();
	EXPECT_RET(axl_submit(dev, ix.handle, rj, 300000, &j), -ETIMEDOUT);
	in_ns = now_ns() - t0;
	FAIL_IF(in_ns < 300 * MS || in_ns > 2000 * MS,
		"SUBMIT with a stuck input fence returned after %.1f ms (timeout 300 ms)",
		in_ns / 1e6);
	t0 = now_ns();
	EXPECT_RET(axl_submit(dev, iy.handle, rl, 300000, &j), -ETIMEDOUT);
	out_ns = now_ns() - t0;
	FAIL_IF(out_ns < 300 * MS || out_ns > 2000 * MS,
		"SUBMIT with a stuck result fence returned after %.1f ms (timeout 300 ms)",
		out_ns / 1e6);
	FAIL_IF(axl_stat("submitted") != submitted0, "a job was queued: submitted %lld, was %lld",
		axl_stat("submitted"), submitted0);
	EXPECT_RET(axl_submit(dev, iy.handle, rk, 0, &k), 0);
	ret = job_ok(&k, rk, &y.ref);
	if (ret != KSFT_PASS)
		return ret;

	FAIL_IF(ioctl(vgem, T_VGEM_IOCTL_FENCE_SIGNAL, &sig), "vgem signal: %s", strerror(errno));
	EXPECT_RET(axl_submit(dev, ix.handle, rl, 0, &l), 0);
	ret = job_ok(&l, rl, &x.ref);
	if (ret != KSFT_PASS)
		return ret;
	tap_diag("SUBMIT gave up after %.1f ms (input) and %.1f ms (result), timeout 300 ms",
		 in_ns / 1e6, out_ns / 1e6);
	close(sync);
	close(vgem);
	close(dev);
	return KSFT_PASS;
}

static void on_alarm(int sig)
{
	(void)sig;
}

/*
 * A signal interrupts a SUBMIT waiting for a stuck fence at once: EINTR,
 * nothing queued, nothing left behind.
 */
static int case_intr_stuck_dep(void)
{
	struct sigaction sa = { .sa_handler = on_alarm }; /* no SA_RESTART */
	/* every 100 ms, so a signal that comes before SUBMIT waits is not the only one */
	struct itimerval it = { .it_value = { .tv_usec = 100000 },
				.it_interval = { .tv_usec = 100000 } }, off = { 0 };
	struct tframe x = { .fd = -1 };
	struct axl_import_fd ix;
	struct axl_submit j;
	struct t_vgem_fence_signal sig = { 0 };
	int dev = axl_open_dev(), vgem = axl_vgem_open(), rj = heap_alloc(PAGE), sync = -1, st;
	struct axl_submit req = { .result_fd = rj, .timeout_us = 5000000, .fence_fd = -1 };
	long long submitted0 = axl_stat("submitted");
	uint64_t t0, took;

	if (vgem < 0) {
		tap_diag("no vgem device (%s)", axl_errname(vgem));
		return KSFT_SKIP;
	}
	FAIL_IF(dev < 0 || rj < 0, "setup");
	st = vgem_fence(vgem, &sync, &sig.fence);
	if (st == -EOPNOTSUPP) {
		tap_diag("DMA_BUF_IOCTL_EXPORT/IMPORT_SYNC_FILE not supported (before 6.0)");
		return KSFT_SKIP;
	}
	EXPECT_RET(st, 0);
	EXPECT_RET(tframe_make(&x, 64, 64, 23), 0);
	EXPECT_RET(axl_import(dev, x.fd, 64, 64, AXL_PIXFMT_GREY, 0, AXL_IMPORT_TO_DEVICE, &ix), 0);
	EXPECT_RET(add_write_fence(x.fd, sync), 0);
	req.input_handle = ix.handle;
	FAIL_IF(sigaction(SIGALRM, &sa, NULL), "sigaction: %s", strerror(errno));
	FAIL_IF(setitimer(ITIMER_REAL, &it, NULL), "setitimer: %s", strerror(errno));
	t0 = now_ns();
	/* not axl_submit(): axl_ioctl() retries on EINTR */
	st = ioctl(dev, AXL_IOCTL_SUBMIT, &req) ? -errno : 0;
	took = now_ns() - t0;
	setitimer(ITIMER_REAL, &off, NULL);
	alarm(60); /* the case's time limit again (the timer above replaced it) */
	EXPECT_RET(st, -EINTR);
	FAIL_IF(took > 1000 * MS, "SUBMIT returned %.1f ms after it started (signal at 100 ms)",
		took / 1e6);
	FAIL_IF(axl_stat("submitted") != submitted0, "a job was queued");
	FAIL_IF(ioctl(vgem, T_VGEM_IOCTL_FENCE_SIGNAL, &sig), "vgem signal: %s", strerror(errno));
	EXPECT_RET(axl_submit(dev, ix.handle, rj, 0, &j), 0);
	if (job_ok(&j, rj, &x.ref) != KSFT_PASS)
		return KSFT_FAIL;
	close(j.fence_fd);
	EXPECT_RET(axl_release(dev, ix.handle), 0);
	close(dev);
	/* the job's fence stays in its result buffer and its frame until they are freed */
	close(rj);
	close(x.fd);
	FAIL_IF(!axl_stats_settle(0, 0, 0, 0, 3000), "state left behind");
	close(sync);
	close(vgem);
	return KSFT_PASS;
}

/* Drop CAP_SYS_ADMIN from the effective set of this process. */
static int drop_sys_admin(void)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[2];

	if (syscall(SYS_capget, &hdr, data))
		return -errno;
	data[CAP_TO_INDEX(CAP_SYS_ADMIN)].effective &= ~CAP_TO_MASK(CAP_SYS_ADMIN);
	if (syscall(SYS_capset, &hdr, data))
		return -errno;
	return 0;
}

/* IMPORT_FD answers iova_base 0 to a caller without CAP_SYS_ADMIN. */
static int case_iova_hidden(void)
{
	struct tframe x = { .fd = -1 };
	struct axl_import_fd imp;
	int dev = axl_open_dev(), status;
	pid_t pid;

	FAIL_IF(dev < 0, "open");
	EXPECT_RET(tframe_make(&x, 64, 64, 31), 0);
	EXPECT_RET(axl_import(dev, x.fd, 64, 64, AXL_PIXFMT_GREY, 0, AXL_IMPORT_TO_DEVICE, &imp), 0);
	FAIL_IF(imp.iova_base == 0, "root sees iova 0");
	EXPECT_RET(axl_release(dev, imp.handle), 0);

	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		struct axl_submit sub;
		int res = heap_alloc(PAGE);

		if (res < 0 || drop_sys_admin())
			_exit(2);
		if (axl_import(dev, x.fd, 64, 64, AXL_PIXFMT_GREY, 0, AXL_IMPORT_TO_DEVICE, &imp))
			_exit(3);
		if (imp.iova_base != 0)
			_exit(4);
		/* the import itself works as before */
		if (axl_submit(dev, imp.handle, res, 0, &sub) || fence_end(sub.fence_fd, WAIT_MS, NULL) != 1)
			_exit(5);
		_exit(axl_release(dev, imp.handle) ? 6 : 0);
	}
	FAIL_IF(pid < 0, "fork");
	FAIL_IF(waitpid(pid, &status, 0) != pid, "waitpid");
	FAIL_IF(!WIFEXITED(status) || WEXITSTATUS(status),
		"child without CAP_SYS_ADMIN: exit %d (2 capset, 3 import, 4 iova shown, 5 job, 6 release)",
		WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	close(dev);
	return KSFT_PASS;
}

/*
 * The iova check asks quietly. A confining security module that refuses
 * CAP_SYS_ADMIN audits each refusal it is asked about loudly, so a check
 * that is not quiet would log a denial at every import by a confined
 * program. AppArmor is that module here: a child holding CAP_SYS_ADMIN,
 * confined to a profile that grants no capability, imports (iova hidden,
 * no record); a second child in a second profile calls sethostname(), whose
 * refusal must be recorded: that record, once in the log, says the
 * import's would be there too (kauditd logs in order).
 */
#define AA_DIR "/sys/kernel/security"
#define AA_IMPORT "axl_iova_audit"
#define AA_CONTROL "axl_iova_audit_control"

/* Loads both profiles, or with @remove removes them: 0, or -1 after saying why. */
static int aa_profiles(bool remove)
{
	char path[] = "/tmp/axl_aa.XXXXXX", cmd[256], line[256];
	int fd = mkstemp(path), ret;
	FILE *f = fd >= 0 ? fdopen(fd, "w+") : NULL;

	if (!f) {
		tap_diag("cannot write a profile under /tmp: %s", strerror(errno));
		return -1;
	}
	/* every file access (the test's fds, heaps, stdout), no capability */
	fprintf(f, "profile %s {\n  file,\n}\nprofile %s {\n  file,\n}\n", AA_IMPORT, AA_CONTROL);
	fflush(f);
	snprintf(cmd, sizeof(cmd), "apparmor_parser %s -K %s >%s.log 2>&1", remove ? "-R" : "-r",
		 path, path);
	ret = system(cmd);
	snprintf(cmd, sizeof(cmd), "%s.log", path);
	fclose(f);
	f = fopen(cmd, "r");
	while (ret && f && fgets(line, sizeof(line), f))
		tap_diag("apparmor_parser: %s", line);
	if (f)
		fclose(f);
	unlink(cmd);
	unlink(path);
	if (ret)
		tap_diag("apparmor_parser %s failed (status %d)", remove ? "-R" : "-r", ret);
	return ret ? -1 : 0;
}

/* Confines this process to @profile from now on: 0 or -errno. */
static int aa_change_profile(const char *profile)
{
	char cmd[128];
	int fd = open("/proc/self/attr/apparmor/current", O_WRONLY | O_CLOEXEC), ret = 0;

	if (fd < 0)
		fd = open("/proc/self/attr/current", O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	snprintf(cmd, sizeof(cmd), "changeprofile %s", profile);
	if (write(fd, cmd, strlen(cmd)) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

/* Runs @fn confined to @profile in a child: its exit code, or -1. */
static int aa_run_confined(const char *profile, int (*fn)(void *), void *arg)
{
	int status;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid == 0)
		_exit(aa_change_profile(profile) ? 2 : fn(arg));
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

struct iova_import {
	int dev;
	int fd;
};

static int import_confined(void *arg)
{
	struct iova_import *in = arg;
	struct axl_import_fd imp;

	if (axl_import(in->dev, in->fd, 64, 64, AXL_PIXFMT_GREY, 0, AXL_IMPORT_TO_DEVICE, &imp))
		return 3;
	if (imp.iova_base != 0)
		return 4;
	return axl_release(in->dev, imp.handle) ? 5 : 0;
}

static int sethostname_confined(void *arg)
{
	char name[256] = "";

	gethostname(name, sizeof(name) - 1);
	return sethostname(name, strlen(name)) == 0 ? 6 : errno == EPERM ? 0 : 7;
}

/*
 * Reads the kernel log from @mark: the capability denials logged for
 * @profile (the first in @first), and in @other those for AA_IMPORT (the
 * first in @other_first).
 */
static int aa_denials(int mark, const char *profile, char *first, int *other, char *other_first,
		      size_t len)
{
	char rec[2048], want[96];
	int hits = 0;
	ssize_t n;

	snprintf(want, sizeof(want), "profile=\"%s\"", profile);
	while ((n = read(mark, rec, sizeof(rec) - 1)) > 0 || (n < 0 && errno == EPIPE)) {
		if (n < 0)
			continue;
		rec[n] = 0;
		if (!strstr(rec, "operation=\"capable\""))
			continue;
		if (strstr(rec, want)) {
			if (!hits++)
				snprintf(first, len, "%.1000s", rec);
		} else if (strstr(rec, "profile=\"" AA_IMPORT "\"")) {
			if (!(*other)++)
				snprintf(other_first, len, "%.1000s", rec);
		}
	}
	return hits;
}

static int case_iova_no_audit(void)
{
	struct tframe x = { .fd = -1 };
	struct iova_import in = { .dev = axl_open_dev() };
	int mark, rc, control = 0, imports = 0;
	char first[1024] = "", import_first[1024] = "";

	if (access(AA_DIR "/apparmor", F_OK))
		mount("securityfs", AA_DIR, "securityfs", 0, NULL);
	if (access(AA_DIR "/apparmor/.replace", W_OK)) {
		tap_diag("AppArmor is not active: nothing here audits a capability refusal");
		return KSFT_SKIP;
	}
	if (system("command -v apparmor_parser >/dev/null 2>&1")) {
		tap_diag("no apparmor_parser (Debian: apt-get install apparmor)");
		return KSFT_SKIP;
	}
	FAIL_IF(in.dev < 0, "open");
	EXPECT_RET(tframe_make(&x, 64, 64, 33), 0);
	in.fd = x.fd;
	FAIL_IF(aa_profiles(false), "cannot load the test's AppArmor profiles");
	mark = kmsg_mark();
	FAIL_IF(mark < 0, "no kernel log mark: %s", axl_errname(mark));
	rc = aa_run_confined(AA_IMPORT, import_confined, &in);
	if (rc == 0)
		rc = aa_run_confined(AA_CONTROL, sethostname_confined, NULL);
	for (int t = 0; !rc && !control && t < 100; t++) {
		control += aa_denials(mark, AA_CONTROL, first, &imports, import_first,
				      sizeof(first));
		if (!control)
			usleep(50000);
	}
	close(mark);
	aa_profiles(true);
	FAIL_IF(rc, "confined child: exit %d (2 change profile, 3 import, 4 iova shown, 5 release, "
		    "6 sethostname allowed, 7 sethostname not EPERM)", rc);
	FAIL_IF(!control, "no record of the control's refused sethostname in 5 s: "
			  "capability refusals do not reach the kernel log here");
	FAIL_IF(imports, "IMPORT_FD logged %d capability denial(s) for a confined caller: %.200s",
		imports, import_first);
	tap_diag("control: %.200s", first);
	close(x.fd);
	close(in.dev);
	return KSFT_PASS;
}

/* An input imported FROM_DEVICE (device writes only) is no input: EINVAL, nothing queued. */
static int case_from_device_input(void)
{
	struct tframe x = { .fd = -1 };
	struct axl_import_fd imp;
	struct axl_submit sub;
	int dev = axl_open_dev(), res = heap_alloc(PAGE);
	long long submitted0 = axl_stat("submitted");

	FAIL_IF(dev < 0 || res < 0, "setup");
	EXPECT_RET(tframe_make(&x, 64, 64, 41), 0);
	EXPECT_RET(axl_import(dev, x.fd, 64, 64, AXL_PIXFMT_GREY, 0, AXL_IMPORT_FROM_DEVICE, &imp), 0);
	EXPECT_RET(axl_submit(dev, imp.handle, res, 0, &sub), -EINVAL);
	FAIL_IF(axl_stat("submitted") != submitted0, "a job was queued");
	EXPECT_RET(axl_release(dev, imp.handle), 0);

	EXPECT_RET(axl_import(dev, x.fd, 64, 64, AXL_PIXFMT_GREY, 0, AXL_IMPORT_BIDIRECTIONAL, &imp), 0);
	EXPECT_RET(axl_submit(dev, imp.handle, res, 0, &sub), 0);
	if (job_ok(&sub, res, &x.ref) != KSFT_PASS)
		return KSFT_FAIL;
	EXPECT_RET(axl_release(dev, imp.handle), 0);
	close(dev);
	return KSFT_PASS;
}

/*
 * One mapping for device writes per buffer: a second FROM_DEVICE or
 * BIDIRECTIONAL import of a buffer, or a second job in flight writing the
 * same result buffer, fails with EBUSY; reading imports are not limited, and
 * a job that ended gives its result buffer back to the next submit at once.
 */
static int case_one_writer(void)
{
	struct tframe x = { .fd = -1 }, y = { .fd = -1 };
	struct axl_import_fd a, b, c;
	struct axl_submit j, k;
	int dev = axl_open_dev(), res = heap_alloc(PAGE), res2 = heap_alloc(PAGE);
	long latency = param_get("latency_us");

	FAIL_IF(dev < 0 || res < 0 || res2 < 0 || latency < 0, "setup");
	EXPECT_RET(tframe_make(&x, 64, 64, 51), 0);
	EXPECT_RET(tframe_make(&y, 64, 64, 52), 0);
	EXPECT_RET(axl_import(dev, x.fd, 64, 64, AXL_PIXFMT_GREY, 0, AXL_IMPORT_BIDIRECTIONAL, &a), 0);
	EXPECT_RET(axl_import(dev, x.fd, 64, 64, AXL_PIXFMT_GREY, 0, AXL_IMPORT_FROM_DEVICE, NULL),
		   -EBUSY);
	EXPECT_RET(axl_import(dev, x.fd, 64, 64, AXL_PIXFMT_GREY, 0, AXL_IMPORT_TO_DEVICE, &b), 0);
	/* a buffer imported for writing cannot be a job's result either */
	EXPECT_RET(axl_import(dev, y.fd, 64, 64, AXL_PIXFMT_GREY, 0, AXL_IMPORT_TO_DEVICE, &c), 0);
	EXPECT_RET(axl_submit(dev, c.handle, x.fd, 0, NULL), -EBUSY);
	EXPECT_RET(axl_release(dev, a.handle), 0);
	EXPECT_RET(axl_import(dev, x.fd, 64, 64, AXL_PIXFMT_GREY, 0, AXL_IMPORT_FROM_DEVICE, &a), 0);
	EXPECT_RET(axl_release(dev, a.handle), 0);
	EXPECT_RET(axl_release(dev, b.handle), 0);

	/* two jobs in flight may not write one result buffer */
	EXPECT_RET(param_set("latency_us", 200000), 0);
	EXPECT_RET(axl_submit(dev, c.handle, res, 0, &j), 0);
	EXPECT_RET(axl_submit(dev, c.handle, res, 0, NULL), -EBUSY);
	EXPECT_RET(axl_submit(dev, c.handle, res2, 0, &k), 0);
	EXPECT_RET(param_set("latency_us", latency), 0);
	if (job_ok(&j, res, &y.ref) != KSFT_PASS || job_ok(&k, res2, &y.ref) != KSFT_PASS)
		return KSFT_FAIL;
	/* right after the wait the same result buffer takes the next job */
	EXPECT_RET(axl_submit(dev, c.handle, res, 0, &j), 0);
	if (job_ok(&j, res, &y.ref) != KSFT_PASS)
		return KSFT_FAIL;
	EXPECT_RET(axl_release(dev, c.handle), 0);
	close(res);
	close(res2);
	close(dev);
	return KSFT_PASS;
}

/* Open file descriptors of this process. */
static int fd_count(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	if (!d)
		return -errno;
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

/*
 * A submit whose answer cannot be copied back (the argument is read-only)
 * fails with EFAULT. The answer is copied once the job is queued and every
 * lock dropped (a fault there must stall nobody else), so the job runs and
 * writes its result, as a DRM driver's would; but no fence fd is left
 * behind in the process, and nothing leaks.
 */
static int case_efault_no_job(void)
{
	struct tframe x = { .fd = -1 };
	struct axl_import_fd imp;
	struct axl_submit s1, s2, *ro;
	struct axl_result r;
	int dev = axl_open_dev(), r1 = heap_alloc(PAGE), r2 = heap_alloc(PAGE), rro = heap_alloc(PAGE);
	long long submitted0, fences0;
	int fds0;

	FAIL_IF(dev < 0 || r1 < 0 || r2 < 0 || rro < 0, "setup");
	EXPECT_RET(tframe_make(&x, 64, 64, 51), 0);
	EXPECT_RET(axl_import(dev, x.fd, 64, 64, AXL_PIXFMT_GREY, 0, AXL_IMPORT_TO_DEVICE, &imp), 0);
	EXPECT_RET(axl_submit(dev, imp.handle, r1, 0, &s1), 0);
	if (job_ok(&s1, r1, &x.ref) != KSFT_PASS)
		return KSFT_FAIL;
	FAIL_IF(!axl_stats_settle(1, 1, 0, 1, 3000), "state before the failing submit");
	submitted0 = axl_stat("submitted");
	fences0 = axl_stat("fences");

	ro = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	FAIL_IF(ro == MAP_FAILED, "mmap");
	memset(ro, 0, sizeof(*ro));
	ro->input_handle = imp.handle;
	ro->result_fd = rro;
	FAIL_IF(mprotect(ro, PAGE, PROT_READ), "mprotect");
	fds0 = fd_count();
	EXPECT_RET(axl_ioctl(dev, AXL_IOCTL_SUBMIT, ro), -EFAULT);
	FAIL_IF(fd_count() != fds0, "%d fds after the failed submit, %d before", fd_count(), fds0);
	FAIL_IF(axl_stat("submitted") != submitted0 + 1, "submitted %lld, was %lld",
		axl_stat("submitted"), submitted0);
	/* one more fence: the job's, in its result buffer (rro), whose fd was not learnt */
	FAIL_IF(!axl_stats_settle(1, 1, 0, fences0 + 1, 3000), "a job or fence left behind");
	EXPECT_RET(result_read(rro, &r), 0);
	FAIL_IF(r.magic != AXL_RESULT_MAGIC || r.status || r.seqno != s1.seqno + 1 ||
		r.crc32 != x.ref.crc32, "the job of the EFAULT submit: magic 0x%x status %d seqno %llu",
		r.magic, r.status, (unsigned long long)r.seqno);

	EXPECT_RET(axl_submit(dev, imp.handle, r2, 0, &s2), 0);
	FAIL_IF(s2.seqno != s1.seqno + 2, "seqno %llu after %llu and the EFAULT submit's",
		(unsigned long long)s2.seqno, (unsigned long long)s1.seqno);
	if (job_ok(&s2, r2, &x.ref) != KSFT_PASS)
		return KSFT_FAIL;
	EXPECT_RET(axl_release(dev, imp.handle), 0);
	munmap(ro, PAGE);
	close(dev);
	return KSFT_PASS;
}

/* max_pinned_mb bounds the bytes all imports hold: ENOSPC past it. */
static int case_pinned_cap(void)
{
	struct axl_import_fd a, b, c;
	int dev = axl_open_dev(), dev2 = axl_open_dev();
	int half = heap_alloc(512 * 1024), half2 = heap_alloc(512 * 1024);
	int big = heap_alloc(2 * 1024 * 1024), small = heap_alloc(PAGE);
	long saved = param_get("max_pinned_mb");
	int ret = KSFT_FAIL;

	FAIL_IF(dev < 0 || dev2 < 0 || half < 0 || half2 < 0 || big < 0 || small < 0, "setup");
	FAIL_IF(saved < 0, "no max_pinned_mb parameter");
	FAIL_IF(axl_stat("imports") != 0, "imports left from earlier tests");
	EXPECT_RET(param_set("max_pinned_mb", 1), 0);

	if (axl_import(dev, big, 64, 64, AXL_PIXFMT_GREY, 0, AXL_IMPORT_TO_DEVICE, &a) != -ENOSPC) {
		tap_diag("2 MiB import under a 1 MiB cap did not fail with ENOSPC");
		goto out;
	}
	/* two files, one cap */
	if (axl_import(dev, half, 64, 64, AXL_PIXFMT_GREY, 0, AXL_IMPORT_TO_DEVICE, &a) ||
	    axl_import(dev2, half2, 64, 64, AXL_PIXFMT_GREY, 0, AXL_IMPORT_TO_DEVICE, &b)) {
		tap_diag("1 MiB in two imports under a 1 MiB cap failed");
		goto out;
	}
	if (axl_import(dev2, small, 64, 64, AXL_PIXFMT_GREY, 0, AXL_IMPORT_TO_DEVICE, &c) != -ENOSPC) {
		tap_diag("import past the cap did not fail with ENOSPC");
		goto out;
	}
	if (axl_release(dev, a.handle) ||
	    axl_import(dev2, small, 64, 64, AXL_PIXFMT_GREY, 0, AXL_IMPORT_TO_DEVICE, &c)) {
		tap_diag("import after a release freed room failed");
		goto out;
	}
	ret = KSFT_PASS;
out:
	param_set("max_pinned_mb", (unsigned long)saved);
	close(dev);
	close(dev2);
	FAIL_IF(!axl_stats_settle(0, 0, 0, 0, 3000), "imports left behind");
	return ret;
}

#define MIB (1024u * 1024u)

/*
 * In a child running as @uid: import @buf on @dev @times times, then expect
 * importing @extra (unless -1) to fail with ENOSPC. Exit status: 0; 1 an
 * import failed; 2 the import of @extra did not fail with ENOSPC; 3 setup.
 */
static int as_user_import(uid_t uid, int dev, int buf, int times, int extra)
{
	struct axl_import_fd imp;
	pid_t pid = fork();
	int status;

	if (pid < 0)
		return -errno;
	if (pid == 0) {
		if (setresgid(uid, uid, uid) || setresuid(uid, uid, uid))
			_exit(3);
		for (int i = 0; i < times; i++)
			if (axl_import(dev, buf, 64, 64, AXL_PIXFMT_GREY, 0, AXL_IMPORT_TO_DEVICE, &imp)) {
				tap_diag("uid %u: import %d of %d failed", (unsigned)uid, i + 1, times);
				_exit(1);
			}
		if (extra >= 0 && axl_import(dev, extra, 64, 64, AXL_PIXFMT_GREY, 0,
					     AXL_IMPORT_TO_DEVICE, &imp) != -ENOSPC)
			_exit(2);
		_exit(0);
	}
	if (waitpid(pid, &status, 0) < 0)
		return -errno;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 3;
}

/*
 * One user cannot take what the others need. uid A imports one 16 MiB
 * buffer 64 times (max_imports): the buffer counts once, not 64 times
 * against max_pinned_mb (1024 MiB, which 64 times 16 MiB would fill), and
 * with max_user_pinned_mb at 16 A cannot pin a byte more. uid B's 4 KiB
 * import and its job (whose result buffer counts too) still run.
 */
static int case_user_share(void)
{
	struct tframe b = { .fd = -1 };
	struct axl_import_fd imp;
	struct axl_submit sub;
	int dev_a = axl_open_dev(), dev_b = axl_open_dev();
	int big = heap_alloc(16 * MIB), more = heap_alloc(PAGE), res = heap_alloc(PAGE), ret;

	FAIL_IF(dev_a < 0 || dev_b < 0 || big < 0 || more < 0 || res < 0, "setup");
	FAIL_IF(axl_stat("imports") != 0, "imports left from earlier tests");
	EXPECT_RET(param_set("max_pinned_mb", 1024), 0);
	EXPECT_RET(tframe_make(&b, 64, 64, 59), 0);

	ret = as_user_import(60001, dev_a, big, 64, -1);
	FAIL_IF(ret, "uid A could not import one 16 MiB buffer 64 times (status %d)", ret);
	FAIL_IF(axl_stat("imports") != 64, "%lld imports, expected 64", axl_stat("imports"));

	ret = as_user_import(60002, dev_b, b.fd, 1, -1);
	FAIL_IF(ret, "uid B's 4 KiB import failed while uid A holds 64 imports of one buffer");
	imp.handle = 1; /* dev_b's first handle */
	EXPECT_RET(axl_submit(dev_b, imp.handle, res, 0, &sub), 0);
	if (job_ok(&sub, res, &b.ref) != KSFT_PASS)
		return KSFT_FAIL;

	/* A's 16 MiB are all max_user_pinned_mb lets A have */
	EXPECT_RET(param_set("max_user_pinned_mb", 16), 0);
	ret = as_user_import(60001, dev_a, big, 0, more);
	FAIL_IF(ret == 2, "uid A pinned past max_user_pinned_mb (16)");
	FAIL_IF(ret, "uid A's child: status %d", ret);
	ret = as_user_import(60002, dev_b, more, 1, -1);
	FAIL_IF(ret, "uid B's import failed once uid A reached its own cap");
	close(sub.fence_fd);
	close(dev_a);
	close(dev_b);
	/* uid B's job left its fence in its result buffer and in its frame */
	close(res);
	close(b.fd);
	FAIL_IF(!axl_stats_settle(0, 0, 0, 0, 5000), "imports left behind");
	return KSFT_PASS;
}

/*
 * Each of uid A's jobs has a 4 s timeout: A's jobs are all queued before
 * the first one ends and gives its share back (that took 1.5 s on the
 * arm64 debug kernel of a loaded host).
 */
#define SHARE_FILE_MS 8000    /* max_file_queued_ms of the test */
#define SHARE_USER_MS 12000   /* max_user_queued_ms of the test */
#define SHARE_TIMEOUT_US 4000000 /* each of uid A's jobs */
#define SHARE_LATENCY_US 5000000 /* engine run time: A's jobs time out, B's does not */
#define SHARE_SLACK_MS 10000 /* a loaded TCG host delays the guest: 17 s seen, 69 s before the bounds */
#define SHARE_MAX_JOBS 64

/*
 * In a child running as uid A: import @frame on @dev and submit jobs of
 * SHARE_TIMEOUT_US on it, one result buffer each, until a submit fails.
 * Exit status: the jobs queued when a submit failed with EBUSY, 100 + that
 * number when max_jobs (@max) went in without one, 250 + a setup failure.
 */
static int as_user_fill(uid_t uid, int dev, int frame, const int *res, int max)
{
	struct axl_import_fd imp;
	struct axl_submit sub;
	pid_t pid = fork();
	int status, n, ret = 0;

	if (pid < 0)
		return -errno;
	if (pid == 0) {
		if (setresgid(uid, uid, uid) || setresuid(uid, uid, uid))
			_exit(251);
		if (axl_import(dev, frame, 64, 64, AXL_PIXFMT_GREY, 0, AXL_IMPORT_TO_DEVICE, &imp))
			_exit(252);
		for (n = 0; n < max; n++) {
			ret = axl_submit(dev, imp.handle, res[n], SHARE_TIMEOUT_US, &sub);
			if (ret)
				break;
		}
		if (ret && ret != -EBUSY) {
			tap_diag("uid %u: submit %d: %s", (unsigned)uid, n + 1, axl_errname(ret));
			_exit(253);
		}
		_exit(ret ? n : 100 + n);
	}
	if (waitpid(pid, &status, 0) < 0)
		return -errno;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 254;
}

/*
 * In a child running as uid B: import @b on @dev, submit a job writing @res
 * and wait for it. Exit status: KSFT_PASS when it succeeded within
 * @bound_ms of its submit.
 */
static int as_user_job(uid_t uid, int dev, struct tframe *b, int res, int bound_ms)
{
	struct axl_import_fd imp;
	struct axl_submit sub;
	pid_t pid = fork();
	uint64_t stamp = 0;
	int status, st;

	if (pid < 0)
		return -errno;
	if (pid == 0) {
		if (setresgid(uid, uid, uid) || setresuid(uid, uid, uid))
			_exit(KSFT_FAIL);
		if (axl_import(dev, b->fd, 64, 64, AXL_PIXFMT_GREY, 0, AXL_IMPORT_TO_DEVICE, &imp) ||
		    axl_submit(dev, imp.handle, res, AXL_SUBMIT_MAX_TIMEOUT_US, &sub)) {
			tap_diag("uid %u: import or submit failed", (unsigned)uid);
			_exit(KSFT_FAIL);
		}
		st = fence_end(sub.fence_fd, 10 * WAIT_MS, &stamp);
		tap_diag("uid %u: 4 KiB job ended %.0f ms after its submit (bound %d ms), status %d",
			 (unsigned)uid, (stamp - sub.submit_ns) / 1e6, bound_ms, st);
		if (st != 1 || stamp - sub.submit_ns > (uint64_t)bound_ms * MS)
			_exit(KSFT_FAIL);
		_exit(job_ok(&sub, res, &b->ref));
	}
	if (waitpid(pid, &status, 0) < 0)
		return -errno;
	return WIFEXITED(status) ? WEXITSTATUS(status) : KSFT_FAIL;
}

/*
 * One file, or one user, cannot take the engine from the others. With the
 * engine's run time (latency_us 5 s) past their 4 s timeout, each of uid
 * A's jobs holds the engine for its whole timeout. A queues such jobs on
 * a file until a submit fails with EBUSY: max_file_queued_ms at 8000 admits
 * two; on a second file max_user_queued_ms at 12000 admits one more. uid
 * B's 4 KiB import and its job (10 s timeout) then succeed within A's 12 s,
 * its own 5 s run and 10 s of slack. Without the bounds A's first file
 * queued max_jobs (16) of them and B's job waited 69 s.
 */
static int case_engine_share(void)
{
	struct tframe a = { .fd = -1 }, b = { .fd = -1 };
	int dev_a = axl_open_dev(), dev_a2 = axl_open_dev(), dev_b = axl_open_dev();
	int res[2 * SHARE_MAX_JOBS], res_b = heap_alloc(PAGE), param, queued[2], ret;
	int bound_ms = SHARE_USER_MS + SHARE_LATENCY_US / 1000 + SHARE_SLACK_MS;
	int per_job_ms = SHARE_TIMEOUT_US / 1000;
	const int want[2] = { SHARE_FILE_MS / per_job_ms, (SHARE_USER_MS - SHARE_FILE_MS) / per_job_ms };
	struct axl_info info;
	uint64_t filled;

	FAIL_IF(dev_a < 0 || dev_a2 < 0 || dev_b < 0 || res_b < 0, "setup");
	EXPECT_RET(axl_info(dev_a, &info), 0);
	FAIL_IF(info.max_jobs > SHARE_MAX_JOBS, "max_jobs %u", info.max_jobs);
	for (uint32_t i = 0; i < 2 * info.max_jobs; i++)
		FAIL_IF((res[i] = heap_alloc(PAGE)) < 0, "result buffer %u", i);
	EXPECT_RET(tframe_make(&a, 64, 64, 71), 0);
	EXPECT_RET(tframe_make(&b, 64, 64, 72), 0);
	/* reported after the run, so that the run shows what happens without them */
	param = param_set("max_file_queued_ms", SHARE_FILE_MS);
	if (!param)
		param = param_set("max_user_queued_ms", SHARE_USER_MS);
	if (!param)
		param = param_set("max_queued_ms", 4 * SHARE_USER_MS + AXL_SUBMIT_MAX_TIMEOUT_US / 1000);
	EXPECT_RET(param_set("latency_us", SHARE_LATENCY_US), 0);

	filled = now_ns();
	for (int f = 0; f < 2; f++) {
		ret = as_user_fill(60003, f ? dev_a2 : dev_a, a.fd, res + f * info.max_jobs,
				   info.max_jobs);
		FAIL_IF(ret >= 250, "uid A's child: status %d", ret);
		queued[f] = ret >= 100 ? ret - 100 : ret;
		tap_diag("uid A's file %d queued %d jobs of %d ms%s", f + 1, queued[f], per_job_ms,
			 ret >= 100 ? " (max_jobs) without EBUSY" : " before EBUSY");
	}
	filled = now_ns() - filled;
	/* past that, A's first job may have ended and given its time back */
	tap_diag("queueing uid A's jobs took %.0f ms", filled / 1e6);
	FAIL_IF(filled >= SHARE_TIMEOUT_US * 1000ull, "that is longer than a job's timeout");
	ret = as_user_job(60004, dev_b, &b, res_b, bound_ms);
	EXPECT_RET(param, 0);
	FAIL_IF(queued[0] != want[0], "uid A's first file queued %d jobs, max_file_queued_ms %d lets %d",
		queued[0], SHARE_FILE_MS, want[0]);
	FAIL_IF(queued[1] != want[1], "uid A's second file queued %d jobs, max_user_queued_ms %d lets %d",
		queued[1], SHARE_USER_MS, want[1]);
	FAIL_IF(ret != KSFT_PASS, "uid B's job did not succeed within %d ms", bound_ms);

	close(dev_a);
	close(dev_a2);
	close(dev_b);
	/*
	 * the jobs' fences stay in their result buffers until these are
	 * freed, and the last one of each frame in that frame (a reader's)
	 */
	for (uint32_t i = 0; i < 2 * info.max_jobs; i++)
		close(res[i]);
	close(res_b);
	close(a.fd);
	close(b.fd);
	FAIL_IF(!axl_stats_settle(0, 0, 0, 0, 5000), "driver state left behind");
	return KSFT_PASS;
}

/*
 * The engine stops reading a frame once the job's deadline passed: a 16 MiB
 * frame with a 2 ms timeout and no simulated latency ends with ETIMEDOUT
 * (reading it takes far longer), and the engine goes on with the next job.
 */
static int case_compute_deadline(void)
{
	const uint32_t w = 4096, h = 4096;
	struct tframe small = { .fd = -1 };
	struct axl_import_fd imp, is;
	struct axl_submit sub, s2;
	struct axl_result r;
	int dev = axl_open_dev(), res = heap_alloc(PAGE), r2 = heap_alloc(PAGE);
	int big = heap_alloc((size_t)w * h), st;
	uint64_t stamp = 0;

	FAIL_IF(dev < 0 || res < 0 || r2 < 0 || big < 0, "setup");
	EXPECT_RET(tframe_make(&small, 64, 64, 61), 0);
	EXPECT_RET(param_set("latency_us", 0), 0);
	EXPECT_RET(axl_import(dev, big, w, h, AXL_PIXFMT_RAW, 0, AXL_IMPORT_TO_DEVICE, &imp), 0);
	EXPECT_RET(axl_import(dev, small.fd, 64, 64, AXL_PIXFMT_GREY, 0, AXL_IMPORT_TO_DEVICE, &is), 0);
	EXPECT_RET(axl_submit(dev, imp.handle, res, 2000, &sub), 0);
	EXPECT_RET(axl_submit(dev, is.handle, r2, 0, &s2), 0);
	st = fence_end(sub.fence_fd, WAIT_MS, &stamp);
	FAIL_IF(st != -ETIMEDOUT, "16 MiB in 2 ms: fence status %d (%s)", st, axl_errname(st));
	EXPECT_RET(result_read(res, &r), 0);
	FAIL_IF(r.magic != AXL_RESULT_MAGIC || r.status != -ETIMEDOUT, "result status %d", r.status);
	tap_diag("16 MiB frame with a 2 ms timeout ended %.1f ms after submit",
		 (stamp - sub.submit_ns) / 1e6);
	if (job_ok(&s2, r2, &small.ref) != KSFT_PASS)
		return KSFT_FAIL;
	EXPECT_RET(axl_release(dev, imp.handle), 0);
	EXPECT_RET(axl_release(dev, is.handle), 0);
	close(dev);
	return KSFT_PASS;
}

/* GET_INFO polling step while waiting for the device */
#define POLL_MS 20

/* Remove the PCI device with an import and jobs outstanding, then rescan. */
static int remove_and_check(int dev, const char *addr)
{
	struct tframe x = { .fd = -1 };
	struct axl_import_fd imp, tmp;
	struct axl_submit s[2], sub;
	int res[2] = { heap_alloc(PAGE), heap_alloc(PAGE) }, r3 = heap_alloc(PAGE), st;

	FAIL_IF(res[0] < 0 || res[1] < 0 || r3 < 0, "setup");
	EXPECT_RET(tframe_make(&x, 64, 64, 71), 0);
	EXPECT_RET(axl_import(dev, x.fd, 64, 64, AXL_PIXFMT_GREY, 0, AXL_IMPORT_TO_DEVICE, &imp), 0);
	EXPECT_RET(param_set("latency_us", 2000000), 0);
	for (int i = 0; i < 2; i++)
		EXPECT_RET(axl_submit(dev, imp.handle, res[i], 0, &s[i]), 0);
	FAIL_IF(bufinfo_attached_to(addr) != 3, "attachments %d before removal, expected 3",
		bufinfo_attached_to(addr));

	EXPECT_RET(pci_remove(addr), 0);
	for (int i = 0; i < 2; i++) {
		st = fence_end(s[i].fence_fd, 0, NULL);
		FAIL_IF(st != -ENODEV, "job %d after removal: fence status %d (%s)", i, st,
			axl_errname(st));
	}
	FAIL_IF(bufinfo_attached_to(addr) != 0, "attachments %d after removal",
		bufinfo_attached_to(addr));
	FAIL_IF(!device_is(dev, "none", 0, POLL_MS), "GET_INFO still names a device");
	EXPECT_RET(axl_submit(dev, imp.handle, r3, 0, &sub), -ENODEV);
	EXPECT_RET(axl_import(dev, x.fd, 64, 64, AXL_PIXFMT_GREY, 0, AXL_IMPORT_TO_DEVICE, &tmp),
		   -ENODEV);
	EXPECT_RET(axl_release(dev, imp.handle), 0);
	FAIL_IF(!axl_stats_settle(1, 0, 0, 2, 3000), "state left after removal");
	return KSFT_PASS;
}

static int case_pci_remove(void)
{
	struct tframe x = { .fd = -1 };
	struct axl_import_fd imp;
	struct axl_submit sub;
	struct axl_info info;
	char addr[32], first[512];
	int dev = axl_open_dev(), res = heap_alloc(PAGE), mark, ret, splats;

	FAIL_IF(dev < 0 || res < 0, "setup");
	EXPECT_RET(axl_info(dev, &info), 0);
	if (!(info.caps & AXL_CAP_PCI)) {
		tap_diag("the engine is not on a PCI device (%s)", info.device);
		return KSFT_SKIP;
	}
	snprintf(addr, sizeof(addr), "%s", info.device);
	mark = kmsg_mark();
	ret = remove_and_check(dev, addr);

	/* bring the device back whatever happened, for the tests after this one */
	param_set("latency_us", 2000);
	FAIL_IF(!pci_restore(addr, POLL_MS), "driver did not bind %s again after a rescan", addr);
	if (ret != KSFT_PASS)
		return ret;

	EXPECT_RET(axl_info(dev, &info), 0);
	FAIL_IF(!(info.caps & AXL_CAP_PCI), "caps 0x%x after rescan", info.caps);
	EXPECT_RET(tframe_make(&x, 64, 64, 72), 0);
	EXPECT_RET(axl_import(dev, x.fd, 64, 64, AXL_PIXFMT_GREY, 0, AXL_IMPORT_TO_DEVICE, &imp), 0);
	EXPECT_RET(axl_submit(dev, imp.handle, res, 0, &sub), 0);
	if (job_ok(&sub, res, &x.ref) != KSFT_PASS)
		return KSFT_FAIL;
	EXPECT_RET(axl_release(dev, imp.handle), 0);
	FAIL_IF(mark < 0, "no kernel log mark");
	splats = kmsg_scan_splats(mark, first, sizeof(first));
	FAIL_IF(splats, "%d splat line(s) around the removal, first: %s", splats, first);
	close(dev);
	return KSFT_PASS;
}

/*
 * Import a frame once, then in rounds: rewrite it from user space through
 * one mmap (bracketed by DMA_BUF_IOCTL_SYNC), submit, and check the result
 * (read back through mmap + SYNC, into the same result buffer every round)
 * matches the new content. The engine reads the frame through the kernel
 * mapping and writes the result header through another; both must see and
 * leave what the CPU accesses bracketed by dma_buf_begin_cpu_access()
 * require. Varying sizes cover frames of a few cache lines to many pages.
 *
 * On the rig's arm64 CPUs data caches behave as physically tagged, so a
 * kernel read through the vmap alias sees the user's stores even when no
 * cache maintenance runs at all: a stale read of the input needs memory
 * changed behind the cache (a real device's write). This round trip
 * therefore checks the ordering and the content the job sees; the cache
 * maintenance itself is checked by the debug kernel (DMA_API_DEBUG checks
 * every sync, DMABUF_DEBUG breaks an importer's sync of its own mapping),
 * whose log the baseline case scans.
 */
static int sync_write(int buf, bool start)
{
	struct dma_buf_sync sync = {
		.flags = (start ? DMA_BUF_SYNC_START : DMA_BUF_SYNC_END) | DMA_BUF_SYNC_WRITE,
	};

	return axl_ioctl(buf, DMA_BUF_IOCTL_SYNC, &sync);
}

static int check_rewrite(void)
{
	/* few and small: the platform case reloads the module within the case's time limit */
	static const uint32_t sizes[][2] = { { 64, 64 }, { 640, 120 } };
	struct axl_import_fd imp;
	struct axl_submit sub;
	struct axl_result ref;
	int dev = axl_open_dev(), res = heap_alloc(PAGE);
	unsigned int s, round;

	FAIL_IF(dev < 0 || res < 0, "setup: dev %d result %d", dev, res);
	for (s = 0; s < ARRAY_SIZE(sizes); s++) {
		struct tframe x = { .fd = -1 };
		size_t len;
		uint8_t *p;

		EXPECT_RET(tframe_make(&x, sizes[s][0], sizes[s][1], 100 + s), 0);
		len = (x.g.size + PAGE - 1) & ~(size_t)(PAGE - 1);
		p = buf_map(x.fd, len);
		FAIL_IF(!p, "mmap of the frame: %s", strerror(errno));
		EXPECT_RET(axl_import(dev, x.fd, sizes[s][0], sizes[s][1], AXL_PIXFMT_GREY, 0,
				      AXL_IMPORT_TO_DEVICE, &imp), 0);
		for (round = 0; round < 3; round++) {
			if (round) {
				/* the whole frame is rewritten: a CPU write */
				EXPECT_RET(sync_write(x.fd, true), 0);
				frame_fill(&x.g, p, 1000 * s + round);
				EXPECT_RET(sync_write(x.fd, false), 0);
			}
			frame_reference(&x.g, p, &ref);
			EXPECT_RET(axl_submit(dev, imp.handle, res, 0, &sub), 0);
			if (job_ok(&sub, res, &ref) != KSFT_PASS) {
				tap_diag("%ux%u frame, round %u: the job saw other content",
					 sizes[s][0], sizes[s][1], round);
				return KSFT_FAIL;
			}
			close(sub.fence_fd);
			/*
			 * the result buffer is the job's until its cleanup; its fence
			 * stays there until the next job's replaces it
			 */
			FAIL_IF(!axl_stats_settle(1, 1, 0, 1, 5000), "job or fence left behind");
		}
		EXPECT_RET(axl_release(dev, imp.handle), 0);
		buf_unmap_close(&p, len, &x.fd);
	}
	close(res);
	close(dev);
	return KSFT_PASS;
}

static int case_rewrite(void)
{
	return check_rewrite();
}

/*
 * The same on the platform device (bind_pci=0), which is not DMA-coherent
 * on arm64: there the exporter's cache maintenance is real.
 */
static int case_rewrite_platform(void)
{
	return axl_module_run_reloaded("bind_pci=0", check_rewrite);
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

static const struct axl_case cases[] = {
	{ "a job whose buffers carry its own or a later fence ends in time", case_own_fence },
	{ "a fence stuck past the timeout fails SUBMIT with ETIMEDOUT, queueing nothing",
	  case_dep_timeout },
	{ "a signal interrupts a SUBMIT waiting for a stuck fence: EINTR", case_intr_stuck_dep },
	{ "iova_base is hidden without CAP_SYS_ADMIN", case_iova_hidden },
	{ "the iova check logs no denial for a confined caller (AppArmor)", case_iova_no_audit },
	{ "an input imported FROM_DEVICE cannot be submitted", case_from_device_input },
	{ "one mapping for device writes per buffer: imports and results", case_one_writer },
	{ "a submit failing with EFAULT runs its job and leaves no fd", case_efault_no_job },
	{ "max_pinned_mb caps the bytes all imports pin", case_pinned_cap },
	{ "one user's imports of one buffer leave room for another user", case_user_share },
	{ "one file's or user's long jobs leave the engine to another user's job", case_engine_share },
	{ "the engine stops reading a frame at the job's deadline", case_compute_deadline },
	{ "a frame rewritten between jobs gives the right result", case_rewrite },
	{ "a frame rewritten between jobs gives the right result (platform device)",
	  case_rewrite_platform },
	{ "PCI removal revokes imports and fails jobs with ENODEV; rescan restores", case_pci_remove },
	{ "no leaks and a clean kernel log", case_baseline },
};

int main(void)
{
	int dev = axl_open_dev();

	if (dev < 0) {
		printf("TAP version 13\n1..0 # SKIP %s: %s\n", AXL_DEV_PATH, axl_errname(dev));
		return KSFT_SKIP;
	}
	close(dev);
	kmsg_at_start = kmsg_mark();
	return tap_run(cases, ARRAY_SIZE(cases));
}
