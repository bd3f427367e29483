/* SPDX-License-Identifier: MIT */
/* Results documents: schema round trip, atomic write, corrupt input refused. */
#include "results.h"
#include "tap.h"

#include <dirent.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <unistd.h>

static json_t *good_doc(void)
{
	json_error_t e;
	json_t *doc = json_loads(
		"{\"schema_version\":1,\"interrupted\":false,"
		"\"metadata\":{\"harness\":{\"version\":\"0.1.0\",\"git_revision\":\"abc\","
		"\"compiler\":\"gcc\",\"cflags\":\"-O2\",\"arch\":\"x86_64\"},"
		"\"kernel\":{},\"cpu\":{},\"topology\":{},\"settings\":{},"
		"\"liburcu_version\":\"0.13.2\",\"command_line\":[\"mmtorture\"],\"seed\":\"18446744073709551615\","
		"\"started_at\":\"2026-01-01T00:00:00Z\",\"clock\":{}},"
		"\"runs\":[{\"scenario\":\"msgpass\",\"variant\":\"mb\",\"placement\":\"same-node\","
		"\"repeat\":0,\"status\":\"ok\",\"reason\":null,\"verdict\":\"ok\",\"forbidden\":true,"
		"\"injected\":false,\"threads\":2,\"cpus\":[0,1],\"mem_node\":0,\"seed\":\"1\","
		"\"options\":{},\"iterations\":10,\"ops_unit\":\"messages\",\"elapsed_ns\":100,"
		"\"ops_per_sec\":1.5,\"ns_per_op\":10.0,"
		"\"witnesses\":{\"count\":0,\"histogram\":{\"fresh\":10}},"
		"\"probe\":{\"before\":[],\"after\":[],\"drift\":null,\"stable\":false},\"metrics\":{},\"workers\":[],\"counters\":null},"
		"{\"scenario\":\"msgpass\",\"variant\":\"mb\",\"placement\":\"cross-node\","
		"\"repeat\":0,\"status\":\"skipped\",\"reason\":\"one node\",\"verdict\":null,"
		"\"forbidden\":true,\"injected\":false,\"threads\":2,\"cpus\":null,\"mem_node\":null,"
		"\"seed\":\"2\",\"options\":{},\"iterations\":null,\"ops_unit\":\"messages\","
		"\"elapsed_ns\":null,\"ops_per_sec\":null,\"ns_per_op\":null,\"witnesses\":null,"
		"\"probe\":null,\"metrics\":null,\"workers\":[],\"counters\":null}],"
		"\"summary\":{\"runs\":2,\"ok\":1,\"skipped\":1,\"errors\":0,\"inconclusive\":0,"
		"\"forbidden_witnessed\":0,\"injected_missed\":0,\"exit_code\":0}}",
		0, &e);

	if (!doc) {
		printf("# fixture: %s\n", e.text);
		abort();
	}
	return doc;
}

static int count_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;

	while ((de = readdir(d)))
		n += de->d_name[0] != '.' || (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."));
	closedir(d);
	return n;
}

/* Each mutation must make a good document fail validation. */
static void mutation(const char *what, const char *path, json_t *value)
{
	json_t *doc = good_doc(), *obj = doc;
	char buf[256], *key, *save = NULL, err[512];

	snprintf(buf, sizeof(buf), "%s", path);
	key = strtok_r(buf, ".", &save);
	for (char *next; (next = strtok_r(NULL, ".", &save)); key = next)
		obj = (*key >= '0' && *key <= '9') ? json_array_get(obj, (size_t)atoi(key))
						    : json_object_get(obj, key);
	if (value)
		json_object_set_new(obj, key, value);
	else
		json_object_del(obj, key);
	tap_ok(mmt_results_validate(doc, err, sizeof(err)) == -1, "invalid: %s (%s)", what, err);
	json_decref(doc);
}

static void test_round_trip(const char *dir, const json_t *doc)
{
	char path[512], err[512];
	json_t *back;

	tap_ok(!mmt_results_validate(doc, err, sizeof(err)), "fixture document is valid");
	snprintf(path, sizeof(path), "%s/r.json", dir);
	tap_ok(!mmt_results_write_atomic(doc, path, err, sizeof(err)), "atomic write succeeds");
	tap_is_int(count_entries(dir), 1, "no temp file left behind");
	back = mmt_results_load(path, err, sizeof(err));
	tap_ok(back && json_equal(doc, back), "round trip: what is read back equals what was written");
	json_decref(back);
}

static void test_mutations(void)
{
	mutation("no schema_version", "schema_version", NULL);
	mutation("future schema_version", "schema_version", json_integer(2));
	mutation("runs not an array", "runs", json_object());
	mutation("run without status", "runs.0.status", NULL);
	mutation("unknown status", "runs.0.status", json_string("fine"));
	mutation("ok run without witnesses", "runs.0.witnesses", json_null());
	mutation("ops_per_sec a string", "runs.0.ops_per_sec", json_string("fast"));
	mutation("probe without after", "runs.0.probe.after", NULL);
	mutation("probe without stable", "runs.0.probe.stable", NULL);
	mutation("metadata without liburcu version", "metadata.liburcu_version", NULL);
	mutation("harness without git revision", "metadata.harness.git_revision", NULL);
	mutation("summary without exit code", "summary.exit_code", NULL);
	mutation("summary count wrong", "summary.runs", json_integer(5));
	/* Integer seeds from older writers stay readable (results/schema.json):
	 * only malformed strings are refused. */
	mutation("document seed with letters", "metadata.seed", json_string("7x"));
	mutation("run seed in hex", "runs.0.seed", json_string("0x10"));
	mutation("run seed negative", "runs.0.seed", json_string("-1"));
	mutation("run seed with a leading zero", "runs.0.seed", json_string("01"));
	mutation("run seed empty", "runs.1.seed", json_string(""));
}

static void test_unreadable_files(const char *dir)
{
	char path[512], err[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/truncated.json", dir);
	f = fopen(path, "w");
	fputs("{\"schema_version\": 1, \"runs\": [", f);
	fclose(f);
	err[0] = '\0';
	tap_ok(!mmt_results_load(path, err, sizeof(err)) && strstr(err, "not valid JSON"),
	       "truncated file refused: %s", err);
	snprintf(path, sizeof(path), "%s/missing.json", dir);
	tap_ok(!mmt_results_load(path, err, sizeof(err)), "missing file refused: %s", err);
}

/* Where the output may not go is refused before any run, and checking
 * creates nothing. */
static void test_check_path(const char *dir)
{
	char err[512], link[600], longname[600];
	int entries;

	tap_ok(mmt_results_check_path("/nonexistent-dir/x.json", err, sizeof(err)) == -1 &&
		       strstr(err, "does not exist"),
	       "output in a missing directory refused up front");
	tap_ok(mmt_results_check_path(dir, err, sizeof(err)) == -1 && strstr(err, "is a directory"),
	       "output naming a directory refused up front");
	entries = count_entries(dir);
	tap_ok(mmt_results_check_path("/dev/null", err, sizeof(err)) == -1 &&
		       strstr(err, "is a character device, not a regular file"),
	       "a device node is never replaced: %s", err);
	snprintf(link, sizeof(link), "%s/link.json", dir);
	tap_ok(!symlink("/dev/null", link) && mmt_results_check_path(link, err, sizeof(err)) == -1 &&
		       strstr(err, "is a symlink"), "a symlink is never replaced: %s", err);
	unlink(link);
	/* root is refused by the file system, anyone else by the mode first */
	tap_ok(mmt_results_check_path("/proc/x.json", err, sizeof(err)) == -1 &&
		       (strstr(err, "cannot create files in /proc") || strstr(err, "directory /proc is not writable")),
	       "/proc refused up front: %s", err);
	tap_ok(mmt_results_check_path("/sys/kernel/x.json", err, sizeof(err)) == -1 &&
		       strstr(err, "/sys/kernel"), "/sys refused up front: %s", err);
	snprintf(longname, sizeof(longname), "%s/%0300d.json", dir, 0);
	tap_ok(mmt_results_check_path(longname, err, sizeof(err)) == -1 &&
		       strstr(err, "the name is 305 characters"), "a name too long refused up front: %s", err);
	tap_is_int(count_entries(dir), entries, "the checks left nothing behind");
}

/* A file that appears at the target while the runs go on and is not a
 * regular file is not replaced either. */
static void test_late_fifo(const char *dir, const json_t *doc)
{
	struct mmt_results_writer w;
	json_t *frame = json_deep_copy(doc);
	char err[512], fifo[600];
	int entries = count_entries(dir);

	snprintf(fifo, sizeof(fifo), "%s/late.json", dir);
	json_object_del(frame, "runs");
	json_object_set_new(json_object_get(frame, "summary"), "runs", json_integer(0));
	tap_ok(!mmt_results_open(&w, fifo, err, sizeof(err)) && !mkfifo(fifo, 0600) &&
		       mmt_results_finish(&w, frame, err, sizeof(err)) == -1 && strstr(err, "FIFO"),
	       "a FIFO that appeared meanwhile is not replaced: %s", err);
	unlink(fifo);
	json_decref(frame);
	tap_is_int(count_entries(dir), entries, "... and its temp file is gone");
}

/* 100,000 records through the writer: memory stays where it was after
 * the first thousand (the writer keeps none of them). */
static void test_many_records(const char *dir, const json_t *doc)
{
	struct mmt_results_writer w;
	const json_t *rec = json_array_get(json_object_get(doc, "runs"), 0);
	struct rusage ru;
	char path[512], err[512];
	long first = 0;
	int ok = 1;

	snprintf(path, sizeof(path), "%s/many.json", dir);
	ok = !mmt_results_open(&w, path, err, sizeof(err));
	for (int i = 0; i < 100000 && ok; i++) {
		ok = !mmt_results_add_run(&w, rec, err, sizeof(err));
		if (i == 1000) {
			getrusage(RUSAGE_SELF, &ru);
			first = ru.ru_maxrss;
		}
	}
	getrusage(RUSAGE_SELF, &ru);
	mmt_results_abandon(&w);
	tap_ok(ok && ru.ru_maxrss - first < 1024,
	       "100,000 records streamed: peak memory +%ld KiB after the first 1000", ru.ru_maxrss - first);
}

static void test_write_missing_dir(const char *dir, const json_t *doc)
{
	char path[512], err[512];

	snprintf(path, sizeof(path), "%s/sub/r.json", dir);
	tap_ok(mmt_results_write_atomic(doc, path, err, sizeof(err)) == -1,
	       "write into a missing directory fails cleanly");
}

int main(void)
{
	char dir[] = "/tmp/mmt-results-XXXXXX", cmd[512];
	json_t *doc = good_doc();

	if (!mkdtemp(dir))
		abort();
	test_round_trip(dir, doc);
	test_mutations();
	test_unreadable_files(dir);
	test_check_path(dir);
	test_late_fifo(dir, doc);
	test_many_records(dir, doc);
	test_write_missing_dir(dir, doc);

	json_decref(doc);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		abort();
	return tap_done();
}
