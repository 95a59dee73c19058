/* SPDX-License-Identifier: MIT */
/* Helpers shared by the shim's source files; not part of its API. */
#ifndef AXL_SHIM_PRIVATE_H
#define AXL_SHIM_PRIVATE_H

/*
 * ioctl() that returns -errno and retries when a signal interrupted it.
 * EAGAIN is returned, not retried: non-blocking V4L2 dequeues rely on it.
 */
int axl_xioctl(int fd, unsigned long req, void *arg);

#endif /* AXL_SHIM_PRIVATE_H */
