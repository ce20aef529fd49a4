// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests: Path Bandwidth Extended Community codec, value classes,
 * units (FARE-1, FARE-2, FARE-4, FARE-5).
 */

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "fare_pathbw.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* 100 Gb/s in bytes per second (FARE-1) */
#define BYTES_100G	1.25e10
#define FLOAT_BITS_100G 0x503A43B7u

static uint32_t bits_of(float v)
{
	uint32_t bits;

	memcpy(&bits, &v, sizeof(bits));
	return bits;
}

static float float_of(uint32_t bits)
{
	float v;

	memcpy(&v, &bits, sizeof(v));
	return v;
}

/* a Path Bandwidth community with these raw Local Administrator bits */
static void make_ec(uint8_t ec[FARE_ECOMM_SIZE], uint8_t type, uint8_t subtype, uint32_t bits)
{
	ec[0] = type;
	ec[1] = subtype;
	ec[2] = 0xFD;
	ec[3] = 0xE9;
	ec[4] = (uint8_t)(bits >> 24);
	ec[5] = (uint8_t)(bits >> 16);
	ec[6] = (uint8_t)(bits >> 8);
	ec[7] = (uint8_t)bits;
}

/* FARE-1: the known vector, exact octets */
static void test_encode_known_vector(void **state)
{
	static const uint8_t expected[FARE_ECOMM_SIZE] = {
		0x00, 0x30, 0xFD, 0xE9, 0x50, 0x3A, 0x43, 0xB7,
	};
	uint8_t ec[FARE_ECOMM_SIZE];

	(void)state;
	assert_int_equal(bits_of((float)BYTES_100G), FLOAT_BITS_100G);
	fare_pathbw_encode(ec, true, FARE_PATHBW_SUBTYPE_DEFAULT, 65001, (float)BYTES_100G);
	assert_memory_equal(ec, expected, FARE_ECOMM_SIZE);
}

/* FARE-1: the float is read in network byte order, not host order */
static void test_decode_byte_order(void **state)
{
	static const uint8_t network[FARE_ECOMM_SIZE] = {
		0x00, 0x30, 0xFD, 0xE9, 0x50, 0x3A, 0x43, 0xB7,
	};
	static const uint8_t swapped[FARE_ECOMM_SIZE] = {
		0x00, 0x30, 0xFD, 0xE9, 0xB7, 0x43, 0x3A, 0x50,
	};
	struct fare_pathbw pb;

	(void)state;
	assert_true(fare_pathbw_decode(network, FARE_PATHBW_SUBTYPE_DEFAULT, &pb));
	assert_true(pb.transitive);
	assert_int_equal(pb.subtype, 0x30);
	assert_int_equal(pb.as, 65001);
	assert_int_equal(bits_of(pb.bytes_per_sec), FLOAT_BITS_100G);
	assert_int_equal(pb.class, FARE_BW_VALID);
	assert_true(fabs(pb.bytes_per_sec - BYTES_100G) < 1e3);

	/* little-endian float bytes on the wire are another (wrong) value */
	assert_true(fare_pathbw_decode(swapped, FARE_PATHBW_SUBTYPE_DEFAULT, &pb));
	assert_int_equal(bits_of(pb.bytes_per_sec), 0xB7433A50u);
	assert_true(pb.bytes_per_sec != (float)BYTES_100G);
	assert_true(fabs(pb.bytes_per_sec - BYTES_100G) > 1e9);
	assert_int_equal(pb.class, FARE_BW_NEGATIVE);
}

static void check_round_trip(float value, uint32_t asn, uint8_t subtype, bool transitive)
{
	uint8_t ec[FARE_ECOMM_SIZE];
	struct fare_pathbw pb;

	fare_pathbw_encode(ec, transitive, subtype, asn, value);
	memset(&pb, 0xA5, sizeof(pb));
	assert_true(fare_pathbw_decode(ec, subtype, &pb));
	assert_int_equal(pb.transitive, transitive);
	assert_int_equal(pb.subtype, subtype);
	assert_int_equal(pb.as, asn);
	assert_int_equal(bits_of(pb.bytes_per_sec), bits_of(value));
	assert_int_equal(pb.class, fare_bw_classify(value));
}

static void test_round_trip(void **state)
{
	static const float values[] = {
		1.25e10f, 5e10f, 1e11f, 2e11f, 3.125e9f, 1.0f, FLT_MIN, FLT_MAX, 0.0f, 123456.789f,
	};
	static const uint32_t asns[] = { 0, 1, 64512, 65001, 65535 };
	static const uint8_t subtypes[] = { FARE_PATHBW_SUBTYPE_DEFAULT, 0x31, 0xFF };
	size_t v, a, s;

	(void)state;
	for (v = 0; v < ARRAY_SIZE(values); v++)
		for (a = 0; a < ARRAY_SIZE(asns); a++)
			for (s = 0; s < ARRAY_SIZE(subtypes); s++) {
				check_round_trip(values[v], asns[a], subtypes[s], true);
				check_round_trip(values[v], asns[a], subtypes[s], false);
			}
}

/* FARE-8: the non-transitive variant, type 0x40 */
static void test_non_transitive(void **state)
{
	uint8_t ec[FARE_ECOMM_SIZE];
	struct fare_pathbw pb;

	(void)state;
	fare_pathbw_encode(ec, false, FARE_PATHBW_SUBTYPE_DEFAULT, 65001, (float)BYTES_100G);
	assert_int_equal(ec[0], FARE_PATHBW_TYPE_NON_TRANSITIVE);
	assert_int_equal(ec[0], 0x40);
	assert_int_equal(ec[1], 0x30);
	assert_true(fare_pathbw_decode(ec, FARE_PATHBW_SUBTYPE_DEFAULT, &pb));
	assert_false(pb.transitive);
	assert_int_equal(pb.as, 65001);
	assert_int_equal(pb.class, FARE_BW_VALID);
}

/* FARE-1: a 4-octet AS by its low 16 bits (0xFA56EA01 -> 0xEA01), a
 * 2-octet one as it is; ASes equal modulo 2^16 collide (documented).
 */
static void test_as4_low_bits(void **state)
{
	uint8_t ec[FARE_ECOMM_SIZE];
	struct fare_pathbw pb;

	(void)state;
	fare_pathbw_encode(ec, true, FARE_PATHBW_SUBTYPE_DEFAULT, 4200000001u, (float)BYTES_100G);
	assert_int_equal(ec[2], 0xEA);
	assert_int_equal(ec[3], 0x01);
	assert_true(fare_pathbw_decode(ec, FARE_PATHBW_SUBTYPE_DEFAULT, &pb));
	assert_int_equal(pb.as, 59905);
	assert_int_equal(pb.as, fare_pathbw_ga(4200000001u));
	/* two neighbors of one fabric's private range stay apart */
	assert_int_not_equal(fare_pathbw_ga(4200000001u), fare_pathbw_ga(4200000002u));
	/* the collision case */
	assert_int_equal(fare_pathbw_ga(4200000001u), fare_pathbw_ga(4200065537u));
	assert_int_equal(fare_pathbw_ga(65537), 1);

	fare_pathbw_encode(ec, true, FARE_PATHBW_SUBTYPE_DEFAULT, 65536, (float)BYTES_100G);
	assert_int_equal(ec[2] << 8 | ec[3], 0);
	fare_pathbw_encode(ec, true, FARE_PATHBW_SUBTYPE_DEFAULT, 65535, (float)BYTES_100G);
	assert_int_equal(ec[2] << 8 | ec[3], 65535);
	fare_pathbw_encode(ec, true, FARE_PATHBW_SUBTYPE_DEFAULT, 23456, (float)BYTES_100G);
	assert_int_equal(ec[2] << 8 | ec[3], 23456);
}

struct class_case {
	uint32_t bits;
	enum fare_bw_class class;
	const char *what;
};

static const struct class_case class_cases[] = {
	{ 0x7FC00000u, FARE_BW_NAN, "quiet NaN" },
	{ 0x7FA00000u, FARE_BW_NAN, "signalling NaN" },
	{ 0x7F800001u, FARE_BW_NAN, "signalling NaN, low bit" },
	{ 0xFFC00000u, FARE_BW_NAN, "negative quiet NaN" },
	{ 0x7F800000u, FARE_BW_INFINITE, "+inf" },
	{ 0xFF800000u, FARE_BW_NEG_INFINITE, "-inf" },
	{ 0xC2C80000u, FARE_BW_NEGATIVE, "-100" },
	{ 0xFF7FFFFFu, FARE_BW_NEGATIVE, "-FLT_MAX" },
	{ 0x80000001u, FARE_BW_NEGATIVE, "negative subnormal" },
	{ 0x80000000u, FARE_BW_ZERO, "-0.0" },
	{ 0x00000000u, FARE_BW_ZERO, "+0.0" },
	{ 0x00000001u, FARE_BW_SUBNORMAL, "smallest subnormal" },
	{ 0x007FFFFFu, FARE_BW_SUBNORMAL, "largest subnormal" },
	{ 0x7F7FFFFFu, FARE_BW_VALID, "FLT_MAX" },
	{ 0x00800000u, FARE_BW_VALID, "FLT_MIN" },
	{ FLOAT_BITS_100G, FARE_BW_VALID, "100G" },
};

/* FARE-4: every bad-value class, from floats and from the wire */
static void test_classify(void **state)
{
	uint8_t ec[FARE_ECOMM_SIZE];
	struct fare_pathbw pb;
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(class_cases); i++) {
		const struct class_case *c = &class_cases[i];

		print_message("%-24s -> %s\n", c->what, fare_bw_class_name(c->class));
		assert_int_equal(fare_bw_classify(float_of(c->bits)), c->class);
		/* decode classifies the received bits themselves */
		make_ec(ec, FARE_PATHBW_TYPE_TRANSITIVE, FARE_PATHBW_SUBTYPE_DEFAULT, c->bits);
		assert_true(fare_pathbw_decode(ec, FARE_PATHBW_SUBTYPE_DEFAULT, &pb));
		assert_int_equal(pb.class, c->class);
		assert_int_equal(bits_of(pb.bytes_per_sec), c->bits);
		assert_int_equal(fare_bw_class_usable(c->class),
				 c->class == FARE_BW_VALID || c->class == FARE_BW_ZERO);
	}

	assert_int_equal(fare_bw_classify(NAN), FARE_BW_NAN);
	assert_int_equal(fare_bw_classify(-NAN), FARE_BW_NAN);
	assert_int_equal(fare_bw_classify(INFINITY), FARE_BW_INFINITE);
	assert_int_equal(fare_bw_classify(-INFINITY), FARE_BW_NEG_INFINITE);
	assert_int_equal(fare_bw_classify(-1.0f), FARE_BW_NEGATIVE);
	assert_int_equal(fare_bw_classify(-0.0f), FARE_BW_ZERO);
	assert_int_equal(fare_bw_classify(0.0f), FARE_BW_ZERO);
	assert_int_equal(fare_bw_classify(FLT_MIN / 2), FARE_BW_SUBNORMAL);
	assert_int_equal(fare_bw_classify(-FLT_MIN / 2), FARE_BW_NEGATIVE);
	assert_int_equal(fare_bw_classify(FLT_MAX), FARE_BW_VALID);
	assert_int_equal(fare_bw_classify(FLT_MIN), FARE_BW_VALID);
}

static void test_class_names(void **state)
{
	static const char *const names[FARE_BW_CLASS_MAX] = {
		"valid", "zero", "subnormal", "negative", "nan", "infinite", "negative-infinite",
	};
	int c;

	(void)state;
	for (c = 0; c < FARE_BW_CLASS_MAX; c++)
		assert_string_equal(fare_bw_class_name(c), names[c]);
	assert_string_equal(fare_bw_class_name(FARE_BW_CLASS_MAX), "unknown");
	assert_true(fare_bw_class_usable(FARE_BW_VALID));
	assert_true(fare_bw_class_usable(FARE_BW_ZERO));
	for (c = FARE_BW_SUBNORMAL; c <= FARE_BW_CLASS_MAX; c++)
		assert_false(fare_bw_class_usable(c));
}

/* FARE-1: other types and sub-types are not Path Bandwidth */
static void test_decode_rejects(void **state)
{
	static const uint8_t other_types[] = {
		0x01, 0x02, 0x03, 0x06, 0x08, 0x41, 0x42, 0x43, 0x80, 0x83,
	};
	uint8_t ec[FARE_ECOMM_SIZE];
	struct fare_pathbw pb;
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(other_types); i++) {
		make_ec(ec, other_types[i], FARE_PATHBW_SUBTYPE_DEFAULT, FLOAT_BITS_100G);
		assert_false(fare_pathbw_decode(ec, FARE_PATHBW_SUBTYPE_DEFAULT, &pb));
	}
	/* FRR's link bandwidth: type 0x40, sub-type 0x04 */
	make_ec(ec, 0x40, 0x04, FLOAT_BITS_100G);
	assert_false(fare_pathbw_decode(ec, FARE_PATHBW_SUBTYPE_DEFAULT, &pb));
	/* wrong sub-type, either type */
	make_ec(ec, 0x00, 0x31, FLOAT_BITS_100G);
	assert_false(fare_pathbw_decode(ec, FARE_PATHBW_SUBTYPE_DEFAULT, NULL));
	/* the sub-type is configurable (FARE-1): decode as asked */
	make_ec(ec, 0x00, 0x31, FLOAT_BITS_100G);
	assert_true(fare_pathbw_decode(ec, 0x31, NULL));
	assert_false(fare_pathbw_decode(ec, 0x30, NULL));
}

static void check_bw_format(double bytes_per_sec, const char *expected)
{
	char buf[64];
	int len = fare_bw_format(buf, sizeof(buf), bytes_per_sec);

	print_message("%.10g bytes/s -> \"%s\"\n", bytes_per_sec, buf);
	assert_string_equal(buf, expected);
	assert_int_equal(len, strlen(expected));
}

static void test_format(void **state)
{
	struct fare_pathbw pb = {
		.transitive = true,
		.subtype = FARE_PATHBW_SUBTYPE_DEFAULT,
		.as = 65001,
	};
	char buf[64], small[8];
	int len;

	(void)state;
	check_bw_format(5e10, "400.000 Gbps");
	check_bw_format((float)5e10, "400.000 Gbps");
	/* a negative zero on the wire is zero */
	check_bw_format(0.0, "0 bps");
	check_bw_format(-0.0, "0 bps");
	check_bw_format(1e11, "800.000 Gbps");
	check_bw_format((float)1e11, "800.000 Gbps");
	check_bw_format(2e11, "1.600 Tbps");
	check_bw_format((float)2e11, "1.600 Tbps");
	check_bw_format(BYTES_100G, "100.000 Gbps");
	check_bw_format((float)BYTES_100G, "100.000 Gbps");
	check_bw_format(1.25e6, "10.000 Mbps");
	check_bw_format(1.25e11, "1.000 Tbps");
	check_bw_format(1e3, "8.000 Kbps");
	check_bw_format(1.0, "8 bps");
	check_bw_format(0, "0 bps");
	check_bw_format(FLT_MAX, "max");
	check_bw_format((double)FLT_MAX * 64, "max");
	check_bw_format(NAN, "invalid");
	check_bw_format(-1.0, "invalid");
	check_bw_format(INFINITY, "invalid");

	pb.bytes_per_sec = 5e10f;
	pb.class = fare_bw_classify(pb.bytes_per_sec);
	fare_pathbw_format(buf, sizeof(buf), &pb);
	assert_string_equal(buf, "PB:65001:400.000 Gbps");

	pb.transitive = false;
	pb.bytes_per_sec = 2e11f;
	pb.class = fare_bw_classify(pb.bytes_per_sec);
	fare_pathbw_format(buf, sizeof(buf), &pb);
	assert_string_equal(buf, "PB-NT:65001:1.600 Tbps");

	pb.transitive = true;
	pb.as = 23456;
	pb.bytes_per_sec = FARE_PATHBW_MAX_BYTES_PER_SEC;
	pb.class = fare_bw_classify(pb.bytes_per_sec);
	fare_pathbw_format(buf, sizeof(buf), &pb);
	assert_string_equal(buf, "PB:23456:max");

	pb.as = 65001;
	pb.bytes_per_sec = 0.0f;
	pb.class = fare_bw_classify(pb.bytes_per_sec);
	fare_pathbw_format(buf, sizeof(buf), &pb);
	assert_string_equal(buf, "PB:65001:0 bps");

	pb.bytes_per_sec = NAN;
	pb.class = fare_bw_classify(pb.bytes_per_sec);
	len = fare_pathbw_format(buf, sizeof(buf), &pb);
	assert_string_equal(buf, "PB:65001:invalid(nan)");
	assert_int_equal(len, strlen(buf));

	pb.transitive = false;
	pb.bytes_per_sec = -INFINITY;
	pb.class = fare_bw_classify(pb.bytes_per_sec);
	fare_pathbw_format(buf, sizeof(buf), &pb);
	assert_string_equal(buf, "PB-NT:65001:invalid(negative-infinite)");

	pb.bytes_per_sec = FLT_MIN / 4;
	pb.class = fare_bw_classify(pb.bytes_per_sec);
	fare_pathbw_format(buf, sizeof(buf), &pb);
	assert_string_equal(buf, "PB-NT:65001:invalid(subnormal)");

	/* snprintf-like: truncates, returns the full length */
	pb.transitive = true;
	pb.bytes_per_sec = 5e10f;
	pb.class = FARE_BW_VALID;
	len = fare_pathbw_format(small, sizeof(small), &pb);
	assert_int_equal(len, strlen("PB:65001:400.000 Gbps"));
	assert_string_equal(small, "PB:6500");
	assert_int_equal(fare_bw_format(NULL, 0, 5e10), strlen("400.000 Gbps"));
}

struct parse_case {
	const char *text;
	double bytes_per_sec;
};

static const struct parse_case good_parse[] = {
	{ "100G", 1.25e10 },   { "100g", 1.25e10 },  { "400Gbps", 5e10 },
	{ "400gBPS", 5e10 },   { "800G", 1e11 },     { "1.6T", 2e11 },
	{ "1.6Tbps", 2e11 },   { "25000", 3.125e9 }, /* plain number: Mbps */
	{ "25000M", 3.125e9 }, { "10Mbps", 1.25e6 }, { "100k", 12500 },
	{ "8Kbps", 1000 },     { "8000bps", 1000 },  { "0.5G", 6.25e7 },
	{ "100.", 1.25e7 },    { ".5T", 6.25e10 },   { "007G", 8.75e8 },
	{ "max", FLT_MAX },    { "MAX", FLT_MAX },
};

static const char *const bad_parse[] = {
	"",
	"G",
	"bps",
	".",
	"100X",
	"100 G",
	" 100G",
	"100G ",
	"-5G",
	"+5G",
	"0",
	"0G",
	"0.000T",
	"nan",
	"inf",
	"-inf",
	"1e3G",
	"0x10G",
	"1.2.3G",
	"100GG",
	"100Gbpsx",
	"100Gb",
	"100Gbit",
	"maxx",
	"100b",
	"1,5G",
	"0.0000000000000000000bps",
	/* more digits than a uint64_t holds */
	"99999999999999999999T",
	"0.00000000000000000000000000000001bps",
};

static void test_parse(void **state)
{
	double value;
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(good_parse); i++) {
		value = -1;
		assert_true(fare_bw_parse(good_parse[i].text, &value));
		print_message("\"%s\" -> %.10g bytes/s\n", good_parse[i].text, value);
		assert_true(value == good_parse[i].bytes_per_sec);
	}
	for (i = 0; i < ARRAY_SIZE(bad_parse); i++) {
		value = -1;
		if (fare_bw_parse(bad_parse[i], &value))
			fail_msg("\"%s\" parsed as %g", bad_parse[i], value);
		assert_true(value == -1);
	}
	assert_false(fare_bw_parse(NULL, &value));
	assert_false(fare_bw_parse("100G", NULL));
}

/*
 * FARE-5: sums of weights are done in double. 800G and 64 x 800G are
 * exact there (6.4e12 bytes/s), while float arithmetic is not.
 */
static void test_double_sums_exact(void **state)
{
	uint8_t ec[FARE_ECOMM_SIZE];
	struct fare_pathbw pb;
	double one = 0, sum = 0;
	float float_sum = 0;
	int i;

	(void)state;
	assert_true(fare_bw_parse("800G", &one));
	assert_true(one == 1e11);
	for (i = 0; i < 64; i++) {
		sum += one;
		float_sum += (float)one;
	}
	assert_true(sum == 6.4e12);
	assert_true(sum == 64 * one);
	assert_true((double)float_sum != 6.4e12);
	print_message("64 x 800G: double %.1f, float %.1f bytes/s\n", sum, (double)float_sum);

	/* on the wire it is the nearest float, within float precision */
	fare_pathbw_encode(ec, true, FARE_PATHBW_SUBTYPE_DEFAULT, 65001, (float)sum);
	assert_true(fare_pathbw_decode(ec, FARE_PATHBW_SUBTYPE_DEFAULT, &pb));
	assert_int_equal(pb.class, FARE_BW_VALID);
	assert_true(pb.bytes_per_sec == (float)6.4e12);
	assert_true(fabs(pb.bytes_per_sec - 6.4e12) <= 6.4e12 * FLT_EPSILON);
}

/* What a float on the wire stands for: the decimal value the sender meant
 * (400G is 49999998976 as float, 5e10 as meant), at every common speed.
 */
static void test_wire_value(void **state)
{
	static const double gbps[] = { 1, 10, 25, 40, 50, 100, 200, 400, 800, 1600, 3200, 51200 };
	struct fare_bw_wire_memo memo = {};
	size_t i;

	(void)state;
	assert_true((double)(float)5e10 != 5e10);
	for (i = 0; i < sizeof(gbps) / sizeof(gbps[0]); i++) {
		double bytes = gbps[i] * 1e9 / 8;

		assert_true(fare_bw_wire_value((float)bytes) == bytes);
	}
	/* sums of many links, e.g. 64 x 800G */
	assert_true(fare_bw_wire_value((float)6.4e12) == 6.4e12);
	/* sub-unit values keep 6 digits */
	assert_true(fare_bw_wire_value((float)0.125) == 0.125);
	assert_true(fare_bw_wire_value(0.0f) == 0.0);
	assert_true(fare_bw_wire_value(FLT_MAX) == FLT_MAX);
	/* 7th digit is rounded away, relative change below 5e-6 */
	assert_true(fare_bw_wire_value((float)1234567e3) == 1234570e3);
	/* through a memo: the same value again, and values in turn: the
	 * last one is remembered, never another's
	 */
	for (i = 0; i < 4; i++) {
		assert_true(fare_bw_wire_value_memo((float)5e10, &memo) == 5e10);
		assert_true(memo.set && memo.value == (float)5e10);
		assert_true(fare_bw_wire_value_memo((float)5e10, &memo) == 5e10);
		assert_true(fare_bw_wire_value_memo((float)1.25e10, &memo) == 1.25e10);
		assert_true(fare_bw_wire_value_memo(0.0f, &memo) == 0.0);
		assert_true(fare_bw_wire_value_memo((float)1.25e10, &memo) == 1.25e10);
		assert_true(fare_bw_wire_value_memo((float)1234567e3, &memo) == 1234570e3);
		assert_true(fare_bw_wire_value_memo(FLT_MAX, &memo) == FLT_MAX);
	}
}

/* FARE-1: sub-types IANA assigned in the Two-Octet AS-Specific registries
 * are refused; the default and the rest of the free range are not.
 */
static void test_subtype_assigned(void **state)
{
	const uint8_t assigned[] = { 0x02, 0x03, 0x04, 0x05, 0x08, 0x09,
				     0x0a, 0x10, 0x13, 0x15, 0x80 };
	unsigned int i, n = 0;

	(void)state;
	for (i = 0; i < sizeof(assigned); i++)
		assert_non_null(fare_pathbw_subtype_assigned(assigned[i]));
	assert_string_equal(fare_pathbw_subtype_assigned(0x02), "route target");
	assert_string_equal(fare_pathbw_subtype_assigned(0x04), "link bandwidth");
	assert_null(fare_pathbw_subtype_assigned(FARE_PATHBW_SUBTYPE_DEFAULT));
	for (i = 0; i < 256; i++)
		n += fare_pathbw_subtype_assigned(i) != NULL;
	assert_int_equal(n, sizeof(assigned));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_encode_known_vector),
		cmocka_unit_test(test_decode_byte_order),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_non_transitive),
		cmocka_unit_test(test_as4_low_bits),
		cmocka_unit_test(test_classify),
		cmocka_unit_test(test_class_names),
		cmocka_unit_test(test_decode_rejects),
		cmocka_unit_test(test_format),
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_double_sums_exact),
		cmocka_unit_test(test_wire_value),
		cmocka_unit_test(test_subtype_assigned),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
