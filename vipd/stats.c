/* vipd's admin socket ("show", "show json") and Prometheus metrics. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <net/if.h>

#include <jansson.h>

#include "duration.h"
#include "metrics.h"
#include "vipd.h"

static const int state_num[] = {
	[VRRP_STATE_INIT] = 0,
	[VRRP_STATE_BACKUP] = 1,
	[VRRP_STATE_MASTER] = 2,
	[VRRP_STATE_FAULT] = 3,
};

/* "auth_hmac_<result>": a failed trailer check as a bad_packets reason */
static const char *hmac_drop_reason(size_t r, char *buf, size_t len)
{
	snprintf(buf, len, "auth_hmac_%s", vrrp_hmac_result_str((enum vrrp_hmac_result)r));
	return buf;
}

static json_t *inst_json(struct vipd *d, struct vipd_inst *in)
{
	const struct vipd_instance *c = in->cfg;
	json_t *vips = json_array(), *peers = json_array(), *bad = json_object(),
	       *tracks = json_array(), *hmac;
	char a[CPHA_ADDR_STRLEN];
	uint64_t now;
	json_int_t hold_ms;
	size_t i;

	for (i = 0; i < c->nvips; i++) {
		cpha_addr_format(&c->vips[i].addr, a, sizeof(a));
		json_array_append_new(
			vips, json_pack("{s:s,s:i,s:b}", "address", a, "prefixlen",
				      (int)c->vips[i].prefixlen, "present",
				      vipd_nl_addr_present(d->nl,
					      c->vips[i].dev ? (int)if_nametoindex(c->vips[i].dev)
							     : in->ifindex,
					      &c->vips[i].addr)));
	}
	for (i = 0; i < in->npeers_seen; i++) {
		cpha_addr_format(&in->peers[i].addr, a, sizeof(a));
		json_array_append_new(peers, json_pack("{s:s,s:s,s:I}", "address", a, "checksum",
						     vrrp_packet_csum_str(in->peers[i].csum),
						     "adverts", (json_int_t)in->peers[i].adverts));
	}
	for (i = 1; i < VRRP_DROP_MAX; i++)
		if (in->bad[i])
			json_object_set_new(bad, vrrp_packet_drop_str((enum vrrp_drop)i),
				json_integer((json_int_t)in->bad[i]));
	if (in->unknown_peer)
		json_object_set_new(
			bad, "unknown_peer", json_integer((json_int_t)in->unknown_peer));
	if (in->other_group)
		json_object_set_new(bad, "other_group", json_integer((json_int_t)in->other_group));
	for (i = 1; i < VRRP_HMAC_RESULT_MAX; i++)
		if (in->hmac_result[i]) {
			char k[48];

			json_object_set_new(bad, hmac_drop_reason(i, k, sizeof(k)),
				json_integer((json_int_t)in->hmac_result[i]));
		}
	for (i = 0; i < in->ntracks; i++) {
		const struct vipd_track_state *t = &in->tracks[i];

		if (!t->cfg)
			continue;
		json_array_append_new(tracks,
			json_pack("{s:s,s:s,s:b}", "name", t->cfg->name, "kind",
				t->script            ? "script"
				: t->cfg->lbd_socket ? "lbd"
				: t->ifindex         ? "interface"
				: t->cfg->process    ? "process"
				: t->cfg->bfd        ? "bfd"
						     : "file",
				"ok",
				t->script ? t->script->ok
				: t->ifindex || t->cfg->lbd_socket || t->cfg->process || t->cfg->bfd
					? t->up
					: t->file_value == 0));
	}
	if (c->fenced_socket)
		json_array_append_new(tracks,
			json_pack("{s:s,s:s,s:b,s:b,s:b,s:i,s:b,s:b}", "name", c->fenced_socket,
				"kind", "fenced", "ok", fenced_link_allows(in), "answers",
				in->fenced.g.known, "quorate", in->fenced.g.quorate, "pending",
				(int)in->fenced.g.pending, "other_holder",
				in->fenced.g.other_holder, "takeover_held", in->fenced.g.held));
	cpha_addr_format(&in->src, a, sizeof(a));
	/* vrrp_startup_delay still running: no master before it ends */
	now = cpha_now_usec(CLOCK_MONOTONIC);
	hold_ms = d->hold_until > now ? (json_int_t)((d->hold_until - now) / 1000) : 0;
	/* auth_hmac: how it runs, and what the checks said (a drop is also in
	 * bad_packets) */
	hmac = json_null();
	if (c->auth_hmac)
		hmac = json_pack("{s:s,s:i,s:b,s:I,s:I}", "mode", vrrp_hmac_mode_str(c->hmac.mode),
			"active_key", (int)c->hmac.active_key, "signs",
			vrrp_hmac_signs(c->hmac.mode), "accepted",
			(json_int_t)in->hmac_result[VRRP_HMAC_OK], "accepted_unsigned",
			(json_int_t)in->hmac_unsigned);
	return json_pack(
		"{s:s,s:s,s:s,s:i,s:i,s:i,s:i,s:s,s:s,s:b,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:o,s:o,s:o,"
		"s:o,s:o}",
		"instance", in->name, "state", inst_state_name(in), "interface", c->interface,
		"vrid", (int)c->vrid, "priority", in->priority, "base_priority", (int)c->priority,
		"version", c->version, "mode", c->unicast ? "unicast" : "multicast", "source", a,
		"fault", in->fault, "adverts_sent", (json_int_t)in->adverts_sent,
		"adverts_received", (json_int_t)in->adverts_received, "transitions",
		(json_int_t)in->transitions, "became_master", (json_int_t)in->became_master,
		"vips_restored", (json_int_t)in->vip_restored, "last_change_usec",
		(json_int_t)in->last_change, "hold_ms", hold_ms, "vips", vips, "peers", peers,
		"bad_packets", bad, "tracks", tracks, "auth_hmac", hmac);
}

static json_t *groups_json(struct vipd *d)
{
	json_t *arr = json_array(), *m;
	size_t g, i;

	for (g = 0; g < d->nsyncs; g++) {
		const struct vipd_sync *sy = &d->syncs[g];

		m = json_array();
		for (i = 0; i < sy->n; i++)
			json_array_append_new(m, json_string(sy->members[i]->name));
		json_array_append_new(
			arr, json_pack("{s:s,s:s,s:I,s:o}", "name", sy->cfg->name, "state",
				     sy->state ? sy->state : "INIT", "transitions",
				     (json_int_t)sy->transitions, "members", m));
	}
	return arr;
}

void vipd_stats_command(struct vipd *d, const char *line, struct cpha_buf *reply)
{
	json_t *arr, *root;
	size_t i, j;
	char *s;

	if (strcmp(line, "show json") == 0) {
		arr = json_array();
		for (i = 0; i < d->ninst; i++)
			json_array_append_new(arr, inst_json(d, d->inst[i]));
		/* "o" hands arr to root (even on failure); root is ours to free */
		root = json_pack("{s:s,s:i,s:I,s:s,s:s,s:o,s:o,s:I,s:o}", "version", CPHA_VERSION,
			"pid", (int)getpid(), "reloads", (json_int_t)d->reloads, "config",
			d->cfg->file ? d->cfg->file : "", "config_sha256", d->cfg->digest,
			"instances", arr, "sync_groups", groups_json(d), "fifo_lines_lost",
			(json_int_t)(d->fifo[0].lost + d->fifo[1].lost), "bfd", bfd_json(d));
		s = root ? json_dumps(root, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
		json_decref(root);
		if (s) {
			cpha_buf_printf(reply, "%s\n", s);
			free(s);
		}
		return;
	}
	if (strcmp(line, "show") == 0 || strcmp(line, "") == 0) {
		cpha_buf_printf(reply, "config %s sha256 %s\n", d->cfg->file ? d->cfg->file : "",
			d->cfg->digest);
		for (i = 0; i < d->ninst; i++) {
			struct vipd_inst *in = d->inst[i];
			const struct vipd_instance *c = in->cfg;
			char a[CPHA_ADDR_STRLEN];

			cpha_buf_printf(reply,
				"instance %s: %s, priority %d (configured %u), VRID %u on %s, "
				"VRRPv%d "
				"%s\n",
				in->name, inst_state_name(in), in->priority, c->priority, c->vrid,
				c->interface, c->version, c->unicast ? "unicast" : "multicast");
			for (j = 0; j < c->nvips; j++)
				cpha_buf_printf(reply, "  vip %s/%u\n",
					cpha_addr_format(&c->vips[j].addr, a, sizeof(a)),
					c->vips[j].prefixlen);
			cpha_buf_printf(reply,
				"  adverts sent %llu, received %llu, transitions %llu, fault %s\n",
				(unsigned long long)in->adverts_sent,
				(unsigned long long)in->adverts_received,
				(unsigned long long)in->transitions, in->fault ? "yes" : "no");
			if (c->auth_hmac) {
				unsigned long long dropped = 0;

				for (j = 1; j < VRRP_HMAC_RESULT_MAX; j++)
					dropped += in->hmac_result[j];
				cpha_buf_printf(reply,
					"  auth_hmac %s, key %u: accepted %llu signed, %llu "
					"unsigned; dropped %llu\n",
					vrrp_hmac_mode_str(c->hmac.mode), c->hmac.active_key,
					(unsigned long long)(in->hmac_result[VRRP_HMAC_OK] -
							     in->hmac_unsigned),
					(unsigned long long)in->hmac_unsigned, dropped);
			}
			for (j = 0; j < in->npeers_seen; j++)
				cpha_buf_printf(reply, "  peer %s: %llu adverts, checksum %s\n",
					cpha_addr_format(&in->peers[j].addr, a, sizeof(a)),
					(unsigned long long)in->peers[j].adverts,
					vrrp_packet_csum_str(in->peers[j].csum));
		}
		for (i = 0; i < d->nsyncs; i++) {
			const struct vipd_sync *sy = &d->syncs[i];

			cpha_buf_printf(reply, "sync group %s: %s, members", sy->cfg->name,
				sy->state ? sy->state : "INIT");
			for (j = 0; j < sy->n; j++)
				cpha_buf_printf(reply, "%s %s", j ? "," : "", sy->members[j]->name);
			cpha_buf_puts(reply, "\n");
		}
		bfd_show(d, reply);
		return;
	}
	cpha_buf_puts(reply, "Unknown command. Commands: show, show json\n");
}

void vipd_stats_prometheus(struct vipd *d, struct cpha_buf *o)
{
	size_t i, k;

#define EACH(metric, type, help, expr)                                                             \
	cpha_prom_family(o, metric, type, help);                                                   \
	for (i = 0; i < d->ninst; i++)                                                             \
		cpha_prom_sample(                                                                  \
			o, metric, (double)(expr), "vrrp_instance", d->inst[i]->name, NULL);
	EACH("vipd_instance_state", "gauge", "0 init, 1 backup, 2 master, 3 fault",
		state_num[d->inst[i]->sm.state])
	EACH("vipd_instance_priority", "gauge", "Effective priority (after tracking)",
		d->inst[i]->priority)
	EACH("vipd_instance_transitions_total", "counter", "State changes", d->inst[i]->transitions)
	EACH("vipd_adverts_sent_total", "counter", "Advertisements sent", d->inst[i]->adverts_sent)
	EACH("vipd_adverts_received_total", "counter", "Valid advertisements received",
		d->inst[i]->adverts_received)
	EACH("vipd_vips_restored_total", "counter", "VIPs put back after someone removed them",
		d->inst[i]->vip_restored)
#undef EACH
	cpha_prom_family(
		o, "vipd_bad_packets_total", "counter", "Advertisements dropped, by reason");
	for (i = 0; i < d->ninst; i++) {
		for (k = 1; k < VRRP_DROP_MAX; k++)
			cpha_prom_sample(o, "vipd_bad_packets_total", (double)d->inst[i]->bad[k],
				"vrrp_instance", d->inst[i]->name, "reason",
				vrrp_packet_drop_str((enum vrrp_drop)k), NULL);
		cpha_prom_sample(o, "vipd_bad_packets_total", (double)d->inst[i]->unknown_peer,
			"vrrp_instance", d->inst[i]->name, "reason", "unknown_peer", NULL);
		cpha_prom_sample(o, "vipd_bad_packets_total", (double)d->inst[i]->other_group,
			"vrrp_instance", d->inst[i]->name, "reason", "other_group", NULL);
		if (!d->inst[i]->cfg->auth_hmac)
			continue;
		for (k = 1; k < VRRP_HMAC_RESULT_MAX; k++) {
			char r[48];

			cpha_prom_sample(o, "vipd_bad_packets_total",
				(double)d->inst[i]->hmac_result[k], "vrrp_instance",
				d->inst[i]->name, "reason", hmac_drop_reason(k, r, sizeof(r)),
				NULL);
		}
	}
	cpha_prom_family(o, "vipd_auth_hmac_accepted_total", "counter",
		"Advertisements auth_hmac accepted, by whether they were signed");
	for (i = 0; i < d->ninst; i++) {
		struct vipd_inst *in = d->inst[i];

		if (!in->cfg->auth_hmac)
			continue;
		cpha_prom_sample(o, "vipd_auth_hmac_accepted_total",
			(double)(in->hmac_result[VRRP_HMAC_OK] - in->hmac_unsigned),
			"vrrp_instance", in->name, "signed", "yes", NULL);
		cpha_prom_sample(o, "vipd_auth_hmac_accepted_total", (double)in->hmac_unsigned,
			"vrrp_instance", in->name, "signed", "no", NULL);
	}
	/* the address on the interface answers ARP, whatever the state: a
	 * BACKUP that kept it (or had it added by hand) holds it too */
	cpha_prom_family(
		o, "vipd_vip_held", "gauge", "1 while the address is on this host's interface");
	for (i = 0; i < d->ninst; i++) {
		struct vipd_inst *in = d->inst[i];

		for (k = 0; k < in->cfg->nvips; k++) {
			const struct vipd_vip *v = &in->cfg->vips[k];
			char a[CPHA_ADDR_STRLEN];
			bool present = vipd_nl_addr_present(d->nl,
				v->dev ? (int)if_nametoindex(v->dev) : in->ifindex, &v->addr);

			cpha_prom_sample(o, "vipd_vip_held", present, "vrrp_instance", in->name,
				"vip", cpha_addr_format(&v->addr, a, sizeof(a)), NULL);
		}
	}
	bfd_prometheus(d, o);
	stats_keepalived_prometheus(d, o);
}
