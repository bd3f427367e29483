/* SPDX-License-Identifier: MIT */
#include "counters.h"

#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <perfmon/pfmlib_perf_event.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define READ_FORMAT (PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING)

static const char *const tracefs_dirs[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };

static int paranoid(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
	int v = 2;

	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = 2;
		fclose(f);
	}
	return v;
}

static bool find_tracefs(char *out, size_t len)
{
	for (size_t i = 0; i < sizeof(tracefs_dirs) / sizeof(tracefs_dirs[0]); i++) {
		char probe[300];
		struct stat st;

		snprintf(probe, sizeof(probe), "%s/events", tracefs_dirs[i]);
		if (!stat(probe, &st) && S_ISDIR(st.st_mode)) {
			snprintf(out, len, "%s", tracefs_dirs[i]);
			return true;
		}
	}
	return false;
}

void mmt_tracefs_prepare(void)
{
	char dir[256];

	if (find_tracefs(dir, sizeof(dir)) || geteuid() != 0)
		return;
	/* A private mount namespace: the tracefs mount below is seen by this
	 * process only and disappears with it. */
	if (unshare(CLONE_NEWNS) || mount("none", "/", NULL, MS_REC | MS_PRIVATE, NULL))
		return;
	mount("nodev", tracefs_dirs[0], "tracefs", 0, NULL);
}

static bool pfm_ready(void)
{
	static int state; /* 0 unknown, 1 ok, -1 failed */

	if (!state)
		state = pfm_initialize() == PFM_SUCCESS ? 1 : -1;
	return state > 0;
}

static void finish_attr(struct perf_event_attr *a)
{
	a->size = sizeof(*a);
	a->disabled = 1;
	a->inherit = 0;
	a->read_format = READ_FORMAT;
}

static int add_event(struct mmt_event_set *set, const char *name, char *err, size_t len)
{
	struct mmt_event *e;

	if (set->nr == MMT_MAX_EVENTS) {
		snprintf(err, len, "--events: more than %d events", MMT_MAX_EVENTS);
		return -1;
	}
	e = &set->ev[set->nr++];
	memset(e, 0, sizeof(*e));
	snprintf(e->name, sizeof(e->name), "%.127s", name);
	return 0;
}

static int add_tracepoint(struct mmt_event_set *set, const char *sys, const char *name,
			  char *err, size_t len)
{
	char path[600], buf[32], full[256];
	struct mmt_event *e;
	FILE *f;

	snprintf(full, sizeof(full), "%s:%s", sys, name);
	if (add_event(set, full, err, len))
		return -1;
	e = &set->ev[set->nr - 1];
	e->kind = MMT_EV_TRACEPOINT;
	if (!set->tracefs[0]) {
		snprintf(e->unsupported, sizeof(e->unsupported),
			 "tracefs is not mounted (mount -t tracefs nodev /sys/kernel/tracing, or run as root)");
		return 0;
	}
	snprintf(path, sizeof(path), "%s/events/%s/%s/id", set->tracefs, sys, name);
	f = fopen(path, "r");
	if (!f) {
		if (errno == ENOENT) {
			snprintf(err, len, "--events: unknown tracepoint '%s' (see --events list)", full);
			return -1;
		}
		snprintf(e->unsupported, sizeof(e->unsupported), "cannot read %.120s: %.60s", path, strerror(errno));
		return 0;
	}
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = '\0';
	fclose(f);
	e->attr.type = PERF_TYPE_TRACEPOINT;
	e->attr.config = strtoull(buf, NULL, 10);
	/* Kernel-side work: count it on every CPU when we may. */
	finish_attr(&e->attr);
	return 0;
}

/* "sys:event" or "sys:*" (any fnmatch pattern on the event name). */
static int parse_tracepoint(struct mmt_event_set *set, const char *tok, char *err, size_t len)
{
	char sys[128], pat[128], dir[600];
	const char *colon = strchr(tok, ':');
	struct dirent **names;
	int n, added = 0;

	snprintf(sys, sizeof(sys), "%.*s", (int)(colon - tok), tok);
	snprintf(pat, sizeof(pat), "%s", colon + 1);
	if (!sys[0] || !pat[0] || strchr(pat, ':')) {
		snprintf(err, len, "--events: '%s' is not an event (NAME, PMU::NAME or SYS:TRACEPOINT)", tok);
		return -1;
	}
	if (!strpbrk(pat, "*?[") || !set->tracefs[0])
		return add_tracepoint(set, sys, pat, err, len);
	snprintf(dir, sizeof(dir), "%s/events/%s", set->tracefs, sys);
	n = scandir(dir, &names, NULL, alphasort);
	if (n < 0) {
		snprintf(err, len, "--events: unknown tracepoint system '%s' (see --events list)", sys);
		return -1;
	}
	for (int i = 0; i < n; i++) {
		char id[1024];
		struct stat st;
		int rc = 0;

		snprintf(id, sizeof(id), "%s/%s/id", dir, names[i]->d_name);
		if (!fnmatch(pat, names[i]->d_name, 0) && !stat(id, &st)) {
			rc = add_tracepoint(set, sys, names[i]->d_name, err, len);
			added++;
		}
		free(names[i]);
		if (rc) {
			while (++i < n)
				free(names[i]);
			free(names);
			return -1;
		}
	}
	free(names);
	if (!added) {
		snprintf(err, len, "--events: no tracepoint matches '%s'", tok);
		return -1;
	}
	return 0;
}

static int parse_pfm(struct mmt_event_set *set, const char *tok, char *err, size_t len)
{
	struct mmt_event *e;
	pfm_perf_encode_arg_t arg;
	/* Kernel-mode counting needs root or perf_event_paranoid <= 1. */
	int plm = PFM_PLM3 | ((geteuid() == 0 || paranoid() <= 1) ? PFM_PLM0 : 0);
	int rc;

	if (!pfm_ready()) {
		snprintf(err, len, "--events: libpfm4 failed to initialise");
		return -1;
	}
	if (add_event(set, tok, err, len))
		return -1;
	e = &set->ev[set->nr - 1];
	memset(&arg, 0, sizeof(arg));
	arg.attr = &e->attr;
	arg.size = sizeof(arg);
	rc = pfm_get_os_event_encoding(tok, plm, PFM_OS_PERF_EVENT_EXT, &arg);
	if (rc != PFM_SUCCESS) {
		if (rc == PFM_ERR_NOTFOUND)
			snprintf(err, len, "--events: unknown event '%s' (see --events list)", tok);
		else
			snprintf(err, len, "--events: '%s': %s", tok, pfm_strerror(rc));
		return -1;
	}
	e->kind = e->attr.type == PERF_TYPE_SOFTWARE ? MMT_EV_SOFTWARE : MMT_EV_PMU;
	finish_attr(&e->attr);
	return 0;
}

int mmt_events_parse(const char *list, struct mmt_event_set *set, char *err, size_t len)
{
	char buf[2048], *tok, *save = NULL;

	memset(set, 0, sizeof(*set));
	set->system_wide_tracepoints = geteuid() == 0 || paranoid() <= 0;
	if (!strcmp(list, "none"))
		return 0;
	snprintf(buf, sizeof(buf), "%s", list);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		const char *colon = strchr(tok, ':');
		int rc;

		if (colon && colon[1] != ':' && !strstr(tok, "::")) {
			if (!set->tracefs[0] && !find_tracefs(set->tracefs, sizeof(set->tracefs))) {
				mmt_tracefs_prepare();
				find_tracefs(set->tracefs, sizeof(set->tracefs));
			}
			rc = parse_tracepoint(set, tok, err, len);
		} else {
			rc = parse_pfm(set, tok, err, len);
		}
		if (rc)
			return -1;
	}
	if (!set->nr) {
		snprintf(err, len, "--events: empty list");
		return -1;
	}
	return 0;
}

/* ---- opening, reading ----------------------------------------------------- */

static int perf_open(struct perf_event_attr *a, pid_t pid, int cpu, int group)
{
	return (int)syscall(__NR_perf_event_open, a, pid, cpu, group, PERF_FLAG_FD_CLOEXEC);
}

static bool thread_scope(const struct mmt_event_set *set, const struct mmt_event *e)
{
	return e->kind != MMT_EV_TRACEPOINT || !set->system_wide_tracepoints;
}

/* Events of one kind form groups (PMU events at most MMT_GROUP_MAX to a
 * group); a member whose open fails is left out with its errno. */
static void open_kind(const struct mmt_event_set *set, struct mmt_counters *c, pid_t pid, int cpu,
		      enum mmt_event_kind kind, bool want_thread_scope)
{
	int leader = -1, members = 0;

	for (unsigned i = 0; i < set->nr; i++) {
		const struct mmt_event *e = &set->ev[i];
		struct perf_event_attr a;

		if (e->kind != kind || thread_scope(set, e) != want_thread_scope || e->unsupported[0])
			continue;
		if (leader >= 0 && kind == MMT_EV_PMU && members == MMT_GROUP_MAX)
			leader = -1;
		a = e->attr;
		c->fd[i] = perf_open(&a, pid, cpu, leader >= 0 ? c->fd[leader] : -1);
		if (c->fd[i] < 0) {
			c->err[i] = errno;
			continue;
		}
		if (leader < 0) {
			leader = (int)i;
			members = 0;
		}
		c->leader[i] = leader;
		members++;
	}
}

static void counters_init(struct mmt_counters *c)
{
	memset(c, 0, sizeof(*c));
	for (unsigned i = 0; i < MMT_MAX_EVENTS; i++) {
		c->fd[i] = -1;
		c->leader[i] = -1;
	}
}

void mmt_counters_open_thread(const struct mmt_event_set *set, struct mmt_counters *c)
{
	counters_init(c);
	open_kind(set, c, 0, -1, MMT_EV_PMU, true);
	open_kind(set, c, 0, -1, MMT_EV_SOFTWARE, true);
	open_kind(set, c, 0, -1, MMT_EV_TRACEPOINT, true);
}

void mmt_counters_open_cpu(const struct mmt_event_set *set, int cpu, struct mmt_counters *c)
{
	counters_init(c);
	open_kind(set, c, -1, cpu, MMT_EV_TRACEPOINT, false);
}

static void group_ioctl(const struct mmt_event_set *set, struct mmt_counters *c, unsigned long req)
{
	for (unsigned i = 0; i < set->nr; i++)
		if (c->fd[i] >= 0 && c->leader[i] == (int)i)
			ioctl(c->fd[i], req, PERF_IOC_FLAG_GROUP);
}

void mmt_counters_enable(const struct mmt_event_set *set, struct mmt_counters *c)
{
	group_ioctl(set, c, PERF_EVENT_IOC_ENABLE);
}

void mmt_counters_disable(const struct mmt_event_set *set, struct mmt_counters *c)
{
	group_ioctl(set, c, PERF_EVENT_IOC_DISABLE);
}

void mmt_counters_collect(const struct mmt_event_set *set, struct mmt_counters *c)
{
	for (unsigned i = 0; i < set->nr; i++) {
		uint64_t buf[3 + MMT_MAX_EVENTS];
		unsigned k = 0;

		if (c->fd[i] < 0 || c->leader[i] != (int)i)
			continue;
		if (read(c->fd[i], buf, sizeof(buf)) < (ssize_t)(3 * sizeof(uint64_t))) {
			for (unsigned j = i; j < set->nr; j++)
				if (c->leader[j] == (int)i)
					c->err[j] = EIO;
			continue;
		}
		/* Members come back in the order they joined: index order. */
		for (unsigned j = i; j < set->nr && k < buf[0]; j++) {
			if (c->fd[j] < 0 || c->leader[j] != (int)i)
				continue;
			c->enabled[j] = buf[1];
			c->running[j] = buf[2];
			c->value[j] = buf[3 + k++];
		}
	}
	for (unsigned i = 0; i < set->nr; i++) {
		if (c->fd[i] >= 0)
			close(c->fd[i]);
		c->fd[i] = c->err[i] ? -1 : -2; /* -2: was open and read */
	}
}

bool mmt_counter_scale(uint64_t raw, uint64_t enabled, uint64_t running, double *scaled, double *ratio)
{
	if (!running) {
		*scaled = 0;
		*ratio = 0;
		return false;
	}
	*ratio = enabled ? (double)running / (double)enabled : 1.0;
	if (*ratio > 1.0)
		*ratio = 1.0;
	*scaled = running < enabled ? (double)raw * (double)enabled / (double)running : (double)raw;
	return true;
}

/* ---- results ----------------------------------------------------------------- */

static void reason_for(int err, const struct mmt_event *e, char *buf, size_t len)
{
	switch (err) {
	case ENOENT:
	case EOPNOTSUPP:
		snprintf(buf, len, "%s: not supported here (%s)%s",
			 e->kind == MMT_EV_PMU ? "no such hardware counter" : "event not available",
			 strerror(err),
			 e->kind == MMT_EV_PMU ? "; a virtual machine often exposes no PMU" : "");
		break;
	case EACCES:
	case EPERM:
		snprintf(buf, len, "not permitted (perf_event_paranoid=%d): run as root or lower it",
			 paranoid());
		break;
	default:
		snprintf(buf, len, "perf_event_open: %s", strerror(err));
	}
}

static const char *kind_name(enum mmt_event_kind k)
{
	return k == MMT_EV_PMU ? "pmu" : k == MMT_EV_SOFTWARE ? "software" : "tracepoint";
}

static json_t *event_json(const struct mmt_event_set *set, unsigned i, const struct mmt_counters *cs,
			  unsigned n, const int *cpu_ids, uint64_t ops, double *total_out)
{
	const struct mmt_event *e = &set->ev[i];
	bool system = !thread_scope(set, e);
	json_t *per = json_array(), *ev;
	double total = 0, worst = 1.0;
	unsigned counted = 0, failed = 0;
	int err = 0;
	char reason[256] = "";

	for (unsigned k = 0; k < n; k++) {
		double scaled, ratio;

		if (cs[k].err[i] || cs[k].fd[i] == -1) {
			failed++;
			err = cs[k].err[i] ? cs[k].err[i] : err;
			json_array_append_new(per, json_null());
			continue;
		}
		if (!mmt_counter_scale(cs[k].value[i], cs[k].enabled[i], cs[k].running[i], &scaled, &ratio)) {
			json_array_append_new(per, json_null());
			continue;
		}
		counted++;
		total += scaled;
		if (ratio < worst)
			worst = ratio;
		json_array_append_new(per, json_real(scaled));
	}
	*total_out = counted ? total : -1;
	if (e->unsupported[0] || (n && failed == n) || !n) {
		if (e->unsupported[0])
			snprintf(reason, sizeof(reason), "%s", e->unsupported);
		else if (!n)
			snprintf(reason, sizeof(reason), "no CPU to count on");
		else
			reason_for(err, e, reason, sizeof(reason));
		json_decref(per);
		*total_out = -1;
		return json_pack("{s:s,s:s,s:s,s:s,s:s,s:n,s:n,s:n}", "name", e->name, "kind",
				 kind_name(e->kind), "scope", system ? "system" : "thread", "status",
				 "unsupported", "reason", reason, "value", "scaling", "per_op");
	}
	if (!counted) {
		json_decref(per);
		return json_pack("{s:s,s:s,s:s,s:s,s:s,s:n,s:n,s:n}", "name", e->name, "kind",
				 kind_name(e->kind), "scope", system ? "system" : "thread", "status",
				 "not-counted", "reason", "never scheduled: multiplexed out for the whole run",
				 "value", "scaling", "per_op");
	}
	ev = json_pack("{s:s,s:s,s:s,s:s,s:n,s:f,s:f,s:o}", "name", e->name, "kind",
		       kind_name(e->kind), "scope", system ? "system" : "thread", "status", "ok",
		       "reason", "value", total, "scaling", worst,
		       "per_op", ops ? json_real(total / (double)ops) : json_null());
	json_object_set_new(ev, system ? "per_cpu" : "per_worker", per);
	if (system) {
		json_t *ids = json_array();

		for (unsigned k = 0; k < n; k++)
			json_array_append_new(ids, json_integer(cpu_ids[k]));
		json_object_set_new(ev, "cpus", ids);
	} else {
		/* Some workers could not open it: the total covers the others. */
		json_object_set_new(ev, "partial", json_boolean(failed > 0));
	}
	return ev;
}

json_t *mmt_counters_json(const struct mmt_event_set *set, const struct mmt_counters *threads,
			  unsigned nr_threads, const struct mmt_counters *cpus, const int *cpu_ids,
			  unsigned nr_cpus, uint64_t ops)
{
	json_t *events = json_array(), *derived;
	double cycles = -1, instructions = -1;

	for (unsigned i = 0; i < set->nr; i++) {
		const struct mmt_event *e = &set->ev[i];
		bool system = !thread_scope(set, e);
		double total;
		json_t *ev = system ? event_json(set, i, cpus, nr_cpus, cpu_ids, ops, &total)
				    : event_json(set, i, threads, nr_threads, NULL, ops, &total);

		if (e->kind == MMT_EV_PMU && e->attr.type == PERF_TYPE_HARDWARE) {
			if (e->attr.config == PERF_COUNT_HW_CPU_CYCLES)
				cycles = total;
			if (e->attr.config == PERF_COUNT_HW_INSTRUCTIONS)
				instructions = total;
		}
		json_array_append_new(events, ev);
	}
	derived = json_pack("{s:o,s:o,s:o}",
			    "ipc", cycles > 0 && instructions >= 0 ? json_real(instructions / cycles) : json_null(),
			    "cycles_per_op", cycles >= 0 && ops ? json_real(cycles / (double)ops) : json_null(),
			    "instructions_per_op",
			    instructions >= 0 && ops ? json_real(instructions / (double)ops) : json_null());
	return json_pack("{s:o,s:o}", "events", events, "derived", derived);
}

/* ---- --events list --------------------------------------------------------- */

static void list_one(FILE *f, const char *name)
{
	struct mmt_event_set set;
	struct mmt_counters c;
	char err[256];

	if (mmt_events_parse(name, &set, err, sizeof(err))) {
		fprintf(f, "  %-20s %s\n", name, err);
		return;
	}
	mmt_counters_open_thread(&set, &c);
	if (set.ev[0].unsupported[0]) {
		fprintf(f, "  %-20s unsupported: %s\n", name, set.ev[0].unsupported);
	} else if (c.fd[0] < 0) {
		char reason[256];

		reason_for(c.err[0], &set.ev[0], reason, sizeof(reason));
		fprintf(f, "  %-20s unsupported: %s\n", name, reason);
	} else {
		fprintf(f, "  %-20s available\n", name);
	}
	mmt_counters_collect(&set, &c);
}

void mmt_events_list(FILE *f)
{
	static const char *const generic[] = { "cycles", "instructions", "cache-references",
		"cache-misses", "branches", "branch-misses" };
	static const char *const software[] = { "task-clock", "context-switches", "cpu-migrations",
		"page-faults", "major-faults", "minor-faults" };
	static const char *const systems[] = { "tlb", "migrate", "compaction", "huge_memory", "ipi" };
	char tracefs[256] = "";

	mmt_tracefs_prepare();
	fprintf(f, "generic hardware events (libpfm4 encodes them; availability is what perf_event_open says):\n");
	for (size_t i = 0; i < sizeof(generic) / sizeof(generic[0]); i++)
		list_one(f, generic[i]);
	fprintf(f, "software events:\n");
	for (size_t i = 0; i < sizeof(software) / sizeof(software[0]); i++)
		list_one(f, software[i]);
	if (pfm_ready()) {
		fprintf(f, "PMUs libpfm4 detects (use PMU::EVENT[:UMASK]):\n");
		for (int p = 0; p < PFM_PMU_MAX; p++) {
			pfm_pmu_info_t pi;

			memset(&pi, 0, sizeof(pi));
			pi.size = sizeof(pi);
			if (pfm_get_pmu_info(p, &pi) == PFM_SUCCESS && pi.is_present)
				fprintf(f, "  %-20s %s, %d events\n", pi.name, pi.desc, pi.nevents);
		}
	}
	find_tracefs(tracefs, sizeof(tracefs));
	fprintf(f, "tracepoints (SYS:EVENT, SYS:* for all; counted per CPU system-wide when root):\n");
	if (!tracefs[0]) {
		fprintf(f, "  tracefs is not mounted here%s\n",
			geteuid() == 0 ? " (runs mount a private one)" : " (root needed)");
		return;
	}
	for (size_t i = 0; i < sizeof(systems) / sizeof(systems[0]); i++) {
		char dir[512];
		struct dirent **names;
		int n;

		snprintf(dir, sizeof(dir), "%s/events/%s", tracefs, systems[i]);
		n = scandir(dir, &names, NULL, alphasort);
		for (int k = 0; k < n; k++) {
			if (names[k]->d_name[0] != '.' && strcmp(names[k]->d_name, "enable") &&
			    strcmp(names[k]->d_name, "filter"))
				fprintf(f, "  %s:%s\n", systems[i], names[k]->d_name);
			free(names[k]);
		}
		if (n >= 0)
			free(names);
	}
}
