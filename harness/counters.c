/* SPDX-License-Identifier: MIT */
#include "counters.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
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
	snprintf(e->via, sizeof(e->via), "tracefs");
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

/* ---- ordering events ---------------------------------------------------------- */

/*
 * Events that count the CPU catching its own reordering: a load executed
 * ahead of an older one whose line was then taken by another CPU (a snoop
 * hit), so the pipeline is cleared and the load replayed.  That is the
 * reordering SB and MP witness when it escapes; the count says how often
 * the CPU stopped it.  Rows are tried in order; the first that libpfm4
 * resolves on this machine's PMU is used.
 */
const struct mmt_ordering_event mmt_ordering_events[] = {
	/* Intel Sandy Bridge to Sapphire Rapids, Silvermont, Goldmont:
	 * event 0xC3 umask 0x02 (SDM vol. 3B, "MACHINE_CLEARS.MEMORY_ORDERING"). */
	{ "Intel core (snb and later), slm, glm", "MACHINE_CLEARS:MEMORY_ORDERING",
	  "machine clears: a load's line was snooped away before it retired" },
	/* Nehalem, Westmere: the same event and umask under its old name. */
	{ "Intel nhm, wsm", "MACHINE_CLEARS:MEM_ORDER",
	  "machine clears: a load's line was snooped away before it retired" },
	/* AMD families 10h-15h, EventSelect 022h (BKDG): a probe hit a load
	 * that had already returned its data out of order. */
	{ "AMD fam10h, fam15h", "PIPELINE_RESTART_DUE_TO_PROBE_HIT",
	  "pipeline restarts: a probe hit a load executed out of order" },
};
const unsigned mmt_nr_ordering_events = sizeof(mmt_ordering_events) / sizeof(mmt_ordering_events[0]);

/* Why there is none: the families without such an event, then what
 * libpfm4 sees here. */
#define NO_ORDERING_EVENT \
	"no memory-ordering clear event for this PMU (Intel MACHINE_CLEARS:MEMORY_ORDERING, " \
	"AMD fam10h/15h PIPELINE_RESTART_DUE_TO_PROBE_HIT; AMD Zen and the Arm PMU " \
	"architecture define none)"

static void present_pmus(char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (int p = 0; p < PFM_PMU_MAX && n + 1 < len; p++) {
		pfm_pmu_info_t pi;

		memset(&pi, 0, sizeof(pi));
		pi.size = sizeof(pi);
		if (pfm_get_pmu_info(p, &pi) == PFM_SUCCESS && pi.is_present)
			n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? " " : "", pi.name);
	}
}

/* A core PMU libpfm4 knows, beyond its generic perf/perf_raw tables. */
static bool core_pmu_detected(void)
{
	for (int p = 0; p < PFM_PMU_MAX; p++) {
		pfm_pmu_info_t pi;

		memset(&pi, 0, sizeof(pi));
		pi.size = sizeof(pi);
		if (pfm_get_pmu_info(p, &pi) == PFM_SUCCESS && pi.is_present &&
		    pi.type == PFM_PMU_TYPE_CORE && strcmp(pi.name, "perf") && strcmp(pi.name, "perf_raw"))
			return true;
	}
	return false;
}

/* Says how libpfm4 encoded e (which PMU table, or the kernel's generic
 * or raw encodings) and why. */
static void describe_encoding(struct mmt_event *e, int idx)
{
	pfm_event_info_t ei;
	pfm_pmu_info_t pi;

	memset(&ei, 0, sizeof(ei));
	ei.size = sizeof(ei);
	memset(&pi, 0, sizeof(pi));
	pi.size = sizeof(pi);
	if (pfm_get_event_info(idx, PFM_OS_PERF_EVENT_EXT, &ei) == PFM_SUCCESS)
		pfm_get_pmu_info(ei.pmu, &pi);
	snprintf(e->pmu, sizeof(e->pmu), "%s", pi.name ? pi.name : "?");
	if (e->attr.type == PERF_TYPE_SOFTWARE) {
		snprintf(e->via, sizeof(e->via), "software");
	} else if (pi.name && !strcmp(pi.name, "perf_raw")) {
		snprintf(e->via, sizeof(e->via), "raw");
		snprintf(e->via_note, sizeof(e->via_note),
			 "raw event code for the CPU's core PMU (PERF_TYPE_RAW), unchecked by libpfm4");
	} else if (pi.name && !strcmp(pi.name, "perf")) {
		snprintf(e->via, sizeof(e->via), "generic");
		snprintf(e->via_note, sizeof(e->via_note), "%s",
			 core_pmu_detected()
				 ? "the kernel's generic event, mapped by its PMU driver"
				 : "libpfm4 detects no core PMU here: the kernel's generic event, mapped by its PMU driver");
	} else {
		snprintf(e->via, sizeof(e->via), "libpfm4");
	}
}

/* PMU::event that libpfm4 does not know, from the kernel's own names:
 * /sys/bus/event_source/devices/PMU/{type,events/EVENT,format/TERM}
 * (e.g. armv8_pmuv3::inst_retired in QEMU's arm64 guest, whose events
 * file says "event=0x08" and format/event "config:0-15").  0: encoded; 1:
 * no such PMU or event there, or terms beyond config. */
static int encode_sysfs(struct mmt_event *e, const char *tok)
{
	const char *sep = strstr(tok, "::");
	char pmu[64], ev[96], path[400], buf[256], *term, *save = NULL;
	FILE *f;
	int n;

	if (!sep || sep == tok || (size_t)(sep - tok) >= sizeof(pmu) || strchr(sep + 2, ':') ||
	    strchr(tok, '/') || strlen(sep + 2) >= sizeof(ev))
		return 1;
	snprintf(pmu, sizeof(pmu), "%.*s", (int)(sep - tok), tok);
	snprintf(ev, sizeof(ev), "%s", sep + 2);
	snprintf(path, sizeof(path), "/sys/bus/event_source/devices/%s/type", pmu);
	if (!(f = fopen(path, "r")))
		return 1;
	n = fscanf(f, "%u", &e->attr.type);
	fclose(f);
	if (n != 1)
		return 1;
	snprintf(path, sizeof(path), "/sys/bus/event_source/devices/%s/events/%s", pmu, ev);
	if (!(f = fopen(path, "r")))
		return 1;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = '\0';
	fclose(f);
	e->attr.config = 0;
	for (term = strtok_r(buf, ",\n", &save); term; term = strtok_r(NULL, ",\n", &save)) {
		char fmt[64] = "", *eq = strchr(term, '=');
		unsigned lo = 0, hi = 0;
		unsigned long long v = 1;

		if (eq) {
			*eq = '\0';
			v = strtoull(eq + 1, NULL, 0);
		}
		snprintf(path, sizeof(path), "/sys/bus/event_source/devices/%s/format/%s", pmu, term);
		if (!(f = fopen(path, "r")))
			return 1;
		/* "config:0-15" or "config:7"; only config terms are supported */
		n = fscanf(f, "%63[^:]:%u-%u", fmt, &lo, &hi);

		fclose(f);
		if (n < 2 || strcmp(fmt, "config"))
			return 1;
		if (n == 2)
			hi = lo;
		if (hi < 64 && hi >= lo)
			e->attr.config |= (v & (hi - lo == 63 ? ~0ULL : (1ULL << (hi - lo + 1)) - 1)) << lo;
	}
	snprintf(e->via, sizeof(e->via), "sysfs");
	snprintf(e->pmu, sizeof(e->pmu), "%s", pmu);
	snprintf(e->via_note, sizeof(e->via_note),
		 "libpfm4 does not know PMU '%.40s' here: encoded from the kernel's sysfs event names", pmu);
	return 0;
}

static int pfm_encode(const char *tok, struct perf_event_attr *attr, int *idx)
{
	pfm_perf_encode_arg_t arg;
	/* Kernel-mode counting needs root or perf_event_paranoid <= 1. */
	int plm = PFM_PLM3 | ((geteuid() == 0 || paranoid() <= 1) ? PFM_PLM0 : 0);
	int rc;

	memset(&arg, 0, sizeof(arg));
	arg.attr = attr;
	arg.size = sizeof(arg);
	rc = pfm_get_os_event_encoding(tok, plm, PFM_OS_PERF_EVENT_EXT, &arg);
	*idx = arg.idx;
	return rc;
}

/* "ordering": the first row of mmt_ordering_events this PMU has, or a
 * placeholder that says why there is none (never bad input: it is a
 * property of the machine, not of the command line). */
static int add_ordering(struct mmt_event_set *set, char *err, size_t len)
{
	struct mmt_event *e;
	char pmus[200];

	if (add_event(set, "ordering", err, len))
		return -1;
	e = &set->ev[set->nr - 1];
	e->kind = MMT_EV_PMU;
	e->ordering = true;
	for (unsigned i = 0; i < mmt_nr_ordering_events; i++) {
		struct perf_event_attr a;
		int idx;

		memset(&a, 0, sizeof(a));
		if (pfm_encode(mmt_ordering_events[i].event, &a, &idx) != PFM_SUCCESS)
			continue;
		snprintf(e->name, sizeof(e->name), "%s", mmt_ordering_events[i].event);
		e->attr = a;
		describe_encoding(e, idx);
		snprintf(e->via_note, sizeof(e->via_note), "%s", mmt_ordering_events[i].counts);
		finish_attr(&e->attr);
		return 0;
	}
	present_pmus(pmus, sizeof(pmus));
	snprintf(e->unsupported, sizeof(e->unsupported), "%s; libpfm4 detects: %.100s", NO_ORDERING_EVENT,
		 pmus[0] ? pmus : "nothing");
	snprintf(e->via, sizeof(e->via), "none");
	return 0;
}

static int parse_pfm(struct mmt_event_set *set, const char *tok, char *err, size_t len)
{
	struct mmt_event *e;
	int rc, idx;

	if (!pfm_ready()) {
		snprintf(err, len, "--events: libpfm4 failed to initialise");
		return -1;
	}
	if (!strcmp(tok, "ordering")) {
		/* Once, though several scenarios' defaults ask for it. */
		for (unsigned i = 0; i < set->nr; i++)
			if (set->ev[i].ordering)
				return 0;
		return add_ordering(set, err, len);
	}
	if (add_event(set, tok, err, len))
		return -1;
	e = &set->ev[set->nr - 1];
	rc = pfm_encode(tok, &e->attr, &idx);
	if (rc == PFM_SUCCESS) {
		describe_encoding(e, idx);
	} else if (rc == PFM_ERR_NOTFOUND && !encode_sysfs(e, tok)) {
		/* the kernel names it though libpfm4 does not */
	} else {
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

static bool pfm_resolves(const char *tok)
{
	struct perf_event_attr a;
	int idx;

	memset(&a, 0, sizeof(a));
	return pfm_ready() && pfm_encode(tok, &a, &idx) == PFM_SUCCESS;
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

		/* SYS:EVENT is a tracepoint unless libpfm4 takes it as
		 * EVENT:UMASK or EVENT:MODIFIER (cycles:pinned=1). */
		if (colon && colon[1] != ':' && !strstr(tok, "::") && !pfm_resolves(tok)) {
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
	bool closed = false;	/* the current group takes no more members */

	for (unsigned i = 0; i < set->nr; i++) {
		const struct mmt_event *e = &set->ev[i];
		struct perf_event_attr a;

		if (e->kind != kind || thread_scope(set, e) != want_thread_scope || e->unsupported[0])
			continue;
		/* A pinned (or exclusive) event leads a group of its own: the
		 * kernel keeps it on the PMU all the time, the reference that
		 * multiplexed copies of it are checked against. */
		bool alone = e->attr.pinned || e->attr.exclusive;

		if (leader >= 0 && (closed || alone || (kind == MMT_EV_PMU && members == MMT_GROUP_MAX)))
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
		closed = alone;
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

/* One event's readings across workers (or CPUs), scaled for multiplexing. */
struct event_totals {
	double total, worst;	/* scaled sum; the least time an event ran / was enabled */
	unsigned counted, failed;
	int err;		/* an open error, for the reason */
};

static void read_event(const struct mmt_counters *cs, unsigned n, unsigned i, struct mmt_event_reading *r,
		       struct event_totals *t)
{
	*t = (struct event_totals){ 0, 1.0, 0, 0, 0 };
	for (unsigned k = 0; k < n; k++) {
		double ratio;

		/* What was read, before scaling: lets a reader redo it. */
		r[k] = (struct mmt_event_reading){ .opened = !cs[k].err[i] && cs[k].fd[i] != -1,
						   .raw = cs[k].value[i], .enabled = cs[k].enabled[i],
						   .running = cs[k].running[i] };
		if (!r[k].opened) {
			t->failed++;
			t->err = cs[k].err[i] ? cs[k].err[i] : t->err;
			continue;
		}
		r[k].scaled = mmt_counter_scale(cs[k].value[i], cs[k].enabled[i], cs[k].running[i], &r[k].per, &ratio);
		if (!r[k].scaled)
			continue;
		t->counted++;
		t->total += r[k].per;
		if (ratio < t->worst)
			t->worst = ratio;
	}
}

/* Event i's report; its total into *total_out (-1: none). */
static int event_report(const struct mmt_event_set *set, unsigned i, const struct mmt_counters *cs, unsigned n,
			const int *cpu_ids, uint64_t ops, struct mmt_event_report *ev, double *total_out)
{
	const struct mmt_event *e = &set->ev[i];
	struct event_totals t;

	*ev = (struct mmt_event_report){ .e = e, .kind = kind_name(e->kind), .system = !thread_scope(set, e),
					 .n = n, .cpu_ids = cpu_ids, .value = NAN, .scaling = NAN, .per_op = NAN };
	*total_out = -1;
	ev->readings = calloc(n ? n : 1, sizeof(*ev->readings));
	if (!ev->readings)
		return -1;
	read_event(cs, n, i, ev->readings, &t);
	if (e->unsupported[0] || (n && t.failed == n) || !n) {
		ev->status = "unsupported";
		if (e->unsupported[0])
			snprintf(ev->reason, sizeof(ev->reason), "%s", e->unsupported);
		else if (!n)
			snprintf(ev->reason, sizeof(ev->reason), "no CPU to count on");
		else
			reason_for(t.err, e, ev->reason, sizeof(ev->reason));
		return 0;
	}
	if (!t.counted) {
		ev->status = "not-counted";
		snprintf(ev->reason, sizeof(ev->reason), "never scheduled: multiplexed out for the whole run");
		return 0;
	}
	*total_out = t.total;
	ev->status = "ok";
	ev->value = t.total;
	ev->scaling = t.worst;
	ev->per_op = ops ? t.total / (double)ops : NAN;
	/* Some workers could not open it: the total covers the others. */
	ev->partial = t.failed > 0;
	return 0;
}

int mmt_counters_report(const struct mmt_event_set *set, const struct mmt_counters *threads, unsigned nr_threads,
			const struct mmt_counters *cpus, const int *cpu_ids, unsigned nr_cpus, uint64_t ops,
			struct mmt_counters_report *out)
{
	double cycles = -1, instructions = -1, ordering = -1;

	*out = (struct mmt_counters_report){ .events = calloc(set->nr ? set->nr : 1, sizeof(*out->events)) };
	if (!out->events)
		return -1;
	for (unsigned i = 0; i < set->nr; i++) {
		const struct mmt_event *e = &set->ev[i];
		double total;
		int rc = thread_scope(set, e) ? event_report(set, i, threads, nr_threads, NULL, ops, &out->events[i], &total)
					      : event_report(set, i, cpus, nr_cpus, cpu_ids, ops, &out->events[i], &total);

		out->nr = i + 1;
		if (rc)
			return -1;
		if (e->ordering && total >= 0)
			ordering = total;
		if (e->kind == MMT_EV_PMU && e->attr.type == PERF_TYPE_HARDWARE) {
			if (e->attr.config == PERF_COUNT_HW_CPU_CYCLES)
				cycles = total;
			if (e->attr.config == PERF_COUNT_HW_INSTRUCTIONS)
				instructions = total;
		}
	}
	out->ordering_per_op = ordering >= 0 && ops ? ordering / (double)ops : NAN;
	out->ipc = cycles > 0 && instructions >= 0 ? instructions / cycles : NAN;
	out->cycles_per_op = cycles >= 0 && ops ? cycles / (double)ops : NAN;
	out->instructions_per_op = instructions >= 0 && ops ? instructions / (double)ops : NAN;
	return 0;
}

void mmt_counters_report_free(struct mmt_counters_report *r)
{
	for (unsigned i = 0; i < r->nr; i++)
		free(r->events[i].readings);
	free(r->events);
	r->events = NULL;
	r->nr = 0;
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

/* The kernel's named events, for PMUs libpfm4 may not know. */
static void list_sysfs_pmus(FILE *f)
{
	const char *base = "/sys/bus/event_source/devices";
	struct dirent **pmus;
	int n = scandir(base, &pmus, NULL, alphasort);

	if (n < 0)
		return;
	fprintf(f, "kernel PMU events (PMU::event, from %s when libpfm4 does not name them):\n", base);
	for (int i = 0; i < n; i++) {
		char dir[512];
		struct dirent **evs;
		int m;

		snprintf(dir, sizeof(dir), "%s/%s/events", base, pmus[i]->d_name);
		m = pmus[i]->d_name[0] == '.' ? -1 : scandir(dir, &evs, NULL, alphasort);
		if (m > 0) {
			fprintf(f, "  %s:", pmus[i]->d_name);
			for (int k = 0; k < m; k++)
				if (evs[k]->d_name[0] != '.')
					fprintf(f, " %s", evs[k]->d_name);
			fprintf(f, "\n");
		}
		for (int k = 0; k < m; k++)
			free(evs[k]);
		if (m >= 0)
			free(evs);
		free(pmus[i]);
	}
	free(pmus);
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
	fprintf(f, "memory-ordering clears (\"ordering\"; litmus and msgpass count it by default):\n");
	list_one(f, "ordering");
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
	list_sysfs_pmus(f);
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
