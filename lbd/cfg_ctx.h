/* What cfg.c and the cfg_*.c files share while parsing: the parsing
 * context, the state of one section, and the helpers that report errors.
 * Nothing here outlives lbd_cfg_load(). */
#ifndef LBD_CFG_CTX_H
#define LBD_CFG_CTX_H

#include <stddef.h>
#include <stdint.h>

#include "cfg.h"
#include "cfgdiag.h"

#define CFG_MAX_ERRORS  100         /* stop parsing after this many errors */
#define CFG_MAXCONN_MAX 10000000ULL /* largest maxconn lbd accepts */

/* Capabilities of a section (HAProxy's PR_CAP_*). */
#define CFG_CAP_DEF (1u << 0) /* defaults */
#define CFG_CAP_FE  (1u << 1) /* accepts connections: frontend, listen */
#define CFG_CAP_BE  (1u << 2) /* holds servers: backend, listen */

/* Largest time HAProxy accepts (2^31-1 ms, about 24.8 days), in usec. */
#define CFG_TIME_MAX (2147483647ULL * 1000ULL)

/* One logical line of the file. */
struct cfg_args {
	const char **v; /* n words, then NULL */
	size_t n;
	unsigned line;
};

/* An HTTP-only setting seen in a defaults section (decided at its end). */
struct cfg_http_only {
	const char *what; /* "option httplog", ... (static) */
	int no;           /* written as "no option ..." */
	unsigned line;
};

/* A defaults, frontend, backend or listen section while it is parsed. A
 * traffic section starts as a deep copy of the defaults before it; fe and
 * be are moved into the final configuration at the end. */
struct cfg_proxy {
	unsigned cap;     /* CFG_CAP_* */
	const char *kind; /* "defaults", "frontend", "backend", "listen" */
	char *name;       /* NULL for an unnamed defaults section */
	unsigned line;
	int mode_http;      /* effective mode is http */
	unsigned mode_line; /* where that mode was written; 0: built-in tcp */
	struct lbd_timeouts to;
	struct lbd_frontend fe;      /* maxconn, default_backend, logs, tcplog ... */
	struct lbd_backend be;       /* balance, retries, checks, servers ... */
	struct lbd_server_opts dsrv; /* default-server so far */
	unsigned tcpchk_opt_line;    /* option tcp-check (maybe inherited) */
	unsigned tcpchk_line;        /* first tcp-check rule of this section */
	unsigned httpchk_line;       /* first http-check rule of this section */
	int http_own;                /* inherited http-check state was dropped */
	unsigned hc_connect_line, hc_send_line, hc_expect_line; /* http-check rules */
	int log_noticed;           /* 'log' in a backend was reported */
	unsigned use_backend_line; /* the first use_backend (no condition): it decides */
	struct cfg_http_only *http_only;
	size_t nhttp_only;
	struct cfg_http_px *http; /* built-in HTTP services' directives (cfg_http.c) */
	uint32_t opts;            /* CFG_PXO_*: the option lines so far, inherited whole */
};

/* Bits of cfg_proxy.opts, one per boolean option of cfg_option.c's table
 * (HAProxy's PR_O_* of cfg_opts). A traffic section takes its defaults'
 * bits in one step; lbd_cfg_option_apply() writes them into fe and be at
 * the section's end. */
enum {
	CFG_PXO_TCPLOG = 1u << 0,
	CFG_PXO_DONTLOGNULL = 1u << 1,
	CFG_PXO_DONTLOG_NORMAL = 1u << 2,
	CFG_PXO_SMART_ACCEPT = 1u << 3,
	CFG_PXO_SMART_CONNECT = 1u << 4,
	CFG_PXO_REDISPATCH = 1u << 5,
	CFG_PXO_LOG_HEALTH_CHECKS = 1u << 6,
	CFG_PXO_PERSIST = 1u << 7,
};

enum cfg_section {
	CFG_SEC_NONE, /* before the first section */
	CFG_SEC_GLOBAL,
	CFG_SEC_PROXY,     /* ctx->cur */
	CFG_SEC_SKIP,      /* an unsupported section: its lines are not read */
	CFG_SEC_USERLIST,  /* cfg_http.c */
	CFG_SEC_RESOLVERS, /* cfg_resolve.c */
	CFG_SEC_PROGRAM,   /* cfg_program.c */
};

struct cfg_ctx {
	const char *file;      /* its name, for messages that name other lines */
	struct cpha_cfgdiag d; /* errors and notices; d.stop: too many, or no memory */
	struct lbd_global global;
	unsigned metrics_line;
	unsigned metrics_web_line; /* metrics-web-config, checked against metrics-bind */
	int ssl_verify_none;       /* ssl-server-verify none */
	char *ca_base, *crt_base;
	enum cfg_section sec;
	struct cfg_proxy *cur; /* section being read */
	struct cfg_proxy *def; /* most recent defaults, or NULL */
	struct cfg_proxy **px; /* frontend, backend and listen sections in order */
	size_t npx;
	char where[320];           /* scratch for lbd_cfg_where() */
	struct cfg_http_ctx *http; /* userlists (cfg_http.c) */
	struct cfg_resolvers *res; /* resolvers sections and their users (cfg_resolve.c) */
	int master_worker;         /* 'master-worker' in global, or LBD_CFG_MASTER_WORKER */
	unsigned program_line;     /* the first program section, 0 if none */
};

/* cfg.c */
/* Messages and memory through the collector of lib/cfgdiag.h: a line is a
 * loc in file 0, the only file. */
#define lbd_cfg_err(ctx, ...)              cpha_cfgdiag_err(&(ctx)->d, __VA_ARGS__)
#define lbd_cfg_notice(ctx, ...)           cpha_cfgdiag_notice(&(ctx)->d, __VA_ARGS__)
#define lbd_cfg_oom(ctx)                   cpha_cfgdiag_oom(&(ctx)->d)
#define lbd_cfg_strdup(ctx, s)             cpha_cfgdiag_strdup(&(ctx)->d, s)
#define lbd_cfg_push(ctx, arrayp, n, size) cpha_cfgdiag_push(&(ctx)->d, arrayp, n, size)
const char *lbd_cfg_where(struct cfg_ctx *ctx, const struct cfg_proxy *px);
int lbd_cfg_nargs(struct cfg_ctx *ctx, const struct cfg_args *a, size_t nkw, size_t min, size_t max,
	const char *where);

/* cfg_value.c */
int lbd_cfg_lookup(const char *const *names, const char *s);
int lbd_cfg_uint(struct cfg_ctx *ctx, unsigned line, const char *what, const char *s,
	unsigned long long min, unsigned long long max, unsigned long long *out, const char *where);
int lbd_cfg_time(struct cfg_ctx *ctx, unsigned line, const char *what, const char *s,
	uint64_t *usec, const char *where);
int lbd_cfg_addr(struct cfg_ctx *ctx, unsigned line, const char *what, const char *s,
	unsigned flags, struct cpha_addr *a, const char *where);
/* s with HAProxy's protocol prefix proto@, proto4@ or proto6@ (proto is
 * "tcp" or "udp") written as lbd's (none, ipv4@, ipv6@) into buf; -1 when
 * what is left names another protocol (unix@, abns@, fd@ ...). */
int lbd_cfg_addr_prefix(const char *s, const char *proto, char *buf, size_t len);
int lbd_cfg_name_ok(struct cfg_ctx *ctx, unsigned line, const char *what, const char *name);
int lbd_cfg_is_hostname(const char *s);

/* cfg_log.c: log targets; cfg_bind.c: binds */
void lbd_cfg_logs_free(struct lbd_log_target *logs, size_t n);
int lbd_cfg_logs_append(struct cfg_ctx *ctx, struct lbd_log_target **dst, size_t *n,
	const struct lbd_log_target *src, size_t nsrc);
void lbd_cfg_log(struct cfg_ctx *ctx, const struct cfg_args *a, struct lbd_log_target **logs,
	size_t *n, const char *where);
void lbd_cfg_bind_list(struct cfg_ctx *ctx, struct cfg_proxy *px, const char *list, unsigned line);
void lbd_cfg_bind_line(struct cfg_ctx *ctx, struct cfg_proxy *px, const struct cfg_args *a);
void lbd_cfg_bind_validate(struct cfg_ctx *ctx, const struct lbd_config *c);
void lbd_cfg_log_line(struct cfg_ctx *ctx, struct cfg_proxy *px, const struct cfg_args *a);
void lbd_cfg_log_format_line(struct cfg_ctx *ctx, struct cfg_proxy *px, const struct cfg_args *a);
void lbd_cfg_log_format_finalize(struct cfg_ctx *ctx, struct cfg_proxy *px);

/* cfg_global.c: the global section */
void lbd_cfg_global_line(struct cfg_ctx *ctx, const struct cfg_args *a);
#define CFG_UNIX_PATH_MAX 107 /* longest UNIX socket path (sun_path less its NUL) */
/* The global "stats socket" line (cfg_stats.c). */
void lbd_cfg_stats(struct cfg_ctx *ctx, const struct cfg_args *a, const char *where);
/* 1 when regcomp can take the expression re quickly; else 0 with an error
 * at line (cfg_regex.c). */
int lbd_cfg_re_ok(struct cfg_ctx *ctx, unsigned line, const char *re, const char *where);
/* "timeout client" for the first nkw words of a, in buf (cfg_util.c). */
const char *lbd_cfg_kw(const struct cfg_args *a, size_t nkw, char *buf, size_t len);

/* cfg_server.c: servers */
void lbd_cfg_server_line(struct cfg_ctx *ctx, struct cfg_proxy *px, const struct cfg_args *a);
void lbd_cfg_server_default_line(
	struct cfg_ctx *ctx, struct cfg_proxy *px, const struct cfg_args *a);
int lbd_cfg_server_opts_copy(
	struct cfg_ctx *ctx, struct lbd_server_opts *dst, const struct lbd_server_opts *src);
void lbd_cfg_server_free(struct lbd_server_cfg *s);
void lbd_cfg_server_finalize(struct cfg_ctx *ctx, struct cfg_proxy *px);

/* cfg_global.c: 1 when the table knows the keyword (it said what to say) */
/* cfg_global.c: the servers' TLS defaults against the checks that use them */
void lbd_cfg_global_tls_validate(struct cfg_ctx *ctx, const struct lbd_config *c);

/* cfg_rules.c: tcp-request rules and use_backend conditions */
void lbd_cfg_rules_tcp_request(
	struct cfg_ctx *ctx, struct cfg_proxy *px, const struct cfg_args *a);
int lbd_cfg_rules_use_backend(struct cfg_ctx *ctx, struct cfg_proxy *px, const struct cfg_args *a);
void lbd_cfg_rules_section_end(struct cfg_ctx *ctx, struct cfg_proxy *px);
void lbd_cfg_rules_validate(struct cfg_ctx *ctx, const struct lbd_config *c);

/* cfg_program.c: program sections, read and ignored */
void lbd_cfg_program_start(struct cfg_ctx *ctx, const struct cfg_args *a);
void lbd_cfg_program_line(struct cfg_ctx *ctx, const struct cfg_args *a);
void lbd_cfg_program_validate(struct cfg_ctx *ctx);

/* cfg_resolve.c: resolvers sections, host names, init-addr, resolve-prefer */
void lbd_cfg_resolvers_start(struct cfg_ctx *ctx, const struct cfg_args *a);
void lbd_cfg_resolvers_line(struct cfg_ctx *ctx, const struct cfg_args *a);
int lbd_cfg_resolve_server_opt(struct cfg_ctx *ctx, const struct cfg_args *a, size_t *i,
	struct lbd_server_opts *o, const char *where);
void lbd_cfg_resolve_server(
	struct cfg_ctx *ctx, struct lbd_server_cfg *s, const char *hostname, const char *where);
int lbd_cfg_resolve_bind(
	struct cfg_ctx *ctx, char *buf, size_t len, unsigned line, const char *where);
void lbd_cfg_resolve_validate(struct cfg_ctx *ctx);
void lbd_cfg_resolve_free(struct cfg_ctx *ctx);
void lbd_cfg_resolve_build(struct cfg_ctx *ctx, struct lbd_config *c);
void lbd_cfg_resolvers_config_free(struct lbd_config *c);

/* cfg_stick.c: stick-table and stick rules */
void lbd_cfg_stick_table_line(struct cfg_ctx *ctx, struct cfg_proxy *px, const struct cfg_args *a);
void lbd_cfg_stick_line(struct cfg_ctx *ctx, struct cfg_proxy *px, const struct cfg_args *a);
void lbd_cfg_stick_finalize(struct cfg_ctx *ctx, struct cfg_proxy *px);

/* cfg_option.c */
void lbd_cfg_option_line(struct cfg_ctx *ctx, struct cfg_proxy *px, const struct cfg_args *a);
void lbd_cfg_option_apply(struct cfg_proxy *px);

/* cfg_healthcheck.c */
void lbd_cfg_check_option_ssl_hello(
	struct cfg_ctx *ctx, struct cfg_proxy *px, const struct cfg_args *a);
void lbd_cfg_check_option_tcp(struct cfg_ctx *ctx, struct cfg_proxy *px, const struct cfg_args *a);
void lbd_cfg_check_option_http(struct cfg_ctx *ctx, struct cfg_proxy *px, const struct cfg_args *a);
void lbd_cfg_check_tcp_line(struct cfg_ctx *ctx, struct cfg_proxy *px, const struct cfg_args *a);
void lbd_cfg_check_http_line(struct cfg_ctx *ctx, struct cfg_proxy *px, const struct cfg_args *a);
int lbd_cfg_check_copy(struct cfg_ctx *ctx, struct lbd_backend *dst, const struct lbd_backend *src);
void lbd_cfg_check_free(struct lbd_backend *be);
void lbd_cfg_check_section_end(struct cfg_ctx *ctx, struct cfg_proxy *px);
void lbd_cfg_check_finalize(struct cfg_ctx *ctx, struct cfg_proxy *px);
int lbd_cfg_check_uses_tls(const struct lbd_backend *be);
int lbd_cfg_check_has_port(const struct lbd_backend *be);
int lbd_cfg_check_http_mode(struct cfg_ctx *ctx, struct cfg_proxy *px, const struct cfg_args *a);
void lbd_cfg_check_http_mode_end(struct cfg_ctx *ctx, struct cfg_proxy *px);

/* cfg_http.c: built-in HTTP services (stats, monitor-uri, prometheus) */
int lbd_cfg_http_line(struct cfg_ctx *ctx, struct cfg_proxy *px, const struct cfg_args *a);
int lbd_cfg_http_section_end(struct cfg_ctx *ctx, struct cfg_proxy *px);
int lbd_cfg_http_is_service(const struct cfg_proxy *px);
void lbd_cfg_http_inherit(struct cfg_ctx *ctx, struct cfg_proxy *px, const struct cfg_proxy *d);
void lbd_cfg_http_proxy_free(struct cfg_proxy *px);
/* The section's named ACLs (NULL: no memory), and handing them over */
const struct acl_list *lbd_cfg_http_acls(struct cfg_ctx *ctx, struct cfg_proxy *px);
void lbd_cfg_http_take_acls(struct cfg_ctx *ctx, struct cfg_proxy *px, struct acl_list *to);
void lbd_cfg_http_userlist_start(struct cfg_ctx *ctx, const struct cfg_args *a);
void lbd_cfg_http_userlist_line(struct cfg_ctx *ctx, const struct cfg_args *a);
void lbd_cfg_http_build(struct cfg_ctx *ctx, struct lbd_config *c);
void lbd_cfg_http_ctx_free(struct cfg_ctx *ctx);
void lbd_cfg_http_config_free(struct lbd_config *c);

#endif
