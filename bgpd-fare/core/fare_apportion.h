// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Integer shares of a whole: the largest-remainder apportionment and the
 * GCD, shared by the bgpd module's core (EE-1 ports, WP-3 reduction) and
 * the data plane's (SUN-3 flows and QPs, SUN-5/WP-6 slots).
 *
 * Pure C11 (no FRR headers, no allocation). Rule numbers are defined in
 * doc/user/fare-rules.rst.
 */

#ifndef _FARE_APPORTION_H
#define _FARE_APPORTION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Greatest common divisor (Euclid): fare_gcd(a, 0) == a, so 0 starts a
 * fold over values; fare_gcd(0, 0) == 0.
 */
uint64_t fare_gcd(uint64_t a, uint64_t b);

/* the GCD of n values (0 when every value is 0 or n == 0) */
uint32_t fare_gcd_array(const uint32_t *values, size_t n);

/*
 * Largest-remainder (Hamilton) apportionment of `seats` seats over n
 * members in proportion to integer weights: member i gets
 * floor(seats * w_i / W) (W the sum of the weights), and the seats the
 * floors leave go one each to the members with the largest remainders
 * seats * w_i mod W, the lower index first on equal remainders. A member
 * of weight 0 gets no seat; when every weight is 0 nobody does. Exact
 * integer arithmetic (seats * w_i < 2^64, W < n 2^32).
 *
 * The members with one more seat are exactly those at or before the last
 * of them (the cut) in the order of remainders, so once the cut is known a
 * member's seats take O(1): fare_apportion_init() finds it in O(n * left)
 * (left, the seats the floors leave, is below the number of members with a
 * non-zero remainder), fare_apportion_seats() reads a member's seats.
 */
struct fare_apportion {
	const uint32_t *weights; /* the caller's, read by fare_apportion_seats() */
	uint64_t total;		 /* W */
	uint32_t seats;
	uint32_t left; /* members with one more seat */
	uint64_t cut_rem;
	size_t cut_index;
};

/* false when every weight is 0 (or n == 0): then every member has 0 */
bool fare_apportion_init(struct fare_apportion *ap, const uint32_t *weights, size_t n,
			 uint32_t seats);
/* member i's seats (i < the n given to fare_apportion_init()) */
uint32_t fare_apportion_seats(const struct fare_apportion *ap, size_t i);

/* out[i] = member i's seats; returns the seats placed: `seats`, or 0 when
 * every weight is 0 (or n == 0)
 */
uint32_t fare_apportion(const uint32_t *weights, size_t n, uint32_t seats, uint32_t *out);

#ifdef __cplusplus
}
#endif

#endif /* _FARE_APPORTION_H */
