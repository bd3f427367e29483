/* SPDX-License-Identifier: MIT */
/* Mutant-kernel switches: the table, --mutant, and their counters. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compiler.h"
#include "kstate.h"
#include "mutant.h"

struct mmt_mutant {
	const char *name;
	const char *reverts;	/* the upstream fix the switch undoes */
};

/* One row per switch of kernel/patches/ (kernel/mutants.tsv says more). */
static const struct mmt_mutant mutants[] = {
	{ "tlb_flush_pending", "20841405940e" },
};

const char *mmt_mutant_names(void)
{
	static char buf[256];

	if (!buf[0])
		for (size_t i = 0; i < ARRAY_SIZE(mutants); i++)
			snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "%s%s", i ? ", " : "",
				 mutants[i].name);
	return buf;
}

static const struct mmt_mutant *find(const char *name, size_t n)
{
	for (size_t i = 0; i < ARRAY_SIZE(mutants); i++)
		if (strlen(mutants[i].name) == n && !strncmp(mutants[i].name, name, n))
			return &mutants[i];
	return NULL;
}

static int read_param(const char *name, const char *suffix, char *buf, size_t len)
{
	char path[256];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), MMT_MUTANT_DIR "/%s%s", name, suffix);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

/* Walks "NAME[=on|off],..." calling fn for each item; -1 with err on a
 * malformed item or an unknown name. */
static int each_item(const char *list, char *err, size_t len,
		     int (*fn)(const struct mmt_mutant *m, int on, char *err, size_t len))
{
	const char *p = list;

	if (!*list) {
		snprintf(err, len, "--mutant needs NAME[=on|off][,...] (known: %s)", mmt_mutant_names());
		return -1;
	}
	while (*p) {
		size_t n = strcspn(p, ",");
		size_t name_len = strcspn(p, "=,");
		const struct mmt_mutant *m = find(p, name_len);
		int on = 1;

		if (!n) {
			snprintf(err, len, "--mutant '%s': empty item", list);
			return -1;
		}
		if (!m) {
			snprintf(err, len, "--mutant: unknown mutant '%.*s' (known: %s)", (int)name_len, p,
				 mmt_mutant_names());
			return -1;
		}
		if (name_len < n) {
			const char *v = p + name_len + 1;
			size_t vl = n - name_len - 1;

			if (vl == 2 && !strncmp(v, "on", 2))
				on = 1;
			else if (vl == 3 && !strncmp(v, "off", 3))
				on = 0;
			else {
				snprintf(err, len, "--mutant %s: the value must be on or off, not '%.*s'", m->name,
					 (int)vl, v);
				return -1;
			}
		}
		if (fn(m, on, err, len))
			return -1;
		p += n;
		if (*p == ',' && !*++p) {
			snprintf(err, len, "--mutant '%s': empty item", list);
			return -1;
		}
	}
	return 0;
}

static int check_one(const struct mmt_mutant *m, int on, char *err, size_t len)
{
	char v[32];

	(void)on;
	if (access(MMT_MUTANT_DIR, F_OK)) {
		snprintf(err, len, "--mutant %s: this kernel has no mutant switches (%s is missing): boot one built by scripts/mutant-kernel",
			 m->name, MMT_MUTANT_DIR);
		return -1;
	}
	if (read_param(m->name, "", v, sizeof(v))) {
		snprintf(err, len, "--mutant %s: this mutant kernel lacks the switch (patch version %s): rebuild it with scripts/mutant-kernel",
			 m->name, read_param("patch_version", "", v, sizeof(v)) ? "unknown" : v);
		return -1;
	}
	if (access(MMT_MUTANT_DIR, W_OK) || geteuid() != 0) {
		snprintf(err, len, "--mutant %s: setting a switch needs root", m->name);
		return -1;
	}
	return 0;
}

static int apply_one(const struct mmt_mutant *m, int on, char *err, size_t len)
{
	char path[256];

	snprintf(path, sizeof(path), MMT_MUTANT_DIR "/%s", m->name);
	return mmt_sysctl_set(path, on ? "Y" : "N", err, len);
}

static int syntax_only(const struct mmt_mutant *m, int on, char *err, size_t len)
{
	(void)m, (void)on, (void)err, (void)len;
	return 0;
}

int mmt_mutant_check(const char *list, char *err, size_t len)
{
	/* The whole list's syntax first: a typo is named as such, not as a
	 * kernel without switches. */
	return each_item(list, err, len, syntax_only) || each_item(list, err, len, check_one) ? -1 : 0;
}

int mmt_mutant_apply(const char *list, char *err, size_t len)
{
	return each_item(list, err, len, apply_one);
}

json_t *mmt_mutant_snapshot(void)
{
	json_t *sw, *doc;
	char v[64];

	if (read_param("patch_version", "", v, sizeof(v)))
		return json_null();
	sw = json_object();
	doc = json_pack("{s:I,s:o}", "patch_version", (json_int_t)strtoll(v, NULL, 10), "switches", sw);
	for (size_t i = 0; i < ARRAY_SIZE(mutants); i++) {
		char on[8], hits[32], win[32];

		if (read_param(mutants[i].name, "", on, sizeof(on)))
			continue;
		json_object_set_new(sw, mutants[i].name,
				    json_pack("{s:b,s:I,s:I,s:s}", "on", on[0] == 'Y' || on[0] == '1',
					      "hits", read_param(mutants[i].name, "_hits", hits, sizeof(hits)) ?
						      (json_int_t)-1 : (json_int_t)strtoll(hits, NULL, 10),
					      "window", read_param(mutants[i].name, "_window", win, sizeof(win)) ?
						      (json_int_t)-1 : (json_int_t)strtoll(win, NULL, 10),
					      "reverts", mutants[i].reverts));
	}
	return doc;
}

json_t *mmt_mutant_delta(const json_t *before, const json_t *after)
{
	json_t *d, *sw;
	const char *name;
	json_t *a;

	if (!json_is_object(before) || !json_is_object(after))
		return json_null();
	d = json_deep_copy(after);
	sw = json_object_get(d, "switches");
	json_object_foreach(sw, name, a) {
		json_t *b = json_object_get(json_object_get(before, "switches"), name);

		for (int k = 0; k < 2; k++) {
			const char *key = k ? "window" : "hits";
			json_int_t va = json_integer_value(json_object_get(a, key));
			json_int_t vb = json_integer_value(json_object_get(b, key));

			json_object_set_new(a, key, va < 0 || vb < 0 || !b ? json_null() : json_integer(va - vb));
		}
		json_object_set_new(a, "was_on", json_boolean(json_is_true(json_object_get(b, "on"))));
	}
	return d;
}
