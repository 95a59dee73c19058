// SPDX-License-Identifier: MIT
/*
 * The floor of reading a trace through FFI: a file's newlines counted in C (read(2) into one
 * buffer, memchr), called once from Deno by bench/trace_analysis.ts (stage c-lines). A scanner
 * written in C and called this way would start from this cost instead of from Deno's.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#define CHUNK (1 << 20)

static char buf[CHUNK];

/* Newlines in the file at `path`, or -errno. */
int64_t line_count(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int64_t lines = 0;
	ssize_t n;

	if (fd < 0)
		return -errno;
	while ((n = read(fd, buf, CHUNK)) > 0) {
		const char *p = buf, *end = buf + n;

		while ((p = memchr(p, '\n', (size_t)(end - p))) != NULL) {
			lines++;
			p++;
		}
	}
	if (n < 0)
		lines = -errno;
	close(fd);
	return lines;
}
