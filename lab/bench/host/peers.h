/*
 * peers.h - the user-space allocators the host workloads (workloads.c) compare
 * Quarry with: jemalloc, tcmalloc and mimalloc, dlopen'ed with RTLD_LOCAL so
 * that none of them replaces the process's malloc (glibc's, the fourth peer,
 * which Quarry's host shim and the benchmark itself also use).
 */
#ifndef BENCH_HOST_PEERS_H
#define BENCH_HOST_PEERS_H

#include <stdbool.h>
#include <stddef.h>

/* Set by peer_open(); NULL until the library is opened. */
extern void *(*peer_je_mallocx)(size_t size, int flags);
extern void (*peer_je_dallocx)(void *p, int flags);
extern void *(*peer_tc_malloc)(size_t size);
extern void (*peer_tc_free)(void *p);
extern void *(*peer_mi_malloc)(size_t size);
extern void (*peer_mi_free)(void *p);

/*
 * peer_open - load the allocator named key ("jemalloc", "tcmalloc" or
 * "mimalloc") and set its two pointers above. Writes to how (len bytes) the
 * library, the entry points and the version when it could be loaded, or why
 * not. Returns false (pointers left NULL) when the library or a symbol is
 * missing or key is unknown. Nothing to free: the library stays loaded.
 */
bool peer_open(const char *key, char *how, size_t len);

/*
 * peer_static_tls - re-execute the program with glibc's static TLS surplus
 * raised (glibc.rtld.optional_static_tls), which jemalloc's initial-exec TLS
 * needs when it is dlopen'ed, with the command line it was started with
 * (the dynamic loader and its options first, where one was run explicitly;
 * argv where /proc/self/cmdline cannot be read). Returns when the tunable
 * is already set or under valgrind (the run script sets it there), or if
 * the exec failed (reported; the peers that need it will then fail to
 * load).
 */
void peer_static_tls(char **argv);

#endif
