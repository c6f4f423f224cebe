#!/usr/bin/env python3
"""fenced hands fencing to pacemaker-fenced where Pacemaker runs.

The project's three-node corosync + Pacemaker cluster (cphatest.pcmk3,
fencing on through fence_cpha_lab), with fenced on every node set to
`fence_via pacemaker`. n3's corosync is killed (an unclean failure):
Pacemaker's DC and fenced on n1 (the lowest id) both want n3 fenced; one
fencer acts: the test agent's log shows exactly one power-off of n3, both
surviving fenced record "fenced by n1 (pacemaker)" with the attempt, and
no fenced ran an agent itself. Then n3 boots again and rejoins, and a
second failure (n2) is handed off the same way.
Last, n2 and n3 fail at once: n1 alone has no quorum, so nobody fences.
The administrator confirms n3 down to Pacemaker (`stonith_admin
--confirm`, as Pacemaker's documentation says), and n2 comes back: quorum
again, and n1's fenced finds the confirmation in pacemaker-fenced's
history and fences nobody (no power-off of n3 in the agent's log).
Exit 0 pass, 77 skip, 1 fail.
    sudo python3 tests/integration/test_fenced_pacemaker.py
"""

import json
import os
import sys
import time

sys.dont_write_bytecode = True

import cphatest  # noqa: E402
from cphatest import fencedlab, pcmk3, step, util  # noqa: E402

NAMES = ("n1", "n2", "n3")
IPS = ("198.18.0.11", "198.18.0.12", "198.18.0.13")
CONF = """global_defs {
    post_join_delay 30s
    fence_action reboot
    fence_via pacemaker
    agent_timeout 10s
}
"""


def check(cond, msg):
    if not cond:
        raise AssertionError(msg)


def start_fenced(node):
    # with the capabilities of its systemd unit only (fencedlab.unit_caps)
    node.fenced = node.spawn(["setpriv", "--bounding-set", fencedlab.unit_caps(), "--inh-caps",
                              "-all", fencedlab.FENCED, "-f", node.fenced_conf], "fenced")


def show(node):
    r = node.run([fencedlab.FENCED, "-f", node.fenced_conf, "show", "json"], check=False,
                 timeout=15)
    return json.loads(r.stdout) if r.returncode == 0 else None


def history(node, victim, event):
    s = show(node)
    check(s is not None, "fenced show json on %s failed" % node.name)
    return [h for h in s["history"] if h["node"] == victim and h["event"] == event]


def domain_ok(node, members):
    s = show(node)
    return s and s["quorate"] and sorted(s["members"]) == sorted(members)


def fail_and_check(cl, victim, fencer, others):
    before = len(history(fencer, victim.name, "fenced"))
    since = time.time()
    t0 = time.monotonic()
    cl.kill_corosync(victim)
    util.wait_until(lambda: len(history(fencer, victim.name, "fenced")) > before, 90, 0.5,
                    "%s's fenced to record %s fenced" % (fencer.name, victim.name))
    took = time.monotonic() - t0
    h = history(fencer, victim.name, "fenced")[-1]
    check(h["by"] == fencer.name and h["detail"] == "pacemaker",
          "%s fenced by %r (%r), want %s (pacemaker)" % (victim.name, h["by"], h["detail"],
                                                         fencer.name))
    att = history(fencer, victim.name, "attempt")
    check(att and att[-1]["ok"], "no successful hand-off attempt: %r" % att)
    for o in others:
        ho = history(o, victim.name, "fenced")
        check(ho and ho[-1]["by"] == fencer.name, "%s's history disagrees: %r" % (o.name, ho))
    time.sleep(3)  # a second power-off would show by now
    offs = [e for e in cl.fence_events() if e[0] >= since and e[2] == victim.name and
            e[1] in ("off", "reboot")]
    check(len(offs) == 1, "%d power-offs of %s, want 1 (one fencer): %r"
          % (len(offs), victim.name, offs))
    for n in [fencer] + list(others):
        check("fencing %s: level 1, action" % victim.name not in n.fenced.log_text(),
              "%s's fenced ran an agent itself" % n.name)
    print("  %s fenced through pacemaker-fenced, recorded by fenced after %.1f s"
          % (victim.name, took), flush=True)


def rejoin(cl, node, members):
    """node boots again (after its corosync died or it was fenced) and is
    a member of every fence domain of members again."""
    node.boot()
    # as systemd orders it (After=corosync.service): corosync first
    util.wait_until(lambda: node.cmap("runtime.votequorum.this_node_id") is not None, 30, 0.2,
                    "corosync on %s" % node.name)
    start_fenced(node)
    names = [n.name for n in members]
    util.wait_until(lambda: all(domain_ok(n, names) for n in members), 90, 0.5,
                    "%s back in the fence domain" % node.name)


def confirmed_by_hand(cl, n1, n2, n3):
    before = len(history(n1, "n3", "victim"))
    fenced_before = len(history(n1, "n3", "fenced"))
    since = time.time()
    cl.kill_corosync(n2)
    cl.kill_corosync(n3)
    util.wait_until(lambda: len(history(n1, "n3", "victim")) > before, 30, 0.3,
                    "n1's fenced to take n3 as a victim")
    s = show(n1)
    check(s and not s["quorate"], "n1 alone is quorate: %r" % (s,))
    # both really down, as the administrator makes sure before confirming
    cl.power_off(n2, log=False)
    cl.power_off(n3, log=False)
    time.sleep(3)  # no quorum: nobody may fence meanwhile
    r = n1.run(["stonith_admin", "--confirm", "n3"], check=False, timeout=60)
    check(r.returncode == 0, "stonith_admin --confirm n3: exit %d: %s%s"
          % (r.returncode, r.stdout, r.stderr))
    # a repair takes longer than the tolerance fenced gives pacemaker-fenced
    # (agent_timeout): within it, Pacemaker would count the confirmation
    # itself and the test would prove nothing
    time.sleep(12)
    rejoin(cl, n2, (n1, n2))
    util.wait_until(lambda: "n3: pacemaker-fenced's history has it fenced" in
                    n1.fenced.log_text(), 60, 0.5,
                    "n1's fenced to find n3's confirmation in pacemaker-fenced's history")
    util.wait_until(lambda: len(history(n1, "n3", "fenced")) > fenced_before and
                    not show(n1)["pending"], 30, 0.5,
                    "n1's fenced to record n3 fenced, nothing pending")
    time.sleep(5)  # a power-off asked for would show by now
    offs = [e for e in cl.fence_events() if e[0] >= since and e[2] == "n3"]
    check(not offs, "n3, confirmed down by hand, was fenced again: %r" % offs)
    print("  n3 confirmed to Pacemaker by hand while n1 had no quorum: with quorum back, "
          "fenced counted it and nobody fenced n3", flush=True)


def run(lab):
    hosts = [lab.add_host(n, v4=ip + "/24") for n, ip in zip(NAMES, IPS)]
    cl = pcmk3.Cluster(lab, hosts, list(NAMES))
    for n in cl.nodes:
        n.fenced_conf = os.path.join(n.dir, "fenced.conf")
        os.makedirs(n.dir, exist_ok=True)
        with open(n.fenced_conf, "w") as f:
            f.write(CONF)
    step("three Pacemaker nodes with fencing, fenced (fence_via pacemaker) on each")
    cl.start()
    cl.pcs(cl.nodes[0], "stonith", "create", "fence-lab", pcmk3.FENCE_AGENT,
           "hosts_file=" + cl.hosts_file, "log_file=" + cl.fence_log,
           "pcmk_host_list=" + " ".join(NAMES), "op", "monitor", "interval=60s")
    for n in cl.nodes:
        start_fenced(n)
    util.wait_until(lambda: all(domain_ok(n, NAMES) for n in cl.nodes), 60, 0.5,
                    "every fenced quorate with every node a member")
    n1, n2, n3 = cl.nodes
    step("n3's corosync dies: one fencer, and fenced records it")
    fail_and_check(cl, n3, n1, [n2])
    step("n3 boots again and rejoins; then n2 fails")
    cl.wait_left(n3)
    time.sleep(2)
    rejoin(cl, n3, cl.nodes)
    fail_and_check(cl, n2, n1, [n3])
    step("n2 and n3 fail at once: no quorum; n3 confirmed down to Pacemaker by hand")
    cl.wait_left(n2)
    time.sleep(2)
    rejoin(cl, n2, cl.nodes)
    confirmed_by_hand(cl, n1, n2, n3)


def main():
    cphatest.require_root(tools=("corosync", "pacemakerd", "pcs", "crm_mon", "nsenter",
                                 "unshare", "corosync-keygen"))
    if not os.access(fencedlab.FENCED, os.X_OK):
        return util.skip("%s not built (set CPHA_BUILD_DIR)" % fencedlab.FENCED)
    return cphatest.main("fenced-pacemaker", run, dump_lines=60)


if __name__ == "__main__":
    sys.exit(main())
