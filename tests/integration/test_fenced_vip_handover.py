#!/usr/bin/env python3
"""preempt_handover with track_fenced: a handover that ends in silence is
not proof that the master let the VIP go.

Two LB hosts (corosync two_node, fenced, vipd with track_fenced and
preempt_handover, as `cpha render` writes them): lb2 (priority 100) holds
the VIP, lb1 (150) comes up and preempts it.

  1. lb2's vipd alone: lb2 holds the VIP; lb1's fenced knows it.
  2. VRRP from lb1 to lb2 is cut (nftables in lb2, VRRP only: corosync,
     hence fenced, still talks). lb1's vipd starts, hears lb2 and announces
     itself; lb2 never hears it, so it never resigns.
  3. VRRP from lb2 to lb1 is cut too for 8 s: lb1's handover meets
     silence. A silence is two lost adverts as much as a master that
     stepped down: lb1 must wait for fenced, which knows lb2 still holds
     the VIP. Sampled every 0.1 s: never two holders. (vipd before this
     test let the takeover through on quorum alone, as for a master still
     heard: both held the VIP, as in the soak's one-way cuts.)
  4. lb1 hears lb2 again (its cut lifted): it announces again, lb2 still
     deaf to it keeps the VIP alone.
  5. lb2's cut lifted: lb2 hears lb1, steps down with priority 0, and lb1
     takes the VIP at once; never two holders.
Exit 0 pass, 77 skip, 1 fail.
    sudo python3 tests/integration/test_fenced_vip_handover.py
"""

import subprocess
import sys
import time

sys.dont_write_bytecode = True

import cphatest  # noqa: E402
from cphatest import fenced_vip, step, util  # noqa: E402
from cphatest.fenced_vip import holds, start_vipd, vip_holder_known, vipd_conf  # noqa: E402
from cphatest.util import check  # noqa: E402


def cut_vrrp(node, src):
    """Drop VRRP from src arriving at node (only VRRP: corosync goes on)."""
    rules = ("table inet vrrpcut {\n chain in {\n  type filter hook input priority 0;\n"
             "  ip saddr %s ip protocol vrrp drop\n }\n}\n" % src)
    r = subprocess.run(["ip", "netns", "exec", node.host.ns, "nft", "-f", "-"], input=rules,
                       capture_output=True, text=True, timeout=10)
    check(r.returncode == 0, "nft on %s: %s" % (node.name, r.stderr))


def heal(node):
    r = subprocess.run(["ip", "netns", "exec", node.host.ns, "nft", "delete", "table", "inet",
                        "vrrpcut"], capture_output=True, text=True, timeout=10)
    check(r.returncode == 0, "nft on %s: %s" % (node.name, r.stderr))


def watch(lb1, lb2, seconds, t0):
    """Sample both hosts every 0.1 s for seconds: the times (since t0)
    when both held the VIP, and those when lb2 did not."""
    both, lb2_lost = [], []
    end = time.time() + seconds
    while time.time() < end:
        h1, h2 = holds(lb1), holds(lb2)
        if h1 and h2:
            both.append(round(time.time() - t0, 1))
        if not h2:
            lb2_lost.append(round(time.time() - t0, 1))
        time.sleep(0.1)
    return both, lb2_lost


def run(lab):
    handover = ["preempt_handover"]
    cl = fenced_vip.cluster(lab, [vipd_conf(150, handover), vipd_conf(100, handover)])
    try:
        step("1. lb2's vipd alone holds the VIP; lb1's fenced knows it")
        cl.start()
        lb1, lb2 = cl.nodes
        start_vipd(lb2)
        util.wait_until(lambda: holds(lb2), 30, 0.2, "lb2 to hold the VIP")
        util.wait_until(lambda: vip_holder_known(lb1, "lb2"), 20, 0.3,
                        "lb1's fenced to know lb2 holds the VIP")

        step("2. VRRP from lb1 cut at lb2; lb1's vipd starts and announces itself")
        cut_vrrp(lb2, lb1.host.v4)
        t0 = time.time()
        start_vipd(lb1)
        util.wait_until(lambda: "preempting the master at priority 100" in lb1.vipd.log_text(),
                        15, 0.1, "lb1's vipd to announce itself to lb2")

        step("3. VRRP from lb2 cut at lb1 for 8 s: lb1's handover meets silence")
        cut_vrrp(lb1, lb2.host.v4)
        try:
            both, lost = watch(lb1, lb2, 8, t0)
        finally:
            heal(lb1)
        check(not both, "two VIP holders at %s s after lb1's vipd started" % both[:5])
        check(not lost, "lb2 lost the VIP at %s s though it never resigned" % lost[:5])
        held = [ln for ln in lb1.vipd.log_text().splitlines() if "waiting for fenced" in ln]
        check(held, "lb1's vipd never waited for fenced: the check proved nothing")

        step("4. lb1 hears lb2 again; lb2, still deaf to lb1, keeps the VIP alone")
        both, lost = watch(lb1, lb2, 5, t0)
        check(not both, "two VIP holders at %s s" % both[:5])
        check(not lost, "lb2 lost the VIP at %s s" % lost[:5])

        step("5. lb2 hears lb1: it resigns, lb1 takes the VIP")
        heal(lb2)
        t1 = time.time()
        both = []
        end = time.time() + 15
        while time.time() < end and not (holds(lb1) and not holds(lb2)):
            if holds(lb1) and holds(lb2):
                both.append(round(time.time() - t1, 1))
            time.sleep(0.05)
        check(holds(lb1) and not holds(lb2), "lb1 did not take the VIP over from lb2")
        check(not both, "two VIP holders at %s s after the heal" % both[:5])
        print("  lb1 holds the VIP %.1f s after lb2 could hear it" % (time.time() - t1),
              flush=True)
    finally:
        cl.close()


def main():
    fenced_vip.require()
    return cphatest.main("fenced-vip-handover", run, dump_lines=60)


if __name__ == "__main__":
    sys.exit(main())
