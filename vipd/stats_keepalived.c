/* The keepalived exporter's metric names on vipd's /metrics, beside vipd_*,
 * so alert rules written for keepalived + that exporter keep working: the
 * exporter of https://github.com/mehdy/keepalived-exporter (formerly
 * cafebazaar/keepalived-exporter). It reads keepalived's data and stats
 * dumps; vipd fills each series from the fact keepalived writes there:
 * keepalived_vrrp_state{iname,intf,vrid,ip_address} per virtual address
 * (intf: the address's device), the counters per instance
 * {iname,intf,vrid} (intf: the instance's interface). Counters vipd does
 * not keep are left out, never written as 0 (docs/metrics.md lists them). */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "metrics.h"
#include "vipd.h"

/* keepalived's states, as the exporter numbers them */
static const int ka_state[] = {
	[VRRP_STATE_INIT] = 0,
	[VRRP_STATE_BACKUP] = 1,
	[VRRP_STATE_MASTER] = 2,
	[VRRP_STATE_FAULT] = 3,
};

const char *stats_keepalived_ip_address(const struct vipd_vip *v, char *buf, size_t len)
{
	char a[CPHA_ADDR_STRLEN];
	unsigned host = v->addr.ss.ss_family == AF_INET6 ? 128 : 32;

	cpha_addr_format(&v->addr, a, sizeof(a));
	if (v->prefixlen == host)
		snprintf(buf, len, "%s", a);
	else
		snprintf(buf, len, "%s/%u", a, v->prefixlen);
	return buf;
}

static uint64_t c_rcvd(const struct vipd_inst *in)
{
	return in->adverts_received;
}

static uint64_t c_sent(const struct vipd_inst *in)
{
	return in->adverts_made;
}

static uint64_t c_become(const struct vipd_inst *in)
{
	return in->became_master;
}

static uint64_t c_release(const struct vipd_inst *in)
{
	return in->released_master;
}

/* keepalived: shorter than the header, or a length the address count does
 * not give */
static uint64_t c_len(const struct vipd_inst *in)
{
	return in->bad[VRRP_DROP_SHORT] + in->bad[VRRP_DROP_LENGTH];
}

static uint64_t c_interval(const struct vipd_inst *in)
{
	return in->bad[VRRP_DROP_INTERVAL_MISMATCH];
}

static uint64_t c_ttl(const struct vipd_inst *in)
{
	return in->bad[VRRP_DROP_TTL];
}

static uint64_t c_type(const struct vipd_inst *in)
{
	return in->bad[VRRP_DROP_TYPE];
}

static uint64_t c_addrs(const struct vipd_inst *in)
{
	return in->bad[VRRP_DROP_ADDR_LIST];
}

static uint64_t c_auth_mismatch(const struct vipd_inst *in)
{
	return in->bad[VRRP_DROP_AUTH_TYPE];
}

static uint64_t c_auth_fail(const struct vipd_inst *in)
{
	return in->bad[VRRP_DROP_AUTH_PASS];
}

static uint64_t c_pz_rcvd(const struct vipd_inst *in)
{
	return in->pri_zero_received;
}

static uint64_t c_pz_sent(const struct vipd_inst *in)
{
	return in->pri_zero_sent;
}

/* keepalived's "Gratuitous ARP delay", in whole seconds: a setting the
 * exporter serves under a counter's name */
static uint64_t c_garp_delay(const struct vipd_inst *in)
{
	return in->cfg->garp_master_delay / 1000000;
}

static const struct {
	const char *name, *help;
	uint64_t (*get)(const struct vipd_inst *in);
} ka_counters[] = {
	{ "keepalived_advertisements_received_total", "Advertisements received (valid ones)",
		c_rcvd },
	{ "keepalived_advertisements_sent_total", "Advertisements sent (one per interval)",
		c_sent },
	{ "keepalived_become_master_total", "Times the instance became MASTER", c_become },
	{ "keepalived_release_master_total", "Times the instance left MASTER", c_release },
	{ "keepalived_packet_length_errors_total", "Advertisements of a wrong length", c_len },
	{ "keepalived_advertisements_interval_errors_total",
		"VRRPv2 advertisements with another interval", c_interval },
	{ "keepalived_ip_ttl_errors_total", "Advertisements with a TTL or hop limit not 255",
		c_ttl },
	{ "keepalived_invalid_type_received_total", "Packets that are not advertisements", c_type },
	{ "keepalived_address_list_errors_total", "Advertisements with other addresses", c_addrs },
	{ "keepalived_authentication_mismatch_total",
		"VRRPv2 advertisements with another authentication type", c_auth_mismatch },
	{ "keepalived_authentication_failure_total", "VRRPv2 advertisements with a wrong password",
		c_auth_fail },
	{ "keepalived_priority_zero_received_total", "Priority 0 advertisements received",
		c_pz_rcvd },
	{ "keepalived_priority_zero_sent_total", "Priority 0 advertisements sent", c_pz_sent },
	{ "keepalived_gratuitous_arp_delay_total",
		"garp_master_delay in seconds (a setting, under the exporter's counter name)",
		c_garp_delay },
};

void stats_keepalived_prometheus(struct vipd *d, struct cpha_buf *o)
{
	char vrid[8], ip[CPHA_ADDR_STRLEN + 8];
	size_t f, i, k;

	/* the exporter's: it could read keepalived's dumps, which vipd
	 * answering means */
	cpha_prom_family(o, "keepalived_up", "gauge", "1: the VRRP daemon answered");
	cpha_prom_sample(o, "keepalived_up", 1, NULL);

	cpha_prom_family(o, "keepalived_vrrp_state", "gauge",
		"0 INIT, 1 BACKUP, 2 MASTER, 3 FAULT, per virtual address");
	for (i = 0; i < d->ninst; i++) {
		const struct vipd_inst *in = d->inst[i];
		const struct vipd_instance *c = in->cfg;

		snprintf(vrid, sizeof(vrid), "%u", c->vrid);
		for (k = 0; k < c->nvips; k++)
			cpha_prom_sample(o, "keepalived_vrrp_state", ka_state[in->sm.state],
				"iname", in->name, "intf",
				c->vips[k].dev ? c->vips[k].dev : c->interface, "vrid", vrid,
				"ip_address",
				stats_keepalived_ip_address(&c->vips[k], ip, sizeof(ip)), NULL);
		if (!c->nvips) /* as the exporter: one series with no address */
			cpha_prom_sample(o, "keepalived_vrrp_state", ka_state[in->sm.state],
				"iname", in->name, "intf", c->interface, "vrid", vrid, "ip_address",
				"", NULL);
	}

	for (f = 0; f < sizeof(ka_counters) / sizeof(ka_counters[0]); f++) {
		cpha_prom_family(o, ka_counters[f].name, "counter", ka_counters[f].help);
		for (i = 0; i < d->ninst; i++) {
			const struct vipd_inst *in = d->inst[i];

			snprintf(vrid, sizeof(vrid), "%u", in->cfg->vrid);
			cpha_prom_sample(o, ka_counters[f].name, (double)ka_counters[f].get(in),
				"iname", in->name, "intf", in->cfg->interface, "vrid", vrid, NULL);
		}
	}

	/* vrrp_script results: 0 BAD, 1 GOOD; and 0 idle, 1 running */
	if (!d->nscripts)
		return;
	cpha_prom_family(o, "keepalived_script_status", "gauge", "vrrp_script: 0 BAD, 1 GOOD");
	for (i = 0; i < d->nscripts; i++)
		cpha_prom_sample(o, "keepalived_script_status", d->scripts[i]->ok ? 1 : 0, "name",
			d->scripts[i]->name, NULL);
	cpha_prom_family(o, "keepalived_script_state", "gauge", "vrrp_script: 0 idle, 1 running");
	for (i = 0; i < d->nscripts; i++)
		cpha_prom_sample(o, "keepalived_script_state", d->scripts[i]->running ? 1 : 0,
			"name", d->scripts[i]->name, NULL);
}
