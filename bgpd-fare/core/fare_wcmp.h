// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * FARE WCMP: integer next-hop weights from path bandwidths, within the
 * data plane's limits (WP-3, FARE-4).
 *
 * Pure C11 core (no FRR headers), shared by the bgpd module and the unit
 * tests. Rule numbers refer to shared/SPEC.md.
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
 * - all non-zero bandwidths equal: all 1;
 * - the ratio is exact in integers (all integral and < 2^63: reduce by the
 *   GCD) and fits the limits: that reduced ratio;
 * - otherwise the vector with each non-zero path in [1, max_weight] and
 *   sum <= max_members that minimises the worst relative share error
 *   max_i |w_i/sum(w) - b_i/sum(b)| / (b_i/sum(b)); ties (within 1e-12
 *   relative) go to the smaller sum.
 * Returns the number of non-zero weights, or -1 when n == 0, a pointer is
 * NULL, any bw is negative, NaN or infinite, all bw are zero, the limits
 * cannot hold one member per non-zero path, or memory runs out.
 */
int fare_wcmp_weights(const double *bw, size_t n, const struct fare_wcmp_limits *lim,
		      uint32_t *weights);

/*
 * Worst relative share error of a weight vector (the quantity minimised
 * above), for tests and `show`. NaN when n == 0, a pointer is NULL or a bw
 * is invalid; +inf when the weights sum to 0, when all bw are zero, or when
 * a zero-bandwidth path has a non-zero weight.
 */
double fare_wcmp_max_error(const double *bw, const uint32_t *weights, size_t n);

#ifdef __cplusplus
}
#endif

#endif /* _FARE_WCMP_H */
