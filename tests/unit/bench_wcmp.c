// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Benchmark of the WCMP integer weights (WP-3).
 *
 * 1. Throughput (SPEC section 5, "Integer weights"): for four bandwidth
 *    distributions like those of test_wcmp.c, the fraction of the ideal
 *    throughput (fare_wcmp_throughput()) of, side by side:
 *    - the old objective, the smallest worst relative share error with
 *      every path at weight >= 1 (min_share_error_weights() below, the
 *      core's function before WP-3's throughput decision);
 *    - fare_wcmp_weights(), the throughput optimum;
 *    - zebra's scaling of FRR's link-bandwidth weights (the largest to
 *      254, the others rounded down, at least 1; no member limit).
 *    Worst and mean over the groups, and the time per group.
 * 2. Time per group for 8, 64 and 512 paths, real-valued bandwidths and
 *    kernel-like limits {255, 4096}, as before.
 * Prints figures only, asserts nothing about time.
 */

#define _POSIX_C_SOURCE 200809L /* clock_gettime() */

#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "fare_apportion.h"
#include "fare_wcmp.h"
#include "prng.h"

/*
 * The old objective, kept for the comparison: the core's
 * fare_wcmp_weights() before WP-3's throughput decision, unchanged but for
 * its name (same all-equal and GCD cases; -1 when max_members < m).
 *
 * The m paths with non-zero bandwidth b_i need integers w_i in
 * [1, max_weight] with sum W <= max_members that minimise the worst
 * relative share error
 *
 *	E(w) = max_i |w_i / (W s_i) - 1|,	s_i = b_i / sum(b).
 *
 * Fix the total T and let t_i = T s_i be path i's ideal weight. Then E <= e
 * is feasible iff every interval
 *
 *	[lo_i, hi_i] = [max(1, ceil(t_i (1 - e))),
 *			min(max_weight, floor(t_i (1 + e)))]
 *
 * holds an integer and sum(lo) <= T <= sum(hi). Each of these conditions is
 * monotone in e, so the best error for T is the largest of three thresholds:
 *
 *  - per path: the distance from t_i to the nearest allowed integer, over t_i;
 *  - sum(hi) >= T: unit k of path i is available from e = k / t_i - 1
 *    = v / T - 1 with v = k / s_i. The threshold is v_T / T - 1, v_T the
 *    T-th smallest of {k / s_i : 1 <= k <= max_weight};
 *  - sum(lo) <= T: lo_i = 1 + #{k >= 1 : e < 1 - k / t_i}, so the threshold
 *    is 1 - v'_(T-m+1) / T, v' the ascending {k / s_i : k >= 1}.
 *
 * Both sequences (the D'Hondt order) are sorted once, in linear time, which
 * makes the two sum thresholds O(1) per total. The per-path threshold is a
 * scan over paths sorted by bandwidth that stops as soon as no further path
 * can raise it. Totals are tried from the largest down, so that a good error
 * prunes the rest early; the smallest total whose error is within the tie
 * tolerance of the best one wins, and its vector is built from the
 * [lo_i, hi_i] intervals.
 */

/* errors this close (relative) are a tie: the smaller sum wins (WP-3) */
#define WCMP_TIE_REL_EPS 1e-12
/*
 * Paths over 1e200 times slower than the fastest are clamped to that ratio:
 * they get weight 1 either way, and the arithmetic stays finite.
 */
#define WCMP_MIN_RATIO 1e-200
/* exact-ratio reduction (WP-3) only for integers a uint64_t holds */
#define WCMP_EXACT_LIMIT 0x1p63

struct wcmp_path {
	double ratio;	  /* b_i / max(b), in [WCMP_MIN_RATIO, 1] */
	double share;	  /* ratio / sum of ratios: s_i */
	double inv_share; /* 1 / s_i: unit k of the path is at k / s_i */
	size_t index;	  /* position in the caller's arrays */
};

struct wcmp_unit {
	double value;
	uint32_t path;
	uint32_t k;
};

/* no NaN here: plain comparisons, no libm call */
static inline double max_double(double a, double b)
{
	return a > b ? a : b;
}

static inline double min_double(double a, double b)
{
	return a < b ? a : b;
}

static double tie_tolerance(double error)
{
	return WCMP_TIE_REL_EPS * (error > 1.0 ? error : 1.0);
}

/*
 * WP-3: integral bandwidths divided by their GCD, when that fits the limits.
 * Any error-free vector is a multiple of this one, so it is also the
 * optimum with the smallest sum.
 */
static bool wcmp_exact_ratio(const double *bw, size_t n, const struct fare_wcmp_limits *lim,
			     uint32_t *weights)
{
	uint64_t divisor = 0, total = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		if (bw[i] == 0)
			continue;
		if (bw[i] >= WCMP_EXACT_LIMIT || bw[i] != floor(bw[i]))
			return false;
		divisor = fare_gcd(divisor, (uint64_t)bw[i]);
	}
	for (i = 0; i < n; i++) {
		uint64_t reduced;

		if (bw[i] == 0)
			continue;
		reduced = (uint64_t)bw[i] / divisor;
		if (reduced > lim->max_weight)
			return false;
		total += reduced;
		if (total > lim->max_members)
			return false;
	}
	for (i = 0; i < n; i++)
		weights[i] = bw[i] == 0 ? 0 : (uint32_t)((uint64_t)bw[i] / divisor);
	return true;
}

static int path_compare(const void *a, const void *b)
{
	const struct wcmp_path *pa = a, *pb = b;

	if (pa->ratio != pb->ratio)
		return pa->ratio < pb->ratio ? -1 : 1;
	return pa->index < pb->index ? -1 : (pa->index > pb->index);
}

static bool unit_before(const struct wcmp_unit *a, const struct wcmp_unit *b)
{
	if (a->value != b->value)
		return a->value < b->value;
	return a->path < b->path;
}

static void heap_sift_down(struct wcmp_unit *heap, size_t size, size_t pos)
{
	for (;;) {
		size_t left = 2 * pos + 1, right = left + 1, smallest = pos;
		struct wcmp_unit swap;

		if (left < size && unit_before(&heap[left], &heap[smallest]))
			smallest = left;
		if (right < size && unit_before(&heap[right], &heap[smallest]))
			smallest = right;
		if (smallest == pos)
			return;
		swap = heap[pos];
		heap[pos] = heap[smallest];
		heap[smallest] = swap;
		pos = smallest;
	}
}

static void heap_build(struct wcmp_unit *heap, size_t size)
{
	size_t pos;

	for (pos = size / 2; pos-- > 0;)
		heap_sift_down(heap, size, pos);
}

/*
 * The count smallest values of {k / s_p : 1 <= k <= k_cap} over all paths,
 * ascending, by merging the paths' sequences in a heap. The caller keeps
 * count <= m * k_cap.
 */
static void unit_sequence_heap(const struct wcmp_path *paths, size_t m, uint32_t k_cap, double *out,
			       size_t count, struct wcmp_unit *heap)
{
	size_t size = m, i;

	for (i = 0; i < m; i++) {
		heap[i].value = paths[i].inv_share;
		heap[i].path = (uint32_t)i;
		heap[i].k = 1;
	}
	heap_build(heap, size);
	for (i = 0; i < count && size; i++) {
		out[i] = heap[0].value;
		if (heap[0].k >= k_cap) {
			heap[0] = heap[--size];
		} else {
			heap[0].k++;
			heap[0].value = heap[0].k * paths[heap[0].path].inv_share;
		}
		heap_sift_down(heap, size, 0);
	}
}

/*
 * G(v) = sum_p min(k_cap, v s_p): how many units lie below v, give or take m.
 * With the c fastest paths capped (paths ascend by s_p, so the fastest cap
 * first) G(v) = v slow_share[c] + k_cap c, for cap_value[c] <= v <
 * cap_value[c + 1].
 */
struct unit_scale {
	double *cap_value;  /* [c]: v where the c-th fastest path caps; [0] 0 */
	double *slow_share; /* [c]: shares of all but the c fastest paths */
	double k_cap;
	size_t m;
};

/* cap_value and slow_share: m + 1 each, set by the caller */
static void unit_scale_init(struct unit_scale *scale, const struct wcmp_path *paths, size_t m,
			    uint32_t k_cap)
{
	size_t c;

	scale->k_cap = k_cap;
	scale->m = m;
	scale->cap_value[0] = 0;
	scale->slow_share[m] = 0;
	for (c = m; c-- > 0;)
		scale->slow_share[c] = scale->slow_share[c + 1] + paths[m - 1 - c].share;
	for (c = 1; c <= m; c++)
		scale->cap_value[c] = k_cap * paths[m - c].inv_share;
}

/* how many paths are capped at v, knowing it is in [low, high] */
static size_t unit_scale_capped(const struct unit_scale *scale, double v, size_t low, size_t high)
{
	while (low < high) {
		size_t mid = low + (high - low + 1) / 2;

		if (scale->cap_value[mid] <= v)
			low = mid;
		else
			high = mid - 1;
	}
	return low;
}

static double unit_scale_rank(const struct unit_scale *scale, double v, size_t capped)
{
	return v * scale->slow_share[capped] + scale->k_cap * capped;
}

/* where G(v) reaches target; +inf when it never does (all units fit) */
static double unit_scale_inverse(const struct unit_scale *scale, double target)
{
	size_t c;

	for (c = 0; c < scale->m; c++) {
		double v = (target - scale->k_cap * c) / scale->slow_share[c];

		if (v <= scale->cap_value[c + 1])
			return v;
	}
	return INFINITY;
}

/* Scratch space of unit_sequence(), for count <= total_max */
struct unit_sort {
	struct unit_scale scale;
	uint32_t *bucket_start; /* total_max + 2 m + 4 */
	uint32_t *unit_bucket;	/* total_max + 2 m + 2 */
	double *unsorted;	/* total_max + 2 m + 2 */
	double *sorted;		/* total_max + 2 m + 2 */
};

/*
 * The count smallest values of {k / s_p : 1 <= k <= k_cap}, ascending.
 *
 * A value's rank is tied to its size: F(v), the number of units up to v, is
 * within m below G(v). So the count smallest all lie below the V where
 * G(V) = count + m, there are at most count + m units below V, and a
 * counting sort on floor(G(v)) sorts them in linear time (an insertion sort
 * fixes the order of the few that share a bucket).
 */
static void unit_sequence(const struct wcmp_path *paths, size_t m, uint32_t k_cap, double *out,
			  size_t count, struct unit_sort *sort, struct wcmp_unit *heap)
{
	const double target = (double)count + m + 1;
	size_t capacity = count + 2 * m + 2, buckets = (size_t)target + 2;
	struct unit_scale *scale = &sort->scale;
	size_t units = 0, i, p;
	double value_limit;

	unit_scale_init(scale, paths, m, k_cap);
	value_limit = unit_scale_inverse(scale, target);
	for (i = 0; i <= buckets; i++)
		sort->bucket_start[i] = 0;

	for (p = 0; p < m; p++) {
		double last = floor(value_limit * paths[p].share);
		uint32_t k, k_max = last < k_cap ? (uint32_t)last : k_cap;
		size_t capped_first, capped_last;

		if (k_max == 0)
			continue;
		if (units + k_max > capacity) {
			/* rounding beyond the bound: never seen, be safe */
			unit_sequence_heap(paths, m, k_cap, out, count, heap);
			return;
		}
		capped_first = unit_scale_capped(scale, paths[p].inv_share, 0, m);
		capped_last = unit_scale_capped(scale, k_max * paths[p].inv_share, capped_first, m);
		for (k = 1; k <= k_max; k++) {
			double value = k * paths[p].inv_share;
			size_t capped = capped_first;
			double rank;

			if (capped_first != capped_last)
				capped = unit_scale_capped(scale, value, capped_first, capped_last);
			rank = unit_scale_rank(scale, value, capped);
			sort->unit_bucket[units] = rank < buckets ? (uint32_t)rank
								  : (uint32_t)(buckets - 1);
			sort->unsorted[units] = value;
			sort->bucket_start[sort->unit_bucket[units] + 1]++;
			units++;
		}
	}
	if (units < count) {
		unit_sequence_heap(paths, m, k_cap, out, count, heap);
		return;
	}

	for (i = 1; i <= buckets; i++)
		sort->bucket_start[i] += sort->bucket_start[i - 1];
	for (i = 0; i < units; i++)
		sort->sorted[sort->bucket_start[sort->unit_bucket[i]]++] = sort->unsorted[i];
	for (i = 1; i < units; i++) {
		double value = sort->sorted[i];
		size_t j = i;

		for (; j > 0 && sort->sorted[j - 1] > value; j--)
			sort->sorted[j] = sort->sorted[j - 1];
		sort->sorted[j] = value;
	}
	for (i = 0; i < count; i++)
		out[i] = sort->sorted[i];
}

/* Best relative error a path can have alone, for ideal weight t > 0 */
static double path_error(double ideal, double max_weight)
{
	double below;

	if (ideal <= 1.0)
		return 1.0 / ideal - 1.0;
	if (ideal >= max_weight)
		return 1.0 - max_weight / ideal;
	below = floor(ideal);
	return min_double(ideal - below, below + 1.0 - ideal) / ideal;
}

/*
 * Upper bound of path_error() for ideal <= max_weight, decreasing in ideal:
 * once it drops below the current error no slower path can raise it (and the
 * paths above max_weight never exceed the fastest one's error).
 */
static double path_error_bound(double ideal)
{
	return max_double(1.0 / ideal - 1.0, 0.5 / ideal);
}

struct wcmp_work {
	struct wcmp_path *paths;    /* m, ascending bandwidth */
	struct wcmp_unit *heap;	    /* m */
	double *upper_units;	    /* total_max: v, capped at max_weight */
	double *lower_units;	    /* total_max - m + 1: v', uncapped */
	double *total_error;	    /* total_max + 1, indexed by total */
	uint32_t *low, *high, *vec; /* m each */
	struct unit_sort sort;
};

static void wcmp_work_free(struct wcmp_work *work)
{
	free(work->paths);
	free(work->heap);
	free(work->upper_units);
	free(work->lower_units);
	free(work->total_error);
	free(work->low);
	free(work->high);
	free(work->vec);
	free(work->sort.scale.cap_value);
	free(work->sort.scale.slow_share);
	free(work->sort.bucket_start);
	free(work->sort.unit_bucket);
	free(work->sort.unsorted);
	free(work->sort.sorted);
}

static bool wcmp_work_alloc(struct wcmp_work *work, size_t m, size_t total_max)
{
	size_t units = total_max + 2 * m + 2;

	work->paths = malloc(m * sizeof(*work->paths));
	work->heap = malloc(m * sizeof(*work->heap));
	work->upper_units = malloc(total_max * sizeof(double));
	work->lower_units = malloc((total_max - m + 1) * sizeof(double));
	work->total_error = malloc((total_max + 1) * sizeof(double));
	work->low = malloc(m * sizeof(uint32_t));
	work->high = malloc(m * sizeof(uint32_t));
	work->vec = malloc(m * sizeof(uint32_t));
	work->sort.scale.cap_value = malloc((m + 1) * sizeof(double));
	work->sort.scale.slow_share = malloc((m + 1) * sizeof(double));
	work->sort.bucket_start = malloc((units + 2) * sizeof(uint32_t));
	work->sort.unit_bucket = malloc(units * sizeof(uint32_t));
	work->sort.unsorted = malloc(units * sizeof(double));
	work->sort.sorted = malloc(units * sizeof(double));
	return work->paths && work->heap && work->upper_units && work->lower_units &&
	       work->total_error && work->low && work->high && work->vec &&
	       work->sort.scale.cap_value && work->sort.scale.slow_share &&
	       work->sort.bucket_start && work->sort.unit_bucket && work->sort.unsorted &&
	       work->sort.sorted;
}

/*
 * The path's error exceeds limit at total: the next smaller total where it
 * may not, or m - 1 when there is none. Ideal weights move by s_i per total,
 * so a slow path stays in the same gap between integers for many totals.
 */
static size_t next_total(const struct wcmp_path *path, size_t total, double limit,
			 uint32_t max_weight, size_t m)
{
	double ideal = total * path->share, last_good;
	size_t next;

	if (ideal <= 1.0)
		return m - 1; /* 1/t - 1 only grows as t shrinks */
	if (limit >= 1.0)
		return total - 1; /* no skipping: cannot happen above 1 */
	if (ideal >= max_weight)  /* 1 - max_weight/t > limit */
		last_good = max_weight / (1.0 - limit);
	else /* (t - w)/t > limit and (w + 1 - t)/t > limit */
		last_good = floor(ideal) / (1.0 - limit);
	/* + 1: rounding must never skip a total that could be good */
	last_good = floor(last_good / path->share) + 1;
	if (last_good < m)
		return m - 1;
	next = last_good < (double)total ? (size_t)last_good : total;
	return next < total ? next : total - 1;
}

/*
 * Best error for every total: exact where it is within the tie tolerance of
 * the best so far, +inf or a lower bound where it is not (never selected).
 */
static double wcmp_scan_totals(struct wcmp_work *work, size_t m, size_t total_max,
			       uint32_t max_weight)
{
	const struct wcmp_path *paths = work->paths;
	double best = INFINITY;
	size_t total = total_max, hint = m, failing, i;

	for (i = 0; i <= total_max; i++)
		work->total_error[i] = INFINITY;

	while (total >= m) {
		double limit = best + tie_tolerance(best);
		double per_total = 1.0 / (double)total;
		double running;

		running = max_double(work->upper_units[total - 1] * per_total - 1.0,
				     1.0 - work->lower_units[total - m] * per_total);
		if (running > limit) {
			total--;
			continue;
		}

		/* the path that failed last time is likely to fail again */
		failing = m;
		if (hint < m && path_error(total * paths[hint].share, max_weight) > limit)
			failing = hint;
		for (i = 0; failing == m && i < m; i++) {
			/* the slowest and the fastest first, then upwards */
			size_t path = i == 0 ? 0 : (i == 1 ? m - 1 : i - 1);
			double ideal = total * paths[path].share;
			double error;

			if (i >= 2 && path_error_bound(ideal) <= running)
				break;
			error = path_error(ideal, max_weight);
			if (error > limit)
				failing = path;
			running = max_double(running, error);
		}
		if (failing < m) {
			hint = failing;
			total = next_total(&paths[failing], total, limit, max_weight, m);
			continue;
		}

		work->total_error[total] = running;
		if (running < best)
			best = running;
		total--;
	}
	return best;
}

/* A vector with this total and error: within [lo_i, hi_i], D'Hondt fill */
static bool wcmp_build(struct wcmp_work *work, size_t m, size_t total, double error,
		       uint32_t max_weight)
{
	const struct wcmp_path *paths = work->paths;
	double slack = tie_tolerance(error) / 2;
	uint64_t low_sum = 0, high_sum = 0, sum;
	size_t size, i;
	int attempt;
	bool fits = false, adding;

	/* the slack absorbs rounding; it admits only tied integers */
	for (attempt = 0; attempt < 8 && !fits; attempt++, slack *= 16) {
		double bound = error + slack;

		fits = true;
		low_sum = high_sum = 0;
		for (i = 0; i < m; i++) {
			double ideal = total * paths[i].share;
			double low = max_double(1.0, ceil(ideal * (1.0 - bound)));
			double high = min_double(max_weight, floor(ideal * (1.0 + bound)));

			if (!(low <= high)) {
				fits = false;
				break;
			}
			work->low[i] = (uint32_t)low;
			work->high[i] = (uint32_t)high;
			low_sum += work->low[i];
			high_sum += work->high[i];
		}
		if (fits && (low_sum > total || high_sum < total))
			fits = false;
	}
	if (!fits)
		return false;

	/* the nearest allowed integers, then the sum fixed in D'Hondt order */
	sum = 0;
	for (i = 0; i < m; i++) {
		double nearest = floor(total * paths[i].share + 0.5);

		if (nearest < work->low[i])
			work->vec[i] = work->low[i];
		else if (nearest > work->high[i])
			work->vec[i] = work->high[i];
		else
			work->vec[i] = (uint32_t)nearest;
		sum += work->vec[i];
	}
	adding = sum < total;
	size = 0;
	for (i = 0; i < m; i++) {
		/* adding: cheapest next unit first; removing: dearest last */
		if (adding ? work->vec[i] < work->high[i] : work->vec[i] > work->low[i]) {
			work->heap[size].value = adding ? (work->vec[i] + 1.0) / paths[i].ratio
							: -(work->vec[i] / paths[i].ratio);
			work->heap[size].path = (uint32_t)i;
			size++;
		}
	}
	heap_build(work->heap, size);
	while (sum != total && size) {
		uint32_t path = work->heap[0].path;
		uint32_t *w = &work->vec[path];

		if (adding) {
			(*w)++;
			sum++;
		} else {
			(*w)--;
			sum--;
		}
		if (adding ? *w >= work->high[path] : *w <= work->low[path])
			work->heap[0] = work->heap[--size];
		else
			work->heap[0].value = adding ? (*w + 1.0) / paths[path].ratio
						     : -(*w / paths[path].ratio);
		heap_sift_down(work->heap, size, 0);
	}
	return sum == total;
}

static bool wcmp_optimise(const double *bw, size_t n, size_t m, double bw_max,
			  const struct fare_wcmp_limits *lim, uint32_t *weights)
{
	struct wcmp_work work = { 0 };
	uint64_t total_max = lim->max_members;
	double ratio_sum = 0, best, limit;
	size_t total, i, j;
	bool done = false;

	if (total_max > (uint64_t)m * lim->max_weight)
		total_max = (uint64_t)m * lim->max_weight;
	if (total_max > FARE_WCMP_SEARCH_MAX_TOTAL)
		total_max = FARE_WCMP_SEARCH_MAX_TOTAL;
	if (total_max < m)
		total_max = m;

	if (!wcmp_work_alloc(&work, m, total_max))
		goto out;

	for (i = 0, j = 0; i < n; i++) {
		if (bw[i] == 0)
			continue;
		work.paths[j].ratio = bw[i] / bw_max;
		if (work.paths[j].ratio < WCMP_MIN_RATIO)
			work.paths[j].ratio = WCMP_MIN_RATIO;
		work.paths[j].index = i;
		j++;
	}
	qsort(work.paths, m, sizeof(*work.paths), path_compare);
	for (i = 0; i < m; i++)
		ratio_sum += work.paths[i].ratio;
	for (i = 0; i < m; i++) {
		work.paths[i].share = work.paths[i].ratio / ratio_sum;
		work.paths[i].inv_share = ratio_sum / work.paths[i].ratio;
	}

	unit_sequence(work.paths, m, lim->max_weight, work.upper_units, total_max, &work.sort,
		      work.heap);
	unit_sequence(work.paths, m, UINT32_MAX, work.lower_units, total_max - m + 1, &work.sort,
		      work.heap);

	best = wcmp_scan_totals(&work, m, total_max, lim->max_weight);
	limit = best + tie_tolerance(best);
	for (total = m; total <= total_max; total++)
		if (work.total_error[total] <= limit)
			break;
	if (total > total_max ||
	    !wcmp_build(&work, m, total, work.total_error[total], lim->max_weight))
		goto out;

	for (i = 0; i < n; i++)
		weights[i] = 0;
	for (i = 0; i < m; i++)
		weights[work.paths[i].index] = work.vec[i];
	done = true;
out:
	wcmp_work_free(&work);
	return done;
}

static int min_share_error_weights(const double *bw, size_t n, const struct fare_wcmp_limits *lim,
				   uint32_t *weights)
{
	double first = 0, bw_max = 0;
	bool all_equal = true;
	size_t m = 0, i;

	if (!bw || !lim || !weights || n == 0)
		return -1;
	for (i = 0; i < n; i++) {
		if (!isfinite(bw[i]) || bw[i] < 0)
			return -1;
		if (bw[i] == 0)
			continue; /* FARE-4: no bandwidth, no member */
		if (m == 0)
			first = bw[i];
		else if (bw[i] != first)
			all_equal = false;
		if (bw[i] > bw_max)
			bw_max = bw[i];
		m++;
	}
	if (m == 0 || m > INT_MAX || lim->max_weight == 0 || lim->max_members < m)
		return -1;

	if (all_equal) {
		for (i = 0; i < n; i++)
			weights[i] = bw[i] == 0 ? 0 : 1;
		return (int)m;
	}
	if (wcmp_exact_ratio(bw, n, lim, weights))
		return (int)m;
	if (!wcmp_optimise(bw, n, m, bw_max, lim, weights))
		return -1;
	return (int)m;
}

/* ---- the benchmark ---- */

#define GBPS(g)	  ((g)*1e9 / 8)
#define MAX_PATHS 512

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* uniform in [lo, hi] */
static uint32_t prng_range(struct prng *prng, uint32_t lo, uint32_t hi)
{
	return lo + (uint32_t)(prng_next(prng) % ((uint64_t)hi - lo + 1));
}

static const double speeds_gbps[] = { 10, 25, 40, 50, 100, 200, 400, 800 };

/* test_wcmp.c's random_bandwidth() kinds, without failed (zero) paths */
static double small_integer(struct prng *prng)
{
	return prng_range(prng, 1, 20);
}

/* link speeds (FARE-3), some multihomed: / k (FARE-6) */
static double link_speed(struct prng *prng)
{
	return GBPS(speeds_gbps[prng_range(prng, 0, 7)]) / prng_range(prng, 1, 3);
}

/* WP-2 averages of link speeds */
static double wp2_average(struct prng *prng)
{
	return GBPS(speeds_gbps[prng_range(prng, 0, 7)] + speeds_gbps[prng_range(prng, 0, 7)]) /
	       prng_range(prng, 1, 7);
}

/* 400G and 800G links, one in 8 degraded to 50-100% (WP-7, SUN-2) */
static double degraded_fast(struct prng *prng)
{
	return GBPS(400 * (1 + prng_range(prng, 0, 1)) *
		    (prng_range(prng, 0, 7) ? 1 : 0.5 + 0.5 * prng_unit(prng)));
}

/* 25G..400G, real-valued (WP-2 averages, FARE-6): the timing groups */
static double real_valued(struct prng *prng)
{
	return GBPS(25 + 375 * prng_unit(prng));
}

/*
 * zebra's scaling, as zapi_read_nexthops() in FRR 10.3's zebra/zapi_msg.c
 * applies it to the weights bgpd sends (attr->link_bw, an integer): unless
 * all are 1, each becomes MAX(1, w * 254 / max w) in integer arithmetic
 * (zrouter.nexthop_weight_scale_value = 254; rounded down, not to nearest).
 */
static int zebra_scaled(const double *bw, size_t n, const struct fare_wcmp_limits *lim,
			uint32_t *weights)
{
	const uint64_t scale_value = 254;
	uint64_t max_weight = 0, in[MAX_PATHS];
	bool same_weight = true;
	size_t i;

	(void)lim; /* no member limit */
	for (i = 0; i < n; i++) {
		in[i] = (uint64_t)bw[i];
		if (max_weight < in[i]) {
			if (i != 0 || in[i] != 1)
				same_weight = false;
			max_weight = in[i];
		}
	}
	for (i = 0; i < n; i++) {
		uint64_t scaled = in[i] * scale_value / max_weight;

		if (same_weight)
			weights[i] = (uint32_t)in[i];
		else
			weights[i] = scaled ? (uint32_t)scaled : 1;
	}
	return (int)n;
}

typedef int(weights_fn)(const double *bw, size_t n, const struct fare_wcmp_limits *lim,
			uint32_t *weights);

static const struct method {
	const char *name;
	weights_fn *fn;
} methods[] = {
	{ "old objective", min_share_error_weights },
	{ "fare_wcmp_weights", fare_wcmp_weights },
	{ "zebra scaling", zebra_scaled },
};

#define METHODS (sizeof(methods) / sizeof(methods[0]))

struct result {
	double worst, mean; /* fraction of ideal throughput */
	double time_ns;	    /* per group */
	double members;	    /* sum of the weights, mean */
	double dropped;	    /* non-zero paths at weight 0, mean */
};

/* time per call, the call repeated for at least 0.2 ms */
static double time_call(weights_fn *fn, const double *bw, size_t n,
			const struct fare_wcmp_limits *lim, uint32_t *weights)
{
	double start = now_ns(), elapsed;
	long calls = 0;

	do {
		if (fn(bw, n, lim, weights) < 1) {
			fprintf(stderr, "no weights\n");
			exit(1);
		}
		calls++;
		elapsed = now_ns() - start;
	} while (elapsed < 2e5 && calls < 1000);
	return elapsed / calls;
}

/* the same groups (same seed) for every method */
static void measure(weights_fn *fn, double (*gen)(struct prng *), size_t n,
		    const struct fare_wcmp_limits *lim, int groups, uint64_t seed,
		    struct result *res)
{
	struct prng prng = { seed };
	double bw[MAX_PATHS];
	uint32_t weights[MAX_PATHS];
	size_t i;
	int g;

	res->worst = INFINITY;
	res->mean = res->time_ns = res->members = res->dropped = 0;
	for (g = 0; g < groups; g++) {
		double t;

		for (i = 0; i < n; i++)
			bw[i] = gen(&prng);
		res->time_ns += time_call(fn, bw, n, lim, weights);
		t = fare_wcmp_throughput(bw, weights, n);
		res->worst = fmin(res->worst, t);
		res->mean += t;
		for (i = 0; i < n; i++) {
			res->members += weights[i];
			res->dropped += weights[i] == 0;
		}
	}
	res->mean /= groups;
	res->time_ns /= groups;
	res->members /= groups;
	res->dropped /= groups;
}

static void print_header(const char *first, const char *second)
{
	size_t k;

	printf("%-36s %6s", first, second);
	for (k = 0; k < METHODS; k++)
		printf("  %-26s", methods[k].name);
	printf("\n");
}

static void print_cost(const struct result *res)
{
	char text[64];

	snprintf(text, sizeof(text), "%.*f us, %.0f m, %.1f d", res->time_ns < 1e3 ? 3 : 1,
		 res->time_ns / 1e3, res->members, res->dropped);
	printf("  %-26s", text);
}

/* 1. throughput of the old objective, the new one and zebra's scaling */
static void bench_throughput(void)
{
	static const struct {
		const char *name;
		double (*gen)(struct prng *);
		size_t n;
		struct fare_wcmp_limits lim;
	} dists[] = {
		{ "16 paths, link speeds /1..3", link_speed, 16, { 254, 512 } },
		{ "16 paths, WP-2 averages", wp2_average, 16, { 254, 512 } },
		{ "64 paths, 400G/800G, a few degraded", degraded_fast, 64, { 254, 512 } },
		{ "8 small integers (1..20)", small_integer, 8, { 254, 64 } },
	};
	enum { DISTS = sizeof(dists) / sizeof(dists[0]), GROUPS = 1000 };
	static struct result res[DISTS][METHODS];
	size_t d, k;

	for (d = 0; d < DISTS; d++)
		for (k = 0; k < METHODS; k++)
			measure(methods[k].fn, dists[d].gen, dists[d].n, &dists[d].lim, GROUPS,
				0xB0A710AD5EED0010ULL + d, &res[d][k]);

	printf("Fraction of ideal throughput, worst / mean over %d random groups "
	       "(max_weight 254):\n",
	       GROUPS);
	print_header("distribution", "budget");
	for (d = 0; d < DISTS; d++) {
		printf("%-36s %6u", dists[d].name, dists[d].lim.max_members);
		for (k = 0; k < METHODS; k++) {
			char text[32];

			snprintf(text, sizeof(text), "%.2f / %.2f", res[d][k].worst, res[d][k].mean);
			printf("  %-26s", text);
		}
		printf("\n");
	}
	printf("\nTime per group, members (m) and paths at weight 0 (d), mean:\n");
	print_header("distribution", "budget");
	for (d = 0; d < DISTS; d++) {
		printf("%-36s %6u", dists[d].name, dists[d].lim.max_members);
		for (k = 0; k < METHODS; k++)
			print_cost(&res[d][k]);
		printf("\n");
	}
	printf("(zebra scaling: no member limit)\n\n");
}

/* 2. time per group, 8 to 512 real-valued paths, limits {255, 4096} */
static void bench_time(void)
{
	const struct fare_wcmp_limits lim = { 255, 4096 };
	static const size_t sizes[] = { 8, 64, 512 };
	enum { GROUPS = 64 };
	size_t s, k;

	printf("Time per group, members (m) and paths at weight 0 (d), mean over %d "
	       "groups of\nreal-valued bandwidths 25G..400G, limits {%u, %u}; then "
	       "throughput worst / mean:\n",
	       GROUPS, lim.max_weight, lim.max_members);
	print_header("paths", "");
	for (s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		struct result res[METHODS];

		printf("%-36zu %6s", sizes[s], "");
		for (k = 0; k < METHODS; k++) {
			measure(methods[k].fn, real_valued, sizes[s], &lim, GROUPS,
				0xB0A710AD5EED0001ULL + s, &res[k]);
			print_cost(&res[k]);
		}
		printf("\n%-36s %6s", "", "");
		for (k = 0; k < METHODS; k++) {
			char text[32];

			snprintf(text, sizeof(text), "%.3f / %.3f", res[k].worst, res[k].mean);
			printf("  %-26s", text);
		}
		printf("\n");
	}
}

int main(void)
{
	bench_throughput();
	bench_time();
	return 0;
}
