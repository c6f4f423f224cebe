#!/usr/bin/env python3
"""fenced's power-check reads the devices in parallel and answers as soon
as the answer is certain, on a real two-node corosync cluster.

Two lab hosts p1, p2 run corosync (two_node) and fenced; a third runs one
ipmi_sim BMC per node, reached with the real fence_ipmilan (both hosts
are on: their BMCs read power on). fence_cpha_slow is a fence agent (any
executable that speaks fence-agents' stdin protocol) that answers the
status after a delay, or hangs, and writes its PID to a file.

  1. p2's level 1 is fence_cpha_slow (off after 6 s) and p2's BMC: p1's
     `fenced power-check p2` answers "on" (the BMC) in well under the 6 s
     the slow device takes, and the slow agent is killed at once.
  2. p1's level 1 is fence_cpha_slow hanging; level 2 is p1's BMC.
     power_check_timeout is 1500ms: p2's `fenced power-check p1` answers
     "on" from level 2 right at the timeout (level 1 could not answer),
     not a BMC read later: p1's BMC was read while level 1 still hung.
     A second power-check p1 while the first runs gets the same answer:
     one answer in the history, at the first one's timeout.
Exit 0 pass, 77 skip, 1 fail.
    sudo python3 tests/integration/test_fenced_power.py
"""

import os
import sys
import time

sys.dont_write_bytecode = True

from cphatest import fencedlab, step  # noqa: E402

NAMES = ("p1", "p2")
IPS = ("198.18.0.31", "198.18.0.32")
BMC_IP = "198.18.0.40"
TIMEOUT = 1.5  # power_check_timeout
SLOW = 6  # the slow device's delay

# status: "answer" on|off|hang after "delay" seconds; its PID in "pidfile"
SLOW_AGENT = """#!/bin/sh
for a in "$@"; do
    case $a in metadata)
        cat <<'EOF'
<?xml version="1.0" ?>
<resource-agent name="fence_cpha_slow" shortdesc="a slow fence agent for tests">
<parameters>
  <parameter name="action" unique="0" required="0">
    <content type="string" default="status"/></parameter>
  <parameter name="answer" unique="0" required="0">
    <content type="string" default="on"/></parameter>
  <parameter name="delay" unique="0" required="0">
    <content type="second" default="0"/></parameter>
  <parameter name="pidfile" unique="0" required="0">
    <content type="string"/></parameter>
</parameters>
<actions><action name="status"/><action name="metadata"/></actions>
</resource-agent>
EOF
        exit 0 ;;
    esac
done
while IFS='=' read -r k v; do
    case $k in action) act=$v;; answer) ans=$v;; delay) d=$v;; pidfile) pf=$v;; esac
done
[ -n "$pf" ] && echo $$ > "$pf"
[ "$act" = status ] || exit 1
[ "$ans" = hang ] && exec sleep 600
sleep "${d:-0}"
case $ans in on) exit 0;; off) exit 2;; esac
exit 1
"""


def check(cond, msg):
    if not cond:
        raise AssertionError(msg)


def fenced_conf(cl, pidfile):
    out = ["""global_defs {
    post_join_delay 20s
    post_fail_delay 0s
    fence_action off
    agent_timeout 20s
    power_check_timeout %dms
    retry_interval 3s
}
fence_device slow {
    agent fence_cpha_slow
}
""" % int(TIMEOUT * 1000)]
    for n in cl.nodes:
        out.append(cl.bmc_device(n))
    out.append("""fence_node p1 {
    level 1 {
        slow answer=hang pidfile=%(pid)s-p1
    }
    level 2 {
        bmc-p1
    }
}
fence_node p2 {
    level 1 {
        slow answer=off delay=%(slow)d pidfile=%(pid)s-p2
        bmc-p2
    }
}
""" % {"pid": pidfile, "slow": SLOW})
    return "".join(out)


def ask(asker, node):
    r = asker.run([fencedlab.FENCED, "-f", asker.fenced_conf, "power-check", node],
                  check=False, timeout=15)
    check(r.returncode == 0 and "ok: reading the power state of %s" % node in r.stdout,
          "power-check %s: %r %r" % (node, r.stdout, r.stderr))


def power_checks(asker, node):
    """How many power answers about node asker's history holds."""
    s = asker.show() or {}
    return len([h for h in s.get("history", []) if h.get("node") == node
                and h.get("event") == "power"])


def power_check(asker, node, again_after=None):
    """power-check node from asker (and once more after again_after s, while
    the first runs); (seconds until the answer, the node's entry in asker's
    show json, when it was asked)."""
    t0 = time.time()
    ask(asker, node)
    if again_after is not None:
        time.sleep(again_after)
        s = asker.show() or {}
        e = next((n for n in s.get("nodes", []) if n.get("name") == node), {})
        check(e.get("power") == "checking", "not checking %.1f s after: %r" % (again_after, e))
        ask(asker, node)  # attaches to the running check
    entry = {}
    while time.time() - t0 < 15:
        s = asker.show() or {}
        entry = next((n for n in s.get("nodes", []) if n.get("name") == node), {})
        if entry.get("power") not in (None, "checking"):
            return time.time() - t0, entry, t0
        time.sleep(0.05)
    raise AssertionError("no answer to power-check %s in 15 s: %r" % (node, entry))


def gone(node, pidfile):
    """The agent whose PID is in pidfile no longer runs (in node's host)."""
    with open(pidfile) as f:
        pid = f.read().strip()
    check(pid.isdigit(), "no PID in %s" % pidfile)
    r = node.run(["sh", "-c", "kill -0 %s 2>/dev/null" % pid], check=False)
    return r.returncode != 0


def run(lab):
    cl = fencedlab.build(lab, NAMES, IPS, BMC_IP, two_node=True)
    try:
        agent = os.path.join(cl.sbin, "fence_cpha_slow")
        with open(agent, "w") as f:
            f.write(SLOW_AGENT)
        os.chmod(agent, 0o755)
        pidfile = os.path.join(cl.dir, "slow.pid")
        cl.write_fenced_conf(fenced_conf(cl, pidfile))
        step("corosync (two_node) and fenced on p1 and p2, a BMC each")
        cl.start()
        p1, p2 = cl.nodes

        step("1. a slow device and a BMC in one level: the BMC's on answers at once")
        t, e, t0 = power_check(p1, "p2")
        print("  power-check p2: %s (%s) after %.2f s" % (e.get("power"),
                                                         e.get("power_said"), t))
        check(e.get("power") == "on", "p2's power per p1: %r" % e)
        check(e.get("power_said") == "bmc-p2: on", "what said so: %r" % e)
        check(t < SLOW / 2, "the answer took %.2f s: it waited for the slow device" % t)
        check(gone(p1, pidfile + "-p2"), "the slow agent still runs after the answer")
        reads = [w for w, ev in cl.bmc_events(p2, t0) if ev.startswith("get power")]
        check(reads, "p2's BMC was not read")

        step("2. level 1 hangs: level 2 (read meanwhile) answers at power_check_timeout;"
             " a second power-check meanwhile waits for the same answer")
        before = power_checks(p2, "p1")
        t, e, t0 = power_check(p2, "p1", again_after=0.5)
        print("  power-check p1: %s (%s) after %.2f s" % (e.get("power"),
                                                         e.get("power_said"), t))
        check(e.get("power") == "on", "p1's power per p2: %r" % e)
        check(e.get("power_said") == "bmc-p1: on", "what said so: %r" % e)
        check(TIMEOUT - 0.1 <= t < TIMEOUT + 1.5,
              "the answer took %.2f s, power_check_timeout is %.1f s" % (t, TIMEOUT))
        check(gone(p2, pidfile + "-p1"), "the hanging agent still runs")
        time.sleep(TIMEOUT + 0.5)  # a second check would answer by now
        check(power_checks(p2, "p1") == before + 1,
              "the second power-check was not the first one's: %d answers"
              % (power_checks(p2, "p1") - before))
        reads = [w for w, ev in cl.bmc_events(p1, t0) if ev.startswith("get power")]
        check(reads and reads[0] < t0 + TIMEOUT,
              "p1's BMC was not read while level 1 hung: %r" % reads)
    finally:
        cl.close()


def main():
    return fencedlab.main("fenced-power", run, dump_lines=60)


if __name__ == "__main__":
    sys.exit(main())
