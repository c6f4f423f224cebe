#!/usr/bin/env python3
"""fence_action reboot: the fence counts as done when the node is off, and
the node is powered on afterwards, on a real two-node corosync cluster.

Two lab hosts r1, r2 run corosync (two_node) and fenced; a third runs one
ipmi_sim BMC per node, reached with the real fence_ipmilan (whose reboot
alone would power the node off, wait power_wait (2 s), read the status,
power it on, wait and read again before answering).

Three times: r2 crashes (its processes die, its BMC still says on). r1
fences it through its BMC: the BMC sees power off, then power on. r1's
history records r2 fenced before the BMC was told to power it on (the
fence is done at off, not after the on), then a successful power-on. r2
boots and rejoins the fence domain; the next round starts from there.
Exit 0 pass, 77 skip, 1 fail.
    sudo python3 tests/integration/test_fenced_reboot.py
"""

import calendar
import sys
import time

sys.dont_write_bytecode = True

from cphatest import fencedlab, step, util  # noqa: E402

NAMES = ("r1", "r2")
IPS = ("198.18.0.33", "198.18.0.34")
BMC_IP = "198.18.0.40"
ROUNDS = 3


def check(cond, msg):
    if not cond:
        raise AssertionError(msg)


def fenced_conf(cl):
    return cl.bmc_conf("reboot", "30s")


def wall(iso):
    """fenced's history time (2026-11-28T21:40:01.123Z) as seconds."""
    base, ms = iso.rstrip("Z").split(".")
    return calendar.timegm(time.strptime(base, "%Y-%m-%dT%H:%M:%S")) + int(ms) / 1000.0


def history(node, victim, event):
    s = node.show() or {}
    return [h for h in s.get("history", []) if h.get("node") == victim and
            h.get("event") == event]


def one_round(cl, r1, r2, k):
    fenced_before = len(history(r1, "r2", "fenced"))
    on_before = len(history(r1, "r2", "power-on"))
    t0 = time.time()
    cl.power_off(r2, log=False)  # a crash: the BMC still says on
    check(not r2.pids(), "processes of r2 left after the crash")
    util.wait_until(lambda: len(history(r1, "r2", "power-on")) > on_before, 40, 0.2,
                    "r1 to fence r2 and power it on again (round %d)" % k)
    fenced = history(r1, "r2", "fenced")
    check(len(fenced) == fenced_before + 1, "round %d: r2 fenced %d times, want 1: %r"
          % (k, len(fenced) - fenced_before, fenced))
    on = history(r1, "r2", "power-on")[-1]
    check(on["ok"], "round %d: powering r2 on failed: %r" % (k, on))
    ev = cl.bmc_events(r2, t0)
    offs = [t for t, e in ev if e == "set power 0"]
    ons = [t for t, e in ev if e == "set power 1"]
    check(len(offs) == 1 and len(ons) == 1 and offs[0] < ons[0],
          "round %d: r2's BMC saw %r, want one off then one on" % (k, ev))
    t_fenced = wall(fenced[-1]["time"])
    # history times are milliseconds: "before" with that much slack
    check(offs[0] - 0.002 <= t_fenced <= ons[0] + 0.001,
          "round %d: r2 counted fenced at %.3f, its BMC off at %.3f and on at %.3f: the "
          "fence must be done between the two" % (k, t_fenced, offs[0], ons[0]))
    print("  round %d: off at +%.2f s, fenced at +%.2f s, on at +%.2f s"
          % (k, offs[0] - t0, t_fenced - t0, ons[0] - t0), flush=True)
    r2.boot()
    util.wait_until(lambda: all(cl.domain_ok(n) for n in cl.nodes), 60, 0.5,
                    "r2 back in every member's fence domain (round %d)" % k)


def run(lab):
    cl = fencedlab.build(lab, NAMES, IPS, BMC_IP, two_node=True)
    try:
        cl.write_fenced_conf(fenced_conf(cl))
        step("corosync (two_node) and fenced on r1 and r2, a BMC each")
        cl.start()
        r1, r2 = cl.nodes
        for k in range(1, ROUNDS + 1):
            step("round %d: r2 crashes; r1 fences it (off), then powers it on" % k)
            one_round(cl, r1, r2, k)
    finally:
        cl.close()


def main():
    return fencedlab.main("fenced-reboot", run, dump_lines=60)


if __name__ == "__main__":
    sys.exit(main())
