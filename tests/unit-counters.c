/* SPDX-License-Identifier: MIT */
/*
 * Counters: event parsing and its errors, multiplex scaling on synthetic
 * readings, derived figures, and the honest path on this machine (a real
 * software event counts; a hardware event that cannot be opened is
 * "unsupported" with a reason, never a number).  The ordering table is
 * checked against libpfm4's own tables, each row on the PMU it names
 * (LIBPFM_FORCE_PMU, in a child: libpfm4 initialises once per process).
 */
#include "counters.h"
#include "tap.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static void parsing(void)
{
	struct mmt_event_set set;
	char err[256];

	tap_ok(!mmt_events_parse("cycles,task-clock", &set, err, sizeof(err)) && set.nr == 2 &&
		       set.ev[0].kind == MMT_EV_PMU && set.ev[1].kind == MMT_EV_SOFTWARE,
	       "cycles is a PMU event, task-clock a software one");
	tap_ok(!mmt_events_parse("perf::PERF_COUNT_SW_PAGE_FAULTS", &set, err, sizeof(err)) &&
		       set.ev[0].kind == MMT_EV_SOFTWARE,
	       "PMU::NAME syntax");
	tap_ok(!mmt_events_parse("none", &set, err, sizeof(err)) && set.nr == 0, "'none': no events");
	tap_ok(mmt_events_parse("bogus", &set, err, sizeof(err)) == -1 && strstr(err, "unknown event 'bogus'"),
	       "unknown event refused: %s", err);
	tap_ok(mmt_events_parse("cycles,,", &set, err, sizeof(err)) == 0 && set.nr == 1,
	       "empty items are ignored");
	tap_ok(mmt_events_parse(",", &set, err, sizeof(err)) == -1 && strstr(err, "empty"),
	       "an empty list is refused: %s", err);
	tap_ok(mmt_events_parse("a:b:c", &set, err, sizeof(err)) == -1 && strstr(err, "not an event"),
	       "sys:event:extra refused: %s", err);
	tap_ok(mmt_events_parse(":x", &set, err, sizeof(err)) == -1, "empty tracepoint system refused");
	if (!mmt_events_parse("tlb:tlb_flush", &set, err, sizeof(err)) && !set.ev[0].unsupported[0]) {
		tap_ok(set.ev[0].kind == MMT_EV_TRACEPOINT && set.ev[0].attr.type == PERF_TYPE_TRACEPOINT &&
			       set.ev[0].attr.config > 0,
		       "tlb:tlb_flush resolved to its tracefs id (%llu)",
		       (unsigned long long)set.ev[0].attr.config);
		tap_ok(mmt_events_parse("tlb:no_such_event", &set, err, sizeof(err)) == -1 &&
			       strstr(err, "unknown tracepoint"),
		       "unknown tracepoint refused: %s", err);
		int rc = mmt_events_parse("compaction:*", &set, err, sizeof(err));

		tap_ok(!rc && set.nr > 3, "compaction:* expands to %u tracepoints", set.nr);
		tap_ok(mmt_events_parse("nosys:*", &set, err, sizeof(err)) == -1, "unknown system refused");
	} else {
		for (int i = 0; i < 4; i++)
			printf("ok %d - # SKIP tracefs not available here\n", ++tap_n);
	}
}

/* Each row of the ordering table resolves, on a PMU of the family it
 * names, to the documented encoding; a family without one says why. */
static const struct {
	const char *force;	/* LIBPFM_FORCE_PMU */
	const char *name;	/* expected event, NULL: unsupported */
	unsigned long long config;
} ordering_cases[] = {
	{ "skl", "MACHINE_CLEARS:MEMORY_ORDERING", 0x2c3 },
	{ "spr", "MACHINE_CLEARS:MEMORY_ORDERING", 0x2c3 },
	{ "slm", "MACHINE_CLEARS:MEMORY_ORDERING", 0x2c3 },
	{ "nhm", "MACHINE_CLEARS:MEM_ORDER", 0x2c3 },
	{ "amd64_fam15h_interlagos", "PIPELINE_RESTART_DUE_TO_PROBE_HIT", 0x22 },
	{ "amd64_fam10h_barcelona", "PIPELINE_RESTART_DUE_TO_PROBE_HIT", 0x22 },
	{ "amd64_fam17h_zen2", NULL, 0 },
	{ "amd64_fam19h_zen4", NULL, 0 },
};

static int ordering_child(unsigned k)
{
	struct mmt_event_set set;
	char err[256];

	setenv("LIBPFM_FORCE_PMU", ordering_cases[k].force, 1);
	if (mmt_events_parse("ordering,ordering", &set, err, sizeof(err)) || set.nr != 1 || !set.ev[0].ordering)
		return 1;
	if (!ordering_cases[k].name)
		return !(set.ev[0].unsupported[0] && strstr(set.ev[0].unsupported, "Zen") &&
			 strstr(set.ev[0].unsupported, ordering_cases[k].force));
	return !(!strcmp(set.ev[0].name, ordering_cases[k].name) && set.ev[0].attr.type == PERF_TYPE_RAW &&
		 set.ev[0].attr.config == ordering_cases[k].config && !strcmp(set.ev[0].via, "libpfm4") &&
		 !strcmp(set.ev[0].pmu, ordering_cases[k].force) && !set.ev[0].unsupported[0]);
}

static void ordering_table(void)
{
	for (unsigned k = 0; k < sizeof(ordering_cases) / sizeof(ordering_cases[0]); k++) {
		int st = -1;
		pid_t pid = fork();

		if (pid == 0)
			_exit(ordering_child(k));
		if (pid > 0 && waitpid(pid, &st, 0) != pid)
			st = -1;
		if (ordering_cases[k].name)
			tap_ok(st == 0, "ordering on %s: %s, raw %#llx, once though asked twice",
			       ordering_cases[k].force, ordering_cases[k].name, ordering_cases[k].config);
		else
			tap_ok(st == 0, "ordering on %s: unsupported, the reason names Zen and the PMU",
			       ordering_cases[k].force);
	}
}

static void encodings(void)
{
	struct mmt_event_set set;
	char err[256];
	struct stat st;
	int rc;

	/* Parse first, then look: the message's arguments must see the result. */
	rc = mmt_events_parse("ordering", &set, err, sizeof(err));
	tap_ok(!rc && set.nr == 1 && set.ev[0].ordering &&
		       (set.ev[0].unsupported[0] || set.ev[0].attr.type == PERF_TYPE_RAW),
	       "ordering here: %s", set.ev[0].unsupported[0] ? set.ev[0].unsupported : set.ev[0].name);
	rc = mmt_events_parse("cycles:pinned=1", &set, err, sizeof(err));
	tap_ok(!rc && set.ev[0].kind == MMT_EV_PMU && set.ev[0].attr.pinned,
	       "cycles:pinned=1 is a pinned PMU event, not a tracepoint");
	rc = mmt_events_parse("r11", &set, err, sizeof(err));
	tap_ok(!rc && set.ev[0].attr.type == PERF_TYPE_RAW && set.ev[0].attr.config == 0x11 &&
		       !strcmp(set.ev[0].via, "raw") && set.ev[0].via_note[0],
	       "r11: raw encoding, recorded with why (%s)", set.ev[0].via_note);
	rc = mmt_events_parse("cycles,task-clock", &set, err, sizeof(err));
	tap_ok(!rc && set.ev[0].attr.type == PERF_TYPE_HARDWARE && !strcmp(set.ev[0].via, "generic") &&
		       set.ev[0].via_note[0] && !strcmp(set.ev[1].via, "software"),
	       "cycles: generic encoding (%s); task-clock: software", set.ev[0].via_note);
	rc = mmt_events_parse("nopmu::nothing", &set, err, sizeof(err));
	tap_ok(rc == -1 && strstr(err, "unknown event"),
	       "PMU::event neither libpfm4 nor sysfs knows: refused (%s)", err);
	if (!stat("/sys/bus/event_source/devices/msr/events/tsc", &st)) {
		rc = mmt_events_parse("msr::tsc", &set, err, sizeof(err));
		tap_ok(!rc && !strcmp(set.ev[0].via, "sysfs") && !strcmp(set.ev[0].pmu, "msr") &&
			       set.ev[0].attr.type > PERF_TYPE_MAX && set.ev[0].kind == MMT_EV_PMU,
		       "msr::tsc: sysfs encoding, type %u config %#llx", set.ev[0].attr.type,
		       (unsigned long long)set.ev[0].attr.config);
	} else {
		printf("ok %d - # SKIP no msr PMU in sysfs to encode from\n", ++tap_n);
	}
}

/* A pinned event leads a group of its own; the next events group anew. */
static void pinned_groups(void)
{
	struct mmt_event_set set;
	struct mmt_counters c;
	char err[256];

	if (mmt_events_parse("task-clock:pinned=1,task-clock,task-clock", &set, err, sizeof(err))) {
		tap_ok(0, "task-clock:pinned=1 parses: %s", err);
		return;
	}
	mmt_counters_open_thread(&set, &c);
	tap_ok(c.fd[0] >= 0 && c.fd[1] >= 0 && c.fd[2] >= 0 && c.leader[0] == 0 && c.leader[1] == 1 &&
		       c.leader[2] == 1,
	       "pinned leads its own group (leaders %d %d %d)", c.leader[0], c.leader[1], c.leader[2]);
	mmt_counters_enable(&set, &c);
	for (volatile unsigned long i = 0; i < 5000000ul; i++)
		;
	mmt_counters_disable(&set, &c);
	mmt_counters_collect(&set, &c);
	tap_ok(c.value[0] > 0 && c.value[1] > 0 && c.value[2] > 0 && c.running[0] == c.enabled[0],
	       "all three counted (%llu %llu %llu ns)", (unsigned long long)c.value[0],
	       (unsigned long long)c.value[1], (unsigned long long)c.value[2]);
}

static void scaling(void)
{
	double v, r;

	tap_ok(mmt_counter_scale(1000, 100, 100, &v, &r) && v == 1000 && r == 1.0,
	       "not multiplexed: value as read, ratio 1");
	tap_ok(mmt_counter_scale(1000, 100, 50, &v, &r) && v == 2000 && r == 0.5,
	       "counted half the time: value doubled, ratio 0.5");
	tap_ok(mmt_counter_scale(7, 300, 100, &v, &r) && fabs(v - 21) < 1e-9 && fabs(r - 1.0 / 3) < 1e-9,
	       "counted a third of the time: value tripled");
	tap_ok(!mmt_counter_scale(1000, 100, 0, &v, &r), "never scheduled: no value at all");
}

static json_t *event_named(json_t *c, const char *name)
{
	size_t i;
	json_t *ev;

	json_array_foreach(json_object_get(c, "events"), i, ev)
		if (!strcmp(json_string_value(json_object_get(ev, "name")), name))
			return ev;
	return NULL;
}

static void synthetic(void)
{
	struct mmt_event_set set;
	struct mmt_counters c[2];
	char err[256];
	json_t *j, *ev;

	if (mmt_events_parse("cycles,instructions,task-clock", &set, err, sizeof(err)))
		abort();
	/* Two workers.  Worker 0: cycles and instructions multiplexed half
	 * the time.  Worker 1: could not open cycles (ENOENT). */
	memset(c, 0, sizeof(c));
	for (int w = 0; w < 2; w++)
		for (int i = 0; i < 3; i++) {
			c[w].fd[i] = -2;
			c[w].enabled[i] = 1000;
			c[w].running[i] = i < 2 && w == 0 ? 500 : 1000;
		}
	c[0].value[0] = 100; /* cycles -> 200 */
	c[0].value[1] = 300; /* instructions -> 600 */
	c[1].value[1] = 400;
	c[1].fd[0] = -1;
	c[1].err[0] = ENOENT;
	c[0].value[2] = c[1].value[2] = 5;
	j = mmt_counters_json(&set, c, 2, NULL, NULL, 0, 100);
	ev = event_named(j, "cycles");
	tap_ok(json_real_value(json_object_get(ev, "value")) == 200 &&
		       json_real_value(json_object_get(ev, "scaling")) == 0.5 &&
		       json_is_true(json_object_get(ev, "partial")),
	       "synthetic multiplexing: cycles scaled to 200, ratio 0.5, partial");
	tap_ok(json_integer_value(json_array_get(json_object_get(ev, "raw"), 0)) == 100 &&
		       json_integer_value(json_array_get(json_object_get(ev, "enabled_ns"), 0)) == 1000 &&
		       json_integer_value(json_array_get(json_object_get(ev, "running_ns"), 0)) == 500 &&
		       json_is_null(json_array_get(json_object_get(ev, "raw"), 1)) &&
		       json_is_string(json_object_get(json_object_get(ev, "encoding"), "via")),
	       "what was read is kept: raw 100, enabled 1000, running 500; null where not opened");
	ev = event_named(j, "instructions");
	tap_ok(json_real_value(json_object_get(ev, "value")) == 1000 &&
		       json_real_value(json_object_get(ev, "per_op")) == 10,
	       "instructions summed over workers (600 + 400), 10 per op");
	tap_ok(fabs(json_real_value(json_object_get(json_object_get(j, "derived"), "ipc")) - 5.0) < 1e-9,
	       "IPC derived from the scaled values");
	json_decref(j);

	c[0].fd[0] = -1;
	c[0].err[0] = ENOENT;
	j = mmt_counters_json(&set, c, 2, NULL, NULL, 0, 100);
	ev = event_named(j, "cycles");
	tap_ok(!strcmp(json_string_value(json_object_get(ev, "status")), "unsupported") &&
		       json_is_null(json_object_get(ev, "value")) &&
		       strstr(json_string_value(json_object_get(ev, "reason")), "not supported"),
	       "no worker could open cycles: unsupported, reason, no value");
	tap_ok(json_is_null(json_object_get(json_object_get(j, "derived"), "ipc")),
	       "no IPC without cycles");
	json_decref(j);

	c[0].fd[0] = c[1].fd[0] = -2;
	c[0].err[0] = c[1].err[0] = 0;
	c[0].running[0] = c[1].running[0] = 0;
	j = mmt_counters_json(&set, c, 2, NULL, NULL, 0, 100);
	ev = event_named(j, "cycles");
	tap_ok(!strcmp(json_string_value(json_object_get(ev, "status")), "not-counted") &&
		       json_is_null(json_object_get(ev, "value")),
	       "multiplexed out the whole run: not-counted, no value");
	json_decref(j);
}

static void real(void)
{
	struct mmt_event_set set;
	struct mmt_counters c;
	char err[256];
	json_t *j, *ev;
	const char *status;

	if (mmt_events_parse("task-clock,cycles", &set, err, sizeof(err)))
		abort();
	mmt_counters_open_thread(&set, &c);
	mmt_counters_enable(&set, &c);
	for (volatile unsigned long i = 0; i < 20000000ul; i++)
		;
	mmt_counters_disable(&set, &c);
	mmt_counters_collect(&set, &c);
	j = mmt_counters_json(&set, &c, 1, NULL, NULL, 0, 1);
	ev = event_named(j, "task-clock");
	tap_ok(!strcmp(json_string_value(json_object_get(ev, "status")), "ok") &&
		       json_real_value(json_object_get(ev, "value")) > 1e6,
	       "task-clock counts a busy loop (%.0f ns)", json_real_value(json_object_get(ev, "value")));
	ev = event_named(j, "cycles");
	status = json_string_value(json_object_get(ev, "status"));
	tap_ok((!strcmp(status, "ok") && json_real_value(json_object_get(ev, "value")) > 1e6) ||
		       (!strcmp(status, "unsupported") && json_is_null(json_object_get(ev, "value")) &&
			json_string_length(json_object_get(ev, "reason")) > 0),
	       "cycles either counts or is unsupported with a reason (%s: %s)", status,
	       json_string_value(json_object_get(ev, "reason")) ? json_string_value(json_object_get(ev, "reason")) : "counted");
	json_decref(j);
}

int main(void)
{
	ordering_table();	/* first: before this process initialises libpfm4 */
	encodings();
	pinned_groups();
	parsing();
	scaling();
	synthetic();
	real();
	return tap_done();
}
