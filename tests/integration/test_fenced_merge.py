#!/usr/bin/env python3
"""A partition that heals before anyone is fenced: the minority does not
fence the majority after the merge.

Three lab hosts n1-n3 run corosync (knet, token 1000 ms) and fenced, each
node's BMC an ipmi_sim on a fourth host (cphatest.fencedlab). n3's
fence_node has `delay 20s`, so the majority waits before it fences n3.

  1. n3 is cut off the network (its link down) for 6 s, longer than
     corosync's token and consensus: n3 loses quorum and counts n1 and n2
     as failed; n1 and n2 keep quorum and count n3 as failed, due in 20 s.
  2. The link comes back and corosync merges the partitions. n3 is quorate
     again only because n1 and n2 are back: it must not fence them (they
     were the quorate side). Its fenced says they merged back from the
     quorate side, and n1's and n2's BMCs are never told to power off.
  3. When n3's turn comes (its delay ends), it is back in corosync's
     membership and the fence domain: n1, the member to fence it, averts
     the fence (RHCS's rule) and says so, n2 drops it too, and n3's BMC is
     never told to power off. It was away without quorum: it fenced
     nobody and took nothing over.
Before the first fix, n3 fenced n1 and n2 the moment the merge made it
quorate: the whole cluster but the cut node went down. Before the second,
n1 powered off n3, back for some 10 s, when its delay ended.
Exit 0 pass, 77 skip, 1 fail.
    sudo python3 tests/integration/test_fenced_merge.py
"""

import sys
import time

sys.dont_write_bytecode = True

from cphatest import fencedlab, step, util  # noqa: E402

NAMES = ("n1", "n2", "n3")
IPS = ("198.18.0.111", "198.18.0.112", "198.18.0.113")
BMC_IP = "198.18.0.120"
N3_DELAY = 20
CUT_S = 6


def check(cond, msg):
    if not cond:
        raise AssertionError(msg)


def run(lab):
    cl = fencedlab.build(lab, NAMES, IPS, BMC_IP)
    try:
        cl.write_fenced_conf(cl.bmc_conf("off", "8s", lambda n: "    delay %ds\n" % N3_DELAY
                                         if n.name == "n3" else ""))
        step("three nodes, corosync and fenced, quorate")
        cl.start()
        n1, n2, n3 = cl.nodes
        step("1. n3 cut off for %d s" % CUT_S)
        t0 = time.time()
        mark = len(n3.fenced_log())
        lab.link_down(n3.host)
        try:
            util.wait_until(lambda: "NOT quorate" in n3.fenced_log()[mark:], 15, 0.2,
                            "n3 to lose quorum")
            util.wait_until(lambda: n3.name not in (n1.show() or {}).get("members", [n3.name]),
                            15, 0.2, "n1 to see n3 leave")
            time.sleep(max(0.0, t0 + CUT_S - time.time()))
        finally:
            lab.link_up(n3.host)
        log = n3.fenced_log()[mark:]
        check("n1 failed" in log and "n2 failed" in log,
              "n3 did not count n1 and n2 failed:\n%s" % log[-2000:])
        step("2. healed: n3 quorate again with n1 and n2 back; it fences neither")
        util.wait_until(lambda: all(n3.name in (n.show() or {}).get("members", [])
                                    for n in (n1, n2)) or n3.name in
                        [h["node"] for h in n1.history(n3.name, "fenced")],
                        30, 0.3, "the merge")
        util.wait_until(lambda: "merged back from the quorate side" in n3.fenced_log()[mark:]
                        or cl.power_offs(n1, t0) or cl.power_offs(n2, t0), 20, 0.3,
                        "n3's fenced to settle n1 and n2")
        time.sleep(3)  # a fence of n1 or n2 would have been asked for by now
        check(not cl.power_offs(n1, t0) and not cl.power_offs(n2, t0),
              "the minority fenced the majority: n1 %r, n2 %r\n%s" % (
                  cl.power_offs(n1, t0), cl.power_offs(n2, t0), n3.fenced_log()[mark:][-3000:]))
        log = n3.fenced_log()[mark:]
        for n in (n1, n2):
            check("%s merged back from the quorate side" % n.name in log,
                  "n3's log does not say %s merged back:\n%s" % (n.name, log[-2000:]))
        check(n1.up() and n2.up(), "n1 or n2 is down after the merge")
        print("  n3 fenced nobody; n1's and n2's BMCs untouched", flush=True)
        step("3. n3's turn after its %d s delay: back in both memberships, the fence "
             "is averted" % N3_DELAY)
        for n in (n1, n2):
            util.wait_until(lambda: [h for h in n.history(n3.name, "skipped")
                                     if "averted" in h["detail"]
                                     or "spared by" in h["detail"]],
                            N3_DELAY + 30, 0.3, "%s to drop n3 as a victim" % n.name)
        averted = [h for h in n1.history(n3.name, "skipped") if "averted" in h["detail"]]
        check(averted, "n1, the member to fence n3, did not avert it: %r"
              % n1.history(n3.name, "skipped"))
        waited = time.time() - t0
        check(waited >= N3_DELAY, "n3 dropped %.1f s after the cut, before its delay" % waited)
        time.sleep(3)  # a fence asked for at the turn would show by now
        check(not cl.power_offs(n3, t0), "n3 was fenced though back before its turn: %r\n%s"
              % (cl.bmc_events(n3, t0), n1.fenced_log()[-3000:]))
        check(not n1.history(n3.name, "fenced") and not n2.history(n3.name, "fenced"),
              "a member recorded n3 fenced")
        check(all(n.up() for n in (n1, n2, n3)), "a node is down after the merge")
        check(all(not (n.show() or {}).get("pending") for n in (n1, n2, n3)),
              "a fence is still pending: %r" % [(n.show() or {}).get("pending")
                                                for n in (n1, n2, n3)])
        print("  n1 averted n3's fence %.1f s after the cut; no BMC told to act"
              % waited, flush=True)
    finally:
        cl.close()


def main():
    return fencedlab.main("fenced-merge", run, dump_lines=80)


if __name__ == "__main__":
    sys.exit(main())
