/* cpha lab probe: what a client of the apiserver sees, as JSON Lines.
 *
 * Every interval a tick opens a new TLS connection (its own connection
 * pool, a CURLSH, and no TLS session reuse) and on it does GET /readyz,
 * GET of the prober's Lease and a compare-and-swap PUT (POST when absent)
 * carrying an increasing sequence number. Ticks do not wait for each other;
 * each is bounded by --timeout. Meanwhile N watches on the namespace's
 * Leases stay open, each on its own connection, and are reopened as soon
 * as they end. Every outcome is one line of --out, flushed at once. */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <curl/curl.h>
#include <jansson.h>
#include <systemd/sd-event.h>

#include "buf.h"
#include "cpha.h"
#include "curl_opts.h"
#include "duration.h"
#include "event.h"
#include "lab.h"
#include "curl_event.h"
#include "list.h"
#include "log.h"

#define PROBE_RETRY_USEC (100 * CPHA_USEC_PER_MSEC) /* least time between a watch's opens */
#define PROBE_SNIPPET    160                        /* bytes of a body quoted in "err" */
#define PROBE_SEQ_KEY    "cpha.lab/seq"

struct probe_opts {
	const char *server, *cacert, *cert, *key, *server_name, *ns, *lease, *out;
	uint64_t interval, timeout, duration, watch_stall;
	unsigned watches;
};

struct probe {
	struct probe_opts o;
	sd_event *e;
	struct cpha_curl_multi curl;
	FILE *out;
	sd_event_source *tick_timer, *stop_timer;
	uint64_t next_tick; /* CLOCK_MONOTONIC usec */
	char *readyz_url, *lease_url, *leases_url, *watch_url;
	struct curl_slist *connect_to, *json_hdr;
	char holder[128];
	uint64_t seq_next;  /* the last sequence number sent */
	uint64_t seq_acked; /* the highest one acknowledged (2xx) */
	struct cpha_list ticks;
	struct watch *w;
	bool stopping;
	int rc;
};

enum tick_step {
	STEP_READYZ,
	STEP_GET,
	STEP_PUT,
};

static const char *const step_names[] = { "readyz", "lease_get", "lease_put" };

/* What a failed request showed, for the report to tell its cause (see
 * lab_cause.h): curl's result and the OS error under it, how far the
 * connection got, the HTTP status and, for a 5xx, the Status's reason. */
struct probe_fail {
	int curl;      /* CURLcode; -1: no transfer ran (the tick's own timeout) */
	long os_errno; /* CURLINFO_OS_ERRNO */
	bool connected, tls;
	long code;
	char reason[96];
};

struct tick {
	struct cpha_curl_xfer x;
	struct cpha_list link;
	struct probe *p;
	CURLSH *share; /* the tick's own connection pool */
	enum tick_step step;
	uint64_t deadline, started; /* CLOCK_MONOTONIC usec */
	uint64_t acked_at_get;      /* seq_acked when the read was sent */
	uint64_t seq;               /* the sequence number being written */
	bool exists;                /* the Lease was there */
	char rv[64];                /* its resourceVersion */
	char *payload;
	struct cpha_buf body;
	char err[CURL_ERROR_SIZE];
};

struct watch {
	struct cpha_curl_xfer x;
	struct probe *p;
	int idx;
	bool running;   /* in the multi handle */
	bool healthy;   /* delivered an event since it was last (re)opened */
	bool got_event; /* the current stream delivered one */
	uint64_t opened;
	sd_event_source *retry;
	struct cpha_buf snippet; /* start of a non-200 answer */
	char err[CURL_ERROR_SIZE];
};

static double now_unix(void)
{
	return (double)(cpha_now_usec(CLOCK_REALTIME) / CPHA_USEC_PER_MSEC) / 1000.0;
}

static uint64_t now_mono(void)
{
	return cpha_now_usec(CLOCK_MONOTONIC);
}

/* One line: {"t":..,"k":kind, ...extra}. extra is stolen (may be NULL). */
static void emit(struct probe *p, const char *kind, json_t *extra)
{
	json_t *o = json_pack("{sfss}", "t", now_unix(), "k", kind);
	char *s;

	if (o && extra)
		json_object_update(o, extra);
	json_decref(extra);
	s = o ? json_dumps(o, JSON_COMPACT | JSON_REAL_PRECISION(13)) : NULL;
	json_decref(o);
	if (!s || fprintf(p->out, "%s\n", s) < 0 || fflush(p->out) == EOF) {
		if (!p->rc)
			log_err("lab probe: %s: %s", p->o.out,
				s ? strerror(errno) : "out of memory");
		p->rc = CPHA_EXIT_FAIL;
		if (!p->stopping)
			sd_event_exit(p->e, 0);
	}
	free(s);
}

/* The printable start of a body, for "err". */
static void snippet(const char *s, size_t len, char *out, size_t size)
{
	size_t n = 0;

	for (size_t i = 0; i < len && n + 1 < size && i < PROBE_SNIPPET; i++)
		out[n++] = isprint((unsigned char)s[i]) ? s[i] : ' ';
	while (n && out[n - 1] == ' ')
		n--;
	out[n] = '\0';
}

static size_t on_body(char *data, size_t size, size_t n, void *userdata)
{
	struct cpha_buf *b = userdata;

	if (b->len < (1 << 20) && cpha_buf_append(b, data, size * n) < 0)
		return 0;
	return size * n;
}

/* What every transfer shares: TLS, no proxy, HTTP/1.1, the server name. */
static void common_opts(struct probe *p, CURL *h, char *errbuf)
{
	const struct cpha_curl_tls tls = {
		.ca = p->o.cacert, .cert = p->o.cert, .key = p->o.key, .verify = true
	};

	cpha_curl_client_opts(h, "cpha-lab-probe/" CPHA_VERSION, errbuf, &tls);
	curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "https");
	curl_easy_setopt(h, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_1_1);
	curl_easy_setopt(h, CURLOPT_SSL_SESSIONID_CACHE, 0L); /* a full handshake each time */
	curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS,
		(long)(p->o.timeout / CPHA_USEC_PER_MSEC ? p->o.timeout / CPHA_USEC_PER_MSEC : 1));
	if (p->connect_to)
		curl_easy_setopt(h, CURLOPT_CONNECT_TO, p->connect_to);
}

/* ---------------------------------------------------------------- ticks */

static void tick_free(struct tick *t)
{
	cpha_list_del(&t->link);
	if (t->x.h)
		curl_easy_cleanup(t->x.h);
	if (t->share)
		curl_share_cleanup(t->share);
	cpha_buf_free(&t->body);
	free(t->payload);
	free(t);
}

static void tick_done(struct cpha_curl_xfer *x, CURLcode result);

/* The Lease as this write states it. */
static char *lease_body(struct probe *p, struct tick *t)
{
	char renew[40], seq[24];
	struct timespec ts;
	struct tm tm;
	json_t *meta, *o;
	char *s;

	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	strftime(renew, sizeof(renew), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(
		renew + strlen(renew), sizeof(renew) - strlen(renew), ".%06ldZ", ts.tv_nsec / 1000);
	snprintf(seq, sizeof(seq), "%llu", (unsigned long long)t->seq);
	meta = json_pack("{ssss s{ss}}", "name", p->o.lease, "namespace", p->o.ns, "annotations",
		PROBE_SEQ_KEY, seq);
	if (meta && t->exists)
		json_object_set_new(meta, "resourceVersion", json_string(t->rv));
	o = json_pack("{ssssso s{sssssi}}", "apiVersion", "coordination.k8s.io/v1", "kind", "Lease",
		"metadata", meta, "spec", "holderIdentity", p->holder, "renewTime", renew,
		"leaseDurationSeconds", 15);
	s = o ? json_dumps(o, JSON_COMPACT) : NULL;
	json_decref(o);
	return s;
}

/* Start the tick's next request on its connection. Returns 0 or -1 with
 * t->err set. */
static int tick_send(struct tick *t)
{
	struct probe *p = t->p;
	CURL *h = t->x.h;
	uint64_t now = now_mono();

	if (now >= t->deadline) {
		snprintf(t->err, sizeof(t->err), "tick timed out before %s was sent",
			step_names[t->step]);
		return -1;
	}
	cpha_buf_reset(&t->body);
	t->err[0] = '\0';
	/* the first request connects; the others reuse that connection */
	curl_easy_setopt(h, CURLOPT_FRESH_CONNECT, t->step == STEP_READYZ ? 1L : 0L);
	curl_easy_setopt(
		h, CURLOPT_TIMEOUT_MS, (long)((t->deadline - now) / CPHA_USEC_PER_MSEC ?: 1));
	switch (t->step) {
	case STEP_READYZ:
		curl_easy_setopt(h, CURLOPT_URL, p->readyz_url);
		break;
	case STEP_GET:
		t->acked_at_get = p->seq_acked;
		curl_easy_setopt(h, CURLOPT_URL, p->lease_url);
		break;
	case STEP_PUT:
		t->seq = ++p->seq_next;
		free(t->payload);
		t->payload = lease_body(p, t);
		if (!t->payload) {
			snprintf(t->err, sizeof(t->err), "out of memory");
			return -1;
		}
		curl_easy_setopt(h, CURLOPT_URL, t->exists ? p->lease_url : p->leases_url);
		curl_easy_setopt(h, CURLOPT_HTTPHEADER, p->json_hdr);
		curl_easy_setopt(h, CURLOPT_POSTFIELDS, t->payload);
		curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, t->exists ? "PUT" : NULL);
		curl_easy_setopt(h, CURLOPT_FORBID_REUSE, 1L); /* the tick's last request */
		break;
	}
	t->started = now_mono();
	if (cpha_curl_multi_add(&p->curl, &t->x) < 0) {
		snprintf(t->err, sizeof(t->err), "curl_multi_add_handle failed");
		return -1;
	}
	return 0;
}

/* The fields of f into a failed request's line (o may be NULL). */
static json_t *fail_fields(json_t *o, const struct probe_fail *f)
{
	if (!o)
		return NULL;
	if (f->curl >= 0)
		json_object_set_new(o, "curl", json_integer(f->curl));
	json_object_set_new(o, "errno", json_integer(f->os_errno));
	json_object_set_new(o, "connected", json_boolean(f->connected));
	json_object_set_new(o, "tls", json_boolean(f->tls));
	if (f->reason[0])
		json_object_set_new(o, "reason", json_string(f->reason));
	return o;
}

/* The rest of the tick cannot run: one failed line for each request left,
 * with what the failed step showed (f), marked not_sent. */
static void tick_fail_rest(
	struct tick *t, enum tick_step from, const char *why, const struct probe_fail *f)
{
	static const struct probe_fail none = { .curl = -1 };

	for (int s = (int)from; s <= STEP_PUT; s++)
		emit(t->p, step_names[s],
			fail_fields(
				json_pack("{sbsisIsssb}", "ok", 0, "ms", 0, "code",
					(json_int_t)(f ? f->code : 0), "err", why, "not_sent", 1),
				f ? f : &none));
	tick_free(t);
}

/* What the failed transfer of t showed. reused: the step ran on the
 * connection an earlier step of the tick made. */
static void fail_observe(struct tick *t, CURLcode result, long code, struct probe_fail *f)
{
	curl_off_t connect = 0, appconnect = 0;
	long nconn = 0, os_errno = 0;
	bool reused;

	memset(f, 0, sizeof(*f));
	f->curl = (int)result;
	f->code = code;
	curl_easy_getinfo(t->x.h, CURLINFO_OS_ERRNO, &os_errno);
	curl_easy_getinfo(t->x.h, CURLINFO_NUM_CONNECTS, &nconn);
	curl_easy_getinfo(t->x.h, CURLINFO_CONNECT_TIME_T, &connect);
	curl_easy_getinfo(t->x.h, CURLINFO_APPCONNECT_TIME_T, &appconnect);
	f->os_errno = os_errno;
	reused = t->step != STEP_READYZ && nconn == 0 && connect == 0;
	/* a connect that failed made no connection and timed none */
	f->connected = result != CURLE_COULDNT_CONNECT && (reused || connect > 0 || code > 0);
	f->tls = f->connected && (reused || appconnect > 0 || code > 0);
}

static void tick_start(struct probe *p)
{
	struct tick *t = calloc(1, sizeof(*t));

	if (!t) {
		log_err("lab probe: out of memory");
		return;
	}
	t->p = p;
	cpha_list_append(&p->ticks, &t->link);
	t->deadline = now_mono() + p->o.timeout;
	t->x.done = tick_done;
	t->x.h = curl_easy_init();
	t->share = curl_share_init();
	if (!t->x.h || !t->share) {
		tick_fail_rest(t, STEP_READYZ, "out of memory", NULL);
		return;
	}
	curl_share_setopt(t->share, CURLSHOPT_SHARE, CURL_LOCK_DATA_CONNECT);
	common_opts(p, t->x.h, t->err);
	curl_easy_setopt(t->x.h, CURLOPT_SHARE, t->share);
	curl_easy_setopt(t->x.h, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(t->x.h, CURLOPT_WRITEDATA, &t->body);
	t->step = STEP_READYZ;
	if (tick_send(t) < 0)
		tick_fail_rest(t, STEP_READYZ, t->err, NULL);
}

/* The sequence number a Lease read carries; 0 when none. */
static uint64_t lease_seq(json_t *lease, char *rv, size_t rvlen)
{
	json_t *meta = json_object_get(lease, "metadata");
	const char *s = json_string_value(json_object_get(meta, "resourceVersion"));
	const char *seq = json_string_value(
		json_object_get(json_object_get(meta, "annotations"), PROBE_SEQ_KEY));

	snprintf(rv, rvlen, "%s", s ? s : "");
	return seq ? strtoull(seq, NULL, 10) : 0;
}

/* A Kubernetes Status's reason and message ("InternalError: etcdserver:
 * request timed out"), or "" when the body is not one. */
static void status_reason(const struct cpha_buf *body, char *out, size_t size)
{
	json_t *o = json_loads(body->data ? body->data : "", 0, NULL);
	const char *reason = json_string_value(json_object_get(o, "reason"));
	const char *msg = json_string_value(json_object_get(o, "message"));

	out[0] = '\0';
	if (reason || msg)
		snprintf(out, size, "%s%s%s", reason ? reason : "", reason && msg ? ": " : "",
			msg ? msg : "");
	json_decref(o);
}

static void tick_done(struct cpha_curl_xfer *x, CURLcode result)
{
	struct tick *t = (struct tick *)x;
	struct probe *p = t->p;
	enum tick_step step = t->step;
	long code = 0;
	long ms = (long)((now_mono() - t->started) / CPHA_USEC_PER_MSEC);
	char why[CURL_ERROR_SIZE + 64];
	uint64_t seq = 0;
	bool ok, has_seq = false, conflict = false;
	struct probe_fail f = { .curl = -1 };
	json_t *extra;

	if (result != CURLE_OK) {
		fail_observe(t, result, 0, &f);
		snprintf(why, sizeof(why), "%s", t->err[0] ? t->err : curl_easy_strerror(result));
		emit(p, step_names[step],
			fail_fields(json_pack("{sbsisiss}", "ok", 0, "ms", (int)ms, "code", 0,
					    "err", why),
				&f));
		if (step < STEP_PUT) {
			snprintf(why, sizeof(why), "not sent: %s failed: %s", step_names[step],
				t->err[0] ? t->err : curl_easy_strerror(result));
			tick_fail_rest(t, step + 1, why, &f);
		} else {
			tick_free(t);
		}
		return;
	}
	curl_easy_getinfo(x->h, CURLINFO_RESPONSE_CODE, &code);
	switch (step) {
	case STEP_READYZ:
		ok = code == 200;
		break;
	case STEP_GET:
		ok = code == 200 || code == 404;
		t->exists = code == 200;
		if (code == 200) {
			json_t *o = json_loads(t->body.data ? t->body.data : "", 0, NULL);

			/* an answer that is not a Lease is a failed read, not a lost write */
			ok = t->exists = json_is_object(o);
			seq = lease_seq(o, t->rv, sizeof(t->rv));
			has_seq = ok;
			json_decref(o);
		} else if (code == 404 && t->acked_at_get) {
			has_seq = true; /* gone: it holds no write at all */
		}
		if (ok && seq < t->acked_at_get)
			emit(p, "lost_write",
				json_pack("{sIsI}", "seq_read", (json_int_t)seq, "seq_acked",
					(json_int_t)t->acked_at_get));
		/* a Lease left by an earlier prober: keep the numbers increasing */
		if (seq > p->seq_next)
			p->seq_next = seq;
		break;
	default:
		ok = code >= 200 && code < 300;
		has_seq = ok;
		seq = t->seq;
		if (ok && t->seq > p->seq_acked)
			p->seq_acked = t->seq;
		/* 409: another of our ticks wrote first (Conflict) or created the
		 * Lease first (AlreadyExists). The compare-and-swap worked: the
		 * apiserver answered correctly, nothing was acknowledged. */
		conflict = code == 409;
		break;
	}
	extra = json_pack("{sbsisi}", "ok", ok || conflict, "ms", (int)ms, "code", (int)code);
	if (conflict)
		json_object_set_new(extra, "conflict", json_true());
	if (!ok && !conflict) {
		fail_observe(t, CURLE_OK, code, &f);
		if (code >= 500)
			status_reason(&t->body, f.reason, sizeof(f.reason));
		snippet(t->body.data ? t->body.data : "", t->body.len, why, sizeof(why));
		json_object_set_new(extra, "err", json_string(why));
		fail_fields(extra, &f);
	}
	if (has_seq)
		json_object_set_new(extra, "seq", json_integer((json_int_t)seq));
	emit(p, step_names[step], extra);
	if (step == STEP_PUT || p->stopping) {
		tick_free(t);
		return;
	}
	if (step == STEP_GET && !ok) {
		snprintf(why, sizeof(why), "not sent: lease_get answered %ld", code);
		tick_fail_rest(t, STEP_PUT, why, &f);
		return;
	}
	t->step = step + 1;
	if (tick_send(t) < 0) {
		/* the tick's own deadline: its connection was up */
		f = (struct probe_fail){ .curl = -1, .connected = true, .tls = true };
		tick_fail_rest(t, t->step, t->err, &f);
	}
}

static int on_tick(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct probe *p = userdata;
	uint64_t now = now_mono();

	(void)usec;
	tick_start(p);
	/* a fixed rate: the next tick is due one interval after this one was,
	 * unless the loop fell more than an interval behind */
	p->next_tick += p->o.interval;
	if (p->next_tick <= now)
		p->next_tick = now + p->o.interval;
	return cpha_timer_rearm(s, p->next_tick - now);
}

/* -------------------------------------------------------------- watches */

static void watch_done(struct cpha_curl_xfer *x, CURLcode result);

static size_t on_watch_data(char *data, size_t size, size_t n, void *userdata)
{
	struct watch *w = userdata;
	long code = 0;

	curl_easy_getinfo(w->x.h, CURLINFO_RESPONSE_CODE, &code);
	if (code != 200) {
		if (w->snippet.len < PROBE_SNIPPET)
			cpha_buf_append(&w->snippet, data, size * n);
		return size * n;
	}
	/* the first complete event line of this stream */
	if (!w->got_event && memchr(data, '\n', size * n)) {
		w->got_event = true;
		if (!w->healthy) {
			w->healthy = true;
			emit(w->p, "watch_open", json_pack("{si}", "w", w->idx));
		}
	}
	return size * n;
}

static int watch_open(struct watch *w)
{
	w->got_event = false;
	w->err[0] = '\0';
	cpha_buf_reset(&w->snippet);
	w->opened = now_mono();
	if (cpha_curl_multi_add(&w->p->curl, &w->x) < 0)
		return -1;
	w->running = true;
	return 0;
}

static int on_watch_retry(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct watch *w = userdata;

	(void)s;
	(void)usec;
	if (!w->p->stopping && watch_open(w) < 0)
		log_err("lab probe: watch %d: cannot start a transfer", w->idx);
	return 0;
}

static void watch_done(struct cpha_curl_xfer *x, CURLcode result)
{
	struct watch *w = (struct watch *)x;
	uint64_t now = now_mono(), wait = 0;
	char why[CURL_ERROR_SIZE + PROBE_SNIPPET + 32], body[PROBE_SNIPPET + 1];
	long code = 0;

	w->running = false;
	if (w->p->stopping)
		return;
	curl_easy_getinfo(x->h, CURLINFO_RESPONSE_CODE, &code);
	if (result != CURLE_OK) {
		snprintf(why, sizeof(why), "%s", w->err[0] ? w->err : curl_easy_strerror(result));
	} else if (code != 200) {
		snippet(w->snippet.data ? w->snippet.data : "", w->snippet.len, body, sizeof(body));
		snprintf(why, sizeof(why), "HTTP %ld: %s", code, body);
	} else {
		snprintf(why, sizeof(why), "the server ended the stream");
	}
	/* a reopen that fails again is the same break, not a new one */
	if (w->healthy) {
		w->healthy = false;
		emit(w->p, "watch_break", json_pack("{siss}", "w", w->idx, "err", why));
	}
	if (now < w->opened + PROBE_RETRY_USEC)
		wait = w->opened + PROBE_RETRY_USEC - now;
	if (cpha_timer_rearm(w->retry, wait) < 0)
		log_err("lab probe: watch %d: cannot schedule its reopening", w->idx);
}

static int watches_start(struct probe *p)
{
	long stall = (long)(p->o.watch_stall / CPHA_USEC_PER_SEC);

	p->w = calloc(p->o.watches ? p->o.watches : 1, sizeof(*p->w));
	if (!p->w)
		return -1;
	for (unsigned i = 0; i < p->o.watches; i++) {
		struct watch *w = &p->w[i];

		w->p = p;
		w->idx = (int)i;
		w->x.done = watch_done;
		w->x.h = curl_easy_init();
		if (!w->x.h || sd_event_add_time_relative(p->e, &w->retry, CLOCK_MONOTONIC,
				       PROBE_RETRY_USEC, 1, on_watch_retry, w) < 0)
			return -1;
		sd_event_source_set_enabled(w->retry, SD_EVENT_OFF);
		common_opts(p, w->x.h, w->err);
		curl_easy_setopt(w->x.h, CURLOPT_URL, p->watch_url);
		curl_easy_setopt(w->x.h, CURLOPT_FRESH_CONNECT, 1L);
		curl_easy_setopt(w->x.h, CURLOPT_FORBID_REUSE, 1L);
		curl_easy_setopt(w->x.h, CURLOPT_WRITEFUNCTION, on_watch_data);
		curl_easy_setopt(w->x.h, CURLOPT_WRITEDATA, w);
		/* a stream silent for --watch-stall is broken (a powered-off host
		 * sends no reset) */
		curl_easy_setopt(w->x.h, CURLOPT_LOW_SPEED_LIMIT, 1L);
		curl_easy_setopt(w->x.h, CURLOPT_LOW_SPEED_TIME, stall ? stall : 1L);
		curl_easy_setopt(w->x.h, CURLOPT_TCP_KEEPALIVE, 1L);
		if (watch_open(w) < 0)
			return -1;
	}
	return 0;
}

/* ------------------------------------------------------------ lifecycle */

static void probe_stop(void *userdata, int signo)
{
	struct probe *p = userdata;

	(void)signo;
	if (p->stopping)
		return;
	p->stopping = true;
	sd_event_source_set_enabled(p->tick_timer, SD_EVENT_OFF);
	/* requests in flight at the stop are not reported: they have no outcome */
	while (!cpha_list_empty(&p->ticks)) {
		struct tick *t = cpha_container_of(p->ticks.next, struct tick, link);

		cpha_curl_multi_remove(&p->curl, &t->x);
		tick_free(t);
	}
	for (unsigned i = 0; p->w && i < p->o.watches; i++)
		if (p->w[i].running) {
			cpha_curl_multi_remove(&p->curl, &p->w[i].x);
			p->w[i].running = false;
		}
	emit(p, "stop", NULL);
	sd_event_exit(p->e, 0);
}

static int on_duration(sd_event_source *s, uint64_t usec, void *userdata)
{
	(void)s;
	(void)usec;
	probe_stop(userdata, 0);
	return 0;
}

/* Kubernetes names: lowercase alphanumerics, '-' and '.', so they go into a
 * URL as they are. */
static bool dns_name(const char *s)
{
	if (!*s || strlen(s) > 253)
		return false;
	for (; *s; s++)
		if (!islower((unsigned char)*s) && !isdigit((unsigned char)*s) && *s != '-' &&
			*s != '.')
			return false;
	return true;
}

/* The URLs from --server (and --server-name). Returns 0 or -1 with *why. */
static int make_urls(struct probe *p, const char **why)
{
	CURLU *u = curl_url();
	char *host = NULL, *port = NULL, *scheme = NULL, *base = NULL;
	struct cpha_buf b = { 0 };
	int rc = -1;

	/* an IPv6 address without its brackets reads as a bad port */
	*why = strchr(p->o.server, '[') || !strstr(p->o.server, "::")
		       ? "--server: not an https:// URL"
		       : "--server: not an https:// URL (an IPv6 address goes in brackets: "
			 "https://[2001:db8::2]:6443)";
	if (!u || curl_url_set(u, CURLUPART_URL, p->o.server, 0) != CURLUE_OK ||
		curl_url_get(u, CURLUPART_SCHEME, &scheme, 0) != CURLUE_OK ||
		strcmp(scheme, "https") || curl_url_get(u, CURLUPART_HOST, &host, 0) != CURLUE_OK ||
		curl_url_get(u, CURLUPART_PORT, &port, CURLU_DEFAULT_PORT) != CURLUE_OK)
		goto out;
	if (p->o.server_name) {
		*why = "--server-name: not a host name";
		if (!dns_name(p->o.server_name))
			goto out;
		cpha_buf_printf(&b, "%s:%s:%s:%s", p->o.server_name, port, host, port);
		p->connect_to = curl_slist_append(NULL, b.data ? b.data : "");
		cpha_buf_reset(&b);
	}
	cpha_buf_printf(&b, "https://%s:%s", p->o.server_name ? p->o.server_name : host, port);
	base = cpha_buf_steal(&b);
	*why = "out of memory";
	if (!base || (p->o.server_name && !p->connect_to))
		goto out;
	cpha_buf_printf(&b, "%s/readyz", base);
	p->readyz_url = cpha_buf_steal(&b);
	cpha_buf_printf(&b, "%s/apis/coordination.k8s.io/v1/namespaces/%s/leases", base, p->o.ns);
	p->leases_url = cpha_buf_steal(&b);
	cpha_buf_printf(&b, "%s/%s", p->leases_url ? p->leases_url : "", p->o.lease);
	p->lease_url = cpha_buf_steal(&b);
	cpha_buf_printf(&b, "%s?watch=true", p->leases_url ? p->leases_url : "");
	p->watch_url = cpha_buf_steal(&b);
	p->json_hdr = curl_slist_append(NULL, "Content-Type: application/json");
	if (p->readyz_url && p->leases_url && p->lease_url && p->watch_url && p->json_hdr)
		rc = 0;
out:
	curl_free(host);
	curl_free(port);
	curl_free(scheme);
	free(base);
	cpha_buf_free(&b);
	curl_url_cleanup(u);
	return rc;
}

static void probe_usage(FILE *f)
{
	fprintf(f, "usage: cpha lab probe --server URL --cacert FILE --cert FILE --key FILE\n"
		   "         [--server-name NAME] [--interval DURATION] [--watches N]\n"
		   "         [--namespace NS] [--lease NAME] [--timeout DURATION]\n"
		   "         [--watch-stall DURATION] [--out FILE] [--duration DURATION]\n");
}

static int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Print "cpha lab probe: what" and the usage; returns the usage exit status. */
static int usage_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "cpha lab probe: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	probe_usage(stderr);
	return CPHA_EXIT_USAGE;
}

/* Options into o. Returns -1 to go on, or the exit status (a usage error,
 * --help). */
static int parse_opts(int argc, char **argv, struct probe_opts *o)
{
	static const struct option opts[] = {
		{ "server", required_argument, NULL, 's' },
		{ "cacert", required_argument, NULL, 'C' },
		{ "cert", required_argument, NULL, 'c' },
		{ "key", required_argument, NULL, 'k' },
		{ "server-name", required_argument, NULL, 'S' },
		{ "interval", required_argument, NULL, 'i' },
		{ "watches", required_argument, NULL, 'w' },
		{ "namespace", required_argument, NULL, 'n' },
		{ "lease", required_argument, NULL, 'l' },
		{ "timeout", required_argument, NULL, 't' },
		{ "watch-stall", required_argument, NULL, 'W' },
		{ "out", required_argument, NULL, 'o' },
		{ "duration", required_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *why;
	uint64_t *dur;
	char *end;
	int c, li;

	*o = (struct probe_opts){ .interval = 100 * CPHA_USEC_PER_MSEC,
		.timeout = 2 * CPHA_USEC_PER_SEC,
		.watch_stall = 5 * CPHA_USEC_PER_SEC,
		.watches = 50,
		.ns = "kube-system",
		.lease = "cpha-lab-probe",
		.out = "-" };
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+h", opts, &li)) != -1) {
		dur = NULL;
		switch (c) {
		case 's':
			o->server = optarg;
			break;
		case 'C':
			o->cacert = optarg;
			break;
		case 'c':
			o->cert = optarg;
			break;
		case 'k':
			o->key = optarg;
			break;
		case 'S':
			o->server_name = optarg;
			break;
		case 'n':
			o->ns = optarg;
			break;
		case 'l':
			o->lease = optarg;
			break;
		case 'o':
			o->out = optarg;
			break;
		case 'w': {
			unsigned long v;

			errno = 0;
			v = strtoul(optarg, &end, 10);
			if (errno || *end || !*optarg || *optarg == '-' || v > 10000)
				return usage_error(
					"--watches %s: not a number from 0 to 10000", optarg);
			o->watches = (unsigned)v;
			break;
		}
		case 'i':
			dur = &o->interval;
			break;
		case 't':
			dur = &o->timeout;
			break;
		case 'W':
			dur = &o->watch_stall;
			break;
		case 'd':
			dur = &o->duration;
			break;
		case 'h':
			probe_usage(stdout);
			return CPHA_EXIT_OK;
		default:
			return usage_error("%s: unknown option or missing value", argv[optind - 1]);
		}
		if (dur && cpha_parse_duration(optarg, CPHA_USEC_PER_MSEC, dur, &why) < 0)
			return usage_error(
				"--%s %s: %s", opts[li].name, optarg, why ? why : "out of range");
		if (dur && !*dur)
			return usage_error("--%s %s: must be more than 0", opts[li].name, optarg);
	}
	if (optind < argc)
		return usage_error("unexpected argument %s", argv[optind]);
	if (!o->server || !o->cacert || !o->cert || !o->key)
		return usage_error("--server, --cacert, --cert and --key are required");
	if (o->interval < CPHA_USEC_PER_MSEC)
		return usage_error("--interval: at least 1ms");
	if (o->watch_stall < CPHA_USEC_PER_SEC)
		return usage_error("--watch-stall: at least 1s");
	if (!dns_name(o->ns) || !dns_name(o->lease))
		return usage_error(
			"--namespace %s / --lease %s: not a Kubernetes name", o->ns, o->lease);
	return -1;
}

static void probe_free(struct probe *p)
{
	while (!cpha_list_empty(&p->ticks))
		tick_free(cpha_container_of(p->ticks.next, struct tick, link));
	for (unsigned i = 0; p->w && i < p->o.watches; i++) {
		if (p->w[i].running)
			cpha_curl_multi_remove(&p->curl, &p->w[i].x);
		if (p->w[i].x.h)
			curl_easy_cleanup(p->w[i].x.h);
		sd_event_source_disable_unref(p->w[i].retry);
		cpha_buf_free(&p->w[i].snippet);
	}
	free(p->w);
	cpha_curl_multi_free(&p->curl);
	sd_event_source_disable_unref(p->tick_timer);
	sd_event_source_disable_unref(p->stop_timer);
	curl_slist_free_all(p->connect_to);
	curl_slist_free_all(p->json_hdr);
	free(p->readyz_url);
	free(p->lease_url);
	free(p->leases_url);
	free(p->watch_url);
	if (p->out && p->out != stdout)
		fclose(p->out);
	sd_event_unref(p->e);
}

int cmd_lab_probe(int argc, char **argv)
{
	static const struct cpha_event_ops ops = { .stop = probe_stop };
	struct probe p = { .rc = CPHA_EXIT_OK };
	char host[64] = "localhost";
	const char *why;
	int r, rc;

	cpha_list_init(&p.ticks);
	rc = parse_opts(argc, argv, &p.o);
	if (rc >= 0)
		return rc;
	if (make_urls(&p, &why) < 0) {
		rc = usage_error("%s", why);
		probe_free(&p);
		return rc;
	}
	for (const char *const *f = (const char *const[]){ p.o.cacert, p.o.cert, p.o.key, NULL };
		*f; f++)
		if (access(*f, R_OK) < 0) {
			fprintf(stderr, "cpha lab probe: %s: %s\n", *f, strerror(errno));
			probe_free(&p);
			return CPHA_EXIT_FAIL;
		}
	p.out = strcmp(p.o.out, "-") ? fopen(p.o.out, "ae") : stdout;
	if (!p.out) {
		fprintf(stderr, "cpha lab probe: %s: %s\n", p.o.out, strerror(errno));
		probe_free(&p);
		return CPHA_EXIT_FAIL;
	}
	gethostname(host, sizeof(host) - 1);
	snprintf(p.holder, sizeof(p.holder), "cpha-lab-probe@%s", host);
	rc = CPHA_EXIT_SOFTWARE;
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
		log_err("lab probe: curl_global_init failed");
		probe_free(&p);
		return rc;
	}
	r = sd_event_new(&p.e);
	if (r >= 0)
		r = cpha_event_setup(p.e, &ops, &p);
	if (r >= 0)
		r = cpha_curl_multi_init(&p.curl, p.e);
	if (r >= 0)
		r = sd_event_add_time_relative(
			p.e, &p.tick_timer, CLOCK_MONOTONIC, 0, 1, on_tick, &p); /* 1 us accuracy */
	if (r >= 0 && p.o.duration)
		r = sd_event_add_time_relative(
			p.e, &p.stop_timer, CLOCK_MONOTONIC, p.o.duration, 0, on_duration, &p);
	if (r < 0) {
		log_err("lab probe: event loop: %s", strerror(-r));
		goto out;
	}
	p.next_tick = now_mono();
	emit(&p, "start",
		json_pack("{sssisi}", "server", p.o.server, "interval_ms",
			(int)(p.o.interval / CPHA_USEC_PER_MSEC), "watches", (int)p.o.watches));
	if (watches_start(&p) < 0) {
		log_err("lab probe: cannot start the watches");
		goto out;
	}
	r = sd_event_loop(p.e);
	if (r < 0) {
		log_err("lab probe: event loop: %s", strerror(-r));
		goto out;
	}
	rc = p.rc;
out:
	probe_free(&p);
	curl_global_cleanup();
	return rc;
}
