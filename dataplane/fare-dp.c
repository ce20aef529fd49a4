// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fare-dp: the CLI of the FARE data-plane agent (dataplane/DESIGN.md).
 *
 *   fare-dp [-s SOCKET] show [json]
 *   fare-dp [-s SOCKET] plan DEST [--qps N] [--port P]
 *
 * It sends one request line to fare-dpd's control socket and prints the
 * reply. plan also works without the daemon, from the kernel's route and
 * nexthop group for DEST (exact prefix, main table).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "fare_dpd.h"

static void usage(FILE *f)
{
	fprintf(f, "usage: fare-dp [-s SOCKET] show [json]\n"
		   "       fare-dp [-s SOCKET] plan DEST [--qps N] [--port P]\n"
		   "  -s SOCKET  fare-dpd's control socket (default " DP_DEFAULT_SOCKET ")\n"
		   "plan: the QPs to open towards DEST and their UDP source ports, per member\n"
		   "      (from fare-dpd, or from the kernel's group when it is not running)\n");
}

static int ctl_connect(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd;

	if (strlen(path) >= sizeof(sa.sun_path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		int err = errno;

		close(fd);
		errno = err;
		return -1;
	}
	return fd;
}

/* Send the request, print the reply: 0, or 1 when it is an error. */
static int ctl_talk(int fd, const char *req)
{
	struct dp_buf b = { 0 };
	char buf[4096];
	size_t len = strlen(req);
	ssize_t n;

	while (len) {
		n = send(fd, req, len, MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			fprintf(stderr, "fare-dp: sending the request: %s\n", strerror(errno));
			return 1;
		}
		req += n;
		len -= (size_t)n;
	}
	shutdown(fd, SHUT_WR);
	while ((n = recv(fd, buf, sizeof(buf), 0)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			fprintf(stderr, "fare-dp: reading the reply: %s\n", strerror(errno));
			dp_buf_free(&b);
			return 1;
		}
		dp_buf_printf(&b, "%.*s", (int)n, buf);
	}
	close(fd);
	if (!b.len) {
		fprintf(stderr, "fare-dp: empty reply from fare-dpd\n");
		return 1;
	}
	if (!strncmp(b.s, "error:", 6)) {
		fputs(b.s, stderr);
		dp_buf_free(&b);
		return 1;
	}
	fputs(b.s, stdout);
	dp_buf_free(&b);
	return 0;
}

/* plan without the daemon: the kernel's route and group for DEST */
static int plan_offline(const char *dest, uint32_t qps, uint16_t port)
{
	static struct dp_dest d;
	struct dp_buf b = { 0 };
	int rc = 0;

	if (dp_dest_from_kernel(dest, &d) < 0) {
		if (errno == EINVAL)
			fprintf(stderr, "fare-dp: %s: not a prefix or an address\n", dest);
		else if (errno == ENOENT)
			fprintf(stderr,
				"fare-dp: %s: no route in the main table (give the exact prefix)\n",
				d.name);
		return errno == EINVAL ? 2 : 1;
	}
	dp_report_plan(&b, &d, qps, port, "kernel, fare-dpd not running");
	if (!b.len || b.oom) {
		rc = 1;
	} else if (!strncmp(b.s, "error:", 6)) {
		fputs(b.s, stderr);
		rc = 1;
	} else {
		fputs(b.s, stdout);
	}
	dp_buf_free(&b);
	return rc;
}

static bool parse_num(const char *s, unsigned long max, unsigned long *v)
{
	char *end;

	if (!s || !*s || *s == '-')
		return false;
	errno = 0;
	*v = strtoul(s, &end, 0);
	return !errno && !*end && *v <= max;
}

int main(int argc, char **argv)
{
	const char *path = DP_DEFAULT_SOCKET;
	char req[256];
	int opt, fd;

	dp_progname = "fare-dp";
	while ((opt = getopt(argc, argv, "+s:h")) != -1) {
		switch (opt) {
		case 's':
			path = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	argc -= optind;
	argv += optind;
	if (argc < 1) {
		usage(stderr);
		return 2;
	}

	if (!strcmp(argv[0], "show")) {
		if (argc > 2 || (argc == 2 && strcmp(argv[1], "json"))) {
			usage(stderr);
			return 2;
		}
		snprintf(req, sizeof(req), "show%s\n", argc == 2 ? " json" : "");
		fd = ctl_connect(path);
		if (fd < 0) {
			fprintf(stderr, "fare-dp: %s: %s (is fare-dpd running?)\n", path,
				strerror(errno));
			return 1;
		}
		return ctl_talk(fd, req);
	}

	if (!strcmp(argv[0], "plan")) {
		unsigned long qps = 0, port = DP_DEFAULT_PLAN_PORT;
		const char *dest;

		if (argc < 2 || strlen(argv[1]) >= DP_NAME_LEN) {
			usage(stderr);
			return 2;
		}
		dest = argv[1];
		for (int i = 2; i < argc; i++) {
			if (!strcmp(argv[i], "--qps") && i + 1 < argc &&
			    parse_num(argv[i + 1], 65536, &qps)) {
				i++;
			} else if (!strcmp(argv[i], "--port") && i + 1 < argc &&
				   parse_num(argv[i + 1], 65535, &port) && port) {
				i++;
			} else {
				usage(stderr);
				return 2;
			}
		}
		snprintf(req, sizeof(req), "plan %s %lu %lu\n", dest, qps, port);
		fd = ctl_connect(path);
		if (fd < 0) {
			if (errno != ENOENT && errno != ECONNREFUSED) {
				fprintf(stderr, "fare-dp: %s: %s\n", path, strerror(errno));
				return 1;
			}
			return plan_offline(dest, (uint32_t)qps, (uint16_t)port);
		}
		return ctl_talk(fd, req);
	}

	usage(stderr);
	return 2;
}
