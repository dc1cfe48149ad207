/*
 * marker.h - the marks that open and close a region the cache model counts
 * (tools/cachemodel/). MODEL_BEGIN(id) and MODEL_END(id), id 0..255, each
 * compile to one instruction that does nothing on hardware and that the
 * model's plugin recognises by its bytes when QEMU translates it:
 *   x86_64: nopl 0x5152<op><id>(%rax)  (0f 1f 80 + a 32-bit displacement;
 *           compilers pad with nopl 0x0(%rax), never with this value)
 *   arm64:  movz xzr, #(<op> << 8 | <id>), lsl #32  (a write to the zero
 *           register, discarded; compilers never emit it)
 * with op 1 to begin and 2 to end. Regions nest (up to eight deep); an
 * access counts in every open region and, per function, in the innermost.
 * Without the plugin the marks cost one no-op instruction each.
 */
#ifndef TOOLS_CACHEMODEL_MARKER_H
#define TOOLS_CACHEMODEL_MARKER_H

#define MODEL_OP_BEGIN	1
#define MODEL_OP_END	2
#define MODEL_MAGIC	0x5152u
#define MODEL_CODE(op, id)	((((unsigned)(op)) << 8) | ((unsigned)(id) & 0xffu))

/* The 32-bit displacement of the x86_64 form and the arm64 instruction word. */
#define MODEL_X86_DISP(op, id)	((MODEL_MAGIC << 16) | MODEL_CODE(op, id))
#define MODEL_ARM64_BASE	0xd2c0001fu	/* movz xzr, #0, lsl #32 */
#define MODEL_ARM64_MASK	0xffe0001fu
#define MODEL_ARM64_INSN(op, id)	(MODEL_ARM64_BASE | (MODEL_CODE(op, id) << 5))

#if defined(__x86_64__)
#define MODEL_MARK(op, id) \
	__asm__ volatile(".byte 0x0f, 0x1f, 0x80\n\t.long %c0" \
			 : : "i"(MODEL_X86_DISP(op, id)) : "memory")
#elif defined(__aarch64__)
#define MODEL_MARK(op, id) \
	__asm__ volatile(".inst %c0" : : "i"(MODEL_ARM64_INSN(op, id)) : "memory")
#else
#define MODEL_MARK(op, id) __asm__ volatile("" : : : "memory")
#endif

/*
 * MODEL_BEGIN_CYCLES(id, v) and MODEL_END_CYCLES(id, v): the kernel's cycle
 * counter read into v (as arch_cycles() reads it) fused with a mark in one
 * asm statement, the mark just outside the read, so that no instruction
 * falls between them: a span timed from one to the other is region id's
 * pass with one counter read more, and the marks add nothing to the figure.
 * Kernel only (x86_64 rdtsc, arm64 isb + PMCCNTR_EL0).
 */
#if defined(__x86_64__)
#define MODEL_BEGIN_CYCLES(id, v) do {						\
	uint32_t lo_, hi_;							\
	__asm__ volatile(".byte 0x0f, 0x1f, 0x80\n\t.long %c2\n\trdtsc"	\
			 : "=a"(lo_), "=d"(hi_)					\
			 : "i"(MODEL_X86_DISP(MODEL_OP_BEGIN, id)) : "memory");	\
	(v) = ((uint64_t)hi_ << 32) | lo_;					\
} while (0)
#define MODEL_END_CYCLES(id, v) do {						\
	uint32_t lo_, hi_;							\
	__asm__ volatile("rdtsc\n\t.byte 0x0f, 0x1f, 0x80\n\t.long %c2"	\
			 : "=a"(lo_), "=d"(hi_)					\
			 : "i"(MODEL_X86_DISP(MODEL_OP_END, id)) : "memory");	\
	(v) = ((uint64_t)hi_ << 32) | lo_;					\
} while (0)
#elif defined(__aarch64__)
#define MODEL_BEGIN_CYCLES(id, v)						\
	__asm__ volatile("isb\n\t.inst %c1\n\tmrs %0, pmccntr_el0"		\
			 : "=r"(v) : "i"(MODEL_ARM64_INSN(MODEL_OP_BEGIN, id)) : "memory")
#define MODEL_END_CYCLES(id, v)						\
	__asm__ volatile("isb\n\tmrs %0, pmccntr_el0\n\t.inst %c1"		\
			 : "=r"(v) : "i"(MODEL_ARM64_INSN(MODEL_OP_END, id)) : "memory")
#endif

#define MODEL_BEGIN(id)	MODEL_MARK(MODEL_OP_BEGIN, id)
#define MODEL_END(id)	MODEL_MARK(MODEL_OP_END, id)

/*
 * Region ids in use: 1 to 15, the modeltest patterns (modeltest.h); from 16,
 * the benchmarks' timed loops, each region exactly the span its figure
 * times (tools/cachemodel/bench.py pairs each pass with its BENCH line),
 * then the trace replay's calls by event type (tools/trace/model_replay.py);
 * from MT_STRING_FIRST_ID (modeltest.h), the rep string patterns.
 */
#define MODEL_R_KMALLOC_ALLOC	16	/* test 1: N kmalloc(size) */
#define MODEL_R_KMALLOC_FREE	17	/* test 1: their N kfree */
#define MODEL_R_KMALLOC_PAIR	18	/* test 2: N times kmalloc + kfree */
#define MODEL_R_MESSAGING	19	/* messaging: a CPU's send/receive loop */
#define MODEL_R_PAGES_ALLOC	20	/* pages: N alloc_pages(order) */
#define MODEL_R_PAGES_FREE	21	/* pages: their N free_pages */
/* The kernel's trace replay (lab/replay.c): one allocator call per pass. */
#define MODEL_R_REPLAY_KMALLOC		22	/* kmalloc or kzalloc */
#define MODEL_R_REPLAY_KFREE		23	/* kfree */
#define MODEL_R_REPLAY_CACHE_ALLOC	24	/* kmem_cache_alloc (and its zeroing) */
#define MODEL_R_REPLAY_CACHE_FREE	25	/* kmem_cache_free */
#define MODEL_R_REPLAY_PAGE_ALLOC	26	/* alloc_pages */
#define MODEL_R_REPLAY_PAGE_FREE	27	/* free_pages */
/* The memory primitives (lab/bench_string.c): N calls at one size. */
#define MODEL_R_MEMSET		28	/* N memset(n) */
#define MODEL_R_MEMCPY		29	/* N memcpy(n) */
#define MODEL_R_MEMMOVE		30	/* N memmove(n), overlapping, up by 8 bytes */
/* NUMA (lab/bench_numa.c): each on the CPU that runs the loop. */
#define MODEL_R_NUMA_ALLOC	31	/* N kmem_cache_alloc_node, local or remote node */
#define MODEL_R_NUMA_FREE	32	/* their N kmem_cache_free */
#define MODEL_R_NUMA_RFREE	33	/* N frees of CPU 0's objects on the freeing CPU */
#define MODEL_R_NUMA_FLUSH	34	/* that CPU's kmem_cache_shrink after them */
#define MODEL_R_NUMA_CONC_ALLOC	35	/* test 3 over the nodes: a CPU's allocations */
#define MODEL_R_NUMA_CONC_FREE	36	/* ... and its frees */

#endif
