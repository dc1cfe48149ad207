/*
 * list.h - intrusive circular doubly linked lists (the Linux list_head idea).
 * An empty list's head points at itself. No locking: callers hold whatever
 * lock protects the list they touch.
 */
#ifndef QUARRY_LIST_H
#define QUARRY_LIST_H

#include "kernel/compiler.h"

struct list_head {
	struct list_head *next, *prev;
};

#define LIST_HEAD_INIT(name) { &(name), &(name) }

static inline void INIT_LIST_HEAD(struct list_head *h)
{
	h->next = h;
	h->prev = h;
}

static inline void __list_link(struct list_head *n, struct list_head *prev, struct list_head *next)
{
	next->prev = n;
	n->next = next;
	n->prev = prev;
	prev->next = n;
}

/* Insert n right after head (stack order). */
static inline void list_add(struct list_head *n, struct list_head *head)
{
	__list_link(n, head, head->next);
}

/* Insert n right before head (queue order). */
static inline void list_add_tail(struct list_head *n, struct list_head *head)
{
	__list_link(n, head->prev, head);
}

/* Unlink e; its links are left pointing at itself so a second del is harmless. */
static inline void list_del(struct list_head *e)
{
	e->next->prev = e->prev;
	e->prev->next = e->next;
	e->next = e;
	e->prev = e;
}

static inline void list_move(struct list_head *e, struct list_head *head)
{
	list_del(e);
	list_add(e, head);
}

static inline void list_move_tail(struct list_head *e, struct list_head *head)
{
	list_del(e);
	list_add_tail(e, head);
}

static inline bool list_empty(const struct list_head *h)
{
	return h->next == h;
}

#define list_entry(ptr, type, member) container_of(ptr, type, member)
#define list_first_entry(head, type, member) list_entry((head)->next, type, member)

#define list_for_each(pos, head) \
	for (pos = (head)->next; pos != (head); pos = pos->next)

/*
 * The link inside an entry, by address arithmetic: the loops below reach
 * the head's would-be entry (not a real one) before they stop, and must
 * not access a member through it (UBSan: misaligned for an entry type
 * aligned more strictly than a list_head).
 */
#define list_entry_link(pos, member) \
	((struct list_head *)((char *)(pos) + offsetof(__typeof__(*(pos)), member)))

#define list_for_each_entry(pos, head, member)                                     \
	for (pos = list_entry((head)->next, __typeof__(*pos), member);             \
	     list_entry_link(pos, member) != (head);                               \
	     pos = list_entry(pos->member.next, __typeof__(*pos), member))

#define list_for_each_entry_safe(pos, n, head, member)                             \
	for (pos = list_entry((head)->next, __typeof__(*pos), member),             \
	    n = list_entry(list_entry_link(pos, member)->next, __typeof__(*pos), member); \
	     list_entry_link(pos, member) != (head);                               \
	     pos = n, n = list_entry(list_entry_link(n, member)->next, __typeof__(*n), member))

#endif
