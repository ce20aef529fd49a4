// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests: QP plans for RDMA NICs, applied by the application (SUN-3,
 * SUN-4): the RoCEv2 source port <-> flow label convention
 * (dataplane/core/fare_dp_qp.c, against rdma-core's verbs.h when it is
 * there), the per-QP plan and the moves on a weight change, and the
 * mapping of members to RDMA devices, ports and GIDs through a fake sysfs
 * tree (dataplane/dp_rdma.c). Exact values throughout.
 */
#define _GNU_SOURCE /* nftw() */

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef HAVE_INFINIBAND_VERBS_H
#include <infiniband/verbs.h>
#endif

#include "fare_dp_app.h"
#include "fare_dp_qp.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static struct fare_dp_qp_plan plan;
static struct fare_dp_qp_move moves[FARE_DP_QPS_MAX];

/* --- source port <-> flow label ---------------------------------------- */

static void test_flow_label_sport(void **state)
{
	(void)state;
	assert_int_equal(fare_dp_flow_label_sport(0), 0xC000);
	assert_int_equal(fare_dp_flow_label_sport(1), 0xC001);
	assert_int_equal(fare_dp_flow_label_sport(0x4001), 0xC000);
	/* low 14 bits 0x3FFF XOR high 6 bits 0x3F */
	assert_int_equal(fare_dp_flow_label_sport(0xFFFFF), 0xFFC0);
	assert_int_equal(fare_dp_sport_flow_label(0xC000), 0x4001);
	assert_int_equal(fare_dp_sport_flow_label(0xC001), 1);
	assert_int_equal(fare_dp_sport_flow_label(0xFFFF), 0x3FFF);
	/* below 0xC000 no flow label gives the port */
	assert_int_equal(fare_dp_sport_flow_label(0xBFFF), 0);
	assert_int_equal(fare_dp_sport_flow_label(4791), 0);
	/* every RoCE port: a non-zero 20-bit label that gives it back */
	for (uint32_t p = 0xC000; p <= 0xFFFF; p++) {
		uint32_t fl = fare_dp_sport_flow_label((uint16_t)p);

		assert_true(fl != 0 && fl <= FARE_DP_FLOW_LABEL_MASK);
		assert_int_equal(fare_dp_flow_label_sport(fl), p);
	}
}

/* the same convention as rdma-core 44's ibv_flow_label_to_udp_sport() */
static void test_flow_label_verbs(void **state)
{
	(void)state;
#ifdef HAVE_INFINIBAND_VERBS_H
	for (uint32_t fl = 0; fl <= IB_GRH_FLOWLABEL_MASK; fl++)
		assert_int_equal(fare_dp_flow_label_sport(fl), ibv_flow_label_to_udp_sport(fl));
	assert_int_equal(FARE_DP_ROCE_SPORT_MIN, IB_ROCE_UDP_ENCAP_VALID_PORT_MIN);
#else
	skip();
#endif
}

/* --- the per-QP plan (SUN-3) ------------------------------------------- */

static void assert_plan(const uint8_t *members, const uint16_t *sports, const uint32_t *labels,
			uint32_t qps)
{
	assert_int_equal(plan.qps, qps);
	for (uint32_t i = 0; i < qps; i++) {
		assert_int_equal(plan.qp[i].member, members[i]);
		assert_int_equal(plan.qp[i].sport, sports[i]);
		assert_int_equal(plan.qp[i].flow_label, labels[i]);
	}
}

static void assert_counts(const uint32_t *expected, size_t n)
{
	for (size_t k = 0; k < n; k++)
		assert_int_equal(plan.per_member[k], expected[k]);
}

/* 4 equal planes, 8 QPs: 2 each, interleaved, consecutive ports */
static void test_plan_equal(void **state)
{
	const uint32_t w[4] = { 1, 1, 1, 1 };

	(void)state;
	assert_int_equal(fare_dp_qp_plan(w, 4, 8, 0xC000, &plan), 8);
	assert_counts((const uint32_t[]){ 2, 2, 2, 2 }, 4);
	assert_plan((const uint8_t[]){ 0, 1, 2, 3, 0, 1, 2, 3 },
		    (const uint16_t[]){ 0xC000, 0xC001, 0xC002, 0xC003, 0xC004, 0xC005, 0xC006,
					0xC007 },
		    (const uint32_t[]){ 0x4001, 1, 2, 3, 4, 5, 6, 7 }, 8);
	assert_int_equal(plan.next_port, 0xC008);
}

/* largest remainder: 2:1 over 3 QPs is 2 and 1, opened 0, 1, 0 */
static void test_plan_order(void **state)
{
	(void)state;
	assert_int_equal(fare_dp_qp_plan((const uint32_t[]){ 2, 1 }, 2, 3, 50000, &plan), 3);
	assert_counts((const uint32_t[]){ 2, 1 }, 2);
	assert_plan((const uint8_t[]){ 0, 1, 0 }, (const uint16_t[]){ 50000, 50001, 50002 },
		    (const uint32_t[]){ 50000 & 0x3FFF, 50001 & 0x3FFF, 50002 & 0x3FFF }, 3);
	/* 2:2:2:1 over 16: 16*2/7 = 4.57, 16/7 = 2.29; the two left to 0 and 1 */
	assert_int_equal(fare_dp_qp_plan((const uint32_t[]){ 2, 2, 2, 1 }, 4, 16, 0xC000, &plan),
			 16);
	assert_counts((const uint32_t[]){ 5, 5, 4, 2 }, 4);
}

/* qps 0: the smallest exact plan, a whole turn of the slot map */
static void test_plan_minimum(void **state)
{
	(void)state;
	assert_int_equal(fare_dp_qp_plan((const uint32_t[]){ 2, 2, 2, 2, 2, 2, 1, 1 }, 8, 0, 0xC000,
					 &plan),
			 14);
	assert_counts((const uint32_t[]){ 2, 2, 2, 2, 2, 2, 1, 1 }, 8);
	assert_int_equal(fare_dp_qp_plan((const uint32_t[]){ 3, 3, 3, 3 }, 4, 0, 0xC000, &plan), 4);
}

static void test_plan_limits(void **state)
{
	const uint32_t w[2] = { 1, 1 };

	(void)state;
	assert_int_equal(fare_dp_qp_plan((const uint32_t[]){ 0, 0 }, 2, 4, 0xC000, &plan), 0);
	assert_int_equal(plan.qps, 0);
	assert_int_equal(fare_dp_qp_plan(w, 2, FARE_DP_QPS_MAX + 1, 0xC000, &plan), 0);
	assert_int_equal(fare_dp_qp_plan(w, 2, 2, 65535, &plan), 0);
	assert_int_equal(fare_dp_qp_plan(w, 2, 2, 65534, &plan), 2);
	assert_int_equal(plan.qp[1].sport, 65535);
	assert_int_equal(plan.next_port, 65536);
	assert_int_equal(fare_dp_qp_plan(w, FARE_DP_MEMBERS_MAX + 1, 2, 0xC000, &plan), 0);
}

/* --- moves on a weight change (SUN-4) ---------------------------------- */

static void assert_move(const struct fare_dp_qp_move *mv, uint32_t qp, uint8_t from, uint8_t to,
			uint16_t sport, enum fare_dp_qp_action action)
{
	assert_int_equal(mv->qp, qp);
	assert_int_equal(mv->from, from);
	assert_int_equal(mv->to, to);
	assert_int_equal(mv->sport, sport);
	assert_int_equal(mv->flow_label, fare_dp_sport_flow_label(sport));
	assert_int_equal(mv->action, action);
	assert_int_equal(plan.qp[qp].member, to);
	assert_int_equal(plan.qp[qp].sport, sport);
}

/*
 * 4 planes, 16 QPs (QP i on plane i % 4). Plane 3 fails: its 4 QPs move,
 * none other; target 6:5:5:0, the deficits filled largest first. It comes
 * back: at once, 4 QPs return from the members above 4; next burst: none.
 */
static void test_replan_plane_fails(void **state)
{
	const uint32_t up[4] = { 1, 1, 1, 1 }, down[4] = { 1, 1, 1, 0 };

	(void)state;
	fare_dp_qp_plan(up, 4, 16, 0xC000, &plan);
	assert_int_equal(fare_dp_qp_replan(&plan, down, 4, NULL, FARE_DP_RECOVER_AT_ONCE, moves), 4);
	assert_move(&moves[0], 3, 3, 0, 0xC003, FARE_DP_QP_MOVE);
	assert_move(&moves[1], 7, 3, 0, 0xC007, FARE_DP_QP_MOVE);
	assert_move(&moves[2], 11, 3, 1, 0xC00B, FARE_DP_QP_MOVE);
	assert_move(&moves[3], 15, 3, 2, 0xC00F, FARE_DP_QP_MOVE);
	assert_counts((const uint32_t[]){ 6, 5, 5, 0 }, 4);
	/* the same weights again: nothing */
	assert_int_equal(fare_dp_qp_replan(&plan, down, 4, NULL, FARE_DP_RECOVER_AT_ONCE, moves), 0);

	/* back at once: member 0 gives its two last QPs (8, 12), 1 and 2 one */
	assert_int_equal(fare_dp_qp_replan(&plan, up, 4, NULL, FARE_DP_RECOVER_AT_ONCE, moves), 4);
	assert_move(&moves[0], 8, 0, 3, 0xC008, FARE_DP_QP_MOVE);
	assert_move(&moves[1], 12, 0, 3, 0xC00C, FARE_DP_QP_MOVE);
	assert_move(&moves[2], 13, 1, 3, 0xC00D, FARE_DP_QP_MOVE);
	assert_move(&moves[3], 15, 2, 3, 0xC00F, FARE_DP_QP_MOVE);
	assert_counts((const uint32_t[]){ 4, 4, 4, 4 }, 4);

	/* next burst: the plane comes back, nothing moves */
	fare_dp_qp_plan(up, 4, 16, 0xC000, &plan);
	fare_dp_qp_replan(&plan, down, 4, NULL, FARE_DP_RECOVER_NEXT_BURST, moves);
	assert_int_equal(fare_dp_qp_replan(&plan, up, 4, NULL, FARE_DP_RECOVER_NEXT_BURST, moves),
			 0);
	assert_counts((const uint32_t[]){ 6, 5, 5, 0 }, 4);
	assert_int_equal(plan.weights[3], 1);

	/* every weight 0: nothing moves, the plan keeps its weights */
	assert_int_equal(fare_dp_qp_replan(&plan, (const uint32_t[]){ 0, 0, 0, 0 }, 4, NULL,
					   FARE_DP_RECOVER_AT_ONCE, moves),
			 0);
	assert_int_equal(plan.weights[0], 1);
}

/*
 * 8 members (2 sub-ports x 4 planes), 64 QPs; one sub-port of plane 4
 * halves both its members (2:2:2:2:2:2:1:1): target 9 x 6, 5 x 2, so
 * members 6 and 7 release 3 each (their last: 46, 54, 62 and 47, 55, 63),
 * one to each of members 0..5.
 */
static void test_replan_half(void **state)
{
	const uint32_t full[8] = { 2, 2, 2, 2, 2, 2, 2, 2 };
	const uint32_t half[8] = { 2, 2, 2, 2, 2, 2, 1, 1 };
	const uint32_t qps[6] = { 46, 47, 54, 55, 62, 63 };

	(void)state;
	fare_dp_qp_plan(full, 8, 64, 0xC000, &plan);
	assert_int_equal(fare_dp_qp_replan(&plan, half, 8, NULL, FARE_DP_RECOVER_AT_ONCE, moves), 6);
	for (uint32_t j = 0; j < 6; j++)
		assert_move(&moves[j], qps[j], (uint8_t)(6 + j % 2), (uint8_t)j,
			    (uint16_t)(0xC000 + qps[j]), FARE_DP_QP_MOVE);
	assert_counts((const uint32_t[]){ 9, 9, 9, 9, 9, 9, 5, 5 }, 8);
}

/*
 * Two members on one RDMA device and port (path 0, 0): the NIC cannot
 * choose between them, the QPs are re-ported with fresh source ports.
 */
static void test_replan_report(void **state)
{
	const uint32_t path[2] = { 0, 0 };

	(void)state;
	fare_dp_qp_plan((const uint32_t[]){ 1, 1 }, 2, 4, 0xC000, &plan);
	assert_int_equal(fare_dp_qp_replan(&plan, (const uint32_t[]){ 1, 0 }, 2, path,
					   FARE_DP_RECOVER_AT_ONCE, moves),
			 2);
	assert_move(&moves[0], 1, 1, 0, 0xC004, FARE_DP_QP_REPORT);
	assert_move(&moves[1], 3, 1, 0, 0xC005, FARE_DP_QP_REPORT);
	assert_int_equal(plan.next_port, 0xC006);
	/* no port left: the QP keeps its own */
	fare_dp_qp_plan((const uint32_t[]){ 1, 1 }, 2, 2, 65534, &plan);
	assert_int_equal(fare_dp_qp_replan(&plan, (const uint32_t[]){ 1, 0 }, 2, path,
					   FARE_DP_RECOVER_AT_ONCE, moves),
			 1);
	assert_move(&moves[0], 1, 1, 0, 65535, FARE_DP_QP_REPORT);
}

/* a new member (appended, old weight 0) takes its share at once */
static void test_replan_new_member(void **state)
{
	(void)state;
	fare_dp_qp_plan((const uint32_t[]){ 1, 1 }, 2, 4, 0xC000, &plan);
	assert_int_equal(fare_dp_qp_replan(&plan, (const uint32_t[]){ 1, 1, 1 }, 3, NULL,
					   FARE_DP_RECOVER_AT_ONCE, moves),
			 1);
	assert_move(&moves[0], 3, 1, 2, 0xC003, FARE_DP_QP_MOVE);
	assert_int_equal(plan.members, 3);
	assert_counts((const uint32_t[]){ 2, 1, 1 }, 3);
	/* fewer members than the plan has: refused */
	assert_int_equal(fare_dp_qp_replan(&plan, (const uint32_t[]){ 1, 1 }, 2, NULL,
					   FARE_DP_RECOVER_AT_ONCE, moves),
			 0);
	assert_int_equal(plan.members, 3);
}

/* --- members to RDMA devices through a fake sysfs tree ------------------ */

static char root[PATH_MAX];

static void put(const char *rel, const char *content)
{
	char path[PATH_MAX * 2], *slash;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	for (slash = strchr(path + strlen(root) + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		mkdir(path, 0755);
		*slash = '/';
	}
	if (!content) {
		mkdir(path, 0755);
		return;
	}
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "%s\n", content);
	fclose(f);
}

static void gid(const char *dev, int port, int idx, const char *ndev, const char *type,
		const char *g)
{
	char rel[256];

	snprintf(rel, sizeof(rel), "class/infiniband/%s/ports/%d/gids/%d", dev, port, idx);
	put(rel, g);
	snprintf(rel, sizeof(rel), "class/infiniband/%s/ports/%d/gid_attrs/types/%d", dev, port,
		 idx);
	put(rel, type);
	snprintf(rel, sizeof(rel), "class/infiniband/%s/ports/%d/gid_attrs/ndevs/%d", dev, port,
		 idx);
	put(rel, ndev);
}

#define V4_GID(x) "0000:0000:0000:0000:0000:ffff:" x
#define LL_GID	  "fe80:0000:0000:0000:0202:c9ff:fe00:0001"
#define G6_GID	  "fd00:0000:0000:0001:0000:0000:0000:0001"

/*
 * mlx5_0 port 1 on eth0: RoCE v1 and v2 GIDs, link-local, IPv4-mapped and
 * global; mlx5_1 port 1 on eth1 (IPv4 at index 3), with a port 10 sorted
 * after port 2; rxe0 (Soft-RoCE) on s1-p3, found without a class/net link;
 * eth2 has no RDMA device.
 */
static int sysfs_setup(void **state)
{
	(void)state;
	snprintf(root, sizeof(root), "/tmp/fare-sysfs-XXXXXX");
	if (!mkdtemp(root))
		return -1;
	gid("mlx5_0", 1, 0, "eth0", "IB/RoCE v1", LL_GID);
	gid("mlx5_0", 1, 1, "eth0", "RoCE v2", LL_GID);
	gid("mlx5_0", 1, 2, "eth0", "IB/RoCE v1", V4_GID("0a00:0101"));
	gid("mlx5_0", 1, 3, "eth0", "RoCE v2", V4_GID("0a00:0101"));
	gid("mlx5_0", 1, 4, "eth0", "RoCE v2", G6_GID);
	put("class/net/eth0/device/infiniband/mlx5_0", NULL);
	gid("mlx5_1", 1, 1, "eth1", "RoCE v2", LL_GID);
	gid("mlx5_1", 1, 3, "eth1", "RoCE v2", V4_GID("0a00:0201"));
	gid("mlx5_1", 10, 3, "eth1", "RoCE v2", V4_GID("0a00:0202"));
	put("class/net/eth1/device/infiniband/mlx5_1", NULL);
	/* an empty GID entry: no ndev file */
	put("class/infiniband/mlx5_1/ports/1/gids/5", "0000:0000:0000:0000:0000:0000:0000:0000");
	put("class/infiniband/mlx5_1/ports/1/gid_attrs/types/5", "RoCE v2");
	gid("rxe0", 1, 0, "s1-p3", "RoCE v2", LL_GID);
	gid("rxe0", 1, 1, "s1-p3", "RoCE v2", V4_GID("0a00:0301"));
	put("class/net/eth2/device", NULL);
	return 0;
}

static int rm_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static int sysfs_teardown(void **state)
{
	(void)state;
	return nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static void assert_port(const char *ifname, int family, const char *dev, int port, int idx,
			const char *g)
{
	struct fare_dp_rdma_port p;

	assert_int_equal(fare_dp_rdma_port_of(root, ifname, family, &p), 0);
	assert_string_equal(p.dev, dev);
	assert_int_equal(p.port, port);
	assert_int_equal(p.gid_index, idx);
	assert_string_equal(p.gid, g);
}

static void test_sysfs_map(void **state)
{
	struct fare_dp_rdma_port p;

	(void)state;
	assert_port("eth0", AF_INET, "mlx5_0", 1, 3, V4_GID("0a00:0101"));
	assert_port("eth0", AF_INET6, "mlx5_0", 1, 4, G6_GID);
	assert_port("eth1", AF_INET, "mlx5_1", 1, 3, V4_GID("0a00:0201"));
	/* only a link-local RoCE v2 GID for IPv6 */
	assert_port("eth1", AF_INET6, "mlx5_1", 1, 1, LL_GID);
	assert_port("s1-p3", AF_INET, "rxe0", 1, 1, V4_GID("0a00:0301"));
	errno = 0;
	assert_int_equal(fare_dp_rdma_port_of(root, "eth2", AF_INET, &p), -1);
	assert_int_equal(errno, ENOENT);
	assert_string_equal(p.dev, "");
	assert_int_equal(p.gid_index, -1);
	/* the real /sys of this machine has no RDMA device */
	assert_int_equal(fare_dp_rdma_port_of("/nonexistent", "eth0", AF_INET, &p), -1);
}

/*
 * The application's plan from the kernel's members: eth2 has no RDMA
 * device and gets no QP; 1:1:0:2 over the minimum, 4 QPs, opened on
 * rxe0, mlx5_0, mlx5_1, rxe0. eth1 leaves the group: its QP moves to
 * s1-p3 (another device: MOVE), 1:0:0:3.
 */
static void test_app_plan(void **state)
{
	static struct fare_dp_app_rdma_plan ap;
	struct fare_dp_app_member m[4] = {
		{ "eth0", "10.0.1.2", 1 },
		{ "eth1", "10.0.2.2", 1 },
		{ "eth2", "10.0.3.2", 1 },
		{ "s1-p3", "", 2 },
	};
	const char *devs[4] = { "rxe0", "mlx5_0", "mlx5_1", "rxe0" };
	const uint8_t members[4] = { 3, 0, 1, 3 };

	(void)state;
	assert_int_equal(fare_dp_app_rdma_plan_members(m, 4, AF_INET, 0, 0xC000, root, &ap), 0);
	assert_int_equal(ap.qp.qps, 4);
	assert_int_equal(ap.qp.weights[2], 0);
	assert_string_equal(ap.member[2].rdma.dev, "");
	for (uint32_t i = 0; i < 4; i++) {
		assert_int_equal(ap.qp.qp[i].member, members[i]);
		assert_string_equal(ap.member[ap.qp.qp[i].member].rdma.dev, devs[i]);
		assert_int_equal(ap.qp.qp[i].sport, 0xC000 + i);
	}
	assert_int_equal(ap.member[0].rdma.gid_index, 3);

	/* eth1 gone, the others in another order */
	m[1] = m[3];
	m[3] = (struct fare_dp_app_member){ "eth0", "10.0.1.2", 1 };
	assert_int_equal(fare_dp_app_rdma_replan_members(&ap, &m[1], 3, FARE_DP_RECOVER_AT_ONCE,
							 moves),
			 1);
	assert_int_equal(moves[0].qp, 2);
	assert_int_equal(moves[0].from, 1);
	assert_int_equal(moves[0].to, 3);
	assert_int_equal(moves[0].action, FARE_DP_QP_MOVE);
	assert_int_equal(moves[0].sport, 0xC002);
	assert_int_equal(ap.qp.members, 4);
	assert_int_equal(ap.member[1].weight, 0);
	assert_int_equal(ap.qp.per_member[0], 1);
	assert_int_equal(ap.qp.per_member[1], 0);
	assert_int_equal(ap.qp.per_member[3], 3);

	/* no member with an RDMA device */
	errno = 0;
	assert_int_equal(fare_dp_app_rdma_plan_members(&m[2], 1, AF_INET, 0, 0xC000, root, &ap), -1);
	assert_int_equal(errno, ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_flow_label_sport),   cmocka_unit_test(test_flow_label_verbs),
		cmocka_unit_test(test_plan_equal),	   cmocka_unit_test(test_plan_order),
		cmocka_unit_test(test_plan_minimum),	   cmocka_unit_test(test_plan_limits),
		cmocka_unit_test(test_replan_plane_fails), cmocka_unit_test(test_replan_half),
		cmocka_unit_test(test_replan_report),	   cmocka_unit_test(test_replan_new_member),
		cmocka_unit_test(test_sysfs_map),	   cmocka_unit_test(test_app_plan),
	};

	return cmocka_run_group_tests(tests, sysfs_setup, sysfs_teardown);
}
