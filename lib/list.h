/* Intrusive doubly-linked lists (circular, with a head node). */
#ifndef CPHA_LIST_H
#define CPHA_LIST_H

#include <stddef.h>

struct cpha_list {
	struct cpha_list *next, *prev;
};

#define CPHA_LIST_INIT(name)                                                                       \
	{                                                                                          \
		&(name), &(name)                                                                   \
	}

#define cpha_container_of(ptr, type, member) ((type *)((char *)(ptr)-offsetof(type, member)))

static inline void cpha_list_init(struct cpha_list *h)
{
	h->next = h->prev = h;
}

static inline int cpha_list_empty(const struct cpha_list *h)
{
	return h->next == h;
}

/* Insert n at the tail of list h. */
static inline void cpha_list_append(struct cpha_list *h, struct cpha_list *n)
{
	n->prev = h->prev;
	n->next = h;
	h->prev->next = n;
	h->prev = n;
}

/* Unlink n and leave it pointing at itself, so a second delete is harmless. */
static inline void cpha_list_del(struct cpha_list *n)
{
	n->prev->next = n->next;
	n->next->prev = n->prev;
	n->next = n->prev = n;
}

/* Unlink and return the first element, or NULL when empty. */
static inline struct cpha_list *cpha_list_pop(struct cpha_list *h)
{
	struct cpha_list *n = h->next;

	if (n == h)
		return NULL;
	cpha_list_del(n);
	return n;
}

#define cpha_list_for_each_safe(pos, tmp, head)                                                    \
	for ((pos) = (head)->next, (tmp) = (pos)->next; (pos) != (head);                           \
		(pos) = (tmp), (tmp) = (pos)->next)

#endif
