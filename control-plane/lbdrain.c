/* cpha drain LBHOST / undrain LBHOST: the decisions (lbdrain.h). */
#include <stdio.h>
#include <string.h>

#include "lbdrain.h"

static bool is_backup(const struct lbdrain_peer *p)
{
	return p->answered && !p->drained && p->hold_ms <= 0 && strcmp(p->vrrp, "BACKUP") == 0;
}

/* "lb2: FAULT, drained; lb3: no answer" */
static void peers_text(const struct lbdrain_in *in, char *out, size_t len)
{
	size_t used = 0;

	out[0] = '\0';
	for (size_t i = 0; i < in->npeers && used < len; i++) {
		const struct lbdrain_peer *p = &in->peers[i];
		int n = snprintf(out + used, len - used, "%s%s: %s%s", i ? "; " : "", p->name,
			p->answered ? p->vrrp : "no answer",
			p->answered && p->drained ? ", drained" : "");

		if (n > 0 && p->answered && p->hold_ms > 0 && (size_t)n < len - used)
			n += snprintf(out + used + n, len - used - (size_t)n,
				", starting: no master for %.1f s more", (double)p->hold_ms / 1000);

		if (n < 0)
			break;
		used += (size_t)n;
	}
	if (!in->npeers)
		snprintf(out, len, "there is none");
}

enum lbdrain_verdict lbdrain_decide(const struct lbdrain_in *in, char *why, size_t whylen)
{
	char peers[512];
	const struct lbdrain_peer *to = NULL;

	if (in->drain && in->drained) {
		snprintf(why, whylen, "%s is drained already", in->host);
		return LBDRAIN_NOTHING;
	}
	if (!in->drain && !in->drained) {
		snprintf(why, whylen, "%s is not drained", in->host);
		return LBDRAIN_NOTHING;
	}
	if (!in->drain) {
		snprintf(why, whylen, "%s undrained: its VRRP instances leave FAULT", in->host);
		return LBDRAIN_WRITE;
	}
	if (!in->holds_vip) {
		snprintf(why, whylen, "%s drained: it holds no VIP, which stays where it is",
			in->host);
		return LBDRAIN_WRITE;
	}
	for (size_t i = 0; i < in->npeers && in->peers_known && !to; i++)
		if (is_backup(&in->peers[i]))
			to = &in->peers[i];
	if (to) {
		snprintf(why, whylen,
			"%s drained: it sent priority 0 and gave the VIP up; %s "
			"was a backup to take it",
			in->host, to->name);
		return LBDRAIN_WRITE;
	}
	if (in->force) {
		snprintf(why, whylen,
			"%s drained (--force): it gave the VIP up with no backup "
			"known to be up",
			in->host);
		return LBDRAIN_WRITE;
	}
	if (!in->peers_known) {
		snprintf(why, whylen,
			"%s holds the VIP, and whether another LB host is up as a backup cannot "
			"be read from here (%s): check that one is (its log, `cpha status` "
			"there), then use --force",
			in->host,
			in->unknown_why ? in->unknown_why : "keepalived answers no /status");
		return LBDRAIN_REFUSE;
	}
	peers_text(in, peers, sizeof(peers));
	snprintf(why, whylen,
		"%s holds the VIP and no other LB host is up as a backup to take it (%s): "
		"the API would have no VIP; --force drains it anyway",
		in->host, peers);
	return LBDRAIN_REFUSE;
}

bool lbdrain_settled(bool drain, bool holds_vip, const char *local_vrrp, long local_hold_ms,
	const struct lbdrain_peer *peers, size_t npeers, bool peers_known)
{
	if (!drain)
		return !local_vrrp || !*local_vrrp ||
		       (local_hold_ms <= 0 && (strcmp(local_vrrp, "BACKUP") == 0 ||
						      strcmp(local_vrrp, "MASTER") == 0));
	if (holds_vip)
		return false;
	if (!peers_known)
		return true;
	for (size_t i = 0; i < npeers; i++)
		if (peers[i].answered && strcmp(peers[i].vrrp, "MASTER") == 0)
			return true;
	return false;
}
