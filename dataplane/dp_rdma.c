// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libfaredp (fare_dp_app.h): the members of a destination mapped to RDMA
 * devices, ports and RoCE v2 GIDs through sysfs, and the per-QP plans over
 * them (SUN-3, SUN-4). No netlink and no verbs here: the unit tests run it
 * on a fake sysfs tree (tests/unit/test_dp_qp.c).
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "fare_dp_app.h"

#define NAMES_MAX 64

static const char *root_of(const char *sysfs_root)
{
	return sysfs_root && *sysfs_root ? sysfs_root : "/sys";
}

/* the first line of a file, without its newline; false when unreadable */
static bool read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	bool ok;

	if (!f)
		return false;
	ok = fgets(buf, (int)len, f) != NULL;
	fclose(f);
	if (ok)
		buf[strcspn(buf, "\n")] = '\0';
	return ok;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int cmp_num(const void *a, const void *b)
{
	long x = strtol(*(char *const *)a, NULL, 10), y = strtol(*(char *const *)b, NULL, 10);

	return x < y ? -1 : x > y;
}

/* the entries of a directory (no dot files), sorted; their number */
static size_t list_dir(const char *path, char **names, size_t max, bool numeric)
{
	DIR *d = opendir(path);
	struct dirent *e;
	size_t n = 0;

	if (!d)
		return 0;
	while (n < max && (e = readdir(d)))
		if (e->d_name[0] != '.' && (names[n] = strdup(e->d_name)))
			n++;
	closedir(d);
	qsort(names, n, sizeof(*names), numeric ? cmp_num : cmp_name);
	return n;
}

static void free_names(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
}

/* how good a GID is for the family: 0 unusable, higher better */
static int gid_rank(const char *gid, int family)
{
	bool v4 = strncmp(gid, "0000:0000:0000:0000:0000:ffff:", 30) == 0;

	if (family == AF_INET)
		return v4 ? 2 : 0;
	if (v4 || strcmp(gid, "0000:0000:0000:0000:0000:0000:0000:0000") == 0)
		return 0;
	return strncmp(gid, "fe80:", 5) == 0 ? 1 : 2;
}

/* the best RoCE v2 GID of device dev on ifname; its rank (0: none) */
static int scan_dev(const char *root, const char *dev, const char *ifname, int family,
		    struct fare_dp_rdma_port *out)
{
	char path[PATH_MAX], buf[64], *ports[NAMES_MAX], *idx[NAMES_MAX * 4];
	size_t np, ni;
	int best = 0;

	snprintf(path, sizeof(path), "%s/class/infiniband/%s/ports", root, dev);
	np = list_dir(path, ports, NAMES_MAX, true);
	for (size_t p = 0; p < np; p++) {
		snprintf(path, sizeof(path), "%s/class/infiniband/%s/ports/%s/gid_attrs/ndevs",
			 root, dev, ports[p]);
		ni = list_dir(path, idx, NAMES_MAX * 4, true);
		for (size_t i = 0; i < ni; i++) {
			char gid[64];
			int rank;

			snprintf(path, sizeof(path),
				 "%s/class/infiniband/%s/ports/%s/gid_attrs/ndevs/%s", root, dev,
				 ports[p], idx[i]);
			if (!read_line(path, buf, sizeof(buf)) || strcmp(buf, ifname))
				continue;
			snprintf(path, sizeof(path),
				 "%s/class/infiniband/%s/ports/%s/gid_attrs/types/%s", root, dev,
				 ports[p], idx[i]);
			if (!read_line(path, buf, sizeof(buf)) || strcmp(buf, "RoCE v2"))
				continue;
			snprintf(path, sizeof(path), "%s/class/infiniband/%s/ports/%s/gids/%s",
				 root, dev, ports[p], idx[i]);
			if (!read_line(path, gid, sizeof(gid)) || strlen(gid) >= sizeof(out->gid))
				continue;
			rank = gid_rank(gid, family);
			if (rank <= best)
				continue;
			best = rank;
			snprintf(out->dev, sizeof(out->dev), "%s", dev);
			out->port = (uint8_t)strtoul(ports[p], NULL, 10);
			out->gid_index = (int)strtol(idx[i], NULL, 10);
			memcpy(out->gid, gid, strlen(gid) + 1); /* fits: checked */
		}
		free_names(idx, ni);
	}
	free_names(ports, np);
	return best;
}

int fare_dp_rdma_port_of(const char *sysfs_root, const char *ifname, int family,
			 struct fare_dp_rdma_port *out)
{
	const char *root = root_of(sysfs_root);
	char path[PATH_MAX], *own[NAMES_MAX], *all[NAMES_MAX];
	size_t nown, nall;
	int found = 0;

	memset(out, 0, sizeof(*out));
	out->gid_index = -1;
	/* a NIC's own netdev points at its RDMA device */
	snprintf(path, sizeof(path), "%s/class/net/%s/device/infiniband", root, ifname);
	nown = list_dir(path, own, NAMES_MAX, false);
	for (size_t i = 0; i < nown && !found; i++)
		found = scan_dev(root, own[i], ifname, family, out);
	if (!found) {
		snprintf(path, sizeof(path), "%s/class/infiniband", root);
		nall = list_dir(path, all, NAMES_MAX, false);
		for (size_t i = 0; i < nall && found < 2; i++) {
			struct fare_dp_rdma_port p;

			memset(&p, 0, sizeof(p));
			if (scan_dev(root, all[i], ifname, family, &p) > found) {
				found = gid_rank(p.gid, family);
				*out = p;
			}
		}
		free_names(all, nall);
	}
	free_names(own, nown);
	if (!found) {
		memset(out, 0, sizeof(*out));
		out->gid_index = -1;
		errno = ENOENT;
		return -1;
	}
	return 0;
}

/* weights for the QPs: a member without a RoCE v2 device cannot have one */
static void qp_weights(const struct fare_dp_app_rdma_plan *plan, size_t n, uint32_t *w,
		       uint32_t *path)
{
	for (size_t k = 0; k < n; k++) {
		const struct fare_dp_rdma_port *r = &plan->member[k].rdma;

		w[k] = r->dev[0] ? plan->member[k].weight : 0;
		/* the same device and port: the first member that has them */
		path[k] = (uint32_t)k;
		for (size_t j = 0; j < k; j++)
			if (r->dev[0] && !strcmp(plan->member[j].rdma.dev, r->dev) &&
			    plan->member[j].rdma.port == r->port) {
				path[k] = (uint32_t)j;
				break;
			}
	}
}

static void member_set(struct fare_dp_app_rdma_plan *plan, size_t k,
		       const struct fare_dp_app_member *m)
{
	struct fare_dp_app_rdma_member *rm = &plan->member[k];

	snprintf(rm->ifname, sizeof(rm->ifname), "%s", m->ifname);
	snprintf(rm->gateway, sizeof(rm->gateway), "%s", m->gateway);
	rm->weight = m->weight;
	fare_dp_rdma_port_of(plan->sysfs_root, m->ifname, plan->family, &rm->rdma);
}

int fare_dp_app_rdma_plan_members(const struct fare_dp_app_member *members, size_t n, int family,
				  uint32_t qps, uint16_t first_port, const char *sysfs_root,
				  struct fare_dp_app_rdma_plan *plan)
{
	uint32_t w[FARE_DP_MEMBERS_MAX], path[FARE_DP_MEMBERS_MAX];
	bool usable = false;

	memset(plan, 0, sizeof(*plan));
	if (n > FARE_DP_MEMBERS_MAX ||
	    (sysfs_root && strlen(sysfs_root) >= sizeof(plan->sysfs_root))) {
		errno = ERANGE;
		return -1;
	}
	plan->family = family;
	if (sysfs_root)
		snprintf(plan->sysfs_root, sizeof(plan->sysfs_root), "%s", sysfs_root);
	for (size_t k = 0; k < n; k++)
		member_set(plan, k, &members[k]);
	qp_weights(plan, n, w, path);
	for (size_t k = 0; k < n; k++)
		usable |= w[k] != 0;
	if (!usable) {
		plan->qp.members = n;
		errno = ENOENT;
		return -1;
	}
	if (!fare_dp_qp_plan(w, n, qps, first_port, &plan->qp)) {
		errno = ERANGE;
		return -1;
	}
	return 0;
}

int fare_dp_app_rdma_replan_members(struct fare_dp_app_rdma_plan *plan,
				    const struct fare_dp_app_member *members, size_t n,
				    enum fare_dp_recover recover, struct fare_dp_qp_move *moves)
{
	uint32_t w[FARE_DP_MEMBERS_MAX], path[FARE_DP_MEMBERS_MAX];
	size_t old = plan->qp.members, total = old;
	bool seen[FARE_DP_MEMBERS_MAX] = { false };

	for (size_t i = 0; i < n; i++) {
		size_t k;

		for (k = 0; k < total; k++)
			if (!strcmp(plan->member[k].ifname, members[i].ifname) &&
			    !strcmp(plan->member[k].gateway, members[i].gateway))
				break;
		if (k == total) {
			if (total == FARE_DP_MEMBERS_MAX)
				continue; /* no room: not used */
			total++;
		}
		member_set(plan, k, &members[i]);
		seen[k] = true;
	}
	/* a member that left the group: no path */
	for (size_t k = 0; k < old; k++)
		if (!seen[k])
			plan->member[k].weight = 0;
	qp_weights(plan, total, w, path);
	return (int)fare_dp_qp_replan(&plan->qp, w, total, path, recover, moves);
}
