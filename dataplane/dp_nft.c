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
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <nftables/libnftables.h>

#include "fare_dpd.h"

#define DP_NFT_TABLE "inet fare_dp"

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
static void nft_idle_timeout(struct dp_buf *b, const struct dp_dest *d)
{
	if (d->mode != DP_PER_FLOW || !d->idle)
		return;
	dp_buf_printf(b,
		      "add ct timeout " DP_NFT_TABLE " fare_idle_%u { protocol udp; l3proto %s; "
		      "policy = { unreplied : %u, replied : %u }; }\n",
		      d->idx, d->family == AF_INET ? "ip" : "ip6", d->idle, d->idle);
}

int dp_nft_init(struct dp_nft *nft, const struct dp_config *cfg)
{
	struct dp_buf b = { 0 };
	int ret;

	/* add + delete: removes a table left behind, and never fails */
	dp_buf_printf(&b, "add table " DP_NFT_TABLE "\n");
	dp_buf_printf(&b, "delete table " DP_NFT_TABLE "\n");
	dp_buf_printf(&b, "add table " DP_NFT_TABLE "\n");
	dp_buf_printf(&b, "add chain " DP_NFT_TABLE
			  " out { type route hook output priority mangle; policy accept; }\n");
	dp_buf_printf(&b, "add chain " DP_NFT_TABLE
			  " pre { type filter hook prerouting priority mangle; policy accept; }\n");
	for (size_t i = 0; i < cfg->ndests; i++) {
		nft_idle_timeout(&b, &cfg->dests[i]);
		dp_buf_printf(&b, "add chain " DP_NFT_TABLE " d%zu\n", i);
		dp_buf_printf(&b, "add rule " DP_NFT_TABLE " out jump d%zu\n", i);
		dp_buf_printf(&b, "add rule " DP_NFT_TABLE " pre jump d%zu\n", i);
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
static void nft_member_chains(struct dp_buf *b, const struct dp_config *cfg,
			      const struct dp_dest *d, unsigned k)
{
	uint32_t m = dp_mark(cfg, d, k), keep = ~cfg->mark_mask;

	dp_buf_printf(b, "add chain " DP_NFT_TABLE " d%u_m%u\n", d->idx, k);
	dp_buf_printf(b, "flush chain " DP_NFT_TABLE " d%u_m%u\n", d->idx, k);
	dp_buf_printf(b, "add rule " DP_NFT_TABLE " d%u_m%u meta mark set meta mark & 0x%x | 0x%x\n",
		      d->idx, k, keep, m);
	if (d->mode != DP_PER_FLOW)
		return;
	dp_buf_printf(b, "add chain " DP_NFT_TABLE " d%u_p%u\n", d->idx, k);
	dp_buf_printf(b, "flush chain " DP_NFT_TABLE " d%u_p%u\n", d->idx, k);
	dp_buf_printf(b, "add rule " DP_NFT_TABLE " d%u_p%u ct mark set ct mark & 0x%x | 0x%x\n",
		      d->idx, k, keep, m);
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

int dp_nft_dest(struct dp_nft *nft, const struct dp_config *cfg, const struct dp_dest *d)
{
	struct dp_buf b = { 0 };
	bool any = false;
	int ret;

	dp_buf_printf(&b, "flush chain " DP_NFT_TABLE " d%u\n", d->idx);
	for (unsigned k = 0; k < FARE_DP_MEMBERS_MAX; k++)
		if (d->members[k].used) {
			nft_member_chains(&b, cfg, d, k);
			any = true;
		}
	if (d->mode == DP_PER_FLOW) {
		/*
		 * "ct mark & MASK == 0": an unreplied UDP flow stays in state
		 * new for each of its packets; only its first one is placed
		 * (and gets the idle timeout, while unconfirmed).
		 */
		if (d->nslots) {
			dp_buf_printf(&b, "add rule " DP_NFT_TABLE " d%u ", d->idx);
			nft_match(&b, d);
			dp_buf_printf(&b, "ct state new ct mark & 0x%x == 0 ", cfg->mark_mask);
			if (d->idle)
				dp_buf_printf(&b, "ct timeout set \"fare_idle_%u\" ", d->idx);
			nft_map(&b, d, 'p');
			dp_buf_printf(&b, "\n");
		}
		/* the flow's member (any member still carrying flows) to the packet */
		if (any) {
			bool first = true;

			dp_buf_printf(&b, "add rule " DP_NFT_TABLE " d%u ", d->idx);
			nft_match(&b, d);
			dp_buf_printf(&b, "ct mark & 0x%x vmap { ", cfg->mark_mask);
			for (unsigned k = 0; k < FARE_DP_MEMBERS_MAX; k++) {
				if (!d->members[k].used)
					continue;
				dp_buf_printf(&b, "%s0x%x : jump d%u_m%u", first ? "" : ", ",
					      dp_mark(cfg, d, k), d->idx, k);
				first = false;
			}
			dp_buf_printf(&b, " }\n");
		}
	} else if (d->nslots) {
		dp_buf_printf(&b, "add rule " DP_NFT_TABLE " d%u ", d->idx);
		nft_match(&b, d);
		nft_map(&b, d, 'm');
		dp_buf_printf(&b, "\n");
	}
	ret = nft_run(nft, &b, d->name);
	dp_buf_free(&b);
	return ret;
}

int dp_nft_fini(struct dp_nft *nft)
{
	struct dp_buf b = { 0 };
	int ret;

	dp_buf_printf(&b, "add table " DP_NFT_TABLE "\ndelete table " DP_NFT_TABLE "\n");
	ret = nft_run(nft, &b, "delete table inet fare_dp");
	dp_buf_free(&b);
	return ret;
}
