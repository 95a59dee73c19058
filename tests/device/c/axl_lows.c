// SPDX-License-Identifier: GPL-2.0
/*
 * The driver's defences against callers and exporters that bend the rules:
 *  - a Metis transfer is bounded by the buffer's size, not only by its DMA
 *    table (an exporter whose table is longer than the buffer: the rig's
 *    nvmap-sim with debugfs next_short_pages);
 *  - two threads doing SYNC transfers on one Metis file each get their own
 *    transfer's end and status;
 *  - a load that fails at any step of the module's init leaves no node in
 *    /dev and nothing in debugfs, and the next load works;
 *  - the users of a user namespace share the account of the user who owns
 *    it, so a range of subordinate uids cannot multiply one user's share.
 *
 * Run as root with axl.ko loaded (metis_node=1); the vmap bound needs
 * /dev/dma_heap/nvmap-sim and the load case the module file (AXL_KO or the
 * VM rig's copy).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/axl_metis.h>
#include <linux/dma-heap.h>

#include "axl_util.h"

#define PAGE 4096u
#define NVMAP_SHORT "/sys/kernel/debug/nvmap_sim/next_short_pages"
#define DEBUGFS "/sys/kernel/debug"

/* ---- the vmap bound ---- */


/*
 * A buffer of one page whose DMA table maps two (nvmap-sim's
 * next_short_pages): a transfer inside the page moves, one that reaches
 * into the second page is refused with EINVAL before the eDMA copies
 * through the one-page vmap, both ways, and the kernel log stays clean.
 */
static int case_vmap_bound(void)
{
	const int sync = AXL_METIS_XFER_SYNC;
	char first[256] = "";
	int buf, fd, kmsg;
	off_t size;

	if (access(NVMAP_HEAP, R_OK)) {
		if (getenv("AXL_EXPECT_NVMAP_SIM")) {
			tap_diag("%s absent, but the rig loads nvmap_sim.ko", NVMAP_HEAP);
			return KSFT_FAIL;
		}
		tap_diag("no %s (load tests/rig/nvmap_sim): no exporter with a long table",
			 NVMAP_HEAP);
		return KSFT_SKIP;
	}
	kmsg = kmsg_mark();
	EXPECT_RET(sysfs_write(NVMAP_SHORT, "1"), 0);
	buf = heap_alloc_from(NVMAP_HEAP, 2 * PAGE);
	FAIL_IF(buf < 0, "nvmap-sim allocation: %s", axl_errname(buf));
	size = lseek(buf, 0, SEEK_END);
	FAIL_IF(size != PAGE, "the buffer's size is %lld, not one page: next_short_pages unused",
		(long long)size);
	fd = metis_open();
	FAIL_IF(fd < 0, "open %s: %s", metis_node_path, axl_errname(fd));
	EXPECT_RET(metis_attach(fd, buf), 0);
	EXPECT_RET(metis_xfer(fd, 0, PAGE, 0, AXL_METIS_XFER_WRITE | sync), 0);
	EXPECT_RET(metis_xfer(fd, 0, PAGE, 0, AXL_METIS_XFER_READ | sync), 0);
	EXPECT_RET(metis_xfer(fd, 0, PAGE, PAGE, AXL_METIS_XFER_WRITE | sync), -EINVAL);
	EXPECT_RET(metis_xfer(fd, 0, 2 * PAGE, 0, AXL_METIS_XFER_READ | sync), -EINVAL);
	EXPECT_RET(metis_xfer(fd, 0, 2, PAGE - 1, AXL_METIS_XFER_READ | sync), -EINVAL);
	close(fd);
	close(buf);
	FAIL_IF(kmsg >= 0 && kmsg_scan_splats(kmsg, first, sizeof(first)) > 0,
		"kernel log: %s", first);
	if (kmsg >= 0)
		close(kmsg);
	return KSFT_PASS;
}

/* ---- SYNC from two threads ---- */

/* A's SYNC sleeps this long after queueing; B's set-up outlasts A's sleep and 2 s wait. */
#define SEQ_WAIT_MS 300
#define SEQ_B_XFER_US 2600000

struct seq_thread {
	int fd;
	int ret;
	uint64_t end_ns;
};

static void *seq_a_run(void *arg)
{
	struct seq_thread *a = arg;

	a->ret = metis_xfer(a->fd, 0, PAGE, 0, AXL_METIS_XFER_WRITE | AXL_METIS_XFER_SYNC);
	a->end_ns = now_ns();
	return NULL;
}

/*
 * Thread A queues a SYNC transfer and (metis_sync_wait_ms) sleeps before
 * it waits; its transfer ends meanwhile. Thread B then queues a SYNC
 * transfer whose set-up alone (metis_xfer_us) outlasts A's whole wait. A
 * must return 0, its own transfer's status, before B's transfer can have
 * ended: waiting on a completion B re-armed, it would time out (2 s) or
 * wake at B's end. No clock margin but A's: B's transfer cannot end before
 * its set-up time has passed since B's call began.
 */
static int case_sync_sequence(void)
{
	struct seq_thread a = { .ret = 1 };
	uint64_t b_start;
	pthread_t t;
	int buf, b_ret;

	buf = heap_alloc(PAGE);
	FAIL_IF(buf < 0, "heap allocation: %s", axl_errname(buf));
	a.fd = metis_open();
	FAIL_IF(a.fd < 0, "open %s: %s", metis_node_path, axl_errname(a.fd));
	EXPECT_RET(metis_attach(a.fd, buf), 0);
	EXPECT_RET(param_set("metis_xfer_us", 100), 0);
	EXPECT_RET(param_set("metis_sync_wait_ms", SEQ_WAIT_MS), 0);
	pthread_create(&t, NULL, seq_a_run, &a);
	/* A's transfer ended: its poll event is up, and the file is free */
	FAIL_IF(metis_poll(a.fd, 5000) != 1, "thread A's transfer never ended");
	axl_ioctl(a.fd, AXL_METIS_IOCTL_CLEAR_POLL_EVENT, &(int){ 0 });
	EXPECT_RET(param_set("metis_xfer_us", SEQ_B_XFER_US), 0);
	b_start = now_ns();
	b_ret = metis_xfer(a.fd, 0, PAGE, 0, AXL_METIS_XFER_WRITE | AXL_METIS_XFER_SYNC);
	pthread_join(t, NULL);
	param_set("metis_xfer_us", 100);
	param_set("metis_sync_wait_ms", 0);
	tap_diag("A returned %d (%s) %lld ms after B's call began; B returned %d (%s)", a.ret,
		 axl_errname(a.ret), ((long long)a.end_ns - (long long)b_start) / 1000000, b_ret,
		 axl_errname(b_ret));
	FAIL_IF(a.ret, "thread A got %s, B's status: it waited for B's transfer",
		axl_errname(a.ret));
	FAIL_IF(a.end_ns >= b_start + (uint64_t)SEQ_B_XFER_US * 1000,
		"thread A returned when B's transfer could have ended: it waited for B's");
	/* B's own wait may time out first (documented); either way it is B's */
	FAIL_IF(b_ret && b_ret != -ETIMEDOUT, "thread B: %s", axl_errname(b_ret));
	/* B's transfer still ends, later: wait for it before the file closes */
	FAIL_IF(metis_poll(a.fd, 5000) != 1, "thread B's transfer never ended");
	close(a.fd);
	close(buf);
	return KSFT_PASS;
}

/* ---- a load that fails ---- */

/*
 * Names of nodes created in /dev and debugfs while @load runs, starting
 * with "axl", into @seen (empty when none); 0 or -errno.
 */
static int load_watched(const char *ko, const char *params, int *load_ret, char *seen,
			size_t len)
{
	char ev[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	int in = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	ssize_t n;

	seen[0] = '\0';
	if (in < 0)
		return -errno;
	if (inotify_add_watch(in, "/dev", IN_CREATE) < 0 ||
	    inotify_add_watch(in, DEBUGFS, IN_CREATE) < 0) {
		int err = -errno;

		close(in);
		return err;
	}
	*load_ret = axl_module_load(ko, params);
	while ((n = read(in, ev, sizeof(ev))) > 0) {
		for (char *p = ev; p < ev + n;) {
			struct inotify_event *e = (struct inotify_event *)p;

			if (e->len && !strncmp(e->name, "axl", 3) &&
			    strlen(seen) + strlen(e->name) + 2 < len) {
				strcat(seen, " ");
				strcat(seen, e->name);
			}
			p += sizeof(*e) + e->len;
		}
	}
	close(in);
	return 0;
}

/*
 * For each step of the module's init that can fail (fail_init=): the load
 * fails with ENOSPC, no node of axl appeared in /dev or debugfs meanwhile
 * (inotify), none is left, and the next load works. A Metis node that
 * cannot be registered (fail_init=metis_node) leaves the module loaded
 * without it.
 */
static int case_failed_load(void)
{
	static const char *const steps[] = { "engine", "dev", "metis", "misc" };
	const char *ko = axl_module_file();
	char params[1024], failing[1280], seen[512];
	int ret, load_ret, bad = 0;

	if (!ko) {
		tap_diag("no module file to reload: set AXL_KO to the axl.ko that is loaded");
		return KSFT_SKIP;
	}
	EXPECT_RET(axl_module_params(params, sizeof(params)), 0);
	for (size_t i = 0; i < ARRAY_SIZE(steps) && !bad; i++) {
		ret = axl_module_unload();
		if (ret) {
			tap_diag("cannot unload axl: %s", axl_errname(ret));
			return KSFT_FAIL;
		}
		snprintf(failing, sizeof(failing), "%s fail_init=%s", params, steps[i]);
		ret = load_watched(ko, failing, &load_ret, seen, sizeof(seen));
		if (ret) {
			tap_diag("inotify on /dev and %s: %s", DEBUGFS, axl_errname(ret));
			bad = 1;
		} else if (load_ret != -ENOSPC) {
			tap_diag("fail_init=%s: the load returned %s, not ENOSPC", steps[i],
				 axl_errname(load_ret));
			bad = 1;
			if (!load_ret)
				axl_module_unload();
		} else if (seen[0]) {
			tap_diag("fail_init=%s: the load failed, but created and removed:%s",
				 steps[i], seen);
			bad = 1;
		} else if (!access(AXL_DEV_PATH, F_OK) || metis_node_find() ||
			   !access(DEBUGFS "/axl", F_OK)) {
			tap_diag("fail_init=%s: a node or debugfs entry of axl is left", steps[i]);
			bad = 1;
		} else {
			tap_diag("fail_init=%s: ENOSPC, no node seen", steps[i]);
		}
		ret = axl_module_load(ko, params);
		if (ret) {
			tap_diag("the load after fail_init=%s: %s", steps[i], axl_errname(ret));
			return KSFT_FAIL;
		}
	}
	FAIL_IF(access(AXL_DEV_PATH, F_OK) || !metis_node_find(), "the nodes are back after a load");
	if (bad)
		return KSFT_FAIL;
	/* the Metis node comes after the last step that can fail: without it, the load works */
	EXPECT_RET(axl_module_unload(), 0);
	snprintf(failing, sizeof(failing), "%s fail_init=metis_node", params);
	load_ret = axl_module_load(ko, failing);
	bad = load_ret || access(AXL_DEV_PATH, F_OK) || metis_node_find() ||
	      !access(DEBUGFS "/axl-metis", F_OK);
	if (bad)
		tap_diag("fail_init=metis_node: %s, /dev/axl %s, the Metis node %s",
			 load_ret ? axl_errname(load_ret) : "loaded",
			 access(AXL_DEV_PATH, F_OK) ? "absent" : "present",
			 metis_node_find() ? "present" : "absent");
	if (!load_ret)
		axl_module_unload();
	EXPECT_RET(axl_module_load(ko, params), 0);
	FAIL_IF(bad, "a Metis node that cannot be registered must leave the module loaded without it");
	return KSFT_PASS;
}

/* ---- user namespaces ---- */

/* A user with no other use of axl creates the namespace; root maps uids for it. */
#define NS_OWNER 60021
#define NS_BASE 300000
#define NS_CAP_MB 1
#define MIB (1024u * 1024u)

struct ns_share {
	int node[3];
	int buf[3];
};

/* In the namespace: a child as namespace uid @uid attaches @s's buffer @i. */
static int ns_attach_as(struct ns_share *s, uid_t uid, int i)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -errno;
	if (!pid) {
		int ret;

		if (setresuid(uid, uid, uid))
			_exit(200);
		ret = metis_attach(s->node[i], s->buf[i]);
		_exit(ret < 0 ? -ret : 0);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) == 200)
		return -EPROTO;
	return -WEXITSTATUS(status);
}

static int write_file(pid_t pid, const char *name, const char *text)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, name);
	return sysfs_write(path, text);
}

/*
 * uid NS_OWNER creates a user namespace; root maps ten uids of a range
 * for it, as newuidmap does. Namespace uid 1 attaches a 1 MiB buffer: with
 * max_user_pinned_mb at 1 the owner's share is full, so namespace uid 2's
 * attach fails with ENOSPC instead of opening an account of its own. Root,
 * another user, still attaches.
 */
static int case_userns_owner(void)
{
	struct ns_share s;
	int to_child[2], to_parent[2], status, got[2];
	char c = 0, map[64];
	pid_t pid;

	for (int i = 0; i < 3; i++) {
		s.node[i] = metis_open();
		FAIL_IF(s.node[i] < 0, "open %s", metis_node_path);
		s.buf[i] = heap_alloc(MIB);
		FAIL_IF(s.buf[i] < 0, "heap allocation: %s", axl_errname(s.buf[i]));
	}
	EXPECT_RET(param_set("max_user_pinned_mb", NS_CAP_MB), 0);
	FAIL_IF(pipe(to_child) || pipe(to_parent), "pipe: %s", strerror(errno));
	fflush(stdout);
	pid = fork();
	FAIL_IF(pid < 0, "fork: %s", strerror(errno));
	if (!pid) {
		int r[2] = { 1, 1 };

		if (setresuid(NS_OWNER, NS_OWNER, NS_OWNER) || unshare(CLONE_NEWUSER)) {
			r[0] = -errno;
			c = 'x';
		}
		if (write(to_parent[1], &c, 1) != 1 || c == 'x') {
			if (write(to_parent[1], r, sizeof(r)) < 0)
				_exit(1);
			_exit(0);
		}
		if (read(to_child[0], &c, 1) != 1 || c != 'm')
			_exit(1);
		r[0] = ns_attach_as(&s, 1, 0);
		r[1] = ns_attach_as(&s, 2, 1);
		_exit(write(to_parent[1], r, sizeof(r)) == sizeof(r) ? 0 : 1);
	}
	FAIL_IF(read(to_parent[0], &c, 1) != 1, "the child died before its unshare");
	if (c == 'x') {
		FAIL_IF(read(to_parent[0], got, sizeof(got)) != sizeof(got), "child's error");
		waitpid(pid, &status, 0);
		if (got[0] == -EINVAL || got[0] == -EPERM) {
			tap_diag("unshare(CLONE_NEWUSER) as uid %d: %s: this kernel has no user "
				 "namespaces for it (CONFIG_USER_NS)", NS_OWNER, axl_errname(got[0]));
			return KSFT_SKIP;
		}
		FAIL_IF(1, "unshare(CLONE_NEWUSER): %s", axl_errname(got[0]));
	}
	snprintf(map, sizeof(map), "0 %d 10\n", NS_BASE);
	EXPECT_RET(write_file(pid, "setgroups", "deny"), 0);
	EXPECT_RET(write_file(pid, "uid_map", map), 0);
	EXPECT_RET(write_file(pid, "gid_map", map), 0);
	c = 'm';
	FAIL_IF(write(to_child[1], &c, 1) != 1, "pipe write");
	FAIL_IF(read(to_parent[0], got, sizeof(got)) != sizeof(got), "the child's results");
	waitpid(pid, &status, 0);
	tap_diag("namespace uid 1 (uid %d): %s; namespace uid 2 (uid %d): %s", NS_BASE + 1,
		 axl_errname(got[0]), NS_BASE + 2, axl_errname(got[1]));
	FAIL_IF(got[0], "namespace uid 1 could not attach 1 MiB");
	FAIL_IF(got[1] != -ENOSPC,
		"namespace uid 2 got an account of its own (%s, not ENOSPC): a uid range "
		"multiplies its owner's share", axl_errname(got[1]));
	EXPECT_RET(metis_attach(s.node[2], s.buf[2]), 0);
	for (int i = 0; i < 3; i++) {
		close(s.node[i]);
		close(s.buf[i]);
	}
	return KSFT_PASS;
}

int main(void)
{
	static const struct axl_case cases[] = {
		{ "SYNC from two threads: each returns its own transfer's status",
		  case_sync_sequence },
		{ "the users of a user namespace share its owner's pinned bytes",
		  case_userns_owner },
		{ "a load that fails at any init step shows no node, and the next load works",
		  case_failed_load },
		{ "a Metis transfer is bounded by the buffer's size, not only its DMA table",
		  case_vmap_bound },
	};

	if (tap_skip_unless_metis())
		return KSFT_SKIP;
	return tap_run(cases, ARRAY_SIZE(cases));
}
