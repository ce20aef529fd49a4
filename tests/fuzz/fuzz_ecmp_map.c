// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target: the Enhanced ECMP remote-group map (fare_ecmp_groups.h,
 * EE-4) under any sequence of operations.
 *
 * Input: the first number of sub-groups (1 byte, 0 to 16), then up to
 * FUZZ_MAX_OPS operations of 3 bytes each: the operation (op % 8: 0-2 add,
 * 3-4 remove, 5 set an explicit entry, 6 clear it, 7 resize), the key (low
 * 5 bits: one of 32 router IDs, high 3 bits: group 0 to 7) and an argument:
 * for an explicit entry the sub-group (arg % 20, some of them dormant;
 * 0xff: FARE_ECMP_SUBGROUP_NONE, refused), for a resize the number of
 * sub-groups (arg % 17; 0xff: above FARE_ECMP_MAX_SUBGROUPS, refused).
 *
 * Checks, after every operation (tests/unit/ecmp_map_check.h): the
 * automatic loads differ by at most 1; an add moves no other key and goes
 * to the least loaded sub-group, lowest index; a removal moves one other
 * key exactly when the balance needs it; pinning moves at most one other
 * key, clearing none; a resize moves the fewest keys the balance allows;
 * every move reaches the callback; the dump, the loads and the lookups
 * agree. Then the whole sequence again on a new map gives the same results
 * call by call and the same final dump (EE-4 determinism).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fare_ecmp_groups.h"
#include "fuzz_input.h"

#define MAP_CHECK(cond) FUZZ_CHECK(cond)
#include "../unit/ecmp_map_check.h"

#define FUZZ_MAX_OPS	   512
#define FUZZ_MAX_SUBGROUPS 16

static void run(const uint8_t *data, size_t size, int *trace, size_t *ops,
		struct map_snapshot *final)
{
	struct fuzz_input in = { data, size, 0 };
	struct fare_ecmp_map *map = fare_ecmp_map_new(fuzz_u8(&in) % (FUZZ_MAX_SUBGROUPS + 1));
	struct map_moves mv = { 0 };

	FUZZ_CHECK(map);
	fare_ecmp_map_set_move_cb(map, map_on_move, &mv);
	for (*ops = 0; *ops < FUZZ_MAX_OPS && fuzz_left(&in); (*ops)++) {
		uint8_t op = fuzz_u8(&in) % 8, kb = fuzz_u8(&in), arg = fuzz_u8(&in);
		struct fare_ecmp_key key = map_key(0x0aff0000u | (kb & 0x1f), kb >> 5);
		int ret;

		if (op < 3) {
			ret = map_op_checked(map, &mv, MAP_OP_ADD, key, 0);
		} else if (op < 5) {
			ret = map_op_checked(map, &mv, MAP_OP_REMOVE, key, 0);
		} else if (op == 5) {
			ret = map_op_checked(map, &mv, MAP_OP_SET_EXPLICIT, key,
					     arg == 0xff ? FARE_ECMP_SUBGROUP_NONE : arg % 20u);
		} else if (op == 6) {
			ret = map_op_checked(map, &mv, MAP_OP_CLEAR_EXPLICIT, key, 0);
		} else {
			ret = map_op_checked(map, &mv, MAP_OP_RESIZE, key,
					     arg == 0xff ? FARE_ECMP_MAX_SUBGROUPS + 1
							 : arg % (FUZZ_MAX_SUBGROUPS + 1u));
		}
		trace[*ops] = ret;
	}
	map_snapshot(map, final);
	fare_ecmp_map_free(map);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int trace_a[FUZZ_MAX_OPS], trace_b[FUZZ_MAX_OPS];
	static struct map_snapshot final_a, final_b;
	size_t ops_a, ops_b;

	run(data, size, trace_a, &ops_a, &final_a);
	run(data, size, trace_b, &ops_b, &final_b);
	FUZZ_CHECK(ops_a == ops_b);
	FUZZ_CHECK(memcmp(trace_a, trace_b, ops_a * sizeof(trace_a[0])) == 0);
	FUZZ_CHECK(map_snapshot_equal(&final_a, &final_b));
	return 0;
}
