/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the axl device tests: TAP output in the kselftest
 * format, dma-heap buffers, fences, debugfs bufinfo, driver counters and
 * module parameters, the kernel log, and an independent reference for
 * what metis-sim computes.
 */
#ifndef AXL_UTIL_H
#define AXL_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <linux/axl.h>

/* kselftest exit codes */
#define KSFT_PASS 0
#define KSFT_FAIL 1
#define KSFT_SKIP 4

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#define AXL_DEV_PATH "/dev/" AXL_DEVICE_NAME
#define AXL_PARAM_DIR "/sys/module/axl/parameters"
#define AXL_HEAP_PATH "/dev/dma_heap/system"
/* The rig's nvmap stand-in (tests/rig/nvmap_sim). */
#define NVMAP_HEAP "/dev/dma_heap/nvmap-sim"

/* ---- TAP ---- */

/**
 * struct axl_case - one test case; run() returns KSFT_PASS/FAIL/SKIP
 * @name: TAP description.
 * @run:  runs in a forked child, so leaks and crashes stay contained.
 */
struct axl_case {
	const char *name;
	int (*run)(void);
};

__attribute__((format(printf, 1, 2))) void tap_diag(const char *fmt, ...);
/* Runs every case in a child, restoring module parameters after each. */
int tap_run(const struct axl_case *cases, size_t n);

/*
 * What a test that imports system-heap buffers needs: the axl device node, the
 * heap, and root (@why_root says what for). When one is missing, prints a TAP
 * plan that skips everything, naming it, and returns KSFT_SKIP; else 0.
 */
int tap_skip_unless_importable(const char *why_root);

/* Fail the current case with a message naming the source line. */
#define FAIL_IF(cond, ...)                                                  \
	do {                                                                \
		if (cond) {                                                 \
			tap_diag("%s:%d: %s", __FILE__, __LINE__, #cond);   \
			tap_diag(__VA_ARGS__);                              \
			return KSFT_FAIL;                                   \
		}                                                           \
	} while (0)

/* Expect a call returning 0 / -errno to return @want. */
#define EXPECT_RET(call, want)                                              \
	do {                                                                \
		int got_ = (call);                                          \
		int want_ = (want);                                         \
		if (got_ != want_) {                                        \
			tap_diag("%s:%d: %s", __FILE__, __LINE__, #call);   \
			tap_diag("  returned %d (%s), expected %d (%s)",    \
				 got_, axl_errname(got_), want_,             \
				 axl_errname(want_));                       \
			return KSFT_FAIL;                                   \
		}                                                           \
	} while (0)

const char *axl_errname(int negerr);

/* ---- device and ioctls (each returns 0 or -errno) ---- */

int axl_open_dev(void); /* fd, or -errno */
int axl_ioctl(int fd, unsigned long cmd, void *arg);
int axl_info(int dev, struct axl_info *info);
int axl_import(int dev, int buf, uint32_t w, uint32_t h, uint32_t pixfmt,
	       uint32_t stride, uint32_t flags, struct axl_import_fd *out);
int axl_submit(int dev, uint32_t handle, int result, uint32_t timeout_us,
	       struct axl_submit *out);
int axl_release(int dev, uint32_t handle);

/* ---- dma-bufs ---- */

int heap_alloc(size_t len);          /* dma-buf fd from the system heap, or -errno */
/* A dma-buf fd of @len bytes from the heap at @path, or -errno. */
int heap_alloc_from(const char *path, size_t len);
void *buf_map(int buf, size_t len);  /* MAP_SHARED mapping or NULL */
int buf_sync(int buf, bool start, bool write);
ino_t fd_inode(int fd);
/* Unmap and close a mapped dma-buf, leaving *map NULL and *buf -1 (safe to repeat). */
void buf_unmap_close(uint8_t **map, size_t len, int *buf);
/* Copy a job's result out of its buffer the way user space should: mmap + SYNC. */
int result_read(int buf, struct axl_result *out);

/* ---- fences ---- */

/* Wait for a sync_file; 0 when signalled, -ETIME on timeout. */
int fence_wait(int fence, int timeout_ms);
/* status (1 signalled, 0 active, <0 error), timestamp, names */
struct fence_state {
	int status;
	uint64_t timestamp_ns;
	char driver[32];
	char timeline[32];
};
int fence_state(int fence, struct fence_state *st);
uint64_t now_ns(void); /* CLOCK_MONOTONIC */

/* ---- frames and the reference computation ---- */

struct frame_geom {
	uint32_t pixfmt, width, height, stride;
	uint32_t line_bytes, nplanes;
	size_t offset[2];
	uint32_t lines[2];
	size_t size;
};
int frame_geom(struct frame_geom *g, uint32_t pixfmt, uint32_t w, uint32_t h,
	       uint32_t stride);
void frame_fill(const struct frame_geom *g, uint8_t *base, uint64_t seed);
void frame_reference(const struct frame_geom *g, const uint8_t *base,
		     struct axl_result *ref);
/* The engine's statistics of planes at their own offsets and pitches (no header). */
void planes_reference(uint32_t pixfmt, uint32_t line_bytes, uint32_t nplanes,
		      const uint64_t *offset, const uint32_t *pitch,
		      const uint32_t *lines, const uint8_t *base, struct axl_result *ref);
uint32_t ref_crc32(uint32_t crc, const uint8_t *p, size_t n);

/* ---- system state ---- */

struct bufinfo_entry {
	unsigned long inode;
	size_t size;
	char exporter[64];
	int ndevices;
	char devices[8][64];
	long count; /* references to the dma-buf's file */
};
/* Entries of debugfs bufinfo; returns the count or -errno. */
int bufinfo_read(struct bufinfo_entry *entries, int max);
/* Entries attached to @device, or -errno. */
int bufinfo_attached_to(const char *device);
const struct bufinfo_entry *bufinfo_find(const struct bufinfo_entry *e, int n,
					 unsigned long inode);

/* Devices attached to the dma-buf @buf (an fd) by debugfs bufinfo, or -errno (-ENOENT: not listed). */
int bufinfo_attachments(int buf);
/* Entries of /proc/self/fd, or -1. */
int open_fd_count(void);

/* One counter of /sys/kernel/debug/axl/stats, or -1. */
long long axl_stat(const char *name);
long axl_module_refcnt(void); /* /sys/module/axl/refcnt, -1 when unreadable */
/* Poll until the live counters (files imports jobs fences) reach the given values. */
bool axl_stats_settle(long long files, long long imports, long long jobs,
		      long long fences, int timeout_ms);

int param_set(const char *name, unsigned long value);
long param_get(const char *name);

/* ---- reloading the module ---- */

/* The axl.ko that is loaded, to load again: $AXL_KO or the VM rig's copy; NULL if none. */
const char *axl_module_file(void);
/* "name=value ..." for every parameter the module has now. */
int axl_module_params(char *out, size_t len);
/* Unload axl; 0, or the -errno of delete_module (-EAGAIN/-EBUSY while in use). */
int axl_module_unload(void);
/* Load @ko with @params and wait for /dev/axl; 0 or -errno. */
int axl_module_load(const char *ko, const char *params);
/*
 * Reload axl with its current parameters plus @extra ("bind_pci=0 ..."),
 * run @check in a child (its files close before the next reload), then
 * reload it as it was. KSFT_PASS, KSFT_SKIP without a module file to
 * reload, or KSFT_FAIL with a diagnostic.
 */
int axl_module_run_reloaded(const char *extra, int (*check)(void));

/* Kernel log: remember the end, later scan what came after it. */
int kmsg_mark(void);                       /* fd to keep, or -errno */
int kmsg_scan_splats(int mark, char *first, size_t len); /* WARN/BUG/Oops lines, benign reports left out */
/*
 * When set, a report that is one WARNING whose line holds this text (a
 * function and the '+' of its offset, e.g. "dma_buf_vmap+") is left out too:
 * a test that makes a callee fail on purpose sets it to the warning the
 * kernel prints for that failure, and clears it after its scan.
 */
extern const char *kmsg_expected_warn;

/* ---- tracefs instance ---- */
int trace_instance_create(const char *name, const char *const *events);
char *trace_instance_read(const char *name); /* malloc'd text or NULL */
void trace_instance_remove(const char *name);

/*
 * Every dma_buf_begin_cpu_access() and its direction, recorded by a kprobe
 * into tracefs instance @inst: record, run, stop. Stop counts each direction
 * (DMA_BIDIRECTIONAL 0, DMA_TO_DEVICE 1, DMA_FROM_DEVICE 2) into @counts and
 * removes the probe. 0 or -errno.
 */
int begin_cpu_record(const char *inst);
int begin_cpu_stop(const char *inst, int counts[3]);

int sysfs_write(const char *path, const char *value); /* 0 or -errno */

/* ---- the engine's PCI device ---- */

/*
 * Poll GET_INFO on @dev every @step_ms until the engine's device is @want (a
 * PCI address, or "none"); false if it is not within @timeout_ms.
 */
bool device_is(int dev, const char *want, int timeout_ms, int step_ms);
/* Remove the PCI device @addr (sysfs remove): 0 or -errno. */
int pci_remove(const char *addr);
/*
 * Rescan the PCI bus and wait (5 s at most, polling every @step_ms) until the
 * driver bound @addr again; false with a diagnostic when it did not.
 */
bool pci_restore(const char *addr, int step_ms);

/* ---- the Metis-compatible node (linux/axl_metis.h) ---- */

/* Path of the node metis_node_find() found. */
extern char metis_node_path[128];
/* Finds /dev/axl-metis-* into metis_node_path; false when there is none or several. */
bool metis_node_find(void);
/*
 * What a test of the Metis node needs: root, the node (metis_node=1) and
 * the system heap. When one is missing, prints a TAP plan that skips
 * everything, naming it, and returns KSFT_SKIP; else 0 (metis_node_path set).
 */
int tap_skip_unless_metis(void);
int metis_open(void);                  /* a file of the node, or -errno */
int metis_attach(int fd, int buf);     /* DMA_ATTACH: 0 or -errno */
int metis_detach(int fd);              /* DMA_DETACH: 0 or -errno */
/* DMA_XFER of @size bytes between card address @phy and buffer @offset; 0 or -errno. */
int metis_xfer(int fd, uint64_t phy, size_t size, uint32_t offset, int flags);
/* POLLIN within @timeout_ms: 1, 0 on timeout, or -errno. */
int metis_poll(int fd, int timeout_ms);

/* ---- vgem ---- */
int axl_vgem_open(void);

/* ---- PRNG (splitmix64) ---- */
uint64_t prng_next(uint64_t *state);

#endif /* AXL_UTIL_H */
