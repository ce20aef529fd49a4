// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * FARE WCMP: integer next-hop weights from path bandwidths (WP-3, FARE-4).
 *
 * Objective (WP-3, SPEC section 5 "Integer weights"): the throughput of the
 * group, set by the member that saturates first,
 *
 *	T(w) = min_{i: w_i > 0} (b_i / B) / (w_i / W),	B = sum(b), W = sum(w),
 *
 * maximised over w_i in [0, max_weight] with 1 <= W <= max_members; ties go
 * to the smaller W, then to fewer paths left at weight 0. T <= 1, and T = 1
 * only for the exact ratio: a path left out puts the others above their
 * shares.
 *
 * Optimality. T(w) = (W / B) min_i b_i / w_i. Call unit (i, k) the k-th
 * member of path i, of value b_i / k, 1 <= k <= max_weight. A vector of
 * total W is W distinct units, the first w_i of each path, and
 * min_i b_i / w_i is the value of its smallest unit: at most v_W, the W-th
 * largest value of all units. The W largest units (the D'Hondt or highest
 * averages order) are the first ones of their paths, so they are a vector,
 * and they reach v_W. So the best throughput of total W is W v_W / B, and
 * the optimum is the largest W v_W over W <= max_members. W v_W grows along
 * a run of equal values, so only the last total of a run, or max_members,
 * can win; the vectors reaching it are those made of units >= its v_W.
 *
 * The units are merged largest first in a loser tree over the distinct
 * bandwidths d <= m, the paths of one bandwidth giving their units
 * together: O(m + N log d) per call, N = min(max_members, m max_weight,
 * FARE_WCMP_SEARCH_MAX_TOTAL), stopping early once no larger total can
 * win (never worse than O(m max_members)); no allocation up to
 * WCMP_STACK_PATHS paths. Values and products are compared exactly
 * (two-product with fma()), so that exact ties do go to the smaller total.
 * The vector is then read from the winner's value: each path's units above
 * it, then the choice the ties leave (wcmp_fill_run()).
 */

#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "fare_apportion.h"
#include "fare_wcmp.h"

/* exact-ratio reduction (WP-3) only for integers a uint64_t holds */
#define WCMP_EXACT_LIMIT 0x1p63
/*
 * A path this much slower than the fastest is never used: it would bring
 * W v_W below 2^17 * 2^-1000, where total 1 has v_1 >= 1. Above it the
 * scaled values and products stay normal doubles.
 */
#define WCMP_MIN_SCALED 0x1p-1000
/* groups up to this many paths need no malloc() (under 8 KiB of stack) */
#define WCMP_STACK_PATHS 128

/*
 * The paths in a tournament (a loser tree). Leaf j is the count_j paths of
 * bandwidth r_j (fabrics have few distinct speeds): it offers their next
 * units k, of value r_j / k, up to cap_j. node[0] holds the leaf with the
 * largest next unit, node[t] (1 <= t < leaves) the loser of the match at t,
 * with its value: a positive double's bits order like the double, and 0
 * marks a leaf with no unit left (or no paths). Taking a unit replays one
 * leaf-to-root path: log2(m) integer comparisons and masks, no branch but
 * on exact ties, and loads that do not wait on each other.
 */
struct wcmp_node {
	uint64_t key; /* bits of the next unit's value, 0: none */
	uint32_t path;
};

struct wcmp_tree {
	struct wcmp_node *node; /* leaves */
	double *r;		/* b_i scaled by a power of 2: max(r) in [1, 2) */
	size_t *index;		/* position in the caller's arrays, ascending */
	uint64_t *next;		/* key of unit k + 1 */
	uint32_t *k;
	uint32_t *cap;
	uint32_t *count; /* paths of bandwidth r */
	uint32_t *slot;	 /* 2 * leaves: leaf + 1 by r, to group the paths */
	size_t leaves;	 /* a power of 2 >= m */
	size_t m;
};

struct wcmp_tree_stack {
	struct wcmp_node node[WCMP_STACK_PATHS];
	double r[WCMP_STACK_PATHS];
	size_t index[WCMP_STACK_PATHS];
	uint64_t next[WCMP_STACK_PATHS];
	uint32_t k[WCMP_STACK_PATHS], cap[WCMP_STACK_PATHS], count[WCMP_STACK_PATHS];
	uint32_t slot[2 * WCMP_STACK_PATHS];
};

/*
 * WP-3: integral bandwidths divided by their GCD, when that fits the limits.
 * Throughput 1, and any vector of throughput 1 is a multiple of this one:
 * the optimum, with the smallest sum.
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

/*
 * Sign of x a - y b, exactly: x and y are positive integers below 2^53, a
 * and b scaled bandwidths (in [2^-1000, 2): no under- or overflow).
 * Rounding is monotone, so unequal products decide; equal ones differ by
 * their exact rounding errors.
 */
static int product_cmp(double x, double a, double y, double b)
{
	double p = x * a, q = y * b, ep, eq;

	if (p != q)
		return p < q ? -1 : 1;
	/* all positive: equal paths or equal units are the common ties */
	if (x == y)
		return a < b ? -1 : (a > b);
	if (a == b)
		return x < y ? -1 : (x > y);
	ep = fma(x, a, -p);
	eq = fma(y, b, -q);
	return ep < eq ? -1 : (ep > eq);
}

static uint64_t value_key(double value)
{
	uint64_t key;

	memcpy(&key, &value, sizeof(key));
	return key;
}

static double key_value(uint64_t key)
{
	double value;

	memcpy(&value, &key, sizeof(value));
	return value;
}

/* equal keys: a's unit before b's, larger exactly or the lower index */
static bool unit_tie_before(const struct wcmp_tree *tree, const struct wcmp_node *a,
			    const struct wcmp_node *b)
{
	int cmp;

	if (!a->key)
		return false; /* neither has a unit */
	cmp = product_cmp(tree->k[b->path], tree->r[a->path], tree->k[a->path], tree->r[b->path]);
	return cmp > 0 || (cmp == 0 && a->path < b->path);
}

static struct wcmp_node tree_leaf(struct wcmp_tree *tree, size_t j)
{
	struct wcmp_node leaf = { 0, (uint32_t)j };

	if (j < tree->m) {
		leaf.key = value_key(tree->r[j] / tree->k[j]);
		tree->next[j] = value_key(tree->r[j] / (tree->k[j] + 1.0));
	}
	return leaf;
}

/* the winner below t; the losers stored on the way */
static struct wcmp_node tree_build_at(struct wcmp_tree *tree, size_t t)
{
	struct wcmp_node a, b;

	if (t >= tree->leaves)
		return tree_leaf(tree, t - tree->leaves);
	a = tree_build_at(tree, 2 * t);
	b = tree_build_at(tree, 2 * t + 1);
	if (a.key > b.key || (a.key == b.key && unit_tie_before(tree, &a, &b))) {
		tree->node[t] = b;
		return a;
	}
	tree->node[t] = a;
	return b;
}

/* from r, k, cap and count of leaves 0..m-1 */
static void tree_build(struct wcmp_tree *tree)
{
	tree->node[0] = tree_build_at(tree, 1);
}

/* the top leaf gave its units: its next ones, or none; replay */
static void tree_advance(struct wcmp_tree *tree)
{
	struct wcmp_node run = tree->node[0];
	uint32_t j = run.path;
	size_t t;

	/* the next value was divided out last time: no wait for it here */
	run.key = tree->k[j] < tree->cap[j] ? tree->next[j] : 0;
	tree->k[j]++;
	tree->next[j] = value_key(tree->r[j] / (tree->k[j] + 1));
	for (t = (tree->leaves + j) / 2; t; t /= 2) {
		struct wcmp_node other = tree->node[t];
		uint64_t swap = other.key > run.key, mask;

		if (other.key == run.key) /* rare: exact ties */
			swap = unit_tie_before(tree, &other, &run);
		/* the loser stays at t, the winner runs on: no branch */
		mask = 0 - swap;
		tree->node[t].key = (run.key & mask) | (other.key & ~mask);
		tree->node[t].path = (uint32_t)((run.path & mask) | (other.path & ~mask));
		run.key = (other.key & mask) | (run.key & ~mask);
		run.path = (uint32_t)((other.path & mask) | (run.path & ~mask));
	}
	tree->node[0] = run;
}

/* the winner: total W and its v_W = r / k */
struct wcmp_best {
	uint64_t total;
	double r;
	uint32_t k;
};

/* rounding of W r / k in doubles (3 roundings): far below this margin */
#define WCMP_ROUNDING 0x1p-50

/*
 * All totals up to total_max in D'Hondt order; the largest W v_W, the
 * smallest W on a tie. Stops early when no later total can do better.
 */
static void wcmp_scan(struct wcmp_tree *tree, uint64_t total_max, struct wcmp_best *best)
{
	double best_g = 0; /* best W v_W, rounded */
	uint64_t total = 0;

	best->total = 0;
	while (total < total_max && tree->node[0].key) {
		/* next: the top once this unit is taken */
		struct wcmp_node unit = tree->node[0], *next = &tree->node[0];
		double r = tree->r[unit.path], g;
		uint32_t k = tree->k[unit.path];

		/* the leaf's paths give a unit of this value each */
		total += tree->count[unit.path];
		if (total > total_max)
			total = total_max;
		tree_advance(tree);
		/* the run of this value goes on: its end does better */
		if (total < total_max && next->key == unit.key &&
		    product_cmp(tree->k[next->path], r, k, tree->r[next->path]) == 0)
			continue;
		/*
		 * W v_W > W' v_W' <=> W k' r > W' k r' (all below 2^35):
		 * exactly only when the rounded values are too close to tell
		 */
		g = total * key_value(unit.key);
		if (!best->total || g > best_g * (1 + WCMP_ROUNDING) ||
		    (g >= best_g * (1 - WCMP_ROUNDING) &&
		     product_cmp((double)total * best->k, r, (double)best->total * k, best->r) > 0)) {
			best->total = total;
			best->r = r;
			best->k = k;
			best_g = g;
		}
		/* a later total is below total_max times the next value */
		if (total_max * key_value(next->key) < best_g * (1 - WCMP_ROUNDING))
			break;
	}
}

/* how many of the first k_cap units of r are >= r_opt / k_opt (> if strict) */
static uint32_t units_above(double r, const struct wcmp_best *best, uint32_t k_cap, bool strict)
{
	double guess = floor(r * best->k / best->r);
	uint32_t k = guess >= k_cap ? k_cap : (uint32_t)guess;

	/* r / k vs r_opt / k_opt: k_opt r - k r_opt; the guess may be off by 1 */
	while (k < k_cap && product_cmp(best->k, r, k + 1.0, best->r) >= (strict ? 1 : 0))
		k++;
	while (k > 0 && product_cmp(best->k, r, k, best->r) < (strict ? 1 : 0))
		k--;
	return k;
}

/* unit k of r has exactly the winning value */
static bool unit_is_best(double r, uint32_t k, const struct wcmp_best *best)
{
	return product_cmp(best->k, r, k, best->r) == 0;
}

/* a path of the search: non-zero and not too slow to ever be used */
static bool wcmp_scaled(double bw, int shift, double *r)
{
	*r = ldexp(bw, shift);
	return *r >= WCMP_MIN_SCALED;
}

#define WCMP_RUN_MARK UINT32_MAX /* a path whose only unit is the value v */

/*
 * The winner is max_members, inside a run of units of value v: every
 * vector of units >= v with that total is optimal. Fewest paths at weight
 * 0 (WP-3 tie rule): one member for each path with a unit > v, then for
 * the paths whose first unit is v (lower index first) while the total
 * allows; then the units > v in D'Hondt order, then those = v (lower index
 * first). On entry weights[] holds each path's count of units > v.
 */
static void wcmp_fill_run(const double *bw, size_t n, int shift, const struct wcmp_best *best,
			  uint32_t k_cap, uint64_t low_sum, uint64_t low_paths,
			  struct wcmp_tree *tree, uint32_t *weights)
{
	uint64_t used = low_paths, left, spare = low_sum - low_paths;
	size_t i, j = 0;
	double r;

	for (i = 0; i < n && used < best->total; i++) {
		if (weights[i] == 0 && wcmp_scaled(bw[i], shift, &r) && unit_is_best(r, 1, best)) {
			weights[i] = WCMP_RUN_MARK;
			used++;
		}
	}
	left = best->total - used;

	if (spare <= left) {
		/* all units > v, then units = v by index */
		left -= spare;
		for (i = 0; i < n; i++) {
			if (weights[i] == WCMP_RUN_MARK) {
				weights[i] = 1;
			} else if (weights[i] && left && weights[i] < k_cap &&
				   wcmp_scaled(bw[i], shift, &r) &&
				   unit_is_best(r, weights[i] + 1, best)) {
				weights[i]++;
				left--;
			}
		}
		return;
	}

	/* only some units > v fit: one each, then the largest of the rest */
	for (i = 0; i < n; i++) {
		if (weights[i] >= 2 && weights[i] != WCMP_RUN_MARK) {
			wcmp_scaled(bw[i], shift, &r);
			tree->r[j] = r;
			tree->index[j] = i;
			tree->k[j] = 2;
			tree->cap[j] = weights[i];
			tree->count[j] = 1;
			j++;
		}
		if (weights[i])
			weights[i] = 1;
	}
	tree->m = j;
	tree_build(tree);
	for (; left && tree->node[0].key; left--) {
		uint32_t top = tree->node[0].path;

		weights[tree->index[top]] = tree->k[top];
		tree_advance(tree);
	}
}

/* the optimal vector of the winner (see the top of the file) */
static void wcmp_build(const double *bw, size_t n, int shift, const struct wcmp_best *best,
		       uint32_t k_cap, struct wcmp_tree *tree, uint32_t *weights)
{
	uint64_t low_sum = 0, low_paths = 0, high_sum = 0;
	size_t i;
	double r;

	for (i = 0; i < n; i++) {
		uint32_t low;

		weights[i] = 0;
		if (!wcmp_scaled(bw[i], shift, &r))
			continue;
		low = units_above(r, best, k_cap, true);
		weights[i] = low;
		low_sum += low;
		low_paths += low > 0;
		high_sum += low + (low < k_cap && unit_is_best(r, low + 1, best));
	}
	if (high_sum == best->total) {
		/* the end of a run: the units >= v, nothing to choose */
		for (i = 0; i < n; i++)
			if (wcmp_scaled(bw[i], shift, &r) && weights[i] < k_cap &&
			    unit_is_best(r, weights[i] + 1, best))
				weights[i]++;
		return;
	}
	wcmp_fill_run(bw, n, shift, best, k_cap, low_sum, low_paths, tree, weights);
}

/* where the leaf of bandwidth r is, or goes (linear probing) */
static uint32_t *leaf_slot(const struct wcmp_tree *tree, double r)
{
	size_t mask = 2 * tree->leaves - 1;
	size_t pos = (size_t)((value_key(r) * 0x9E3779B97F4A7C15ULL) >> 32) & mask;

	while (tree->slot[pos] && tree->r[tree->slot[pos] - 1] != r)
		pos = (pos + 1) & mask;
	return &tree->slot[pos];
}

/* the tree's arrays for m paths: on the stack, or one block */
static void *wcmp_tree_init(struct wcmp_tree *tree, size_t m, struct wcmp_tree_stack *stack)
{
	size_t leaves = 1;
	void *block;

	while (leaves < m)
		leaves *= 2;
	tree->leaves = leaves;
	if (leaves <= WCMP_STACK_PATHS) {
		tree->node = stack->node;
		tree->r = stack->r;
		tree->index = stack->index;
		tree->next = stack->next;
		tree->k = stack->k;
		tree->cap = stack->cap;
		tree->count = stack->count;
		tree->slot = stack->slot;
		return stack;
	}
	block = malloc(leaves * (sizeof(struct wcmp_node) + sizeof(double) + sizeof(size_t) +
				 sizeof(uint64_t) + 5 * sizeof(uint32_t)));
	if (!block)
		return NULL;
	tree->node = block;
	tree->r = (double *)(tree->node + leaves);
	tree->index = (size_t *)(tree->r + leaves);
	tree->next = (uint64_t *)(tree->index + leaves);
	tree->k = (uint32_t *)(tree->next + leaves);
	tree->cap = tree->k + leaves;
	tree->count = tree->cap + leaves;
	tree->slot = tree->count + leaves;
	return block;
}

static int wcmp_optimise(const double *bw, size_t n, size_t m, double bw_max,
			 const struct fare_wcmp_limits *lim, uint32_t *weights)
{
	struct wcmp_tree_stack stack;
	struct wcmp_tree tree;
	uint64_t total_max = lim->max_members;
	struct wcmp_best best = { 0 };
	int shift = -ilogb(bw_max), used = 0;
	size_t j = 0, paths = 0, i;
	uint32_t k_cap;
	void *storage;
	double r;

	storage = wcmp_tree_init(&tree, m, &stack);
	if (!storage)
		return -1;
	/* one leaf per bandwidth, in order of first appearance */
	memset(tree.slot, 0, 2 * tree.leaves * sizeof(*tree.slot));
	for (i = 0; i < n; i++) {
		uint32_t *slot;

		if (!wcmp_scaled(bw[i], shift, &r))
			continue;
		paths++;
		slot = leaf_slot(&tree, r);
		if (*slot) {
			tree.count[*slot - 1]++;
			continue;
		}
		*slot = (uint32_t)++j;
		tree.r[j - 1] = r;
		tree.index[j - 1] = i;
		tree.k[j - 1] = 1;
		tree.count[j - 1] = 1;
	}
	tree.m = j;
	if (total_max > (uint64_t)paths * lim->max_weight)
		total_max = (uint64_t)paths * lim->max_weight;
	if (total_max > FARE_WCMP_SEARCH_MAX_TOTAL)
		total_max = FARE_WCMP_SEARCH_MAX_TOTAL;
	/* a path never needs more units than the total */
	k_cap = lim->max_weight < total_max ? lim->max_weight : (uint32_t)total_max;
	for (i = 0; i < j; i++)
		tree.cap[i] = k_cap;
	tree_build(&tree);

	wcmp_scan(&tree, total_max, &best);
	wcmp_build(bw, n, shift, &best, k_cap, &tree, weights);
	for (i = 0; i < n; i++)
		used += weights[i] > 0;
	if (storage != &stack)
		free(storage);
	return used;
}

int fare_wcmp_weights(const double *bw, size_t n, const struct fare_wcmp_limits *lim,
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
	if (m == 0 || m > INT_MAX || lim->max_weight == 0 || lim->max_members == 0)
		return -1;

	/* WP-3: exact ratios are optimal (throughput 1) when they fit */
	if (all_equal && m <= lim->max_members) {
		for (i = 0; i < n; i++)
			weights[i] = bw[i] == 0 ? 0 : 1;
		return (int)m;
	}
	if (wcmp_exact_ratio(bw, n, lim, weights))
		return (int)m;
	return wcmp_optimise(bw, n, m, bw_max, lim, weights);
}

/* FNV-1a over the bandwidths' and limits' bytes, mixed; never 0 */
static uint64_t wcmp_memo_hash(const double *bw, size_t n, const struct fare_wcmp_limits *lim)
{
	const unsigned char *b = (const unsigned char *)bw;
	uint64_t h = 0xcbf29ce484222325ULL;
	size_t i;

	for (i = 0; i < n * sizeof(*bw); i++)
		h = (h ^ b[i]) * 0x100000001b3ULL;
	h = (h ^ lim->max_weight) * 0x100000001b3ULL;
	h = (h ^ lim->max_members) * 0x100000001b3ULL;
	/* the low bits pick the slot: mixed with the high ones (MurmurHash3's
	 * finalizer), as FNV leaves them to the bytes' low bits alone
	 */
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ULL;
	h ^= h >> 33;
	return h ? h : 1;
}

static bool wcmp_memo_match(const struct fare_wcmp_memo_entry *e, uint64_t h, const double *bw,
			    size_t n, const struct fare_wcmp_limits *lim)
{
	return e->hash == h && e->n == n && e->lim.max_weight == lim->max_weight &&
	       e->lim.max_members == lim->max_members && !memcmp(e->bw, bw, n * sizeof(*bw));
}

int fare_wcmp_weights_memo(struct fare_wcmp_memo *memo, const double *bw, size_t n,
			   const struct fare_wcmp_limits *lim, uint32_t *weights)
{
	struct fare_wcmp_memo_entry *e, *e2, *hit;
	uint64_t h;
	int result;

	if (!memo || !bw || !lim || !weights || n == 0 || n > FARE_WCMP_MEMO_PATHS)
		return fare_wcmp_weights(bw, n, lim, weights);
	/* two slots a vector may be in; a new one replaces the older */
	h = wcmp_memo_hash(bw, n, lim);
	e = &memo->slot[h & (FARE_WCMP_MEMO_SLOTS - 1)];
	e2 = &memo->slot[(h >> 32) & (FARE_WCMP_MEMO_SLOTS - 1)];
	hit = wcmp_memo_match(e, h, bw, n, lim)	   ? e
	      : wcmp_memo_match(e2, h, bw, n, lim) ? e2
						   : NULL;
	if (hit) {
		memo->hits++;
		hit->used = ++memo->clock;
		memcpy(weights, hit->weights, n * sizeof(*weights));
		return hit->result;
	}
	memo->misses++;
	result = fare_wcmp_weights(bw, n, lim, weights);
	if (result < 0)
		return result; /* not kept: memory may run out only this once */
	if (e2->used < e->used)
		e = e2;
	e->hash = h;
	e->used = ++memo->clock;
	e->n = (uint32_t)n;
	e->lim = *lim;
	e->result = result;
	memcpy(e->bw, bw, n * sizeof(*bw));
	memcpy(e->weights, weights, n * sizeof(*weights));
	return result;
}

double fare_wcmp_throughput(const double *bw, const uint32_t *weights, size_t n)
{
	double bw_max = 0, ratio_sum = 0, weight_sum = 0, worst = INFINITY;
	size_t i;

	if (!bw || !weights || n == 0)
		return NAN;
	for (i = 0; i < n; i++) {
		if (!isfinite(bw[i]) || bw[i] < 0)
			return NAN;
		bw_max = fmax(bw_max, bw[i]);
		weight_sum += weights[i];
	}
	if (bw_max == 0)
		return NAN;
	if (weight_sum == 0)
		return 0;
	for (i = 0; i < n; i++)
		ratio_sum += bw[i] / bw_max;
	for (i = 0; i < n; i++) {
		if (!weights[i])
			continue;
		if (bw[i] == 0)
			return 0; /* traffic sent where nothing goes through */
		/* (b_i/B) / (w_i/W), in a form that cannot overflow */
		worst = fmin(worst, bw[i] / bw_max * weight_sum / (ratio_sum * weights[i]));
	}
	return fmin(worst, 1.0); /* 1 at most: rounding only */
}

double fare_wcmp_max_error(const double *bw, const uint32_t *weights, size_t n)
{
	double bw_max = 0, ratio_sum = 0, weight_sum = 0, worst = 0;
	size_t i;

	if (!bw || !weights || n == 0)
		return NAN;
	for (i = 0; i < n; i++) {
		if (!isfinite(bw[i]) || bw[i] < 0)
			return NAN;
		bw_max = fmax(bw_max, bw[i]);
		weight_sum += weights[i];
	}
	if (bw_max == 0 || weight_sum == 0)
		return INFINITY;
	for (i = 0; i < n; i++)
		ratio_sum += bw[i] / bw_max;
	for (i = 0; i < n; i++) {
		double ratio = bw[i] / bw_max, error;

		if (bw[i] == 0) {
			if (weights[i])
				return INFINITY;
			continue;
		}
		/* |w_i/W - b_i/B| / (b_i/B), in a form that cannot overflow */
		error = weights[i] * ratio_sum / (weight_sum * ratio) - 1.0;
		worst = fmax(worst, fabs(error));
	}
	return worst;
}
