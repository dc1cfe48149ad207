# mm/page_alloc/files.mk - the page allocator: mem_map and struct page set-up,
# the buddy allocator, its per-CPU lists and its checks (every build).
MM_SRCS_page_alloc := $(sort $(wildcard mm/page_alloc/*.c))
