// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * FARE Path Bandwidth Extended Community: wire codec, value classes,
 * human-readable units and operator input parsing (FARE-1, FARE-2).
 */

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fare_pathbw.h"

/* FARE-1: the Local Administrator is an IEEE 754 binary32 */
_Static_assert(sizeof(float) == 4 && FLT_RADIX == 2 && FLT_MANT_DIG == 24 && FLT_MAX_EXP == 128,
	       "FARE-1 needs IEEE 754 single precision floats");

#define FLOAT_SIGN_BIT	0x80000000u
#define FLOAT_EXP_MASK	0x7f800000u
#define FLOAT_FRAC_MASK 0x007fffffu

static uint32_t float_to_bits(float value)
{
	uint32_t bits;

	memcpy(&bits, &value, sizeof(bits));
	return bits;
}

static float bits_to_float(uint32_t bits)
{
	float value;

	memcpy(&value, &bits, sizeof(value));
	return value;
}

/* Classify from the bits: no FP operation, so a signalling NaN stays one */
static enum fare_bw_class classify_bits(uint32_t bits)
{
	bool negative = bits & FLOAT_SIGN_BIT;
	uint32_t exponent = bits & FLOAT_EXP_MASK;
	uint32_t fraction = bits & FLOAT_FRAC_MASK;

	if (exponent == FLOAT_EXP_MASK) {
		if (fraction)
			return FARE_BW_NAN;
		return negative ? FARE_BW_NEG_INFINITE : FARE_BW_INFINITE;
	}
	if (exponent == 0) {
		if (!fraction)
			return FARE_BW_ZERO;
		return negative ? FARE_BW_NEGATIVE : FARE_BW_SUBNORMAL;
	}
	return negative ? FARE_BW_NEGATIVE : FARE_BW_VALID;
}

void fare_pathbw_encode(uint8_t out[FARE_ECOMM_SIZE], bool transitive, uint8_t subtype,
			uint32_t asn, float bytes_per_sec)
{
	/* FARE-1: a 4-octet AS by its low 16 bits (not AS_TRANS, which
	 * would make every 4-octet writer look alike to FARE-7)
	 */
	uint16_t global_admin = fare_pathbw_ga(asn);
	uint32_t local_admin = float_to_bits(bytes_per_sec);

	out[0] = transitive ? FARE_PATHBW_TYPE_TRANSITIVE : FARE_PATHBW_TYPE_NON_TRANSITIVE;
	out[1] = subtype;
	out[2] = (uint8_t)(global_admin >> 8);
	out[3] = (uint8_t)global_admin;
	/* network byte order, whatever the host is (FARE-1) */
	out[4] = (uint8_t)(local_admin >> 24);
	out[5] = (uint8_t)(local_admin >> 16);
	out[6] = (uint8_t)(local_admin >> 8);
	out[7] = (uint8_t)local_admin;
}

bool fare_pathbw_decode(const uint8_t ec[FARE_ECOMM_SIZE], uint8_t subtype, struct fare_pathbw *pb)
{
	uint32_t local_admin;

	if (ec[0] != FARE_PATHBW_TYPE_TRANSITIVE && ec[0] != FARE_PATHBW_TYPE_NON_TRANSITIVE)
		return false;
	if (ec[1] != subtype)
		return false;
	if (!pb)
		return true;

	local_admin = (uint32_t)ec[4] << 24 | (uint32_t)ec[5] << 16 | (uint32_t)ec[6] << 8 |
		      (uint32_t)ec[7];
	pb->transitive = ec[0] == FARE_PATHBW_TYPE_TRANSITIVE;
	pb->subtype = ec[1];
	pb->as = (uint16_t)(ec[2] << 8 | ec[3]);
	pb->bytes_per_sec = bits_to_float(local_admin);
	pb->class = classify_bits(local_admin);
	return true;
}

enum fare_bw_class fare_bw_classify(float v)
{
	return classify_bits(float_to_bits(v));
}

const char *fare_bw_class_name(enum fare_bw_class c)
{
	switch (c) {
	case FARE_BW_VALID:
		return "valid";
	case FARE_BW_ZERO:
		return "zero";
	case FARE_BW_SUBNORMAL:
		return "subnormal";
	case FARE_BW_NEGATIVE:
		return "negative";
	case FARE_BW_NAN:
		return "nan";
	case FARE_BW_INFINITE:
		return "infinite";
	case FARE_BW_NEG_INFINITE:
		return "negative-infinite";
	case FARE_BW_CLASS_MAX:
		break;
	}
	return "unknown";
}

bool fare_bw_class_usable(enum fare_bw_class c)
{
	return c == FARE_BW_VALID || c == FARE_BW_ZERO;
}

/* d rounded to FLT_DIG significant digits */
static double fare_bw_wire_round(double d)
{
	double magnitude;
	int exp10;

	/* Round to FLT_DIG (6) significant digits: every decimal value with
	 * that many digits survives decimal -> float -> decimal, so what the
	 * sender meant (400 Gb/s = 5e10 bytes/s) is what we compute with,
	 * not the float's binary neighbour (49999998976).
	 */
	magnitude = floor(log10(d));
	exp10 = (int)magnitude - (FLT_DIG - 1);
	if (exp10 >= 0) {
		double scale = pow(10, exp10);

		return round(d / scale) * scale;
	} else {
		double scale = pow(10, -exp10);

		return round(d * scale) / scale;
	}
}

double fare_bw_wire_value(float value)
{
	double d = value;

	if (!(d > 0) || isinf(d))
		return d;
	if (d >= FARE_PATHBW_MAX_BYTES_PER_SEC)
		return FARE_PATHBW_MAX_BYTES_PER_SEC;
	return fare_bw_wire_round(d);
}

double fare_bw_wire_value_memo(float value, struct fare_bw_wire_memo *memo)
{
	if (memo->set && value == memo->value)
		return memo->result;
	memo->result = fare_bw_wire_value(value);
	memo->value = value;
	memo->set = true;
	return memo->result;
}

struct bw_unit {
	double bits_per_sec;
	const char *name;
};

static const struct bw_unit bw_units[] = {
	{ 1e3, "Kbps" },  { 1e6, "Mbps" },  { 1e9, "Gbps" },
	{ 1e12, "Tbps" }, { 1e15, "Pbps" }, { 1e18, "Ebps" },
};

#define BW_UNITS_COUNT (sizeof(bw_units) / sizeof(bw_units[0]))

int fare_bw_format(char *buf, size_t len, double bytes_per_sec)
{
	double bits_per_sec, scaled;
	size_t unit;

	if (isnan(bytes_per_sec) || isinf(bytes_per_sec) || bytes_per_sec < 0)
		return snprintf(buf, len, "invalid");
	/* FARE-2: the origination value; sums of it (FARE-5) are "max" too */
	if (bytes_per_sec >= FARE_PATHBW_MAX_BYTES_PER_SEC)
		return snprintf(buf, len, "max");

	/* -0.0 is zero: "0 bps", not "-0 bps" */
	bits_per_sec = bytes_per_sec == 0 ? 0.0 : bytes_per_sec * 8.0;
	if (bits_per_sec < bw_units[0].bits_per_sec) {
		if (bits_per_sec == floor(bits_per_sec))
			return snprintf(buf, len, "%.0f bps", bits_per_sec);
		return snprintf(buf, len, "%.3f bps", bits_per_sec);
	}

	unit = 0;
	while (unit + 1 < BW_UNITS_COUNT && bits_per_sec >= bw_units[unit + 1].bits_per_sec)
		unit++;
	scaled = bits_per_sec / bw_units[unit].bits_per_sec;
	/* 999.9996 Gbps would print as "1000.000 Gbps": use the next unit */
	if (scaled >= 999.9995 && unit + 1 < BW_UNITS_COUNT) {
		unit++;
		scaled = bits_per_sec / bw_units[unit].bits_per_sec;
	}
	return snprintf(buf, len, "%.3f %s", scaled, bw_units[unit].name);
}

int fare_pathbw_format(char *buf, size_t len, const struct fare_pathbw *pb)
{
	const char *prefix = pb->transitive ? "PB" : "PB-NT";
	char human[64];

	if (!fare_bw_class_usable(pb->class))
		return snprintf(buf, len, "%s:%u:invalid(%s)", prefix, (unsigned int)pb->as,
				fare_bw_class_name(pb->class));

	fare_bw_format(human, sizeof(human), pb->bytes_per_sec);
	return snprintf(buf, len, "%s:%u:%s", prefix, (unsigned int)pb->as, human);
}

/* Locale-independent ASCII helpers: bgpd must not depend on LC_CTYPE */
static char ascii_lower(char c)
{
	return (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c;
}

static bool ascii_equal_nocase(const char *a, const char *b)
{
	for (; *a && *b; a++, b++)
		if (ascii_lower(*a) != ascii_lower(*b))
			return false;
	return *a == *b;
}

/* exact powers of ten: every one up to 1e22 is a double */
static const double powers_of_ten[] = {
	1e0,  1e1,  1e2,  1e3,	1e4,  1e5,  1e6,  1e7,	1e8,  1e9,  1e10, 1e11,
	1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
};

#define POWERS_OF_TEN_COUNT (sizeof(powers_of_ten) / sizeof(powers_of_ten[0]))

bool fare_bw_parse(const char *str, double *bytes_per_sec)
{
	const double bits_per_byte = 8.0;
	uint64_t mantissa = 0;
	unsigned int digits = 0, fraction_digits = 0;
	bool seen_dot = false;
	int unit_exponent, exponent;
	double bits_per_sec, bytes;
	const char *p;

	if (!str || !bytes_per_sec)
		return false;

	if (ascii_equal_nocase(str, "max")) {
		*bytes_per_sec = FARE_PATHBW_MAX_BYTES_PER_SEC;
		return true;
	}

	for (p = str;; p++) {
		if (*p >= '0' && *p <= '9') {
			if (mantissa > (UINT64_MAX - 9) / 10)
				return false; /* too many digits */
			mantissa = mantissa * 10 + (uint64_t)(*p - '0');
			digits++;
			if (seen_dot)
				fraction_digits++;
		} else if (*p == '.' && !seen_dot) {
			seen_dot = true;
		} else {
			break;
		}
	}
	if (!digits)
		return false;

	switch (ascii_lower(*p)) {
	case '\0':
		unit_exponent = 6; /* plain number: Mbps, as FRR's bandwidth */
		break;
	case 'b':
		unit_exponent = 0; /* "bps" checked below */
		break;
	case 'k':
		unit_exponent = 3;
		p++;
		break;
	case 'm':
		unit_exponent = 6;
		p++;
		break;
	case 'g':
		unit_exponent = 9;
		p++;
		break;
	case 't':
		unit_exponent = 12;
		p++;
		break;
	default:
		return false;
	}
	if (*p && !ascii_equal_nocase(p, "bps"))
		return false;

	/* one rounding only: exact mantissa times/over an exact power of 10 */
	exponent = unit_exponent - (int)fraction_digits;
	if ((unsigned int)abs(exponent) >= POWERS_OF_TEN_COUNT)
		return false;
	if (exponent >= 0)
		bits_per_sec = (double)mantissa * powers_of_ten[exponent];
	else
		bits_per_sec = (double)mantissa / powers_of_ten[-exponent];

	bytes = bits_per_sec / bits_per_byte;
	/* zero, and what a float cannot carry as a normal number (FARE-1) */
	if (!(bytes >= FLT_MIN) || bytes > FLT_MAX)
		return false;

	*bytes_per_sec = bytes;
	return true;
}

const char *fare_pathbw_subtype_assigned(uint8_t subtype)
{
	/* IANA, "BGP Extended Communities": Transitive Two-Octet
	 * AS-Specific sub-types, and link bandwidth (0x04, which bgpd
	 * decodes in both the transitive and the non-transitive type).
	 */
	switch (subtype) {
	case 0x02:
		return "route target";
	case 0x03:
		return "route origin";
	case 0x04:
		return "link bandwidth";
	case 0x05:
		return "OSPF domain identifier";
	case 0x08:
		return "BGP data collection";
	case 0x09:
		return "source AS";
	case 0x0a:
		return "L2VPN identifier";
	case 0x10:
		return "VPN distinguisher";
	case 0x13:
		return "route-target record";
	case 0x15:
		return "RT-derived";
	case 0x80:
		return "virtual-network identifier";
	}
	return NULL;
}
