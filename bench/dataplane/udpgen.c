// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * UDP sender of scripts/bench.sh dataplane (not part of the test suite).
 *
 *   udpgen flood DST PORT FLOWS SECONDS [THREADS [PAYLOAD]]
 *     As fast as it can for SECONDS: THREADS threads (default 1), FLOWS
 *     connected UDP sockets in all (one source port each), sendmmsg in
 *     batches of 64, the next socket for each batch. Prints
 *     "sent N elapsed S cpu C" (S: seconds from the first to the last send;
 *     C: its CPU seconds, user+system, which hold the forwarding done in
 *     softirq on its way out unless the kernel accounts IRQ time apart).
 *
 *   udpgen flows DST PORT N [FIRST [RATE]]
 *     One packet for each of N distinct flows, through a raw socket:
 *     flow i (from FIRST, default 0) has source 10.1.0.(10 + i / 40000)
 *     and source port 10000 + i % 40000, so flows of several calls never
 *     coincide. RATE: flows per second (default 50000, 0: no pacing).
 *     Prints "sent N".
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/ip.h>
#include <netinet/udp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define BATCH 64

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

struct worker {
	pthread_t th;
	struct sockaddr_in dst;
	int nsocks;
	int *socks;
	size_t payload;
	double until;
	unsigned long long sent;
	double first, last;
};

static void *flood(void *arg)
{
	struct worker *w = arg;
	static char buf[1500];
	struct mmsghdr msgs[BATCH];
	struct iovec iov = { .iov_base = buf, .iov_len = w->payload };
	unsigned long long loops = 0;
	int s = 0;

	memset(msgs, 0, sizeof(msgs));
	for (int i = 0; i < BATCH; i++) {
		msgs[i].msg_hdr.msg_iov = &iov;
		msgs[i].msg_hdr.msg_iovlen = 1;
	}
	w->first = now();
	for (;;) {
		int n = sendmmsg(w->socks[s], msgs, BATCH, 0);

		if (n > 0)
			w->sent += (unsigned long long)n;
		else if (errno != ENOBUFS && errno != EAGAIN && errno != ECONNREFUSED &&
			 errno != EINTR) {
			perror("sendmmsg");
			break;
		}
		s = (s + 1) % w->nsocks;
		if ((++loops & 15) == 0 && now() >= w->until)
			break;
	}
	w->last = now();
	return NULL;
}

static int do_flood(int argc, char **argv)
{
	struct sockaddr_in dst = { .sin_family = AF_INET };
	int flows, threads = 1;
	double seconds, first = 0, last = 0;
	size_t payload = 64;
	struct worker *w;
	unsigned long long sent = 0;
	struct rusage ru;

	if (argc < 6)
		return 2;
	if (inet_pton(AF_INET, argv[2], &dst.sin_addr) != 1)
		return 2;
	dst.sin_port = htons((uint16_t)atoi(argv[3]));
	flows = atoi(argv[4]);
	seconds = atof(argv[5]);
	if (argc > 6)
		threads = atoi(argv[6]);
	if (argc > 7)
		payload = (size_t)atoi(argv[7]);
	if (flows < 1 || threads < 1 || threads > flows || seconds <= 0 || payload > 1400)
		return 2;
	w = calloc((size_t)threads, sizeof(*w));
	for (int t = 0; t < threads; t++) {
		w[t].dst = dst;
		w[t].payload = payload;
		w[t].nsocks = flows / threads + (t < flows % threads);
		w[t].socks = calloc((size_t)w[t].nsocks, sizeof(int));
		for (int i = 0; i < w[t].nsocks; i++) {
			int fd = socket(AF_INET, SOCK_DGRAM, 0);

			if (fd < 0 || connect(fd, (struct sockaddr *)&dst, sizeof(dst)) < 0) {
				perror("socket");
				return 1;
			}
			w[t].socks[i] = fd;
		}
	}
	for (int t = 0; t < threads; t++) {
		w[t].until = now() + seconds;
		pthread_create(&w[t].th, NULL, flood, &w[t]);
	}
	for (int t = 0; t < threads; t++) {
		pthread_join(w[t].th, NULL);
		sent += w[t].sent;
		if (!t || w[t].first < first)
			first = w[t].first;
		if (!t || w[t].last > last)
			last = w[t].last;
	}
	getrusage(RUSAGE_SELF, &ru);
	printf("sent %llu elapsed %.6f cpu %.6f\n", sent, last - first,
	       (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
		       (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6);
	return 0;
}

static int do_flows(int argc, char **argv)
{
	struct sockaddr_in dst = { .sin_family = AF_INET };
	unsigned n, first = 0, rate = 50000, sent = 0;
	unsigned char pkt[sizeof(struct iphdr) + sizeof(struct udphdr) + 16];
	struct iphdr *ip = (struct iphdr *)pkt;
	struct udphdr *udp = (struct udphdr *)(ip + 1);
	double t0 = now();
	int fd, one = 1;

	if (argc < 5)
		return 2;
	if (inet_pton(AF_INET, argv[2], &dst.sin_addr) != 1)
		return 2;
	n = (unsigned)atoi(argv[4]);
	if (argc > 5)
		first = (unsigned)atoi(argv[5]);
	if (argc > 6)
		rate = (unsigned)atoi(argv[6]);
	fd = socket(AF_INET, SOCK_RAW, IPPROTO_RAW);
	if (fd < 0 || setsockopt(fd, IPPROTO_IP, IP_HDRINCL, &one, sizeof(one)) < 0) {
		perror("raw socket");
		return 1;
	}
	memset(pkt, 0, sizeof(pkt));
	ip->version = 4;
	ip->ihl = 5;
	ip->ttl = 64;
	ip->protocol = IPPROTO_UDP;
	ip->daddr = dst.sin_addr.s_addr;
	udp->dest = htons((uint16_t)atoi(argv[3]));
	udp->len = htons(sizeof(struct udphdr) + 16);
	/* the kernel fills the IP checksum, total length and id; UDP checksum 0 */
	for (unsigned i = first; i < first + n; i++) {
		ip->saddr = htonl((10u << 24) | (1u << 16) | (10u + i / 40000));
		udp->source = htons((uint16_t)(10000 + i % 40000));
		while (sendto(fd, pkt, sizeof(pkt), 0, (struct sockaddr *)&dst, sizeof(dst)) < 0) {
			if (errno != ENOBUFS && errno != EAGAIN) {
				perror("sendto");
				return 1;
			}
			usleep(100);
		}
		sent++;
		if (rate && sent % 500 == 0) {
			double ahead = t0 + (double)sent / rate - now();

			if (ahead > 0)
				usleep((useconds_t)(ahead * 1e6));
		}
	}
	printf("sent %u\n", sent);
	return 0;
}

int main(int argc, char **argv)
{
	int rc = 2;

	if (argc > 1 && !strcmp(argv[1], "flood"))
		rc = do_flood(argc, argv);
	else if (argc > 1 && !strcmp(argv[1], "flows"))
		rc = do_flows(argc, argv);
	if (rc == 2)
		fprintf(stderr, "usage: udpgen flood DST PORT FLOWS SECONDS [THREADS [PAYLOAD]]\n"
				"       udpgen flows DST PORT N [FIRST [RATE]]\n");
	return rc;
}
