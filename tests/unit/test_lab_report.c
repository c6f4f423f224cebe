/* cpha lab report: report.json's shape, report.md's sections, the SVG's
 * structure (lab_render.c, lab_svg.c), LAB.json (lab_load.c), and
 * `cpha lab report` on files. */
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

static void add(struct lab_events *e, double t, enum lab_ev_kind k, bool ok, int w)
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

		add(e, 1000, LAB_EV_START, false, 0);
		for (int i = 0; i < 100; i++)
			add(e, 1000.05 + i * 0.1, LAB_EV_REQ, !(r == 1 && i >= 30 && i < 40), 0);
		add(e, 1003.0, LAB_EV_BREAK, false, 1);
		add(e, 1003.5 + r, LAB_EV_OPEN, false, 1);
		if (r == 0)
			add(e, 1006.0, LAB_EV_LOST, false, 0);
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

	/* exactly the keys of the format, the optional ones allowed */
	assert_int_equal(json_object_size(j), 2);
	for (size_t r = 0; r < 2; r++) {
		json_t *run = json_array_get(runs, r);

		assert_int_equal(json_object_size(run), 2);
		for (size_t k = 0; k < 2; k++) {
			static const char *const need[] = { "name", "requests", "failed",
				"max_gap_ms", "watches", "watches_broken", "watches_restored_ms",
				"availability", "invariants" };
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
			assert_true(n >= 9);
			json_object_foreach(json_object_get(s, "invariants"), key, v)
				assert_true(json_is_boolean(v));
		}
	}
	json_decref(j);
}

static void test_markdown(void **state)
{
	struct fixture *f = *state;
	struct cpha_buf b = { 0 };

	assert_int_equal(lab_render_md(&f->m, &b), 0);
	assert_non_null(strstr(b.data, "stand-in (lab simulator)"));
	assert_non_null(strstr(b.data, "Hosts: m1, lb1\n"));
	assert_non_null(strstr(b.data, "## Stack: cpha"));
	assert_non_null(strstr(b.data, "## Stack: haproxy+keepalived"));
	assert_non_null(strstr(b.data, "| lb-poweroff | failed | 0 of 30 | 10 of 30 |"));
	assert_non_null(strstr(b.data, "| lb-poweroff | watches restored | 500 ms | 1500 ms |"));
	assert_non_null(strstr(b.data, "cpha / master-poweroff: **no_lost_write** is false"));
	assert_non_null(strstr(b.data, "cpha / master-poweroff: **one_vip_holder** is false"));
	assert_non_null(strstr(b.data, "## Goals"));
	assert_non_null(strstr(b.data, "| lb-poweroff: failed requests and max gap no worse than "
				       "haproxy+keepalived | met |"));
	assert_non_null(strstr(
		b.data, "| apiserver-rolling-restart: 0 failed requests (cpha) | not measured"));
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
		cmocka_unit_test(test_load_errors),
		cmocka_unit_test(test_load_old),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
