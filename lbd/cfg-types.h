/* lbd's configuration as parsed from HAProxy's language (the TCP subset).
 * Types only; the parser is cfg.h, the runtime reads these structures. */
#ifndef LBD_CFG_TYPES_H
#define LBD_CFG_TYPES_H

#include <regex.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "addr.h"
#include "resolver-types.h"
#include "rules.h"

enum lbd_balance {
	LBD_BAL_ROUNDROBIN, /* weighted, dynamic (weights may change at run time) */
	LBD_BAL_STATIC_RR,  /* weighted, static */
	LBD_BAL_LEASTCONN,  /* fewest current connections, weighted */
	LBD_BAL_FIRST,      /* first server (by id order) with a free slot */
	LBD_BAL_SOURCE,     /* hash of the client address */
	LBD_BAL_RANDOM,     /* random, weighted */
};

enum lbd_check_kind {
	LBD_CHECK_CONNECT, /* plain TCP connect (no option tcp-check/httpchk) */
	LBD_CHECK_TCP,     /* option tcp-check: the tcp-check rules */
	LBD_CHECK_HTTP,    /* option httpchk: an HTTP(S) request through libcurl */
};

enum lbd_tcpcheck_action {
	LBD_TCPCHK_CONNECT,        /* tcp-check connect [port N] [ssl] */
	LBD_TCPCHK_SEND,           /* tcp-check send STRING */
	LBD_TCPCHK_EXPECT_STRING,  /* tcp-check expect [!] string STRING */
	LBD_TCPCHK_EXPECT_RSTRING, /* tcp-check expect [!] rstring REGEX */
};

/* The rules of a backend with check_kind LBD_CHECK_TCP always begin with a
 * connect: when the configuration does not start with one, the parser
 * inserts an implicit connect (port 0, no TLS) carrying the line of the
 * first written rule (or of option tcp-check when there is none), as HAProxy
 * does, so the runtime executes the list as it is. */
struct lbd_tcpcheck_rule {
	enum lbd_tcpcheck_action action;
	char *data;    /* send: bytes to send; expect string: pattern; rstring: the regex text */
	size_t len;    /* length of data */
	regex_t re;    /* expect rstring: compiled (REG_EXTENDED | REG_NOSUB) */
	int negate;    /* expect !: succeed when the pattern is absent */
	uint16_t port; /* connect: port, 0 = the server's check port */
	int ssl;       /* connect: TLS */
	unsigned line;
};

struct lbd_http_header {
	char *name;
	char *value;
};

/* option httpchk + http-check directives. */
struct lbd_httpcheck {
	char *method;  /* default "OPTIONS", as in HAProxy */
	char *uri;     /* default "/" */
	char *version; /* default "HTTP/1.0" */
	struct lbd_http_header *hdrs;
	size_t nhdrs;
	int connect_ssl;       /* http-check connect ssl (or check-ssl on the server) */
	uint16_t connect_port; /* http-check connect port N; 0 = check port */
	/* expectation; without one, any 2xx or 3xx status passes */
	int expect_set;
	int expect_negate;
	int expect_is_status; /* 1: status ranges below; 0: body contains expect_string */
	struct {
		unsigned lo, hi;
	} status[16];
	size_t nstatus;
	char *expect_string;
	unsigned line; /* of option httpchk */
};

enum lbd_verify {
	LBD_VERIFY_DEFAULT, /* not written: required (HAProxy's default) */
	LBD_VERIFY_NONE,
	LBD_VERIFY_REQUIRED,
};

/* Options a server line (or default-server) can set. Fields with a _set
 * flag distinguish "not written" from a written default, so default-server
 * values can be inherited. */
struct lbd_server_opts {
	int check;              /* run health checks */
	int check_ssl;          /* checks over TLS */
	enum lbd_verify verify; /* on a parsed server: never LBD_VERIFY_DEFAULT */
	char *ca_file;          /* CA bundle for verify required */
	char *crt;              /* client certificate (PEM with key) for checks */
	uint64_t inter;         /* usec between checks; default 2s */
	uint64_t fastinter;     /* usec while changing state; default inter */
	uint64_t downinter;     /* usec while down; default inter */
	unsigned rise;          /* default 2 */
	unsigned fall;          /* default 3 */
	uint64_t slowstart;     /* usec of warm-up after coming up; 0 = none */
	unsigned maxconn;       /* 0 = unlimited */
	unsigned maxqueue;      /* 0 = unlimited */
	unsigned weight;        /* 0..256, default 1 */
	int backup;
	int disabled;                /* starts in maintenance */
	int on_down_shutdown;        /* on-marked-down shutdown-sessions */
	int on_up_shutdown_backup;   /* on-marked-up shutdown-backup-sessions */
	int send_proxy;              /* PROXY protocol v1 header to the server */
	int send_proxy_v2;           /* PROXY protocol v2 header to the server */
	uint16_t check_port;         /* port: health checks go here; 0 = the server's port */
	struct cpha_addr check_addr; /* addr: health checks go here */
	int check_addr_set;
	uint64_t shutdown_spread; /* shutdown-sessions-spread: cut sessions over this window */
	/* how a server given by host name gets its address (cfg_resolve.c) */
	char resolvers[64];       /* resolvers NAME: "" for none */
	uint8_t init_addr[4];     /* init-addr methods in order (LBD_INIT_*) */
	uint8_t ninit_addr;       /* 0: HAProxy's default, last,libc */
	struct cpha_addr init_ip; /* init-addr with an address */
	int resolve_family;       /* resolve-prefer: AF_INET6 (default) or AF_INET */
	int resolve_allow_dup;    /* resolve-opts allow-dup-ip */
	/* passive health (HAProxy's observe, error-limit, on-error) */
	int observe;          /* observe layer4: client connections count as checks */
	unsigned error_limit; /* consecutive layer-4 errors before on-error; default 10 */
	int on_error;         /* LBD_ONERR_* of health.h; default fail-check */
	uint64_t hedge;       /* lbd's hedge: usec without a SYN-ACK before a second
			       * connect elsewhere; 0 = off; the backend's when unset */
	/* which fields were written (for default-server inheritance) */
	uint64_t set;
};

/* Bits of lbd_server_opts.set. */
#define LBD_SO_CHECK         (1ull << 0)
#define LBD_SO_CHECK_SSL     (1ull << 1)
#define LBD_SO_VERIFY        (1ull << 2)
#define LBD_SO_CA_FILE       (1ull << 3)
#define LBD_SO_CRT           (1ull << 4)
#define LBD_SO_INTER         (1ull << 5)
#define LBD_SO_FASTINTER     (1ull << 6)
#define LBD_SO_DOWNINTER     (1ull << 7)
#define LBD_SO_RISE          (1ull << 8)
#define LBD_SO_FALL          (1ull << 9)
#define LBD_SO_SLOWSTART     (1ull << 10)
#define LBD_SO_MAXCONN       (1ull << 11)
#define LBD_SO_MAXQUEUE      (1ull << 12)
#define LBD_SO_WEIGHT        (1ull << 13)
#define LBD_SO_BACKUP        (1ull << 14)
#define LBD_SO_DISABLED      (1ull << 15)
#define LBD_SO_ON_DOWN       (1ull << 16)
#define LBD_SO_ON_UP         (1ull << 17)
#define LBD_SO_SEND_PROXY    (1ull << 18)
#define LBD_SO_SEND_PROXY_V2 (1ull << 19)
#define LBD_SO_PORT          (1ull << 20)
#define LBD_SO_ADDR          (1ull << 21)
#define LBD_SO_SPREAD        (1ull << 22)
#define LBD_SO_RESOLVERS     (1ull << 23)
#define LBD_SO_INIT_ADDR     (1ull << 24)
#define LBD_SO_PREFER        (1ull << 25)
#define LBD_SO_RESOLVE_OPTS  (1ull << 26)
#define LBD_SO_OBSERVE       (1ull << 27)
#define LBD_SO_ERROR_LIMIT   (1ull << 28)
#define LBD_SO_ON_ERROR      (1ull << 29)
#define LBD_SO_HEDGE         (1ull << 30)

/* init-addr methods (HAProxy's SRV_IADDR_*). */
#define LBD_INIT_LAST 1 /* the address saved in the server-state file */
#define LBD_INIT_LIBC 2 /* getaddrinfo() at start */
#define LBD_INIT_NONE 3 /* start without an address, in maintenance */
#define LBD_INIT_IP   4 /* init_ip */

struct lbd_server_cfg {
	char *name;
	char *hostname;           /* the host name the address came from, or NULL */
	int unresolved;           /* init-addr none: addr is 0.0.0.0 with the port only */
	struct cpha_addr addr;    /* port 0 when the line gave none */
	struct lbd_server_opts o; /* after default-server inheritance */
	unsigned id;              /* 1-based position in the backend */
	unsigned line;
};

/* Timeouts in usec; 0 = not set (the runtime applies its own rules). */
struct lbd_timeouts {
	uint64_t connect, client, server, tunnel, client_fin, server_fin, queue, check;
};

enum lbd_log_format {
	LBD_LOG_FMT_RFC3164, /* default: "<PRI>Mmm dd hh:mm:ss host tag[pid]: line" */
	LBD_LOG_FMT_RFC5424,
	LBD_LOG_FMT_SHORT, /* "<PRI>line" */
	LBD_LOG_FMT_RAW,   /* the bare line */
};

enum lbd_log_kind {
	LBD_LOG_STDOUT,
	LBD_LOG_STDERR,
	LBD_LOG_SYSLOG, /* to an address or a UNIX socket path ("/dev/log") */
};

struct lbd_log_target {
	enum lbd_log_kind kind;
	struct cpha_addr addr; /* syslog over UDP */
	char *path;            /* syslog over a UNIX socket */
	int format_raw;        /* format raw: the bare line */
	int facility;          /* LOG_LOCAL0 ... */
	int max_level;         /* lines above it are not sent; default LOG_DEBUG */
	unsigned line;
	enum lbd_log_format format; /* format_raw is format == LBD_LOG_FMT_RAW */
	int min_level;   /* more severe lines are sent at this level; default LOG_EMERG */
	unsigned maxlen; /* len N: longer lines are cut; default 1024 */
};

struct lbd_bind {
	struct cpha_addr addr;
	unsigned line;
	int v6only; /* IPv6 listener: -1 the system's default, 0 v4v6, 1 v6only */
};

/* stick-table and stick rules of a backend (HAProxy's, for "src"). */
struct lbd_stick_cfg {
	int family;         /* table type: AF_INET (ip), AF_INET6 (ipv6); 0: no table */
	unsigned size;      /* entries */
	uint64_t expire;    /* usec; 0: entries never expire */
	int nopurge;        /* a full table takes no new entry */
	int match;          /* stick match src / stick on src */
	int store;          /* stick store-request src / stick on src */
	unsigned line;      /* of stick-table */
	unsigned rule_line; /* of the first stick rule */
};

/* Server-state file of a backend (HAProxy's load-server-state-from-file
 * and server-state-file-name; server_state.c). */
enum lbd_state_load {
	LBD_STATE_NONE,   /* HAProxy's default: no file */
	LBD_STATE_GLOBAL, /* the global server-state-file */
	LBD_STATE_LOCAL,  /* the backend's own file, under server-state-base */
};

#define LBD_STATE_NAME_MAX 256  /* server-state-file-name, with its NUL */
#define LBD_STATE_PATH_MAX 1024 /* server-state-file and -base, with their NUL */

struct lbd_state_cfg {
	enum lbd_state_load load;
	char name[LBD_STATE_NAME_MAX]; /* local file: "" for the backend's name */
	unsigned line;                 /* of load-server-state-from-file; 0: not written */
};

struct lbd_backend {
	char *name;
	unsigned line;
	enum lbd_balance balance;
	struct lbd_timeouts timeouts;
	unsigned retries; /* default 3 */
	int redispatch;   /* option redispatch */
	int persist;      /* option persist: a stuck client goes to its server even when down */
	enum lbd_check_kind check_kind;
	struct lbd_tcpcheck_rule *tcpcheck;
	size_t ntcpcheck;
	struct lbd_httpcheck http;
	struct lbd_server_cfg *servers;
	size_t nservers;
	int from_listen;       /* declared by a listen section */
	int log_health_checks; /* option log-health-checks: a line per check result change */
	int smart_connect;     /* option tcp-smart-connect: no quick ACK of the SYN-ACK */
	uint64_t hedge;        /* lbd's hedge <time> (usec; 0 = off): servers inherit it */
	unsigned hedge_line;   /* where it was written; 0: not written */
	struct lbd_stick_cfg stick;
	struct lbd_state_cfg state; /* load-server-state-from-file, server-state-file-name */
	/* a backend's tcp-request content rules and inspect-delay, run once a
	 * frontend chose it (a listen's are its frontend's); NULL: none */
	struct lbd_fe_rules *rules;
};

struct lbd_frontend {
	char *name;
	unsigned line;
	struct lbd_bind *binds;
	size_t nbinds;
	unsigned maxconn;            /* 0 = the global maxconn */
	struct lbd_backend *backend; /* default_backend (or the listen itself); NULL: none */
	struct lbd_fe_rules *rules;  /* tcp-request rules, use_backend ... if; NULL: none */
	char *backend_name;
	unsigned backend_line;
	struct lbd_timeouts timeouts;
	int tcplog;
	int dontlognull;
	int dontlog_normal; /* option dontlog-normal: log only failed sessions */
	int smart_accept;   /* option tcp-smart-accept: TCP_DEFER_ACCEPT on the binds */
	char *log_format;   /* log-format string (replaces tcplog's line), or NULL */
	unsigned log_format_line;
	struct lbd_log_target *logs;
	size_t nlogs;
	int from_listen;
};

/* What a stats socket client may do (HAProxy's ACCESS_LVL_*); each level
 * allows what the ones below it allow. */
enum lbd_stats_level {
	LBD_STATS_LEVEL_USER = 1,     /* show and help only */
	LBD_STATS_LEVEL_OPERATOR = 2, /* as user: lbd has none of HAProxy's operator commands */
	LBD_STATS_LEVEL_ADMIN = 3,    /* also every change (set, enable, disable, shutdown) */
};

struct lbd_stats_socket {
	char *path;                 /* NULL: none */
	mode_t mode;                /* default 0600 */
	enum lbd_stats_level level; /* default admin */
	uid_t uid;                  /* owner; (uid_t)-1: lbd's own (default) */
	gid_t gid;                  /* group; (gid_t)-1: lbd's own (default) */
	unsigned line;
};

struct lbd_global {
	unsigned maxconn;      /* default 4096 */
	unsigned nbthread;     /* 0 = one per core */
	unsigned maxconn_line; /* where maxconn was set; 0: default, fitted to the fd limit */
	unsigned ulimit_n;     /* RLIMIT_NOFILE to set; 0: what maxconn needs (maxsock) */
	unsigned long maxsock; /* descriptors maxconn needs (fdlimit.c sets it) */
	unsigned ulimit_line;
	unsigned fd_hard_limit;   /* never more descriptors than this; 0: no bound */
	int no_strict_limits;     /* 'no strict-limits': a short fd limit warns, not refuses */
	uint64_t hard_stop_after; /* usec; 0 = wait for old sessions forever */
	int daemon;               /* go to the background (ignored under systemd) */
	struct lbd_stats_socket stats;
	struct lbd_log_target *logs;
	size_t nlogs;
	char *pidfile;            /* written at start, removed at exit; NULL: none */
	struct cpha_addr metrics; /* lbd extension: "metrics-bind ADDR:PORT" */
	int metrics_set;
	/* lbd extension "metrics-web-config FILE": basic auth and TLS of the
	 * metrics listener (webcfg.h), read with the configuration; NULL: none */
	struct cpha_webcfg *metrics_web;
	/* privilege drop after binding (privdrop.c), as HAProxy's user, uid,
	 * group, gid and chroot */
	uid_t uid;    /* (uid_t)-1: keep lbd's own */
	gid_t gid;    /* (gid_t)-1: keep lbd's own */
	char *chroot; /* NULL: none */
	unsigned uid_line, gid_line, chroot_line;
	unsigned spread_checks; /* percent 0..50: checks come within +/- this of inter */
	char *srv_ciphers;      /* ssl-default-server-ciphers (TLS <= 1.2): TLS checks */
	char *srv_ciphersuites; /* ssl-default-server-ciphersuites (TLS 1.3): TLS checks */
	unsigned srv_ciphers_line, srv_ciphersuites_line;
	/* ssl-default-server-options: the TLS versions checks may use, as
	 * 0x0300 (SSLv3) to 0x0304 (TLS 1.3); 0: OpenSSL's default */
	int srv_tls_min, srv_tls_max;
	int srv_no_tickets; /* no-tls-tickets */
	unsigned srv_options_line;
	/* server-state-file, server-state-base (server_state.c): "" when unset */
	char state_file[LBD_STATE_PATH_MAX];
	char state_base[LBD_STATE_PATH_MAX];
	unsigned state_file_line, state_base_line;
};

struct lbd_http_service; /* lbd/http-types.h: a frontend serving built-in HTTP services */
struct lbd_userlist;     /* lbd/http-types.h */

struct lbd_config {
	char *file;
	char digest[65]; /* SHA-256 of the file's bytes as loaded (hex); "" from memory */
	struct lbd_global global;
	struct lbd_frontend *frontends;
	size_t nfrontends;
	struct lbd_backend *backends;
	size_t nbackends;
	char **notices; /* accepted-but-ignored directives, said once at start */
	size_t nnotices;
	struct lbd_http_service **https; /* mode http frontends: stats, monitor-uri, prometheus */
	size_t nhttps;
	struct lbd_userlist **userlists;
	size_t nuserlists;
	struct lbd_resolvers_cfg *resolvers; /* resolvers sections (cfg_resolve.c) */
	size_t nresolvers;
};

#endif
