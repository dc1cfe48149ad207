/*
 * patterns.c - known sharing patterns for the coherence plugin's tests: N
 * threads take turns (a token passed round, so the interleaving is the same
 * on every machine), each turn doing one access of the chosen kind to its
 * data, R rounds. It prints the address of each data line so that a test
 * can find them in the plugin's report.
 *
 *   patterns private|false|true|read N R
 *     private  each thread stores to its own line: nothing should move
 *     false    each thread stores to its own word of one shared line
 *     true     each thread adds one to one shared counter (an atomic)
 *     read     each thread loads one line that nobody stores to
 *
 * Expected, inside the window: false and true move the shared line
 * N*R-1 times (every turn but the first finds it in another thread's
 * cache); private and read move no data line.
 */
#include <linux/futex.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define MAX_THREADS 16

struct padded {
	uint64_t word __attribute__((aligned(64)));
};

static struct padded own[MAX_THREADS];		/* private: a line each */
static uint64_t shared_words[8] __attribute__((aligned(64)));	/* false: one line */
static struct padded counter;			/* true */
static struct padded readonly = {.word = 42};	/* read */
static struct padded go[MAX_THREADS];		/* the token: go[i] set, thread i's turn */
static unsigned int nthreads, rounds;
static const char *mode;

/* The window the plugin counts in: marker functions it finds by name. */
__attribute__((noinline)) void wl_window_begin(void) { __asm__ __volatile__("" ::: "memory"); }
__attribute__((noinline)) void wl_window_end(void) { __asm__ __volatile__("" ::: "memory"); }

static void wait_turn(unsigned int me)
{
	while (!__atomic_load_n(&go[me].word, __ATOMIC_ACQUIRE))
		syscall(SYS_futex, &go[me].word, FUTEX_WAIT_PRIVATE, 0, NULL, NULL, 0);
	__atomic_store_n(&go[me].word, 0, __ATOMIC_RELAXED);
}

static void pass_turn(unsigned int me)
{
	unsigned int next = (me + 1) % nthreads;

	__atomic_store_n(&go[next].word, 1, __ATOMIC_RELEASE);
	syscall(SYS_futex, &go[next].word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

static void *thread_main(void *arg)
{
	unsigned int me = (unsigned int)(uintptr_t)arg;
	volatile uint64_t sink = 0; /* on this thread's stack */

	wl_window_begin();
	for (unsigned int r = 0; r < rounds; r++) {
		wait_turn(me);
		if (!strcmp(mode, "private"))
			*(volatile uint64_t *)&own[me].word += 1;
		else if (!strcmp(mode, "false"))
			*(volatile uint64_t *)&shared_words[me % 8] = r;
		else if (!strcmp(mode, "true"))
			__atomic_fetch_add(&counter.word, 1, __ATOMIC_RELAXED);
		else
			sink = *(volatile uint64_t *)&readonly.word;
		pass_turn(me);
	}
	wl_window_end();
	return (void *)(uintptr_t)sink;
}

int main(int argc, char **argv)
{
	pthread_t t[MAX_THREADS];

	if (argc != 4 || (strcmp(argv[1], "private") && strcmp(argv[1], "false") &&
			  strcmp(argv[1], "true") && strcmp(argv[1], "read"))) {
		fprintf(stderr, "usage: patterns private|false|true|read THREADS ROUNDS\n");
		return 2;
	}
	mode = argv[1];
	nthreads = (unsigned int)atoi(argv[2]);
	rounds = (unsigned int)atoi(argv[3]);
	if (nthreads < 1 || nthreads > MAX_THREADS || rounds < 1) {
		fprintf(stderr, "patterns: THREADS from 1 to %d, ROUNDS at least 1\n", MAX_THREADS);
		return 2;
	}
	for (unsigned int i = 0; i < nthreads; i++)
		printf("data private %u %p\n", i, (void *)&own[i]);
	printf("data false 0 %p\n", (void *)shared_words);
	printf("data true 0 %p\n", (void *)&counter);
	printf("data read 0 %p\n", (void *)&readonly);
	fflush(stdout);
	go[0].word = 1;
	for (unsigned int i = 0; i < nthreads; i++)
		pthread_create(&t[i], NULL, thread_main, (void *)(uintptr_t)i);
	for (unsigned int i = 0; i < nthreads; i++)
		pthread_join(t[i], NULL);
	return 0;
}
