/* cpha lab: what the prober's events say about a scenario's window, and
 * the model the report is made from. Pure: no I/O (jansson values are
 * borrowed from the caller's documents). */
#ifndef CPHA_LAB_STATS_H
#define CPHA_LAB_STATS_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "lab_cause.h"

/* Kinds of prober event lines ("k"). */
enum lab_ev_kind {
	LAB_EV_START, /* "start": carries the number of watches */
	LAB_EV_REQ,   /* "readyz", "lease_get", "lease_put" */
	LAB_EV_LOST,  /* "lost_write" */
	LAB_EV_BREAK, /* "watch_break" */
	LAB_EV_OPEN,  /* "watch_open" */
	LAB_EV_STOP,  /* "stop" */
	LAB_EV_OTHER, /* a kind this reader does not know: kept, not counted */
};

/* One line of the prober's JSON Lines output. */
struct lab_event {
	double t; /* unix seconds */
	enum lab_ev_kind kind;
	bool ok;     /* LAB_EV_REQ: a 2xx answer (or the expected 404) */
	int n;       /* LAB_EV_REQ: how many requests the line stands for */
	int w;       /* LAB_EV_BREAK / LAB_EV_OPEN: the watch's index */
	int watches; /* LAB_EV_START: watches the prober holds */
	/* LAB_EV_REQ: how it went; what a line leaves out stays unknown */
	double ms;                  /* its duration; 0 when not given */
	int code;                   /* HTTP status; 0: none */
	int curl;                   /* CURLcode of a failed transfer; -1: not given */
	int os_errno;               /* the OS errno curl saw; 0: none or not given */
	signed char connected, tls; /* 1, 0, or -1 not given */
	bool not_sent;              /* never sent: an earlier step of its tick failed */
	enum lab_cause cause;       /* not ok: its cause (lab_cause.h), decided from
				     * the fields above and its "err" text */
};

/* A run's events, in file order. */
struct lab_events {
	struct lab_event *v;
	size_t n, cap;
};

/* Parse one line. Lines of kinds this reader does not know are kept as
 * LAB_EV_OTHER; the optional fields of a request line, when present, must
 * have their type. Returns 0, or -EINVAL with why (a short reason). */
int lab_event_parse(const char *line, struct lab_event *ev, char *why, size_t whylen);

/* Append ev. Returns 0 or -ENOMEM. */
int lab_events_add(struct lab_events *e, const struct lab_event *ev);
void lab_events_free(struct lab_events *e);

/* What happened in [start, end]. */
struct lab_window {
	long requests, failed;
	double max_gap_ms;          /* longest time without a successful request,
				     * the window's edges included */
	int watches;                /* from the run's start line; 0 without one */
	long watches_broken;        /* watch_break lines in the window */
	double watches_restored_ms; /* the longest episode: from a first break
				     * while every watch was open to the moment
				     * every watch was open again; < 0: none
				     * broke (or none came back: never_restored) */
	int never_restored;         /* watches still broken at end */
	double restored_stat_ms;    /* watches_restored_ms for statistics: 0
				     * when none broke; when some never came
				     * back, at least the time from the first
				     * break of that episode to the end (a
				     * lower bound) */
	double availability;        /* % of requests ok; < 0: no requests */
	long lost_writes;
	long causes[LAB_NCAUSES]; /* failed requests by cause */
	long phases[LAB_NPHASES]; /* failed requests by phase */
};

/* Compute the window's statistics from a run's events, the failed requests'
 * phases from spans[0..nspans-1] (none: every one is in "other"). */
void lab_window_stats_phases(const struct lab_events *e, double start, double end,
	const struct lab_phase_span *spans, size_t nspans, struct lab_window *w);

/* lab_window_stats_phases() without phases. */
void lab_window_stats(const struct lab_events *e, double start, double end, struct lab_window *w);

/* The time of the run's first event (0 when there is none). */
double lab_events_t0(const struct lab_events *e);

/* One attempt at a scenario. Zero for the flags is the common case: a
 * valid attempt that started. */
struct lab_scenario {
	const char *name;
	double start, end;
	int repeat;                    /* the repeat round, >= 1; 0: not given */
	bool invalid;                  /* the lab judged the attempt unfit */
	bool not_started;              /* the lab did not settle: never ran */
	const char *invalid_reason;    /* borrowed; may be NULL */
	double t0;                     /* when the fault was applied */
	bool has_t0;                   /* t0 was given */
	struct lab_phase_span *phases; /* owned by the model */
	size_t nphases;
	json_t *invariants;              /* borrowed; object or NULL */
	json_t *timings, *marks, *notes; /* borrowed; may be NULL */
	struct lab_window st;
	struct lab_window st6; /* the IPv6 prober's window, when has_v6 */
	bool has_v6;           /* the run is dual stack: st6 is computed */
};

/* A stack's run: every attempt at every scenario, in time order (the same
 * name once per attempt). */
struct lab_run {
	const char *stack;
	const char *events_path;
	const char *events6_path; /* a dual-stack run's IPv6 prober; NULL: none */
	struct lab_events ev;
	struct lab_events ev6; /* read from events6_path */
	struct lab_scenario *scen;
	size_t nscen;
};

struct lab_model {
	json_t *lab; /* borrowed: the "lab" object, or NULL */
	struct lab_run *runs;
	size_t nruns;
};

/* The invariant NAME of a scenario as the report states it: 1 true, 0 false,
 * -1 not known. no_lost_write is the probers' verdict when one of them (the
 * IPv6 one too) saw a lost write (false whatever the orchestrator said),
 * and true when the orchestrator said nothing and none saw one; not known
 * for a scenario that judges lost_only_after_snapshot (a restore from a
 * snapshot loses the writes after it by design). */
int lab_invariant(const struct lab_scenario *s, const char *name);

/* The window's statistics of attempt s from the run's events e, its phases
 * included. */
void lab_scenario_stats(const struct lab_events *e, struct lab_scenario *s);

/* The IPv6 prober's window of attempt s (st6, without phases: the phases
 * are the IPv4 prober's) from its events e6; has_v6 set. */
void lab_scenario_stats6(const struct lab_events *e6, struct lab_scenario *s);

/* Find a run by stack name; the peer is the first run of another stack
 * than cpha. NULL when absent. */
const struct lab_run *lab_find_run(const struct lab_model *m, const char *stack);
const struct lab_run *lab_peer_run(const struct lab_model *m);

#endif
