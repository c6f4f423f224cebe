#!/usr/bin/env python3
"""A merge that brings quorum back together with the victim: the fence is
averted, not carried out.

Three lab hosts n1-n3 run corosync (knet, token 1000 ms) and fenced, each
node's BMC an ipmi_sim on a fourth host (cphatest.fencedlab). n3's
fence_node has `delay 8s`, and post_fail_delay is 5 s (`cpha render` writes
1 s). The links come back together, but corosync may merge two of the
nodes seconds before the third (knet finds each link up on its own): the
pair, quorate again, waits each victim's delay again from then, and the
third, never cut off, follows within it.

  1. n3 is cut off: n1 and n2 keep quorum without it, so n3 is theirs to
     fence once its delay ends (n1 fences it, the lowest id).
  2. Before that, n2 is cut off too: n1, n2 and n3 are each alone and none
     has quorum. n3's turn comes while nobody may fence.
  3. Both links come back at once and corosync merges the three. The same
     membership change gives n1 its quorum back and n3 its place in
     corosync's membership and the fence domain: n1 averts n3's fence
     (as in the hour-long soak, where a master came back this way), and no
     BMC is told to power off.
Before the fixes fenced learnt the quorum of a change before the change
itself: a node quorate with n3 still counted away fenced it at the merge
(n2, in 1 run in 3 without either fix); and a pair that merged first
fenced n1 at once, its turn long past (3 of 10 runs with the first fix
alone).
Exit 0 pass, 77 skip, 1 fail.
    sudo python3 tests/integration/test_fenced_merge_quorum.py
"""

import sys
import time

sys.dont_write_bytecode = True

from cphatest import fencedlab, step, util  # noqa: E402

NAMES = ("n1", "n2", "n3")
IPS = ("198.18.0.151", "198.18.0.152", "198.18.0.153")
BMC_IP = "198.18.0.160"
N3_DELAY = 8
POST_FAIL = 5


def check(cond, msg):
    if not cond:
        raise AssertionError(msg)


def run(lab):
    cl = fencedlab.build(lab, NAMES, IPS, BMC_IP)
    try:
        conf = cl.bmc_conf("off", "8s", lambda n: "    delay %ds\n" % N3_DELAY
                           if n.name == "n3" else "")
        check("post_fail_delay 0s" in conf, "fencedlab's fenced.conf changed:\n" + conf)
        cl.write_fenced_conf(conf.replace("post_fail_delay 0s",
                                          "post_fail_delay %ds" % POST_FAIL))
        step("three nodes, corosync and fenced, quorate")
        cl.start()
        n1, n2, n3 = cl.nodes
        t0 = time.time()
        mark = len(n1.fenced_log())
        cut = []
        try:
            step("1. n3 cut off: n1 and n2 quorate without it, its fence due in %d s"
                 % (POST_FAIL + N3_DELAY))
            lab.link_down(n3.host)
            cut.append(n3)
            util.wait_until(lambda: "n3 failed" in n1.fenced_log()[mark:], 15, 0.1,
                            "n1 to count n3 failed")
            t_victim = time.time()
            log = n1.fenced_log()[mark:]
            check("once this partition is quorate" not in log.split("n3 failed", 1)[1]
                  .split("\n", 1)[0], "n1 was not quorate when n3 left:\n%s" % log[-2000:])
            step("2. n2 cut off too: nobody quorate when n3's turn comes")
            lab.link_down(n2.host)
            cut.append(n2)
            util.wait_until(lambda: "NOT quorate" in n1.fenced_log()[mark:], 15, 0.1,
                            "n1 to lose quorum")
            lost = time.time() - t_victim
            check(lost < POST_FAIL + N3_DELAY, "n1 lost quorum %.1f s after counting n3 "
                  "failed, past its turn: the test proves nothing" % lost)
            time.sleep(max(0.0, t_victim + POST_FAIL + N3_DELAY + 2 - time.time()))
            check(not cl.power_offs(n3, t0), "n3 fenced without quorum: %r"
                  % cl.bmc_events(n3, t0))
        finally:
            for n in cut:
                lab.link_up(n.host)
        step("3. both links back: the merge gives n1 quorum and n3 back together")
        util.wait_until(lambda: sorted((n1.show() or {}).get("members", [])) == list(NAMES)
                        and "the partition is quorate" in n1.fenced_log()[mark:]
                        .rsplit("NOT quorate", 1)[-1], 30, 0.2, "the merge on n1")
        util.wait_until(lambda: n1.history(n3.name, "skipped")
                        or n1.history(n3.name, "fenced") or cl.power_offs(n3, t0),
                        15, 0.2, "n1 to decide on n3")
        time.sleep(3)  # a fence asked for at the merge would show by now
        log = n1.fenced_log()[mark:]
        check(not cl.power_offs(n3, t0), "n1 fenced n3, back with its quorum: %r\n%s"
              % (cl.bmc_events(n3, t0), log[-3000:]))
        averted = [h for h in n1.history(n3.name, "skipped") if "averted" in h["detail"]]
        check(averted, "n1, the member to fence n3, did not avert it: %r\n%s"
              % (n1.history(n3.name, "skipped"), log[-3000:]))
        util.wait_until(lambda: [h for h in n2.history(n3.name, "skipped")
                                 if "spared by" in h["detail"] or "averted" in h["detail"]],
                        10, 0.2, "n2 to drop n3 as a victim")
        check(not cl.power_offs(n1, t0) and not cl.power_offs(n2, t0),
              "a BMC of n1 or n2 was told to power off: %r, %r"
              % (cl.bmc_events(n1, t0), cl.bmc_events(n2, t0)))
        check(all(n.up() for n in (n1, n2, n3)), "a node is down after the merge")
        check(all(not (n.show() or {}).get("pending") for n in (n1, n2, n3)),
              "a fence is still pending: %r" % [(n.show() or {}).get("pending")
                                                for n in (n1, n2, n3)])
        print("  n1 averted n3's fence at the merge; no BMC told to act", flush=True)
    finally:
        cl.close()


def main():
    return fencedlab.main("fenced-merge-quorum", run, dump_lines=80)


if __name__ == "__main__":
    sys.exit(main())
