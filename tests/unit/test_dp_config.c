// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests: fare-dpd's checks of the mark, table and rule ranges
 * (dataplane/dp_config.c): mark-mask (default and given), mark-base within
 * the mask, destinations x 64 marks within the mask and 32 bits, tables
 * clear of 0 and 253-255, rule-priority 1..32765, socket-mode.
 */

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdbool.h>
#include <string.h>

#include "fare_dpd.h"

static struct dp_config cfg;
static char err[256];

static void config(size_t ndests, uint32_t mark_base, uint32_t mark_mask, uint32_t table_base,
		   uint32_t prio)
{
	memset(&cfg, 0, sizeof(cfg));
	cfg.ndests = ndests;
	cfg.mark_base = mark_base;
	cfg.mark_mask = mark_mask;
	cfg.table_base = table_base;
	cfg.rule_priority = prio;
	cfg.socket_mode = DP_DEFAULT_SOCKET_MODE;
	err[0] = '\0';
}

static void expect_error(const char *what)
{
	assert_int_equal(dp_config_check(&cfg, err, sizeof(err)), -1);
	if (!strstr(err, what))
		print_error("error %s: no \"%s\"\n", err, what);
	assert_non_null(strstr(err, what));
}

static void test_defaults(void **state)
{
	(void)state;
	config(2, DP_DEFAULT_MARK_BASE, 0, DP_DEFAULT_TABLE_BASE, DP_DEFAULT_RULE_PRIORITY);
	assert_int_equal(dp_config_check(&cfg, err, sizeof(err)), 0);
	/* mark-base's bits and the 14 low bits its 64 x 64 offsets reach */
	assert_int_equal(cfg.mark_mask, 0x4643fff);
	/* kube-proxy's 0x4000 and 0x8000 and the top bits stay free */
	assert_int_equal(cfg.mark_mask & 0xf800c000u, 0);
	assert_int_equal(dp_default_mark_mask(0), 0x1fff);
	assert_int_equal(dp_default_mark_mask(0x10000000), 0x10001fff);
	/* the largest of DP_DEST_MAX destinations' marks is inside */
	config(DP_DEST_MAX, 0x4641000, 0, 4641000, 100);
	assert_int_equal(dp_config_check(&cfg, err, sizeof(err)), 0);
}

static void test_mark_mask(void **state)
{
	(void)state;
	/* given: marks 0x10001..0x10080, within 0x1ffff */
	config(2, 0x10000, 0x1ffff, 4641000, 100);
	assert_int_equal(dp_config_check(&cfg, err, sizeof(err)), 0);
	assert_int_equal(cfg.mark_mask, 0x1ffff);
	/* mark-base outside the mask */
	config(1, 0x20000, 0x1ffff, 4641000, 100);
	expect_error("mark-base 0x20000 is not within mark-mask 0x1ffff");
	/* 4 destinations x 64 marks reach 0x100: outside 0xff */
	config(4, 0, 0xff, 4641000, 100);
	expect_error("mark 0x100 leaves mark-mask 0xff");
	config(3, 0, 0xff, 4641000, 100);
	assert_int_equal(dp_config_check(&cfg, err, sizeof(err)), 0);
	/* a hole in the mask: 0x41..0x80 of destination 1 need bit 6 and 7 */
	config(2, 0, 0xbf, 4641000, 100);
	expect_error("mark 0x40 leaves mark-mask 0xbf");
	/* 32 bits */
	config(2, 0xffffffc0u, 0xffffffffu, 4641000, 100);
	expect_error("the marks overflow 32 bits");
}

static void test_tables(void **state)
{
	(void)state;
	config(1, 0x4641000, 0, 0, 100);
	expect_error("table-base 0:");
	config(1, 0x4641000, 0, 189, 100); /* 189..252 */
	assert_int_equal(dp_config_check(&cfg, err, sizeof(err)), 0);
	config(1, 0x4641000, 0, 190, 100); /* 190..253 */
	expect_error("table-base 190: tables 190-253 overlap");
	config(2, 0x4641000, 0, 150, 100);
	expect_error("table-base 150");
	config(1, 0x4641000, 0, 254, 100);
	expect_error("table-base 254");
	config(1, 0x4641000, 0, 256, 100);
	assert_int_equal(dp_config_check(&cfg, err, sizeof(err)), 0);
	config(1, 0x4641000, 0, 0xffffffc1u, 100);
	expect_error("pass 2^32");
}

static void test_rule_priority(void **state)
{
	(void)state;
	config(1, 0x4641000, 0, 4641000, 0);
	expect_error("rule-priority 0: must be 1-32765");
	config(1, 0x4641000, 0, 4641000, 32766);
	expect_error("rule-priority 32766");
	config(1, 0x4641000, 0, 4641000, 40000);
	expect_error("rule-priority 40000");
	config(1, 0x4641000, 0, 4641000, 32765);
	assert_int_equal(dp_config_check(&cfg, err, sizeof(err)), 0);
	config(1, 0x4641000, 0, 4641000, 1);
	assert_int_equal(dp_config_check(&cfg, err, sizeof(err)), 0);
}

static void test_socket_mode(void **state)
{
	(void)state;
	config(1, 0x4641000, 0, 4641000, 100);
	cfg.socket_mode = 01660;
	expect_error("socket-mode 01660");
	cfg.socket_mode = 0600;
	assert_int_equal(dp_config_check(&cfg, err, sizeof(err)), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),    cmocka_unit_test(test_mark_mask),
		cmocka_unit_test(test_tables),	    cmocka_unit_test(test_rule_priority),
		cmocka_unit_test(test_socket_mode),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
