/* The etcd cluster ID record: the rules are stated in etcd_record.h. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "etcd_record.h"

const char *etcd_record_state_name(enum etcd_record_state s)
{
	static const char *const names[] = {
		[ETCD_REC_NONE] = "none",
		[ETCD_REC_SET] = "set",
		[ETCD_REC_UNREADABLE] = "unreadable",
		[ETCD_REC_OFF] = "off",
	};

	return (unsigned)s < sizeof(names) / sizeof(names[0]) ? names[s] : "?";
}

const char *etcd_id_verdict_name(enum etcd_id_verdict v)
{
	static const char *const names[] = {
		[ETCD_ID_GO] = "go",
		[ETCD_ID_WAIT] = "wait",
		[ETCD_ID_LOST] = "lost",
		[ETCD_ID_MISMATCH] = "mismatch",
	};

	return (unsigned)v < sizeof(names) / sizeof(names[0]) ? names[v] : "?";
}

int etcd_id_parse(const char *text, uint64_t *id)
{
	const char *s = text;
	uint64_t v = 0;
	size_t n = 0;

	if (!s)
		return -EINVAL;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	for (; *s; s++, n++) {
		unsigned d;

		if (*s >= '0' && *s <= '9')
			d = (unsigned)(*s - '0');
		else if (*s >= 'a' && *s <= 'f')
			d = (unsigned)(*s - 'a' + 10);
		else if (*s >= 'A' && *s <= 'F')
			d = (unsigned)(*s - 'A' + 10);
		else
			return -EINVAL;
		if (v >> 60)
			return -EINVAL;
		v = v << 4 | d;
	}
	if (n == 0 || v == 0)
		return -EINVAL;
	*id = v;
	return 0;
}

/* ------------------------------------------------------------------ WAL -- */

/* A protobuf varint at *p (below end): 0 and the value, -1 when cut or
 * longer than 64 bits. */
static int varint(const uint8_t **p, const uint8_t *end, uint64_t *out)
{
	uint64_t v = 0;
	unsigned shift;

	for (shift = 0; shift < 64 && *p < end; shift += 7) {
		uint8_t b = *(*p)++;

		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*out = v;
			return 0;
		}
	}
	return -1;
}

/* Fields 1 and 2 (varints) of a message; other varint and length-delimited
 * fields are skipped. -1 for a malformed message. */
static int two_varints(const uint8_t *p, const uint8_t *end, uint64_t *f1, uint64_t *f2,
	const uint8_t **bytes3, size_t *len3)
{
	uint64_t key, v;

	while (p < end) {
		if (varint(&p, end, &key) < 0)
			return -1;
		switch (key & 7) {
		case 0: /* varint */
			if (varint(&p, end, &v) < 0)
				return -1;
			if (key >> 3 == 1 && f1)
				*f1 = v;
			if (key >> 3 == 2 && f2)
				*f2 = v;
			break;
		case 2: /* length-delimited */
			if (varint(&p, end, &v) < 0 || v > (uint64_t)(end - p))
				return -1;
			if (key >> 3 == 3 && bytes3) {
				*bytes3 = p;
				*len3 = (size_t)v;
			}
			p += v;
			break;
		default: /* walpb.Record and etcdserverpb.Metadata use no other */
			return -1;
		}
	}
	return 0;
}

/* etcd's WAL (server/storage/wal in etcd 3.5, wal/ in 3.4): frames of a
 * little-endian uint64 length, whose top byte, when its high bit is set,
 * holds the count of padding bytes that follow the record (8-byte
 * alignment); each record a walpb.Record {type = 1, crc = 2, data = 3};
 * type 1 (metadataType) carries etcdserverpb.Metadata {NodeID = 1,
 * ClusterID = 2}. */
int etcd_wal_ids(const void *buf, size_t len, uint64_t *cluster, uint64_t *member, const char **why)
{
	const uint8_t *p = buf, *end = p + len;
	int frames;

	*why = NULL;
	for (frames = 0; frames < 4; frames++) {
		uint64_t field = 0, type = 0, node = 0, id = 0;
		const uint8_t *data = NULL;
		size_t size, pad, dlen = 0;
		int i;

		if ((size_t)(end - p) < 8) {
			*why = "no metadata record in the WAL's first bytes";
			return -EINVAL;
		}
		for (i = 7; i >= 0; i--)
			field = field << 8 | p[i];
		p += 8;
		size = (size_t)(field & 0x00ffffffffffffffULL);
		pad = (field >> 63) ? (size_t)((field >> 56) & 0x7) : 0;
		if (size == 0) {
			*why = "an empty WAL (no record)";
			return -EINVAL;
		}
		if (size > (size_t)(end - p) || pad > (size_t)(end - p) - size) {
			*why = "the WAL's first record is cut short";
			return -EINVAL;
		}
		if (two_varints(p, p + size, &type, NULL, &data, &dlen) < 0) {
			*why = "a WAL record that is not a walpb.Record";
			return -EINVAL;
		}
		p += size + pad;
		if (type != 1)
			continue; /* the CRC record first */
		if (!data || two_varints(data, data + dlen, &node, &id, NULL, NULL) < 0 ||
			id == 0) {
			*why = "a WAL metadata record without a cluster ID";
			return -EINVAL;
		}
		*cluster = id;
		*member = node;
		return 0;
	}
	*why = "no metadata record among the WAL's first records";
	return -EINVAL;
}

/* ------------------------------------------------------------ the gate -- */

static const char *clear_cmd(void)
{
	return "crm_attribute --type crm_config --name " ETCD_RECORD_NAME " --delete";
}

static void lost(const struct etcd_id_view *v, struct etcd_id_decision *d)
{
	d->verdict = ETCD_ID_LOST;
	snprintf(d->why, sizeof(d->why),
		"etcd data lost on every member: cluster %" PRIx64 " is recorded, no empty one "
		"bootstrapped; restore a snapshot (see log)",
		v->recorded);
	snprintf(d->help, sizeof(d->help),
		"etcd's data is gone on every member: cluster %" PRIx64
		" is recorded in the CIB (cluster property " ETCD_RECORD_NAME
		"), member %s's data dir %s is empty, and no other member runs etcd; a new "
		"cluster would be empty (the Kubernetes state erased), so none is bootstrapped\n"
		"to restore from a snapshot (a `cpha etcd restore` command is planned; until it "
		"exists, by hand): stop the clone; on every node move its empty data dir aside "
		"and run etcdutl snapshot restore SNAPSHOT --name %s --data-dir %s "
		"--initial-cluster %s --initial-cluster-token %s --initial-advertise-peer-urls "
		"%s (etcd 3.5 and later; etcd 3.4: ETCDCTL_API=3 etcdctl snapshot restore, same "
		"flags), with that node's own --name, --data-dir and peer URL; then start the "
		"clone (the same members and token give the recorded ID)\n"
		"to start a new, empty cluster on purpose: %s, then pcs resource cleanup (or "
		"crm_resource --cleanup)",
		v->recorded, v->name, v->data_dir, v->name, v->data_dir, v->initial, v->token,
		v->peer_url, clear_cmd());
}

static void mismatch(
	const struct etcd_id_view *v, struct etcd_id_decision *d, uint64_t other, bool data)
{
	d->verdict = ETCD_ID_MISMATCH;
	if (data)
		snprintf(d->why, sizeof(d->why),
			"the data dir of member %s is of etcd cluster %" PRIx64 ", the CIB "
			"records %" PRIx64 ": not started",
			v->name, other, v->recorded);
	else
		snprintf(d->why, sizeof(d->why),
			"the etcd cluster that answers is %" PRIx64 ", the CIB records %" PRIx64
			": member %s does not join it",
			other, v->recorded, v->name);
	snprintf(d->help, sizeof(d->help),
		"%s\n"
		"if cluster %" PRIx64 " is the right one (a restore with other members or "
		"another token gives another ID), record it: crm_attribute --type crm_config "
		"--name " ETCD_RECORD_NAME " --update %" PRIx64 " (or %s, and the next start "
		"records it)\n"
		"if the record is right, %s",
		d->why, other, other, clear_cmd(),
		data ? "move this data dir aside (it is not of this cluster) and start again: "
		       "the member joins the recorded cluster anew"
		     : "check node_map and the token: this node reaches members of another "
		       "cluster");
}

void etcd_id_gate(const struct etcd_id_view *v, struct etcd_id_decision *d)
{
	memset(d, 0, sizeof(*d));
	d->verdict = ETCD_ID_GO;
	switch (v->record) {
	case ETCD_REC_OFF:
		snprintf(d->why, sizeof(d->why),
			"no CIB to keep the cluster ID in (run outside Pacemaker): not checked");
		return;
	case ETCD_REC_UNREADABLE:
		if (v->plan == ETCD_PLAN_BOOTSTRAP) {
			d->verdict = ETCD_ID_WAIT;
			snprintf(d->why, sizeof(d->why),
				"the cluster ID record cannot be read (the log says why): no new "
				"cluster until it can");
			return;
		}
		snprintf(d->why, sizeof(d->why),
			"the cluster ID record cannot be read (the log says why): not checked");
		return;
	case ETCD_REC_NONE:
		/* rules 1 and 4: record what runs */
		d->record = v->plan != ETCD_PLAN_REFUSE;
		snprintf(d->why, sizeof(d->why), "no cluster ID recorded yet: %s",
			v->plan == ETCD_PLAN_BOOTSTRAP ? "the new cluster's is recorded"
						       : "the running cluster's is recorded");
		return;
	case ETCD_REC_SET:
		break;
	}
	/* rule 3: another cluster's data, or another cluster answering */
	if (v->has_data && v->data_id && v->data_id != v->recorded && v->plan != ETCD_PLAN_REFUSE) {
		mismatch(v, d, v->data_id, true);
		return;
	}
	if (v->running_id && v->running_id != v->recorded && v->plan != ETCD_PLAN_REFUSE) {
		mismatch(v, d, v->running_id, false);
		return;
	}
	if (v->plan != ETCD_PLAN_BOOTSTRAP) {
		snprintf(d->why, sizeof(d->why), "cluster %" PRIx64 " recorded%s", v->recorded,
			v->has_data && v->data_id ? "; the data dir is of it"
			: v->running_id           ? "; the running cluster is it"
						  : "");
		return;
	}
	/* rule 2: never a new cluster where one was recorded */
	if (v->data_elsewhere) {
		d->verdict = ETCD_ID_WAIT;
		snprintf(d->why, sizeof(d->why),
			"cluster %" PRIx64 " is recorded and etcd runs on %s: waiting for a "
			"majority of it, no new cluster",
			v->recorded,
			v->elsewhere && *v->elsewhere ? v->elsewhere : "another member");
		return;
	}
	if (v->lost_usec < ETCD_LOST_GRACE_USEC) {
		d->verdict = ETCD_ID_WAIT;
		snprintf(d->why, sizeof(d->why),
			"cluster %" PRIx64 " is recorded, this data dir is empty and no member "
			"runs etcd yet: waiting up to %llu s for one with data, no new cluster",
			v->recorded, ETCD_LOST_GRACE_USEC / 1000000ULL);
		return;
	}
	lost(v, d);
}

enum etcd_id_after etcd_id_check(enum etcd_record_state record, uint64_t recorded,
	uint64_t running_id, char *why, size_t len)
{
	if (len)
		why[0] = '\0';
	if (!running_id)
		return ETCD_ID_KEEP;
	switch (record) {
	case ETCD_REC_NONE:
		snprintf(why, len,
			"recording etcd cluster %" PRIx64 " in the CIB (cluster property "
			"" ETCD_RECORD_NAME ")",
			running_id);
		return ETCD_ID_RECORD;
	case ETCD_REC_SET:
		if (recorded == running_id)
			return ETCD_ID_KEEP;
		snprintf(why, len,
			"etcd runs in cluster %" PRIx64 ", the CIB records %" PRIx64
			": set the record right (crm_attribute --type crm_config --name "
			"" ETCD_RECORD_NAME " --update ID) or stop this member",
			running_id, recorded);
		return ETCD_ID_DIFFERS;
	case ETCD_REC_UNREADABLE:
	case ETCD_REC_OFF:
		break;
	}
	return ETCD_ID_KEEP;
}
