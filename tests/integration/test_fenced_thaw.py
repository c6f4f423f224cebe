#!/usr/bin/env python3
"""A node frozen past corosync's token timeout, then thawed, fences nobody.

Three lab hosts n1-n3 run corosync (knet, token 1000 ms) and fenced, each
node's BMC an ipmi_sim on a fourth host (cphatest.fencedlab). n3's
fence_node has a delay longer than the test, so the others count it as
failed but never fence it here.

Three times: every process of n3 (corosync and fenced included) is stopped
with SIGSTOP for 4 s, then continued. n1 and n2 form a membership without
n3 meanwhile. Thawed, n3's corosync often tells CPG that n1 and n2 went
down (its token was lost) and, before votequorum has recalculated the
quorum of that membership, merges with them again: votequorum's part of
the change is interrupted and its quorate flag stays the old one. n3 must
not fence n1 or n2 on that flag (they were the quorate side; n3 is the
one to be fenced). Before the fix n3's fenced fenced both at once, as an
hour-long lab soak saw: the whole control plane went down.

Checked each time: n1's and n2's BMCs are never told to power off, n3
asks for no fence, and the three are one membership again. Printed: how
many thaws had n3 count n1 and n2 as failed (the race itself).
Exit 0 pass, 77 skip, 1 fail.
    sudo python3 tests/integration/test_fenced_thaw.py
"""

import os
import signal
import sys
import time

sys.dont_write_bytecode = True

from cphatest import fencedlab, step, util  # noqa: E402
from cphatest.util import check  # noqa: E402

NAMES = ("n1", "n2", "n3")
IPS = ("198.18.0.131", "198.18.0.132", "198.18.0.133")
BMC_IP = "198.18.0.140"
N3_DELAY = 600
FREEZE_S = 4
ROUNDS = 3


def signal_all(pids, sig):
    for pid in pids:
        try:
            os.kill(pid, sig)
        except ProcessLookupError:
            pass


def members(node):
    return sorted((node.show() or {}).get("members", []))


def run(lab):
    cl = fencedlab.build(lab, NAMES, IPS, BMC_IP)
    try:
        cl.write_fenced_conf(cl.bmc_conf("off", "8s", lambda n: "    delay %ds\n" % N3_DELAY
                                         if n.name == "n3" else ""))
        step("three nodes, corosync and fenced, quorate")
        cl.start()
        n1, n2, n3 = cl.nodes
        t0 = time.time()
        raced = 0
        for k in range(1, ROUNDS + 1):
            step("%d. n3 frozen for %d s, then thawed" % (k, FREEZE_S))
            mark = len(n3.fenced_log())
            mark1 = len(n1.fenced_log())
            pids = n3.pids()
            check(pids, "no process found on n3")
            signal_all(pids, signal.SIGSTOP)
            try:
                util.wait_until(lambda: "n3 left the fence domain" in n1.fenced_log()[mark1:],
                                15, 0.2, "n1 to see n3 leave")
            finally:
                time.sleep(max(0.0, FREEZE_S - 1.0))
                signal_all(pids, signal.SIGCONT)
            util.wait_until(lambda: members(n3) == list(NAMES) and members(n1) == list(NAMES),
                            30, 0.3, "the three to be one membership again")
            time.sleep(3)  # a fence asked for on the thaw has reached the BMC by now
            log = n3.fenced_log()[mark:]
            check(not cl.power_offs(n1, t0) and not cl.power_offs(n2, t0),
                  "the thawed n3 fenced the others: n1 %r, n2 %r\n%s" % (
                      cl.power_offs(n1, t0), cl.power_offs(n2, t0), log[-3000:]))
            check("fencing n1" not in log and "fencing n2" not in log,
                  "the thawed n3 asked to fence n1 or n2:\n%s" % log[-3000:])
            check(not cl.power_offs(n3, t0), "n3 fenced before its %d s delay" % N3_DELAY)
            counted = "n1 failed" in log or "n2 failed" in log
            raced += counted
            print("  n3 %s; nobody fenced" % ("counted n1 and n2 failed, then merged back"
                                              if counted else "rejoined at once"), flush=True)
        print("  %d of %d thaws had n3 count the others failed on a stale quorate flag"
              % (raced, ROUNDS), flush=True)
    finally:
        cl.close()


def main():
    return fencedlab.main("fenced-thaw", run, dump_lines=80)


if __name__ == "__main__":
    sys.exit(main())
