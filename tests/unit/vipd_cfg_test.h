/* Shared by test_vipd_cfg.c, test_vipd_cfg_errors.c and test_vipd_cfg_compat.c: an
 * instance to wrap test bodies in, and the parser's messages joined into
 * one string. Include after <cmocka.h> and "cfg.h". */
#ifndef VIPD_CFG_TEST_H
#define VIPD_CFG_TEST_H

#include <stdio.h>
#include <string.h>

#include "msgs_test.h"

/* An instance around BODY: lines 1-3 are its head, BODY starts at line 4,
 * and the VIP 198.18.0.10 follows it. */
#define INST(body)                                                                                 \
	"vrrp_instance VI_1 {\n"                                                                   \
	"  interface eth0\n"                                                                       \
	"  virtual_router_id 51\n" body "  virtual_ipaddress {\n"                                  \
	"    198.18.0.10\n"                                                                        \
	"  }\n"                                                                                    \
	"}\n"

static __attribute__((unused)) void assert_has(const char *all, const char *want)
{
	if (!strstr(all, want))
		fail_msg("'%s' not in:\n%s", want, all);
}

#endif
