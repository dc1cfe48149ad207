/*
 * slab_impl.h - the internal header of the object allocator this build
 * uses: mm/slub_def.h with ALLOC=slub (CONFIG_ALLOC_SLUB), else SLAB's
 * mm/slab_def.h. For the code both allocators build (mm/kmalloc.c) and the
 * allocator-neutral tests. Each def header provides, under the same names:
 * struct kmem_cache with 'name', 'object_size' and 'list'; slab_state and
 * SLAB_DOWN..SLAB_UP; slab_caches and slab_caches_lock; kmalloc_caches[];
 * the fast paths slab_alloc(cachep) and slab_free(cachep, objp, fn);
 * slab_obj_head(p) (a page of a slab whose slab_cache owns p, or NULL),
 * slab_find_head(cachep, p, fn) (checks p in full, reports it if bad);
 * __kmem_cache_create and slab_caches_add for kmalloc_caches_init.
 */
#ifndef MM_SLAB_IMPL_H
#define MM_SLAB_IMPL_H

#ifdef CONFIG_ALLOC_SLUB
#include "mm/slub_def.h"
#else
#include "mm/slab_def.h"
#endif

/* The alignment kmalloc asks for a class of 'size' bytes (SLUB: mm/slub_def.h). */
#ifndef KMALLOC_ALIGN
#define KMALLOC_ALIGN(size) 0
#endif

#endif
