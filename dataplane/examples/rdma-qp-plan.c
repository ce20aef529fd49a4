// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rdma-qp-plan: how an RDMA application on a hardware RoCE NIC applies
 * FARE's weights itself, per queue pair (fare_dp_app.h, SUN-3, SUN-4).
 * fare-dpd cannot do it for such a NIC: after QP setup the NIC sends
 * without the kernel.
 *
 * Prints the plan towards DEST, one line per QP: the member (netdev) and
 * the RDMA device, port and GID index to open the QP on, its RoCEv2 UDP
 * source port and a GRH flow label that gives that port. --create opens
 * the devices and creates the QPs (RC, moved to INIT; connecting them is
 * the application's). --watch N follows the kernel's nexthop group and
 * prints the QPs to move or re-port on each of the next N changes that
 * move any.
 *
 *   rdma-qp-plan [--sysfs ROOT] [--create] [--watch N] [--next-burst]
 *                DEST [QPS [FIRST_PORT]]
 *
 * Build: cc rdma-qp-plan.c -lfaredp-verbs -lfaredp -libverbs [-lmlx5] -lmnl
 * Not run on an RDMA NIC here (no RDMA in this machine's kernel).
 */
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fare_dp_verbs.h"

static struct fare_dp_app_rdma_plan plan;
static struct fare_dp_qp_move moves[FARE_DP_QPS_MAX];

static void print_qp(uint32_t i)
{
	const struct fare_dp_qp *q = &plan.qp.qp[i];
	const struct fare_dp_app_rdma_member *m = &plan.member[q->member];

	printf("qp %u member %s dev %s port %u gid_index %d sport %u flow_label 0x%05x\n", i,
	       m->ifname, m->rdma.dev, m->rdma.port, m->rdma.gid_index, q->sport, q->flow_label);
}

static int create_qps(void)
{
	struct {
		struct ibv_context *ctx;
		struct ibv_pd *pd;
		struct ibv_cq *cq;
	} dev[FARE_DP_MEMBERS_MAX] = { 0 };

	for (uint32_t i = 0; i < plan.qp.qps; i++) {
		uint8_t k = plan.qp.qp[i].member;
		struct ibv_qp *qp;

		if (!dev[k].ctx) {
			dev[k].ctx = fare_dp_verbs_open(plan.member[k].rdma.dev);
			dev[k].pd = dev[k].ctx ? ibv_alloc_pd(dev[k].ctx) : NULL;
			dev[k].cq = dev[k].pd ? ibv_create_cq(dev[k].ctx, 256, NULL, NULL, 0) : NULL;
			if (!dev[k].cq) {
				fprintf(stderr, "rdma-qp-plan: %s: %s\n", plan.member[k].rdma.dev,
					strerror(errno));
				return -1;
			}
		}
		qp = fare_dp_verbs_create_qp(&plan, i, dev[k].pd, dev[k].cq);
		if (!qp) {
			fprintf(stderr, "rdma-qp-plan: qp %u: %s\n", i, strerror(errno));
			return -1;
		}
		printf("created qp %u dev %s qpn %u\n", i, plan.member[k].rdma.dev, qp->qp_num);
		ibv_destroy_qp(qp); /* an example: the application keeps it */
	}
	for (size_t k = 0; k < FARE_DP_MEMBERS_MAX; k++) {
		if (dev[k].cq)
			ibv_destroy_cq(dev[k].cq);
		if (dev[k].pd)
			ibv_dealloc_pd(dev[k].pd);
		if (dev[k].ctx)
			ibv_close_device(dev[k].ctx);
	}
	return 0;
}

static int watch(unsigned long changes, enum fare_dp_recover recover)
{
	struct fare_dp_app_watch *w = fare_dp_app_watch_open();
	struct pollfd pfd;

	if (!w) {
		fprintf(stderr, "rdma-qp-plan: watch: %s\n", strerror(errno));
		return -1;
	}
	pfd.fd = fare_dp_app_watch_fd(w);
	pfd.events = POLLIN;
	printf("watching\n");
	fflush(stdout);
	while (changes) {
		int n;

		if (poll(&pfd, 1, -1) < 0 && errno != EINTR)
			break;
		if (fare_dp_app_watch_read(w) == 0)
			continue;
		n = fare_dp_app_rdma_replan(&plan, recover, moves);
		if (n <= 0)
			continue;
		changes--;
		printf("moves %d\n", n);
		for (int j = 0; j < n; j++) {
			const struct fare_dp_qp_move *mv = &moves[j];

			printf("%s qp %u %s -> %s dev %s sport %u flow_label 0x%05x\n",
			       mv->action == FARE_DP_QP_REPORT ? "re-port" : "move", mv->qp,
			       plan.member[mv->from].ifname, plan.member[mv->to].ifname,
			       plan.member[mv->to].rdma.dev, mv->sport, mv->flow_label);
		}
		printf("per-member");
		for (size_t k = 0; k < plan.qp.members; k++)
			printf(" %s:%u", plan.member[k].ifname, plan.qp.per_member[k]);
		printf("\n");
		fflush(stdout);
	}
	fare_dp_app_watch_close(w);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "sysfs", required_argument, NULL, 's' },
		{ "create", no_argument, NULL, 'c' },
		{ "watch", required_argument, NULL, 'w' },
		{ "next-burst", no_argument, NULL, 'n' },
		{ NULL, 0, NULL, 0 },
	};
	enum fare_dp_recover recover = FARE_DP_RECOVER_AT_ONCE;
	unsigned long qps = 0, port = FARE_DP_ROCE_SPORT_MIN, changes = 0;
	const char *sysfs = NULL;
	bool create = false;
	int c;

	while ((c = getopt_long(argc, argv, "s:cw:n", opts, NULL)) != -1)
		switch (c) {
		case 's':
			sysfs = optarg;
			break;
		case 'c':
			create = true;
			break;
		case 'w':
			changes = strtoul(optarg, NULL, 0);
			break;
		case 'n':
			recover = FARE_DP_RECOVER_NEXT_BURST;
			break;
		default:
			goto usage;
		}
	if (argc - optind < 1 || argc - optind > 3)
		goto usage;
	if (argc - optind > 1)
		qps = strtoul(argv[optind + 1], NULL, 0);
	if (argc - optind > 2)
		port = strtoul(argv[optind + 2], NULL, 0);
	if (port > 65535 || qps > FARE_DP_QPS_MAX ||
	    fare_dp_app_rdma_plan(argv[optind], (uint32_t)qps, (uint16_t)port, sysfs, &plan) < 0) {
		fprintf(stderr, "rdma-qp-plan: %s: %s\n", argv[optind],
			strerror(port > 65535 || qps > FARE_DP_QPS_MAX ? ERANGE : errno));
		for (size_t k = 0; k < plan.qp.members; k++)
			if (!plan.member[k].rdma.dev[0])
				fprintf(stderr, "rdma-qp-plan: %s: no RoCE v2 device\n",
					plan.member[k].ifname);
		return 1;
	}
	printf("qps %u\n", plan.qp.qps);
	for (size_t k = 0; k < plan.qp.members; k++)
		printf("member %s weight %u dev %s port %u gid_index %d qps %u\n",
		       plan.member[k].ifname, plan.member[k].weight,
		       plan.member[k].rdma.dev[0] ? plan.member[k].rdma.dev : "-",
		       plan.member[k].rdma.port, plan.member[k].rdma.gid_index,
		       plan.qp.per_member[k]);
	for (uint32_t i = 0; i < plan.qp.qps; i++)
		print_qp(i);
	printf("re-port of a live qp: %s\n",
	       fare_dp_verbs_can_set_sport() ? "mlx5dv_modify_qp_udp_sport" : "re-create");
	if (create && create_qps() < 0)
		return 1;
	if (changes && watch(changes, recover) < 0)
		return 1;
	return 0;
usage:
	fprintf(stderr, "usage: rdma-qp-plan [--sysfs ROOT] [--create] [--watch N] [--next-burst] "
			"DEST [QPS [FIRST_PORT]]\n");
	return 2;
}
