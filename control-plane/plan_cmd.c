/* `cpha plan`: print the plan (a table, or JSON) and the findings. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cpha.h"
#include "flags.h"
#include "plan.h"

static void usage(FILE *f)
{
	fprintf(f, "usage: cpha plan [-f FILE] [--json] [--allow-even] [--strict]\n"
		   "  --json        the plan, errors, warnings and notes as one JSON object\n"
		   "  --allow-even  accept an even etcd member count (refused by default)\n"
		   "  --strict      exit 2 when there are warnings (and no error)\n"
		   "exit status: 0 the design holds, 1 refused, 2 warnings with --strict\n");
}

static void print_table(const struct cp_cluster *c, const struct plan *p)
{
	size_t w0 = 4, w1 = 5;

	for (size_t i = 0; i < p->nroles; i++) {
		if (strlen(p->roles[i].role) > w0)
			w0 = strlen(p->roles[i].role);
		if (strlen(p->roles[i].hosts) > w1)
			w1 = strlen(p->roles[i].hosts);
	}
	char rel[32];

	printf("cluster %s: API https://%s:%u at VIP %s%s%s; load balancer %s, VIP by %s, "
	       "managed by %s\n",
		c->name, c->api_name, c->api_port, c->vip_text, c->has_vip2 ? " and " : "",
		c->has_vip2 ? c->vip2_text : "", cluster_lb_name(c->lb), cluster_vip_name(c->vipd),
		cluster_mgr_name(c->manager));
	printf("Kubernetes %s (flags of 1.%u, images %s), etcd 3.%u\n", c->k8s_version,
		c->k8s_minor, flags_k8s_release(c, rel, sizeof(rel)), c->etcd_minor);
	if (c->qdevice.on) {
		char a[CPHA_ADDR_STRLEN], tie[16];

		printf("quorum device for the %s: corosync-qnetd at %s%s%s port %u, %s, "
		       "tie_breaker %s, tls %s\n",
			c->lb_on_masters ? "masters" : "load-balancer hosts",
			c->qdevice.host ? c->qdevice.host : "", c->qdevice.host ? " " : "",
			cpha_addr_format(&c->qdevice.addr, a, sizeof(a)), c->qdevice.port,
			cluster_qd_algorithm_name(c->qdevice.algorithm),
			cluster_qd_tie_text(&c->qdevice, tie, sizeof(tie)),
			cluster_qd_tls_name(c->qdevice.tls));
	}
	printf("\n");
	printf("%-*s  %-*s  %s\n", (int)w0, "role", (int)w1, "hosts", "style; tolerance");
	for (size_t i = 0; i < p->nroles; i++) {
		const struct plan_role *r = &p->roles[i];
		printf("%-*s  %-*s  %s; %s\n", (int)w0, r->role, (int)w1, r->hosts, r->style,
			r->tolerance);
	}
	/* the availability matrix's sentence, per role */
	printf("\n");
	for (size_t i = 0; i < p->nroles; i++)
		printf("%s: %s\n", p->roles[i].role, p->roles[i].tolerance);
	printf("control plane: %s\n", p->tolerance);
	for (size_t i = 0; i < p->nnotes; i++)
		printf("note: %s\n", p->notes[i]);
}

static int print_json(const struct cp_cluster *c, const struct plan *p, const struct cpha_msgs *d)
{
	json_t *o = json_object(), *roles = json_array(), *errs = json_array(),
	       *warns = json_array(), *notes = json_array();
	char rel[32], etcd[16];
	int rc;

	for (size_t i = 0; i < p->nroles; i++) {
		const struct plan_role *r = &p->roles[i];
		json_array_append_new(roles,
			json_pack("{s:s, s:s, s:s, s:s, s:I, s:I}", "role", r->role, "hosts",
				r->hosts, "style", r->style, "tolerance", r->tolerance, "members",
				(json_int_t)r->members, "tolerates", (json_int_t)r->tolerates));
	}
	for (size_t i = 0; i < d->nerrs; i++)
		json_array_append_new(errs, json_string(d->errs[i].text));
	for (size_t i = 0; i < d->nwarns; i++)
		json_array_append_new(warns, json_string(d->warns[i].text));
	for (size_t i = 0; i < p->nnotes; i++)
		json_array_append_new(notes, json_string(p->notes[i]));
	json_object_set_new(o, "cluster", json_string(c->name));
	/* vip: the first (the hosts' family); vips: every one */
	json_object_set_new(o, "api",
		json_pack("{s:s, s:s, s:[s], s:I}", "name", c->api_name, "vip", c->vip_text,
			"vips", c->vip_text, "port", (json_int_t)c->api_port));
	if (c->has_vip2)
		json_array_append_new(json_object_get(json_object_get(o, "api"), "vips"),
			json_string(c->vip2_text));
	snprintf(etcd, sizeof(etcd), "3.%u", c->etcd_minor);
	json_object_set_new(o, "versions",
		json_pack("{s:s, s:s, s:s}", "kubernetes", c->k8s_version, "release",
			flags_k8s_release(c, rel, sizeof(rel)), "etcd", etcd));
	json_object_set_new(o, "vrid", json_integer(c->vrid));
	json_object_set_new(o, "vrid_derived", json_boolean(c->vrid_derived));
	json_object_set_new(o, "components",
		json_pack("{s:s, s:s, s:s}", "load_balancer", cluster_lb_name(c->lb), "vip",
			cluster_vip_name(c->vipd), "manager", cluster_mgr_name(c->manager)));
	if (c->qdevice.on) {
		char a[CPHA_ADDR_STRLEN], tie[16];

		json_object_set_new(o, "qdevice",
			json_pack("{s:s, s:s?, s:s, s:s, s:I, s:s, s:s, s:s}", "address",
				c->qdevice.address, "host", c->qdevice.host, "ip",
				cpha_addr_format(&c->qdevice.addr, a, sizeof(a)), "serves",
				c->lb_on_masters ? "masters" : "load_balancers", "port",
				(json_int_t)c->qdevice.port, "algorithm",
				cluster_qd_algorithm_name(c->qdevice.algorithm), "tie_breaker",
				cluster_qd_tie_text(&c->qdevice, tie, sizeof(tie)), "tls",
				cluster_qd_tls_name(c->qdevice.tls)));
	} else {
		json_object_set_new(o, "qdevice", json_null());
	}
	json_object_set_new(o, "roles", roles);
	json_object_set_new(o, "control_plane",
		json_pack("{s:I, s:s}", "tolerates", (json_int_t)p->tolerates, "tolerance",
			p->tolerance));
	json_object_set_new(o, "errors", errs);
	json_object_set_new(o, "warnings", warns);
	json_object_set_new(o, "notes", notes);
	rc = json_dumpf(o, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	printf("\n");
	json_decref(o);
	return rc;
}

int cmd_plan(int argc, char **argv, const char *file)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "allow-even", no_argument, NULL, 'e' },
		{ "strict", no_argument, NULL, 's' },
		{ "file", required_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct plan_opts po = { 0 };
	struct cpha_msgs d = { 0 };
	struct cp_cluster *c;
	struct plan p;
	bool json = false, strict = false;
	char today[16];
	int ch, rc;

	optind = 1;
	while ((ch = getopt_long(argc, argv, "f:h", opts, NULL)) != -1) {
		switch (ch) {
		case 'j':
			json = true;
			break;
		case 'e':
			po.allow_even = true;
			break;
		case 's':
			strict = true;
			break;
		case 'f':
			file = optarg;
			break;
		case 'h':
			usage(stdout);
			return CPHA_EXIT_OK;
		default:
			usage(stderr);
			return CPHA_EXIT_USAGE;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "cpha plan: unexpected argument '%s'\n", argv[optind]);
		return CPHA_EXIT_USAGE;
	}
	c = cpha_load(file);
	if (!c)
		return CPHA_EXIT_FAIL;
	po.today = cpha_today(today, sizeof(today));
	plan_build(c, &po, &p, &d);
	if (json)
		print_json(c, &p, &d);
	else
		print_table(c, &p);
	cpha_msgs_print(d.warns, d.nwarns, stderr);
	cpha_msgs_print(d.errs, d.nerrs, stderr);
	rc = d.nerrs ? CPHA_EXIT_FAIL : (strict && d.nwarns) ? CPHA_EXIT_WARN : CPHA_EXIT_OK;
	if (d.nerrs)
		fprintf(stderr, "cpha plan: %zu error%s: the design is refused\n", d.nerrs,
			d.nerrs == 1 ? "" : "s");
	plan_free(&p);
	cpha_msgs_free(&d);
	cluster_free(c);
	return rc;
}
