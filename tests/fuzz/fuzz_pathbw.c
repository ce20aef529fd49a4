// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target: the Path Bandwidth extended community codec and its
 * text forms (fare_pathbw.[ch], FARE-1, FARE-2).
 *
 * Input: sub-type (1 byte), an 8-octet community, an AS (4 bytes), a
 * buffer length (1 byte), a bandwidth (fuzz_bandwidth()), then an operator
 * string for fare_bw_parse() (up to the first NUL or the end).
 *
 * Checks:
 * - decode accepts exactly type 0x00/0x40 with the asked sub-type, with or
 *   without an output; the fields are the octets, the float's bits are
 *   kept (a signalling NaN too) and its class agrees with C's own
 *   classification (FARE-1);
 * - decode then encode gives back the same 8 octets; encode then decode
 *   gives back the value and the AS modulo 2^16 (FARE-1);
 * - fare_bw_format() and fare_pathbw_format() never write past the length
 *   they are given, always terminate, truncate to a prefix of the full
 *   text and return its length; the human text fits the 64 bytes
 *   fare_pathbw_format() gives it, and reads back through fare_bw_parse()
 *   within the 3 decimals it shows;
 * - fare_bw_wire_value() of a usable value is finite, within 6 significant
 *   digits of it, FLT_MAX stays FLT_MAX (FARE-2), and it is stable: the
 *   value read back from its float is the same decimal;
 * - fare_bw_parse() accepts exactly the documented grammar, and then a
 *   value a float holds as a normal number, equal to a strtod() reading.
 */
#include <ctype.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fare_pathbw.h"
#include "fuzz_input.h"

#define FULL_LEN  160
#define HUMAN_LEN 64 /* the buffer fare_pathbw_format() formats into */

static uint32_t bits_of(float f)
{
	uint32_t bits;

	memcpy(&bits, &f, sizeof(bits));
	return bits;
}

/* FARE-1 classes from C's classification, independent of the core */
static enum fare_bw_class c_class(float f)
{
	switch (fpclassify(f)) {
	case FP_NAN:
		return FARE_BW_NAN;
	case FP_INFINITE:
		return signbit(f) ? FARE_BW_NEG_INFINITE : FARE_BW_INFINITE;
	case FP_ZERO:
		return FARE_BW_ZERO;
	case FP_SUBNORMAL:
		return signbit(f) ? FARE_BW_NEGATIVE : FARE_BW_SUBNORMAL;
	default:
		return signbit(f) ? FARE_BW_NEGATIVE : FARE_BW_VALID;
	}
}

static int format_bw(char *buf, size_t len, const void *arg)
{
	return fare_bw_format(buf, len, *(const double *)arg);
}

static int format_pathbw(char *buf, size_t len, const void *arg)
{
	return fare_pathbw_format(buf, len, arg);
}

/*
 * The grammar fare_bw_parse() documents, read independently: digits with
 * at most one '.', then optionally K/M/G/T, then optionally "bps" (a bare
 * number is Mbps, a bare "bps" bits per second); "max" in any case. Gives
 * the value through strtod() in bytes per second and the number of
 * significant and fraction digits; false when the text is not of that form.
 */
struct parse_ref {
	double bytes;
	unsigned int significant, fraction;
	bool max;
};

static bool nocase_equal(const char *a, const char *b)
{
	for (; *a && *b; a++, b++)
		if (tolower((unsigned char)*a) != tolower((unsigned char)*b))
			return false;
	return *a == *b;
}

static bool reference_parse(const char *s, struct parse_ref *ref)
{
	static const char units[] = "kmgt";
	const char *p = s, *unit;
	bool dot = false, leading = true;
	unsigned int digits = 0;
	int exponent = 6; /* Mbps */

	memset(ref, 0, sizeof(*ref));
	if (nocase_equal(s, "max")) {
		ref->max = true;
		ref->bytes = FLT_MAX;
		return true;
	}
	for (; isdigit((unsigned char)*p) || (*p == '.' && !dot); p++) {
		if (*p == '.') {
			dot = true;
			continue;
		}
		digits++;
		ref->fraction += dot;
		leading = leading && *p == '0';
		ref->significant += !leading;
	}
	if (!digits)
		return false;
	unit = *p ? strchr(units, tolower((unsigned char)*p)) : NULL;
	if (unit) {
		exponent = 3 * (int)(unit - units + 1);
		p++;
	} else if (*p) {
		exponent = 0; /* must be "bps" */
	}
	if (*p && !nocase_equal(p, "bps"))
		return false;
	ref->bytes = strtod(s, NULL) * pow(10, exponent) / 8;
	return true;
}

static void check_parse(const char *s)
{
	struct parse_ref ref;
	bool grammar = reference_parse(s, &ref);
	double got = -1;
	bool ok = fare_bw_parse(s, &got);

	if (!ok) {
		/* what it must take: the grammar, a normal float clear of
		 * the limits, digits a 64-bit mantissa and the powers of ten
		 * it uses hold
		 */
		FUZZ_CHECK(!(grammar && ref.significant <= 18 && ref.fraction <= 16 &&
			     ref.bytes >= FLT_MIN * (1 + 1e-12) &&
			     ref.bytes <= FLT_MAX * (1 - 1e-12)));
		return;
	}
	FUZZ_CHECK(grammar);
	FUZZ_CHECK(got >= FLT_MIN && got <= FLT_MAX);
	if (ref.max)
		FUZZ_CHECK(got == FARE_PATHBW_MAX_BYTES_PER_SEC);
	else
		FUZZ_CHECK(fabs(got - ref.bytes) <= ref.bytes * 1e-14);
}

/*
 * The human text of v (not "invalid", not "max") read back: drop the
 * space, parse, compare within the 3 decimals shown in its unit.
 */
static void check_format_reads_back(const char *text, double v)
{
	static const struct {
		const char *suffix;
		double bits;
	} units[] = {
		{ " bps", 1 },	  { " Kbps", 1e3 },  { " Mbps", 1e6 },
		{ " Gbps", 1e9 }, { " Tbps", 1e12 },
	};
	char joined[FULL_LEN];
	const char *space = strchr(text, ' ');
	double got;
	size_t i;

	FUZZ_CHECK(space && space > text);
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (strcmp(space, units[i].suffix) == 0)
			break;
	if (i == sizeof(units) / sizeof(units[0])) {
		/* Pbps, Ebps: shown, not parsed */
		FUZZ_CHECK(strcmp(space, " Pbps") == 0 || strcmp(space, " Ebps") == 0);
		return;
	}
	snprintf(joined, sizeof(joined), "%.*s%s", (int)(space - text), text, space + 1);
	if (!fare_bw_parse(joined, &got)) {
		/* only a value shown as zero is refused */
		FUZZ_CHECK(strtod(joined, NULL) == 0);
		return;
	}
	FUZZ_CHECK(fabs(got - v) <= 0.00051 * units[i].bits / 8 + v * 1e-12);
}

static void check_bw_format(double v, size_t len)
{
	char full[FULL_LEN];
	int r = fuzz_check_truncation(format_bw, &v, len, full, sizeof(full));

	FUZZ_CHECK(r < HUMAN_LEN);
	if (isnan(v) || isinf(v) || v < 0) {
		FUZZ_CHECK(strcmp(full, "invalid") == 0);
	} else if (v >= FARE_PATHBW_MAX_BYTES_PER_SEC) {
		FUZZ_CHECK(strcmp(full, "max") == 0); /* FARE-2 */
	} else {
		check_format_reads_back(full, v);
	}
}

/* FARE-1: only the 6 significant digits a float carries (FLT_DIG) */
static void check_wire_value(float f)
{
	double w = fare_bw_wire_value(f), again;

	FUZZ_CHECK(isfinite(w) && w >= 0 && w <= FLT_MAX);
	if (f == 0) {
		FUZZ_CHECK(w == 0);
		return;
	}
	if (f == FLT_MAX) {
		FUZZ_CHECK(w == FARE_PATHBW_MAX_BYTES_PER_SEC); /* FARE-2 */
		return;
	}
	FUZZ_CHECK(fabs(w - f) <= f * 5.01e-6);
	/* sent again as a float, it reads as the same decimal */
	again = fare_bw_wire_value((float)w);
	FUZZ_CHECK(fabs(again - w) <= w * 1e-12);
}

static void check_decode(const uint8_t ec[FARE_ECOMM_SIZE], uint8_t subtype, size_t len)
{
	bool expected = (ec[0] == FARE_PATHBW_TYPE_TRANSITIVE ||
			 ec[0] == FARE_PATHBW_TYPE_NON_TRANSITIVE) &&
			ec[1] == subtype;
	uint32_t bits = (uint32_t)ec[4] << 24 | (uint32_t)ec[5] << 16 | (uint32_t)ec[6] << 8 | ec[7];
	struct fare_pathbw pb;
	uint8_t again[FARE_ECOMM_SIZE];
	char full[FULL_LEN], head[32];
	const char *name;

	memset(&pb, 0xA5, sizeof(pb));
	FUZZ_CHECK(fare_pathbw_decode(ec, subtype, NULL) == expected);
	FUZZ_CHECK(fare_pathbw_decode(ec, subtype, &pb) == expected);
	if (!expected)
		return;

	FUZZ_CHECK(pb.transitive == (ec[0] == FARE_PATHBW_TYPE_TRANSITIVE));
	FUZZ_CHECK(pb.subtype == subtype);
	FUZZ_CHECK(pb.as == (ec[2] << 8 | ec[3]));
	FUZZ_CHECK(bits_of(pb.bytes_per_sec) == bits);
	FUZZ_CHECK(pb.class == c_class(pb.bytes_per_sec));
	FUZZ_CHECK(pb.class == fare_bw_classify(pb.bytes_per_sec));
	FUZZ_CHECK(fare_bw_class_usable(pb.class) ==
		   (pb.class == FARE_BW_VALID || pb.class == FARE_BW_ZERO));
	name = fare_bw_class_name(pb.class);
	FUZZ_CHECK(name && strcmp(name, "unknown") != 0);

	/* FARE-1: the same 8 octets back */
	fare_pathbw_encode(again, pb.transitive, pb.subtype, pb.as, pb.bytes_per_sec);
	FUZZ_CHECK(memcmp(again, ec, FARE_ECOMM_SIZE) == 0);

	fuzz_check_truncation(format_pathbw, &pb, len, full, sizeof(full));
	snprintf(head, sizeof(head), "%s:%u:", pb.transitive ? "PB" : "PB-NT", pb.as);
	FUZZ_CHECK(strncmp(full, head, strlen(head)) == 0);
	if (fare_bw_class_usable(pb.class)) {
		check_wire_value(pb.bytes_per_sec);
	} else {
		snprintf(head, sizeof(head), "invalid(%s)", name);
		FUZZ_CHECK(strstr(full, head) != NULL);
	}
}

/* FARE-1: encode any value and AS, decode it back */
static void check_encode(bool transitive, uint8_t subtype, uint32_t asn, float value)
{
	uint8_t ec[FARE_ECOMM_SIZE];
	struct fare_pathbw pb;

	fare_pathbw_encode(ec, transitive, subtype, asn, value);
	FUZZ_CHECK(fare_pathbw_decode(ec, subtype, &pb));
	FUZZ_CHECK(pb.transitive == transitive);
	FUZZ_CHECK(pb.as == (asn & 0xffff));
	FUZZ_CHECK(bits_of(pb.bytes_per_sec) == bits_of(value));
	/* another sub-type is another community */
	FUZZ_CHECK(!fare_pathbw_decode(ec, (uint8_t)(subtype + 1), &pb));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_input in = { data, size, 0 };
	uint8_t ec[FARE_ECOMM_SIZE], subtype = fuzz_u8(&in);
	const char *assigned = fare_pathbw_subtype_assigned(subtype);
	uint32_t asn, ec_bits;
	size_t len, i;
	double bw;
	float value;
	char *text;

	for (i = 0; i < FARE_ECOMM_SIZE; i++)
		ec[i] = fuzz_u8(&in);
	asn = fuzz_u32(&in);
	len = fuzz_u8(&in) % 72;
	bw = fuzz_bandwidth(&in);

	FUZZ_CHECK(!assigned || *assigned);
	FUZZ_CHECK(!fare_pathbw_subtype_assigned(FARE_PATHBW_SUBTYPE_DEFAULT));

	check_decode(ec, subtype, len);
	ec_bits = (uint32_t)ec[4] << 24 | (uint32_t)ec[5] << 16 | (uint32_t)ec[6] << 8 | ec[7];
	memcpy(&value, &ec_bits, sizeof(value));
	check_encode(ec[0] & 1, subtype, asn, value);
	check_bw_format(bw, len);
	if (fuzz_bw_usable(bw) && bw <= FLT_MAX && fare_bw_class_usable(fare_bw_classify((float)bw)))
		check_wire_value((float)bw);

	/* the rest, as an operator's string (exactly its length on the heap) */
	text = malloc(fuzz_left(&in) + 1);
	memcpy(text, data + in.pos, fuzz_left(&in));
	text[fuzz_left(&in)] = '\0';
	check_parse(text);
	free(text);
	return 0;
}
