/* vipd's configuration: the auth_hmac block of a vrrp_instance, as
 * keepalived 2.4.3 reads it (keepalived's repository,
 * keepalived/vrrp/vrrp_parser.c and vrrp_complete_instance() in
 * keepalived/vrrp/vrrp.c):
 *
 *   auth_hmac {
 *       key ID VALUE          ID 1..255; VALUE text, hex:HEX or file:PATH,
 *                             32 to 64 bytes once decoded; repeatable
 *       active_key ID         the key that signs; must be one of the keys
 *       mode enforce|permissive|receive-only       default enforce
 *       anti_replay time|monotonic                 default time
 *       time_window SECONDS   1..300; default 3 x advert_int within [5, 300]
 *   }
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/crypto.h>

#include "cfg_ctx.h"

/* The file holds what the value would: keepalived reads at most this much */
#define CFG_HMAC_FILE_MAX (4 + VRRP_HMAC_KEY_MAX * 2 + 8 - 1)

struct cfg_hmac {
	struct vipd_instance *v;
	struct cfg_inst_x *x;
	const char *where;
};

#define H(obj) ((struct cfg_hmac *)(obj))

/* Read a file: key into buf (NUL-terminated, line ends dropped). Returns 0
 * or -1 after reporting. */
static int cfg_hmac_file(struct cfg_ctx *ctx, const struct cpha_conf_node *n, const char *path,
	char *buf, size_t size, const char *where)
{
	struct stat st;
	ssize_t r;
	size_t len = 0;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd == -1) {
		vipd_cfg_err(ctx, n->loc, "'key %s': cannot open '%s': %s (%s)", n->w[1], path,
			strerror(errno), where);
		return -1;
	}
	/* keepalived says so and uses the key all the same */
	if (fstat(fd, &st) == 0 && (st.st_mode & (S_IRWXG | S_IRWXO)))
		vipd_cfg_notice(ctx, n->loc,
			"'key %s': '%s' can be read by its group or others: it holds a secret "
			"(%s)",
			n->w[1], path, where);
	for (;;) {
		r = read(fd, buf + len, size - len);
		if (r == -1 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		len += (size_t)r;
		if (len == size)
			break;
	}
	close(fd);
	if (r == -1) {
		vipd_cfg_err(ctx, n->loc, "'key %s': reading '%s': %s (%s)", n->w[1], path,
			strerror(errno), where);
		return -1;
	}
	if (len > CFG_HMAC_FILE_MAX) {
		vipd_cfg_err(ctx, n->loc,
			"'key %s': '%s' is too large for a key (more than %d bytes) (%s)", n->w[1],
			path, CFG_HMAC_FILE_MAX, where);
		return -1;
	}
	while (len && (buf[len - 1] == '\n' || buf[len - 1] == '\r'))
		len--;
	buf[len] = '\0';
	return 0;
}

static void cfg_h_key(struct cfg_ctx *ctx, const struct cpha_conf_node *n, void *obj)
{
	struct vipd_instance *v = H(obj)->v;
	struct cfg_inst_x *x = H(obj)->x;
	char file[CFG_HMAC_FILE_MAX + 2], at[64];
	const char *val;
	struct vrrp_hmac_key key = { 0 }, *k;
	unsigned long long id;
	size_t i, nlocs;
	unsigned *l;
	int len;

	if (cpha_conf_nargs(&ctx->d, n, 2, 2, H(obj)->where) < 0 ||
		cpha_conf_uint(&ctx->d, n, 1, 1, 255, &id, H(obj)->where) < 0)
		return;
	for (i = 0; i < v->hmac.nkeys; i++)
		if (v->hmac_keys[i].id == id) {
			vipd_cfg_err(ctx, n->loc, "'key %llu' is given twice (%s; first at %s)", id,
				H(obj)->where,
				cpha_cfgdiag_at(
					&ctx->d, x->hmac_key_locs[i], n->loc, at, sizeof(at)));
			return;
		}
	val = n->w[2];
	if (strncmp(val, "file:", 5) == 0) {
		if (cfg_hmac_file(ctx, n, val + 5, file, sizeof(file), H(obj)->where) < 0)
			return;
		val = file;
	}
	len = vrrp_hmac_key_decode(val, key.data, sizeof(key.data));
	OPENSSL_cleanse(file, sizeof(file));
	if (len < 0) {
		vipd_cfg_err(ctx, n->loc,
			"'key %llu': the value after 'hex:' must be hexadecimal digits (%s)", id,
			H(obj)->where);
		goto out;
	}
	if (len < VRRP_HMAC_KEY_MIN || len > VRRP_HMAC_KEY_MAX) {
		vipd_cfg_err(ctx, n->loc,
			"'key %llu' is %d bytes long: a key must be %d to %d (%s)", id, len,
			VRRP_HMAC_KEY_MIN, VRRP_HMAC_KEY_MAX, H(obj)->where);
		goto out;
	}
	key.id = (uint8_t)id;
	key.len = (uint8_t)len;
	nlocs = v->hmac.nkeys;
	k = vipd_cfg_push(ctx, &v->hmac_keys, &v->hmac.nkeys, sizeof(*k));
	if (!k)
		goto out;
	l = vipd_cfg_push(ctx, &x->hmac_key_locs, &nlocs, sizeof(*l));
	if (!l) {
		v->hmac.nkeys--;
		goto out;
	}
	*k = key;
	*l = n->loc;
	v->hmac.keys = v->hmac_keys;
out:
	OPENSSL_cleanse(&key, sizeof(key));
}

static void cfg_h_active(struct cfg_ctx *ctx, const struct cpha_conf_node *n, void *obj)
{
	unsigned long long id;

	if (cpha_conf_nargs(&ctx->d, n, 1, 1, H(obj)->where) < 0 ||
		cpha_conf_uint(&ctx->d, n, 1, 1, 255, &id, H(obj)->where) < 0)
		return;
	H(obj)->v->hmac.active_key = (uint8_t)id;
	H(obj)->x->hmac_active_loc = n->loc;
}

static void cfg_h_window(struct cfg_ctx *ctx, const struct cpha_conf_node *n, void *obj)
{
	unsigned long long w;

	if (cpha_conf_nargs(&ctx->d, n, 1, 1, H(obj)->where) < 0 ||
		cpha_conf_uint(&ctx->d, n, 1, VRRP_HMAC_WINDOW_MIN, VRRP_HMAC_WINDOW_MAX, &w,
			H(obj)->where) < 0)
		return;
	H(obj)->v->hmac.time_window = (unsigned)w;
}

static void cfg_h_replay(struct cfg_ctx *ctx, const struct cpha_conf_node *n, void *obj)
{
	if (cpha_conf_nargs(&ctx->d, n, 1, 1, H(obj)->where) < 0)
		return;
	if (strcmp(n->w[1], "time") == 0)
		H(obj)->v->hmac.anti_replay_time = true;
	else if (strcmp(n->w[1], "monotonic") == 0)
		H(obj)->v->hmac.anti_replay_time = false;
	else
		vipd_cfg_err(ctx, n->loc, "'anti_replay' must be time or monotonic, not '%s' (%s)",
			n->w[1], H(obj)->where);
}

static void cfg_h_mode(struct cfg_ctx *ctx, const struct cpha_conf_node *n, void *obj)
{
	struct vipd_instance *v = H(obj)->v;

	if (cpha_conf_nargs(&ctx->d, n, 1, 1, H(obj)->where) < 0)
		return;
	if (strcmp(n->w[1], "enforce") == 0)
		v->hmac.mode = VRRP_HMAC_ENFORCE;
	else if (strcmp(n->w[1], "permissive") == 0)
		v->hmac.mode = VRRP_HMAC_PERMISSIVE;
	else if (strcmp(n->w[1], "receive-only") == 0)
		v->hmac.mode = VRRP_HMAC_RECEIVE_ONLY;
	else {
		vipd_cfg_err(ctx, n->loc,
			"'mode' must be enforce, permissive or receive-only, not '%s' (%s)",
			n->w[1], H(obj)->where);
		return;
	}
	H(obj)->x->hmac_mode_loc = n->loc;
}

/* keepalived's keywords take the last value given: several are no error */
static const struct cfg_kw cfg_hmac_kws[] = {
	{ { "key", CFG_KW_HERE }, cfg_h_key, CPHA_CONF_KW_MULTI },
	{ { "active_key", CFG_KW_HERE }, cfg_h_active, CPHA_CONF_KW_MULTI },
	{ { "time_window", CFG_KW_HERE }, cfg_h_window, CPHA_CONF_KW_MULTI },
	{ { "anti_replay", CFG_KW_HERE }, cfg_h_replay, CPHA_CONF_KW_MULTI },
	{ { "mode", CFG_KW_HERE }, cfg_h_mode, CPHA_CONF_KW_MULTI },
};

void vipd_cfg_auth_hmac(struct cfg_ctx *ctx, const struct cpha_conf_node *n,
	struct vipd_instance *v, struct cfg_inst_x *x, const char *where)
{
	struct cfg_hmac h = { v, x, where };
	char w[128];

	if (cpha_conf_nargs(&ctx->d, n, 0, 0, where) < 0)
		return;
	if (!v->auth_hmac) {
		v->auth_hmac = true;
		v->hmac.mode = VRRP_HMAC_ENFORCE;
		v->hmac.anti_replay_time = true;
		x->hmac_loc = n->loc;
	}
	snprintf(w, sizeof(w), "auth_hmac of %s", where);
	h.where = w;
	vipd_cfg_block(ctx, n, cfg_hmac_kws, CFG_NELEM(cfg_hmac_kws), &h, w);
}

void vipd_cfg_check_auth_hmac(struct cfg_ctx *ctx, struct vipd_instance *v, struct cfg_inst_x *x)
{
	if (!v->auth_hmac)
		return;
	/* keepalived goes on without auth_hmac, after an error: vipd does not
	 * start unauthenticated when the file asks for authentication */
	if (!vrrp_hmac_find_key(&v->hmac, v->hmac.active_key)) {
		if (x->hmac_active_loc)
			vipd_cfg_err(ctx, x->hmac_active_loc,
				"'active_key %u' is not one of the keys of auth_hmac "
				"(vrrp_instance '%s')",
				v->hmac.active_key, v->name);
		else
			vipd_cfg_err(ctx, x->hmac_loc,
				"auth_hmac has no 'active_key': say which key signs "
				"(vrrp_instance '%s')",
				v->name);
		return;
	}
	if (v->auth != VIPD_AUTH_NONE) {
		vipd_cfg_notice(ctx, x->auth_loc,
			"'authentication' is ignored: auth_hmac replaces it, as keepalived does "
			"(vrrp_instance '%s')",
			v->name);
		v->auth = VIPD_AUTH_NONE;
	}
	if (ctx->c->global.strict && v->hmac.mode != VRRP_HMAC_ENFORCE) {
		vipd_cfg_notice(ctx, x->hmac_mode_loc,
			"auth_hmac 'mode %s' becomes enforce with vrrp_strict, as keepalived does "
			"(vrrp_instance '%s')",
			vrrp_hmac_mode_str(v->hmac.mode), v->name);
		v->hmac.mode = VRRP_HMAC_ENFORCE;
	}
	if (v->hmac.anti_replay_time && !v->hmac.time_window)
		v->hmac.time_window = vrrp_hmac_window(v->advert_int);
}
