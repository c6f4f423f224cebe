/* libcurl's multi interface driven from sd-event: each transfer added here
 * runs on the caller's loop, and its done callback runs when it ends. */
#ifndef CPHA_LAB_CURL_H
#define CPHA_LAB_CURL_H

#include <curl/curl.h>
#include <systemd/sd-event.h>

struct lab_xfer;

/* A transfer ended (result CURLE_OK or the error). The handle has left the
 * multi handle; the callback may free it or add it again. */
typedef void (*lab_xfer_done_fn)(struct lab_xfer *x, CURLcode result);

/* Embed this in a transfer's state; CURLOPT_PRIVATE of x->h points to it. */
struct lab_xfer {
	CURL *h;
	lab_xfer_done_fn done;
};

struct lab_curl {
	sd_event *e;
	CURLM *multi;
	sd_event_source *timer;
};

/* Set up the multi handle on e. Returns 0 or a negative errno. */
int lab_curl_init(struct lab_curl *c, sd_event *e);

/* Start x (x->h and x->done set). Returns 0 or -EIO. */
int lab_curl_add(struct lab_curl *c, struct lab_xfer *x);

/* Stop x without calling its done callback. */
void lab_curl_remove(struct lab_curl *c, struct lab_xfer *x);

/* Release the multi handle (transfers must have been removed). */
void lab_curl_free(struct lab_curl *c);

#endif
