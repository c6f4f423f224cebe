/* vipd's /status: "show json" narrowed to what `cpha status` reads (one
 * implementation of the numbers; the virtual addresses' presence is read
 * from the kernel when the request comes). */
#include <stdlib.h>
#include <unistd.h>

#include <jansson.h>

#include "vipd.h"

static json_t *inst_status(json_t *in)
{
	json_t *vips = json_array(), *tracks = json_array(), *v;
	size_t i;

	json_array_foreach(json_object_get(in, "vips"), i, v) json_array_append_new(vips,
		json_pack("{s:O?,s:O?,s:O?}", "address", json_object_get(v, "address"), "prefixlen",
			json_object_get(v, "prefixlen"), "present", json_object_get(v, "present")));
	json_array_foreach(json_object_get(in, "tracks"), i, v) json_array_append_new(
		tracks, json_pack("{s:O?,s:O?,s:O?}", "name", json_object_get(v, "name"), "kind",
				json_object_get(v, "kind"), "ok", json_object_get(v, "ok")));
	return json_pack("{s:O?,s:O?,s:O?,s:O?,s:O?,s:O?,s:O?,s:o,s:o}", "name",
		json_object_get(in, "instance"), "state", json_object_get(in, "state"), "interface",
		json_object_get(in, "interface"), "vrid", json_object_get(in, "vrid"), "priority",
		json_object_get(in, "base_priority"), "effective_priority",
		json_object_get(in, "priority"), "hold_ms", json_object_get(in, "hold_ms"), "vips",
		vips, "tracks", tracks);
}

void vipd_status_json(void *userdata, struct cpha_buf *out)
{
	struct cpha_buf b = { 0 };
	json_t *show = NULL, *insts = json_array(), *bfd = json_array(), *root, *v;
	size_t i;
	char *s;

	vipd_stats_command(userdata, "show json", &b);
	if (b.data)
		show = json_loads(b.data, 0, NULL);
	cpha_buf_free(&b);
	json_array_foreach(json_object_get(show, "instances"), i, v)
		json_array_append_new(insts, inst_status(v));
	/* BFD sessions: the neighbor and whether it answers */
	json_array_foreach(json_object_get(show, "bfd"), i, v) json_array_append_new(
		bfd, json_pack("{s:O?,s:O?,s:O?}", "name", json_object_get(v, "name"), "neighbor",
			     json_object_get(v, "neighbor"), "state", json_object_get(v, "state")));
	root = json_pack("{s:s,s:s,s:i,s:O?,s:o,s:o}", "daemon", "vipd", "version", CPHA_VERSION,
		"pid", (int)getpid(), "config_sha256", json_object_get(show, "config_sha256"),
		"instances", insts, "bfd", bfd);
	s = root ? json_dumps(root, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
	if (s)
		cpha_buf_printf(out, "%s\n", s);
	free(s);
	json_decref(root);
	json_decref(show);
}
