/* SPDX-License-Identifier: MIT */
#include "kstate.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

static long long tlb_shootdowns(void)
{
	char line[8192];
	long long sum = -1;
	FILE *f = fopen("/proc/interrupts", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char *p = line, *end;

		while (*p == ' ')
			p++;
		if (strncmp(p, "TLB:", 4))
			continue;
		p += 4;
		sum = 0;
		for (;;) {
			long long v = strtoll(p, &end, 10);

			if (end == p)
				break;
			sum += v;
			p = end;
		}
		break;
	}
	fclose(f);
	return sum;
}

json_t *mmt_kstate_counters(const char *const *prefixes)
{
	json_t *o = json_object();
	char name[128];
	long long v, tlb;
	FILE *f = fopen("/proc/vmstat", "r");

	if (f) {
		while (fscanf(f, "%127s %lld", name, &v) == 2)
			for (const char *const *p = prefixes; *p; p++)
				if (!strncmp(name, *p, strlen(*p)))
					json_object_set_new(o, name, json_integer(v));
		fclose(f);
	}
	tlb = tlb_shootdowns();
	if (tlb >= 0)
		json_object_set_new(o, "tlb_shootdowns", json_integer(tlb));
	return o;
}

json_t *mmt_kstate_delta(const json_t *before, const json_t *after)
{
	json_t *d = json_object();
	const char *key;
	json_t *v;

	json_object_foreach((json_t *)after, key, v) {
		const json_t *b = json_object_get(before, key);

		if (b)
			json_object_set_new(d, key, json_integer(json_integer_value(v) - json_integer_value(b)));
	}
	return d;
}

static long long read_tainted(void)
{
	FILE *f = fopen("/proc/sys/kernel/tainted", "r");
	long long v = -1;

	if (f) {
		if (fscanf(f, "%lld", &v) != 1)
			v = -1;
		fclose(f);
	}
	return v;
}

void mmt_health_begin(struct mmt_kernel_health *h)
{
	h->tainted = read_tainted();
	/* /dev/kmsg: one record per read; start at the end, see only new ones. */
	h->kmsg_fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (h->kmsg_fd >= 0)
		lseek(h->kmsg_fd, 0, SEEK_END);
}

json_t *mmt_health_end(struct mmt_kernel_health *h)
{
	static const char *const bad[] = { "WARNING:", "BUG:", "BUG ", "Oops", "Call Trace",
					   "general protection", "kernel BUG", NULL };
	long long tainted = read_tainted();
	json_t *lines = json_array();
	bool splat = h->tainted >= 0 && tainted >= 0 && tainted != h->tainted;

	if (h->kmsg_fd >= 0) {
		char rec[8192];
		ssize_t n;

		while ((n = read(h->kmsg_fd, rec, sizeof(rec) - 1)) > 0 || (n < 0 && errno == EPIPE)) {
			char *msg;

			if (n < 0)
				continue; /* overwritten records: keep reading */
			rec[n] = '\0';
			msg = strchr(rec, ';');
			msg = msg ? msg + 1 : rec;
			msg[strcspn(msg, "\n")] = '\0';
			for (const char *const *b = bad; *b; b++)
				if (strstr(msg, *b)) {
					splat = true;
					if (json_array_size(lines) < 32)
						json_array_append_new(lines, json_string(msg));
					break;
				}
		}
		close(h->kmsg_fd);
	}
	return json_pack("{s:o,s:o,s:b,s:o,s:b}",
			 "tainted_before", h->tainted >= 0 ? json_integer(h->tainted) : json_null(),
			 "tainted_after", tainted >= 0 ? json_integer(tainted) : json_null(),
			 "log_readable", h->kmsg_fd >= 0, "new_log_lines", lines, "splat", splat);
}

/* Where the running kernel's config is read from: $MMT_KERNEL_CONFIG (a
 * kernel built elsewhere, or a test), /boot/config-RELEASE, or
 * /proc/config.gz (gzip -dc). */
const char *mmt_kernel_config_path(void)
{
	static char path[300];
	const char *env = getenv("MMT_KERNEL_CONFIG");
	struct utsname u;

	if (env && *env)
		return env;
	uname(&u);
	snprintf(path, sizeof(path), "/boot/config-%s", u.release);
	if (access(path, R_OK) && !access("/proc/config.gz", R_OK))
		return "/proc/config.gz";
	return path;
}

json_t *mmt_kernel_config(const char *const *options)
{
	const char *path = mmt_kernel_config_path();
	size_t plen = strlen(path);
	char line[512];
	FILE *f;
	bool piped = false;
	json_t *o;

	if (plen > 3 && !strcmp(path + plen - 3, ".gz")) {
		/* gzip from the base system rather than a zlib dependency;
		 * the path is ours or the user's own variable */
		char cmd[400];

		snprintf(cmd, sizeof(cmd), "gzip -dc '%s' 2>/dev/null", path);
		f = strchr(path, '\'') || access(path, R_OK) ? NULL : popen(cmd, "r");
		piped = f != NULL;
	} else {
		f = fopen(path, "r");
	}
	if (!f)
		return json_null();
	o = json_object();
	for (const char *const *opt = options; *opt; opt++)
		json_object_set_new(o, *opt, json_string("not set"));
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		for (const char *const *opt = options; *opt; opt++) {
			size_t n = strlen(*opt);

			if (!strncmp(line, *opt, n) && line[n] == '=')
				json_object_set_new(o, *opt, json_string(line + n + 1));
		}
	}
	if (piped ? pclose(f) != 0 : fclose(f) != 0) {
		/* A config that could not be read whole says nothing */
		json_decref(o);
		return json_null();
	}
	return o;
}
