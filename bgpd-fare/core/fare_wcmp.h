// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * FARE WCMP: integer next-hop weights from path bandwidths, within the
 * data plane's limits (WP-3, FARE-4).
 *
 * Pure C11 core (no FRR headers), shared by the bgpd module and the unit
 * tests. Rule numbers are defined in doc/user/fare-rules.rst.
 */

#ifndef _FARE_WCMP_H
#define _FARE_WCMP_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* WP-3: what the data plane can hold for one group */
struct fare_wcmp_limits {
	uint32_t max_weight;  /* per member, e.g. 255 (kernel 8 bits) */
	uint32_t max_members; /* sum of weights allowed (switch group size),
			       * e.g. 128
			       */
};

/*
 * The optimiser searches weight sums up to this many members; larger
 * max_members values are honoured as limits but not searched beyond it
 * (an exact ratio, WP-3's GCD reduction, is still found at any size).
 */
#define FARE_WCMP_SEARCH_MAX_TOTAL (1u << 17)

/*
 * WP-3, FARE-4: from n non-negative bandwidths (bytes/s; zero allowed, it
 * gets weight 0 and takes no member) compute integer weights:
 * - all non-zero bandwidths equal and max_members >= their number: all 1;
 * - the ratio is exact in integers (all integral and < 2^63: reduce by the
 *   GCD) and fits the limits: that reduced ratio;
 * - otherwise the vector with each w_i in [0, max_weight] and
 *   1 <= sum(w) <= max_members that maximises the throughput (see
 *   fare_wcmp_throughput()); exact ties go to the smaller sum, then to
 *   fewer non-zero paths at weight 0. A path the budget cannot represent
 *   (its share far below 1 / max_members) may get 0: at weight 1 it would
 *   saturate first. At least one path is used. The first two cases are
 *   this optimum too (throughput 1).
 * Returns the number of non-zero weights (at most that of non-zero
 * bandwidths), or -1 when n == 0, a pointer is NULL, any bw is negative, NaN
 * or infinite, all bw are zero, max_weight or max_members is 0, or memory
 * runs out (over 128 non-zero paths only).
 */
int fare_wcmp_weights(const double *bw, size_t n, const struct fare_wcmp_limits *lim,
		      uint32_t *weights);

/*
 * fare_wcmp_weights() remembered: the weights of the last vectors seen,
 * each in one of two slots by a hash of the bandwidths (their bits) and
 * limits, the older of the two replaced. The
 * prefixes of a fabric share few bandwidth vectors (all those of one
 * origin the same), so a table's worth of them costs a few searches. The
 * caller owns the memo (zeroed before first use; one per thread).
 */
#define FARE_WCMP_MEMO_SLOTS 64 /* a power of 2 */
#define FARE_WCMP_MEMO_PATHS 16 /* more paths: computed each time */

struct fare_wcmp_memo_entry {
	uint64_t hash; /* 0: empty */
	uint64_t used; /* memo's clock when last used */
	uint32_t n;
	int result;
	struct fare_wcmp_limits lim;
	double bw[FARE_WCMP_MEMO_PATHS];
	uint32_t weights[FARE_WCMP_MEMO_PATHS];
};

struct fare_wcmp_memo {
	struct fare_wcmp_memo_entry slot[FARE_WCMP_MEMO_SLOTS];
	uint64_t clock, hits, misses;
};

/* fare_wcmp_weights(), its result remembered in memo (NULL: none); a
 * failure (-1) is not remembered
 */
int fare_wcmp_weights_memo(struct fare_wcmp_memo *memo, const double *bw, size_t n,
			   const struct fare_wcmp_limits *lim, uint32_t *weights);

/*
 * Fraction of the ideal throughput a weight vector carries (the quantity
 * maximised above). Split w_i / sum(w), the traffic saturates the most
 * over-loaded member first, at min over w_i > 0 of b_i sum(w) / w_i; over
 * sum(b):
 *	min over w_i > 0 of (b_i / sum(b)) / (w_i / sum(w)),
 * in (0, 1], 1 only for the exact ratio. Paths at weight 0 count in sum(b)
 * (their capacity is lost). NaN when n == 0, a pointer is NULL, a bw is
 * invalid or all bw are zero; 0 when the weights sum to 0 or a
 * zero-bandwidth path has a non-zero weight.
 */
double fare_wcmp_throughput(const double *bw, const uint32_t *weights, size_t n);

/*
 * Worst relative share error max_i |w_i/sum(w) - b_i/sum(b)| / (b_i/sum(b))
 * over the non-zero bandwidths (1 for a path at weight 0): the objective
 * before WP-3's throughput decision, kept for comparison. NaN when n == 0, a
 * pointer is NULL or a bw is invalid; +inf when the weights sum to 0, when
 * all bw are zero, or when a zero-bandwidth path has a non-zero weight.
 */
double fare_wcmp_max_error(const double *bw, const uint32_t *weights, size_t n);

#ifdef __cplusplus
}
#endif

#endif /* _FARE_WCMP_H */
