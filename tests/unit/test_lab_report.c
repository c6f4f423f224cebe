/* cpha lab report: report.json's shape, report.md's sections, the SVG's
 * structure (lab_render_json.c, lab_render_md.c, lab_svg.c), LAB.json
 * (lab_load.c), and `cpha lab report` on files. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>

#include "buf.h"
#include "cpha.h"
#include "lab.h"
#include "lab_goals.h"
#include "lab_load.h"
#include "lab_render.h"
#include "lab_stats.h"

/* Two runs of two scenarios; the events are made up to give known figures. */
struct fixture {
	struct lab_scenario a[2], b[2];
	struct lab_run runs[2];
	struct lab_model m;
	json_t *lab, *inv;
};

static void add_event(struct lab_events *e, double t, enum lab_ev_kind k, bool ok, int w)
{
	struct lab_event ev = { .t = t,
		.kind = k,
		.ok = ok,
		.n = 1,
		.w = w,
		.watches = 2,
		.curl = -1,
		.connected = -1,
		.tls = -1,
		.cause = LAB_CAUSE_OTHER };

	assert_int_equal(lab_events_add(e, &ev), 0);
}

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	f->lab = json_pack("{s{ssss}s[{ss}s]}", "binaries", "kube-apiserver",
		"stand-in (lab simulator)", "etcd", "etcd 3.4.23", "hosts", "name", "m1", "lb1");
	f->inv = json_pack("{sbsbsn}", "one_vip_holder", 0, "no_lost_write", 1, "etcd_odd");
	for (int r = 0; r < 2; r++) {
		struct lab_events *e = &f->runs[r].ev;

		add_event(e, 1000, LAB_EV_START, false, 0);
		for (int i = 0; i < 100; i++)
			add_event(e, 1000.05 + i * 0.1, LAB_EV_REQ, !(r == 1 && i >= 30 && i < 40),
				0);
		add_event(e, 1003.0, LAB_EV_BREAK, false, 1);
		add_event(e, 1003.5 + r, LAB_EV_OPEN, false, 1);
		if (r == 0)
			add_event(e, 1006.0, LAB_EV_LOST, false, 0);
	}
	f->a[0] = (struct lab_scenario){ .name = "lb-poweroff", .start = 1002, .end = 1005 };
	f->a[1] = (struct lab_scenario){
		.name = "master-poweroff", .start = 1005, .end = 1009, .invariants = f->inv
	};
	f->b[0] = f->a[0];
	f->b[1] = f->a[1];
	f->b[1].invariants = NULL;
	f->runs[0] = (struct lab_run){ .stack = "cpha",
		.events_path = "cpha.jsonl",
		.ev = f->runs[0].ev,
		.scen = f->a,
		.nscen = 2 };
	f->runs[1] = (struct lab_run){ .stack = "haproxy+keepalived",
		.events_path = "hk.jsonl",
		.ev = f->runs[1].ev,
		.scen = f->b,
		.nscen = 2 };
	for (int r = 0; r < 2; r++)
		for (int j = 0; j < 2; j++) {
			struct lab_scenario *s = &f->runs[r].scen[j];

			lab_window_stats(&f->runs[r].ev, s->start, s->end, &s->st);
		}
	f->m = (struct lab_model){ .lab = f->lab, .runs = f->runs, .nruns = 2 };
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	lab_events_free(&f->runs[0].ev);
	lab_events_free(&f->runs[1].ev);
	json_decref(f->lab);
	json_decref(f->inv);
	free(f);
	return 0;
}

static void test_json_shape(void **state)
{
	struct fixture *f = *state;
	json_t *j = lab_render_json(&f->m), *runs, *s, *inv;

	assert_non_null(j);
	runs = json_object_get(j, "runs");
	assert_int_equal(json_array_size(runs), 2);
	assert_string_equal(json_string_value(json_object_get(json_array_get(runs, 1), "stack")),
		"haproxy+keepalived");
	s = json_array_get(json_object_get(json_array_get(runs, 1), "scenarios"), 0);
	assert_string_equal(json_string_value(json_object_get(s, "name")), "lb-poweroff");
	assert_int_equal(json_integer_value(json_object_get(s, "requests")), 30);
	assert_int_equal(json_integer_value(json_object_get(s, "failed")), 10);
	assert_int_equal(json_integer_value(json_object_get(s, "max_gap_ms")), 1100);
	assert_int_equal(json_integer_value(json_object_get(s, "watches")), 2);
	assert_int_equal(json_integer_value(json_object_get(s, "watches_broken")), 1);
	assert_int_equal(json_integer_value(json_object_get(s, "watches_restored_ms")), 1500);
	assert_true(json_real_value(json_object_get(s, "availability")) > 66.666 &&
		    json_real_value(json_object_get(s, "availability")) < 66.668);
	assert_true(
		json_is_true(json_object_get(json_object_get(s, "invariants"), "no_lost_write")));

	/* cpha master-poweroff: the lost write overrides the orchestrator's true,
	 * the false stays, the null is left out; no break there: restored null */
	s = json_array_get(json_object_get(json_array_get(runs, 0), "scenarios"), 1);
	inv = json_object_get(s, "invariants");
	assert_true(json_is_false(json_object_get(inv, "no_lost_write")));
	assert_true(json_is_false(json_object_get(inv, "one_vip_holder")));
	assert_null(json_object_get(inv, "etcd_odd"));
	assert_true(json_is_null(json_object_get(s, "watches_restored_ms")));
	assert_non_null(strstr(json_string_value(json_array_get(json_object_get(s, "notes"), 0)),
		"1 lost committed write"));
	assert_non_null(json_object_get(j, "lab"));

	/* one attempt each: its repeats list is that attempt */
	assert_int_equal(json_array_size(json_object_get(s, "repeats")), 1);
	assert_int_equal(json_integer_value(json_object_get(s, "valid_runs")), 1);
	assert_int_equal(json_integer_value(json_object_get(s, "invalid_runs")), 0);
	assert_int_equal(json_integer_value(json_object_get(
				 json_object_get(json_object_get(s, "stats"), "failed"), "median")),
		0);
	assert_non_null(json_object_get(j, "goals"));

	/* exactly the keys of the format, the optional ones allowed */
	assert_int_equal(json_object_size(j), 3);
	for (size_t r = 0; r < 2; r++) {
		json_t *run = json_array_get(runs, r);

		assert_int_equal(json_object_size(run), 2);
		for (size_t k = 0; k < 2; k++) {
			static const char *const need[] = { "name", "requests", "failed",
				"max_gap_ms", "watches", "watches_broken", "watches_restored_ms",
				"availability", "invariants", "repeats", "stats", "causes",
				"phases", "valid_runs", "invalid_runs" };
			static const char *const may[] = { "timings", "notes", "marks" };
			const char *key;
			json_t *v;
			size_t n = 0;

			s = json_array_get(json_object_get(run, "scenarios"), k);
			for (size_t i = 0; i < sizeof(need) / sizeof(need[0]); i++)
				assert_non_null(json_object_get(s, need[i]));
			json_object_foreach(s, key, v)
			{
				bool known = false;

				for (size_t i = 0; i < sizeof(need) / sizeof(need[0]); i++)
					known |= !strcmp(key, need[i]);
				for (size_t i = 0; i < sizeof(may) / sizeof(may[0]); i++)
					known |= !strcmp(key, may[i]);
				if (!known)
					fail_msg("unexpected key %s in a scenario", key);
				n++;
			}
			assert_true(n >= 15);
			assert_int_equal(json_object_size(json_object_get(s, "causes")), 7);
			assert_int_equal(json_object_size(json_object_get(s, "phases")), 5);
			json_object_foreach(json_object_get(s, "invariants"), key, v)
				assert_true(json_is_boolean(v));
		}
	}
	json_decref(j);
}

static int count(const char *hay, const char *needle);

static void test_markdown(void **state)
{
	struct fixture *f = *state;
	struct cpha_buf b = { 0 };

	assert_int_equal(lab_render_md(&f->m, &b), 0);
	assert_non_null(strstr(b.data, "stand-in (lab simulator)"));
	assert_non_null(strstr(b.data, "Hosts: m1, lb1\n"));
	assert_non_null(strstr(b.data, "## Stack: cpha"));
	assert_non_null(strstr(b.data, "## Stack: haproxy+keepalived"));
	assert_non_null(strstr(b.data, "| lb-poweroff | 1/1 | 0 [0, 0] (0–0) | "));
	assert_non_null(strstr(b.data, "| lb-poweroff | failed | 0 [0, 0] (0–0) | 10 [10, 10] "
				       "(10–10) |"));
	assert_non_null(strstr(b.data, "| lb-poweroff | watches_restored_ms | 500 [500, 500] "
				       "(500–500) | 1500 [1500, 1500] (1500–1500) |"));
	assert_non_null(strstr(b.data, "## Failed requests by cause\n"));
	assert_non_null(strstr(b.data, "| lb-poweroff | haproxy+keepalived | 0 | 0 | 0 | 0 | 0 | 0 "
				       "| 10 |"));
	assert_non_null(strstr(b.data, "## Failed requests by phase\n"));
	assert_non_null(strstr(b.data, "Every attempt counts: 4 valid"));
	assert_non_null(
		strstr(b.data, "cpha / master-poweroff, repeat 1: **no_lost_write** is false"));
	assert_non_null(
		strstr(b.data, "cpha / master-poweroff, repeat 1: **one_vip_holder** is false"));
	assert_non_null(strstr(b.data, "## Goals"));
	/* 0 against 0.25 x 10: within the resolution of 3 requests */
	assert_non_null(strstr(b.data, "| lb-poweroff: failed requests at most 0.25 x "
				       "haproxy+keepalived's | within noise |"));
	/* scenarios no stack attempted: out of the table, named below it */
	assert_null(strstr(b.data, "| apiserver-rolling-restart: "));
	assert_non_null(
		strstr(b.data, "\nNot run here, so not judged: `apiserver-rolling-restart`, "
			       "`reload-under-load`, `lb-hang`, `lb-daemon-down`, `steady`, "
			       "`lb-partition`, `lb-isolated`, `master-partition`, "
			       "`etcd-data-loss`, "
			       "`master-rebuild`, `cert-rotation`, `lb-upgrade`, "
			       "`etcd-quorum-loss`, `k8s-minor-upgrade`, "
			       "`master-add`, `master-remove`.\n"));
	assert_int_equal(count(b.data, "`lb-hang`"), 1); /* once, however many goals */
	/* an attempted scenario without the figure is judged: not measured */
	assert_non_null(strstr(b.data, "| lb-poweroff: first request served (ms) at most 500 "
				       "(cpha, median) | not met | not measured: no valid run"));
	cpha_buf_free(&b);
}

/* Count occurrences of needle in hay. */
static int count(const char *hay, const char *needle)
{
	int n = 0;

	for (const char *p = hay; (p = strstr(p, needle)); p++)
		n++;
	return n;
}

static void test_svg(void **state)
{
	struct fixture *f = *state;
	struct cpha_buf b = { 0 };

	f->a[0].name = "a<b&c"; /* names are escaped */
	assert_int_equal(lab_render_svg(&f->m, &b), 0);
	assert_true(!strncmp(b.data, "<?xml", 5));
	assert_non_null(strstr(b.data, "</svg>\n"));
	assert_int_equal(count(b.data, "<g class=\"lane\">"), 2);
	assert_int_equal(count(b.data, "</g>"), 2);
	assert_int_equal(count(b.data, "class=\"scenario\""), 8);
	assert_int_equal(count(b.data, "class=\"failed\""), 1); /* 10 failures in one 1 s bin */
	assert_non_null(strstr(b.data, "a&lt;b&amp;c"));
	assert_null(strstr(b.data, "a<b"));
	assert_non_null(strstr(b.data, "time (s)"));
	assert_non_null(strstr(b.data, "requests/s"));
	/* every tag opened is closed or self-closing */
	assert_int_equal(count(b.data, "<text"), count(b.data, "</text>"));
	assert_int_equal(count(b.data, "<svg"), count(b.data, "</svg>"));
	cpha_buf_free(&b);
}

static char tmpdir[64];

static void write_text(const char *name, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static int run_report(const char *in)
{
	char inpath[256], out[256];
	char *argv[] = { "report", "--in", inpath, "--out", out, NULL };

	snprintf(inpath, sizeof(inpath), "%s/%s", tmpdir, in);
	snprintf(out, sizeof(out), "%s/out", tmpdir);
	return cmd_lab_report(5, argv);
}

static void rm_rf(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	assert_int_equal(system(cmd), 0);
}

/* The command on files: three files written; bad input exits 1. */
static void test_command(void **state)
{
	char lab[1024], path[256];
	struct stat st;

	(void)state;
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/cpha-test-lab-XXXXXX");
	assert_non_null(mkdtemp(tmpdir));
	write_text("cpha.jsonl",
		"{\"t\":100.0,\"k\":\"start\",\"server\":\"https://x\",\"interval_ms\":100,"
		"\"watches\":1}\n"
		"{\"t\":100.1,\"k\":\"readyz\",\"ok\":true,\"ms\":2,\"code\":200}\n"
		"{\"t\":100.2,\"k\":\"lease_put\",\"ok\":false,\"ms\":0,\"code\":0,\"err\":\"x\","
		"\"n\":3}\n"
		"{\"t\":101.0,\"k\":\"stop\"}\n"
		"{\"t\":101.1,\"k\":\"rea"); /* cut short by a kill */
	snprintf(lab, sizeof(lab),
		"{\"lab\": {\"binaries\": {\"etcd\": \"etcd 3.4.23\"}},\n"
		" \"runs\": [{\"stack\": \"cpha\", \"events\": \"cpha.jsonl\",\n"
		"   \"scenarios\": [{\"name\": \"lb-poweroff\", \"start\": 100, \"end\": 101,\n"
		"     \"invariants\": {\"vip_after_fence\": null}, \"timings\": {\"detect_ms\": "
		"1200}}]}]}\n");
	write_text("lab.json", lab); /* the events path is relative to lab.json */
	assert_int_equal(run_report("lab.json"), 0);
	for (const char *const *n =
			(const char *const[]){ "report.json", "report.md", "timeline.svg", NULL };
		*n; n++) {
		snprintf(path, sizeof(path), "%s/out/%s", tmpdir, *n);
		assert_int_equal(stat(path, &st), 0);
		assert_true(st.st_size > 100);
	}
	/* the SVG parses as XML where python3 is there to say so */
	if (!system("python3 -c 'import xml.dom.minidom' 2>/dev/null")) {
		char cmd[400];

		snprintf(cmd, sizeof(cmd),
			"python3 -c 'import xml.dom.minidom,sys; "
			"xml.dom.minidom.parse(sys.argv[1])' "
			"%s/out/timeline.svg",
			tmpdir);
		assert_int_equal(system(cmd), 0);
	}
	snprintf(path, sizeof(path), "%s/out/report.json", tmpdir);
	{
		json_t *j = json_load_file(path, 0, NULL);
		json_t *s = json_array_get(
			json_object_get(json_array_get(json_object_get(j, "runs"), 0), "scenarios"),
			0);

		assert_int_equal(json_integer_value(json_object_get(s, "requests")), 4);
		assert_int_equal(json_integer_value(json_object_get(s, "failed")), 3);
		json_decref(j);
	}

	/* malformed JSON: exit 1 (its message carries line:column) */
	write_text("bad.json", "{\"runs\": [\n  {\"stack\": }\n]}\n");
	assert_int_equal(run_report("bad.json"), CPHA_EXIT_FAIL);
	/* a missing events file */
	write_text("missing.json",
		"{\"runs\": [{\"stack\": \"cpha\", \"events\": \"/nonexistent/e.jsonl\", "
		"\"scenarios\": []}]}");
	assert_int_equal(run_report("missing.json"), CPHA_EXIT_FAIL);
	/* a scenario without times */
	snprintf(lab, sizeof(lab),
		"{\"runs\": [{\"stack\": \"cpha\", \"events\": \"%s/cpha.jsonl\", "
		"\"scenarios\": [{\"name\": \"x\"}]}]}",
		tmpdir);
	write_text("notimes.json", lab);
	assert_int_equal(run_report("notimes.json"), CPHA_EXIT_FAIL);
	/* a bad line in the middle of an events file */
	write_text("cpha.jsonl", "{\"t\":1,\"k\":\"readyz\"}\n{\"t\":2,\"k\":\"stop\"}\n");
	assert_int_equal(run_report("lab.json"), CPHA_EXIT_FAIL);
	rm_rf();
}

/* Events of a stack's attempts: ticks of three requests every 0.1 s over
 * [start, start + 10]; from start + 2 s, fails[i] ticks cannot connect
 * (the readyz fails, the two other requests are not sent). */
static void write_attempts(const char *name, const double *starts, const int *fails, size_t n)
{
	static const char *const fail =
		"\"ok\":false,\"code\":0,\"curl\":7,\"errno\":111,\"connected\":false,"
		"\"tls\":false,\"err\":\"Failed to connect to 198.18.0.100 port 6443 after 1 ms: "
		"Connection refused\"";
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "{\"t\":%.3f,\"k\":\"start\",\"watches\":0}\n", starts[0] - 1);
	for (size_t a = 0; a < n; a++)
		for (int i = 0; i < 100; i++) {
			double t = starts[a] + i * 0.1;

			if (i >= 20 && i < 20 + fails[a]) {
				fprintf(f, "{\"t\":%.3f,\"k\":\"readyz\",\"ms\":1,%s}\n", t, fail);
				fprintf(f,
					"{\"t\":%.3f,\"k\":\"lease_get\",\"ms\":0,\"not_sent\":"
					"true,%s}\n",
					t, fail);
				fprintf(f,
					"{\"t\":%.3f,\"k\":\"lease_put\",\"ms\":0,\"not_sent\":"
					"true,%s}\n",
					t, fail);
				continue;
			}
			for (const char *const *k = (const char *const[]){ "readyz", "lease_get",
				     "lease_put", NULL };
				*k; k++)
				fprintf(f,
					"{\"t\":%.3f,\"k\":\"%s\",\"ok\":true,\"ms\":2,\"code\":"
					"200}\n",
					t, *k);
		}
	fclose(f);
}

/* An attempt of LAB.json; extra: more fields, with a leading comma. */
static void lab_attempt(char *buf, size_t len, const char *name, double start, const char *extra)
{
	size_t n = strlen(buf);

	snprintf(buf + n, len - n,
		"%s{\"name\": \"%s\", \"start\": %.3f, \"end\": %.3f, \"t0\": %.3f, "
		"\"phases\": [{\"phase\": \"before_detect\", \"from\": %.3f, \"to\": %.3f}, "
		"{\"phase\": \"no_vip\", \"from\": %.3f, \"to\": %.3f}]%s}",
		buf[n - 1] == '[' ? "" : ", ", name, start, start + 10, start + 2, start + 2,
		start + 2.45, start + 2.45, start + 10, extra);
}

static json_t *load_out(const char *name)
{
	char path[256];
	json_t *j;

	snprintf(path, sizeof(path), "%s/out/%s", tmpdir, name);
	j = json_load_file(path, 0, NULL);
	assert_non_null(j);
	return j;
}

static char *read_out(const char *name)
{
	char path[256];
	FILE *f;
	char *s = calloc(1, 1 << 20);

	snprintf(path, sizeof(path), "%s/out/%s", tmpdir, name);
	f = fopen(path, "r");
	assert_non_null(f);
	assert_true(fread(s, 1, (1 << 20) - 1, f) > 0);
	fclose(f);
	return s;
}

static json_t *scenario_of(json_t *rep, size_t run, size_t k)
{
	return json_array_get(
		json_object_get(json_array_get(json_object_get(rep, "runs"), run), "scenarios"), k);
}

/* The goal of report.json on scenario and metric. */
static json_t *goal_of(json_t *rep, const char *scenario, const char *metric)
{
	size_t i;
	json_t *g;

	json_array_foreach(json_object_get(rep, "goals"), i, g)
	{
		if (!strcmp(json_string_value(json_object_get(g, "scenario")), scenario) &&
			!strcmp(json_string_value(json_object_get(g, "metric")), metric))
			return g;
	}
	fail_msg("no goal %s %s", scenario, metric);
	return NULL;
}

static void check_stat(
	json_t *st, long n, double median, double min, double max, double lo, double hi)
{
	assert_int_equal(json_integer_value(json_object_get(st, "n")), n);
	assert_true(json_number_value(json_object_get(st, "median")) == median);
	assert_true(json_number_value(json_object_get(st, "min")) == min);
	assert_true(json_number_value(json_object_get(st, "max")) == max);
	assert_true(json_number_value(json_array_get(json_object_get(st, "ci95"), 0)) == lo);
	assert_true(json_number_value(json_array_get(json_object_get(st, "ci95"), 1)) == hi);
}

/* Three valid and one invalid cpha attempts, three of the peer, and an
 * attempt that never started. */
static void test_command_repeats(void **state)
{
	static const double cstart[] = { 100, 200, 300, 400 }, pstart[] = { 100, 200, 300 };
	static const int cfail[] = { 12, 100, 13, 14 }, pfail[] = { 20, 21, 22 };
	char lab[8192] = "", *md, *svg;
	json_t *rep, *s, *r, *st, *g;

	(void)state;
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/cpha-test-lab-XXXXXX");
	assert_non_null(mkdtemp(tmpdir));
	write_attempts("cpha.jsonl", cstart, cfail, 4);
	write_attempts("peer.jsonl", pstart, pfail, 3);
	snprintf(lab, sizeof(lab),
		"{\"runs\": [{\"stack\": \"cpha\", \"events\": \"cpha.jsonl\", "
		"\"scenarios\": [");
	lab_attempt(lab, sizeof(lab), "lb-poweroff", 100,
		", \"repeat\": 1, \"invariants\": {\"vip_after_fence\": true}, "
		"\"timings\": {\"detect_ms\": 1000, \"vip_move_ms\": null}");
	lab_attempt(lab, sizeof(lab), "lb-poweroff", 200,
		", \"repeat\": 2, \"valid\": false, \"invalid_reason\": \"the VIP was on lb2 "
		"before the fault\", \"invariants\": {\"vip_after_fence\": false}");
	lab_attempt(lab, sizeof(lab), "lb-poweroff", 300,
		", \"repeat\": 3, \"invariants\": {\"vip_after_fence\": true}, "
		"\"timings\": {\"detect_ms\": 1200}");
	lab_attempt(lab, sizeof(lab), "lb-poweroff", 400,
		", \"repeat\": 4, \"valid\": true, \"invariants\": {\"vip_after_fence\": true}, "
		"\"timings\": {\"detect_ms\": 1100}");
	snprintf(lab + strlen(lab), sizeof(lab) - strlen(lab),
		", {\"name\": \"master-poweroff\", \"start\": 500, \"end\": 500, \"repeat\": 1, "
		"\"started\": false, \"valid\": false, \"invalid_reason\": \"the lab did not "
		"settle\", \"t0\": null}]}, {\"stack\": \"haproxy+keepalived\", \"events\": "
		"\"peer.jsonl\", \"scenarios\": [");
	for (int i = 0; i < 3; i++)
		lab_attempt(lab, sizeof(lab), "lb-poweroff", pstart[i], "");
	snprintf(lab + strlen(lab), sizeof(lab) - strlen(lab), "]}]}\n");
	write_text("lab.json", lab);
	assert_int_equal(run_report("lab.json"), 0);
	rep = load_out("report.json");

	/* cpha lb-poweroff: one entry, the figures of the lower-median run */
	s = scenario_of(rep, 0, 0);
	assert_string_equal(json_string_value(json_object_get(s, "name")), "lb-poweroff");
	assert_int_equal(json_integer_value(json_object_get(s, "failed")), 39);
	assert_int_equal(json_integer_value(json_object_get(s, "requests")), 300);
	assert_int_equal(json_integer_value(json_object_get(s, "max_gap_ms")), 1400);
	assert_int_equal(json_integer_value(json_object_get(s, "valid_runs")), 3);
	assert_int_equal(json_integer_value(json_object_get(s, "invalid_runs")), 1);
	st = json_object_get(s, "stats");
	check_stat(json_object_get(st, "failed"), 3, 39, 36, 42, 36, 42);
	check_stat(json_object_get(st, "max_gap_ms"), 3, 1400, 1300, 1500, 1300, 1500);
	check_stat(json_object_get(st, "watches_restored_ms"), 3, 0, 0, 0, 0, 0);
	check_stat(json_object_get(st, "detect_ms"), 3, 1100, 1000, 1200, 1000, 1200);
	assert_null(json_object_get(st, "vip_move_ms")); /* null in every run */
	assert_int_equal(json_object_size(st), 4);
	/* 12 + 13 + 14 ticks of 3 requests; 5 ticks each in before_detect */
	assert_int_equal(json_integer_value(
				 json_object_get(json_object_get(s, "causes"), "connect_refused")),
		117);
	assert_int_equal(
		json_integer_value(json_object_get(json_object_get(s, "causes"), "other")), 0);
	assert_int_equal(
		json_integer_value(json_object_get(json_object_get(s, "phases"), "before_detect")),
		45);
	assert_int_equal(
		json_integer_value(json_object_get(json_object_get(s, "phases"), "no_vip")), 72);
	/* every attempt listed, the invalid one with its reason */
	r = json_object_get(s, "repeats");
	assert_int_equal(json_array_size(r), 4);
	assert_true(json_is_false(json_object_get(json_array_get(r, 1), "valid")));
	assert_string_equal(
		json_string_value(json_object_get(json_array_get(r, 1), "invalid_reason")),
		"the VIP was on lb2 before the fault");
	assert_int_equal(json_integer_value(json_object_get(json_array_get(r, 1), "failed")), 240);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(r, 3), "repeat")), 4);
	assert_null(json_object_get(json_array_get(r, 3), "invalid_reason"));
	assert_true(json_number_value(json_object_get(json_array_get(r, 2), "t0")) == 302);
	assert_true(json_number_value(json_object_get(json_array_get(r, 2), "start")) == 300);
	assert_int_equal(json_integer_value(json_object_get(
				 json_object_get(json_array_get(r, 2), "phases"), "before_detect")),
		15);
	assert_non_null(json_object_get(json_array_get(r, 0), "requests"));

	/* the attempt that never started: counted, no statistics */
	s = scenario_of(rep, 0, 1);
	assert_string_equal(json_string_value(json_object_get(s, "name")), "master-poweroff");
	assert_int_equal(json_integer_value(json_object_get(s, "valid_runs")), 0);
	assert_int_equal(json_integer_value(json_object_get(s, "invalid_runs")), 1);
	st = json_object_get(json_object_get(s, "stats"), "failed");
	assert_int_equal(json_integer_value(json_object_get(st, "n")), 0);
	assert_true(json_is_null(json_object_get(st, "median")));
	assert_true(json_is_null(json_object_get(st, "ci95")));
	r = json_array_get(json_object_get(s, "repeats"), 0);
	assert_true(json_is_false(json_object_get(r, "started")));
	assert_true(json_is_null(json_object_get(r, "t0")));
	assert_string_equal(
		json_string_value(json_object_get(r, "invalid_reason")), "the lab did not settle");

	/* the peer */
	s = scenario_of(rep, 1, 0);
	check_stat(json_object_get(json_object_get(s, "stats"), "failed"), 3, 63, 60, 66, 60, 66);
	assert_int_equal(json_integer_value(json_object_get(
				 json_array_get(json_object_get(s, "repeats"), 2), "repeat")),
		3); /* its rank: no "repeat" given */

	/* the goals */
	assert_int_equal(json_array_size(json_object_get(rep, "goals")), LAB_NGOALS);
	/* 39 [36, 42] against 0.25 x 63 [60, 66] = 15.75 [15, 16.5] */
	g = goal_of(rep, "lb-poweroff", "failed");
	assert_string_equal(json_string_value(json_object_get(g, "verdict")), "clearly not met");
	check_stat(json_object_get(g, "cpha"), 3, 39, 36, 42, 36, 42);
	check_stat(json_object_get(g, "peer"), 3, 63, 60, 66, 60, 66);
	g = goal_of(rep, "lb-poweroff", "max_gap_ms");
	assert_string_equal(json_string_value(json_object_get(g, "verdict")), "clearly met");
	g = goal_of(rep, "lb-poweroff", "vip_after_fence");
	assert_string_equal(json_string_value(json_object_get(g, "verdict")), "met");
	assert_null(json_object_get(g, "peer"));
	g = goal_of(rep, "master-poweroff", "failed");
	assert_string_equal(json_string_value(json_object_get(g, "verdict")), "not met");
	assert_string_equal(
		json_string_value(json_object_get(g, "why")), "not measured: no valid run of cpha");
	assert_true(json_is_true(json_object_get(g, "ran")));
	g = goal_of(rep, "apiserver-rolling-restart", "failed");
	assert_string_equal(json_string_value(json_object_get(g, "verdict")), "not met");
	assert_true(json_is_false(json_object_get(g, "ran")));
	json_decref(rep);

	md = read_out("report.md");
	assert_non_null(strstr(md, "| lb-poweroff | 3/4 | 39 [36, 42] (36–42) | 1400 [1300, 1500] "
				   "(1300–1500) | 0 [0, 0] (0–0) | 1100 |"));
	assert_non_null(strstr(md, "| master-poweroff | 0/1 | — | — | — | — |"));
	assert_non_null(strstr(md, "| lb-poweroff | cpha | 117 | 0 | 0 | 0 | 0 | 0 | 0 |"));
	assert_non_null(strstr(md, "| lb-poweroff | cpha | 45 | 72 | 0 | 0 | 0 |"));
	assert_non_null(strstr(md, "- cpha / lb-poweroff, repeat 2: invalid: the VIP was on lb2 "
				   "before the fault\n"));
	assert_non_null(strstr(md, "- cpha / master-poweroff, repeat 1: not started: the lab did "
				   "not settle\n"));
	assert_non_null(
		strstr(md, "| lb-poweroff: failed requests at most 0.25 x "
			   "haproxy+keepalived's | clearly not met | cpha 39 [36, 42] (n 3) "
			   "vs 0.25 x haproxy+keepalived 15.75 [15, 16.5] (n 3): the "
			   "intervals do not overlap |"));
	/* the invalid attempt's false invariant is not a failure of the stack */
	assert_non_null(strstr(md, "None: every invariant that was judged held."));
	free(md);
	svg = read_out("timeline.svg");
	assert_int_equal(count(svg, "class=\"invalid\""), 2);
	assert_int_equal(count(svg, "class=\"scenario\""), 12);
	assert_non_null(strstr(svg, "lb-poweroff #2 invalid</text>"));
	assert_non_null(strstr(svg, "master-poweroff #1 not started</text>"));
	free(svg);
	rm_rf();
}

/* LAB.json's new fields checked like the others. */
static void test_load_errors(void **state)
{
	static const struct {
		const char *scenario, *want;
	} cases[] = {
		{ "\"phases\": {}", "runs[0].scenarios[0]: \"phases\" must be an array" },
		{ "\"phases\": [{\"phase\": \"no_vip\", \"from\": 1, \"to\": 2}, {\"phase\": "
		  "\"no-vip\", \"from\": 1, \"to\": 2}]",
			"runs[0].scenarios[0].phases[1]: unknown phase \"no-vip\"" },
		{ "\"phases\": [{\"phase\": \"other\", \"from\": 1, \"to\": 2}]",
			"runs[0].scenarios[0].phases[0]: unknown phase \"other\"" },
		{ "\"phases\": [{\"phase\": \"no_vip\", \"from\": 1}]",
			"runs[0].scenarios[0].phases[0]: needs a string \"phase\" and numbers" },
		{ "\"phases\": [{\"phase\": \"no_vip\", \"from\": 3, \"to\": 2}]",
			"runs[0].scenarios[0].phases[0]: \"to\" is before \"from\"" },
		{ "\"repeat\": 0", "runs[0].scenarios[0]: \"repeat\" must be an integer >= 1" },
		{ "\"repeat\": 1.5", "\"repeat\" must be an integer" },
		{ "\"valid\": \"no\"", "runs[0].scenarios[0]: \"valid\" must be a boolean" },
		{ "\"started\": 0", "\"started\" must be a boolean" },
		{ "\"started\": false, \"valid\": true", "never started cannot be valid" },
		{ "\"invalid_reason\": 3", "\"invalid_reason\" must be a string" },
		{ "\"t0\": \"1\"", "\"t0\" must be a number or null" },
	};
	char why[300], text[512];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct lab_model m = { 0 };
		json_t *doc;

		snprintf(text, sizeof(text),
			"{\"runs\": [{\"stack\": \"cpha\", \"events\": \"e\", \"scenarios\": "
			"[{\"name\": \"x\", \"start\": 1, \"end\": 2, %s}]}]}",
			cases[i].scenario);
		doc = json_loads(text, 0, NULL);
		assert_non_null(doc);
		why[0] = '\0';
		assert_int_equal(lab_model_load(doc, &m, why, sizeof(why)), -EINVAL);
		if (!strstr(why, cases[i].want))
			fail_msg("%s: got \"%s\", want \"%s\"", cases[i].scenario, why,
				cases[i].want);
		lab_model_free(&m);
		json_decref(doc);
	}
	/* a dual-stack run's IPv6 prober's events: a path, or absent */
	for (int dual = 0; dual < 2; dual++) {
		struct lab_model m = { 0 };
		json_t *doc = json_pack("{s[{sssssis[]}]}", "runs", "stack", "cpha", "events", "e",
			"events_v6", dual ? 6 : 0, "scenarios");

		assert_non_null(doc);
		if (!dual)
			json_object_set_new(json_array_get(json_object_get(doc, "runs"), 0),
				"events_v6", json_string("e6"));
		why[0] = '\0';
		assert_int_equal(lab_model_load(doc, &m, why, sizeof(why)), dual ? -EINVAL : 0);
		if (dual)
			assert_non_null(strstr(why, "runs[0]: \"events_v6\" must be a string"));
		else
			assert_string_equal(m.runs[0].events6_path, "e6");
		lab_model_free(&m);
		json_decref(doc);
	}
}

/* A description of a lab program that wrote none of the new fields. */
static void test_load_old(void **state)
{
	json_t *doc = json_loads("{\"runs\": [{\"stack\": \"cpha\", \"events\": \"e\", "
				 "\"scenarios\": [{\"name\": \"x\", \"start\": 1, \"end\": 2}, "
				 "{\"name\": \"y\", \"start\": 3, \"end\": 4, \"t0\": null}]}]}",
		0, NULL);
	struct lab_model m = { 0 };
	char why[200];

	(void)state;
	assert_int_equal(lab_model_load(doc, &m, why, sizeof(why)), 0);
	assert_int_equal(m.runs[0].nscen, 2);
	assert_int_equal(m.runs[0].scen[0].repeat, 0);
	assert_false(m.runs[0].scen[0].invalid);
	assert_false(m.runs[0].scen[0].not_started);
	assert_false(m.runs[0].scen[1].has_t0);
	assert_int_equal(m.runs[0].scen[0].nphases, 0);
	lab_model_free(&m);
	json_decref(doc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_json_shape, setup, teardown),
		cmocka_unit_test_setup_teardown(test_markdown, setup, teardown),
		cmocka_unit_test_setup_teardown(test_svg, setup, teardown),
		cmocka_unit_test(test_command),
		cmocka_unit_test(test_command_repeats),
		cmocka_unit_test(test_load_errors),
		cmocka_unit_test(test_load_old),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
