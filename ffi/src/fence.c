// SPDX-License-Identifier: MIT
/* sync_file fences (linux/sync_file.h): waiting and status. */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <linux/sync_file.h>

#include "axl_shim.h"

/*
 * Waits until @fd is readable (a sync_file is readable once signalled).
 * Returns 1 when ready, 0 on timeout (-1 waits forever), -errno on error.
 * Interrupted waits are retried: the caller's timeout is a bound, not exact.
 */
int32_t axl_shim_poll_in(int32_t fd, int32_t timeout_ms)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	int ret;

	do {
		ret = poll(&pfd, 1, timeout_ms);
	} while (ret < 0 && errno == EINTR);
	if (ret < 0)
		return -errno;
	if (ret == 0)
		return 0;
	if (pfd.revents & POLLNVAL)
		return -EBADF;
	return 1;
}

/*
 * SYNC_IOC_FILE_INFO. out[0] = status (1 signalled, 0 active, <0 error),
 * out[1] = number of fences, out[2] = latest signal timestamp in ns
 * (CLOCK_MONOTONIC, 0 while any fence is active), out[3] = status of the
 * first fence. @name receives "driver:timeline" of the first fence.
 */
int32_t axl_shim_fence_info(int32_t fd, int64_t *out, char *name, uint64_t name_len)
{
	struct sync_file_info info;
	struct sync_fence_info *fences;
	uint64_t latest = 0;
	uint32_t i;
	int ret;

	if (!out)
		return -EINVAL;
	memset(&info, 0, sizeof(info));
	if (ioctl(fd, SYNC_IOC_FILE_INFO, &info) < 0)
		return -errno;
	out[0] = info.status;
	out[1] = info.num_fences;
	out[2] = 0;
	out[3] = 0;
	if (!info.num_fences)
		return 0;

	fences = calloc(info.num_fences, sizeof(*fences));
	if (!fences)
		return -ENOMEM;
	info.sync_fence_info = (uint64_t)(uintptr_t)fences;
	ret = ioctl(fd, SYNC_IOC_FILE_INFO, &info) < 0 ? -errno : 0;
	if (!ret) {
		for (i = 0; i < info.num_fences; i++)
			if (fences[i].timestamp_ns > latest)
				latest = fences[i].timestamp_ns;
		out[0] = info.status;
		out[2] = info.status == 1 ? (int64_t)latest : 0;
		out[3] = fences[0].status;
		if (name && name_len)
			snprintf(name, name_len, "%s:%s", fences[0].driver_name, fences[0].obj_name);
	}
	free(fences);
	return ret;
}
