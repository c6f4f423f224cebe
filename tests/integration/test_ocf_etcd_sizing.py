#!/usr/bin/env python3
"""An even etcd size on a running three-node Pacemaker cluster stops nothing.

The same cluster as test_pacemaker_cluster (three lab hosts n1-n3, corosync
+ Pacemaker, fencing through fence_cpha_lab, the etcd clone with TLS, the
kube-apiserver clone and kube-controller-manager / kube-scheduler after it,
built with cphatest.pcmk_cp's create_control_plane()). None of these changes may take the
control plane down: a start of a member that returned OCF_ERR_CONFIGURED,
which Pacemaker treats as fatal for the clone, would stop etcd, the
apiserver and the controllers on every node.
  - `pcs resource meta etcd-clone clone-max=4`, then `crm_resource --restart`
    of n2's member: n2 restarts with its data (the same member), every
    member keeps running, n2's monitor is OCF_DEGRADED with the fix first in
    its exit reason, and the agent's log says it;
  - `pcs resource update etcd node_map=<4 entries>` (a reload, m4 exists
    nowhere), then n3's etcd is killed (SIGKILL by PID): Pacemaker recovers
    it with its data, every member keeps running, the monitors say why;
  - after each change, for 20 s and more (a check every 2 s): etcd Started
    and not failed on n1-n3 and no instance of it failed or stopped on a
    node, /health true on all three, three members in etcd, the apiserver
    on all three and the controllers running, no etcd result but the
    expected ones (190 from monitors, the kill's 7);
  - fixed back (clone-max=3, three entries, cleanup): the monitors are OK.
Exit 0 pass, 77 skip, 1 fail.
    sudo python3 tests/integration/test_ocf_etcd_sizing.py
"""

import os
import re
import signal
import sys
import time

sys.dont_write_bytecode = True

import cphatest  # noqa: E402
from cphatest import etcd, ocf, pcmk3, pcmk_cp, step  # noqa: E402
from cphatest.pcmk_cp import IPS, NAMES, NODE_MAP, Bed, create_control_plane  # noqa: E402
from cphatest.util import check  # noqa: E402

HOLD = 20.0  # seconds every member must keep running after a change
EVERY = 2.0  # seconds between the checks of that period
FOUR = NODE_MAP + " n4=198.18.0.14"


def etcd_instances(xml):
    """[(role, failed, [nodes])] of etcd-clone's instances in crm_mon XML."""
    out = []
    for c in xml.iter("clone") if xml is not None else ():
        if c.get("id") != "etcd-clone":
            continue
        for r in c.iter("resource"):
            out.append((r.get("role"), r.get("failed"),
                        [n.get("name") for n in r.iter("node")]))
    return out


def agent_said(bed, name, text):
    """Lines the etcd agent itself wrote on name (not the CIB's copies of
    its exit reasons) at warning level that begin with text."""
    return bed.agent_lines(name, r"etcd\(etcd\)\[\d+\]: warning: (reload: )?" + re.escape(text))


def etcd_failures(bed):
    return [f for f in pcmk3.failures(bed.xml()) if f.get("op_key", "").startswith("etcd_")]


def pid_of(bed, name, rid):
    try:
        with open(bed.cl.node(name).path("/run/cpha/%s.pid" % rid)) as f:
            return int(f.read())
    except (OSError, ValueError):
        return None


def settled(bed):
    """Wait until the dependents of a restarted member run again."""
    cphatest.wait_until(lambda: bed.running("apiserver") == set(NAMES)
                        and len(bed.running("kcm")) == 1 and len(bed.running("scheduler")) == 1,
                        60, 0.5, "apiserver on n1-n3, kcm and scheduler running")


class Watch:
    """What must not change while an even size is in force."""

    def __init__(self, bed, restarted=()):
        self.bed = bed
        self.api = {n: pid_of(bed, n, "kube-apiserver-apiserver") for n in NAMES
                    if n not in restarted}
        self.etcd = {n: pid_of(bed, n, "etcd-etcd") for n in NAMES if n not in restarted}

    def once(self, allowed):
        """One check; allowed(f) says which etcd results are expected."""
        bed = self.bed
        xml = bed.xml()
        check(xml is not None, "crm_mon answers")
        inst = etcd_instances(xml)
        on_nodes = [i for i in inst if i[2]]
        check(sorted(n for i in on_nodes for n in i[2]) == list(NAMES)
              and all(role == "Started" and failed != "true" for role, failed, _ in on_nodes),
              "etcd Started and not failed on n1-n3, nothing stopped on a node: %s" % inst)
        check(bed.running("etcd") == set(NAMES), "etcd on %s" % bed.running("etcd"))
        for n in NAMES:
            # a member says false while its cluster elects a leader (a
            # heartbeat late on a loaded machine): healthy within 3 s, the
            # same process throughout (below), is what the agent must keep
            for _ in range(4):
                ok, detail = etcd.health(bed.host(n), bed.url(n), bed.etls, timeout=2)
                if ok:
                    break
                time.sleep(1)
            check(ok, "etcd on %s healthy within 3 s: %s" % (n, detail))
        check(sorted(bed.members("n1")) == list(NAMES), "three members in etcd")
        check(bed.running("apiserver") == set(NAMES), "apiserver on n1-n3: %s"
              % bed.running("apiserver"))
        check(len(bed.running("kcm")) == 1 and len(bed.running("scheduler")) == 1,
              "kcm and scheduler run")
        for n, pid in self.api.items():
            check(pid_of(bed, n, "kube-apiserver-apiserver") == pid,
                  "the same apiserver process on %s" % n)
        for n, pid in self.etcd.items():
            check(pid_of(bed, n, "etcd-etcd") == pid, "the same etcd process on %s" % n)
        odd = [f for f in etcd_failures(bed) if not allowed(f)]
        check(not odd, "no unexpected etcd result: %s" % odd)

    def hold(self, what, allowed):
        t0 = time.monotonic()
        n = 0
        while True:
            self.once(allowed)
            n += 1
            if time.monotonic() - t0 >= HOLD and n >= 5:
                break
            time.sleep(EVERY)
        step("%s: every member ran for %.0fs (%d checks): etcd healthy on n1-n3, apiserver, "
             "kcm, scheduler untouched" % (what, time.monotonic() - t0, n))


def degraded(f, pattern):
    """A monitor's OCF_DEGRADED whose reason begins with pattern."""
    return (f.get("task") == "monitor" and f.get("exitcode") == "190"
            and f.get("exitreason", "").startswith(pattern))


def clone_max_4(bed):
    step("pcs resource meta etcd-clone clone-max=4, then crm_resource --restart on n2")
    n2 = bed.cl.node("n2")
    mid = bed.member_id("n2")
    seen = len(bed.agent_lines("n2", r"restart-with-data"))
    bed.pcs("resource", "meta", "etcd-clone", "clone-max=4")
    time.sleep(3)  # a transition for the new instance (it has no node to go to)
    r = n2.run(["crm_resource", "--restart", "--resource", "etcd-clone", "--node", "n2",
                "--timeout", "120s"], check=False, timeout=150)
    check(r.returncode == 0, "crm_resource --restart: %d\n%s%s" % (r.returncode, r.stdout,
                                                                  r.stderr))
    check(len(bed.agent_lines("n2", r"restart-with-data")) > seen,
          "n2's etcd restarted with its data")
    check(bed.member_id("n2") == mid, "n2 is the same member")
    fix = "even etcd size 4 refused: set clone-max to 3 or 5"
    lines = agent_said(bed, "n2", fix + "; member n2 keeps running, none is added")
    check(lines, "the agent's log on n2 says why")
    step("agent on n2: %s" % lines[-1].split("warning: ", 1)[-1].split("\\n")[0][:200])

    def report():
        for f in etcd_failures(bed):
            if f.get("node") == "n2" and degraded(f, fix):
                return f
        return None
    f = cphatest.wait_until(report, 30, 0.5, "n2's monitor to report the even size")
    step("crm_mon: %s on %s: %s (%s): %s" % (f["op_key"], f["node"], f["exitstatus"],
                                            f["exitcode"], f["exitreason"]))
    settled(bed)
    Watch(bed).hold("clone-max=4", lambda f: degraded(f, fix))
    # a recurring monitor keeps the clone-max of its start (docs/pacemaker.md)
    step("monitors reporting clone-max=4: %s" % sorted(
        f.get("node") for f in etcd_failures(bed) if degraded(f, fix)))

    step("clone-max=3 again; pcs resource cleanup refreshes the monitors")
    bed.pcs("resource", "meta", "etcd-clone", "clone-max=3")
    bed.pcs("resource", "cleanup", "etcd-clone")
    cphatest.wait_until(lambda: bed.running("etcd") == set(NAMES) and not etcd_failures(bed),
                        30, 0.5, "etcd clean on n1-n3")
    time.sleep(7)  # a monitor interval and more
    check(not etcd_failures(bed), "no etcd result but OK: %s" % etcd_failures(bed))


def node_map_4(bed):
    step("pcs resource update etcd node_map=<4 entries> (a reload), then kill n3's etcd")
    seen = {n: len(bed.agent_lines(n, r"reload: etcd's command line is unchanged"))
            for n in NAMES}
    pids = {n: pid_of(bed, n, "etcd-etcd") for n in NAMES}
    bed.pcs("resource", "update", "etcd", "node_map=" + FOUR)
    cphatest.wait_until(lambda: all(len(bed.agent_lines(n, r"reload: etcd's command line is "
                                                          r"unchanged")) > seen[n]
                                    for n in NAMES), 60, 0.5, "a reload on every node")
    check({n: pid_of(bed, n, "etcd-etcd") for n in NAMES} == pids,
          "the reload restarted no etcd")
    fix = "even etcd size 4 refused: list 3 or 5 members in node_map"
    check(all(agent_said(bed, n, "reload: " + fix) for n in NAMES),
          "every node's reload says why")

    def reported():
        return {f.get("node") for f in etcd_failures(bed) if degraded(f, fix)} == set(NAMES)
    cphatest.wait_until(reported, 30, 0.5, "every monitor to report the even node_map")
    step("monitors on n1-n3: OCF_DEGRADED: %s" % [f["exitreason"] for f in etcd_failures(bed)
                                                  if f.get("node") == "n1"][0])

    n3 = "n3"
    mid = bed.member_id(n3)
    seen3 = len(bed.agent_lines(n3, r"restart-with-data"))
    os.kill(pids[n3], signal.SIGKILL)
    cphatest.wait_until(lambda: len(bed.agent_lines(n3, r"restart-with-data")) > seen3
                        and bed.running("etcd") == set(NAMES)
                        and pid_of(bed, n3, "etcd-etcd") not in (None, pids[n3]), 60, 0.5,
                        "Pacemaker to recover n3's etcd")
    check(bed.member_id(n3) == mid, "n3 is the same member")
    check(agent_said(bed, n3, fix + "; member n3 keeps running, none is added"),
          "n3's start says why in the agent's log")
    step("n3's etcd killed and recovered with its data under a four-entry node_map")
    settled(bed)

    def allowed(f):
        # the monitors' report, and the kill's "not running" on n3
        return degraded(f, fix) or (f.get("node") == n3 and f.get("task") == "monitor"
                                    and f.get("exitcode") == "7")
    Watch(bed, restarted=(n3,)).hold("node_map of 4", allowed)

    step("node_map of 3 again")
    bed.pcs("resource", "update", "etcd", "node_map=" + NODE_MAP)
    bed.pcs("resource", "cleanup", "etcd-clone")
    cphatest.wait_until(lambda: bed.running("etcd") == set(NAMES) and not etcd_failures(bed),
                        30, 0.5, "etcd clean on n1-n3")
    time.sleep(7)
    check(not etcd_failures(bed), "no etcd result but OK: %s" % etcd_failures(bed))


def run(lab, stage):
    bed = Bed(lab, stage)
    pcmk_cp.start(bed)
    check(not os.path.exists(os.path.join(ocf.RA_DIR, "cpha")), "the host is untouched")
    try:
        create_control_plane(bed)
        check(IPS[0] in bed.url("n1"), "addresses as in test_pacemaker_cluster")
        clone_max_4(bed)
        node_map_4(bed)
        check(bed.running("kcm") and bed.running("scheduler"), "controllers still run")
    except BaseException:
        pcmk_cp.diagnostics(bed)
        raise


def main():
    return pcmk_cp.main("ocf-etcd-sizing", run, ("corosync", "pacemakerd", "pcs", "crm_mon",
                                                 "crm_resource", "corosync-keygen",
                                                 "corosync-cmapctl", "etcd", "nsenter",
                                                 "unshare"))


if __name__ == "__main__":
    sys.exit(main())
