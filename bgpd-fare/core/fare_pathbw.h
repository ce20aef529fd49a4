// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * FARE Path Bandwidth Extended Community: wire codec, value classes,
 * human-readable units and operator input parsing.
 *
 * Pure C11 core (no FRR headers), shared by the bgpd module and the unit
 * tests. Rule numbers are defined in doc/user/fare-rules.rst.
 */

#ifndef _FARE_PATHBW_H
#define _FARE_PATHBW_H

#include <float.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* FARE-1: Two-Octet AS-Specific extended community, RFC 4360 */
#define FARE_PATHBW_TYPE_TRANSITIVE	0x00
#define FARE_PATHBW_TYPE_NON_TRANSITIVE 0x40
/*
 * FARE-1: the sub-type is TBD by IANA. 0x30 is unassigned in both the
 * transitive and the non-transitive Two-Octet AS-Specific registries; it is
 * only a default, the sub-type is configurable.
 */
#define FARE_PATHBW_SUBTYPE_DEFAULT 0x30
#define FARE_ECOMM_SIZE		    8
/* FARE-2: default origination value, so that the first min() picks the link */
#define FARE_PATHBW_MAX_BYTES_PER_SEC FLT_MAX

/* What a received Local Administrator float means (FARE-1, FARE-4) */
enum fare_bw_class {
	FARE_BW_VALID,	      /* finite, normal, > 0 */
	FARE_BW_ZERO,	      /* +0 or -0: path carries no bandwidth (weight 0) */
	FARE_BW_SUBNORMAL,    /* positive subnormal: invalid */
	FARE_BW_NEGATIVE,     /* finite < 0 (incl. negative subnormal): invalid */
	FARE_BW_NAN,	      /* any NaN: invalid */
	FARE_BW_INFINITE,     /* +inf: invalid */
	FARE_BW_NEG_INFINITE, /* -inf: invalid */
	FARE_BW_CLASS_MAX,
};

/* A decoded Path Bandwidth Extended Community (FARE-1) */
struct fare_pathbw {
	bool transitive;
	uint8_t subtype;
	uint16_t as;	     /* Global Administrator */
	float bytes_per_sec; /* Local Administrator, IEEE 754 single */
	enum fare_bw_class class;
};

/*
 * FARE-1: write the 8 octets of a Path Bandwidth community. The Global
 * Administrator is the writer's AS modulo 2^16 (fare_pathbw_ga()): a 2-octet
 * AS as it is, a 4-octet AS by its low 16 bits, so that the reader can
 * still tell which neighbor wrote it (FARE-7). The float goes out in network byte
 * order, independent of the host's endianness.
 */
void fare_pathbw_encode(uint8_t out[FARE_ECOMM_SIZE], bool transitive, uint8_t subtype,
			uint32_t asn, float bytes_per_sec);

/*
 * FARE-1: true when ec is a Path Bandwidth community with this sub-type
 * (type 0x00 or 0x40). Fills *pb, class included, when pb != NULL. The class
 * is derived from the received bits, so a signalling NaN is still a NaN.
 */
bool fare_pathbw_decode(const uint8_t ec[FARE_ECOMM_SIZE], uint8_t subtype, struct fare_pathbw *pb);

/*
 * FARE-1: the Global Administrator that stands for `asn`: the AS itself when
 * it has 2 octets, its low 16 bits when it has 4. Two ASes equal modulo 2^16
 * (4200000001 and 4200065537, or 1 and 65537) cannot be told apart.
 */
static inline uint16_t fare_pathbw_ga(uint32_t asn)
{
	return (uint16_t)(asn & 0xffff);
}

enum fare_bw_class fare_bw_classify(float v);
/* "valid", "zero", "subnormal", "negative", "nan", "infinite",
 * "negative-infinite"; "unknown" for anything else
 */
const char *fare_bw_class_name(enum fare_bw_class c);
/* FARE-4: a value that can take part in min()/sum(): VALID or ZERO */
bool fare_bw_class_usable(enum fare_bw_class c);

/* The value a Path Bandwidth float on the wire stands for, in bytes/s:
 * rounded to 6 significant digits (FLT_DIG), so that 400 Gb/s sent as
 * float reads back as exactly 5e10; FLT_MAX stays FLT_MAX (FARE-2).
 * For usable classes only.
 */
double fare_bw_wire_value(float value);

/* The last value read and what it stands for: the next one most often
 * is the same (a fabric's paths carry few values), and then costs no
 * log10() or pow(). The caller keeps one per thread; zeroed is empty.
 */
struct fare_bw_wire_memo {
	float value;
	double result;
	bool set;
};

/* fare_bw_wire_value() through memo */
double fare_bw_wire_value_memo(float value, struct fare_bw_wire_memo *memo);

/* FARE-1: sub-types IANA has assigned in the Transitive (0x00) or
 * Non-Transitive (0x40) Two-Octet AS-Specific registries (route target,
 * route origin, link bandwidth, ...): never usable for Path Bandwidth,
 * which would read, rewrite and strip those communities. Returns the
 * name of the assignment, or NULL when the sub-type is free.
 */
const char *fare_pathbw_subtype_assigned(uint8_t subtype);

/*
 * Human units in bits per second, FRR-like: "100.000 Gbps", "1.600 Tbps",
 * "10.000 Mbps", "0 bps"; "max" for values >= FLT_MAX (FARE-2), "invalid"
 * for NaN, infinities and negative values. Returns the length snprintf()
 * would have written.
 */
int fare_bw_format(char *buf, size_t len, double bytes_per_sec);

/*
 * "PB:<as>:<human>" for a transitive community, "PB-NT:<as>:<human>" for a
 * non-transitive one; unusable values print as "PB:<as>:invalid(nan)" and
 * so on. Returns the length snprintf() would have written.
 */
int fare_pathbw_format(char *buf, size_t len, const struct fare_pathbw *pb);

/*
 * Parse an operator bandwidth (FARE-2, FARE-3 overrides). A plain number is
 * Mbps, like FRR's interface bandwidth; otherwise a K/M/G/T suffix (bits per
 * second, case-insensitive, optionally followed by "bps"; "bps" alone means
 * bits per second), e.g. "100G", "400Gbps", "1.6T", "25000" (= 25000 Mbps);
 * also "max" (FARE_PATHBW_MAX_BYTES_PER_SEC). Decimal digits with at most one
 * '.', no sign, no exponent, no spaces. Returns false on junk, negative,
 * zero, nan/inf, overflow and on values a float cannot hold as a normal
 * number. The result is in bytes per second.
 */
bool fare_bw_parse(const char *str, double *bytes_per_sec);

#ifdef __cplusplus
}
#endif

#endif /* _FARE_PATHBW_H */
