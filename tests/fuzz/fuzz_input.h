// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer targets of the FARE core: reading the fuzzer's bytes as typed
 * values, and the check that stops a run when an invariant breaks.
 *
 * A target reads its input front to back; past the end every read gives 0,
 * so short inputs still describe whole cases (a count of 200 paths with a
 * few bytes left gives 200 paths, most of them all zero).
 */
#ifndef FARE_FUZZ_INPUT_H
#define FARE_FUZZ_INPUT_H

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* An invariant broke: say which, where, and crash so libFuzzer saves it. */
#define FUZZ_CHECK(cond)                                                                           \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "%s:%d: invariant failed: %s\n", __FILE__, __LINE__,       \
				#cond);                                                            \
			abort();                                                                   \
		}                                                                                  \
	} while (0)

/*
 * format(buf, len) against the full text (format() into full, full_len
 * bytes): the same return value, a terminated prefix, nothing written past
 * len (the buffer is exactly len bytes on the heap: ASan sees any
 * overflow). Returns the length.
 */
typedef int fuzz_format_fn(char *buf, size_t len, const void *arg);

static inline int fuzz_check_truncation(fuzz_format_fn *format, const void *arg, size_t len,
					char *full, size_t full_len)
{
	int total = format(full, full_len, arg);
	char *buf = len ? malloc(len) : NULL;
	int r;

	FUZZ_CHECK(total >= 0 && (size_t)total < full_len);
	FUZZ_CHECK((size_t)total == strlen(full));
	r = format(buf, len, arg);
	FUZZ_CHECK(r == total);
	if (len) {
		size_t kept = (size_t)total < len ? (size_t)total : len - 1;

		FUZZ_CHECK(buf[kept] == '\0');
		FUZZ_CHECK(memcmp(buf, full, kept) == 0);
	}
	free(buf);
	return total;
}

struct fuzz_input {
	const uint8_t *data;
	size_t size;
	size_t pos;
};

static inline uint8_t fuzz_u8(struct fuzz_input *in)
{
	return in->pos < in->size ? in->data[in->pos++] : 0;
}

/* big-endian, like the wire */
static inline uint16_t fuzz_u16(struct fuzz_input *in)
{
	uint16_t hi = fuzz_u8(in);

	return (uint16_t)(hi << 8 | fuzz_u8(in));
}

static inline uint32_t fuzz_u32(struct fuzz_input *in)
{
	uint32_t v = 0;
	int i;

	for (i = 0; i < 4; i++)
		v = v << 8 | fuzz_u8(in);
	return v;
}

static inline uint64_t fuzz_u64(struct fuzz_input *in)
{
	uint64_t hi = fuzz_u32(in);

	return hi << 32 | fuzz_u32(in);
}

static inline size_t fuzz_left(const struct fuzz_input *in)
{
	return in->size - in->pos;
}

/*
 * A WCMP limit (WP-3): 0 (invalid) to 239 in one byte, 1 to 1024 (in the
 * range of bgp fare wcmp max-weight and max-members, 1-65535) after
 * 0xf0-0xfe, UINT32_MAX for 0xff. Larger budgets only make
 * fare_wcmp_weights() search longer (up to FARE_WCMP_SEARCH_MAX_TOTAL):
 * UINT32_MAX reaches that, rarely enough to keep the fuzzer fast.
 */
static inline uint32_t fuzz_limit(struct fuzz_input *in)
{
	uint8_t b = fuzz_u8(in);

	if (b == 0xff)
		return UINT32_MAX;
	if (b < 0xf0)
		return b;
	return (uint32_t)(fuzz_u16(in) % 1024) + 1;
}

/* link speeds in bytes per second, as the unit tests write them */
#define FUZZ_GBPS(g) ((g)*1e9 / 8)

/*
 * A bandwidth in bytes per second: one byte picks the kind, so that the
 * fuzzer reaches the interesting values without guessing 8 bytes.
 *   0x00-0x3f: one of the special values below
 *   0x40-0x7f: a line rate, 1 to 64 times 10 Gb/s (exact ratios, WP-4)
 *   0x80-0xbf: the next 4 bytes as an IEEE 754 single (what the wire
 *              carries, FARE-1: NaN, infinities, subnormals included)
 *   0xc0-0xff: the next 8 bytes as an IEEE 754 double (anything)
 */
static inline double fuzz_bandwidth(struct fuzz_input *in)
{
	static const double special[] = {
		0.0,
		-0.0,
		NAN,
		INFINITY,
		-INFINITY,
		-1.0,
		1.0,
		FLT_MAX, /* FARE-2 origination value */
		DBL_MAX,
		DBL_MIN,
		FLT_MIN,
		0x1p-1074, /* smallest subnormal double */
		0x1p-149,  /* smallest subnormal float */
		FUZZ_GBPS(50),
		FUZZ_GBPS(75),
		FUZZ_GBPS(100),
		FUZZ_GBPS(400),
		FUZZ_GBPS(0.001),
		0x1p63, /* the exact-ratio limit of fare_wcmp_weights() */
		0x1p63 - 1024,
		1e300,
		-1e300,
		3.0,
		7.0,
		0.1,
		1e-300,
	};
	uint8_t kind = fuzz_u8(in);

	if (kind < 0x40)
		return special[kind % (sizeof(special) / sizeof(special[0]))];
	if (kind < 0x80)
		return FUZZ_GBPS(10.0 * (kind - 0x40 + 1));
	if (kind < 0xc0) {
		uint32_t bits = fuzz_u32(in);
		float f;

		memcpy(&f, &bits, sizeof(f));
		return f;
	} else {
		uint64_t bits = fuzz_u64(in);
		double d;

		memcpy(&d, &bits, sizeof(d));
		return d;
	}
}

/* a usable bandwidth: finite and >= 0 */
static inline int fuzz_bw_usable(double v)
{
	return isfinite(v) && v >= 0;
}

#endif /* FARE_FUZZ_INPUT_H */
