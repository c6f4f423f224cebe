/* HAProxy's server-state file, version 1 (management.txt, "show servers
 * state"): the text of "show servers state", reading it at start
 * (load-server-state-from-file global|local) and writing it, atomically,
 * when lbd stops and before it applies a reload (HAProxy never writes it). */
#ifndef LBD_SERVER_STATE_H
#define LBD_SERVER_STATE_H

#include <stdbool.h>
#include <stddef.h>

#include "buf.h"
#include "proxy-types.h"

#define SRVSTATE_VERSION    1
#define SRVSTATE_FIELDS_MIN 20  /* HAProxy's SRV_STATE_FILE_MIN_FIELDS_VERSION_1 */
#define SRVSTATE_FIELDS_MAX 25  /* ... _MAX_FIELDS_VERSION_1 */
#define SRVSTATE_LINE_MAX   512 /* HAProxy's SRV_STATE_LINE_MAXLEN: longer is corrupt */

/* srv_op_state (HAProxy's enum srv_state) */
#define SRVSTATE_OP_STOPPED  0 /* down */
#define SRVSTATE_OP_STARTING 1 /* up, warming up (slowstart) */
#define SRVSTATE_OP_RUNNING  2 /* up */
#define SRVSTATE_OP_STOPPING 3 /* up, soft-stopping */

/* srv_admin_state bits (HAProxy's SRV_ADMF_*) */
#define SRVSTATE_ADM_FMAINT 0x01 /* forced into maintenance (socket, or the file) */
#define SRVSTATE_ADM_IMAINT 0x02 /* maintenance inherited from a tracked server */
#define SRVSTATE_ADM_CMAINT 0x04 /* 'disabled' in the configuration */
#define SRVSTATE_ADM_FDRAIN 0x08 /* forced into drain */
#define SRVSTATE_ADM_IDRAIN 0x10 /* drain inherited from a tracked server */
#define SRVSTATE_ADM_RMAINT 0x20 /* maintenance: the address did not resolve */
#define SRVSTATE_ADM_HMAINT 0x40 /* FQDN set from the stats socket */

/* srv_check_result (HAProxy's enum chk_result) */
#define SRVSTATE_RES_UNKNOWN  0 /* no check finished yet */
#define SRVSTATE_RES_NEUTRAL  1
#define SRVSTATE_RES_FAILED   2
#define SRVSTATE_RES_PASSED   3
#define SRVSTATE_RES_CONDPASS 4

/* srv_check_state bits (HAProxy's CHK_ST_*) */
#define SRVSTATE_CHK_INPROGRESS 0x01 /* a check is running */
#define SRVSTATE_CHK_CONFIGURED 0x02 /* 'check' on the server line */
#define SRVSTATE_CHK_ENABLED    0x04 /* administratively enabled */
#define SRVSTATE_CHK_PAUSED     0x08 /* paused by maintenance */
#define SRVSTATE_CHK_AGENT      0x10 /* an agent check */

/* srv_check_status: HAProxy 2.6's HCHK_STATUS_* (INI until a check ends) */
#define SRVSTATE_HCHK_INI  1
#define SRVSTATE_HCHK_SIZE 21 /* first invalid value */

/* One data line of a file: fields point into the file's text. */
struct srvstate_line {
	char *f[SRVSTATE_FIELDS_MAX];
	unsigned n;      /* fields */
	unsigned lineno; /* 1-based, in the file */
	bool used;       /* matched a server (or dropped as a duplicate) */
};

struct srvstate_file {
	char *text; /* owned */
	struct srvstate_line *lines;
	size_t nlines;
};

/* Parse a file's text (taken over, even on failure) as HAProxy's
 * apply_server_state(): the version line, then data lines; blank lines and
 * lines starting with '#' are skipped. Returns 0, -1 when the file is empty,
 * -2 when the first line is no version lbd knows, -3 when line *bad is
 * corrupt (unterminated, too long, or not 20 to 25 fields; then nothing of
 * the file is to be applied), -ENOMEM. */
int srvstate_parse(char *text, size_t len, struct srvstate_file *f, unsigned *bad);
void srvstate_file_free(struct srvstate_file *f);

/* The first unused line for backend be and server srv, or NULL. */
struct srvstate_line *srvstate_find(struct srvstate_file *f, const char *be, const char *srv);

/* A line's version 1 values, checked as HAProxy's srv_state_srv_update(). */
struct srvstate_vals {
	int op, admin; /* admin without the bits HAProxy recomputes (I, R, H) */
	unsigned uweight, iweight;
	unsigned long since; /* seconds since the last state change */
	int check_status, check_result, health, check_state, agent_state;
	const char *addr; /* NULL: "-" */
	const char *fqdn; /* NULL: "-" */
	int port;         /* -1: absent */
};

/* 0, or -1 with err naming each invalid field (", invalid srv_op_state
 * value 'x'" as HAProxy words it). */
int srvstate_values(const struct srvstate_line *l, struct srvstate_vals *v, char *err, size_t len);

/* What lbd knows of the server the line is applied to. */
struct srvstate_target {
	unsigned rise, fall;
	bool checked;        /* 'check': the operational state applies */
	bool cfg_disabled;   /* 'disabled' on its line */
	unsigned cfg_weight; /* its weight in the configuration (HAProxy's iweight) */
};

/* What the server becomes. */
struct srvstate_decision {
	enum lbd_admin_state admin;
	bool set_up; /* checked: up and health below apply */
	bool up;
	unsigned health;
	bool set_weight; /* the configuration kept its weight: the file's applies */
	unsigned weight;
};

/* HAProxy's rules (srv_state_srv_update()): the operational state and the
 * check counter, the administrative state (a change of 'disabled' in the
 * configuration wins over the file), drain, and the weight set at run time
 * unless the configured weight changed. Pure. */
void srvstate_decide(const struct srvstate_vals *v, const struct srvstate_target *t,
	struct srvstate_decision *d);

/* The text HAProxy's check status code stands for (lbd's check reasons
 * begin with it), and back; unknown: NULL / SRVSTATE_HCHK_INI. */
const char *srvstate_status_text(int status);
int srvstate_status_code(const char *reason);

/* HAProxy's check result for a status code. */
int srvstate_status_result(int status);

/* "show servers state [BACKEND]": HAProxy 2.6's text, ending with an empty
 * line (the caller has checked that BACKEND exists). */
void server_state_show(struct lbd_runtime *rt, const char *only, struct cpha_buf *reply);

/* At start, after runtime_apply(): apply the global file and the local
 * files to the backends that load them. Every problem is a log line; lbd
 * starts as if a bad file were absent. */
void server_state_load(struct lbd_runtime *rt);

/* Ready the directories of the files to write (the global file, each
 * local one): called before privileges are dropped and after each reload,
 * so the files can be written inside a chroot and the temporary files are
 * made for the user lbd runs as. */
void server_state_prepare(struct lbd_runtime *rt);

/* Write every file rt->cfg names, atomically (temporary file, fsync,
 * rename; mode 0600). why goes into the log line. Returns 0 or -1 (logged). */
int server_state_save(struct lbd_runtime *rt, const char *why);

/* Close the directories server_state_prepare() opened. */
void server_state_close(void);

#endif
