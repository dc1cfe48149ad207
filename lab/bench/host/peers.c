/*
 * peers.c - loading the user-space allocators the host workloads compare with
 * (see peers.h). Each library is tried under its Debian run-time name first,
 * then the development symlink.
 */
#include "peers.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#else
#define RUNNING_ON_VALGRIND 0
#endif

void *(*peer_je_mallocx)(size_t size, int flags);
void (*peer_je_dallocx)(void *p, int flags);
void *(*peer_tc_malloc)(size_t size);
void (*peer_tc_free)(void *p);
void *(*peer_mi_malloc)(size_t size);
void (*peer_mi_free)(void *p);

/* The first of names that dlopen accepts; its name goes to *which. */
static void *open_first(const char *const *names, const char **which)
{
	for (; *names; names++) {
		void *h = dlopen(*names, RTLD_NOW | RTLD_LOCAL);

		if (h) {
			*which = *names;
			return h;
		}
	}
	return NULL;
}

static bool open_jemalloc(char *how, size_t len)
{
	static const char *const names[] = {"libjemalloc.so.2", "libjemalloc.so", NULL};
	const char *lib = NULL, *ver = NULL;
	size_t vlen = sizeof(ver);
	void *h = open_first(names, &lib);
	int (*ctl)(const char *, void *, size_t *, void *, size_t);

	if (!h) {
		snprintf(how, len, "not available (%s)", dlerror());
		return false;
	}
	peer_je_mallocx = (void *(*)(size_t, int))dlsym(h, "mallocx");
	peer_je_dallocx = (void (*)(void *, int))dlsym(h, "dallocx");
	if (!peer_je_mallocx || !peer_je_dallocx) {
		peer_je_mallocx = NULL;
		peer_je_dallocx = NULL;
		snprintf(how, len, "not available (%s has no mallocx/dallocx)", lib);
		return false;
	}
	ctl = (int (*)(const char *, void *, size_t *, void *, size_t))dlsym(h, "mallctl");
	if (ctl && ctl("version", &ver, &vlen, NULL, 0))
		ver = NULL;
	snprintf(how, len, "dlopen(\"%s\", RTLD_LOCAL), mallocx(size, 0)/dallocx(p, 0)%s%s", lib,
		 ver ? "; version " : "", ver ? ver : "");
	return true;
}

static bool open_tcmalloc(char *how, size_t len)
{
	static const char *const names[] = {"libtcmalloc_minimal.so.4", "libtcmalloc_minimal.so",
					    "libtcmalloc.so.4", NULL};
	const char *lib = NULL;
	void *h = open_first(names, &lib);
	const char *(*ver)(int *, int *, const char **);

	if (!h) {
		snprintf(how, len, "not available (%s)", dlerror());
		return false;
	}
	peer_tc_malloc = (void *(*)(size_t))dlsym(h, "tc_malloc");
	peer_tc_free = (void (*)(void *))dlsym(h, "tc_free");
	if (!peer_tc_malloc || !peer_tc_free) {
		peer_tc_malloc = NULL;
		peer_tc_free = NULL;
		snprintf(how, len, "not available (%s has no tc_malloc/tc_free)", lib);
		return false;
	}
	ver = (const char *(*)(int *, int *, const char **))dlsym(h, "tc_version");
	snprintf(how, len, "dlopen(\"%s\", RTLD_LOCAL), tc_malloc/tc_free%s%s", lib,
		 ver ? "; " : "", ver ? ver(NULL, NULL, NULL) : "");
	return true;
}

static bool open_mimalloc(char *how, size_t len)
{
	static const char *const names[] = {"libmimalloc.so.2", "libmimalloc.so", NULL};
	const char *lib = NULL;
	void *h = open_first(names, &lib);
	int (*ver)(void);
	int v;

	if (!h) {
		snprintf(how, len, "not available (%s)", dlerror());
		return false;
	}
	peer_mi_malloc = (void *(*)(size_t))dlsym(h, "mi_malloc");
	peer_mi_free = (void (*)(void *))dlsym(h, "mi_free");
	if (!peer_mi_malloc || !peer_mi_free) {
		peer_mi_malloc = NULL;
		peer_mi_free = NULL;
		snprintf(how, len, "not available (%s has no mi_malloc/mi_free)", lib);
		return false;
	}
	ver = (int (*)(void))dlsym(h, "mi_version");
	v = ver ? ver() : 0;
	snprintf(how, len, "dlopen(\"%s\", RTLD_LOCAL), mi_malloc/mi_free; version %d.%d.%d", lib,
		 v / 100, v / 10 % 10, v % 10);
	return true;
}

/* peer_open: see peers.h. */
bool peer_open(const char *key, char *how, size_t len)
{
	if (!strcmp(key, "jemalloc"))
		return open_jemalloc(how, len);
	if (!strcmp(key, "tcmalloc"))
		return open_tcmalloc(how, len);
	if (!strcmp(key, "mimalloc"))
		return open_mimalloc(how, len);
	snprintf(how, len, "unknown allocator '%s'", key);
	return false;
}

/*
 * The command line the process was started with, from /proc/self/cmdline:
 * where a dynamic loader was run explicitly ("ld-linux-x86-64.so.2
 * --library-path lib prog ..."), /proc/self/exe is the loader, and the
 * loader's own words come first here but not in main's argv. NULL-ended
 * array in static storage; NULL when the file cannot be read whole.
 */
static char **started_cmdline(void)
{
	static char text[65536];
	static char *words[1024];
	unsigned int n = 0;
	size_t len = 0;
	ssize_t got;
	int fd = open("/proc/self/cmdline", O_RDONLY);

	if (fd < 0)
		return NULL;
	while ((got = read(fd, text + len, sizeof(text) - 1 - len)) > 0)
		len += (size_t)got;
	close(fd);
	if (got < 0 || len == 0 || len >= sizeof(text) - 1)
		return NULL;
	text[len] = '\0';
	for (size_t i = 0; i < len && n < sizeof(words) / sizeof(words[0]) - 1; i += strlen(text + i) + 1)
		words[n++] = text + i;
	words[n] = NULL;
	return n ? words : NULL;
}

/* peer_static_tls: see peers.h. */
void peer_static_tls(char **argv)
{
	const char *t = getenv("GLIBC_TUNABLES");
	char buf[512], **cmd;

	if (RUNNING_ON_VALGRIND || (t && strstr(t, "glibc.rtld.optional_static_tls")))
		return;
	cmd = started_cmdline();
	snprintf(buf, sizeof(buf), "%s%sglibc.rtld.optional_static_tls=65536", t ? t : "",
		 t ? ":" : "");
	setenv("GLIBC_TUNABLES", buf, 1);
	execv("/proc/self/exe", cmd ? cmd : argv);
	perror("workloads: re-exec with GLIBC_TUNABLES");
}
