/* vipd's admin commands and metrics, in process: every command many times
 * (so LeakSanitizer, in the ASan build, sees a reply that loses memory:
 * 'show json' lost its whole document once). The instances are built by
 * hand from a parsed configuration on "lo": no socket is opened. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cfg.h"
#include "metrics.h"
#include "vipd.h"

#define ROUNDS 300 /* per command */

static const char conf[] = "vrrp_track_file flag {\n"
			   "    file /run/cpha-test-no-such-flag\n"
			   "}\n"
			   "vrrp_instance VI_1 {\n"
			   "    state BACKUP\n"
			   "    interface lo\n"
			   "    virtual_router_id 51\n"
			   "    priority 150\n"
			   "    advert_int 1\n"
			   "    virtual_ipaddress {\n"
			   "        198.18.0.100/24\n"
			   "    }\n"
			   "    track_file {\n"
			   "        flag weight -10\n"
			   "    }\n"
			   "}\n"
			   "vrrp_instance VI_2 {\n"
			   "    interface lo\n"
			   "    virtual_router_id 52\n"
			   "    priority 100\n"
			   "    virtual_ipaddress {\n"
			   "        2001:db8::100/64\n"
			   "    }\n"
			   "}\n";

struct bed {
	struct vipd d;
	struct vipd_inst inst[2], *pinst[2];
	struct vipd_track_state tracks[1];
};

static void make_bed(struct bed *b)
{
	struct vipd_cfg_msgs errs = { 0 };
	const char *why;
	size_t i;

	memset(b, 0, sizeof(*b));
	assert_int_equal(vipd_cfg_load_mem("t.conf", conf, strlen(conf), &b->d.cfg, &errs), 0);
	vipd_cfg_msgs_free(&errs);
	assert_int_equal(b->d.cfg->ninstances, 2);
	for (i = 0; i < 2; i++) {
		struct vipd_inst *in = &b->inst[i];

		in->d = &b->d;
		in->cfg = &b->d.cfg->instances[i];
		in->name = in->cfg->name;
		in->ifindex = 1;
		in->priority = (int)in->cfg->priority;
		in->sm.state = i ? VRRP_STATE_MASTER : VRRP_STATE_BACKUP;
		in->adverts_sent = 10 + i;
		in->bad[1] = 3;
		in->unknown_peer = 2;
		b->pinst[i] = in;
	}
	/* a backup that hears one peer and tracks a file */
	assert_int_equal(cpha_parse_addr("198.18.0.12", CPHA_ADDR_PORT_NONE,
				 &b->inst[0].peers[0].addr, &why),
		0);
	b->inst[0].peers[0].adverts = 5;
	b->inst[0].npeers_seen = 1;
	b->tracks[0].cfg = &b->inst[0].cfg->track_file[0];
	b->tracks[0].file_value = 0;
	b->inst[0].tracks = b->tracks;
	b->inst[0].ntracks = 1;
	assert_int_equal(
		cpha_parse_addr("198.18.0.11", CPHA_ADDR_PORT_NONE, &b->inst[0].src, &why), 0);
	b->d.inst = b->pinst;
	b->d.ninst = 2;
}

static void expect(struct vipd *d, const char *cmd, const char *want)
{
	struct cpha_buf b = { 0 };

	stats_command(d, cmd, &b);
	if (!b.data || !strstr(b.data, want)) {
		print_error("'%s' answered '%s', without '%s'\n", cmd, b.data ? b.data : "", want);
		cpha_buf_free(&b);
		fail();
	}
	cpha_buf_free(&b);
}

static void test_every_command_many_times(void **state)
{
	struct bed *b = malloc(sizeof(*b));
	struct cpha_buf m = { 0 };
	int k;

	(void)state;
	make_bed(b);
	for (k = 0; k < ROUNDS; k++) {
		expect(&b->d, "show json",
			"\"instances\":[{\"instance\":\"VI_1\",\"state\":\"BACKUP\"");
		expect(&b->d, "show json", "\"peers\":[{\"address\":\"198.18.0.12\"");
		expect(&b->d, "show json",
			"\"tracks\":[{\"name\":\"flag\",\"kind\":\"file\",\"ok\":true}]");
		expect(&b->d, "show json", "{\"instance\":\"VI_2\",\"state\":\"MASTER\"");
		expect(&b->d, "show", "instance VI_1: BACKUP, priority 150");
		expect(&b->d, "show", "  peer 198.18.0.12: 5 adverts");
		expect(&b->d, "", "instance VI_2: MASTER");
		expect(&b->d, "frobnicate", "Unknown command");
		cpha_buf_reset(&m);
		stats_prometheus(&b->d, &m);
		assert_non_null(strstr(m.data, "vipd_instance_state{instance=\"VI_2\"} 2\n"));
		assert_non_null(strstr(m.data, "vipd_bad_packets_total{instance=\"VI_1\",reason="
					       "\"unknown_peer\"} 2\n"));
	}
	cpha_buf_free(&m);
	vipd_cfg_free(b->d.cfg);
	free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_command_many_times),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
