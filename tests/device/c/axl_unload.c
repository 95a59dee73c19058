// SPDX-License-Identifier: GPL-2.0
/*
 * axl_unload: module unload with jobs in flight, then reload.
 *
 * Every fence holds a reference on the module (its ops are called as long
 * as it lives), and so does every open file. So the kernel must refuse to
 * unload axl while /dev/axl is open, while jobs run, and while user space
 * only holds fence fds; the fences must still signal; and once everything
 * is closed the module must unload without leaving attachments behind and
 * load again with the parameters it had. A load that fails must let no open
 * through: the module is freed whatever its count, so a file opened while
 * the load was still failing would call into freed code when closed.
 *
 * Needs the module file to reload: $AXL_KO, or the VM rig's copy at
 * /run/axl/ctl/axl.ko. Skips (exit 4) without it, before unloading.
 * Runs last in the suite (name order); if the reload fails the later tests
 * see no /dev/axl, which is what they should report.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "axl_util.h"

#define PAGE 4096u
#define FAILED_LOADS 40
#define FAILED_LOADS_MS 45000

static int tests, failures;

static void result(bool ok, const char *what)
{
	printf("%sok %d %s\n", ok ? "" : "not ", ++tests, what);
	fflush(stdout);
	failures += !ok;
}

/* Refused because the module is in use: EWOULDBLOCK (EAGAIN) on 6.x, EBUSY elsewhere. */
static bool refused(int ret)
{
	if (ret == -EAGAIN || ret == -EBUSY)
		return true;
	tap_diag("delete_module returned %d (%s), expected a refusal", ret, axl_errname(ret));
	return false;
}

/* One GREY frame through the engine, checked against the reference. */
static bool engine_works(int dev)
{
	struct frame_geom g;
	struct axl_import_fd imp;
	struct axl_submit sub;
	struct axl_result ref, got;
	struct fence_state st;
	int buf = heap_alloc(PAGE), res = heap_alloc(PAGE);
	uint8_t *p = buf >= 0 ? buf_map(buf, PAGE) : NULL;
	uint8_t *r = res >= 0 ? buf_map(res, PAGE) : NULL;
	bool ok;

	if (!p || !r || frame_geom(&g, AXL_PIXFMT_GREY, 64, 64, 0))
		return false;
	frame_fill(&g, p, 77);
	frame_reference(&g, p, &ref);
	ok = !axl_import(dev, buf, 64, 64, AXL_PIXFMT_GREY, 0, AXL_IMPORT_TO_DEVICE, &imp) &&
	     !axl_submit(dev, imp.handle, res, 0, &sub) && !fence_wait(sub.fence_fd, 10000) &&
	     !fence_state(sub.fence_fd, &st) && st.status == 1;
	if (ok) {
		buf_sync(res, true, false);
		memcpy(&got, r, sizeof(got));
		buf_sync(res, false, false);
		ok = got.magic == AXL_RESULT_MAGIC && got.status == 0 && got.crc32 == ref.crc32 &&
		     got.luma_sum == ref.luma_sum && !axl_release(dev, imp.handle);
		close(sub.fence_fd);
	}
	munmap(p, PAGE);
	munmap(r, PAGE);
	close(buf);
	close(res);
	return ok;
}

/* The open loop beside the failing loads: the files it got (the first 16), which should be none. */
struct opener {
	atomic_bool stop;
	long tries;
	int created;
	int opened;
	int fds[16];
	int nfds;
};

/*
 * Opens /dev/axl the moment devtmpfs makes the node (inotify on /dev), and
 * every 10 ms besides. Woken by the node, the open then waits in
 * misc_open() for the lock misc_register() holds, and so reaches the
 * device before the failing load can take it away again: a loop that
 * merely spins on open() catches that window less often where the kernel
 * is slow (the arm64 debug kernel).
 */
static void *open_loop(void *arg)
{
	struct opener *o = arg;
	int in = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
	struct pollfd pfd = { .fd = in, .events = POLLIN };
	char events[4096] __attribute__((aligned(__alignof__(struct inotify_event))));

	if (in >= 0 && inotify_add_watch(in, "/dev", IN_CREATE) < 0) {
		tap_diag("inotify on /dev: %s; opening every 10 ms only", strerror(errno));
		close(in);
		in = -1;
	}
	while (!atomic_load(&o->stop)) {
		ssize_t n;
		int fd;

		if (in < 0 || poll(&pfd, 1, 10) < 0)
			usleep(10000);
		while (in >= 0 && (n = read(in, events, sizeof(events))) > 0) {
			for (char *e = events; e < events + n;
			     e += sizeof(struct inotify_event) + ((struct inotify_event *)e)->len)
				o->created += !strcmp(((struct inotify_event *)e)->name,
						      AXL_DEVICE_NAME);
		}
		fd = open(AXL_DEV_PATH, O_RDWR | O_CLOEXEC);
		o->tries++;
		if (fd < 0)
			continue;
		o->opened++;
		if (o->nfds < (int)ARRAY_SIZE(o->fds))
			o->fds[o->nfds++] = fd;
		else
			close(fd);
	}
	if (in >= 0)
		close(in);
	return NULL;
}

/*
 * Loads that fail late (metis_card_mb=0 fails the Metis node's setup, the
 * last step before /dev/axl), with a thread opening /dev/axl all along.
 * devtmpfs makes and removes the node inside misc_register() and
 * misc_deregister(), so the path exists all the while an open could
 * reach the module. Nothing may open, and no node may appear. Closing a
 * file that did open is what would crash, so the caller does that after
 * reporting.
 */
static bool failed_loads_open_nothing(const char *ko, const char *params, struct opener *o)
{
	char failing[1280];
	int loads = 0, wrong = 0, ret;
	uint64_t start = now_ns();
	pthread_t thread;

	snprintf(failing, sizeof(failing), "%s metis_node=1 metis_card_mb=0", params);
	if (pthread_create(&thread, NULL, open_loop, o)) {
		tap_diag("cannot start the open loop");
		return false;
	}
	for (; loads < FAILED_LOADS && now_ns() - start < FAILED_LOADS_MS * 1000000ull; loads++) {
		ret = axl_module_load(ko, failing);
		if (ret == -EINVAL)
			continue;
		tap_diag("load %d with metis_card_mb=0: %s, expected EINVAL", loads,
			 ret ? axl_errname(ret) : "loaded");
		wrong++;
		if (!ret)
			axl_module_unload();
		break;
	}
	atomic_store(&o->stop, true);
	pthread_join(thread, NULL);
	tap_diag("%d failing loads in %llu ms: %d %s nodes made, %ld opens tried, %d succeeded",
		 loads, (unsigned long long)(now_ns() - start) / 1000000, o->created, AXL_DEV_PATH,
		 o->tries, o->opened);
	return !wrong && loads > 0 && o->opened == 0 && o->created == 0;
}

int main(void)
{
	const char *ko = axl_module_file();
	char params[1024], first[512], device[64];
	int dev, buf, res[2], fences[2], ret, kmsg;
	struct opener opener = { .nfds = 0 };
	long latency;
	struct axl_import_fd imp;
	struct axl_submit sub;
	struct fence_state st;
	struct axl_info info;

	ret = tap_skip_unless_importable("delete_module, finit_module");
	if (ret)
		return ret;
	printf("TAP version 13\n");
	if (!ko) {
		printf("1..0 # SKIP no module file to reload: set AXL_KO to the axl.ko that is loaded\n");
		return KSFT_SKIP;
	}
	if (axl_module_params(params, sizeof(params))) {
		printf("1..0 # SKIP cannot read %s or the module parameters\n", ko);
		return KSFT_SKIP;
	}
	printf("1..8\n");
	tap_diag("module %s, parameters: %s", ko, params);
	kmsg = kmsg_mark();

	/* 1: an open file pins the module */
	dev = axl_open_dev();
	if (dev < 0 || axl_info(dev, &info)) {
		printf("Bail out! cannot open %s\n", AXL_DEV_PATH);
		return KSFT_FAIL;
	}
	snprintf(device, sizeof(device), "%s", info.device);
	ret = axl_module_unload();
	result(refused(ret) && !axl_info(dev, &info), "unload refused while /dev/axl is open");

	/* 2: jobs in flight pin it too, and keep running */
	buf = heap_alloc(PAGE);
	/* a result buffer per job in flight: one job at a time may write one */
	res[0] = heap_alloc(PAGE);
	res[1] = heap_alloc(PAGE);
	latency = param_get("latency_us");
	param_set("latency_us", 3000000);
	ret = axl_import(dev, buf, 64, 64, AXL_PIXFMT_GREY, 0, AXL_IMPORT_TO_DEVICE, &imp);
	for (int i = 0; i < 2 && !ret; i++) {
		ret = axl_submit(dev, imp.handle, res[i], 0, &sub);
		fences[i] = sub.fence_fd;
	}
	if (ret) {
		/* later tests in the same guest must not inherit the slow engine */
		param_set("latency_us", latency);
		printf("Bail out! cannot queue jobs: %s\n", axl_errname(ret));
		return KSFT_FAIL;
	}
	ret = axl_module_unload();
	result(refused(ret) && !fence_state(fences[0], &st) && st.status == 0,
	       "unload refused while jobs are in flight");

	/* 3: closing the file cancels the jobs; the fences signal; their fds still pin the module */
	close(dev);
	ret = 0;
	for (int i = 0; i < 2; i++) {
		if (fence_wait(fences[i], 5000) || fence_state(fences[i], &st) ||
		    st.status != -ECANCELED || strcmp(st.driver, "axl")) {
			tap_diag("fence %d: status %d driver '%s'", i, st.status, st.driver);
			ret = -1;
		}
	}
	result(!ret && refused(axl_module_unload()),
	       "jobs cancelled on close signal; unload refused while fence fds are open");

	/* 4: with everything closed it unloads, leaving no attachment behind */
	close(fences[0]);
	close(fences[1]);
	close(buf);
	close(res[0]);
	close(res[1]);
	for (int t = 0; (ret = axl_module_unload()) && t < 200; t++)
		usleep(10000); /* the engine's worker may still drop the last fence */
	result(!ret && access(AXL_DEV_PATH, F_OK) && access("/sys/module/axl", F_OK) &&
	       bufinfo_attached_to(device) == 0, "unload succeeds once nothing is open");
	if (ret)
		tap_diag("delete_module: %s", axl_errname(ret));

	/* 5: a load that fails lets no open through */
	result(failed_loads_open_nothing(ko, params, &opener),
	       "a load that fails late lets no open of /dev/axl through");
	while (opener.nfds)
		close(opener.fds[--opener.nfds]);

	/* 6: and loads again with the parameters it had */
	ret = axl_module_load(ko, params);
	dev = ret ? ret : axl_open_dev();
	result(dev >= 0, "reload with the same parameters");
	if (dev < 0) {
		printf("Bail out! reload failed: %s\n", axl_errname(dev));
		return KSFT_FAIL;
	}

	/* 7: the reloaded engine computes correctly */
	result(engine_works(dev), "the reloaded driver runs a frame correctly");
	close(dev);

	/* 8: nothing splatted */
	ret = kmsg < 0 ? -1 : kmsg_scan_splats(kmsg, first, sizeof(first));
	if (ret)
		tap_diag("%d splat line(s), first: %s", ret, first);
	result(ret == 0, "no WARN/BUG/Oops in the kernel log");

	printf("# Totals: pass:%d fail:%d xfail:0 xpass:0 skip:0 error:0\n", tests - failures,
	       failures);
	return failures ? KSFT_FAIL : KSFT_PASS;
}
