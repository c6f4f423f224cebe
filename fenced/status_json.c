/* fenced's /status: "show json" (show.c) with the version, pid and the
 * configuration's digest, and without the fence agents' output (an agent
 * may echo its command line). */
#include <stdlib.h>
#include <unistd.h>

#include <jansson.h>

#include "digest.h"
#include "fenced.h"

void fenced_status_json(void *userdata, struct cpha_buf *out)
{
	struct fenced *d = userdata;
	char sha[CPHA_DIGEST_HEXLEN] = "";
	struct cpha_buf b = { 0 };
	json_t *root = NULL, *v;
	size_t i;
	char *s;

	fenced_command(d, 0, "show json", &b);
	if (b.data)
		root = json_loads(b.data, 0, NULL);
	cpha_buf_free(&b);
	if (!root)
		root = json_pack("{s:b}", "show_failed", 1);
	json_array_foreach(json_object_get(root, "history"), i, v) json_object_del(v, "detail");
	/* the file's bytes now: fenced keeps no digest of what it loaded */
	if (d->config_path && cpha_digest_file(d->config_path, sha) < 0)
		sha[0] = '\0';
	json_object_set_new(root, "daemon", json_string("fenced"));
	json_object_set_new(root, "version", json_string(CPHA_VERSION));
	json_object_set_new(root, "pid", json_integer((json_int_t)getpid()));
	json_object_set_new(root, "config_sha256", sha[0] ? json_string(sha) : json_null());
	s = json_dumps(root, JSON_COMPACT);
	if (s)
		cpha_buf_printf(out, "%s\n", s);
	free(s);
	json_decref(root);
}
