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

/* Column col (0: name) of the table's line that starts at line, into
 * buf; NULL if the line has fewer columns. */
static const char *line_field(const char *line, unsigned col, char *buf, size_t len)
{
	const char *f = line;

	for (unsigned c = 0; c < col && f; c++) {
		f += strcspn(f, "\t\n");
		f = *f == '\t' ? f + 1 : NULL;
	}
	if (!f)
		return NULL;
	snprintf(buf, len, "%.*s", (int)strcspn(f, "\t\n"), f);
	return buf;
}

/* Column col of the table's first row for name (a switch may have a row
 * per hunter; they agree on what it reverts). */
static const char *table_field(const char *name, unsigned col, char *buf, size_t len)
{
	size_t n = strlen(name);

	for (const char *line = mmt_mutants_text; *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : "")
		if (!strncmp(line, name, n) && line[n] == '\t')
			return line_field(line, col, buf, len);
	return NULL;
}

const char *mmt_mutant_of_variant(const char *scenario, const char *variant, char *buf, size_t len)
{
	char want[256];

	snprintf(want, sizeof(want), "%s %s", scenario, variant);
	/* Rows after the header: name, reverts, title, config, guest, hunter, control. */
	for (const char *line = strchr(mmt_mutants_text, '\n'); line && line[1]; line = strchr(line + 1, '\n')) {
		char name[NAME_MAX_LEN], field[256];

		if (!line_field(line + 1, 0, name, sizeof(name)) || strlen(name) + 1 >= NAME_MAX_LEN)
			continue;
		for (unsigned col = 5; col <= 6; col++)
			if (line_field(line + 1, col, field, sizeof(field)) && !strcmp(field, want)) {
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

/* Whether name (n bytes) is already in list, a ", "-separated one. */
static bool listed(const char *list, const char *name, size_t n)
{
	for (const char *at = list; *at;) {
		size_t len = strcspn(at, ",");

		if (len == n && !strncmp(at, name, n))
			return true;
		at += len;
		at += *at ? 2 : 0;	/* ", " */
	}
	return false;
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
		     line = strchr(line + 1, '\n')) {
			int n = (int)strcspn(line + 1, "\t\n");

			if (!listed(buf, line + 1, (size_t)n))	/* a row per hunter */
				used += (size_t)snprintf(buf + used, sizeof(buf) - used, "%s%.*s", used ? ", " : "",
							 n, line + 1);
		}
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

static const struct mmt_field switch_fields[] = {
	MMT_FIELD(struct mmt_mutant_switch, name, MMT_F_CHARS),
	MMT_FIELD(struct mmt_mutant_switch, on, MMT_F_BOOL),
	MMT_FIELD(struct mmt_mutant_switch, hits, MMT_F_SIGNED),
	MMT_FIELD(struct mmt_mutant_switch, window, MMT_F_SIGNED),
	MMT_FIELD(struct mmt_mutant_switch, reverts, MMT_F_TEXT),
	MMT_FIELD(struct mmt_mutant_switch, was_on, MMT_F_BOOL),
};
static const struct mmt_shape switch_shape = MMT_SHAPE(struct mmt_mutant_switch, switch_fields);

static const struct mmt_field state_fields[] = {
	MMT_FIELD(struct mmt_mutant_state, patch_version, MMT_F_SIGNED),
	{ "switches", MMT_F_MAP, offsetof(struct mmt_mutant_state, sw), &switch_shape,
	  offsetof(struct mmt_mutant_state, n) },
};
const struct mmt_shape mmt_mutant_shape = MMT_SHAPE(struct mmt_mutant_state, state_fields);

static int64_t counter(const char *name, const char *suffix)
{
	char buf[32];

	return read_param(name, suffix, buf, sizeof(buf)) ? MMT_NONE_SIGNED : strtoll(buf, NULL, 10);
}

void mmt_mutant_snapshot(struct mmt_mutant_state *out)
{
	char v[64];

	out->n = 0;
	out->present = !read_param("patch_version", "", v, sizeof(v));
	if (!out->present)
		return;
	out->patch_version = strtoll(v, NULL, 10);
	enumerate();
	for (size_t i = 0; i < nr_mutants && out->n < MMT_MUTANT_SWITCHES; i++) {
		struct mmt_mutant_switch *sw = &out->sw[out->n];
		char on[8];

		if (read_param(mutants[i].name, "", on, sizeof(on)))
			continue;
		snprintf(sw->name, sizeof(sw->name), "%s", mutants[i].name);
		sw->on = on[0] == 'Y' || on[0] == '1';
		sw->hits = counter(mutants[i].name, "_hits");
		sw->window = counter(mutants[i].name, "_window");
		sw->reverts = table_field(mutants[i].name, 1, sw->reverts_text, sizeof(sw->reverts_text)) ?
				      sw->reverts_text : NULL;
		sw->was_on = false;
		out->n++;
	}
}

static int64_t change(int64_t after, int64_t before, bool known)
{
	return !known || after < 0 || before < 0 || after == MMT_NONE_SIGNED || before == MMT_NONE_SIGNED ?
		       MMT_NONE_SIGNED : after - before;
}

void mmt_mutant_delta(const struct mmt_mutant_state *before, struct mmt_mutant_state *after)
{
	if (!before->present)
		after->present = false;
	for (unsigned a = 0; after->present && a < after->n; a++) {
		struct mmt_mutant_switch *sw = &after->sw[a];
		const struct mmt_mutant_switch *b = NULL;

		for (unsigned k = 0; k < before->n && !b; k++)
			if (!strcmp(before->sw[k].name, sw->name))
				b = &before->sw[k];
		sw->hits = change(sw->hits, b ? b->hits : 0, b != NULL);
		sw->window = change(sw->window, b ? b->window : 0, b != NULL);
		sw->was_on = b && b->on;
	}
}
