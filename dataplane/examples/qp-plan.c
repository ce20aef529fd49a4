// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * qp-plan: how an application uses libfaredp (fare_dp_app.h, SUN-3) with
 * fare-dpd. Prints the flows (QPs sent through the kernel: UDP sockets,
 * Soft-RoCE) to open towards DEST, one line per flow: its UDP source port
 * and the member (device) fare-dpd places it on. A hardware RDMA NIC's
 * QPs bypass fare-dpd: see rdma-qp-plan.c.
 *
 *   qp-plan DEST [QPS [FIRST_PORT]]
 *
 * Build: cc qp-plan.c -lfaredp -lmnl
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fare_dp_app.h"

int main(int argc, char **argv)
{
	static struct fare_dp_app_plan plan;
	unsigned long qps = 0, port = 49152;
	uint32_t i;

	if (argc < 2 || argc > 4) {
		fprintf(stderr, "usage: qp-plan DEST [QPS [FIRST_PORT]]\n");
		return 2;
	}
	if (argc > 2)
		qps = strtoul(argv[2], NULL, 0);
	if (argc > 3)
		port = strtoul(argv[3], NULL, 0);
	if (port > 65535 || fare_dp_app_plan(argv[1], (uint32_t)qps, (uint16_t)port, &plan) < 0) {
		fprintf(stderr, "qp-plan: %s: %s\n", argv[1],
			strerror(port > 65535 ? ERANGE : errno));
		return 1;
	}
	printf("qps %u\n", plan.qps);
	for (i = 0; i < plan.qps; i++)
		printf("%u %s\n", plan.first_port + i, plan.member[plan.qp_member[i]].ifname);
	return 0;
}
