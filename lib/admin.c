#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "duration.h"
#include "admin.h"
#include "reqserv.h"

struct cpha_admin {
	struct cpha__reqserv *srv;
	char *path;
	cpha_admin_fn fn;
	void *userdata;
};

static long admin_complete(const char *data, size_t len, int eof)
{
	const char *nl = memchr(data, '\n', len);

	if (nl)
		return (long)(nl - data) + 1;
	if (eof && len > 0)
		return (long)len;
	return 0;
}

static void admin_handle(void *userdata, const struct cpha__req_peer *p, const char *req,
	size_t len, struct cpha_buf *reply)
{
	struct cpha_admin *a = userdata;
	struct cpha_admin_peer peer = { .pid = p->pid, .uid = p->uid, .gid = p->gid };
	char *line = (char *)req;

	while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
		line[--len] = '\0';
	a->fn(a->userdata, &peer, line, reply);
}

static int fill_sun(struct sockaddr_un *sun, const char *path)
{
	memset(sun, 0, sizeof(*sun));
	sun->sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(sun->sun_path))
		return -ENAMETOOLONG;
	strcpy(sun->sun_path, path);
	return 0;
}

/* Remove a socket file nobody listens on any more. */
static int clear_stale(const char *path)
{
	struct sockaddr_un sun;
	struct stat st;
	int fd, r;

	if (lstat(path, &st) == -1)
		return errno == ENOENT ? 0 : -errno;
	if (!S_ISSOCK(st.st_mode))
		return -EEXIST;
	r = fill_sun(&sun, path);
	if (r < 0)
		return r;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd == -1)
		return -errno;
	r = connect(fd, (struct sockaddr *)&sun, sizeof(sun));
	close(fd);
	if (r == 0)
		return -EADDRINUSE;
	if (unlink(path) == -1 && errno != ENOENT)
		return -errno;
	return 0;
}

static int make_parent(const char *path)
{
	char *dir = strdup(path), *slash;
	int r = 0;

	if (!dir)
		return -ENOMEM;
	slash = strrchr(dir, '/');
	if (slash && slash != dir) {
		*slash = '\0';
		if (mkdir(dir, 0755) == -1 && errno != EEXIST)
			r = -errno;
	}
	free(dir);
	return r;
}

int cpha_admin_open(sd_event *e, const char *path, mode_t mode, cpha_admin_fn fn, void *userdata,
	struct cpha_admin **out)
{
	static const struct cpha__reqserv_limits limits = {
		.max_req = CPHA_ADMIN_LINE_MAX,
		.request_usec = CPHA_ADMIN_REQUEST_USEC,
		.reply_usec = CPHA_ADMIN_REPLY_USEC,
		.max_conns = CPHA_ADMIN_MAX_CONNS,
		.max_per_peer = CPHA_ADMIN_MAX_PER_UID,
		.what = "admin socket",
	};
	struct sockaddr_un sun;
	struct cpha_admin *a;
	mode_t old;
	int fd = -1, r;

	if (!mode)
		mode = 0600;
	r = fill_sun(&sun, path);
	if (r < 0)
		return r;
	r = make_parent(path);
	if (r < 0)
		return r;
	r = clear_stale(path);
	if (r < 0)
		return r;
	a = calloc(1, sizeof(*a));
	if (!a)
		return -ENOMEM;
	a->path = strdup(path);
	a->fn = fn;
	a->userdata = userdata;
	if (!a->path) {
		r = -ENOMEM;
		goto fail;
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd == -1) {
		r = -errno;
		goto fail;
	}
	/* no window in which the socket exists with wider permissions */
	old = umask(0777 & ~mode);
	r = bind(fd, (struct sockaddr *)&sun, sizeof(sun));
	umask(old);
	if (r == -1 || chmod(path, mode) == -1 || listen(fd, SOMAXCONN) == -1) {
		r = -errno;
		unlink(path);
		goto fail;
	}
	r = cpha__reqserv_new(&a->srv, e, fd, admin_complete, admin_handle, a, &limits);
	fd = -1; /* owned by the server now, even on failure */
	if (r < 0) {
		unlink(path);
		goto fail;
	}
	*out = a;
	return 0;
fail:
	if (fd != -1)
		close(fd);
	free(a->path);
	free(a);
	return r;
}

int cpha_admin_set_access(struct cpha_admin *a, mode_t mode, uid_t uid, gid_t gid)
{
	struct stat st;

	if (!mode)
		mode = 0600;
	if (lstat(a->path, &st) == -1)
		return -errno;
	if (!S_ISSOCK(st.st_mode))
		return -EEXIST;
	/* nothing to change: no call that a process without privileges fails */
	if ((st.st_mode & 07777) == mode && (uid == (uid_t)-1 || st.st_uid == uid) &&
		(gid == (gid_t)-1 || st.st_gid == gid))
		return 0;
	/* narrower first: no moment with the new owner and the old, wider mode */
	if ((st.st_mode & 07777 & ~mode) && chmod(a->path, st.st_mode & 07777 & mode) == -1)
		return -errno;
	if ((uid != (uid_t)-1 || gid != (gid_t)-1) && lchown(a->path, uid, gid) == -1)
		return -errno;
	if (chmod(a->path, mode) == -1)
		return -errno;
	return 0;
}

void cpha_admin_close(struct cpha_admin *a)
{
	if (!a)
		return;
	cpha__reqserv_free(a->srv);
	unlink(a->path);
	free(a->path);
	free(a);
}

/* Wait for events on fd until the deadline. Returns 0, or -ETIMEDOUT. */
static int wait_fd(int fd, short events, uint64_t deadline)
{
	struct pollfd p = { .fd = fd, .events = events };
	uint64_t now;
	int r;

	for (;;) {
		now = cpha_now_usec(CLOCK_MONOTONIC);
		if (now >= deadline)
			return -ETIMEDOUT;
		r = poll(&p, 1, (int)((deadline - now + 999) / 1000));
		if (r == -1 && errno == EINTR)
			continue;
		if (r == -1)
			return -errno;
		if (r > 0)
			return 0;
	}
}

int cpha_admin_query(const char *path, const char *cmd, uint64_t timeout_usec, char **reply)
{
	uint64_t deadline = cpha_now_usec(CLOCK_MONOTONIC) + timeout_usec;
	struct cpha_buf req = { 0 }, in = { 0 };
	struct sockaddr_un sun;
	size_t sent = 0;
	char chunk[4096];
	ssize_t n;
	int fd, r;

	*reply = NULL;
	r = fill_sun(&sun, path);
	if (r < 0)
		return r;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd == -1)
		return -errno;
	if (connect(fd, (struct sockaddr *)&sun, sizeof(sun)) == -1 && errno != EINPROGRESS &&
		errno != EAGAIN) {
		r = -errno;
		goto out;
	}
	r = cpha_buf_printf(&req, "%s\n", cmd);
	while (r == 0 && sent < req.len) {
		r = wait_fd(fd, POLLOUT, deadline);
		if (r < 0)
			break;
		n = send(fd, req.data + sent, req.len - sent, MSG_NOSIGNAL);
		if (n == -1 && (errno == EAGAIN || errno == EINTR))
			continue;
		if (n == -1)
			r = -errno;
		else
			sent += (size_t)n;
	}
	while (r == 0) {
		r = wait_fd(fd, POLLIN, deadline);
		if (r < 0)
			break;
		n = recv(fd, chunk, sizeof(chunk), 0);
		if (n == -1 && (errno == EAGAIN || errno == EINTR))
			continue;
		if (n == -1)
			r = -errno;
		else if (n == 0)
			break;
		else
			r = cpha_buf_append(&in, chunk, (size_t)n);
	}
	if (r == 0) {
		*reply = cpha_buf_steal(&in);
		if (!*reply)
			r = -ENOMEM;
	}
out:
	close(fd);
	cpha_buf_free(&req);
	cpha_buf_free(&in);
	return r;
}

/* ---- the client without blocking ---- */

#define ADMIN_REPLY_MAX (16u << 20) /* bytes: far above any status reply */

struct cpha_admin_req {
	int fd;
	sd_event_source *io, *timer;
	struct cpha_buf in;
	cpha_admin_reply_fn fn;
	void *ud;
};

void cpha_admin_req_cancel(struct cpha_admin_req *q)
{
	if (!q)
		return;
	sd_event_source_disable_unref(q->io);
	sd_event_source_disable_unref(q->timer);
	if (q->fd >= 0)
		close(q->fd);
	cpha_buf_free(&q->in);
	free(q);
}

static void req_done(struct cpha_admin_req *q, int r)
{
	char *reply = NULL;

	if (r == 0 && !(reply = cpha_buf_steal(&q->in)))
		r = -ENOMEM;
	q->fn(q->ud, r, reply);
	cpha_admin_req_cancel(q);
}

static int on_req_io(sd_event_source *s, int fd, uint32_t revents, void *ud)
{
	struct cpha_admin_req *q = ud;
	char chunk[4096];
	ssize_t n;

	(void)s;
	(void)revents;
	for (;;) {
		n = recv(fd, chunk, sizeof(chunk), 0);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1 && errno == EAGAIN)
			return 0;
		if (n == -1) {
			req_done(q, -errno);
			return 0;
		}
		if (n == 0) {
			req_done(q, 0);
			return 0;
		}
		if (q->in.len + (size_t)n > ADMIN_REPLY_MAX) {
			req_done(q, -EMSGSIZE); /* a peer that never stops talking */
			return 0;
		}
		if (cpha_buf_append(&q->in, chunk, (size_t)n) < 0) {
			req_done(q, -ENOMEM);
			return 0;
		}
	}
}

static int on_req_timeout(sd_event_source *s, uint64_t usec, void *ud)
{
	(void)s;
	(void)usec;
	req_done(ud, -ETIMEDOUT);
	return 0;
}

int cpha_admin_query_async(sd_event *e, const char *path, const char *cmd, uint64_t timeout_usec,
	cpha_admin_reply_fn fn, void *userdata, struct cpha_admin_req **out)
{
	struct cpha_admin_req *q;
	struct sockaddr_un sun;
	struct cpha_buf req = { 0 };
	ssize_t n;
	int r;

	*out = NULL;
	r = fill_sun(&sun, path);
	if (r < 0)
		return r;
	q = calloc(1, sizeof(*q));
	if (!q)
		return -ENOMEM;
	q->fn = fn;
	q->ud = userdata;
	q->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (q->fd == -1) {
		r = -errno;
		goto fail;
	}
	/* a listening unix socket accepts at once, or refuses (EAGAIN: its
	 * backlog is full): nothing to wait for */
	if (connect(q->fd, (struct sockaddr *)&sun, sizeof(sun)) == -1) {
		r = -errno;
		goto fail;
	}
	r = cpha_buf_printf(&req, "%s\n", cmd);
	if (r < 0)
		goto fail;
	/* one short line into an empty socket buffer goes whole */
	n = send(q->fd, req.data, req.len, MSG_NOSIGNAL);
	if (n != (ssize_t)req.len) {
		r = n == -1 ? -errno : -EIO;
		goto fail;
	}
	cpha_buf_free(&req);
	r = sd_event_add_io(e, &q->io, q->fd, EPOLLIN, on_req_io, q);
	if (r >= 0)
		r = sd_event_add_time_relative(
			e, &q->timer, CLOCK_MONOTONIC, timeout_usec, 1000, on_req_timeout, q);
	if (r < 0)
		goto fail;
	*out = q;
	return 0;
fail:
	cpha_buf_free(&req);
	cpha_admin_req_cancel(q);
	return r;
}
