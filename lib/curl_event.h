/* libcurl's multi interface driven from sd-event: each transfer added here
 * runs on the caller's loop, and its done callback runs when it ends. */
#ifndef CPHA_CURL_EVENT_H
#define CPHA_CURL_EVENT_H

#include <curl/curl.h>
#include <systemd/sd-event.h>

struct cpha_curl_xfer;

/* A transfer ended (result CURLE_OK or the error). The handle has left the
 * multi handle; the callback may free it or add it again. */
typedef void (*cpha_curl_done_fn)(struct cpha_curl_xfer *x, CURLcode result);

/* Embed this in a transfer's state; CURLOPT_PRIVATE of x->h points to it. */
struct cpha_curl_xfer {
	CURL *h;
	cpha_curl_done_fn done;
};

struct cpha_curl_multi {
	sd_event *e;
	CURLM *multi;
	sd_event_source *timer;
};

/* Set up the multi handle on e. Returns 0 or a negative errno. */
int cpha_curl_multi_init(struct cpha_curl_multi *c, sd_event *e);

/* Start x (x->h and x->done set). Returns 0 or -EIO. */
int cpha_curl_multi_add(struct cpha_curl_multi *c, struct cpha_curl_xfer *x);

/* Stop x without calling its done callback. */
void cpha_curl_multi_remove(struct cpha_curl_multi *c, struct cpha_curl_xfer *x);

/* Release the multi handle (transfers must have been removed). */
void cpha_curl_multi_free(struct cpha_curl_multi *c);

#endif
