/* Prometheus text exposition format (version 0.0.4) and a minimal HTTP
 * listener that serves it on /metrics, with basic auth and TLS from an
 * exporter-toolkit web configuration (webcfg.h) when one is set. */
#ifndef CPHA_METRICS_H
#define CPHA_METRICS_H

#include <systemd/sd-event.h>

#include "addr.h"
#include "buf.h"

/* Write "# HELP" and "# TYPE" for a metric family. type is "counter",
 * "gauge", "histogram", "summary" or "untyped". Returns 0, -EINVAL for a
 * name Prometheus does not allow, or -ENOMEM. */
int cpha_prom_family(struct cpha_buf *b, const char *name, const char *type, const char *help);

/* Write one sample: the name, labels given as name, value pairs ending with
 * NULL, and the value. Label values are escaped. Returns 0, -EINVAL or
 * -ENOMEM. Example: cpha_prom_sample(b, "lbd_up", 1, "server", "m0", NULL). */
int cpha_prom_sample(struct cpha_buf *b, const char *name, double value, ...)
	__attribute__((sentinel));

/* Fill body with the current metrics (text format). */
typedef void (*cpha_metrics_fn)(void *userdata, struct cpha_buf *body);

/* Fill body with the daemon's read-only status: one JSON document, never a
 * secret. */
typedef void (*cpha_status_fn)(void *userdata, struct cpha_buf *body);

struct cpha_metrics;
struct cpha_webcfg;

#define CPHA_METRICS_REQ_MAX      8192        /* longest HTTP request head accepted */
#define CPHA_METRICS_REQUEST_USEC 2000000ULL  /* connect to a complete request, or dropped */
#define CPHA_METRICS_REPLY_USEC   10000000ULL /* to read the whole reply */
#define CPHA_METRICS_MAX_CONNS    256         /* clients at once */
#define CPHA_METRICS_MAX_PER_IP   16          /* of them from one address */

/* Serve GET /metrics (and /status once set) over HTTP/1.x on a TCP address (port required).
 * Clients are served within the limits above: one that sends no complete
 * request in time is dropped, and when an address's share or every slot is
 * taken the oldest client still sending its request makes room for the
 * new one. Returns 0 or a negative errno (-EADDRINUSE ...). */
int cpha_metrics_listen(sd_event *e, const struct cpha_addr *addr, cpha_metrics_fn fn,
	void *userdata, struct cpha_metrics **out);

/* Also serve GET /status (application/json) on m's listener, filled by fn;
 * fn NULL: /status is not found again. */
void cpha_metrics_set_status(struct cpha_metrics *m, cpha_status_fn fn, void *userdata);

/* Serve with the web configuration w from now on (webcfg.h: basic auth,
 * TLS for the clients that connect next; referenced; NULL: neither).
 * Returns 0, -EINVAL when w names a certificate cpha_webcfg_tls() has not
 * loaded, or -ENOMEM (then nothing changed). */
int cpha_metrics_set_web(struct cpha_metrics *m, struct cpha_webcfg *w);

/* The address actually bound (port filled in when 0 was asked for). */
const struct cpha_addr *cpha_metrics_addr(const struct cpha_metrics *m);

/* Stop listening and drop clients. NULL allowed. */
void cpha_metrics_close(struct cpha_metrics *m);

#endif
