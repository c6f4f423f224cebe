"""The three-node Pacemaker cluster that runs the control plane, as the
Pacemaker tests build it: lab hosts n1-n3 (198.18.0.11-13), pcmk3 nodes
with fencing through fence_cpha_lab, the etcd agent staged, one etcd
serving/peer certificate for every master and one client certificate.

    bed = pcmk_cp.Bed(lab, ocf.stage_with_etcd())
    pcmk_cp.start(bed)                    # corosync + pacemakerd, a DC
    pcmk_cp.create_control_plane(bed)     # etcd clone, apiserver clone, kcm, scheduler
"""

import os
import re
import sys
import time

from . import etcd, kube, ocf, pcmk3
from .pki import Pki
from .util import check, step, wait_until

NAMES = ("n1", "n2", "n3")
IPS = ("198.18.0.11", "198.18.0.12", "198.18.0.13")
NODE_MAP = " ".join("%s=%s" % (n, ip) for n, ip in zip(NAMES, IPS))


def flags(argv):
    for a in argv[1:]:
        check(not re.search(r"[\s'\"\\]", a), "flag %r would need quoting" % a)
    return " ".join(argv[1:])


class Bed:
    """The cluster and what the steps share."""

    def __init__(self, lab, stage):
        self.lab = lab
        self.hosts = [lab.add_host(n, v4=ip + "/24", v6="2001:db8::%d/64" % (11 + i))
                      for i, (n, ip) in enumerate(zip(NAMES, IPS))]
        self.pki = Pki(lab.path("pki", "ca"))
        # as in the classic setup: one etcd serving/peer certificate for every master
        # (all addresses and 127.0.0.1), one client certificate
        sans = ["IP:%s" % ip for ip in IPS] + ["IP:127.0.0.1", "DNS:localhost"]
        self.etcd_cert, self.etcd_key = self.pki.issue("etcd-server", "etcd-server", sans=sans,
                                                       server=True, client=True)
        cert, key = self.pki.issue("etcd-client", "etcd-client", client=True)
        self.etls = etcd.ClientTls(self.pki.ca_cert, cert, key)
        self.cl = pcmk3.Cluster(lab, self.hosts, NAMES, extra_mounts=[stage.overlay_script()])

    def pcs(self, *args, **kw):
        return self.cl.pcs(self.cl.any_up(), *args, **kw)

    def xml(self):
        return self.cl.any_up().status_xml()

    def running(self, rid):
        """Nodes where rid (a primitive or clone instance) is Started and not failed."""
        out = set()
        for node, attrs in pcmk3.where(self.xml(), rid).items():
            if attrs.get("role") == "Started" and attrs.get("failed") != "true":
                out.add(node)
        return out

    def url(self, name):
        return "https://%s:2379" % IPS[NAMES.index(name)]

    def host(self, name):
        return self.hosts[NAMES.index(name)]

    def members(self, via):
        r = self.host(via).curl(self.url(via) + "/v3/cluster/member/list", method="POST",
                                data={}, **self.etls.curl_kw())
        check(r.status == 200, "member list from %s: %r" % (via, r))
        return {m.get("name", ""): m for m in r.json()["members"]}

    def member_id(self, name):
        r = self.host(name).curl(self.url(name) + "/v3/maintenance/status", method="POST",
                                 data={}, **self.etls.curl_kw())
        check(r.status == 200, "status of %s: %r" % (name, r))
        return r.json()["header"]["member_id"]

    def healthy(self, name):
        return etcd.health(self.host(name), self.url(name), self.etls)[0]

    def leader_id(self, via):
        r = self.host(via).curl(self.url(via) + "/v3/maintenance/status", method="POST",
                                data={}, **self.etls.curl_kw())
        check(r.status == 200, "status of %s: %r" % (via, r))
        return r.json().get("leader")

    def wait_etcd_healthy(self, name, bound):
        """Poll name's /health until it answers true, at most `bound`
        seconds; return (seconds waited, distinct unhealthy answers)."""
        t0, reasons = time.monotonic(), []
        while True:
            ok, detail = etcd.health(self.host(name), self.url(name), self.etls)
            if ok:
                return time.monotonic() - t0, reasons
            if detail not in reasons:
                reasons.append(detail)
            check(time.monotonic() - t0 < bound, "etcd on %s not healthy with 2 of 3 within "
                  "%.0fs: %s" % (name, bound, "; ".join(reasons)))
            time.sleep(0.2)

    def read(self, name, key):
        kvs = etcd.kv_range(self.host(name), self.url(name), key, self.etls)
        return kvs[0]["value"] if kvs else None

    def etcd_log(self, name):
        try:
            with open(os.path.join(self.cl.node(name).dir, "var-log", "cpha", "etcd.log"),
                      errors="replace") as f:
                return f.read()
        except OSError:
            return ""

    def agent_lines(self, name, pattern):
        """Lines the etcd agent wrote (pacemaker-execd logs their stderr)."""
        path = os.path.join(self.cl.node(name).dir, "var-log", "pacemaker", "pacemaker.log")
        try:
            with open(path, errors="replace") as f:
                return [ln for ln in f if re.search(pattern, ln)]
        except OSError:
            return []


def etcd_params(bed, data_dir="/var/lib/etcd/main", **over):
    p = {"node_map": NODE_MAP, "data_dir": data_dir,
         "trusted_ca_file": bed.pki.ca_cert, "cert_file": bed.etcd_cert,
         "key_file": bed.etcd_key, "peer_trusted_ca_file": bed.pki.ca_cert,
         "peer_cert_file": bed.etcd_cert, "peer_key_file": bed.etcd_key,
         "agent_cert": bed.etls.cert, "agent_key": bed.etls.key,
         "args": "--heartbeat-interval=100 --election-timeout=1000"}
    p.update(over)
    return ["%s=%s" % kv for kv in p.items()]


def create_control_plane(bed):
    pki, ca = bed.pki, bed.pki.ca_cert
    step("pcs stonith create: fence_cpha_lab for n1-n3")
    bed.pcs("stonith", "create", "fence-lab", pcmk3.FENCE_AGENT,
            "hosts_file=" + bed.cl.hosts_file, "log_file=" + bed.cl.fence_log,
            "pcmk_host_list=" + " ".join(NAMES), "op", "monitor", "interval=60s")

    step("pcs resource create etcd (clone, interleave, notify, clone-max=3)")
    t0 = time.monotonic()
    bed.pcs("resource", "create", "etcd", "ocf:cpha:etcd", *etcd_params(bed),
            "op", "start", "timeout=120s", "op", "monitor", "interval=5s", "timeout=30s",
            "clone", "interleave=true", "notify=true", "clone-max=3", "clone-node-max=1",
            "--agent-validation")
    wait_until(lambda: bed.running("etcd") == set(NAMES), 120, 0.5,
               "etcd Started on n1, n2, n3")
    members = bed.members("n1")
    check(sorted(members) == list(NAMES), "three members: %s" % sorted(members))
    check(not any(m.get("isLearner") for m in members.values()), "all voters: %s" % members)
    step("etcd: 3 members from empty data dirs in %.1fs" % (time.monotonic() - t0))
    for n in NAMES:
        how = bed.agent_lines(n, r"start: (bootstrap|start-listed|join-as-learner)")
        step("  %s: %s" % (n, how[-1].split("start: ", 1)[-1].rstrip(" ]\n") if how else "?"))

    step("kube-apiserver clone, then kube-controller-manager and kube-scheduler")
    cert, key = pki.issue("apiserver", "kube-apiserver", server=True,
                          sans=["IP:%s" % ip for ip in IPS] + ["IP:127.0.0.1", "DNS:localhost",
                                                              "DNS:kubernetes"])
    api = kube.apiserver_argv([bed.url(n) for n in NAMES], cert, key, ca, bed.etls,
                              extra=["--shutdown-delay-duration=1s"])
    bed.pcs("resource", "create", "apiserver", "ocf:cpha:kube-apiserver",
            "binary=" + kube.binary("kube-apiserver"), "args=" + flags(api), "ca=" + ca,
            "op", "monitor", "interval=5s", "timeout=20s",
            "clone", "interleave=true", "clone-max=3", "clone-node-max=1",
            "--disabled", "--agent-validation")
    bed.pcs("constraint", "order", "start", "etcd-clone", "then", "start", "apiserver-clone")
    bed.pcs("constraint", "colocation", "add", "apiserver-clone", "with", "etcd-clone",
            "INFINITY")
    sa_key = pki.new_key("sa")
    kcm_cert, kcm_key = pki.issue("kcm", "system:kube-controller-manager", client=True)
    kc = kube.write_kubeconfig(bed.lab.path("kcm.kubeconfig"), "https://127.0.0.1:6443",
                               "system:kube-controller-manager", ca, kcm_cert, kcm_key)
    bed.pcs("resource", "create", "kcm", "ocf:cpha:kube-controller-manager",
            "binary=" + kube.binary("kube-controller-manager"),
            "args=" + flags(kube.controller_manager_argv(kc, ca, sa_key)),
            "op", "monitor", "interval=5s", "timeout=20s", "--disabled", "--agent-validation")
    s_cert, s_key = pki.issue("sched", "system:kube-scheduler", client=True)
    kc = kube.write_kubeconfig(bed.lab.path("sched.kubeconfig"), "https://127.0.0.1:6443",
                               "system:kube-scheduler", ca, s_cert, s_key)
    bed.pcs("resource", "create", "scheduler", "ocf:cpha:kube-scheduler",
            "binary=" + kube.binary("kube-scheduler"),
            "args=" + flags(kube.scheduler_argv(kc)),
            "op", "monitor", "interval=5s", "timeout=20s", "--disabled", "--agent-validation")
    for r in ("kcm", "scheduler"):
        bed.pcs("constraint", "order", "start", "apiserver-clone", "then", "start", r)
        bed.pcs("constraint", "colocation", "add", r, "with", "apiserver-clone", "INFINITY")
    bed.pcs("resource", "enable", "apiserver-clone", "kcm", "scheduler")
    wait_until(lambda: bed.running("apiserver") == set(NAMES)
               and len(bed.running("kcm")) == 1 and len(bed.running("scheduler")) == 1,
               120, 0.5, "apiserver on all three, kcm and scheduler once each")
    for h in bed.hosts:
        r = h.curl("https://%s:6443/readyz" % h.v4, cacert=ca, timeout=5)
        check(r.status == 200, "apiserver on %s ready: %r" % (h.name, r))
    for r in ("kcm", "scheduler"):
        where = bed.running(r)
        check(where <= bed.running("apiserver"), "%s runs with an apiserver: %s" % (r, where))
    step("apiserver ready on n1-n3; kcm on %s, scheduler on %s"
         % (sorted(bed.running("kcm")), sorted(bed.running("scheduler"))))


def start(bed):
    """corosync + pacemakerd on every node, online with a DC (each
    node's log tail printed when not)."""
    step("corosync + pacemakerd on n1-n3 (fencing on)")
    try:
        bed.cl.start(timeout=60)
    except Exception:
        for n in bed.cl.nodes:
            print(n.log_tail(30), file=sys.stderr)
        raise


def diagnostics(bed):
    """crm_mon and the log of a node still up, on stderr (a test failed)."""
    try:
        node = bed.cl.any_up()
        print(node.run(["crm_mon", "-1", "-r", "-f"], check=False).stdout, file=sys.stderr)
        print(node.log_tail(80), file=sys.stderr)
    except Exception as e:  # diagnostics only
        print("no diagnostics: %s" % e, file=sys.stderr)


def main(lab_name, run, tools=()):
    """main() of a test of this cluster: skip unless root, the tools, the
    built agents; then run(lab, stage) (ocf.run_staged)."""
    ocf.require(tools=tools)
    if not os.access(os.path.join(ocf.agent_dir(), "etcd"), os.X_OK):
        print("SKIP: %s not built" % os.path.join(ocf.agent_dir(), "etcd"), flush=True)
        return ocf.util.SKIP
    return ocf.run_staged(lab_name, run, ocf.stage_with_etcd())
