#!/usr/bin/env python3
"""A real three-node corosync + Pacemaker cluster runs the control plane, with
fencing, node loss and member replacement.

Three lab hosts n1-n3 (198.18.0.11-13), each a network + mount + UTS
namespace (cphatest.pcmk3): corosync (knet, token 1000 ms) and pacemakerd
started directly, fencing on through fence_cpha_lab (a test agent speaking
the fence-agents stdin protocol that powers a node off: kills its processes
by PID, found through /proc/PID/ns/net, and wipes its /run and /dev/shm),
overlaid on /usr/sbin inside the nodes only. The agents are overlaid on
/usr/lib/ocf/resource.d/cpha inside the nodes only. With the pcs commands of
docs/pacemaker.md:
  - the etcd clone (ocf:cpha:etcd, interleave, notify, clone-max=3) forms a
    3-member cluster from empty data dirs, TLS for peers and clients;
  - the kube-apiserver clone (the tests/fixtures stand-in) is ready on all
    three; kube-controller-manager and kube-scheduler run once each, after
    and with a running apiserver;
  - a key written to etcd now is read back after every later step;
  - the node running kube-controller-manager loses its corosync (SIGKILL by
    PID): it is fenced by the test agent (its etcd dies with it), the
    controllers move (the time is measured and printed, and bounded), etcd
    keeps quorum with 2 of 3 and takes writes;
  - the node boots again (after corosync saw it leave) and its etcd rejoins
    with its data: same member ID, nothing removed or added;
  - another node's etcd data dir is wiped while it is banned: on return its
    old member is removed and a new one added as a learner and promoted;
  - a new clone with clone-max=4 is refused: its starts fail with
    OCF_ERR_GENERIC (each node only: a start never returns the clone-wide
    OCF_ERR_CONFIGURED) and the exit reason, and nothing of it runs.
Exit 0 pass, 77 skip, 1 fail.
    sudo python3 tests/integration/test_pacemaker_cluster.py
"""

import os
import re
import shutil
import sys
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

import cphatest  # noqa: E402
from cphatest import etcd, kube, ocf, pcmk3, step  # noqa: E402

NAMES = ("n1", "n2", "n3")
IPS = ("198.18.0.11", "198.18.0.12", "198.18.0.13")
NODE_MAP = " ".join("%s=%s" % (n, ip) for n, ip in zip(NAMES, IPS))
FAILOVER_BOUND = 45.0  # seconds from the failure to the controllers running elsewhere
ETCD_RECOVERY_BOUND = 20.0  # seconds from the fence to /health true on both survivors


def check(cond, msg):
    if not cond:
        raise AssertionError(msg)


def flags(argv):
    for a in argv[1:]:
        check(not re.search(r"[\s'\"\\]", a), "flag %r would need quoting" % a)
    return " ".join(argv[1:])


def stage_with_etcd():
    stage = ocf.Stage()
    dst = stage.path("etcd")
    shutil.copyfile(os.path.join(ocf.agent_dir(), "etcd"), dst)
    os.chmod(dst, 0o755)
    return stage


class Bed:
    """The cluster and what the steps share."""

    def __init__(self, lab, stage):
        self.lab = lab
        self.hosts = [lab.add_host(n, v4=ip + "/24", v6="2001:db8::%d/64" % (11 + i))
                      for i, (n, ip) in enumerate(zip(NAMES, IPS))]
        self.pki = cphatest.Pki(lab.path("pki", "ca"))
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
    cphatest.wait_until(lambda: bed.running("etcd") == set(NAMES), 120, 0.5,
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
    cphatest.wait_until(lambda: bed.running("apiserver") == set(NAMES)
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


def failover(bed, ca):
    cl = bed.cl
    victim = cl.node(sorted(bed.running("kcm"))[0])
    moving = [r for r in ("kcm", "scheduler") if victim.name in bed.running(r)]
    survivors = [n for n in NAMES if n != victim.name]
    vid = bed.member_id(victim.name)
    with open(victim.path("/run/cpha/etcd-etcd.pid")) as f:
        etcd_pid = int(f.read())
    was_leader = bed.leader_id(survivors[0]) == vid
    step("kill corosync on %s (runs %s) by PID" % (victim.name, ", ".join(moving)))
    t_wall, t0 = time.time(), time.monotonic()
    cl.kill_corosync(victim)
    t_fence = cl.wait_fenced(victim, t_wall, timeout=60)
    step("%s fenced by %s %.1fs after the failure" % (victim.name, pcmk3.FENCE_AGENT,
                                                     t_fence - t_wall))
    cphatest.wait_until(lambda: not victim.pids(), 10, 0.2,
                        "every process of %s gone" % victim.name)
    check(not cphatest.util.pid_alive(etcd_pid), "the fenced node's etcd died with it")

    def moved():
        return all(bed.running(r) and victim.name not in bed.running(r) for r in moving)
    cphatest.wait_until(moved, 90, 0.25, "%s running on a survivor" % ", ".join(moving))
    took = time.monotonic() - t0
    step("controllers (%s) moved to %s %.1fs after the failure (bound %.0fs)"
         % (", ".join(moving), sorted(set().union(*(bed.running(r) for r in moving))),
            took, FAILOVER_BOUND))
    check(took <= FAILOVER_BOUND, "failover took %.1fs, more than %.0fs" % (took, FAILOVER_BOUND))

    # etcd on the victim died with the fence. If it led, the survivors
    # elect a leader (one to two election timeouts, 1-2 s here, more when
    # a split vote repeats on a loaded machine) before /health answers
    # true again: its quorum read needs a leader. Measured from the fence,
    # not assumed done by the time the controllers moved.
    for n in survivors:
        took, reasons = bed.wait_etcd_healthy(n, ETCD_RECOVERY_BOUND)
        step("etcd on %s healthy with 2 of 3, %.1fs after the fence (the victim %s the "
             "leader%s)" % (n, time.time() - t_fence, "was" if was_leader else "was not",
                            "; unhealthy meanwhile: " + "; ".join(reasons) if reasons else ""))
    members = bed.members(survivors[0])
    check(sorted(members) == list(NAMES), "the dead member is kept (it comes back): %s"
          % sorted(members))
    etcd.kv_put(bed.host(survivors[0]), bed.url(survivors[0]), "/cpha/during", "2-of-3",
                bed.etls)
    step("etcd quorate with 2 of 3; a write succeeded")
    check(bed.running("apiserver") == set(survivors), "apiserver on the survivors")

    step("%s boots again once corosync saw it leave" % victim.name)
    cl.wait_left(victim)
    time.sleep(3)
    t1 = time.monotonic()
    victim.boot()
    cphatest.wait_until(lambda: cl.online(victim), 60, 0.5, "%s online" % victim.name)
    cphatest.wait_until(lambda: bed.running("etcd") == set(NAMES)
                        and bed.running("apiserver") == set(NAMES), 120, 0.5,
                        "etcd and apiserver back on %s" % victim.name)
    step("%s back, etcd and apiserver Started %.1fs after boot" % (victim.name,
                                                                   time.monotonic() - t1))
    check(bed.member_id(victim.name) == vid, "%s rejoined as the same member" % victim.name)
    check(sorted(bed.members(victim.name)) == list(NAMES), "still three members")
    check(bed.read(victim.name, "/cpha/during") == "2-of-3",
          "the write made while %s was down is there" % victim.name)
    how = bed.agent_lines(victim.name, r"start: restart-with-data")
    check(how, "%s's etcd restarted with its data" % victim.name)
    r = victim.host.curl("https://%s:6443/readyz" % victim.host.v4, cacert=ca, timeout=5)
    check(r.status == 200, "apiserver on %s ready again: %r" % (victim.name, r))
    return victim


def replace(bed, victim):
    cl = bed.cl
    target = cl.node([n for n in NAMES if n != victim.name][0])
    old = bed.member_id(target.name)
    step("ban etcd from %s, wipe its data dir, clear the ban" % target.name)
    bed.pcs("resource", "ban", "etcd-clone", target.name)
    cphatest.wait_until(lambda: target.name not in bed.running("etcd")
                        and not os.path.exists(target.path("/run/cpha/etcd-etcd.pid")),
                        60, 0.5, "etcd stopped on %s" % target.name)
    shutil.rmtree(os.path.join(target.etcd_dir, "main"))
    t0 = time.monotonic()
    bed.pcs("resource", "clear", "etcd-clone", target.name)
    cphatest.wait_until(lambda: bed.running("etcd") == set(NAMES)
                        and bed.running("apiserver") == set(NAMES), 120, 0.5,
                        "etcd and apiserver back on %s" % target.name)
    new = bed.member_id(target.name)
    members = bed.members(victim.name)
    step("%s replaced in %.1fs: member %x -> %x" % (target.name, time.monotonic() - t0,
                                                   int(old), int(new)))
    check(new != old, "a new member ID")
    check(sorted(members) == list(NAMES), "three members: %s" % sorted(members))
    check(all(m["ID"] != old for m in members.values()), "the old member is gone")
    check(not any(m.get("isLearner") for m in members.values()), "all voters again")
    # the agent's record (pacemaker-execd logs its stderr) ...
    for pattern in (r"start: remove-dead-member",
                    r"removed member %s \(%x" % (target.name, int(old)),
                    r"added member %s \(%x\) at .* as a learner" % (target.name, int(new)),
                    r"member %s \(%x\) promoted from learner" % (target.name, int(new))):
        check(bed.agent_lines(target.name, pattern),
              "agent log on %s: %s" % (target.name, pattern))
    # ... and etcd's own (every member applies the configuration changes)
    log = bed.etcd_log(victim.name)
    for pattern in (r"removed member %x " % int(old), r"learners=\(%d\)" % int(new),
                    r"promote member %x " % int(new)):
        check(re.search(pattern, log), "etcd's log on %s: %s" % (victim.name, pattern))
    check(bed.read(target.name, "/cpha/before") == "kept", "the old write on the new member")


def reload_map(bed):
    step("pcs resource update etcd node_map=...: a reload, no etcd restarted")
    cl = bed.cl

    def pids():
        out = {}
        for n in NAMES:
            with open(cl.node(n).path("/run/cpha/etcd-etcd.pid")) as f:
                out[n] = int(f.read())
        return out
    before = pids()
    seen = {n: len(bed.agent_lines(n, r"reload: etcd's command line is unchanged"))
            for n in NAMES}
    bed.pcs("resource", "update", "etcd", "node_map=" + NODE_MAP.replace(" ", "; "))
    cphatest.wait_until(lambda: all(len(bed.agent_lines(n, r"reload: etcd's command line is "
                                                          r"unchanged")) > seen[n]
                                    for n in NAMES), 60, 0.5, "a reload on every node")
    check(pids() == before, "the same etcd processes: %s -> %s" % (before, pids()))
    check(bed.running("etcd") == set(NAMES), "etcd still Started everywhere")
    check(not [f for f in pcmk3.failures(bed.xml()) if f.get("op_key", "").startswith("etcd_")],
          "no etcd failure: %s" % pcmk3.failures(bed.xml()))


def refuse_even(bed):
    step("a new clone with clone-max=4 is refused")
    bed.pcs("resource", "create", "etcd4", "ocf:cpha:etcd",
            *etcd_params(bed, data_dir="/var/lib/etcd/etcd4", client_port="12379",
                         peer_port="12380"),
            "op", "monitor", "interval=5s", "timeout=30s",
            "clone", "interleave=true", "notify=true", "clone-max=4", "clone-node-max=1")

    def refused():
        for f in pcmk3.failures(bed.xml()):
            if f.get("op_key", "").startswith("etcd4_start") and f.get("exitcode") == "1":
                return f
        return None
    f = cphatest.wait_until(refused, 60, 0.5, "etcd4's start to fail with OCF_ERR_GENERIC")
    reason = f.get("exitreason", "")
    step("etcd4 on %s: %s (%s): %s" % (f.get("node"), f.get("exitstatus"), f.get("exitcode"),
                                        reason))
    check(re.search(r"^even etcd size 4 refused: set clone-max to 3 or 5; no new cluster "
                    r"bootstrapped", reason), "the exit reason explains: %r" % reason)
    time.sleep(2)
    check(not bed.running("etcd4"), "nothing of etcd4 runs: %s" % bed.running("etcd4"))
    bed.pcs("resource", "delete", "etcd4")
    bed.pcs("resource", "cleanup", "etcd4", check_rc=False)
    check(bed.running("etcd") == set(NAMES), "the real etcd clone is untouched")


def run(lab, stage):
    bed = Bed(lab, stage)
    step("corosync + pacemakerd on n1-n3 (fencing on)")
    t0 = time.monotonic()
    try:
        bed.cl.start(timeout=60)
    except Exception:
        for n in bed.cl.nodes:
            print(n.log_tail(30), file=sys.stderr)
        raise
    step("cluster online with a DC after %.1fs" % (time.monotonic() - t0))
    r = bed.cl.nodes[0].run(["ls", "/usr/lib/ocf/resource.d/cpha", "/usr/sbin/" +
                             pcmk3.FENCE_AGENT])
    check("etcd" in r.stdout.split(), "agents visible in the node: %s" % r.stdout)
    check(not os.path.exists(os.path.join(ocf.RA_DIR, "cpha")), "the host is untouched")
    check(not os.path.exists("/usr/sbin/" + pcmk3.FENCE_AGENT), "the host's /usr/sbin too")

    try:
        create_control_plane(bed)
        etcd.kv_put(bed.host("n1"), bed.url("n1"), "/cpha/before", "kept", bed.etls)
        victim = failover(bed, bed.pki.ca_cert)
        replace(bed, victim)
        reload_map(bed)
        refuse_even(bed)
        for n in NAMES:
            check(bed.read(n, "/cpha/before") == "kept", "the first write, read on %s" % n)
        check(bed.running("kcm") and bed.running("scheduler"), "controllers still run")
        step("fence events: %s" % ["%s %s" % (a, n) for _, a, n in bed.cl.fence_events()])
    except BaseException:
        try:
            node = bed.cl.any_up()
            print(node.run(["crm_mon", "-1", "-r", "-f"], check=False).stdout, file=sys.stderr)
            print(node.log_tail(80), file=sys.stderr)
        except Exception as e:  # diagnostics only
            print("no diagnostics: %s" % e, file=sys.stderr)
        raise


def main():
    ocf.require(tools=("corosync", "pacemakerd", "pcs", "crm_mon", "corosync-keygen",
                       "corosync-cmapctl", "etcd", "nsenter", "unshare"))
    if not os.access(os.path.join(ocf.agent_dir(), "etcd"), os.X_OK):
        print("SKIP: %s not built" % os.path.join(ocf.agent_dir(), "etcd"), flush=True)
        return cphatest.SKIP
    return ocf.run_staged("pacemaker-cluster", run, stage_with_etcd())


if __name__ == "__main__":
    sys.exit(main())
