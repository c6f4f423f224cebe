/* `cpha pki`: the options, and the report printed one line per file. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cpha.h"
#include "pki.h"
#include "pki_dir.h"

/* Where the PKI is made when --dir is not given: ./pki, beside the operator,
 * who then copies each file to the host that needs it. */
#define PKI_DEFAULT_DIR "pki"

static void usage(FILE *f)
{
	fprintf(f, "usage: cpha pki [-f FILE] [--dir DIR] [check | renew [--force] [--rekey] | "
		   "add-san NAME... | remove-san NAME...]\n"
		   "  (no command)  make what is missing, re-issue what no longer fits FILE\n"
		   "  check         lint every certificate and key; exit 1 on any problem\n"
		   "  renew         re-issue what expires within pki.renew_days (--force: all;\n"
		   "                --rekey: new keys for them, the CAs' and sa.key kept)\n"
		   "  add-san NAME  re-issue apiserver.pem with more DNS names or addresses\n"
		   "  remove-san NAME\n"
		   "                re-issue every certificate that has NAME without it (a\n"
		   "                removed master's name and address); refused for a name\n"
		   "                the description still uses\n"
		   "  --dir DIR     the PKI directory (default ./" PKI_DEFAULT_DIR ")\n");
}

static void print_line(const char *dir, const struct pki_line *l)
{
	size_t n = strlen(dir);
	const char *sep = !*l->file || (n && dir[n - 1] == '/') ? "" : "/";

	switch (l->kind) {
	case PKI_INFO:
	case PKI_PROBLEM:
		printf("%s%s%s: %s\n", dir, sep, l->file, l->text);
		break;
	case PKI_WARN:
		fflush(stdout);
		fprintf(stderr, "cpha pki: warning: %s%s%s: %s\n", dir, sep, l->file, l->text);
		break;
	case PKI_ERROR:
		fflush(stdout);
		fprintf(stderr, "cpha pki: %s%s%s: %s\n", dir, sep, l->file, l->text);
		break;
	}
}

int cmd_pki(int argc, char **argv, const char *file)
{
	static const struct option opts[] = {
		{ "dir", required_argument, NULL, 'd' },
		{ "force", no_argument, NULL, 'F' },
		{ "rekey", no_argument, NULL, 'R' },
		{ "file", required_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct pki_run run = { .op = PKI_OP_ISSUE };
	struct pki_names add = { 0 };
	struct pki_report r = { 0 };
	struct pki_plan plan;
	const char *dir = PKI_DEFAULT_DIR, *sub = NULL, *why = NULL;
	struct cp_cluster *c;
	int ch, rc = CPHA_EXIT_USAGE;

	optind = 1;
	while ((ch = getopt_long(argc, argv, "f:h", opts, NULL)) != -1) {
		switch (ch) {
		case 'd':
			dir = optarg;
			break;
		case 'F':
			run.force = true;
			break;
		case 'R':
			run.rekey = true;
			break;
		case 'f':
			file = optarg;
			break;
		case 'h':
			usage(stdout);
			return CPHA_EXIT_OK;
		default:
			usage(stderr);
			return CPHA_EXIT_USAGE;
		}
	}
	if (optind < argc)
		sub = argv[optind++];
	if (!sub)
		run.op = PKI_OP_ISSUE;
	else if (!strcmp(sub, "check"))
		run.op = PKI_OP_CHECK;
	else if (!strcmp(sub, "renew"))
		run.op = PKI_OP_RENEW;
	else if (!strcmp(sub, "add-san"))
		run.op = PKI_OP_ADD_SAN;
	else if (!strcmp(sub, "remove-san"))
		run.op = PKI_OP_REMOVE_SAN;
	else {
		fprintf(stderr, "cpha pki: unknown command '%s'\n", sub);
		usage(stderr);
		return CPHA_EXIT_USAGE;
	}
	if (run.op == PKI_OP_ADD_SAN || run.op == PKI_OP_REMOVE_SAN) {
		if (optind == argc) {
			fprintf(stderr, "cpha pki %s: give one or more names or addresses\n", sub);
			return CPHA_EXIT_USAGE;
		}
		for (; optind < argc; optind++)
			if (pki_names_add(&add, argv[optind]) < 0) {
				fprintf(stderr,
					"cpha pki %s: '%s' is neither an IP address nor a DNS "
					"name\n",
					sub, argv[optind]);
				goto out;
			}
		run.add = &add;
	} else if (optind < argc) {
		fprintf(stderr, "cpha pki: unexpected argument '%s'\n", argv[optind]);
		goto out;
	}
	if (run.force && run.op != PKI_OP_RENEW) {
		fprintf(stderr, "cpha pki: --force goes with renew only\n");
		goto out;
	}
	if (run.rekey && run.op != PKI_OP_RENEW) {
		fprintf(stderr, "cpha pki: --rekey goes with renew only\n");
		goto out;
	}
	rc = CPHA_EXIT_FAIL;
	c = cpha_load(file);
	if (!c)
		goto out;
	if (pki_plan_build(c, &plan, &why) < 0) {
		fprintf(stderr, "cpha pki: %s: %s\n", file, why);
		cluster_free(c);
		goto out;
	}
	cluster_free(c);
	run.now = time(NULL);
	rc = pki_dir_run(&plan, dir, &run, &r) < 0 ? CPHA_EXIT_FAIL : CPHA_EXIT_OK;
	for (size_t i = 0; i < r.n; i++)
		print_line(dir, &r.v[i]);
	fflush(stdout);
	if (r.nproblems)
		fprintf(stderr, "cpha pki: %zu problem%s in %s\n", r.nproblems,
			r.nproblems == 1 ? "" : "s", dir);
	pki_report_free(&r);
	pki_plan_free(&plan);
out:
	pki_names_free(&add);
	return rc;
}
