// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fare-dpd: the agent's own nftables table, inet fare_dp, through
 * libnftables. Chains out (route, output) and pre (filter, prerouting)
 * jump to one chain per destination, d<index>, which is rewritten as one
 * atomic batch (flush chain + rules) on each change of its mapping: that
 * also resets its numgen counter.
 *
 * Good citizen on a shared host: marks are set within mark-mask only
 * ("meta mark set meta mark & ~MASK | M", through one small chain per
 * member: nft 1.0.6 cannot combine two registers), so other tools' bits
 * stay; idle expiry is a ct timeout object per per-flow destination
 * (fare_idle_<d>), set on each flow the agent places, not the namespace's
 * UDP timeouts.
 *
 * The table is owned by the agent (flags owner, Linux 5.12+): the kernel
 * deletes it with the agent's netlink socket, so when the agent dies the
 * packets get no mark and the kernel's own ECMP carries them (fail open).
 * For a planned restart the agent leaves table inet fare_dp_keep, not
 * owned, a copy of the destinations' chains that matches only until a
 * deadline (meta time); the next instance deletes it once its own table
 * is programmed (dataplane/DESIGN.md, "Restart, crash, failures").
 * Table inet fare_dp_ct, not owned, keeps conntrack on in the namespace
 * (a ct rule that only counts) so that the flows' marks outlive a crash.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include <nftables/libnftables.h>

#include "fare_dpd.h"

#define DP_NFT_TABLE "inet fare_dp"
#define DP_NFT_KEEP  "inet fare_dp_keep"
#define DP_NFT_CT    "inet fare_dp_ct"

struct dp_nft {
	struct nft_ctx *ctx;
};

static int nft_run(struct dp_nft *nft, const struct dp_buf *b, const char *what)
{
	const char *err;
	int ret;

	if (b->oom) {
		dp_log(3, "nft: %s: out of memory", what);
		return -ENOMEM;
	}
	dp_dbg("nft batch (%s):\n%s", what, b->s);
	ret = nft_run_cmd_from_buffer(nft->ctx, b->s);
	err = nft_ctx_get_error_buffer(nft->ctx);
	if (ret != 0) {
		dp_log(3, "nft: %s failed: %s", what, err && *err ? err : "(no message)");
		return -EIO;
	}
	return 0;
}

struct dp_nft *dp_nft_open(void)
{
	struct dp_nft *nft = calloc(1, sizeof(*nft));

	if (!nft)
		return NULL;
	nft->ctx = nft_ctx_new(NFT_CTX_DEFAULT);
	if (!nft->ctx) {
		free(nft);
		return NULL;
	}
	nft_ctx_buffer_output(nft->ctx);
	nft_ctx_buffer_error(nft->ctx);
	return nft;
}

void dp_nft_close(struct dp_nft *nft)
{
	if (!nft)
		return;
	nft_ctx_free(nft->ctx);
	free(nft);
}

/* The per-flow destination's idle: a ct timeout object for its UDP flows. */
static void nft_idle_timeout(struct dp_buf *b, const char *table, const struct dp_dest *d)
{
	if (d->mode != DP_PER_FLOW || !d->idle)
		return;
	dp_buf_printf(b,
		      "add ct timeout %s fare_idle_%u { protocol udp; l3proto %s; "
		      "policy = { unreplied : %u, replied : %u }; }\n",
		      table, d->idx, d->family == AF_INET ? "ip" : "ip6", d->idle, d->idle);
}

/* Chains out (route, output) and pre (filter, prerouting) of table `table`. */
static void nft_hook_chains(struct dp_buf *b, const char *table)
{
	dp_buf_printf(b,
		      "add chain %s out { type route hook output priority mangle; policy accept; }\n",
		      table);
	dp_buf_printf(b,
		      "add chain %s pre { type filter hook prerouting priority mangle; policy accept; }\n",
		      table);
}

int dp_nft_init(struct dp_nft *nft, const struct dp_config *cfg)
{
	struct dp_buf b = { 0 };
	int ret;

	/*
	 * add + delete: removes a table left behind (by a version without
	 * the owner flag), and never fails; owned by this process
	 */
	dp_buf_printf(&b, "add table " DP_NFT_TABLE "\n");
	dp_buf_printf(&b, "delete table " DP_NFT_TABLE "\n");
	dp_buf_printf(&b, "add table " DP_NFT_TABLE " { flags owner; }\n");
	nft_hook_chains(&b, DP_NFT_TABLE);
	for (size_t i = 0; i < cfg->ndests; i++) {
		nft_idle_timeout(&b, DP_NFT_TABLE, &cfg->dests[i]);
		dp_buf_printf(&b, "add chain " DP_NFT_TABLE " d%zu\n", i);
		dp_buf_printf(&b, "add rule " DP_NFT_TABLE " out jump d%zu\n", i);
		dp_buf_printf(&b, "add rule " DP_NFT_TABLE " pre jump d%zu\n", i);
	}
	/*
	 * Per-flow: conntrack stays on in the namespace when the owned table
	 * goes (a crash), so the flows' entries and marks live on for the
	 * next instance; it only counts, marks nothing (the kernel's ECMP).
	 */
	for (size_t i = 0; i < cfg->ndests; i++) {
		if (cfg->dests[i].mode != DP_PER_FLOW)
			continue;
		dp_buf_printf(&b, "add table " DP_NFT_CT "\n");
		dp_buf_printf(&b, "delete table " DP_NFT_CT "\n");
		dp_buf_printf(&b, "add table " DP_NFT_CT "\n");
		dp_buf_printf(&b, "add chain " DP_NFT_CT " out { type filter hook output priority "
				  "mangle; policy accept; }\n");
		dp_buf_printf(&b, "add chain " DP_NFT_CT " pre { type filter hook prerouting "
				  "priority mangle; policy accept; }\n");
		dp_buf_printf(&b, "add rule " DP_NFT_CT " out ct mark & 0x%x != 0 counter\n",
			      cfg->mark_mask);
		dp_buf_printf(&b, "add rule " DP_NFT_CT " pre ct mark & 0x%x != 0 counter\n",
			      cfg->mark_mask);
		break;
	}
	ret = nft_run(nft, &b, "table inet fare_dp");
	dp_buf_free(&b);
	return ret;
}

static void nft_match(struct dp_buf *b, const struct dp_dest *d)
{
	char addr[DP_NAME_LEN];
	bool host = d->plen == (d->family == AF_INET ? 32 : 128);

	dp_prefix_format(d->family, d->addr, d->plen, addr, sizeof(addr));
	if (host)
		*strchr(addr, '/') = '\0';
	dp_buf_printf(b, "%s daddr %s ", d->family == AF_INET ? "ip" : "ip6", addr);
	if (d->udp_port)
		dp_buf_printf(b, "udp dport %u ", d->udp_port);
}

/*
 * Member k's chains: d<d>_m<k> sets the packet's mark bits, d<d>_p<k> the
 * flow's (per-flow), each within the mask only.
 */
static void nft_member_chains(struct dp_buf *b, const char *table, const struct dp_config *cfg,
			      const struct dp_dest *d, unsigned k)
{
	uint32_t m = dp_mark(cfg, d, k), keep = ~cfg->mark_mask;

	dp_buf_printf(b, "add chain %s d%u_m%u\n", table, d->idx, k);
	dp_buf_printf(b, "flush chain %s d%u_m%u\n", table, d->idx, k);
	dp_buf_printf(b, "add rule %s d%u_m%u meta mark set meta mark & 0x%x | 0x%x\n", table,
		      d->idx, k, keep, m);
	if (d->mode != DP_PER_FLOW)
		return;
	dp_buf_printf(b, "add chain %s d%u_p%u\n", table, d->idx, k);
	dp_buf_printf(b, "flush chain %s d%u_p%u\n", table, d->idx, k);
	dp_buf_printf(b, "add rule %s d%u_p%u ct mark set ct mark & 0x%x | 0x%x\n", table, d->idx,
		      k, keep, m);
}

/* numgen over the slot map, each slot jumping to its member's chain (p or m) */
static void nft_map(struct dp_buf *b, const struct dp_dest *d, char chain)
{
	dp_buf_printf(b, "numgen inc mod %zu vmap { ", d->nslots);
	for (size_t s = 0; s < d->nslots; s++)
		dp_buf_printf(b, "%s%zu : jump d%u_%c%u", s ? ", " : "", s, d->idx, chain,
			      d->slots[s]);
	dp_buf_printf(b, " }");
}

/* The rules of destination d's chain d<index> in table `table`, and its members' chains. */
static void nft_dest_rules(struct dp_buf *b, const char *table, const struct dp_config *cfg,
			   const struct dp_dest *d)
{
	bool any = false;

	for (unsigned k = 0; k < FARE_DP_MEMBERS_MAX; k++)
		if (d->members[k].used) {
			nft_member_chains(b, table, cfg, d, k);
			any = true;
		}
	if (d->mode == DP_PER_FLOW) {
		/*
		 * "ct mark & MASK == 0": an unreplied UDP flow stays in state
		 * new for each of its packets; only its first one is placed
		 * (and gets the idle timeout, while unconfirmed).
		 */
		if (d->nslots) {
			dp_buf_printf(b, "add rule %s d%u ", table, d->idx);
			nft_match(b, d);
			dp_buf_printf(b, "ct state new ct mark & 0x%x == 0 ", cfg->mark_mask);
			if (d->idle)
				dp_buf_printf(b, "ct timeout set \"fare_idle_%u\" ", d->idx);
			nft_map(b, d, 'p');
			dp_buf_printf(b, "\n");
		}
		/* the flow's member (any member still carrying flows) to the packet */
		if (any) {
			bool first = true;

			dp_buf_printf(b, "add rule %s d%u ", table, d->idx);
			nft_match(b, d);
			dp_buf_printf(b, "ct mark & 0x%x vmap { ", cfg->mark_mask);
			for (unsigned k = 0; k < FARE_DP_MEMBERS_MAX; k++) {
				if (!d->members[k].used)
					continue;
				dp_buf_printf(b, "%s0x%x : jump d%u_m%u", first ? "" : ", ",
					      dp_mark(cfg, d, k), d->idx, k);
				first = false;
			}
			dp_buf_printf(b, " }\n");
		}
	} else if (d->nslots) {
		dp_buf_printf(b, "add rule %s d%u ", table, d->idx);
		nft_match(b, d);
		nft_map(b, d, 'm');
		dp_buf_printf(b, "\n");
	}
}

int dp_nft_dest(struct dp_nft *nft, const struct dp_config *cfg, const struct dp_dest *d)
{
	struct dp_buf b = { 0 };
	int ret;

	dp_buf_printf(&b, "flush chain " DP_NFT_TABLE " d%u\n", d->idx);
	nft_dest_rules(&b, DP_NFT_TABLE, cfg, d);
	ret = nft_run(nft, &b, d->name);
	dp_buf_free(&b);
	return ret;
}

int dp_nft_fini(struct dp_nft *nft)
{
	struct dp_buf b = { 0 };
	int ret;

	/* ours ("add table" without flags would try to clear its owner flag) */
	dp_buf_printf(&b, "delete table " DP_NFT_TABLE "\n");
	ret = nft_run(nft, &b, "delete table inet fare_dp");
	dp_buf_free(&b);
	memset(&b, 0, sizeof(b));
	dp_buf_printf(&b, "add table " DP_NFT_CT "\ndelete table " DP_NFT_CT "\n");
	if (nft_run(nft, &b, "delete table inet fare_dp_ct") < 0)
		ret = -EIO;
	dp_buf_free(&b);
	if (dp_nft_unkeep(nft) < 0)
		ret = -EIO;
	return ret;
}

int dp_nft_keep(struct dp_nft *nft, const struct dp_config *cfg, unsigned grace)
{
	struct dp_buf b = { 0 };
	long long until = (long long)time(NULL) + grace;
	int ret;

	dp_buf_printf(&b, "add table " DP_NFT_KEEP "\ndelete table " DP_NFT_KEEP "\n");
	dp_buf_printf(&b, "add table " DP_NFT_KEEP "\n");
	nft_hook_chains(&b, DP_NFT_KEEP);
	for (size_t i = 0; i < cfg->ndests; i++) {
		const struct dp_dest *d = &cfg->dests[i];

		if (!d->programmed)
			continue;
		nft_idle_timeout(&b, DP_NFT_KEEP, d);
		dp_buf_printf(&b, "add chain " DP_NFT_KEEP " d%zu\n", i);
		/* after the deadline the kernel's ECMP: nobody adopted the mapping */
		dp_buf_printf(&b, "add rule " DP_NFT_KEEP " out meta time < %lld jump d%zu\n",
			      until, i);
		dp_buf_printf(&b, "add rule " DP_NFT_KEEP " pre meta time < %lld jump d%zu\n",
			      until, i);
		nft_dest_rules(&b, DP_NFT_KEEP, cfg, d);
	}
	ret = nft_run(nft, &b, "hand-off table inet fare_dp_keep");
	dp_buf_free(&b);
	return ret;
}

int dp_nft_unkeep(struct dp_nft *nft)
{
	struct dp_buf b = { 0 };
	int had;

	had = nft_run_cmd_from_buffer(nft->ctx, "list table " DP_NFT_KEEP "\n") == 0;
	/* rewind the buffers */
	nft_ctx_get_output_buffer(nft->ctx);
	nft_ctx_get_error_buffer(nft->ctx);
	if (!had)
		return 0;
	dp_buf_printf(&b, "add table " DP_NFT_KEEP "\ndelete table " DP_NFT_KEEP "\n");
	if (nft_run(nft, &b, "delete table inet fare_dp_keep") < 0)
		had = -1;
	dp_buf_free(&b);
	return had;
}
