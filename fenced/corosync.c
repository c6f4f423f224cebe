/* fenced's link to corosync: see corosync.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include <corosync/cmap.h>
#include <corosync/corotypes.h>
#include <corosync/cpg.h>
#include <corosync/votequorum.h>

#include "corosync.h"

#define MAX_MEMBERS 128 /* CPG_MEMBERS_MAX */

struct fenced_cs {
	sd_event *e;
	const struct fenced_cs_ops *ops;
	void *ud;
	cpg_handle_t cpg;
	votequorum_handle_t vq;
	bool have_cpg, have_vq, dead;
	sd_event_source *cpg_src, *vq_src;
	uint32_t our_id;
};

/* corosync's libraries take a context per handle: ours is the struct. */
static struct fenced_cs *from_cpg(cpg_handle_t h)
{
	void *ctx = NULL;

	return cpg_context_get(h, &ctx) == CS_OK ? ctx : NULL;
}

static struct fenced_cs *from_vq(votequorum_handle_t h)
{
	void *ctx = NULL;

	return votequorum_context_get(h, &ctx) == CS_OK ? ctx : NULL;
}

static void lost(struct fenced_cs *cs, const char *what, cs_error_t err)
{
	char why[128];

	if (cs->dead)
		return;
	cs->dead = true;
	sd_event_source_set_enabled(cs->cpg_src, SD_EVENT_OFF);
	sd_event_source_set_enabled(cs->vq_src, SD_EVENT_OFF);
	snprintf(why, sizeof(why), "%s: corosync error %d", what, (int)err);
	cs->ops->lost(cs->ud, why);
}

static enum decide_left_reason left_reason(uint32_t r)
{
	switch (r) {
	case CPG_REASON_LEAVE:
		return DECIDE_LEFT_CLEAN;
	case CPG_REASON_PROCDOWN:
		return DECIDE_LEFT_PROCDOWN;
	default:
		return DECIDE_LEFT_NODEDOWN;
	}
}

static void on_confchg(cpg_handle_t h, const struct cpg_name *group,
	const struct cpg_address *members, size_t nmembers, const struct cpg_address *left,
	size_t nleft, const struct cpg_address *joined, size_t njoined)
{
	struct fenced_cs *cs = from_cpg(h);
	struct fenced_cs_member m[MAX_MEMBERS], j[MAX_MEMBERS];
	struct decide_left l[MAX_MEMBERS];
	size_t i;

	(void)group;
	if (!cs)
		return;
	nmembers = nmembers > MAX_MEMBERS ? MAX_MEMBERS : nmembers;
	nleft = nleft > MAX_MEMBERS ? MAX_MEMBERS : nleft;
	njoined = njoined > MAX_MEMBERS ? MAX_MEMBERS : njoined;
	for (i = 0; i < nmembers; i++) {
		m[i].id = members[i].nodeid;
		m[i].pid = members[i].pid;
	}
	for (i = 0; i < nleft; i++) {
		l[i].id = left[i].nodeid;
		l[i].reason = left_reason(left[i].reason);
	}
	for (i = 0; i < njoined; i++) {
		j[i].id = joined[i].nodeid;
		j[i].pid = joined[i].pid;
	}
	cs->ops->confchg(cs->ud, m, nmembers, l, nleft, j, njoined);
}

static void on_deliver(cpg_handle_t h, const struct cpg_name *group, uint32_t nodeid, uint32_t pid,
	void *msg, size_t len)
{
	struct fenced_cs *cs = from_cpg(h);

	(void)group;
	(void)pid;
	if (cs)
		cs->ops->deliver(cs->ud, nodeid, msg, len);
}

static void on_quorum(
	votequorum_handle_t h, uint64_t ctx, uint32_t quorate, uint32_t n, votequorum_node_t *nodes)
{
	struct fenced_cs *cs = from_vq(h);
	uint32_t m[MAX_MEMBERS];
	size_t nm = 0;

	(void)ctx;
	for (uint32_t i = 0; i < n && nm < MAX_MEMBERS; i++)
		if (nodes[i].state == VOTEQUORUM_NODESTATE_MEMBER)
			m[nm++] = nodes[i].nodeid;
	if (cs)
		cs->ops->quorum(cs->ud, quorate != 0, m, nm);
}

static int on_cpg_fd(sd_event_source *s, int fd, uint32_t revents, void *ud)
{
	struct fenced_cs *cs = ud;
	cs_error_t err;

	(void)s;
	(void)fd;
	(void)revents;
	err = cpg_dispatch(cs->cpg, CS_DISPATCH_ALL);
	if (err != CS_OK && err != CS_ERR_TRY_AGAIN)
		lost(cs, "cpg", err);
	return 0;
}

static int on_vq_fd(sd_event_source *s, int fd, uint32_t revents, void *ud)
{
	struct fenced_cs *cs = ud;
	cs_error_t err;

	(void)s;
	(void)fd;
	(void)revents;
	err = votequorum_dispatch(cs->vq, CS_DISPATCH_ALL);
	if (err != CS_OK && err != CS_ERR_TRY_AGAIN)
		lost(cs, "votequorum", err);
	return 0;
}

static int cs_errno(cs_error_t err)
{
	switch (err) {
	case CS_ERR_LIBRARY:
	case CS_ERR_BAD_HANDLE:
		return -ECONNREFUSED;
	case CS_ERR_NO_MEMORY:
		return -ENOMEM;
	case CS_ERR_TRY_AGAIN:
		return -EAGAIN;
	case CS_ERR_ACCESS:
		return -EACCES;
	default:
		return -EIO;
	}
}

/* Calls that corosync answers with TRY_AGAIN while it is busy (syncing a
 * membership) are tried again for up to 5 s, as corosync's tools do. */
#define RETRY(call)                                                                                \
	({                                                                                         \
		cs_error_t _e;                                                                     \
		int _n = 0;                                                                        \
		while ((_e = (call)) == CS_ERR_TRY_AGAIN && _n++ < 50)                             \
			usleep(100000);                                                            \
		_e;                                                                                \
	})

int fenced_cs_open(sd_event *e, const struct fenced_cs_ops *ops, void *ud, struct fenced_cs **out,
	char *why, size_t whylen)
{
	cpg_model_v1_data_t model = {
		.model = CPG_MODEL_V1,
		.cpg_deliver_fn = on_deliver,
		.cpg_confchg_fn = on_confchg,
	};
	votequorum_callbacks_t vcb = { .votequorum_quorum_notify_fn = on_quorum };
	struct cpg_name group;
	struct fenced_cs *cs;
	cs_error_t err;
	unsigned int id = 0;
	int fd, r;

	cs = calloc(1, sizeof(*cs));
	if (!cs)
		return -ENOMEM;
	cs->e = e;
	cs->ops = ops;
	cs->ud = ud;
	err = RETRY(cpg_model_initialize(&cs->cpg, CPG_MODEL_V1, (cpg_model_data_t *)&model, cs));
	if (err != CS_OK) {
		snprintf(why, whylen, "cannot connect to corosync (cpg_initialize: error %d)",
			(int)err);
		free(cs);
		return cs_errno(err);
	}
	cs->have_cpg = true;
	err = RETRY(cpg_local_get(cs->cpg, &id));
	if (err != CS_OK) {
		snprintf(why, whylen, "cpg_local_get: error %d", (int)err);
		goto fail;
	}
	cs->our_id = id;
	err = RETRY(votequorum_initialize(&cs->vq, &vcb));
	if (err != CS_OK) {
		snprintf(why, whylen,
			"cannot connect to votequorum (error %d): is corosync's quorum provider "
			"corosync_votequorum?",
			(int)err);
		goto fail;
	}
	cs->have_vq = true;
	votequorum_context_set(cs->vq, cs);
	err = RETRY(votequorum_trackstart(cs->vq, 0, CS_TRACK_CHANGES | CS_TRACK_CURRENT));
	if (err != CS_OK) {
		snprintf(why, whylen, "votequorum_trackstart: error %d", (int)err);
		goto fail;
	}
	memset(&group, 0, sizeof(group));
	group.length = strlen(FENCED_CPG_GROUP);
	memcpy(group.value, FENCED_CPG_GROUP, group.length);
	err = RETRY(cpg_join(cs->cpg, &group));
	if (err != CS_OK) {
		snprintf(why, whylen, "cpg_join %s: error %d", FENCED_CPG_GROUP, (int)err);
		goto fail;
	}
	if (cpg_fd_get(cs->cpg, &fd) != CS_OK ||
		sd_event_add_io(e, &cs->cpg_src, fd, EPOLLIN, on_cpg_fd, cs) < 0) {
		snprintf(why, whylen, "cannot watch the cpg connection");
		err = CS_ERR_LIBRARY;
		goto fail;
	}
	if (votequorum_fd_get(cs->vq, &fd) != CS_OK ||
		sd_event_add_io(e, &cs->vq_src, fd, EPOLLIN, on_vq_fd, cs) < 0) {
		snprintf(why, whylen, "cannot watch the votequorum connection");
		err = CS_ERR_LIBRARY;
		goto fail;
	}
	*out = cs;
	return 0;
fail:
	r = cs_errno(err);
	fenced_cs_close(cs);
	return r;
}

void fenced_cs_close(struct fenced_cs *cs)
{
	if (!cs)
		return;
	sd_event_source_disable_unref(cs->cpg_src);
	sd_event_source_disable_unref(cs->vq_src);
	if (cs->have_cpg) {
		struct cpg_name group = { .length = strlen(FENCED_CPG_GROUP) };

		/* leave first: the others see CPG_REASON_LEAVE (a clean stop),
		 * not a process gone down */
		memcpy(group.value, FENCED_CPG_GROUP, group.length);
		if (!cs->dead && RETRY(cpg_leave(cs->cpg, &group)) == CS_OK)
			usleep(100000);
		cpg_finalize(cs->cpg);
	}
	if (cs->have_vq)
		votequorum_finalize(cs->vq);
	free(cs);
}

uint32_t fenced_cs_our_id(const struct fenced_cs *cs)
{
	return cs->our_id;
}

int fenced_cs_quorate_now(struct fenced_cs *cs)
{
	struct votequorum_info info;

	if (cs->dead || votequorum_getinfo(cs->vq, cs->our_id, &info) != CS_OK)
		return -ENOTCONN;
	return (info.flags & VOTEQUORUM_INFO_QUORATE) != 0;
}

int fenced_cs_qdevice_now(struct fenced_cs *cs, struct fenced_cs_qdevice *q)
{
	struct votequorum_info info;

	memset(q, 0, sizeof(*q));
	if (cs->dead || votequorum_getinfo(cs->vq, cs->our_id, &info) != CS_OK)
		return -ENOTCONN;
	q->registered = (info.flags & VOTEQUORUM_INFO_QDEVICE_REGISTERED) != 0;
	q->alive = (info.flags & VOTEQUORUM_INFO_QDEVICE_ALIVE) != 0;
	q->cast_vote = (info.flags & VOTEQUORUM_INFO_QDEVICE_CAST_VOTE) != 0;
	q->votes = info.qdevice_votes;
	snprintf(q->name, sizeof(q->name), "%.*s", (int)sizeof(info.qdevice_name),
		info.qdevice_name);
	return 0;
}

bool fenced_cs_member_now(struct fenced_cs *cs, uint32_t id)
{
	struct votequorum_info info;

	if (cs->dead || votequorum_getinfo(cs->vq, id, &info) != CS_OK)
		return false;
	return info.node_state == VOTEQUORUM_NODESTATE_MEMBER;
}

int fenced_cs_send(struct fenced_cs *cs, const char *msg, size_t len)
{
	struct iovec iov = { .iov_base = (void *)msg, .iov_len = len };
	cs_error_t err;

	if (cs->dead)
		return -ENOTCONN;
	err = RETRY(cpg_mcast_joined(cs->cpg, CPG_TYPE_AGREED, &iov, 1));
	return err == CS_OK ? 0 : cs_errno(err);
}

static int by_id(const void *a, const void *b)
{
	const struct fenced_cs_node *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

/* The quorum section as corosync has it now (it follows corosync-cfgtool
 * -R). */
static void quorum_cfg(cmap_handle_t h, struct fenced_cs_quorum_cfg *q)
{
	uint8_t u8 = 0;
	char *s = NULL;

	memset(q, 0, sizeof(*q));
	if (cmap_get_uint8(h, "quorum.two_node", &u8) == CS_OK)
		q->two_node = u8 != 0;
	if (cmap_get_string(h, "quorum.device.model", &s) == CS_OK) {
		q->qdevice = true;
		free(s);
	}
}

int fenced_cs_quorum_cfg(struct fenced_cs *cs, struct fenced_cs_quorum_cfg *q)
{
	cmap_handle_t h;
	cs_error_t err;

	if (cs->dead)
		return -ENOTCONN;
	err = RETRY(cmap_initialize(&h));
	if (err != CS_OK)
		return cs_errno(err);
	quorum_cfg(h, q);
	cmap_finalize(h);
	return 0;
}

int fenced_cs_nodelist(struct fenced_cs *cs, struct fenced_cs_node **nodes, size_t *n,
	struct fenced_cs_quorum_cfg *q, char *why, size_t whylen)
{
	cmap_handle_t h;
	cmap_iter_handle_t it;
	char key[CMAP_KEYNAME_MAXLEN + 1], k2[CMAP_KEYNAME_MAXLEN + 1];
	struct fenced_cs_node *v = NULL, *nv;
	size_t nv_n = 0, len;
	cmap_value_types_t type;
	cs_error_t err;
	char *s = NULL;
	unsigned idx;
	int r = 0;

	(void)cs;
	err = RETRY(cmap_initialize(&h));
	if (err != CS_OK) {
		snprintf(why, whylen, "cannot connect to corosync (cmap: error %d)", (int)err);
		return cs_errno(err);
	}
	err = cmap_iter_init(h, "nodelist.node.", &it);
	if (err != CS_OK) {
		snprintf(why, whylen, "cmap: no nodelist (error %d)", (int)err);
		cmap_finalize(h);
		return -ENOENT;
	}
	while (cmap_iter_next(h, it, key, &len, &type) == CS_OK) {
		uint32_t id = 0;

		if (sscanf(key, "nodelist.node.%u.nodeid", &idx) != 1 ||
			strcmp(strrchr(key, '.'), ".nodeid") != 0)
			continue;
		if (cmap_get_uint32(h, key, &id) != CS_OK || !id)
			continue;
		nv = realloc(v, (nv_n + 1) * sizeof(*v));
		if (!nv) {
			r = -ENOMEM;
			break;
		}
		v = nv;
		v[nv_n].id = id;
		v[nv_n].name[0] = '\0';
		snprintf(k2, sizeof(k2), "nodelist.node.%u.name", idx);
		if (cmap_get_string(h, k2, &s) != CS_OK) {
			snprintf(k2, sizeof(k2), "nodelist.node.%u.ring0_addr", idx);
			if (cmap_get_string(h, k2, &s) != CS_OK)
				s = NULL;
		}
		if (s)
			snprintf(v[nv_n].name, sizeof(v[nv_n].name), "%s", s);
		free(s);
		s = NULL;
		nv_n++;
	}
	cmap_iter_finalize(h, it);
	if (q)
		quorum_cfg(h, q);
	cmap_finalize(h);
	if (r < 0) {
		free(v);
		snprintf(why, whylen, "out of memory");
		return r;
	}
	if (!nv_n) {
		free(v);
		snprintf(why, whylen, "corosync's nodelist has no node with a nodeid");
		return -ENOENT;
	}
	qsort(v, nv_n, sizeof(*v), by_id);
	*nodes = v;
	*n = nv_n;
	return 0;
}

/* corosync.conf, read as text for -c (corosync need not run): the quorum
 * section's two_node and device, and the nodelist's names. */
int fenced_cs_conf_read(const char *path, struct fenced_cs_quorum_cfg *q, char ***names, size_t *n)
{
	char line[1024], stack[8][32], *p, *key, *val, **v = NULL, **nv;
	unsigned depth = 0;
	size_t nn = 0;
	FILE *f;

	memset(q, 0, sizeof(*q));
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		p = line + strspn(line, " \t");
		if (*p == '#')
			continue;
		if ((val = strchr(p, '{'))) {
			*val = '\0';
			key = strtok(p, " \t:");
			if (depth < 8)
				snprintf(stack[depth], sizeof(stack[depth]), "%s", key ? key : "");
			depth++;
			if (depth == 2 && strcmp(stack[0], "quorum") == 0 &&
				strcmp(stack[1], "device") == 0)
				q->qdevice = true;
			continue;
		}
		if (strchr(p, '}')) {
			depth = depth ? depth - 1 : 0;
			continue;
		}
		key = strtok(p, " \t:");
		val = strtok(NULL, " \t\r\n");
		if (!key || !val)
			continue;
		if (depth == 1 && strcmp(stack[0], "quorum") == 0 && strcmp(key, "two_node") == 0)
			q->two_node = strcmp(val, "0") != 0;
		if (depth == 2 && strcmp(stack[0], "nodelist") == 0 && strcmp(key, "name") == 0 &&
			(nv = realloc(v, (nn + 1) * sizeof(*v)))) {
			v = nv;
			if ((v[nn] = strdup(val)))
				nn++;
		}
	}
	fclose(f);
	*names = v;
	*n = nn;
	return 0;
}
