/*
 * convert_input.c - open a recorded trace for the converter: plain text as
 * it is, gzip and xz (told by their magic bytes, not the name) through
 * "gzip -dc" and "xz -dc" in a child process, whose exit status says
 * whether the compressed file was whole.
 */
#include "convert.h"
#include "qtrace.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static pid_t decomp_pid;
static const char *decomp_tool;

/* open_input: see convert.h. */
FILE *open_input(const char *path)
{
	unsigned char m[8] = {0};
	FILE *f = fopen(path, "rb");
	size_t n;
	int fd[2];

	if (!f) {
		fprintf(stderr, "convert: cannot open %s: %s\n", path, strerror(errno));
		exit(1);
	}
	n = fread(m, 1, sizeof(m), f);
	if (n == 8 && !memcmp(m, QTR_MAGIC, 8)) {
		fprintf(stderr, "convert: %s is a converted Quarry trace already: give it to the replay as it is\n",
			path);
		exit(1);
	}
	if (n >= 2 && m[0] == 0x1f && m[1] == 0x8b)
		decomp_tool = "gzip";
	else if (n >= 6 && !memcmp(m, "\xfd" "7zXZ\0", 6))
		decomp_tool = "xz";
	if (!decomp_tool) {
		rewind(f);
		return f;
	}
	fclose(f);
	if (pipe(fd)) {
		perror("convert: pipe");
		exit(1);
	}
	decomp_pid = fork();
	if (decomp_pid < 0) {
		perror("convert: fork");
		exit(1);
	}
	if (!decomp_pid) {
		dup2(fd[1], 1);
		close(fd[0]);
		close(fd[1]);
		execlp(decomp_tool, decomp_tool, "-dc", "--", path, (char *)NULL);
		fprintf(stderr, "convert: cannot run %s to read %s: %s\n", decomp_tool, path, strerror(errno));
		_exit(127);
	}
	close(fd[1]);
	f = fdopen(fd[0], "rb");
	if (!f) {
		perror("convert: fdopen");
		exit(1);
	}
	return f;
}

/* check_decompressor: see convert.h. */
void check_decompressor(const char *in_name, unsigned long lineno)
{
	int status;

	if (!decomp_pid)
		return;
	if (waitpid(decomp_pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "convert: %s: '%s -dc' failed after line %lu: the compressed file is "
			"corrupt or truncated\n", in_name, decomp_tool, lineno);
		exit(1);
	}
	decomp_pid = 0;
}
