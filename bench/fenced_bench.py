#!/usr/bin/env python3
"""fenced + vipd against Pacemaker: from a host's death to its fencing and
to the VIP on a survivor, same agent, same corosync token, same run.

Two three-node clusters on lab hosts (network namespaces, 198.18.0.0/15),
built one after the other in the same run and used in alternating rounds:

  cpha       corosync + fenced (level 1: fence_cpha_lab) + vipd with
             track_fenced on every node, one VIP (VRRPv3, advert_int 1 s);
  pacemaker  corosync + Pacemaker (stonith fence_cpha_lab, the VIP as
             ocf:heartbeat:IPaddr2), as tests/lib/cphatest/pcmk3 builds it.

Both: knet, token 1000 ms, fence action reboot (the test agent powers the
node off), no fence delay. In each round the node holding the VIP dies (every
process killed by PID, its VIP address removed, as a power loss would), t0
just before. Measured: t_fenced, when the test agent logs the power-off of
that node; t_vip, when the VIP is on another node's interface (polled every
20 ms). The node boots again between rounds.

This is a benchmark: it prints the numbers and the ratios, never fails on
timings.
    sudo bench/fenced-run.sh [--rounds N]
"""

import argparse
import os
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests", "lib"))
sys.path.insert(0, os.path.join(ROOT, "control-plane", "lab"))  # cphatest builds on cphalab

import cphatest  # noqa: E402
from cphatest import fenced_vip, fencedlab, pcmk3, util  # noqa: E402

NAMES = ("n1", "n2", "n3")
IPS = ("198.18.0.11", "198.18.0.12", "198.18.0.13")
VIP_CPHA = "198.18.2.100"
VIP_PCMK = "198.18.0.100"
VIPD = os.path.join(fencedlab.BUILD, "vipd", "vipd")

FENCED_CONF = """global_defs {
    post_join_delay 60s
    post_fail_delay 0s
    fence_action reboot
    agent_timeout 30s
}
fence_device lab {
    agent %(agent)s
    hosts_file %(hosts)s
    log_file %(log)s
}
%(nodes)s"""


def holder(nodes, vip):
    for n in nodes:
        r = subprocess.run(["ip", "-n", n.host.ns, "-o", "-4", "addr", "show", "dev", "eth0"],
                           capture_output=True, text=True, timeout=10)
        if (" %s/" % vip) in r.stdout:
            return n
    return None


def holders(nodes, vip):
    return [n for n in nodes if holder([n], vip)]


def settle(nodes, vip, first=False):
    """Exactly one holder, the same for 3 s; with first, the first node (the
    highest VRRP priority: every round starts alike, no survivor preempts)."""
    def one():
        h = holders(nodes, vip)
        if len(h) != 1 or (first and h != [nodes[0]]):
            return None
        time.sleep(3)
        return h if holders(nodes, vip) == h else None
    return util.wait_until(one, 60, 0.2, "exactly one VIP holder, stable")[0]


def fenced_at(cl, node, since):
    for t, action, target in cl.fence_events():
        if t >= since and target == node.name and action in ("off", "reboot"):
            return t
    return None


def die(cl, node, vip):
    """A power loss: every process, then the VIP address with them."""
    t0 = time.time()
    cl.power_off(node, log=False)  # the fence log is for the fencer's action
    subprocess.run(["ip", "-n", node.host.ns, "addr", "flush", "dev", "eth0", "to",
                    vip + "/32"], capture_output=True, timeout=10)
    return t0


def measure(cl, nodes, victim, vip):
    t0 = die(cl, victim, vip)
    tf = tv = None
    end = time.time() + 90
    while time.time() < end and (tf is None or tv is None):
        if tf is None:
            tf = fenced_at(cl, victim, t0)
        if tv is None:
            h = holder([n for n in nodes if n is not victim], vip)
            if h is not None:
                tv = time.time()
        time.sleep(0.02)
    if tf is None or tv is None:
        raise AssertionError("no fencing or no VIP within 90 s (fenced %s, vip %s)" % (tf, tv))
    return tf - t0, tv - t0


class Cpha:
    name = "cpha (fenced + vipd)"

    def __init__(self, lab):
        names = ["c" + n[1:] for n in NAMES]
        hosts = [lab.add_host(n, v4=ip.replace(".0.", ".2.") + "/24")
                 for n, ip in zip(names, IPS)]
        self.cl = fencedlab.Cluster(lab, hosts, names, None, cluster="bench-cpha",
                                    subdir="cpha")
        agent = os.path.join(self.cl.sbin, pcmk3.FENCE_AGENT)
        nodes = "".join("fence_node %s {\n    level 1 {\n        lab plug=%s\n    }\n}\n"
                        % (n, n) for n in names)
        conf = FENCED_CONF % {"agent": agent, "hosts": self.cl.hosts_file,
                              "log": self.cl.fence_log, "nodes": nodes}
        for n, prio in zip(self.cl.nodes, (150, 120, 100)):
            n._prepare()
            with open(n.fenced_conf, "w") as f:
                f.write(conf)
            n.vipd_conf = os.path.join(n.dir, "vipd.conf")
            with open(n.vipd_conf, "w") as f:
                f.write(fenced_vip.vipd_conf(prio, vip=VIP_CPHA))

    def start(self):
        for n in self.cl.nodes:
            n.boot()
        util.wait_until(lambda: all(self.cl.domain_ok(n) for n in self.cl.nodes), 60, 0.5,
                        "the cpha cluster")
        for n in self.cl.nodes:
            n.vipd = n.spawn([VIPD, "-f", n.vipd_conf], "vipd")
        util.wait_until(lambda: holder(self.cl.nodes, VIP_CPHA), 30, 0.2, "a VIP holder")

    def round(self):
        victim = settle(self.cl.nodes, VIP_CPHA, first=True)
        r = measure(self.cl, self.cl.nodes, victim, VIP_CPHA)
        self.cl.wait_left(victim)
        time.sleep(2)
        victim.boot()
        victim.vipd = victim.spawn([VIPD, "-f", victim.vipd_conf], "vipd")
        util.wait_until(lambda: all(self.cl.domain_ok(n) for n in self.cl.nodes), 60, 0.5,
                        "%s back" % victim.name)
        return r


class Pacemaker:
    name = "Pacemaker 2.1"

    def __init__(self, lab):
        hosts = [lab.add_host(n, v4=ip + "/24") for n, ip in zip(NAMES, IPS)]
        self.cl = pcmk3.Cluster(lab, hosts, list(NAMES), cluster="bench-pcmk", subdir="pcmk-bench")

    def start(self):
        self.cl.start()
        n1 = self.cl.nodes[0]
        self.cl.pcs(n1, "stonith", "create", "fence-lab", pcmk3.FENCE_AGENT,
                    "hosts_file=" + self.cl.hosts_file, "log_file=" + self.cl.fence_log,
                    "pcmk_host_list=" + " ".join(NAMES), "op", "monitor", "interval=60s")
        self.cl.pcs(n1, "resource", "create", "vip", "ocf:heartbeat:IPaddr2", "ip=" + VIP_PCMK,
                    "cidr_netmask=24", "nic=eth0", "op", "monitor", "interval=10s")
        util.wait_until(lambda: holder(self.cl.nodes, VIP_PCMK), 60, 0.2,
                        "the VIP under Pacemaker")

    def round(self):
        victim = settle(self.cl.nodes, VIP_PCMK)
        r = measure(self.cl, self.cl.nodes, victim, VIP_PCMK)
        self.cl.wait_left(victim)
        time.sleep(2)
        victim.boot()
        util.wait_until(lambda: all(self.cl.online(n) for n in self.cl.nodes), 90, 0.5,
                        "%s back online" % victim.name)
        return r


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    cphatest.require_root(tools=("corosync", "pacemakerd", "pcs", "nsenter", "unshare"))
    for b in (fencedlab.FENCED, VIPD):
        if not os.access(b, os.X_OK):
            util.skip("%s not built" % b)
    load = os.getloadavg()[0]
    with cphatest.Lab("fenced-bench") as lab:
        impls = [Cpha(lab), Pacemaker(lab)]
        for im in impls:
            im.start()
        res = {im.name: [] for im in impls}
        for r in range(args.rounds):
            for im in (impls if r % 2 == 0 else impls[::-1]):
                tf, tv = im.round()
                res[im.name].append((tf, tv))
                print("round %d %-22s fenced %.2f s  VIP %.2f s" % (r + 1, im.name, tf, tv),
                      flush=True)
    print("\nload average at start %.2f, %d rounds, medians:" % (load, args.rounds))
    print("| figure | cpha (fenced + vipd) | Pacemaker | cpha/Pacemaker |")
    print("|---|---|---|---|")
    for k, label in ((0, "death to power-off (s)"), (1, "death to VIP on a survivor (s)")):
        a = statistics.median(x[k] for x in res[impls[0].name])
        b = statistics.median(x[k] for x in res[impls[1].name])
        print("| %s | %.2f | %.2f | %.2f |" % (label, a, b, a / b))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        sys.exit(cphatest.interrupted_status())
