/* Run-time DNS for servers given by host name with 'resolvers NAME', as
 * HAProxy 2.6 does it: each such server is resolved again and again through
 * its section's name servers (c-ares on the main loop), and a changed answer
 * re-points the server without a reload (resolution.h has the rules). */
#ifndef LBD_RESOLVER_H
#define LBD_RESOLVER_H

#include "proxy-types.h"

/* Start or update resolutions after runtime_apply() (start and reload):
 * servers kept by a reload keep their resolved address and state; servers
 * without an address yet are put in maintenance. Returns 0, or a negative
 * errno with the error logged (resolutions that could start did). */
int resolver_apply(struct lbd_runtime *rt);

/* Stop every resolution and free it (at exit). */
void resolver_free(struct lbd_runtime *rt);

#endif
