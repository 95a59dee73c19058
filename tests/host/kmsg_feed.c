// SPDX-License-Identifier: GPL-2.0
/*
 * Feeds a kernel log, one record a line, to the C tests' kmsg_scan_splats()
 * (tests/device/c/axl_util.c) as /dev/kmsg would: a SOCK_SEQPACKET socket
 * keeps each record whole. Prints the count and the first splat.
 *
 *   kmsg_feed LOG
 */
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "axl_util.h"

int main(int argc, char **argv)
{
	char line[8192], first[1024];
	int sv[2], hits;
	pid_t child;

	if (argc != 2 || socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv))
		return 2;
	child = fork();
	if (child < 0)
		return 2;
	if (!child) {
		FILE *log = fopen(argv[1], "r");

		close(sv[0]);
		while (log && fgets(line, sizeof(line), log))
			if (write(sv[1], line, strlen(line)) < 0)
				_exit(2);
		_exit(log ? 0 : 2);
	}
	close(sv[1]);
	hits = kmsg_scan_splats(sv[0], first, sizeof(first));
	waitpid(child, NULL, 0);
	printf("%d\n%s", hits, first);
	return 0;
}
