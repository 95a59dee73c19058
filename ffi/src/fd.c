// SPDX-License-Identifier: MIT
/* File descriptor helpers: Deno cannot wrap an arbitrary fd number. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "axl_shim.h"
#include "shim_private.h"

int32_t axl_shim_open(const char *path, int32_t flags)
{
	int fd;

	if (!path)
		return -EINVAL;
	fd = open(path, flags | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

int32_t axl_shim_close(int32_t fd)
{
	return close(fd) ? -errno : 0;
}

int32_t axl_shim_dup(int32_t fd)
{
	int nfd = fcntl(fd, F_DUPFD_CLOEXEC, 0);

	return nfd < 0 ? -errno : nfd;
}

/*
 * out[0] = inode, out[1] = size (st_size, or SEEK_END for dma-bufs, whose
 * st_size is 0), out[2] = st_mode, out[3] = st_rdev, out[4] = st_dev.
 */
int32_t axl_shim_fstat(int32_t fd, uint64_t *out)
{
	struct stat st;
	off_t end;

	if (!out)
		return -EINVAL;
	if (fstat(fd, &st))
		return -errno;
	out[0] = st.st_ino;
	out[1] = (uint64_t)st.st_size;
	if (!st.st_size && !S_ISCHR(st.st_mode)) {
		end = lseek(fd, 0, SEEK_END);
		if (end > 0) {
			out[1] = (uint64_t)end;
			lseek(fd, 0, SEEK_SET);
		}
	}
	out[2] = st.st_mode;
	out[3] = st.st_rdev;
	out[4] = st.st_dev;
	return 0;
}

int axl_xioctl(int fd, unsigned long req, void *arg)
{
	int ret;

	do {
		ret = ioctl(fd, req, arg);
	} while (ret < 0 && errno == EINTR);
	return ret < 0 ? -errno : ret;
}

/* Escape hatch for ioctls without a typed wrapper; @arg is passed as is. */
int64_t axl_shim_ioctl(int32_t fd, uint64_t request, void *arg)
{
	return axl_xioctl(fd, (unsigned long)request, arg);
}

/* Time of @clock_id (CLOCK_MONOTONIC = 1, CLOCK_PROCESS_CPUTIME_ID = 2, ...) in ns. */
int64_t axl_shim_clock_ns(int32_t clock_id)
{
	struct timespec ts;

	if (clock_gettime(clock_id, &ts))
		return -errno;
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}
