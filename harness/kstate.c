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

static const struct mmt_field kcounter_fields[] = {
	MMT_FIELD(struct mmt_kcounter, name, MMT_F_CHARS),
	MMT_FIELD(struct mmt_kcounter, value, MMT_F_SIGNED),
};
const struct mmt_shape mmt_kcounters_shape = MMT_SHAPE(struct mmt_kcounter, kcounter_fields);

static void add_counter(struct mmt_kcounters *c, const char *name, int64_t v)
{
	if (c->n < MMT_KCOUNTERS_MAX) {
		snprintf(c->e[c->n].name, sizeof(c->e[c->n].name), "%.63s", name);
		c->e[c->n++].value = v;
	}
}

void mmt_kstate_counters(const char *const *prefixes, struct mmt_kcounters *out)
{
	char name[128];
	long long v, tlb;
	FILE *f = fopen("/proc/vmstat", "r");

	out->n = 0;
	if (f) {
		while (fscanf(f, "%127s %lld", name, &v) == 2)
			for (const char *const *p = prefixes; *p; p++)
				if (!strncmp(name, *p, strlen(*p)))
					add_counter(out, name, v);
		fclose(f);
	}
	tlb = tlb_shootdowns();
	if (tlb >= 0)
		add_counter(out, "tlb_shootdowns", tlb);
}

void mmt_kstate_delta(const struct mmt_kcounters *before, const struct mmt_kcounters *after,
		      struct mmt_kcounters *delta)
{
	delta->n = 0;
	for (unsigned a = 0; a < after->n; a++)
		for (unsigned b = 0; b < before->n; b++)
			if (!strcmp(after->e[a].name, before->e[b].name)) {
				add_counter(delta, after->e[a].name, after->e[a].value - before->e[b].value);
				break;
			}
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

static const struct mmt_field log_line_fields[] = {
	{ NULL, MMT_F_CHARS, offsetof(struct mmt_log_line, text), NULL, 0 },
};
static const struct mmt_shape log_line_shape = MMT_SHAPE(struct mmt_log_line, log_line_fields);

static const struct mmt_field health_fields[] = {
	MMT_FIELD(struct mmt_health_report, tainted_before, MMT_F_SIGNED),
	MMT_FIELD(struct mmt_health_report, tainted_after, MMT_F_SIGNED),
	MMT_FIELD(struct mmt_health_report, log_readable, MMT_F_BOOL),
	{ "new_log_lines", MMT_F_LIST, offsetof(struct mmt_health_report, lines), &log_line_shape,
	  offsetof(struct mmt_health_report, nr_lines) },
	MMT_FIELD(struct mmt_health_report, splat, MMT_F_BOOL),
};
const struct mmt_shape mmt_health_shape = MMT_SHAPE(struct mmt_health_report, health_fields);

/* msg into a line, cut if it must be at a UTF-8 character's start: a
 * split character would make the line invalid text, and lost. */
static void keep_line(char *line, const char *msg)
{
	size_t n = strlen(msg);

	if (n >= sizeof(((struct mmt_log_line *)0)->text)) {
		n = sizeof(((struct mmt_log_line *)0)->text) - 1;
		while (n && ((unsigned char)msg[n] & 0xc0) == 0x80)
			n--;
	}
	memcpy(line, msg, n);
	line[n] = '\0';
}

void mmt_health_end(struct mmt_kernel_health *h, struct mmt_health_report *out)
{
	static const char *const bad[] = { "WARNING:", "BUG:", "BUG ", "Oops", "Call Trace",
					   "general protection", "kernel BUG", NULL };
	long long tainted = read_tainted();

	out->tainted_before = h->tainted >= 0 ? h->tainted : MMT_NONE_SIGNED;
	out->tainted_after = tainted >= 0 ? tainted : MMT_NONE_SIGNED;
	out->log_readable = h->kmsg_fd >= 0;
	out->nr_lines = 0;
	out->splat = h->tainted >= 0 && tainted >= 0 && tainted != h->tainted;
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
					out->splat = true;
					if (out->nr_lines < MMT_HEALTH_LINES)
						keep_line(out->lines[out->nr_lines++].text, msg);
					break;
				}
		}
		close(h->kmsg_fd);
		h->kmsg_fd = -1;
	}
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

static const struct mmt_field kconfig_fields[] = {
	MMT_FIELD(struct mmt_kconfig_option, name, MMT_F_TEXT),
	MMT_FIELD(struct mmt_kconfig_option, value, MMT_F_CHARS),
};
const struct mmt_shape mmt_kconfig_shape = MMT_SHAPE(struct mmt_kconfig_option, kconfig_fields);

void mmt_kernel_config(const char *const *options, struct mmt_kconfig *out)
{
	const char *path = mmt_kernel_config_path();
	size_t plen = strlen(path);
	char line[512];
	FILE *f;
	bool piped = false;

	out->found = false;
	out->n = 0;
	for (const char *const *opt = options; *opt && out->n < MMT_KCONFIG_MAX; opt++) {
		out->e[out->n].name = *opt;
		snprintf(out->e[out->n++].value, sizeof(out->e[0].value), "not set");
	}
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
		return;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		for (unsigned k = 0; k < out->n; k++) {
			size_t n = strlen(out->e[k].name);

			if (!strncmp(line, out->e[k].name, n) && line[n] == '=')
				snprintf(out->e[k].value, sizeof(out->e[k].value), "%s", line + n + 1);
		}
	}
	/* A config that could not be read whole says nothing */
	out->found = piped ? pclose(f) == 0 : fclose(f) == 0;
}
