/* The etcd agent's parameters as its meta-data describes them; what they
 * do is read in etcd_setup.c. */
#include <stddef.h>

#include "etcd_params.h"

const struct ocf_param etcd_params[] = {
	{ .name = "node_map",
		.type = OCF_STRING,
		.flags = OCF_P_REQUIRED,
		.shortdesc = "Members and their addresses",
		.longdesc =
			"Every member as name=address, separated by blanks or ';' "
			"(\"m0=198.18.0.11 m1=198.18.0.12 m2=198.18.0.13\"). The names are the "
			"Pacemaker node names (the member names); the address is an IPv4 or IPv6 "
			"address or a host name, from which the peer URL "
			"(SCHEME://ADDRESS:peer_port) and client URL "
			"(SCHEME://ADDRESS:client_port) "
			"are made, or a peer URL itself. The scheme is https when cert_file "
			"(client) or peer_cert_file (peer) is set. A new cluster is bootstrapped "
			"from these members; the monitor of the leader removes a dead member whose "
			"URL is no longer here. Its size must be odd (2n+1 members tolerate n "
			"failures) unless allow_even is set (see allow_even for what an even "
			"size does to a running cluster)." },
	{ .name = "name",
		.type = OCF_STRING,
		.def = "",
		.shortdesc = "This member's name",
		.longdesc = "The name of this node's member (--name), a key of node_map. Empty: "
			    "the Pacemaker node name, which is what a clone wants." },
	{ .name = "data_dir",
		.flags = OCF_P_UNIQUE,
		.type = OCF_STRING,
		.def = "/var/lib/etcd",
		.shortdesc = "Data directory (--data-dir)",
		.longdesc = "Created (0700) when missing. A member with data restarts with it "
			    "(never leaves and rejoins); an empty one joins the running cluster, "
			    "replacing its old member; data of a member the cluster removed is "
			    "moved aside to member.removed-TIME." },
	{ .name = "client_port",
		.flags = OCF_P_UNIQUE,
		.type = OCF_INTEGER,
		.def = "2379",
		.shortdesc = "Client port of every member",
		.longdesc = "Port of the client URLs made from node_map addresses." },
	{ .name = "peer_port",
		.flags = OCF_P_UNIQUE,
		.type = OCF_INTEGER,
		.def = "2380",
		.shortdesc = "Peer port of every member",
		.longdesc = "Port of the peer URLs made from node_map addresses." },
	{ .name = "listen_client_urls",
		.type = OCF_STRING,
		.def = "",
		.shortdesc = "--listen-client-urls",
		.longdesc = "Empty: this member's client URL and SCHEME://127.0.0.1:client_port. "
			    "The advertised client URL is always the one from node_map." },
	{ .name = "metrics_port",
		.type = OCF_INTEGER,
		.def = "",
		.shortdesc = "Port of etcd's metrics listener (--listen-metrics-urls)",
		.longdesc = "Empty: none. Set: /metrics and /health on http://127.0.0.1:PORT and "
			    "on this member's address from node_map with the client scheme (HTTPS "
			    "asks for a client certificate, as the client port does), for a "
			    "Prometheus on another host." },
	{ .name = "listen_peer_urls",
		.type = OCF_STRING,
		.def = "",
		.shortdesc = "--listen-peer-urls",
		.longdesc = "Empty: this member's peer URL. The advertised peer URL is always the "
			    "one from node_map." },
	{ .name = "trusted_ca_file",
		.type = OCF_STRING,
		.def = "",
		.shortdesc = "--trusted-ca-file (clients' CA)",
		.longdesc = "CA that signs client certificates; also the CA the agent verifies "
			    "members' serving certificates with unless agent_ca is set." },
	{ .name = "cert_file",
		.type = OCF_STRING,
		.def = "",
		.shortdesc = "--cert-file (serving certificate)",
		.longdesc = "Serving certificate of the client URLs; set: client URLs are https. "
			    "Also the certificate the agent presents unless agent_cert is set "
			    "(it needs the client usage then)." },
	{ .name = "key_file",
		.type = OCF_STRING,
		.def = "",
		.shortdesc = "--key-file",
		.longdesc = "Key of cert_file." },
	{ .name = "client_cert_auth",
		.type = OCF_BOOLEAN,
		.def = "true",
		.shortdesc = "--client-cert-auth (with trusted_ca_file)",
		.longdesc = "Clients must present a certificate signed by trusted_ca_file. Only "
			    "passed when trusted_ca_file is set." },
	{ .name = "peer_trusted_ca_file",
		.type = OCF_STRING,
		.def = "",
		.shortdesc = "--peer-trusted-ca-file",
		.longdesc = "CA of the peers' certificates." },
	{ .name = "peer_cert_file",
		.type = OCF_STRING,
		.def = "",
		.shortdesc = "--peer-cert-file",
		.longdesc = "Peer certificate (server and client usage); set: peer URLs are "
			    "https." },
	{ .name = "peer_key_file",
		.type = OCF_STRING,
		.def = "",
		.shortdesc = "--peer-key-file",
		.longdesc = "Key of peer_cert_file." },
	{ .name = "peer_client_cert_auth",
		.type = OCF_BOOLEAN,
		.def = "true",
		.shortdesc = "--peer-client-cert-auth (with peer_trusted_ca_file)",
		.longdesc = "Peers must present a certificate signed by peer_trusted_ca_file. "
			    "Only passed when peer_trusted_ca_file is set." },
	{ .name = "agent_ca",
		.type = OCF_STRING,
		.def = "",
		.shortdesc = "CA the agent verifies members with",
		.longdesc = "Empty: trusted_ca_file; both empty: the system's CA store." },
	{ .name = "agent_cert",
		.type = OCF_STRING,
		.def = "",
		.shortdesc = "Client certificate of the agent's API calls",
		.longdesc = "Certificate the agent presents to the client URLs ("
			    "etcd-client.pem). Empty: cert_file and key_file." },
	{ .name = "agent_key",
		.type = OCF_STRING,
		.def = "",
		.shortdesc = "Key of agent_cert",
		.longdesc = "Empty: agent_cert holds the key." },
	{ .name = "token",
		.type = OCF_STRING,
		.def = "etcd-cluster-token",
		.shortdesc = "--initial-cluster-token",
		.longdesc = "Token of a new cluster; the same on every member." },
	{ .name = "join_as_learner",
		.type = OCF_BOOLEAN,
		.def = "true",
		.shortdesc = "Join as a learner, promoted once caught up",
		.longdesc = "A joining member is added as a non-voting learner and promoted when "
			    "it has the leader's log, so a slow catch-up never costs a vote. "
			    "false: added as a voting member at once (etcd before 3.4)." },
	{ .name = "allow_even",
		.type = OCF_BOOLEAN,
		.def = "false",
		.shortdesc = "Accept an even member count",
		.longdesc = "An even clone-max or node_map wastes a member: 2n members tolerate "
			    "n-1 failures, as 2n-1 do, and need one more vote for a majority. "
			    "validate-all refuses it (OCF_ERR_CONFIGURED). A start refuses only "
			    "what would make etcd even, for that node alone (OCF_ERR_GENERIC): a "
			    "new cluster, or a member add that makes the running cluster even; a "
			    "member already in the cluster starts and runs, and its monitor is "
			    "OCF_DEGRADED with the fix. true accepts an even count, for someone "
			    "who knows why." },
	{ .name = "binary",
		.type = OCF_STRING,
		.def = "/usr/bin/etcd",
		.shortdesc = "Path of the etcd executable",
		.longdesc = "The monitor recognises the process by it (/proc/PID/exe), so a "
			    "recycled pid is never taken for etcd." },
	{ .name = "args",
		.type = OCF_STRING,
		.def = "",
		.shortdesc = "Extra etcd flags",
		.longdesc = "More flags for etcd, written as on an ExecStart= line "
			    "(\"--heartbeat-interval=250 --election-timeout=2500\"). The flags the "
			    "agent sets from its parameters (--name, --data-dir, the URLs, the TLS "
			    "files, --initial-cluster*) are refused here." },
	OCF_PARAM_LOGFILE("/var/log/cpha/etcd.log"),
	OCF_PARAM_PIDDIR,
	{ .name = NULL },
};
