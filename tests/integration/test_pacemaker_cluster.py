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
  - the kube-apiserver clone (the lab's simulator stand-in) is ready on all
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

import cphatest  # noqa: E402
from cphatest import etcd, ocf, pcmk3, pcmk_cp, step  # noqa: E402
from cphatest.pcmk_cp import (NAMES, NODE_MAP, Bed, create_control_plane,  # noqa: E402
                              etcd_params)
from cphatest.util import check  # noqa: E402

FAILOVER_BOUND = 45.0  # seconds from the failure to the controllers running elsewhere
ETCD_RECOVERY_BOUND = 20.0  # seconds from the fence to /health true on both survivors


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
    t0 = time.monotonic()
    pcmk_cp.start(bed)
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
        pcmk_cp.diagnostics(bed)
        raise


def main():
    return pcmk_cp.main("pacemaker-cluster", run, ("corosync", "pacemakerd", "pcs", "crm_mon",
                                                   "corosync-keygen", "corosync-cmapctl", "etcd",
                                                   "nsenter", "unshare"))


if __name__ == "__main__":
    sys.exit(main())
