/* SPDX-License-Identifier: MIT */
/* Mutant-kernel switches: the table, --mutant, and their counters. */
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compiler.h"
#include "kstate.h"
#include "mutant.h"

#include "mutants-text.h"

/*
 * The switches are the running kernel's: every boolean parameter under
 * MMT_MUTANT_DIR with a NAME_hits counter beside it, whatever this table
 * knows (a kernel built elsewhere may re-create the same bugs under other
 * names).  kernel/mutants.tsv, embedded, says what the known ones revert.
 */
#define MAX_SWITCHES 64
#define NAME_MAX_LEN 64

struct mmt_mutant {
	char name[NAME_MAX_LEN];
};

static struct mmt_mutant mutants[MAX_SWITCHES];
static char dir[512];	/* MMT_MUTANT_DIR, under $MMT_SYSCTL_ROOT in the tests (sysctl.h) */
static size_t nr_mutants;
static bool enumerated;

static bool is_counter(const char *name)
{
	size_t n = strlen(name);

	return (n > 5 && !strcmp(name + n - 5, "_hits")) || (n > 7 && !strcmp(name + n - 7, "_window"));
}

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct mmt_mutant *)a)->name, ((const struct mmt_mutant *)b)->name);
}

/* The kernel's switches, read once. */
static void enumerate(void)
{
	DIR *d;
	struct dirent *e;

	const char *root = getenv("MMT_SYSCTL_ROOT");

	if (enumerated)
		return;
	enumerated = true;
	snprintf(dir, sizeof(dir), "%s%s", root ? root : "", MMT_MUTANT_DIR);
	d = opendir(dir);
	while (d && (e = readdir(d)) && nr_mutants < MAX_SWITCHES) {
		char hits[sizeof(dir) + sizeof(e->d_name) + 8];
		size_t len = strlen(e->d_name);

		if (e->d_name[0] == '.' || is_counter(e->d_name) || len >= NAME_MAX_LEN)
			continue;
		snprintf(hits, sizeof(hits), "%s/%s_hits", dir, e->d_name);
		/* memcpy of the length checked above: -O1's -Wformat-truncation
		 * does not see that check through an snprintf */
		if (!access(hits, F_OK))
			memcpy(mutants[nr_mutants++].name, e->d_name, len + 1);
	}
	if (d)
		closedir(d);
	qsort(mutants, nr_mutants, sizeof(mutants[0]), by_name);	/* readdir's order is the filesystem's */
}

/* Column col (0: name) of the table's row for name, into buf; NULL if the
 * table has no such row. */
static const char *table_field(const char *name, unsigned col, char *buf, size_t len)
{
	size_t n = strlen(name);

	for (const char *line = mmt_mutants_text; *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : "") {
		const char *f = line;

		if (strncmp(line, name, n) || line[n] != '\t')
			continue;
		for (unsigned c = 0; c < col && f; c++)
			f = strchr(f, '\t') ? strchr(f, '\t') + 1 : NULL;
		if (!f)
			return NULL;
		snprintf(buf, len, "%.*s", (int)strcspn(f, "\t\n"), f);
		return buf;
	}
	return NULL;
}

const char *mmt_mutant_of_variant(const char *scenario, const char *variant, char *buf, size_t len)
{
	char want[256];

	snprintf(want, sizeof(want), "%s %s", scenario, variant);
	/* Rows after the header: name, reverts, title, config, guest, hunter, control. */
	for (const char *line = strchr(mmt_mutants_text, '\n'); line && line[1]; line = strchr(line + 1, '\n')) {
		char name[NAME_MAX_LEN], field[256];
		int n = (int)strcspn(line + 1, "\t\n");

		if (n >= NAME_MAX_LEN)
			continue;
		snprintf(name, sizeof(name), "%.*s", n, line + 1);
		for (unsigned col = 5; col <= 6; col++)
			if (table_field(name, col, field, sizeof(field)) && !strcmp(field, want)) {
				snprintf(buf, len, "%s", name);
				return buf;
			}
	}
	return NULL;
}

int mmt_mutant_counter_path(const char *name, const char *counter, char *buf, size_t len)
{
	enumerate();
	snprintf(buf, len, "%s/%s_%s", dir, name, counter);
	return access(buf, R_OK);
}

/* The names for messages: the kernel's switches, or the table's when the
 * kernel has none. */
const char *mmt_mutant_names(void)
{
	static char buf[1024];

	size_t used = 0;

	enumerate();
	buf[0] = '\0';
	for (size_t i = 0; i < nr_mutants && used < sizeof(buf); i++)
		used += (size_t)snprintf(buf + used, sizeof(buf) - used, "%s%.*s", i ? ", " : "", NAME_MAX_LEN,
					 mutants[i].name);
	if (!nr_mutants)
		for (const char *line = strchr(mmt_mutants_text, '\n'); line && line[1] && used < sizeof(buf);
		     line = strchr(line + 1, '\n'))
			used += (size_t)snprintf(buf + used, sizeof(buf) - used, "%s%.*s", used ? ", " : "",
						 (int)strcspn(line + 1, "\t\n"), line + 1);
	return buf;
}

static const struct mmt_mutant *find(const char *name, size_t n)
{
	enumerate();
	for (size_t i = 0; i < nr_mutants; i++)
		if (strlen(mutants[i].name) == n && !strncmp(mutants[i].name, name, n))
			return &mutants[i];
	return NULL;
}

static int read_param(const char *name, const char *suffix, char *buf, size_t len)
{
	char path[sizeof(dir) + 128];
	ssize_t n;
	int fd;

	enumerate();
	snprintf(path, sizeof(path), "%s/%s%s", dir, name, suffix);
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
/* Walks "NAME[=on|off],..." calling fn with each name and value; -1 with
 * err on a malformed item (or what fn refuses). */
static int each_item(const char *list, char *err, size_t len,
		     int (*fn)(const char *name, size_t n, int on, char *err, size_t len))
{
	const char *p = list;

	if (!*list) {
		snprintf(err, len, "--mutant needs NAME[=on|off][,...] (switches: %s)", mmt_mutant_names());
		return -1;
	}
	while (*p) {
		size_t n = strcspn(p, ",");
		size_t name_len = strcspn(p, "=,");
		int on = 1;

		if (!n || !name_len) {
			snprintf(err, len, "--mutant '%s': empty item", list);
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
				snprintf(err, len, "--mutant %.*s: the value must be on or off, not '%.*s'",
					 (int)name_len, p, (int)vl, v);
				return -1;
			}
		}
		if (fn(p, name_len, on, err, len))
			return -1;
		p += n;
		if (*p == ',' && !*++p) {
			snprintf(err, len, "--mutant '%s': empty item", list);
			return -1;
		}
	}
	return 0;
}

/* The switch exists in this kernel, and we may set it. */
static int check_one(const char *name, size_t n, int on, char *err, size_t len)
{
	(void)on;
	if (!find(name, n) && !nr_mutants) {
		snprintf(err, len, "--mutant %.*s: this kernel has no mutant switches (%s is missing): boot one built by "
			 "scripts/mutant-kernel (kernel/mutants.tsv: %s)", (int)n, name, MMT_MUTANT_DIR,
			 mmt_mutant_names());
		return -1;
	}
	if (!find(name, n)) {
		snprintf(err, len, "--mutant: this kernel has no switch '%.*s' (its switches: %s)", (int)n, name,
			 mmt_mutant_names());
		return -1;
	}
	if (access(dir, W_OK) || geteuid() != 0) {
		snprintf(err, len, "--mutant %.*s: setting a switch needs root", (int)n, name);
		return -1;
	}
	return 0;
}

static int apply_one(const char *name, size_t n, int on, char *err, size_t len)
{
	char path[256];

	snprintf(path, sizeof(path), MMT_MUTANT_DIR "/%.*s", (int)n, name);
	return mmt_sysctl_set(path, on ? "Y" : "N", err, len);
}

static int syntax_only(const char *name, size_t n, int on, char *err, size_t len)
{
	(void)name, (void)n, (void)on, (void)err, (void)len;
	return 0;
}

int mmt_mutant_check(const char *list, char *err, size_t len)
{
	/* The whole list's syntax first: a malformed value is named as such,
	 * not as a kernel without switches; then each name against this
	 * kernel's switches, and whether they can be set. */
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
	enumerate();
	for (size_t i = 0; i < nr_mutants; i++) {
		char on[8], hits[32], win[32], reverts[64];

		if (read_param(mutants[i].name, "", on, sizeof(on)))
			continue;
		json_object_set_new(sw, mutants[i].name,
				    json_pack("{s:b,s:I,s:I,s:o}", "on", on[0] == 'Y' || on[0] == '1',
					      "hits", read_param(mutants[i].name, "_hits", hits, sizeof(hits)) ?
						      (json_int_t)-1 : (json_int_t)strtoll(hits, NULL, 10),
					      "window", read_param(mutants[i].name, "_window", win, sizeof(win)) ?
						      (json_int_t)-1 : (json_int_t)strtoll(win, NULL, 10),
					      "reverts", table_field(mutants[i].name, 1, reverts, sizeof(reverts)) ?
						      json_string(reverts) : json_null()));
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
