// SPDX-License-Identifier: MIT
/*
 * Argus entry points for builds without the Jetson Multimedia API: every
 * call fails with -ENOSYS so that callers report "not available on this
 * machine" instead of pretending to capture. ffi/build.sh links
 * src/argus.cpp instead when the Multimedia API headers are present.
 */
#include <errno.h>

#include "axl_shim.h"

int32_t axl_shim_argus_available(void)
{
	return -ENOSYS;
}

int32_t axl_shim_argus_open(uint32_t sensor, uint32_t width, uint32_t height)
{
	(void)sensor;
	(void)width;
	(void)height;
	return -ENOSYS;
}

int32_t axl_shim_argus_acquire_fd(int32_t session, int32_t timeout_ms, uint64_t *out)
{
	(void)session;
	(void)timeout_ms;
	(void)out;
	return -ENOSYS;
}

int32_t axl_shim_argus_release(int32_t session, uint32_t slot)
{
	(void)session;
	(void)slot;
	return -ENOSYS;
}

int32_t axl_shim_argus_close(int32_t session)
{
	(void)session;
	return -ENOSYS;
}
