/* The etcd agent's cluster ID record in Pacemaker's CIB (crm_attribute),
 * its data dir's cluster ID (the WAL) and whether another member's etcd
 * runs; etcd_record.c decides what they mean. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "etcd_agent.h"
#include "etcd_api.h"
#include "etcd_cib.h"
#include "etcd_record.h"
#include "log.h"

#define CRM_EX_NOSUCH      105       /* crm_attribute: no such property */
#define ETCD_CIB_CALL_USEC 10000000U /* one crm_attribute run */

/* Run by Pacemaker (its executor passes crm_feature_set to every action),
 * or pointed at a CIB file: a record is expected to be readable. */
static bool cib_expected(const struct etcd *e)
{
	return ocf_env(e->c, "OCF_RESKEY_crm_feature_set") || getenv("CIB_file");
}

/* A note about reading the record, logged once while it stays the same:
 * a start reads the record every round (once a second). */
static void read_note(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void read_note(int level, const char *fmt, ...)
{
	static char last[512];
	char text[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	if (strcmp(text, last) == 0)
		return;
	snprintf(last, sizeof(last), "%s", text);
	cpha_log(level, "%s", text);
}

static uint64_t cib_timeout(const struct etcd *e)
{
	return etcd_api_timeout(e, ETCD_CIB_CALL_USEC);
}

enum etcd_record_state etcd_record_read(const struct etcd *e, uint64_t *id)
{
	const char *const argv[] = { "crm_attribute", "--type", "crm_config", "--name",
		ETCD_RECORD_NAME, "--query", "--quiet", NULL };
	struct cpha_run_result res;
	enum etcd_record_state s;
	char line[128] = "";
	int r;

	*id = 0;
	r = ocf_run(argv, cib_timeout(e), &res);
	if (r < 0) {
		/* no Pacemaker tools on this host: nothing keeps a record */
		read_note(LOG_INFO, "crm_attribute: %s: the etcd cluster ID is not recorded",
			strerror(-r));
		return cib_expected(e) ? ETCD_REC_UNREADABLE : ETCD_REC_OFF;
	}
	if (res.exited && res.exit_code == 0) {
		ocf_first_line(res.out, line, sizeof(line));
		if (etcd_id_parse(line, id) == 0) {
			s = ETCD_REC_SET;
			goto out;
		}
		/* a value nobody can use: refuse the way an unreadable CIB does */
		read_note(LOG_ERR,
			"cluster property %s=%s is not an etcd cluster ID (hex); fix it with "
			"crm_attribute --type crm_config --name %s --update ID",
			ETCD_RECORD_NAME, line, ETCD_RECORD_NAME);
		s = ETCD_REC_UNREADABLE;
		goto out;
	}
	if (res.exited && res.exit_code == CRM_EX_NOSUCH) {
		s = ETCD_REC_NONE;
		goto out;
	}
	ocf_first_line(res.err, line, sizeof(line));
	s = cib_expected(e) ? ETCD_REC_UNREADABLE : ETCD_REC_OFF;
	if (s == ETCD_REC_OFF)
		read_note(LOG_INFO,
			"crm_attribute: %s (not run by Pacemaker): the etcd cluster ID is "
			"not recorded",
			res.timed_out ? "timed out" : str_or(line, "failed"));
	else
		read_note(LOG_WARNING, "reading cluster property %s: crm_attribute: %s",
			ETCD_RECORD_NAME, res.timed_out ? "timed out" : str_or(line, "failed"));
out:
	cpha_run_free(&res);
	return s;
}

int etcd_record_write(const struct etcd *e, uint64_t id)
{
	char value[24], line[256] = "";
	const char *const argv[] = { "crm_attribute", "--type", "crm_config", "--name",
		ETCD_RECORD_NAME, "--update", value, NULL };
	struct cpha_run_result res;
	int r;

	snprintf(value, sizeof(value), "%" PRIx64, id);
	r = ocf_run(argv, cib_timeout(e), &res);
	if (r < 0) {
		log_warn("recording etcd cluster %s: crm_attribute: %s", value, strerror(-r));
		return -1;
	}
	if (!res.exited || res.exit_code != 0) {
		ocf_first_line(res.err, line, sizeof(line));
		log_warn("recording etcd cluster %s: crm_attribute: %s", value,
			res.timed_out ? "timed out" : str_or(line, "failed"));
		cpha_run_free(&res);
		return -1;
	}
	cpha_run_free(&res);
	log_notice("recorded etcd cluster %s in the CIB (cluster property %s)", value,
		ETCD_RECORD_NAME);
	return 0;
}

/* The first WAL file in name order: every one starts with the metadata. */
uint64_t etcd_data_cluster_id(const struct etcd *e)
{
	char dir[PATH_MAX], path[PATH_MAX + NAME_MAX + 2], first[NAME_MAX + 1] = "";
	unsigned char buf[4096];
	uint64_t cluster = 0, member = 0;
	const char *why;
	struct dirent *de;
	ssize_t n;
	DIR *d;
	int fd;

	snprintf(dir, sizeof(dir), "%s/member/wal", e->data_dir);
	d = opendir(dir);
	if (!d) {
		log_info("%s: %s: the data's cluster ID is checked once etcd runs", dir,
			strerror(errno));
		return 0;
	}
	while ((de = readdir(d))) {
		size_t len = strlen(de->d_name);

		if (len > 4 && strcmp(de->d_name + len - 4, ".wal") == 0 &&
			(!*first || strcmp(de->d_name, first) < 0))
			snprintf(first, sizeof(first), "%s", de->d_name);
	}
	closedir(d);
	if (!*first) {
		log_info("%s holds no WAL file: the data's cluster ID is checked once etcd runs",
			dir);
		return 0;
	}
	snprintf(path, sizeof(path), "%s/%s", dir, first);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd == -1) {
		log_info("%s: %s: the data's cluster ID is checked once etcd runs", path,
			strerror(errno));
		return 0;
	}
	n = read(fd, buf, sizeof(buf));
	close(fd);
	if (n < 0 || etcd_wal_ids(buf, (size_t)n, &cluster, &member, &why) < 0) {
		log_info("%s: %s: the data's cluster ID is checked once etcd runs", path,
			n < 0 ? strerror(errno) : why);
		return 0;
	}
	log_debug("%s: cluster %" PRIx64 ", member %" PRIx64, path, cluster, member);
	return cluster;
}

/* Another member of the map whose etcd answers on its peer URL (it runs,
 * with data, perhaps waiting for a majority): its name, or NULL. */
const char *etcd_peer_running(const struct etcd *e)
{
	struct api_res res = { 0 };
	const char *who = NULL;
	size_t i;

	for (i = 0; i < e->map.n && !who; i++) {
		const struct etcd_node *n = &e->map.v[i];

		if (n == e->me || ocf_left(e->c) == 0)
			continue;
		if (etcd_api_tls_call(&e->peer, n->peer_url, "/version", NULL,
			    etcd_api_timeout(e, ETCD_PROBE_USEC), &res) == 0 &&
			res.status == 200)
			who = n->name;
	}
	cpha_buf_free(&res.body);
	return who;
}

void etcd_id_round_free(struct etcd_id_round *r)
{
	free(r->initial);
	r->initial = NULL;
}

void etcd_cib_gate(struct etcd *e, struct etcd_id_round *r, const struct etcd_view *v,
	const struct etcd_decision *d, const struct etcd_members *l, struct etcd_id_decision *out)
{
	struct etcd_id_view iv = { 0 };
	const char *who = NULL;

	iv.record = etcd_record_read(e, &iv.recorded);
	if (v->has_data && !r->data_read) {
		r->data_id = etcd_data_cluster_id(e);
		r->data_read = true;
	}
	iv.plan = d->plan;
	iv.has_data = v->has_data;
	iv.data_id = v->has_data ? r->data_id : 0;
	iv.running_id = v->reachable ? l->cluster_id : 0;
	if (d->plan == ETCD_PLAN_BOOTSTRAP && iv.record == ETCD_REC_SET) {
		/* only then: a peer URL that answers is the one sign of data
		 * on a member that waits for a majority */
		who = etcd_peer_running(e);
		if (who)
			r->lost_since = 0;
		else if (!r->lost_since)
			r->lost_since = ocf_now();
		iv.data_elsewhere = who != NULL;
		iv.elsewhere = who;
		iv.lost_usec = who ? 0 : ocf_now() - r->lost_since;
	} else {
		r->lost_since = 0;
	}
	if (!r->initial)
		r->initial = etcd_initial_cluster_map(&e->map, NULL);
	iv.name = e->name;
	iv.data_dir = e->data_dir;
	iv.peer_url = e->me->peer_url;
	iv.initial = str_or(r->initial, "?");
	iv.token = str_or(ocf_get(e->c, "token"), "?");
	etcd_id_gate(&iv, out);
}

int etcd_cib_refuse(const struct etcd_id_decision *g)
{
	char help[sizeof(g->help)], *line, *save = NULL;

	snprintf(help, sizeof(help), "%s", g->help);
	for (line = strtok_r(help, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		log_err("%s", line);
	return ocf_fail(PCMK_OCF_UNKNOWN_ERROR, "%s", g->why);
}

enum etcd_id_after etcd_cib_after(const struct etcd *e, uint64_t cluster_id, char *why, size_t len)
{
	enum etcd_record_state rec;
	enum etcd_id_after a;
	uint64_t recorded;

	if (len)
		why[0] = '\0';
	if (!cluster_id)
		return ETCD_ID_KEEP; /* waiting for a majority: the leader's monitor records */
	rec = etcd_record_read(e, &recorded);
	a = etcd_id_check(rec, recorded, cluster_id, why, len);
	if (a == ETCD_ID_RECORD) {
		log_info("%s", why);
		etcd_record_write(e, cluster_id);
	}
	return a;
}
