/*
 * test_cache_node.c - kmem_cache_alloc_node and kmalloc_node, for every
 * allocator, on whatever topology the test runs on (one node in a plain
 * boot and on the host; N with make run NODES=N, or on the host with
 * QUARRY_NODES=N, host.mk's NODES=N): an object asked of
 * each online node and of NUMA_NO_NODE is usable and goes back with
 * kmem_cache_free or kfree from any CPU; where the allocator places
 * objects by node (SLAB_NODE_PLACED in its def header) and the node has
 * memory, the object's page is on that node, and a large kmalloc_node's
 * pages always are (the page allocator's nodes); a node that is not
 * online is reported naming the call, the cache and the node, and the
 * request served from the calling CPU's node.
 */
#include "test_alloc.h"

#define NODE_OBJS	24
#define NODE_SIZE	96

/* True when node n has memory of its own (a memory-less node borrows). */
static bool node_has_memory(unsigned int n)
{
	struct mem_range r;

	return numa_node_range(n, 0, &r);
}

/* The node of an object's page. */
static unsigned int obj_nid(const void *p)
{
	return page_to_nid(virt_to_page(p));
}

/* One node's round: cache objects, small and large kmalloc_node; placement checked. */
static int node_round(struct kmem_cache *c, unsigned int node)
{
	void *objs[NODE_OBJS], *small, *large;
	bool placed = node != NUMA_NO_NODE && node_has_memory(node);

	for (unsigned int i = 0; i < NODE_OBJS; i++) {
		objs[i] = kmem_cache_alloc_node(c, node);
		ST_EXPECT(objs[i], "kmem_cache_alloc_node(%s, node %u): NULL at object %u",
			  kmem_cache_name(c), node, i);
		memset(objs[i], (int)i, NODE_SIZE);
		ST_EXPECT(!SLAB_NODE_PLACED || !placed || obj_nid(objs[i]) == node,
			  "kmem_cache_alloc_node(%s, node %u): object %p is on node %u",
			  kmem_cache_name(c), node, objs[i], obj_nid(objs[i]));
	}
	small = kmalloc_node(200, node);
	ST_EXPECT(small, "kmalloc_node(200, node %u): NULL", node);
	ST_EXPECT(!SLAB_NODE_PLACED || !placed || obj_nid(small) == node,
		  "kmalloc_node(200, node %u): %p is on node %u", node, small, obj_nid(small));
	large = kmalloc_node(KMALLOC_MAX_SLAB + 1, node);
	ST_EXPECT(large, "kmalloc_node(%lu, node %u): NULL", (unsigned long)KMALLOC_MAX_SLAB + 1,
		  node);
	ST_EXPECT(!placed || obj_nid(large) == node,
		  "kmalloc_node(%lu, node %u): its pages are on node %u",
		  (unsigned long)KMALLOC_MAX_SLAB + 1, node, obj_nid(large));
	memset(small, 0x5a, 200);
	memset(large, 0xa5, KMALLOC_MAX_SLAB + 1);
	for (unsigned int i = 0; i < NODE_OBJS; i++) {
		const unsigned char *p = objs[i];

		ST_EXPECT(p[0] == (unsigned char)i && p[NODE_SIZE - 1] == (unsigned char)i,
			  "node %u: object %u overwritten", node, i);
		kmem_cache_free(c, objs[i]);
	}
	kfree(small);
	kfree(large);
	ST_EXPECT(kmem_cache_check(c) == 0, "check failed after node %u's round", node);
	return 0;
}

SELFTEST(cache_alloc_node_every_node)
{
	struct slab_test_mark pages;
	struct kmem_cache *c;

	/*
	 * kmalloc's cache keeps what a node's first use makes (SLAB: its
	 * kmem_cache_node for that node), as a CPU's first use makes its array:
	 * made before the page count, not counted as the test's.
	 */
	for (unsigned int n = 0; n < MAX_NUMNODES; n++)
		if (numa_node_online(n))
			kfree(kmalloc_node(200, n));
	slab_test_begin(&pages);
	c = kmem_cache_create("test-node", NODE_SIZE, 0, 0, NULL);
	ST_EXPECT(c, "create failed");
	for (unsigned int n = 0; n < MAX_NUMNODES; n++)
		if (numa_node_online(n) && node_round(c, n))
			return -1;
	if (node_round(c, NUMA_NO_NODE))
		return -1;
	ST_EXPECT(kmem_cache_destroy(c) == 0, "destroy refused");
	SLAB_EXPECT_PAGES_BACK(&pages);
	return 0;
}

SELFTEST(cache_alloc_node_bad_node_is_reported_and_served)
{
	unsigned int bad[2] = { MAX_NUMNODES + 3, numa_num_nodes() };
	struct kmem_cache *c;
	char what[96];

	c = kmem_cache_create("test-node-bad", NODE_SIZE, 0, 0, NULL);
	ST_EXPECT(c, "create failed");
	for (unsigned int i = 0; i < 2; i++) {
		unsigned int node = bad[i];
		void *p, *q;

		if (numa_node_online(node))
			continue;	/* node ids with gaps: this one is real */
		slab_test_console_clear();
		p = kmem_cache_alloc_node(c, node);
		ST_EXPECT(p, "kmem_cache_alloc_node(node %u): NULL, not served", node);
		snprintf(what, sizeof(what), "kmem_cache_alloc_node(test-node-bad, node %u): node %u "
			 "is not online", node, node);
		ST_EXPECT(slab_test_console_has(what), "console lacks \"%s\"", what);
		slab_test_console_clear();
		q = kmalloc_node(48, node);
		ST_EXPECT(q, "kmalloc_node(48, node %u): NULL, not served", node);
		snprintf(what, sizeof(what), "kmalloc_node(kmalloc, node %u): node %u is not online",
			 node, node);
		ST_EXPECT(slab_test_console_has(what), "console lacks \"%s\"", what);
		ST_EXPECT(slab_test_console_has("served from the calling CPU's node"),
			  "console does not say where node %u's request went", node);
		kmem_cache_free(c, p);
		kfree(q);
	}
	ST_EXPECT(kmem_cache_check(c) == 0, "check failed");
	kmem_cache_destroy(c);
	return 0;
}
