// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Integer shares of a whole: largest-remainder apportionment and GCD. See
 * fare_apportion.h for the contracts.
 */

#include "fare_apportion.h"

uint64_t fare_gcd(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t rest = a % b;

		a = b;
		b = rest;
	}
	return a;
}

uint32_t fare_gcd_array(const uint32_t *values, size_t n)
{
	uint64_t divisor = 0;
	size_t i;

	for (i = 0; i < n; i++)
		divisor = fare_gcd(values[i], divisor);
	return (uint32_t)divisor;
}

static uint64_t apportion_rem(const struct fare_apportion *ap, size_t i)
{
	return (uint64_t)ap->seats * ap->weights[i] % ap->total;
}

/* in the order of remainders: (rem, i) comes after (cut_rem, cut_index) */
static bool rem_after(uint64_t rem, size_t i, uint64_t cut_rem, size_t cut_index)
{
	return rem < cut_rem || (rem == cut_rem && i > cut_index);
}

bool fare_apportion_init(struct fare_apportion *ap, const uint32_t *weights, size_t n,
			 uint32_t seats)
{
	uint64_t floors = 0;
	size_t i;
	uint32_t k;

	ap->weights = weights;
	ap->seats = seats;
	ap->total = 0;
	ap->left = 0;
	ap->cut_rem = 0;
	ap->cut_index = 0;
	for (i = 0; i < n; i++)
		ap->total += weights[i];
	if (!ap->total)
		return false;
	for (i = 0; i < n; i++)
		floors += (uint64_t)seats * weights[i] / ap->total;
	/* the remainders sum to left W, each below W: left < the members
	 * with a non-zero remainder
	 */
	ap->left = (uint32_t)(seats - floors);
	/* the cut: the left-th member in the order of remainders */
	for (k = 0; k < ap->left; k++) {
		bool found = false;
		uint64_t best_rem = 0;
		size_t best = 0;

		for (i = 0; i < n; i++) {
			uint64_t rem;

			if (!weights[i])
				continue;
			rem = apportion_rem(ap, i);
			if (k && !rem_after(rem, i, ap->cut_rem, ap->cut_index))
				continue;
			/* strictly larger: the lower index keeps a tie */
			if (!found || rem > best_rem) {
				found = true;
				best_rem = rem;
				best = i;
			}
		}
		ap->cut_rem = best_rem;
		ap->cut_index = best;
	}
	return true;
}

uint32_t fare_apportion_seats(const struct fare_apportion *ap, size_t i)
{
	uint64_t product;
	uint32_t seats;

	if (!ap->total || !ap->weights[i])
		return 0;
	product = (uint64_t)ap->seats * ap->weights[i];
	seats = (uint32_t)(product / ap->total);
	if (ap->left && !rem_after(product % ap->total, i, ap->cut_rem, ap->cut_index))
		seats++;
	return seats;
}

uint32_t fare_apportion(const uint32_t *weights, size_t n, uint32_t seats, uint32_t *out)
{
	struct fare_apportion ap;
	bool any = fare_apportion_init(&ap, weights, n, seats);
	size_t i;

	for (i = 0; i < n; i++)
		out[i] = fare_apportion_seats(&ap, i);
	return any ? seats : 0;
}
