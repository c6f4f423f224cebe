#!/usr/bin/env python3
"""vipd's nopreempt and preempt_delay, seen from outside.

r1 (priority 250) and r2 (150) run vipd with one VRRPv3 instance (VRID 51,
VIP 198.18.0.100/24, advert_int A = 0.2 s); the client c captures the
wire. Who holds the VIP is read from each host's eth0 (`ip addr`, and
`ip -ts monitor address` for when it changed).

    MDI(250) = 3 A + 6 A / 256   = 0.6047 s
    MDI(150) = 3 A + 106 A / 256 = 0.6828 s

nopreempt: r1 comes back while r2 is master and must stay backup (it
follows r2's lower-priority advertisements) for as long as we look
(5 x MDI(250)), sending nothing; when r2 stops, r1 does take over.

preempt_delay D: r1 comes back while r2 is master; it follows r2 until D
after its start, then discards r2's advertisements and takes over when
its Master_Down_Timer, last restarted by an advertisement at most A before
D, runs out: D + MDI(250) - A .. D + MDI(250) after its start (plus the
start-up of vipd, inside MARGIN). Without the delay it would take over
MDI(250) after its start, which the lower bound rules out.

preempt_handover (a vipd extension): r2 holds the VIP; r2 stops hearing
r1 (nftables on r2 drops r1's VRRP), then r1 (250) starts. Plain VRRP
would take the VIP at r1's Master_Down_Interval and both would hold it
for as long as the cut lasts. With preempt_handover r1 announces itself
instead, again after each advert it hears from r2, and never takes the
VIP while r2 speaks: only r2 holds it for 8 Master_Down_Intervals, while
r1 keeps sending priority 250. The cut lifted, r2 hears r1 and steps down,
sending priority 0 once its address is gone, and r1 takes the VIP after
r2 dropped it (the two `ip monitor` times), at once, not after r2's
silence.

Exit 0 pass, 77 skip (not root, tcpdump missing, vipd not built), else fail.
    sudo python3 tests/integration/test_vipd_preempt.py [-v]
"""

import sys
import time
import unittest

sys.dont_write_bytecode = True

import cphatest  # noqa: E402
from cphatest import step, vipd  # noqa: E402
from cphatest.vipd import VIP  # noqa: E402

A = 0.2          # advert_int
MARGIN = 0.15    # scheduling of vipd and of the observers
EPS = 0.005
DELAY = 1.5      # preempt_delay
MONITORS = 0.02  # two ip monitors' wake-ups apart


class Preempt(unittest.TestCase):

    def test_nopreempt(self):
        with cphatest.Lab("vipd-nopreempt") as lab:
            bed = vipd.Bed(lab, {"r1": 250, "r2": 150}, advert=A, body=lambda n, p: (
                vipd.instance(priority=p, advert=A, nopreempt=(n == "r1"))))
            bed.start()
            # both start as BACKUP: nopreempt does not stop r1 from being
            # elected when no master exists
            bed.wait_holders(["r1"], timeout=bed.mdi("r1") + 3)
            step("SIGKILL r1's vipd: r2 takes over")
            bed.vipd["r1"].crash()
            bed.wait_holders(["r2"], timeout=bed.mdi("r2") + 2, among=["r2"])
            step("restart r1 (nopreempt): it must not take the VIP back")
            t_start = bed.vipd["r1"].start()
            watch = 5 * bed.mdi("r1")
            # r1 removed its stale copy at start-up; from then on only r2
            bed.wait_holders(["r2"], timeout=1)
            vipd.steady_holders(bed.routers, VIP, ["r2"], watch)
            self.assertEqual(bed.vipd["r1"].state(), "BACKUP")
            self.assertEqual(bed.adverts("r1", after=t_start), [],
                             "r1 advertised while r2 was master")
            r2_adv = bed.adverts("r2", after=t_start)
            step("r1 stayed BACKUP for %.2fs (5 x MDI) while r2 (150) advertised %d times"
                 % (watch, len(r2_adv)))
            self.assertGreaterEqual(len(r2_adv), int(watch / A) - 2)
            inst = bed.vipd["r1"].inst()
            self.assertEqual(inst["transitions"], 1, inst)   # INIT -> BACKUP only
            self.assertEqual(inst["peers"][0]["address"], bed.host["r2"].v4)

            step("SIGTERM r2: now r1 takes over (after Skew_Time)")
            t_term, rc = bed.vipd["r2"].stop()
            self.assertEqual(rc, 0)
            took = bed.wait_holders(["r1"], timeout=1)
            t_add = bed.watch["r1"].first_add(VIP, after=t_term)
            step("r1 holds the VIP %.3fs after r2's SIGTERM (polling: %.3fs)"
                 % (t_add - t_term, took))
            self.assertLess(t_add - t_term, bed.skew("r1") + MARGIN)

    def test_preempt_delay(self):
        with cphatest.Lab("vipd-preempt-delay") as lab:
            bed = vipd.Bed(lab, {"r1": 250, "r2": 150}, advert=A, body=lambda n, p: (
                vipd.instance(priority=p, advert=A,
                              preempt_delay=DELAY if n == "r1" else None)))
            step("r2 alone first: master after its Master_Down_Interval")
            bed.start("r2")
            bed.wait_holders(["r2"], timeout=bed.mdi("r2") + 3)
            step("start r1 (250, preempt_delay %.1fs)" % DELAY)
            t_start = bed.start("r1")
            mdi = bed.mdi("r1")
            # until the delay is over r2 keeps the VIP
            vipd.steady_holders(bed.routers, VIP, ["r2"], DELAY - 0.1)
            bed.wait_holders(["r1"], timeout=mdi + 2)
            t_add = bed.watch["r1"].first_add(VIP, after=t_start)
            first = bed.first_advert("r1", after=t_start)
            took = t_add - t_start
            step("r1 took the VIP %.3fs after its start (expected %.3f..%.3fs; "
                 "without the delay: %.3fs)" % (took, DELAY + mdi - A, DELAY + mdi, mdi))
            self.assertGreaterEqual(took, DELAY + mdi - A - EPS)
            self.assertLessEqual(took, DELAY + mdi + MARGIN)
            # nothing from r1 on the wire before its takeover
            self.assertGreaterEqual(first.ts, t_start + DELAY + mdi - A - EPS)
            self.assertEqual(first.priority, 250)
            vipd.steady_holders(bed.routers, VIP, ["r1"], 3 * A)
            self.assertEqual(bed.vipd["r2"].state(), "BACKUP")


    def test_preempt_handover(self):
        with cphatest.Lab("vipd-handover") as lab:
            bed = vipd.Bed(lab, {"r1": 250, "r2": 150}, advert=A, body=lambda n, p: (
                vipd.instance(priority=p, advert=A, extra=["preempt_handover"])))
            r1, r2 = bed.host["r1"], bed.host["r2"]
            step("r2 alone first: master after its Master_Down_Interval")
            bed.start("r2")
            bed.wait_holders(["r2"], timeout=bed.mdi("r2") + 3)
            step("r2 stops hearing r1 (nftables drops r1's VRRP on r2), r1 starts")
            r2.run(["nft", "-f", "-"], input=(
                "table inet cut {\n chain in {\n  type filter hook input priority 0;\n"
                "  ip saddr %s ip protocol vrrp drop\n }\n}\n" % r1.v4))
            try:
                t_start = bed.start("r1")
                watch = 8 * bed.mdi("r1")
                vipd.steady_holders(bed.routers, VIP, ["r2"], watch)
                sent = bed.adverts("r1", after=t_start, priority=250)
                step("r1 (BACKUP) announced priority 250 %d times in %.1fs; r2 alone "
                     "held the VIP" % (len(sent), watch))
                self.assertGreaterEqual(len(sent), 3, "r1 did not announce itself")
                self.assertEqual(bed.vipd["r1"].state(), "BACKUP")
                self.assertIn("preempt_handover", bed.vipd["r1"].log_text())
            finally:
                t_lift = time.time()
                r2.run(["nft", "delete", "table", "inet", "cut"], check=False)
            step("the cut lifted: r2 steps down, then r1 takes the VIP")
            bed.wait_holders(["r1"], timeout=bed.mdi("r1") + 2)
            t_del = bed.watch["r2"].first_del(VIP, after=t_lift)
            t_add = bed.watch["r1"].first_add(VIP, after=t_lift)
            step("r2 dropped the VIP %.3fs after the lift, r1 added it %.3fs after that"
                 % (t_del - t_lift, t_add - t_del))
            # two `ip monitor` processes, each woken by the kernel in its
            # own time: their clocks agree, their wake-ups within MONITORS
            self.assertLess(t_del, t_add + MONITORS, "the VIP was on both routers")
            # r2 resigned with priority 0 once its address was gone (the
            # netlink delete is acknowledged before vipd sends), and r1
            # took over on it, not after r2's silence (an interval and
            # Skew_Time): on the wire, r1's first advert as master follows
            resign = [p for p in bed.adverts("r2", after=t_lift) if p.priority == 0]
            self.assertTrue(resign, "r2 stepped down without sending priority 0")
            self.assertLess(t_add - resign[0].ts, A / 2,
                            "r1 waited for r2's silence instead of its priority 0")
            self.assertLess(resign[0].ts, t_add + MONITORS)
            vipd.steady_holders(bed.routers, VIP, ["r1"], 3 * A)
            self.assertEqual(bed.vipd["r2"].state(), "BACKUP")
            # r2 became master alone, by its Master_Down_Timer: no handover
            # to speak of in its log
            for said in ("preempting", "does not hear us"):
                self.assertNotIn(said, bed.vipd["r2"].log_text())


def main():
    vipd.require()
    prog = unittest.main(exit=False, verbosity=2)
    return 0 if prog.result.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main())
