// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * FARE propagation rules for one prefix (draft-xu-idr-fare, SPEC FARE-4..10).
 */
#include <stdlib.h>
#include <string.h>

#include "fare_rules.h"

/* EE-4's sub-group weights need no malloc() up to this many paths (FRR's
 * MULTIPATH_NUM in our builds: 256)
 */
#define RULES_STACK_PATHS 256

enum path_grouping {
	BY_NEXTHOP,
	BY_LINK,
	BY_NEIGHBOR,
};

static unsigned int group_of(const struct fare_path_in *in, enum path_grouping by)
{
	switch (by) {
	case BY_NEXTHOP:
		return in->nexthop_group;
	case BY_LINK:
		return in->link_group;
	case BY_NEIGHBOR:
		return in->neighbor_group;
	}
	return 0;
}

/* The first path of the same non-zero group as path i, or i. */
static size_t group_first_by(const struct fare_path_in *in, size_t i, enum path_grouping by)
{
	unsigned int g = group_of(&in[i], by);
	size_t j;

	if (!g)
		return i;
	for (j = 0; j < i; j++)
		if (group_of(&in[j], by) == g)
			return j;
	return i;
}

static size_t group_first(const struct fare_path_in *in, size_t i, bool by_link)
{
	return group_first_by(in, i, by_link ? BY_LINK : BY_NEXTHOP);
}

/* A link counts while one of its paths is not in its hold-down (WP-7). */
static bool link_usable(const struct fare_path_in *in, size_t n, size_t link)
{
	size_t j;

	for (j = link; j < n; j++)
		if (group_first(in, j, true) == link && !in[j].held_down)
			return true;
	return false;
}

/* Parallel links to one neighbor router (draft mode): the neighbor carries
 * min(sum of its usable links, its Path Bandwidth), split over the links
 * by bandwidth and, on a link, over its paths by value. Groups with a link
 * of unknown bandwidth are left to the per-link cap. Marks the paths it
 * handled in done[].
 */
static void cap_by_neighbor(const struct fare_path_in *in, size_t n, double *v, uint32_t *done)
{
	size_t i, j, k;

	for (i = 0; i < n; i++) {
		double links = 0, value = 0, total;
		bool known = true;

		if (!in[i].neighbor_group || group_first_by(in, i, BY_NEIGHBOR) != i)
			continue;
		for (j = i; j < n; j++) {
			if (group_first_by(in, j, BY_NEIGHBOR) != i)
				continue;
			if (in[j].link_bw <= 0)
				known = false;
			if (v[j] > value)
				value = v[j];
			if (group_first(in, j, true) == j && link_usable(in, n, j))
				links += in[j].link_bw;
		}
		if (!known)
			continue;
		total = value < links ? value : links;
		for (j = i; j < n; j++) {
			double on_link = 0, share;

			if (group_first_by(in, j, BY_NEIGHBOR) != i || group_first(in, j, true) != j)
				continue;
			/* j: a link of the group; its share, over its paths */
			if (!link_usable(in, n, j) || links <= 0)
				share = 0;
			else if (total >= links) /* the links are the limit */
				share = in[j].link_bw;
			else
				share = total * in[j].link_bw / links;
			for (k = j; k < n; k++)
				if (group_first(in, k, true) == j)
					on_link += v[k];
			for (k = j; k < n; k++) {
				if (group_first(in, k, true) != j)
					continue;
				if (on_link <= 0)
					v[k] = 0;
				else if (v[k] == on_link) /* the link's only path */
					v[k] = share;
				else
					v[k] = share * v[k] / on_link;
				done[k] = 1;
			}
		}
	}
}

/* FARE-4 per link: the paths over one link (the same session) carry
 * together at most its bandwidth; w = v * min(1, link / sum of v). An
 * unknown link bandwidth (0) does not limit them.
 */
static void cap_by_link(const struct fare_path_in *in, size_t n, double *v, const uint32_t *done)
{
	size_t i, j;

	for (i = 0; i < n; i++) {
		double link_bw = in[i].link_bw, sum = 0;

		if (group_first(in, i, true) != i || link_bw <= 0 || done[i])
			continue;
		for (j = i; j < n; j++)
			if (group_first(in, j, true) == i)
				sum += v[j];
		if (sum <= link_bw)
			continue;
		for (j = i; j < n; j++)
			if (group_first(in, j, true) == i)
				v[j] = v[j] / sum * link_bw;
	}
}

/* The weights are in the exact ratio of the bandwidths. */
static bool exact_ratio(const double *bw, const uint32_t *w, size_t n)
{
	size_t i, ref = n;

	for (i = 0; i < n; i++) {
		if (!w[i] != !(bw[i] > 0))
			return false;
		if (!w[i])
			continue;
		if (ref == n)
			ref = i;
		else if (bw[i] * w[ref] != bw[ref] * w[i])
			return false;
	}
	return true;
}

static enum fare_reason pb_state_reason(enum fare_pb_state state)
{
	switch (state) {
	case FARE_PB_ABSENT:
		return FARE_REASON_PATH_WITHOUT_PB;
	case FARE_PB_INVALID:
		return FARE_REASON_PATH_INVALID_PB;
	case FARE_PB_CONFLICT:
		return FARE_REASON_PATH_CONFLICTING_PB;
	case FARE_PB_STALE:
		return FARE_REASON_PATH_STALE_PB;
	case FARE_PB_PRESENT:
		break;
	}
	return FARE_REASON_WCMP;
}

/* FARE-4 .. FARE-10 over the full set of paths */
static void prefix_rules(const struct fare_path_in *in, size_t n,
			 const struct fare_prefix_params *params, double *path_bw,
			 uint32_t *weights, struct fare_prefix_out *out)
{
	bool any_super_spine = false;
	bool all_links_known = true;
	double link_sum = 0, sum = 0;
	uint32_t k = params->multihoming ? params->multihoming : 1;
	size_t i;

	memset(out, 0, sizeof(*out));
	memset(path_bw, 0, n * sizeof(*path_bw));
	memset(weights, 0, n * sizeof(*weights));

	for (i = 0; i < n; i++) {
		any_super_spine |= in[i].from_super_spine;
		if (in[i].link_bw <= 0)
			all_links_known = false;
		else if (group_first(in, i, true) == i) /* each link once */
			link_sum += in[i].link_bw;
	}

	/* Default outcome when the prefix is not weighted: a node cannot
	 * compute a sum, so it strips the community and upstream falls back
	 * to ECMP too (FARE-7); FARE-9 leaves the transitive value alone.
	 */
	out->t_action = any_super_spine ? FARE_ADV_KEEP : FARE_ADV_STRIP;

	/* FARE-8: a super-spine passes the transitive value through and
	 * attaches, for one hop, the bandwidth of its link(s) towards the
	 * advertising spine.
	 */
	if (params->role == FARE_ROLE_SUPER_SPINE) {
		out->t_action = FARE_ADV_KEEP;
		if (n > 0 && all_links_known) {
			out->nt_attach = true;
			out->nt_value = link_sum;
		}
	}

	if (n == 0) {
		out->reason = FARE_REASON_PATH_WITHOUT_PB;
		return;
	}

	for (i = 0; i < n; i++) {
		enum fare_reason reason;

		if (in[i].ignored) {
			out->reason = FARE_REASON_PATH_IGNORED;
			out->reason_path = i;
			goto ecmp;
		}
		if (any_super_spine) {
			/* FARE-9: every path must come from a super-spine
			 * with a non-transitive value, else ECMP.
			 */
			if (!in[i].from_super_spine || in[i].nt_state != FARE_PB_PRESENT) {
				out->reason = FARE_REASON_SUPER_SPINE_WITHOUT_NT;
				out->reason_path = i;
				goto ecmp;
			}
			path_bw[i] = in[i].nt_bw;
		} else {
			/* FARE-7: all paths carry a fresh one, or ECMP. */
			reason = pb_state_reason(in[i].t_state);
			if (reason != FARE_REASON_WCMP) {
				out->reason = reason;
				out->reason_path = i;
				goto ecmp;
			}
			/* FARE-6: divide by k; FARE-10; averaged mode (WP-3):
			 * the received value, capped below like the draft's.
			 */
			path_bw[i] = in[i].t_bw / k;
		}
		if (in[i].inexact_nexthop) {
			out->reason = FARE_REASON_INEXACT_NEXTHOP;
			out->reason_path = i;
			goto ecmp;
		}
		/* WP-7: a recovering link counts once its hold-down ends */
		if (in[i].held_down)
			path_bw[i] = 0;
	}

	/* One next hop over one link is one forwarding entry: the largest
	 * value on its first path, 0 on the others (add-path).
	 */
	for (i = 0; i < n; i++) {
		size_t first = group_first(in, i, false);

		if (first == i)
			continue;
		if (path_bw[i] > path_bw[first])
			path_bw[first] = path_bw[i];
		path_bw[i] = 0;
	}
	/* weights[] (all 0 here) marks the paths a neighbor group has
	 * capped; the reduction below overwrites it.
	 */
	cap_by_neighbor(in, n, path_bw, weights);
	cap_by_link(in, n, path_bw, weights);
	memset(weights, 0, n * sizeof(*weights));
	for (i = 0; i < n; i++)
		sum += path_bw[i];

	if (any_super_spine) {
		/* FARE-9 option: lower the transitive value to the sum of the
		 * per-super-spine weights when that is smaller.
		 */
		if (params->lower_transitive && in[0].t_state == FARE_PB_PRESENT &&
		    sum < in[0].t_bw) {
			out->t_action = FARE_ADV_REPLACE;
			out->t_value = sum;
		}
	} else if (params->role != FARE_ROLE_SUPER_SPINE) {
		/* FARE-5: re-advertise the sum of the weights. */
		out->t_action = FARE_ADV_REPLACE;
		out->t_value = sum;
	}

	if (sum <= 0) {
		out->reason = FARE_REASON_ALL_ZERO;
		memset(path_bw, 0, n * sizeof(*path_bw));
		return;
	}

	if (fare_wcmp_weights_memo(params->memo, path_bw, n, &params->limits, weights) < 0) {
		/* Plain ECMP after all: each path carries an equal share, so
		 * the prefix can take n times the smallest w.
		 */
		double min_bw = path_bw[0];
		size_t entries = 0;

		for (i = 0; i < n; i++) {
			if (group_first(in, i, false) != i)
				continue; /* zebra installs a next hop once */
			entries++;
			if (path_bw[i] < min_bw)
				min_bw = path_bw[i];
		}
		if (out->t_action == FARE_ADV_REPLACE)
			out->t_value = min_bw * entries;
		out->reason = FARE_REASON_WEIGHTS_UNFIT;
		memset(weights, 0, n * sizeof(*weights));
		memset(path_bw, 0, n * sizeof(*path_bw));
		return;
	}

	/* WP-3: the reduction maximises throughput and may leave a path
	 * whose share the member budget cannot represent at weight 0. What
	 * the installed weights deliver is the sum times their throughput
	 * fraction: that is what is re-advertised (FARE-5), not capacity no
	 * traffic is sent to.
	 */
	for (i = 0; i < n; i++)
		if (path_bw[i] > 0 && !weights[i])
			out->dropped++;
	if (out->dropped || !exact_ratio(path_bw, weights, n)) {
		double carried = sum * fare_wcmp_throughput(path_bw, weights, n);

		if (out->t_action == FARE_ADV_REPLACE && carried < out->t_value)
			out->t_value = carried;
	}
	out->wcmp = true;
	out->reason = FARE_REASON_WCMP;
	return;

ecmp:
	memset(path_bw, 0, n * sizeof(*path_bw));
}

/*
 * EE-4: the weights over the remote group's sub-group, from the full set's
 * result: the sub-group's paths that it uses, at their w (weighted) or 1
 * each (plain ECMP). weights[] is left as it is when none is usable or the
 * reduction fails.
 */
static enum fare_subgroup_result subgroup_weights(const bool *subgroup, size_t n,
						  const struct fare_wcmp_limits *lim,
						  struct fare_wcmp_memo *memo,
						  const struct fare_prefix_out *out,
						  const double *path_bw, uint32_t *weights)
{
	double stack_bw[RULES_STACK_PATHS], *bw = stack_bw;
	uint32_t stack_w[RULES_STACK_PATHS], *w = stack_w;
	enum fare_subgroup_result result = FARE_SUBGROUP_FALLBACK;
	bool any = false;
	size_t i;

	if (n > RULES_STACK_PATHS) {
		bw = malloc(n * sizeof(*bw));
		w = malloc(n * sizeof(*w));
		if (!bw || !w)
			goto done;
	}
	for (i = 0; i < n; i++) {
		bool usable = out->wcmp ? weights[i] > 0 : true;

		bw[i] = subgroup[i] && usable ? (out->wcmp ? path_bw[i] : 1) : 0;
		any |= bw[i] > 0;
	}
	if (any && fare_wcmp_weights_memo(memo, bw, n, lim, w) >= 0) {
		memcpy(weights, w, n * sizeof(*w));
		result = FARE_SUBGROUP_APPLIED;
	}
done:
	if (bw != stack_bw)
		free(bw);
	if (w != stack_w)
		free(w);
	return result;
}

void fare_prefix_compute(const struct fare_path_in *in, size_t n,
			 const struct fare_prefix_params *params, double *path_bw,
			 uint32_t *weights, struct fare_prefix_out *out)
{
	prefix_rules(in, n, params, path_bw, weights, out);
	/* EE-4: the remote group's sub-group only */
	if (params->subgroup && n)
		out->subgroup = subgroup_weights(params->subgroup, n, &params->limits, params->memo,
						 out, path_bw, weights);
}

double fare_averaged_advertised(double sum, unsigned int n_out, double out_link_bw)
{
	double avg = n_out > 1 ? sum / n_out : sum;

	if (out_link_bw > 0 && out_link_bw < avg)
		return out_link_bw;
	return avg;
}

const char *fare_mode_str(enum fare_mode mode)
{
	return mode == FARE_MODE_AVERAGED ? "averaged" : "draft";
}

const char *fare_reason_str(enum fare_reason reason)
{
	switch (reason) {
	case FARE_REASON_WCMP:
		return "weighted by Path Bandwidth";
	case FARE_REASON_PATH_WITHOUT_PB:
		return "a path has no Path Bandwidth (FARE-7)";
	case FARE_REASON_PATH_INVALID_PB:
		return "a path has an unusable Path Bandwidth";
	case FARE_REASON_PATH_CONFLICTING_PB:
		return "a path has conflicting Path Bandwidths";
	case FARE_REASON_PATH_IGNORED:
		return "a path is from a boundary peer (FARE-11)";
	case FARE_REASON_SUPER_SPINE_WITHOUT_NT:
		return "a super-spine path has no non-transitive Path Bandwidth (FARE-9)";
	case FARE_REASON_ALL_ZERO:
		return "every path has zero bandwidth";
	case FARE_REASON_WEIGHTS_UNFIT:
		return "weights do not fit the WCMP limits";
	case FARE_REASON_PATH_STALE_PB:
		return "a path has a stale Path Bandwidth (FARE-7)";
	case FARE_REASON_INEXACT_NEXTHOP:
		return "a path's next hop resolves recursively: weights would not be exact";
	case FARE_REASON_MAX:
		break;
	}
	return "unknown";
}

const char *fare_pb_state_str(enum fare_pb_state state)
{
	switch (state) {
	case FARE_PB_ABSENT:
		return "absent";
	case FARE_PB_PRESENT:
		return "present";
	case FARE_PB_INVALID:
		return "invalid";
	case FARE_PB_CONFLICT:
		return "conflicting";
	case FARE_PB_STALE:
		return "stale";
	}
	return "unknown";
}

const char *fare_adv_action_str(enum fare_adv_action action)
{
	switch (action) {
	case FARE_ADV_REPLACE:
		return "replace";
	case FARE_ADV_KEEP:
		return "keep";
	case FARE_ADV_STRIP:
		return "strip";
	}
	return "unknown";
}

bool fare_role_announces(enum fare_role role, bool originated)
{
	return role != FARE_ROLE_HOST || originated;
}
