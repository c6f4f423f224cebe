/* cpha lab report --in LAB.json --out DIR: read the orchestrator's lab
 * description (lab_load.c) and each run's prober events, compute every
 * attempt's statistics (lab_stats.c) and write report.json, report.md and
 * timeline.svg (lab_render_json.c, lab_render_md.c, lab_svg.c). */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "buf.h"
#include "cpha.h"
#include "fileio.h"
#include "lab.h"
#include "lab_load.h"
#include "lab_render.h"
#include "lab_stats.h"

static void report_usage(FILE *f)
{
	fprintf(f, "usage: cpha lab report --in LAB.json --out DIR\n");
}

/* Read a run's events file (events_path: its IPv4 prober's, or its IPv6
 * prober's) into evs; a relative path is taken from the directory of the
 * lab description (in). Returns 0 or -1 (printed). */
static int read_events(
	const struct lab_run *r, const char *events_path, struct lab_events *evs, const char *in)
{
	char path[PATH_MAX], *line = NULL, why[200];
	const char *slash = strrchr(in, '/');
	FILE *f;
	size_t cap = 0;
	ssize_t n;
	long lineno = 0;
	int rc = -1;

	if (events_path[0] == '/' || !slash)
		snprintf(path, sizeof(path), "%s", events_path);
	else
		snprintf(path, sizeof(path), "%.*s/%s", (int)(slash - in), in, events_path);
	f = fopen(path, "re");
	if (!f) {
		fprintf(stderr, "%s: %s (the %sevents of stack %s)\n", path, strerror(errno),
			evs == &r->ev6 ? "IPv6 prober's " : "", r->stack);
		return -1;
	}
	while ((n = getline(&line, &cap, f)) != -1) {
		struct lab_event e;

		bool whole = n > 0 && line[n - 1] == '\n';

		lineno++;
		while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
			line[--n] = '\0';
		if (!n)
			continue;
		if (lab_event_parse(line, &e, why, sizeof(why)) < 0) {
			/* a prober killed mid-write leaves its last line cut short */
			if (!whole)
				break;
			fprintf(stderr, "%s:%ld: %s\n", path, lineno, why);
			goto out;
		}
		if (lab_events_add(evs, &e) < 0) {
			fprintf(stderr, "%s: out of memory\n", path);
			goto out;
		}
	}
	if (ferror(f)) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		goto out;
	}
	rc = 0;
out:
	free(line);
	fclose(f);
	return rc;
}

/* Write data to DIR/name whole (through a temporary file). Returns 0 or -1
 * (printed). */
static int write_file(const char *dir, const char *name, const char *data, size_t len)
{
	char path[4096];
	int r;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, name) >= sizeof(path)) {
		fprintf(stderr, "%s/%s: name too long\n", dir, name);
		return -1;
	}
	r = cpha_write_file_atomic(path, data, len, 0644, (uid_t)-1, (gid_t)-1);
	if (r < 0) {
		fprintf(stderr, "%s: %s\n", path, strerror(-r));
		return -1;
	}
	return 0;
}

int cmd_lab_report(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "in", required_argument, NULL, 'i' },
		{ "out", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *in = NULL, *outdir = NULL;
	struct lab_model m = { 0 };
	struct cpha_buf md = { 0 }, svg = { 0 };
	json_error_t jerr;
	json_t *doc = NULL, *rep = NULL;
	char *js = NULL, why[300];
	int c, rc = CPHA_EXIT_FAIL;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
		switch (c) {
		case 'i':
			in = optarg;
			break;
		case 'o':
			outdir = optarg;
			break;
		case 'h':
			report_usage(stdout);
			return CPHA_EXIT_OK;
		default:
			fprintf(stderr, "cpha lab report: %s: unknown option or missing value\n",
				argv[optind - 1]);
			report_usage(stderr);
			return CPHA_EXIT_USAGE;
		}
	}
	if (optind < argc || !in || !outdir) {
		fprintf(stderr, "cpha lab report: %s\n",
			optind < argc ? "unexpected argument" : "--in and --out are required");
		report_usage(stderr);
		return CPHA_EXIT_USAGE;
	}
	doc = json_load_file(in, JSON_REJECT_DUPLICATES, &jerr);
	if (!doc) {
		if (jerr.line > 0)
			fprintf(stderr, "%s:%d:%d: %s\n", in, jerr.line, jerr.column, jerr.text);
		else
			fprintf(stderr, "%s: %s\n", in, jerr.text);
		goto out;
	}
	if (lab_model_load(doc, &m, why, sizeof(why)) < 0) {
		fprintf(stderr, "%s: %s\n", in, why);
		goto out;
	}
	for (size_t i = 0; i < m.nruns; i++) {
		struct lab_run *r = &m.runs[i];

		if (read_events(r, r->events_path, &r->ev, in) < 0 ||
			(r->events6_path && read_events(r, r->events6_path, &r->ev6, in) < 0))
			goto out;
		for (size_t j = 0; j < r->nscen; j++) {
			lab_scenario_stats(&r->ev, &r->scen[j]);
			if (r->events6_path)
				lab_scenario_stats6(&r->ev6, &r->scen[j]);
		}
	}
	if (mkdir(outdir, 0755) == -1 && errno != EEXIST) {
		fprintf(stderr, "%s: %s\n", outdir, strerror(errno));
		goto out;
	}
	rep = lab_render_json(&m);
	js = rep ? json_dumps(rep, JSON_INDENT(2) | JSON_REAL_PRECISION(10)) : NULL;
	if (!js || lab_render_md(&m, &md) < 0 || lab_render_svg(&m, &svg) < 0) {
		fprintf(stderr, "cpha lab report: out of memory\n");
		goto out;
	}
	if (write_file(outdir, "report.json", js, strlen(js)) < 0 ||
		write_file(outdir, "report.md", md.data, md.len) < 0 ||
		write_file(outdir, "timeline.svg", svg.data, svg.len) < 0)
		goto out;
	rc = CPHA_EXIT_OK;
out:
	free(js);
	json_decref(rep);
	cpha_buf_free(&md);
	cpha_buf_free(&svg);
	lab_model_free(&m);
	json_decref(doc);
	return rc;
}
