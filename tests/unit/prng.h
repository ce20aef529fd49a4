// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * xorshift64*: the same pseudo-random sequence on every platform, for the
 * unit tests and benchmarks of the FARE core.
 */
#ifndef FARE_TEST_PRNG_H
#define FARE_TEST_PRNG_H

#include <stdint.h>

struct prng {
	uint64_t state;
};

static inline uint64_t prng_next(struct prng *prng)
{
	prng->state ^= prng->state >> 12;
	prng->state ^= prng->state << 25;
	prng->state ^= prng->state >> 27;
	return prng->state * 0x2545F4914F6CDD1DULL;
}

/* uniform in [0, 1) */
static inline double prng_unit(struct prng *prng)
{
	return (double)(prng_next(prng) >> 11) * 0x1p-53;
}

#endif /* FARE_TEST_PRNG_H */
