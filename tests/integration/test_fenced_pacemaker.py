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
    agent_timeout 30s
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
    n3.boot()
    # as systemd orders it (After=corosync.service): corosync first
    util.wait_until(lambda: n3.cmap("runtime.votequorum.this_node_id") is not None, 30, 0.2,
                    "corosync on n3")
    start_fenced(n3)
    util.wait_until(lambda: all(domain_ok(n, NAMES) for n in cl.nodes), 90, 0.5,
                    "n3 back in the fence domain")
    fail_and_check(cl, n2, n1, [n3])


def main():
    cphatest.require_root(tools=("corosync", "pacemakerd", "pcs", "crm_mon", "nsenter",
                                 "unshare", "corosync-keygen"))
    if not os.access(fencedlab.FENCED, os.X_OK):
        return util.skip("%s not built (set CPHA_BUILD_DIR)" % fencedlab.FENCED)
    return cphatest.main("fenced-pacemaker", run, dump_lines=60)


if __name__ == "__main__":
    sys.exit(main())
