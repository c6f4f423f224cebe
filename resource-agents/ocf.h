/* The shared core of cpha's Pacemaker OCF resource agents (provider "cpha"):
 * one table of parameters and actions per agent drives the environment
 * (OCF_RESKEY_*), the meta-data XML (OCF 1.0, ra-api-1.dtd) and the action
 * dispatch; exit codes are Pacemaker's enum ocf_exitcode; every action gets
 * a time budget from OCF_RESKEY_CRM_meta_timeout; clone and notify meta
 * variables are parsed for the agents that need them.
 *
 * Exit codes (OCF RA API 1.0 §5; Pacemaker Explained, "OCF Return Codes"):
 * a problem in the resource's parameters (the CIB, the same on every node)
 * is PCMK_OCF_NOT_CONFIGURED (fatal: stopped everywhere); a problem in a
 * file on this node is PCMK_OCF_INVALID_PARAM or PCMK_OCF_NOT_INSTALLED
 * (hard: banned from this node only); a transient failure is
 * PCMK_OCF_UNKNOWN_ERROR (soft: restart). */
#ifndef CPHA_OCF_H
#define CPHA_OCF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <crm/common/results.h>

#include "buf.h"

/* The values are fixed by the OCF standard; Pacemaker's header is the
 * source, these checks make a change impossible to miss. */
_Static_assert(PCMK_OCF_OK == 0 && PCMK_OCF_UNKNOWN_ERROR == 1 && PCMK_OCF_INVALID_PARAM == 2 &&
		       PCMK_OCF_UNIMPLEMENT_FEATURE == 3 && PCMK_OCF_INSUFFICIENT_PRIV == 4 &&
		       PCMK_OCF_NOT_INSTALLED == 5 && PCMK_OCF_NOT_CONFIGURED == 6 &&
		       PCMK_OCF_NOT_RUNNING == 7 && PCMK_OCF_DEGRADED == 190,
	"OCF exit codes (OCF RA API 1.0 section 5, Pacemaker extensions 190/191)");

/* OCF 1.0 content types (ra-api-1.dtd allows exactly these four). */
enum ocf_type {
	OCF_STRING,
	OCF_INTEGER,
	OCF_BOOLEAN,
	OCF_TIME,
};

/* Parameter flags. */
#define OCF_P_REQUIRED (1u << 0) /* required="1": must be set, has no default */
#define OCF_P_UNIQUE   (1u << 1) /* unique="1": distinct per resource; a change restarts */

struct ocf_param {
	const char *name;      /* OCF_RESKEY_<name> */
	enum ocf_type type;    /* content type in the meta-data */
	const char *def;       /* default (also in the meta-data), or NULL */
	unsigned flags;        /* OCF_P_* */
	const char *shortdesc; /* one line */
	const char *longdesc;  /* what it does, what the default means */
};

struct ocf_ctx;

/* An action: returns an enum ocf_exitcode value. */
typedef int (*ocf_action_fn)(struct ocf_ctx *c);

struct ocf_action {
	const char *name;    /* start, stop, monitor, validate-all, reload, notify */
	unsigned timeout_s;  /* advertised default timeout, and the budget when
			      * OCF_RESKEY_CRM_meta_timeout is not set */
	unsigned interval_s; /* advertised interval (monitor), 0: none */
	ocf_action_fn fn;
};

struct ocf_agent {
	const char *name;    /* the type: ocf:cpha:<name> */
	const char *version; /* the agent's version */
	const char *shortdesc;
	const char *longdesc;
	const struct ocf_param *params;   /* ends with { .name = NULL } */
	const struct ocf_action *actions; /* ends with { .name = NULL }; meta-data is implicit */
	const void *data;                 /* the agent's own constants (c->agent->data) */
};

/* A list of strings (NULL-terminated, v[n] == NULL). */
struct ocf_strv {
	char **v;
	size_t n;
};

/* Clone meta attributes (OCF_RESKEY_CRM_meta_clone*, notify). */
struct ocf_clone {
	bool is_clone;        /* clone_max is set */
	unsigned instance;    /* CRM_meta_clone */
	unsigned max;         /* CRM_meta_clone_max */
	unsigned node_max;    /* CRM_meta_clone_node_max (1 when unset) */
	bool globally_unique; /* CRM_meta_globally_unique */
	bool notify;          /* CRM_meta_notify: notify actions are sent */
};

enum ocf_notify_type {
	OCF_NOTIFY_NONE, /* not a notify action */
	OCF_NOTIFY_PRE,
	OCF_NOTIFY_POST,
};

enum ocf_notify_op {
	OCF_NOP_NONE,
	OCF_NOP_START,
	OCF_NOP_STOP,
	OCF_NOP_PROMOTE,
	OCF_NOP_DEMOTE,
};

/* The node and instance lists of a notification:
 * OCF_RESKEY_CRM_meta_notify_<set>_uname and ..._resource. */
enum ocf_notify_set {
	OCF_NS_ACTIVE,
	OCF_NS_INACTIVE,
	OCF_NS_AVAILABLE,
	OCF_NS_ALL,
	OCF_NS_START,
	OCF_NS_STOP,
	OCF_NS_PROMOTE,
	OCF_NS_DEMOTE,
	OCF_NS_PROMOTED,   /* also read from the older "master" names */
	OCF_NS_UNPROMOTED, /* also read from "slave" */
	OCF_NS_MAX,
};

struct ocf_notify {
	enum ocf_notify_type type;
	enum ocf_notify_op op;
	struct ocf_strv uname[OCF_NS_MAX];
	struct ocf_strv resource[OCF_NS_MAX];
};

/* One invocation of an agent. */
struct ocf_ctx {
	const struct ocf_agent *agent;
	const struct ocf_action *action; /* NULL: the action is not implemented */
	const char *action_name;
	char *const *envp;      /* the environment the values come from */
	const char *instance;   /* OCF_RESOURCE_INSTANCE, or the agent name */
	char *state_name;       /* <agent>-<instance> for file names (see ocf_state_name()) */
	char *node;             /* CRM_meta_on_node, or this host's name */
	uint64_t timeout_ms;    /* CRM_meta_timeout, or the advertised default */
	uint64_t interval_ms;   /* CRM_meta_interval */
	bool probe;             /* a monitor with interval 0 (Pacemaker's probe) */
	uint64_t start_usec;    /* CLOCK_MONOTONIC when the action began */
	uint64_t deadline_usec; /* end of the budget (before Pacemaker's timeout) */
	struct ocf_clone clone;
	struct ocf_notify notify;
	const char **values; /* per parameter: the set value, the default or NULL */
	void *priv;          /* the agent's own state */
};

/* Set c up for one action of agent a from envp, at monotonic time now_usec.
 * An unknown action leaves c->action NULL. Bad meta values (a timeout that is
 * not a number) are ignored with a warning. Returns 0 or -ENOMEM. */
int ocf_ctx_init(struct ocf_ctx *c, const struct ocf_agent *a, const char *action,
	char *const *envp, uint64_t now_usec);

/* Free what ocf_ctx_init() allocated (not c->priv). */
void ocf_ctx_free(struct ocf_ctx *c);

/* Run an agent: argv[1] is the action. Prints meta-data for "meta-data",
 * usage for "usage" / "help" / no action. Returns the exit status. */
int ocf_main(const struct ocf_agent *a, int argc, char **argv, char **envp);

/* A variable of the invocation's environment, or NULL. */
const char *ocf_env(const struct ocf_ctx *c, const char *name);

/* A parameter's value: OCF_RESKEY_<name> when set and not empty, else its
 * default, else NULL. Asking for an undeclared name is a bug (aborts). */
const char *ocf_get(const struct ocf_ctx *c, const char *name);

/* True when OCF_RESKEY_<name> is set and not empty. */
bool ocf_is_set(const struct ocf_ctx *c, const char *name);

/* Typed parameter values; -EINVAL (with an exit reason printed, naming the
 * parameter) when the value does not parse, -ENOENT when unset. */
int ocf_get_bool(const struct ocf_ctx *c, const char *name, bool *out);
int ocf_get_uint(const struct ocf_ctx *c, const char *name, unsigned long max, unsigned long *out);

/* Pacemaker's booleans: true/yes/on/y/1 and false/no/off/n/0, any case.
 * Returns 0 or -EINVAL. */
int ocf_parse_bool(const char *s, bool *out);

/* Time budget. The usable part of an action's timeout: Pacemaker kills the
 * agent at timeout_ms, so keep a margin of 10% (at least 500 ms, at most
 * 5 s, never more than half). Pure. */
uint64_t ocf_budget_usec(uint64_t timeout_ms);

/* Of a stop's left usec, what is kept for SIGKILL and its wait: a tenth
 * (1 to 5 s, never more than half). SIGTERM gets the rest. Pure. */
uint64_t ocf_kill_reserve_usec(uint64_t left);

/* Microseconds left of c's budget (0 when spent), and the monotonic clock. */
uint64_t ocf_left(const struct ocf_ctx *c);
uint64_t ocf_now(void);

/* Sleep usec, but not past the budget. Returns false when the budget is spent. */
bool ocf_sleep(const struct ocf_ctx *c, uint64_t usec);

/* Print "ocf-exit-reason:<text>" on stderr (Pacemaker shows the last one
 * in crm_mon and pcs status) and log the text as an error. */
void ocf_exit_reason(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* ocf_exit_reason() and return rc: `return ocf_fail(PCMK_OCF_..., "...")`. */
int ocf_fail(int rc, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A monitor's "running, but more likely to fail": the reason (shown by
 * crm_mon with the 190 result) is printed and logged as a warning, and
 * PCMK_OCF_DEGRADED (190) returned. Pacemaker >= 2.1 counts it as running
 * and recovers nothing. */
int ocf_degraded(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Name of an exit code ("OCF_NOT_RUNNING"). */
const char *ocf_rc_name(int rc);

/* The base of this instance's state files: "<agent>-<instance>" with the
 * ":N" of an anonymous clone dropped (an anonymous clone has one instance
 * per node, and its number can change) and any '/' or ':' left replaced
 * by '-'. Returns a malloc'd string or NULL. Pure. */
char *ocf_state_name(const char *agent, const char *instance, bool globally_unique);

/* Clone and notify variables from envp (pure; used by ocf_ctx_init()). */
void ocf_clone_parse(char *const *envp, struct ocf_clone *out);
int ocf_notify_parse(char *const *envp, struct ocf_notify *out);
void ocf_notify_free(struct ocf_notify *n);
const char *ocf_notify_type_name(enum ocf_notify_type t);
const char *ocf_notify_op_name(enum ocf_notify_op op);

/* A variable from an environment array (NULL when absent). */
const char *ocf_envp_get(char *const *envp, const char *name);

/* Split s at spaces and tabs into out (empty words dropped).
 * Returns 0 or -ENOMEM. */
int ocf_strv_split_ws(const char *s, struct ocf_strv *out);
int ocf_strv_push(struct ocf_strv *v, const char *s);
bool ocf_strv_contains(const struct ocf_strv *v, const char *s);
bool ocf_strv_equal(const struct ocf_strv *a, const struct ocf_strv *b);
void ocf_strv_free(struct ocf_strv *v);

/* The meta-data XML of agent a (OCF 1.0: valid against ra-api-1.dtd and
 * pcs's ocf-1.0.rng). Returns 0 or -ENOMEM. */
int ocf_meta_render(const struct ocf_agent *a, struct cpha_buf *out);

/* The parameter named name, or NULL. */
const struct ocf_param *ocf_param_find(const struct ocf_agent *a, const char *name);

/* Initializers for the parameters every daemon agent has. */
#define OCF_PARAM_PIDDIR                                                                           \
	{                                                                                          \
		.name = "piddir", .type = OCF_STRING, .def = "/run/cpha",                          \
		.shortdesc = "Directory of the pid and state files",                               \
		.longdesc = "The agent keeps <piddir>/<agent>-<resource>.pid (the daemon's "       \
			    "process id) and .argv (the command line it was started with) "        \
			    "here. Created (0755) when missing."                                   \
	}
#define OCF_PARAM_LOGFILE(dflt)                                                                    \
	{                                                                                          \
		.name = "logfile", .type = OCF_STRING, .def = dflt,                                \
		.shortdesc = "File receiving the daemon's standard output and error",              \
		.longdesc = "Appended to; its directory is created (0750) when missing. The "      \
			    "last line is quoted in the exit reason when the daemon dies "         \
			    "during start."                                                        \
	}

#endif
