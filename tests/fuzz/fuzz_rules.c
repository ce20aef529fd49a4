// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target: the per-prefix propagation rules, fare_prefix_compute()
 * (FARE-4 .. FARE-11, WP-2, WP-3, WP-7), and fare_averaged_advertised().
 *
 * Input: WP-2 case (bandwidth, n_out byte, bandwidth), then the prefix:
 * path count (2 bytes, up to FUZZ_MAX_PATHS), flags (mode, role,
 * lower-transitive), multihoming k (1 byte, 0 taken as 1), max_weight and
 * max_members (fuzz_limit()), then per path two flag bytes, one group byte
 * and its link, transitive and non-transitive bandwidths
 * (fuzz_bandwidth(): NaN, infinities, negative and huge values included).
 *
 * Always (any input, no crash, no read or write outside the n-element
 * arrays, every output written and the same on a second call):
 * - a weighted prefix has weights within the limits (WP-3), at least one
 *   member, no member on a path without bandwidth (FARE-4); an unweighted
 *   one has all weights and path bandwidths 0;
 * - all or nothing (FARE-7, FARE-9, FARE-11): one unusable path, ignored
 *   path or recursive next hop means ECMP, and the reason names the first
 *   such path;
 * - what is advertised: a super-spine keeps the transitive value and
 *   attaches its links' sum when all are known (FARE-8); a node that
 *   weighs replaces it (FARE-5), one that cannot strips it (FARE-7); FARE-9
 *   lowers it only below the received one;
 * - a next hop reached twice over one link is weighted once.
 *
 * With the values the glue can give (0 or a normal float: a value off the
 * wire, FARE-1, or a link speed, FARE-3), also:
 * - path bandwidths and advertised values are finite and >= 0, and valid
 *   limits always give weights (never "weights do not fit");
 * - no link carries more than its bandwidth (FARE-4, WP-3), no neighbor
 *   group more than min(sum of its links, its Path Bandwidth) (FARE-4);
 * - one path per link: w = min(link, v / k) exactly (FARE-4, FARE-6), or
 *   min(link, non-transitive value) from super-spines (FARE-9);
 * - the re-advertised sum is what the weights carry: between sum(w) times
 *   their throughput and sum(w) (FARE-5, WP-3);
 * - WP-2: min(sum / n_out, line rate).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fare_rules.h"
#include "fuzz_input.h"

/* the largest multipath set bgpd hands the core (--enable-multipath=256,
 * scripts/build.sh)
 */
#define FUZZ_MAX_PATHS 256

/* relative rounding of sums and splits */
#define EPS 1e-12

/* 0 reads as PRESENT: short inputs describe good paths */
static enum fare_pb_state fuzz_state(unsigned int bits)
{
	static const enum fare_pb_state states[] = {
		FARE_PB_PRESENT, FARE_PB_ABSENT,  FARE_PB_INVALID, FARE_PB_CONFLICT,
		FARE_PB_STALE,	 FARE_PB_PRESENT, FARE_PB_PRESENT, FARE_PB_PRESENT,
	};

	return states[bits & 7];
}

static void fuzz_path(struct fuzz_input *in, struct fare_path_in *p)
{
	uint8_t f1 = fuzz_u8(in), f2 = fuzz_u8(in), g = fuzz_u8(in);

	memset(p, 0, sizeof(*p));
	p->t_state = fuzz_state(f1);
	p->nt_state = fuzz_state(f1 >> 3);
	p->from_super_spine = f1 & 0x40;
	p->held_down = f1 & 0x80;
	p->ignored = (f2 & 0x0f) == 0x0f; /* rare: it ends every case */
	p->inexact_nexthop = (f2 & 0xf0) == 0xf0;
	/* few groups, so that paths share them */
	p->link_group = g & 3;
	p->nexthop_group = (g >> 2) & 3;
	p->neighbor_group = (g >> 4) & 3;
	if (g & 0x40)
		p->link_group += 4 * (f2 & 3); /* more links */
	p->link_bw = fuzz_bandwidth(in);
	p->t_bw = fuzz_bandwidth(in);
	p->nt_bw = fuzz_bandwidth(in);
}

/* the glue's values: 0 or a normal float (FARE-1, fare_bw_parse() for
 * FARE-3 overrides; an interface speed is at least 1 bit/s)
 */
static bool glue_value(double v)
{
	return v == 0 || (v >= FLT_MIN && v <= FLT_MAX);
}

static bool glue_inputs(const struct fare_path_in *in, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!glue_value(in[i].link_bw) || !glue_value(in[i].t_bw) ||
		    !glue_value(in[i].nt_bw))
			return false;
	return true;
}

/* per path, the first path of its non-zero group, or itself */
struct firsts {
	size_t *link, *nexthop, *neighbor;
};

static void group_firsts(const struct fare_path_in *in, size_t n, size_t offset, size_t *first)
{
	size_t i, j;

	for (i = 0; i < n; i++) {
		unsigned int g, h;

		memcpy(&g, (const char *)&in[i] + offset, sizeof(g));
		first[i] = i;
		for (j = 0; g && j < i; j++) {
			memcpy(&h, (const char *)&in[j] + offset, sizeof(h));
			if (h == g) {
				first[i] = j;
				break;
			}
		}
	}
}

static void firsts_init(struct firsts *f, const struct fare_path_in *in, size_t n)
{
	f->link = malloc(3 * n * sizeof(size_t) + 1);
	f->nexthop = f->link + n;
	f->neighbor = f->nexthop + n;
	group_firsts(in, n, offsetof(struct fare_path_in, link_group), f->link);
	group_firsts(in, n, offsetof(struct fare_path_in, nexthop_group), f->nexthop);
	group_firsts(in, n, offsetof(struct fare_path_in, neighbor_group), f->neighbor);
}

/* FARE-7, FARE-9, FARE-11: why path i keeps the prefix on ECMP, if so */
static bool path_blocks(const struct fare_path_in *p, bool any_super_spine, enum fare_reason *reason)
{
	static const enum fare_reason by_state[] = {
		[FARE_PB_ABSENT] = FARE_REASON_PATH_WITHOUT_PB,
		[FARE_PB_INVALID] = FARE_REASON_PATH_INVALID_PB,
		[FARE_PB_CONFLICT] = FARE_REASON_PATH_CONFLICTING_PB,
		[FARE_PB_STALE] = FARE_REASON_PATH_STALE_PB,
	};

	if (p->ignored)
		*reason = FARE_REASON_PATH_IGNORED;
	else if (any_super_spine && (!p->from_super_spine || p->nt_state != FARE_PB_PRESENT))
		*reason = FARE_REASON_SUPER_SPINE_WITHOUT_NT;
	else if (!any_super_spine && p->t_state != FARE_PB_PRESENT)
		*reason = by_state[p->t_state];
	else if (p->inexact_nexthop)
		*reason = FARE_REASON_INEXACT_NEXTHOP;
	else
		return false;
	return true;
}

struct result {
	double *path_bw;
	uint32_t *weights;
	struct fare_prefix_out out;
};

static void compute(const struct fare_path_in *in, size_t n,
		    const struct fare_prefix_params *params, struct result *r, int garbage)
{
	/* garbage first: everything must be written */
	memset(r->path_bw, garbage, n * sizeof(*r->path_bw));
	memset(r->weights, garbage, n * sizeof(*r->weights));
	memset(&r->out, garbage, sizeof(r->out));
	fare_prefix_compute(in, n, params, r->path_bw, r->weights, &r->out);
}

static bool same_result(const struct result *a, const struct result *b, size_t n)
{
	const struct fare_prefix_out *x = &a->out, *y = &b->out;

	return memcmp(a->path_bw, b->path_bw, n * sizeof(*a->path_bw)) == 0 &&
	       memcmp(a->weights, b->weights, n * sizeof(*a->weights)) == 0 && x->wcmp == y->wcmp &&
	       x->reason == y->reason && x->reason_path == y->reason_path &&
	       x->t_action == y->t_action && x->dropped == y->dropped &&
	       x->nt_attach == y->nt_attach &&
	       memcmp(&x->t_value, &y->t_value, sizeof(x->t_value)) == 0 &&
	       memcmp(&x->nt_value, &y->nt_value, sizeof(x->nt_value)) == 0;
}

/* rules that hold for any input */
static void check_any(const struct fare_path_in *in, size_t n, const struct firsts *f,
		      const struct fare_prefix_params *params, const struct result *r)
{
	const struct fare_prefix_out *out = &r->out;
	bool any_super_spine = false, all_links = n > 0;
	uint64_t total = 0;
	size_t i, blocked, used = 0, dropped = 0;
	enum fare_reason reason;

	FUZZ_CHECK(out->reason < FARE_REASON_MAX);
	FUZZ_CHECK(strcmp(fare_reason_str(out->reason), "unknown") != 0);
	FUZZ_CHECK(strcmp(fare_adv_action_str(out->t_action), "unknown") != 0);
	for (i = 0; i < n; i++) {
		any_super_spine |= in[i].from_super_spine;
		all_links &= !(in[i].link_bw <= 0); /* 0: unknown (FARE-3) */
	}

	/* FARE-7, FARE-9, FARE-11: the first path that blocks decides */
	for (blocked = 0; blocked < n; blocked++)
		if (path_blocks(&in[blocked], any_super_spine, &reason))
			break;
	if (blocked < n) {
		FUZZ_CHECK(!out->wcmp);
		FUZZ_CHECK(out->reason == reason && out->reason_path == blocked);
	}
	if (n == 0)
		FUZZ_CHECK(!out->wcmp && out->reason == FARE_REASON_PATH_WITHOUT_PB);

	for (i = 0; i < n; i++) {
		total += r->weights[i];
		used += r->weights[i] > 0;
		dropped += r->path_bw[i] > 0 && !r->weights[i];
		/* WP-3 limits, FARE-4: no bandwidth, no member */
		FUZZ_CHECK(r->weights[i] <= params->limits.max_weight);
		FUZZ_CHECK(!r->weights[i] || r->path_bw[i] > 0);
		/* one next hop over one link: one forwarding entry */
		if (f->nexthop[i] != i)
			FUZZ_CHECK(r->weights[i] == 0 && r->path_bw[i] == 0);
	}
	if (out->wcmp) {
		FUZZ_CHECK(out->reason == FARE_REASON_WCMP);
		FUZZ_CHECK(used >= 1 && total <= params->limits.max_members);
		FUZZ_CHECK(out->dropped == dropped);
	} else {
		/* plain ECMP: nothing weighted */
		FUZZ_CHECK(out->reason != FARE_REASON_WCMP);
		FUZZ_CHECK(used == 0 && dropped == 0 && out->dropped == 0);
		for (i = 0; i < n; i++)
			FUZZ_CHECK(r->path_bw[i] == 0);
	}

	/* FARE-8: the super-spine's one-hop value, its links' sum */
	FUZZ_CHECK(out->nt_attach == (params->role == FARE_ROLE_SUPER_SPINE && all_links));
	if (out->nt_attach) {
		double links = 0;

		for (i = 0; i < n; i++)
			if (f->link[i] == i)
				links += in[i].link_bw;
		FUZZ_CHECK(memcmp(&links, &out->nt_value, sizeof(links)) == 0 ||
			   (isnan(links) && isnan(out->nt_value)));
	} else {
		FUZZ_CHECK(out->nt_value == 0);
	}

	/* what happens to the transitive value */
	if (any_super_spine) {
		/* FARE-9: passed on, or lowered below the received one */
		FUZZ_CHECK(out->t_action == FARE_ADV_KEEP || out->t_action == FARE_ADV_REPLACE);
		if (out->t_action == FARE_ADV_REPLACE)
			FUZZ_CHECK(params->lower_transitive && in[0].t_state == FARE_PB_PRESENT &&
				   out->t_value < in[0].t_bw);
	} else if (params->role == FARE_ROLE_SUPER_SPINE) {
		FUZZ_CHECK(out->t_action == FARE_ADV_KEEP); /* FARE-8 */
	} else if (blocked < n || n == 0) {
		FUZZ_CHECK(out->t_action == FARE_ADV_STRIP); /* FARE-7 */
	} else {
		FUZZ_CHECK(out->t_action == FARE_ADV_REPLACE); /* FARE-5 */
	}
}

/* v of FARE-4: the value received (FARE-9: the non-transitive one) over
 * k (FARE-6); 0 in a hold-down (WP-7)
 */
static double received(const struct fare_path_in *p, bool any_super_spine, uint32_t k)
{
	if (p->held_down)
		return 0;
	return any_super_spine ? p->nt_bw : p->t_bw / (k ? k : 1);
}

/* rules for the glue's values (0 or a normal float) */
static void check_glue(const struct fare_path_in *in, size_t n, const struct firsts *f,
		       const struct fare_prefix_params *params, const struct result *r)
{
	const struct fare_prefix_out *out = &r->out;
	bool any_super_spine = false, grouped = false;
	double sum = 0;
	size_t i, j;

	for (i = 0; i < n; i++) {
		any_super_spine |= in[i].from_super_spine;
		grouped |= in[i].link_group || in[i].nexthop_group || in[i].neighbor_group;
		FUZZ_CHECK(isfinite(r->path_bw[i]) && r->path_bw[i] >= 0);
		sum += r->path_bw[i];
	}
	if (out->t_action == FARE_ADV_REPLACE)
		FUZZ_CHECK(isfinite(out->t_value) && out->t_value >= 0);
	FUZZ_CHECK(isfinite(out->nt_value) && out->nt_value >= 0);
	/* WP-3: valid limits always hold some weights */
	if (params->limits.max_weight && params->limits.max_members)
		FUZZ_CHECK(out->reason != FARE_REASON_WEIGHTS_UNFIT);
	if (out->reason == FARE_REASON_ALL_ZERO && out->t_action == FARE_ADV_REPLACE)
		FUZZ_CHECK(out->t_value == 0);
	if (!out->wcmp)
		return;

	/* FARE-5, WP-3: the sum, or what the weights carry of it */
	if (out->t_action == FARE_ADV_REPLACE && !any_super_spine) {
		double carried = sum * fare_wcmp_throughput(r->path_bw, r->weights, n);

		FUZZ_CHECK(out->t_value <= sum * (1 + EPS));
		FUZZ_CHECK(out->t_value >= carried * (1 - EPS));
	}

	/* FARE-4, WP-3: a link carries at most its bandwidth */
	for (i = 0; i < n; i++) {
		double on_link = 0;

		if (f->link[i] != i || in[i].link_bw <= 0)
			continue;
		for (j = i; j < n; j++)
			if (f->link[j] == i)
				on_link += r->path_bw[j];
		FUZZ_CHECK(on_link <= in[i].link_bw * (1 + EPS));
	}

	/* FARE-4 per neighbor (draft decision): at most its largest v, for
	 * a group whose links are all known and whose links and next hops
	 * are its own (as the glue builds them: one session, one neighbor)
	 */
	for (i = 0; i < n; i++) {
		double group = 0, value = 0;
		bool closed = true;

		if (!in[i].neighbor_group || f->neighbor[i] != i)
			continue;
		for (j = 0; j < n; j++) {
			bool member = f->neighbor[j] == i;

			if (member != (f->neighbor[f->link[j]] == i) ||
			    member != (f->neighbor[f->nexthop[j]] == i) ||
			    (member && in[j].link_bw <= 0))
				closed = false;
			if (!member)
				continue;
			group += r->path_bw[j];
			value = fmax(value, received(&in[j], any_super_spine, params->multihoming));
		}
		if (closed)
			FUZZ_CHECK(group <= value * (1 + EPS));
	}

	/* FARE-4, FARE-6, FARE-9: one path per link, w = min(link, v) */
	if (!grouped) {
		for (i = 0; i < n; i++) {
			double v = received(&in[i], any_super_spine, params->multihoming);

			if (in[i].link_bw > 0 && in[i].link_bw < v)
				v = in[i].link_bw;
			FUZZ_CHECK(r->path_bw[i] == v);
		}
	}
}

/* WP-2: min(sum / n_out, line rate), 0 = no line rate */
static void check_averaged(double sum, unsigned int n_out, double link)
{
	double got = fare_averaged_advertised(sum, n_out, link);
	double avg = n_out > 1 ? sum / n_out : sum;

	if (!glue_value(sum) || !glue_value(link))
		return;
	FUZZ_CHECK(isfinite(got) && got >= 0);
	FUZZ_CHECK(got <= avg);
	if (link > 0)
		FUZZ_CHECK(got <= link);
	FUZZ_CHECK(got == avg || got == link);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_input input = { data, size, 0 };
	struct fare_prefix_params params = { 0 };
	struct result a, b;
	struct fare_path_in *in;
	struct firsts f;
	double avg_sum, avg_link;
	unsigned int n_out;
	uint8_t flags;
	size_t n, i;

	avg_sum = fuzz_bandwidth(&input);
	n_out = fuzz_u8(&input);
	avg_link = fuzz_bandwidth(&input);
	check_averaged(avg_sum, n_out, avg_link);

	n = fuzz_u16(&input) % (FUZZ_MAX_PATHS + 1);
	flags = fuzz_u8(&input);
	params.mode = flags & 1 ? FARE_MODE_AVERAGED : FARE_MODE_DRAFT;
	params.role = flags & 2 ? FARE_ROLE_SUPER_SPINE : FARE_ROLE_NODE;
	params.lower_transitive = flags & 4;
	params.multihoming = fuzz_u8(&input);
	params.limits.max_weight = fuzz_limit(&input);
	params.limits.max_members = fuzz_limit(&input);

	/* exactly n elements each: ASan sees any access past them */
	in = malloc(n * sizeof(*in));
	a.path_bw = malloc(n * sizeof(double));
	a.weights = malloc(n * sizeof(uint32_t));
	b.path_bw = malloc(n * sizeof(double));
	b.weights = malloc(n * sizeof(uint32_t));
	for (i = 0; i < n; i++)
		fuzz_path(&input, &in[i]);

	compute(in, n, &params, &a, 0xA5);
	compute(in, n, &params, &b, 0x5A);
	FUZZ_CHECK(same_result(&a, &b, n));
	firsts_init(&f, in, n);
	check_any(in, n, &f, &params, &a);
	if (glue_inputs(in, n))
		check_glue(in, n, &f, &params, &a);
	free(f.link);

	free(in);
	free(a.path_bw);
	free(a.weights);
	free(b.path_bw);
	free(b.weights);
	return 0;
}
