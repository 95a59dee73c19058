/* SPDX-License-Identifier: MIT */
/* Helpers shared by the shim's source files; not part of its API. */
#ifndef AXL_SHIM_PRIVATE_H
#define AXL_SHIM_PRIVATE_H

#include <stdint.h>

/*
 * ioctl() that returns -errno and retries when a signal interrupted it.
 * EAGAIN is returned, not retried: non-blocking V4L2 dequeues rely on it.
 */
int axl_xioctl(int fd, unsigned long req, void *arg);

/*
 * implicit_sync.c: a job's fence published with DMA_BUF_IOCTL_IMPORT_SYNC_FILE
 * into its result (write; not when the driver of @dev did it,
 * AXL_CAP_IMPLICIT_SYNC) and input (read; not when the driver did it,
 * AXL_CAP_IMPLICIT_SYNC_INPUT; skipped when @input_fd < 0).
 * Returns 1, -ENOTTY (the kernel lacks the ioctl) or -errno with *@step 1
 * (result) or 2 (input).
 */
int axl_publish_job_fence(int32_t dev, int32_t fence_fd, int32_t input_fd, int32_t result_fd,
			  int32_t *step);

#endif /* AXL_SHIM_PRIVATE_H */
