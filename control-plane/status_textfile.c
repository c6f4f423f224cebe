/* cpha status --textfile: the snapshot as Prometheus series for
 * node-exporter's textfile collector (text format 0.0.4, one HELP and TYPE
 * per family). Pure: the caller writes the text where node-exporter reads
 * it (textfile.h). */
#include <stdbool.h>
#include <stdio.h>

#include "metrics.h"
#include "status.h"

/* A Lease that was read and exists (404: nobody ever led, no value). */
static bool lease_known(const struct st_lease *l)
{
	return l->reach == ST_ANSWERED && l->found;
}

void status_textfile(
	const struct st_snapshot *s, const struct st_report *r, double now, struct cpha_buf *b)
{
	unsigned voting, learners, renewed = 0, durations = 0;
	size_t i;

	cpha_prom_family(b, "cpha_status_timestamp_seconds", "gauge",
		"when cpha status wrote this file (unix seconds)");
	cpha_prom_sample(b, "cpha_status_timestamp_seconds", now, NULL);
	cpha_prom_family(b, "cpha_status_level", "gauge",
		"the worst state cpha status found: 0 healthy, 1 degraded, 2 down");
	cpha_prom_sample(b, "cpha_status_level", (double)r->worst, NULL);
	/* a family only with a sample: an empty one says nothing */
	for (i = 0; i < s->nleases && s->leader_elect; i++)
		if (lease_known(&s->leases[i]) && s->leases[i].renew_age >= 0) {
			if (!renewed++)
				cpha_prom_family(b, "cpha_lease_renew_age_seconds", "gauge",
					"seconds since the leader renewed its Lease in "
					"kube-system");
			cpha_prom_sample(b, "cpha_lease_renew_age_seconds", s->leases[i].renew_age,
				"lease", s->leases[i].name, NULL);
		}
	for (i = 0; i < s->nleases && s->leader_elect; i++)
		if (lease_known(&s->leases[i])) {
			if (!durations++)
				cpha_prom_family(b, "cpha_lease_duration_seconds", "gauge",
					"the Lease's leaseDurationSeconds");
			cpha_prom_sample(b, "cpha_lease_duration_seconds",
				(double)s->leases[i].duration, "lease", s->leases[i].name, NULL);
		}
	if (status_etcd_members(s, &voting, &learners)) {
		cpha_prom_family(b, "cpha_etcd_voting_members", "gauge",
			"voting members in etcd's member list");
		cpha_prom_sample(b, "cpha_etcd_voting_members", voting, NULL);
		cpha_prom_family(
			b, "cpha_etcd_learners", "gauge", "learners in etcd's member list");
		cpha_prom_sample(b, "cpha_etcd_learners", learners, NULL);
	}
	cpha_prom_family(b, "cpha_etcd_members_healthy", "gauge",
		"etcd members of the description whose /health says true");
	cpha_prom_sample(b, "cpha_etcd_members_healthy", status_etcd_healthy(s), NULL);
	if (s->ncerts) {
		cpha_prom_family(b, "cpha_cert_expiry_timestamp_seconds", "gauge",
			"notAfter of each certificate in the PKI directory (unix seconds)");
		for (i = 0; i < s->ncerts; i++)
			cpha_prom_sample(b, "cpha_cert_expiry_timestamp_seconds",
				(double)s->certs[i].not_after, "cert", s->certs[i].file, NULL);
	}
}
