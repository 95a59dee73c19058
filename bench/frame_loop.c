// SPDX-License-Identifier: MIT
/*
 * frame_loop: the zero-copy frame loop written in C over libaxl_shim, the
 * baseline the Deno loops are compared with (bench/frame_loop_vm.ts).
 *
 * Per frame, over a ring of heap-allocated frames, with the shim calls the
 * typed API makes:
 *   core: import and submit (axl_shim_dev_import_submit) -> poll the fence
 *         and SYNC_IOC_FILE_INFO (axl_shim_fence_wait_info) -> close the
 *         fence and release (axl_shim_fence_close_release)
 *   full: core plus reading the result as lib/workload.ts does
 *         (axl_shim_result_read: DMA_BUF_SYNC start, decode with the
 *         histogram, DMA_BUF_SYNC end) before the fence is closed.
 *
 * After --warmup frames it measures --frames frames and prints one JSON
 * object: process user and system time (getrusage RUSAGE_SELF), the
 * calling thread's (RUSAGE_THREAD), CLOCK_PROCESS_CPUTIME_ID and wall time.
 * With --tracing-on PATH (a tracefs tracing_on file) it writes "1" there
 * just before the measured frames and "0" just after, so that a trace holds
 * exactly the measured window (bench/_utrace.ts turns it into user time).
 * Exit status: 0 measured, 1 a frame failed, 3 cannot run (no device...).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "axl_shim.h"

#define RING_MAX 16

struct opts {
	const char *device;
	const char *heap;
	const char *mode;
	const char *tracing_on;
	long frames;
	long warmup;
	long ring;
	unsigned int width;
	unsigned int height;
	unsigned int timeout_ms;
};

struct loop {
	int dev;
	int frames[RING_MAX];
	int result;
	uint64_t result_addr;
	uint64_t result_len;
	int full;
	uint32_t pixfmt;
	uint32_t to_device;
};

struct sample {
	struct rusage self;
	struct rusage thread;
	int64_t cpu_ns;
	int64_t wall_ns;
};

static int64_t tv_ns(struct timeval tv)
{
	return (int64_t)tv.tv_sec * 1000000000 + (int64_t)tv.tv_usec * 1000;
}

static void take(struct sample *s)
{
	getrusage(RUSAGE_SELF, &s->self);
	getrusage(RUSAGE_THREAD, &s->thread);
	s->cpu_ns = axl_shim_clock_ns(CLOCK_PROCESS_CPUTIME_ID);
	s->wall_ns = axl_shim_clock_ns(CLOCK_MONOTONIC);
}

static int fail(const char *what, int err)
{
	fprintf(stderr, "frame_loop: %s: %s\n", what, axl_shim_errno_name(-err));
	return err;
}

/* One frame; returns 0 or -errno. */
static int frame(struct loop *l, int buf_fd, const struct opts *o)
{
	struct axl_shim_frame_args a = {
		.dev = l->dev, .buf_fd = buf_fd, .width = o->width, .height = o->height,
		.pixfmt = l->pixfmt, .flags = l->to_device, .result_fd = l->result,
		.timeout_us = o->timeout_ms * 1000, .submit_flags = AXL_SHIM_SUBMIT_IMPLICIT_SYNC,
	};
	int64_t info[4], nums[12];
	uint32_t histogram[256];
	char name[96];
	int fence, ret, ret2;

	/* A failed submit has released the import again. */
	ret = axl_shim_dev_import_submit(&a);
	if (ret < 0)
		return fail(a.step == 1 ? "import" : "submit", ret);
	fence = (int)(int64_t)a.sub_out[0];
	ret = axl_shim_fence_wait_info(fence, (int)o->timeout_ms + 1000, info, name, sizeof(name));
	if (ret == 0)
		ret = -ETIMEDOUT;
	if (ret > 0 && info[0] != 1)
		ret = info[0] < 0 ? (int)info[0] : -EBUSY;
	if (ret < 0) {
		fail("fence", ret);
		goto close_fence;
	}
	if (l->full) {
		ret = axl_shim_result_read(l->result, l->result_addr, l->result_len, nums, histogram);
		if (ret < 0) {
			fail("result", ret);
			goto close_fence;
		}
		if ((uint64_t)nums[2] != a.sub_out[1]) {
			fprintf(stderr, "frame_loop: result seqno %lld, job %llu\n",
				(long long)nums[2], (unsigned long long)a.sub_out[1]);
			ret = -EBADMSG;
		}
	}
close_fence:
	ret2 = axl_shim_fence_close_release(fence, l->dev, a.handle);
	if (ret2 < 0 && ret >= 0)
		ret = fail("release", ret2);
	return ret < 0 ? ret : 0;
}

static int setup(struct loop *l, const struct opts *o)
{
	uint64_t frame_len = (uint64_t)o->width * o->height * 3 / 2;
	uint64_t addr;
	long i;
	int ret;

	l->pixfmt = (uint32_t)axl_shim_const("AXL_PIXFMT_NV12");
	l->to_device = (uint32_t)axl_shim_const("AXL_IMPORT_TO_DEVICE");
	l->dev = axl_shim_open(o->device, (int32_t)axl_shim_const("O_RDWR"));
	if (l->dev < 0)
		return fail(o->device, l->dev);
	for (i = 0; i < o->ring; i++) {
		l->frames[i] = axl_shim_heap_alloc(o->heap, frame_len,
						   (uint32_t)axl_shim_const("O_RDWR"), 0);
		if (l->frames[i] < 0)
			return fail("heap alloc (frame)", l->frames[i]);
		ret = axl_shim_mmap(l->frames[i], frame_len,
				    (int32_t)(axl_shim_const("PROT_READ") |
					      axl_shim_const("PROT_WRITE")), 0, &addr);
		if (ret < 0)
			return fail("mmap (frame)", ret);
		/* A different gradient per buffer, then no CPU mapping, as HeapProducer. */
		for (uint64_t b = 0; b < frame_len; b++)
			((unsigned char *)(uintptr_t)addr)[b] = (unsigned char)(b * 7 + (uint64_t)i * 53);
		axl_shim_munmap(addr, frame_len);
	}
	l->result_len = (uint64_t)axl_shim_const("sizeof_axl_result");
	l->result = axl_shim_heap_alloc(o->heap, l->result_len,
					(uint32_t)axl_shim_const("O_RDWR"), 0);
	if (l->result < 0)
		return fail("heap alloc (result)", l->result);
	ret = axl_shim_mmap(l->result, l->result_len, (int32_t)axl_shim_const("PROT_READ"), 0,
			    &l->result_addr);
	if (ret < 0)
		return fail("mmap (result)", ret);
	return 0;
}

static void print_json(const struct opts *o, const struct sample *a, const struct sample *b)
{
	printf("{\"impl\":\"c\",\"mode\":\"%s\",\"frames\":%ld,\"warmup\":%ld,\"pid\":%d,"
	       "\"utimeNs\":%lld,\"stimeNs\":%lld,\"threadUtimeNs\":%lld,"
	       "\"threadStimeNs\":%lld,\"cpuNs\":%lld,\"wallNs\":%lld}\n",
	       o->mode, o->frames, o->warmup, (int)getpid(),
	       (long long)(tv_ns(b->self.ru_utime) - tv_ns(a->self.ru_utime)),
	       (long long)(tv_ns(b->self.ru_stime) - tv_ns(a->self.ru_stime)),
	       (long long)(tv_ns(b->thread.ru_utime) - tv_ns(a->thread.ru_utime)),
	       (long long)(tv_ns(b->thread.ru_stime) - tv_ns(a->thread.ru_stime)),
	       (long long)(b->cpu_ns - a->cpu_ns), (long long)(b->wall_ns - a->wall_ns));
}

static long number(const char *flag, const char *v, long min, long max)
{
	char *end;
	long n;

	errno = 0;
	n = strtol(v, &end, 10);
	if (errno || *end || n < min || n > max) {
		fprintf(stderr, "frame_loop: %s wants an integer in %ld..%ld, got '%s'\n",
			flag, min, max, v);
		exit(3);
	}
	return n;
}

static void parse(struct opts *o, int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		const char *f = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!v) {
			fprintf(stderr, "frame_loop: %s needs a value\n", f);
			exit(3);
		}
		if (!strcmp(f, "--device"))
			o->device = v;
		else if (!strcmp(f, "--heap"))
			o->heap = v;
		else if (!strcmp(f, "--mode"))
			o->mode = v;
		else if (!strcmp(f, "--tracing-on"))
			o->tracing_on = v;
		else if (!strcmp(f, "--frames"))
			o->frames = number(f, v, 1, 100000000);
		else if (!strcmp(f, "--warmup"))
			o->warmup = number(f, v, 0, 100000000);
		else if (!strcmp(f, "--ring"))
			o->ring = number(f, v, 1, RING_MAX);
		else if (!strcmp(f, "--width"))
			o->width = (unsigned int)number(f, v, 2, 8192);
		else if (!strcmp(f, "--height"))
			o->height = (unsigned int)number(f, v, 2, 8192);
		else if (!strcmp(f, "--timeout-ms"))
			o->timeout_ms = (unsigned int)number(f, v, 1, 10000);
		else {
			fprintf(stderr, "frame_loop: unknown option %s\n", f);
			exit(3);
		}
		i++;
	}
	if (strcmp(o->mode, "core") && strcmp(o->mode, "full")) {
		fprintf(stderr, "frame_loop: --mode is core or full, got '%s'\n", o->mode);
		exit(3);
	}
}

int main(int argc, char **argv)
{
	struct opts o = {
		.device = "/dev/axl", .heap = "system", .mode = "full", .frames = 500,
		.warmup = 50, .ring = 3, .width = 640, .height = 480, .timeout_ms = 2000,
	};
	struct loop l = { .dev = -1, .result = -1 };
	struct sample a, b;
	int trace_fd = -1;
	long i;

	parse(&o, argc, argv);
	l.full = !strcmp(o.mode, "full");
	if (axl_shim_api_version() != AXL_SHIM_API_VERSION) {
		fprintf(stderr, "frame_loop: libaxl_shim API %d, built for %d\n",
			axl_shim_api_version(), AXL_SHIM_API_VERSION);
		return 3;
	}
	/* The process exits right after: the kernel closes every fd and mapping. */
	if (setup(&l, &o) < 0)
		return 3;
	if (o.tracing_on) {
		trace_fd = open(o.tracing_on, O_WRONLY | O_CLOEXEC);
		if (trace_fd < 0) {
			perror(o.tracing_on);
			return 3;
		}
	}
	for (i = 0; i < o.warmup; i++)
		if (frame(&l, l.frames[i % o.ring], &o) < 0)
			return 1;
	if (trace_fd >= 0 && write(trace_fd, "1", 1) != 1)
		return 3;
	take(&a);
	for (i = 0; i < o.frames; i++)
		if (frame(&l, l.frames[i % o.ring], &o) < 0)
			return 1;
	take(&b);
	if (trace_fd >= 0 && write(trace_fd, "0", 1) != 1)
		return 3;
	print_json(&o, &a, &b);
	return 0;
}
