// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fare-dpd: checks of the mark, table and rule ranges of the configuration
 * (no library: unit-tested in tests/unit/test_dp_config.c). Member k of
 * destination d uses fwmark mark-base + d*64 + k + 1 within mark-mask, table
 * table-base + d*64 + k, and a rule at rule-priority.
 */
#include <stdarg.h>
#include <stdio.h>

#include "fare_dpd.h"

#define DP_RULE_PRIORITY_MAIN 32766u /* the kernel's "from all lookup main" */

static int check_error(char *err, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int check_error(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return -1;
}

/*
 * The default mask: the bits of mark-base above the offsets, and every bit
 * the offsets of DP_DEST_MAX destinations reach (with the carries they make).
 */
uint32_t dp_default_mark_mask(uint32_t mark_base)
{
	uint64_t lo = (uint64_t)mark_base + 1;
	uint64_t hi = (uint64_t)mark_base + (uint64_t)DP_DEST_MAX * DP_MEMBER_STRIDE;
	uint64_t x = lo ^ hi;
	int bits = 64 - __builtin_clzll(x);
	uint64_t low = (1ull << bits) - 1;

	return (uint32_t)(((uint64_t)mark_base & ~low) | low);
}

int dp_config_check(struct dp_config *cfg, char *err, size_t len)
{
	uint64_t span = (uint64_t)(cfg->ndests ? cfg->ndests : 1) * DP_MEMBER_STRIDE;
	uint64_t tlast = (uint64_t)cfg->table_base + span - 1;

	if ((uint64_t)cfg->mark_base + span > UINT32_MAX)
		return check_error(err, len, "mark-base 0x%x: the marks overflow 32 bits",
				   cfg->mark_base);
	if (!cfg->mark_mask)
		cfg->mark_mask = dp_default_mark_mask(cfg->mark_base);
	if (cfg->mark_base & ~cfg->mark_mask)
		return check_error(err, len, "mark-base 0x%x is not within mark-mask 0x%x",
				   cfg->mark_base, cfg->mark_mask);
	/* every mark of every destination (and member) within the mask */
	for (uint64_t off = 1; off <= span; off++) {
		uint32_t m = (uint32_t)(cfg->mark_base + off);

		if (m & ~cfg->mark_mask)
			return check_error(err, len,
					   "mark-base 0x%x + %zu destination(s) x %u marks: mark "
					   "0x%x leaves mark-mask 0x%x",
					   cfg->mark_base, cfg->ndests ? cfg->ndests : 1,
					   DP_MEMBER_STRIDE, m, cfg->mark_mask);
	}
	if (!cfg->table_base || tlast > UINT32_MAX || (cfg->table_base <= 255 && tlast >= 253))
		return check_error(err, len,
				   "table-base %u: tables %u-%llu overlap the reserved ones (0, "
				   "253 default, 254 main, 255 local) or pass 2^32",
				   cfg->table_base, cfg->table_base, (unsigned long long)tlast);
	if (!cfg->rule_priority || cfg->rule_priority >= DP_RULE_PRIORITY_MAIN)
		return check_error(err, len,
				   "rule-priority %u: must be 1-%u (after the local rule at 0, "
				   "before the main one at %u)",
				   cfg->rule_priority, DP_RULE_PRIORITY_MAIN - 1,
				   DP_RULE_PRIORITY_MAIN);
	if (cfg->socket_mode > 0777)
		return check_error(err, len, "socket-mode 0%o: permission bits only (0-0777)",
				   cfg->socket_mode);
	return 0;
}
