/* Stick tables (see stick.h). Entries sit in a chained hash table and in a
 * list ordered by last use: every entry of a table has the same expire, so
 * the least recently used entry is also the first to expire, and the one
 * HAProxy purges first when the table is full. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "stick.h"

#define STICK_BUCKETS_MAX (1u << 18) /* longer chains beyond this, never a huge array */

struct stick_entry {
	struct stick_entry *hnext;         /* same bucket */
	struct stick_entry *older, *newer; /* use order */
	uint64_t used;                     /* last use, usec */
	unsigned srv_id;
	uint8_t key[16];
};

struct stick_table {
	pthread_mutex_t lock;
	int family;
	size_t klen; /* 4 or 16 */
	unsigned size;
	uint64_t expire;
	bool nopurge;
	struct stick_entry **buckets;
	size_t nbuckets; /* a power of two */
	struct stick_entry *oldest, *newest;
	unsigned used;
};

struct stick_table *stick_new(int family, unsigned size, uint64_t expire, bool nopurge)
{
	struct stick_table *t;
	size_t nb = 16;

	if (size == 0 || (family != AF_INET && family != AF_INET6))
		return NULL;
	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	while (nb < size && nb < STICK_BUCKETS_MAX)
		nb <<= 1;
	t->buckets = calloc(nb, sizeof(*t->buckets));
	if (!t->buckets) {
		free(t);
		return NULL;
	}
	pthread_mutex_init(&t->lock, NULL);
	t->nbuckets = nb;
	t->family = family;
	t->klen = family == AF_INET ? 4 : 16;
	t->size = size;
	t->expire = expire;
	t->nopurge = nopurge;
	return t;
}

void stick_free(struct stick_table *t)
{
	struct stick_entry *e, *n;

	if (!t)
		return;
	for (e = t->oldest; e; e = n) {
		n = e->newer;
		free(e);
	}
	free(t->buckets);
	pthread_mutex_destroy(&t->lock);
	free(t);
}

bool stick_key(int family, const struct sockaddr *sa, uint8_t key[16])
{
	static const uint8_t mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };
	const uint8_t *a;

	memset(key, 0, 16);
	if (!sa)
		return false;
	if (sa->sa_family == AF_INET) {
		a = (const uint8_t *)&((const struct sockaddr_in *)sa)->sin_addr;
		if (family == AF_INET) {
			memcpy(key, a, 4);
		} else {
			memcpy(key, mapped, 12);
			memcpy(key + 12, a, 4);
		}
		return true;
	}
	if (sa->sa_family != AF_INET6)
		return false;
	a = (const uint8_t *)&((const struct sockaddr_in6 *)sa)->sin6_addr;
	if (family == AF_INET6) {
		memcpy(key, a, 16);
		return true;
	}
	if (memcmp(a, mapped, 12) != 0)
		return false; /* HAProxy's ipv6-to-ipv4 conversion fails too */
	memcpy(key, a + 12, 4);
	return true;
}

static size_t bucket_of(const struct stick_table *t, const uint8_t *key)
{
	uint32_t h = 2166136261u; /* FNV-1a */
	size_t i;

	for (i = 0; i < t->klen; i++) {
		h ^= key[i];
		h *= 16777619u;
	}
	h ^= h >> 15;
	return h & (t->nbuckets - 1);
}

static void unlink_use(struct stick_table *t, struct stick_entry *e)
{
	if (e->older)
		e->older->newer = e->newer;
	else
		t->oldest = e->newer;
	if (e->newer)
		e->newer->older = e->older;
	else
		t->newest = e->older;
	e->older = e->newer = NULL;
}

static void link_newest(struct stick_table *t, struct stick_entry *e)
{
	e->older = t->newest;
	e->newer = NULL;
	if (t->newest)
		t->newest->newer = e;
	else
		t->oldest = e;
	t->newest = e;
}

static void drop(struct stick_table *t, struct stick_entry *e)
{
	struct stick_entry **p = &t->buckets[bucket_of(t, e->key)];

	while (*p && *p != e)
		p = &(*p)->hnext;
	if (*p)
		*p = e->hnext;
	unlink_use(t, e);
	t->used--;
	free(e);
}

static bool expired(const struct stick_table *t, const struct stick_entry *e, uint64_t now)
{
	return t->expire && now >= e->used && now - e->used >= t->expire;
}

static void expire_locked(struct stick_table *t, uint64_t now)
{
	while (t->oldest && expired(t, t->oldest, now))
		drop(t, t->oldest);
}

static struct stick_entry *find(struct stick_table *t, const uint8_t *key)
{
	struct stick_entry *e = t->buckets[bucket_of(t, key)];

	while (e && memcmp(e->key, key, t->klen) != 0)
		e = e->hnext;
	return e;
}

static void touch(struct stick_table *t, struct stick_entry *e, uint64_t now)
{
	e->used = now;
	unlink_use(t, e);
	link_newest(t, e);
}

int stick_lookup(
	struct stick_table *t, const struct sockaddr *client, uint64_t now, unsigned *srv_id)
{
	struct stick_entry *e;
	uint8_t key[16];

	if (!stick_key(t->family, client, key))
		return -1;
	pthread_mutex_lock(&t->lock);
	expire_locked(t, now);
	e = find(t, key);
	if (e) {
		*srv_id = e->srv_id;
		touch(t, e, now);
	}
	pthread_mutex_unlock(&t->lock);
	return e ? 1 : 0;
}

int stick_store(struct stick_table *t, const struct sockaddr *client, unsigned srv_id, uint64_t now)
{
	struct stick_entry *e;
	uint8_t key[16];
	size_t b;
	int r = 0;

	if (!stick_key(t->family, client, key))
		return -1;
	pthread_mutex_lock(&t->lock);
	expire_locked(t, now);
	e = find(t, key);
	if (e) {
		e->srv_id = srv_id;
		touch(t, e, now);
		goto out;
	}
	if (t->used >= t->size) {
		if (t->nopurge) {
			r = -1;
			goto out;
		}
		drop(t, t->oldest); /* HAProxy purges the oldest entries */
	}
	e = calloc(1, sizeof(*e));
	if (!e) {
		r = -1;
		goto out;
	}
	memcpy(e->key, key, 16);
	e->srv_id = srv_id;
	e->used = now;
	b = bucket_of(t, key);
	e->hnext = t->buckets[b];
	t->buckets[b] = e;
	link_newest(t, e);
	t->used++;
out:
	pthread_mutex_unlock(&t->lock);
	return r;
}

unsigned stick_used(struct stick_table *t, uint64_t now)
{
	unsigned n;

	pthread_mutex_lock(&t->lock);
	expire_locked(t, now);
	n = t->used;
	pthread_mutex_unlock(&t->lock);
	return n;
}

int stick_family(const struct stick_table *t)
{
	return t->family;
}

unsigned stick_size(const struct stick_table *t)
{
	return t->size;
}

uint64_t stick_expire(const struct stick_table *t)
{
	return t->expire;
}

bool stick_nopurge(const struct stick_table *t)
{
	return t->nopurge;
}

void stick_walk(struct stick_table *t, uint64_t now,
	void (*fn)(void *arg, const char *key, unsigned srv_id, uint64_t left, uintptr_t id),
	void *arg)
{
	struct stick_entry *e;
	char txt[INET6_ADDRSTRLEN];

	pthread_mutex_lock(&t->lock);
	expire_locked(t, now);
	for (e = t->oldest; e; e = e->newer) {
		if (!inet_ntop(t->family, e->key, txt, sizeof(txt)))
			txt[0] = '\0';
		fn(arg, txt, e->srv_id,
			!t->expire      ? 0
			: now < e->used ? t->expire
					: t->expire - (now - e->used),
			(uintptr_t)e);
	}
	pthread_mutex_unlock(&t->lock);
}
