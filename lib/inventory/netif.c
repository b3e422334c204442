/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A network interface's addresses (sn_netif.h). */
#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "inventory/sn_ib_port.h"
#include "inventory/sn_netif.h"
#include "util/sn_file.h"

#define ADDRS_FILE_MAX 4096 /* bytes of the stand-in file read */

static bool ifname_ok(const char *s)
{
	size_t n = strnlen(s, SN_IFNAME_MAX);

	return n && n < SN_IFNAME_MAX && strcmp(s, ".") && strcmp(s, "..") &&
	       !strchr(s, '/');
}

/* Count one address; the first usable one is kept as text. */
static void count(struct sn_netif_addrs *out, int family, const void *addr)
{
	if (family == AF_INET6 &&
	    IN6_IS_ADDR_LINKLOCAL((const struct in6_addr *)addr)) {
		out->n_link_local++;
		return;
	}
	if (!out->n++)
		inet_ntop(family, addr, out->first, sizeof(out->first));
}

static void live_read(const char *ifname, struct sn_netif_addrs *out)
{
	struct ifaddrs *list, *a;

	if (getifaddrs(&list)) {
		out->status = SN_ATTR_UNREADABLE;
		snprintf(out->text, sizeof(out->text), "%s", strerror(errno));
		return;
	}
	for (a = list; a; a = a->ifa_next) {
		if (!a->ifa_addr || !a->ifa_name || strcmp(a->ifa_name, ifname))
			continue;
		if (a->ifa_addr->sa_family == AF_INET)
			count(out, AF_INET,
			      &((struct sockaddr_in *)(void *)a->ifa_addr)
				       ->sin_addr);
		else if (a->ifa_addr->sa_family == AF_INET6)
			count(out, AF_INET6,
			      &((struct sockaddr_in6 *)(void *)a->ifa_addr)
				       ->sin6_addr);
	}
	freeifaddrs(list);
}

/* One line "ADDR[/PREFIX]"; -1 when it is not an address. */
static int line_parse(struct sn_netif_addrs *out, const char *line)
{
	unsigned char addr[sizeof(struct in6_addr)];
	char text[INET6_ADDRSTRLEN + 8];
	size_t n = strcspn(line, "/");

	if (n >= INET6_ADDRSTRLEN)
		return -1;
	memcpy(text, line, n);
	text[n] = '\0';
	if (line[n] == '/' &&
	    (!line[n + 1] ||
	     strspn(line + n + 1, "0123456789") != strlen(line + n + 1) ||
	     strlen(line + n + 1) > 3))
		return -1;
	if (inet_pton(AF_INET, text, addr) == 1)
		count(out, AF_INET, addr);
	else if (inet_pton(AF_INET6, text, addr) == 1)
		count(out, AF_INET6, addr);
	else
		return -1;
	return 0;
}

static void file_parse(struct sn_netif_addrs *out, char *buf)
{
	char *save = NULL;

	for (char *line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		line[strcspn(line, " \t\r")] = '\0';
		if (!*line)
			continue;
		if (line_parse(out, line)) {
			out->status = SN_ATTR_BAD;
			snprintf(out->text, sizeof(out->text), "%.60s", line);
			return;
		}
	}
}

static void file_read(const char *sysfs, const char *ifname,
		      struct sn_netif_addrs *out)
{
	char buf[ADDRS_FILE_MAX + 1];
	struct stat st;
	int fd, n;

	n = snprintf(out->path, sizeof(out->path),
		     "%s/" SN_LIVE_DIR "/ifaddrs/%s", sysfs, ifname);
	if (n < 0 || (size_t)n >= sizeof(out->path)) {
		out->status = SN_ATTR_UNREADABLE;
		return;
	}
	fd = sn_file_open_regular(out->path, 0, &st, NULL, 0);
	if (fd < 0) {
		out->status = errno == ENOENT || errno == ENOTDIR ?
				      SN_ATTR_MISSING :
			      errno == EINVAL ? SN_ATTR_NOT_REGULAR :
						SN_ATTR_UNREADABLE;
		if (out->status == SN_ATTR_NOT_REGULAR)
			snprintf(out->text, sizeof(out->text), "%s",
				 sn_file_kind(st.st_mode));
		return;
	}
	if (sn_file_read_fd(fd, buf, sizeof(buf)) < 0)
		out->status = SN_ATTR_UNREADABLE;
	close(fd);
	if (out->status == SN_ATTR_OK)
		file_parse(out, buf);
}

int sn_netif_addrs_read(const char *sysfs, const char *ifname,
			struct sn_netif_addrs *out)
{
	memset(out, 0, sizeof(*out));
	if (!sysfs || !ifname || !ifname_ok(ifname)) {
		errno = EINVAL;
		return -1;
	}
	if (!strcmp(sysfs, "/sys"))
		live_read(ifname, out);
	else
		file_read(sysfs, ifname, out);
	return 0;
}
