// SPDX-License-Identifier: MIT
/*
 * ffi_calls: the per-call cost of libaxl_shim functions called from C, the
 * baseline of bench/ffi_calls.ts (the same calls from Deno, same harness).
 *
 *   ffi_calls [--batches B] [--calls K] [--device PATH] CALL...
 *
 * CALL is one of
 *   api_version   axl_shim_api_version(): a call that does nothing
 *   clock_ns      axl_shim_clock_ns(CLOCK_MONOTONIC): vDSO, no system call
 *   ioctl_null    axl_shim_ioctl(/dev/null, AXL_IOCTL_GET_INFO, buf): one
 *                 system call that fails with ENOTTY
 *   dev_info      axl_shim_dev_info(/dev/axl): AXL_IOCTL_GET_INFO on the driver
 *   close_badf    axl_shim_close(-1): a system call failing with EBADF (int args)
 *   sync_badf     axl_shim_dmabuf_sync(-1, flags): the same with a uint64_t argument
 *
 * For each CALL it times B batches of K calls with CLOCK_MONOTONIC and prints
 * one JSON line with the per-call ns of every batch. With --tracing-on PATH
 * (a tracefs tracing_on file) it writes "1" there before the measured
 * batches and "0" after, as bench/frame_loop.c does.
 * Exit status: 0 measured, 3 cannot run.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "axl_shim.h"

/* Keeps the compiler from dropping calls whose result is unused. */
static volatile int64_t sink;

static int64_t now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

struct ctx {
	int null_fd;
	int dev_fd;
	uint64_t get_info;
	uint64_t sync_flags;
	unsigned char arg[256];
	uint64_t nums[6];
	char strings[128];
};

static int64_t run_batch(const char *call, struct ctx *c, long k)
{
	int64_t t0 = now();
	long i;

	if (!strcmp(call, "api_version")) {
		for (i = 0; i < k; i++)
			sink += axl_shim_api_version();
	} else if (!strcmp(call, "clock_ns")) {
		for (i = 0; i < k; i++)
			sink += axl_shim_clock_ns(CLOCK_MONOTONIC);
	} else if (!strcmp(call, "close_badf")) {
		for (i = 0; i < k; i++)
			sink += axl_shim_close(-1);
	} else if (!strcmp(call, "sync_badf")) {
		for (i = 0; i < k; i++)
			sink += axl_shim_dmabuf_sync(-1, c->sync_flags);
	} else if (!strcmp(call, "ioctl_null")) {
		for (i = 0; i < k; i++)
			sink += axl_shim_ioctl(c->null_fd, c->get_info, c->arg);
	} else {
		for (i = 0; i < k; i++)
			sink += axl_shim_dev_info(c->dev_fd, c->nums, c->strings, sizeof(c->strings));
	}
	return now() - t0;
}

static long number(const char *flag, const char *v)
{
	char *end;
	long n;

	errno = 0;
	n = strtol(v, &end, 10);
	if (errno || *end || n < 1 || n > 100000000) {
		fprintf(stderr, "ffi_calls: %s wants a positive integer, got '%s'\n", flag, v);
		exit(3);
	}
	return n;
}

static int known(const char *call)
{
	return !strcmp(call, "api_version") || !strcmp(call, "clock_ns") ||
	       !strcmp(call, "ioctl_null") || !strcmp(call, "dev_info") ||
	       !strcmp(call, "close_badf") || !strcmp(call, "sync_badf");
}

int main(int argc, char **argv)
{
	struct ctx c = { .null_fd = -1, .dev_fd = -1 };
	const char *device = "/dev/axl", *tracing_on = NULL;
	long batches = 31, k = 100000;
	int i, first = 0, trace_fd = -1;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--batches") && i + 1 < argc)
			batches = number(argv[i], argv[i + 1]), i++;
		else if (!strcmp(argv[i], "--calls") && i + 1 < argc)
			k = number(argv[i], argv[i + 1]), i++;
		else if (!strcmp(argv[i], "--device") && i + 1 < argc)
			device = argv[++i];
		else if (!strcmp(argv[i], "--tracing-on") && i + 1 < argc)
			tracing_on = argv[++i];
		else if (known(argv[i]))
			first = first ? first : i;
		else {
			fprintf(stderr, "ffi_calls: unknown argument '%s'\n", argv[i]);
			return 3;
		}
	}
	if (!first) {
		fprintf(stderr, "ffi_calls: name at least one call (api_version clock_ns ioctl_null "
			"dev_info close_badf sync_badf)\n");
		return 3;
	}
	c.get_info = (uint64_t)axl_shim_const("AXL_IOCTL_GET_INFO");
	c.sync_flags = (uint64_t)(axl_shim_const("DMA_BUF_SYNC_START") |
				  axl_shim_const("DMA_BUF_SYNC_READ"));
	c.null_fd = axl_shim_open("/dev/null", (int32_t)axl_shim_const("O_RDWR"));
	if (c.null_fd < 0) {
		fprintf(stderr, "ffi_calls: /dev/null: %s\n", axl_shim_errno_name(-c.null_fd));
		return 3;
	}
	if (tracing_on) {
		trace_fd = open(tracing_on, O_WRONLY | O_CLOEXEC);
		if (trace_fd < 0) {
			perror(tracing_on);
			return 3;
		}
	}
	for (i = first; i < argc; i++) {
		const char *call = argv[i];
		long b;

		if (!known(call))
			continue;
		if (!strcmp(call, "dev_info") && c.dev_fd < 0) {
			c.dev_fd = axl_shim_open(device, (int32_t)axl_shim_const("O_RDWR"));
			if (c.dev_fd < 0) {
				fprintf(stderr, "ffi_calls: %s: %s\n", device,
					axl_shim_errno_name(-c.dev_fd));
				return 3;
			}
		}
		double *ns = calloc((size_t)batches, sizeof(*ns));

		if (!ns)
			return 3;
		run_batch(call, &c, k); /* warm-up */
		if (trace_fd >= 0 && write(trace_fd, "1", 1) != 1)
			return 3;
		for (b = 0; b < batches; b++)
			ns[b] = (double)run_batch(call, &c, k) / (double)k;
		if (trace_fd >= 0 && write(trace_fd, "0", 1) != 1)
			return 3;
		printf("{\"impl\":\"c\",\"call\":\"%s\",\"calls\":%ld,\"pid\":%d,\"perCallNs\":[",
		       call, k, (int)getpid());
		for (b = 0; b < batches; b++)
			printf("%s%.3f", b ? "," : "", ns[b]);
		printf("]}\n");
		free(ns);
	}
	return 0;
}
