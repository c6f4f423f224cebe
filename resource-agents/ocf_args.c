/* Command lines, EnvironmentFile= files, flag lookup and node maps. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "ocf_args.h"

#define ENVFILE_MAX (1024 * 1024)

static bool is_blank(char ch)
{
	return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r';
}

int ocf_split_words(const char *s, struct ocf_strv *out, const char **why)
{
	struct cpha_buf w = { 0 };
	bool in_word = false;
	int r = 0;

	*why = NULL;
	while (r == 0 && s && *s) {
		char ch = *s;

		if (is_blank(ch)) {
			if (in_word)
				r = ocf_strv_push(out, w.data ? w.data : "");
			cpha_buf_reset(&w);
			in_word = false;
			s++;
			continue;
		}
		if (ch == '\\' && s[1] == '\n') {
			s += 2; /* line continuation */
			continue;
		}
		in_word = true;
		if (ch == '\\') {
			if (s[1] == '\0') {
				s++;
				continue;
			}
			r = cpha_buf_append(&w, s + 1, 1);
			s += 2;
		} else if (ch == '\'') {
			const char *end = strchr(s + 1, '\'');

			if (!end) {
				*why = "unterminated single quote";
				r = -EINVAL;
				break;
			}
			r = cpha_buf_append(&w, s + 1, (size_t)(end - s - 1));
			if (r == 0 && !w.data)
				r = cpha_buf_puts(&w, "");
			s = end + 1;
		} else if (ch == '"') {
			s++;
			if (!w.data)
				r = cpha_buf_puts(&w, "");
			while (r == 0 && *s && *s != '"') {
				if (*s == '\\' && s[1] && strchr("\"\\$`\n", s[1])) {
					if (s[1] != '\n')
						r = cpha_buf_append(&w, s + 1, 1);
					s += 2;
				} else {
					r = cpha_buf_append(&w, s, 1);
					s++;
				}
			}
			if (r == 0 && *s != '"') {
				*why = "unterminated double quote";
				r = -EINVAL;
				break;
			}
			s++;
		} else {
			r = cpha_buf_append(&w, s, 1);
			s++;
		}
	}
	if (r == 0 && in_word)
		r = ocf_strv_push(out, w.data ? w.data : "");
	cpha_buf_free(&w);
	return r;
}

/* ---------------------------------------------------------------- kv -- */

const char *ocf_kv_get(const struct ocf_kvlist *l, const char *key)
{
	size_t i;

	for (i = 0; i < l->n; i++) {
		if (strcmp(l->v[i].key, key) == 0)
			return l->v[i].value;
	}
	return NULL;
}

int ocf_kv_set(struct ocf_kvlist *l, const char *key, const char *value)
{
	struct ocf_kv *nv;
	char *v = strdup(value), *k;
	size_t i;

	if (!v)
		return -ENOMEM;
	for (i = 0; i < l->n; i++) {
		if (strcmp(l->v[i].key, key) == 0) {
			free(l->v[i].value);
			l->v[i].value = v;
			return 0;
		}
	}
	k = strdup(key);
	nv = k ? realloc(l->v, (l->n + 1) * sizeof(*nv)) : NULL;
	if (!nv) {
		free(k);
		free(v);
		return -ENOMEM;
	}
	l->v = nv;
	l->v[l->n].key = k;
	l->v[l->n].value = v;
	l->n++;
	return 0;
}

void ocf_kv_free(struct ocf_kvlist *l)
{
	size_t i;

	for (i = 0; i < l->n; i++) {
		free(l->v[i].key);
		free(l->v[i].value);
	}
	free(l->v);
	l->v = NULL;
	l->n = 0;
}

/* ----------------------------------------------------------- envfile -- */

static bool valid_key(const char *k, size_t len)
{
	size_t i;

	if (len == 0 || (k[0] >= '0' && k[0] <= '9'))
		return false;
	for (i = 0; i < len; i++) {
		char ch = k[i];

		if (!((ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') ||
			    (ch >= '0' && ch <= '9') || ch == '_'))
			return false;
	}
	return true;
}

/* The value starting at *p (after '='), up to the end of its logical line.
 * Advances *p and *line past what it consumed. */
static int envfile_value(const char **p, unsigned *line, struct cpha_buf *v, const char **why)
{
	const char *s = *p;
	size_t trail = 0; /* unquoted blanks at the end, dropped */
	int r = 0;

	while (*s == ' ' || *s == '\t')
		s++;
	r = cpha_buf_puts(v, "");
	while (r == 0 && *s && *s != '\n') {
		if (*s == '\\' && s[1] == '\n') {
			(*line)++;
			s += 2;
			trail = 0;
			continue;
		}
		if (*s == '\\' && s[1]) {
			r = cpha_buf_append(v, s + 1, 1);
			s += 2;
			trail = 0;
		} else if (*s == '\'') {
			const char *end = strchr(s + 1, '\'');

			if (!end) {
				*why = "unterminated single quote";
				return -EINVAL;
			}
			for (const char *q = s + 1; q < end; q++)
				if (*q == '\n')
					(*line)++;
			r = cpha_buf_append(v, s + 1, (size_t)(end - s - 1));
			s = end + 1;
			trail = 0;
		} else if (*s == '"') {
			s++;
			while (r == 0 && *s && *s != '"') {
				if (*s == '\\' && s[1] == '\n') {
					(*line)++;
					s += 2;
				} else if (*s == '\\' && s[1] && strchr("\"\\$`", s[1])) {
					r = cpha_buf_append(v, s + 1, 1);
					s += 2;
				} else {
					if (*s == '\n')
						(*line)++;
					r = cpha_buf_append(v, s, 1);
					s++;
				}
			}
			if (r == 0 && *s != '"') {
				*why = "unterminated double quote";
				return -EINVAL;
			}
			s++;
			trail = 0;
		} else {
			r = cpha_buf_append(v, s, 1);
			trail = (*s == ' ' || *s == '\t' || *s == '\r') ? trail + 1 : 0;
			s++;
		}
	}
	if (r == 0 && trail) {
		v->len -= trail;
		v->data[v->len] = '\0';
	}
	*p = s;
	return r;
}

int ocf_envfile_parse(const char *text, struct ocf_kvlist *out, unsigned *line, const char **why)
{
	struct cpha_buf val = { 0 };
	const char *s = text, *key, *eq;
	char keybuf[256];
	size_t klen;
	int r = 0;

	*line = 0;
	*why = NULL;
	while (r == 0 && *s) {
		(*line)++;
		while (*s == ' ' || *s == '\t' || *s == '\r')
			s++;
		if (*s == '\n') {
			s++;
			continue;
		}
		if (*s == '#' || *s == ';' || *s == '\0') {
			s += strcspn(s, "\n");
			if (*s)
				s++;
			continue;
		}
		if (strncmp(s, "export", 6) == 0 && (s[6] == ' ' || s[6] == '\t'))
			s += 7 + strspn(s + 7, " \t");
		key = s;
		eq = s + strcspn(s, "=\n");
		if (*eq != '=') {
			*why = "expected KEY=VALUE";
			r = -EINVAL;
			break;
		}
		klen = (size_t)(eq - key);
		while (klen && (key[klen - 1] == ' ' || key[klen - 1] == '\t'))
			klen--;
		if (!valid_key(key, klen) || klen >= sizeof(keybuf)) {
			*why = "invalid variable name";
			r = -EINVAL;
			break;
		}
		memcpy(keybuf, key, klen);
		keybuf[klen] = '\0';
		s = eq + 1;
		cpha_buf_reset(&val);
		r = envfile_value(&s, line, &val, why);
		if (r == 0)
			r = ocf_kv_set(out, keybuf, val.data ? val.data : "");
		if (*s == '\n')
			s++;
	}
	cpha_buf_free(&val);
	return r;
}

int ocf_envfile_load(const char *path, struct ocf_kvlist *out, unsigned *line, const char **why)
{
	struct cpha_buf b = { 0 };
	int r;

	*line = 0;
	*why = NULL;
	r = cpha_buf_read_file(&b, path, O_NOCTTY, ENVFILE_MAX);
	if (r == -EFBIG)
		*why = "file larger than 1 MiB";
	if (r == 0 && b.data && memchr(b.data, '\0', b.len)) {
		*why = "file contains a NUL byte";
		r = -EINVAL;
	}
	if (r == 0)
		r = ocf_envfile_parse(b.data ? b.data : "", out, line, why);
	cpha_buf_free(&b);
	return r;
}

/* ------------------------------------------------------------- flags -- */

int ocf_flag_get(const struct ocf_strv *argv, size_t from, const char *name, bool boolean,
	const char **value)
{
	size_t len = strlen(name), i;
	const char *a;
	int found = 0;

	for (i = from; i < argv->n; i++) {
		a = argv->v[i];
		if (strcmp(a, "--") == 0)
			break;
		if (strncmp(a, "--", 2) != 0 || strncmp(a + 2, name, len) != 0)
			continue;
		a += 2 + len;
		if (*a == '=') {
			*value = a + 1;
			found = 1;
		} else if (*a == '\0') {
			found = 1;
			if (boolean) {
				*value = "true";
			} else if (i + 1 < argv->n) {
				*value = argv->v[++i];
			} else {
				*value = "";
			}
		}
	}
	return found;
}

/* --------------------------------------------------------------- map -- */

int ocf_map_parse(const char *s, struct ocf_kvlist *out, const char **why)
{
	char item[1024], *eq;
	size_t len;
	int r;

	*why = NULL;
	while (s && *s) {
		s += strspn(s, " \t\n;");
		len = strcspn(s, " \t\n;");
		if (len == 0)
			break;
		if (len >= sizeof(item)) {
			*why = "entry too long";
			return -EINVAL;
		}
		memcpy(item, s, len);
		item[len] = '\0';
		s += len;
		eq = strchr(item, '=');
		if (!eq || eq == item || !eq[1]) {
			*why = "expected name=value";
			return -EINVAL;
		}
		*eq = '\0';
		if (ocf_kv_get(out, item)) {
			*why = "a name is listed twice";
			return -EINVAL;
		}
		r = ocf_kv_set(out, item, eq + 1);
		if (r < 0)
			return r;
	}
	return 0;
}

/* ------------------------------------------------------ haproxy.cfg -- */

/* Keywords that open a section in HAProxy's configuration language. */
static const char *const ha_sections[] = { "global", "defaults", "frontend", "backend", "listen",
	"peers", "resolvers", "userlist", "mailers", "program", "http-errors", "ring", "cache",
	"fcgi-app", NULL };

int ocf_hacfg_stats_socket(const char *text, char *out, size_t len)
{
	char line[4096], *w[3], *save, *p;
	bool global = false;
	size_t n, i;
	int nw;

	while (text && *text) {
		n = strcspn(text, "\n");
		snprintf(line, sizeof(line), "%.*s", (int)n, text);
		text += n + (text[n] ? 1 : 0);
		p = strchr(line, '#');
		if (p)
			*p = '\0';
		for (nw = 0, p = strtok_r(line, " \t\r", &save); p && nw < 3;
			p = strtok_r(NULL, " \t\r", &save))
			w[nw++] = p;
		if (nw == 0)
			continue;
		for (i = 0; ha_sections[i]; i++) {
			if (strcmp(w[0], ha_sections[i]) == 0)
				global = i == 0;
		}
		if (!global || nw < 3 || strcmp(w[0], "stats") != 0 || strcmp(w[1], "socket") != 0)
			continue;
		p = w[2];
		if (strncmp(p, "unix@", 5) == 0)
			p += 5;
		if (p[0] != '/')
			continue;
		if (strlen(p) >= len)
			return -ENAMETOOLONG;
		snprintf(out, len, "%s", p);
		return 1;
	}
	return 0;
}
