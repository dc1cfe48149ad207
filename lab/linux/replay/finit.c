// SPDX-License-Identifier: GPL-2.0
/*
 * finit.c - the replay initramfs's module loader: one finit_module() call.
 * busybox's insmod calls init_module() again when finit_module() fails, and
 * quarry_replay.ko always fails its load (it unloads itself after the
 * replay): under busybox the replay would run twice.
 *   finit MODULE.ko "PARAMS"   exit 0 if it loaded, else the errno's number
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int fd;

	if (argc != 3) {
		fprintf(stderr, "usage: finit MODULE.ko \"PARAMS\"\n");
		return 2;
	}
	fd = open(argv[1], O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "finit: %s: %s\n", argv[1], strerror(errno));
		return 2;
	}
	if (syscall(SYS_finit_module, fd, argv[2], 0)) {
		int e = errno;

		fprintf(stderr, "finit: %s: %s (errno %d)\n", argv[1], strerror(e), e);
		return e & 0xff ? e & 0xff : 1;
	}
	return 0;
}
