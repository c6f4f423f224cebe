#!/usr/bin/env python3
"""vipd's tracking moves the VIP: a failing vrrp_script (weight -N, and
weight 0 = FAULT) and the interface going down.

r1 (priority 250) and r2 (150) run vipd with one VRRPv3 instance (VRID 51,
VIP 198.18.0.100/24, advert_int A = 0.2 s); the client c captures the
wire; who holds the VIP is read from each host's eth0. The check script
is `/usr/bin/test ! -e FLAG`: the test fails it by creating FLAG.
Scripts run every second (keepalived's smallest interval), fall 1, rise 1.

    MDI(250) = 0.6047 s, MDI(150) = 0.6828 s, Skew_Time(150) = 0.0828 s

- weight -200: r1 drops to 50 within one script interval, advertises 50
  (seen on the wire), and r2 takes over MDI(150) after r1's last
  priority-250 advertisement (it discards lower priorities and preempts).
  Removing FLAG brings r1 back to 250 and it preempts r2.
- weight 0: a failure puts r1 in FAULT: it sends priority 0, removes the
  VIP, and r2 takes over Skew_Time(150) later. When FLAG goes, r1 is
  BACKUP again and preempts r2.
- `ip link set eth0 down` inside r1, and the bridge side of r1's link
  down (lab.link_down: r1's eth0 loses carrier): r1 goes to FAULT and
  removes the VIP; it cannot send priority 0, so r2 takes over MDI(150)
  after r1's last advertisement. Link back up: r1 preempts again.
- the same eth0 down / up with an IPv6 VIP: r1 must not hold the VIP
  before it can advertise (its link-local address is tentative for a
  second or two after `up`). Expected failure: vipd 0.1.0 does not wait
  (see the test's docstring).

MARGIN (0.15 s) covers the scheduling of vipd and of the observers.
Exit 0 pass, 77 skip (not root, tcpdump missing, vipd not built), else fail.
    sudo python3 tests/integration/test_vipd_track.py [-v]
"""

import os
import sys
import time
import unittest

sys.dont_write_bytecode = True

import cphatest  # noqa: E402
from cphatest import step, vipd  # noqa: E402
from cphatest.vipd import VIP  # noqa: E402

A = 0.2
MARGIN = 0.15
EPS = 0.005
INTERVAL = 1     # vrrp_script interval, seconds
SPAWN = 0.2      # a script run (fork, exec of test(1), its exit) on a loaded host


def touch(path):
    open(path, "w").close()


class Track(unittest.TestCase):

    def bed(self, lab, weight):
        cmd, flag = vipd.flag_script(lab, "chk-fail")

        def body(name, prio):
            if name != "r1":
                return vipd.instance(priority=prio, advert=A)
            return (vipd.script("chk", cmd, interval=INTERVAL, weight=weight) +
                    vipd.instance(priority=prio, advert=A, track_script=["chk"]))
        bed = vipd.Bed(lab, {"r1": 250, "r2": 150}, advert=A, body=body)
        bed.start()
        bed.wait_holders(["r1"], timeout=bed.mdi("r1") + 3)
        vipd.steady_holders(bed.routers, VIP, ["r1"], 3 * A)
        return bed, flag

    def back_to_r1(self, bed, t0, what):
        """r1 preempts r2 again after t0 (tracking recovered): within one
        script interval (if a script) + MDI(r1 at its lowered priority)."""
        took = bed.wait_holders(["r1"], timeout=INTERVAL + 2 * bed.mdi("r2") + 2)
        t_add = bed.watch["r1"].first_add(VIP, after=t0)
        step("%s: r1 took the VIP back %.3fs later (polling: %.3fs)"
             % (what, t_add - t0, took))
        vipd.steady_holders(bed.routers, VIP, ["r1"], 3 * A)
        self.assertEqual(bed.vipd["r1"].inst()["priority"], 250)

    def test_script_weight_moves_vip(self):
        with cphatest.Lab("vipd-track-weight") as lab:
            bed, flag = self.bed(lab, weight=-200)
            step("fail r1's check (weight -200: 250 -> 50, below r2's 150)")
            t_fail = time.time()
            touch(flag)
            bed.wait_holders(["r2"], timeout=INTERVAL + SPAWN + bed.mdi("r2") + 2)
            low = bed.wait_adverts("r1", after=t_fail, priority=50)
            last_high = bed.last_advert("r1", before=low[0].ts)
            first = bed.first_advert("r2", after=t_fail)
            t_add = bed.watch["r2"].first_add(VIP, after=t_fail)
            step("r1 advertised 50 after %.3fs; r2 advertised %.3fs after r1's last 250 "
                 "(MDI %.4fs); VIP on r2 %.3fs after the failure"
                 % (low[0].ts - t_fail, first.ts - last_high.ts, bed.mdi("r2"),
                    t_add - t_fail))
            # the script runs every INTERVAL; one failure (fall 1) lowers
            # the priority, the next advert carries it
            self.assertLessEqual(low[0].ts - t_fail, INTERVAL + SPAWN + A + MARGIN)
            self.assertEqual(last_high.priority, 250)
            self.assertGreaterEqual(first.ts - last_high.ts, bed.mdi("r2") - EPS)
            self.assertLessEqual(first.ts - last_high.ts, bed.mdi("r2") + MARGIN)
            vipd.steady_holders(bed.routers, VIP, ["r2"], 3 * A)
            inst = bed.vipd["r1"].inst()
            self.assertEqual((inst["state"], inst["priority"], inst["fault"]),
                             ("BACKUP", 50, False), inst)
            self.assertEqual([(t["name"], t["ok"]) for t in inst["tracks"]],
                             [("chk", False)])

            step("the check passes again: r1 back to 250, preempts r2")
            t_ok = time.time()
            os.unlink(flag)
            self.back_to_r1(bed, t_ok, "check passing")
            high = bed.wait_adverts("r1", after=t_ok, priority=250)
            self.assertEqual(bed.adverts("r1", after=high[0].ts, priority=50), [])

    def test_script_weight_zero_is_fault(self):
        with cphatest.Lab("vipd-track-fault") as lab:
            bed, flag = self.bed(lab, weight=0)
            step("fail r1's check (weight 0: FAULT)")
            t_fail = time.time()
            touch(flag)
            bed.wait_holders(["r2"], timeout=INTERVAL + SPAWN + bed.skew("r2") + 2)
            zero = bed.wait_adverts("r1", after=t_fail, priority=0)
            self.assertEqual(len(zero), 1, "r1 left MASTER without one priority 0 advert")
            first = bed.first_advert("r2", after=t_fail)
            r1_del = bed.watch["r1"].first_del(VIP, after=t_fail)
            step("r1 sent priority 0 %.3fs after the failure and removed the VIP; r2 "
                 "advertised %.4fs after that (Skew_Time %.4fs)"
                 % (zero[0].ts - t_fail, first.ts - zero[0].ts, bed.skew("r2")))
            self.assertLessEqual(zero[0].ts - t_fail, INTERVAL + SPAWN + MARGIN)
            self.assertLess(r1_del - zero[0].ts, MARGIN)
            self.assertGreaterEqual(first.ts - zero[0].ts, bed.skew("r2") - EPS)
            self.assertLessEqual(first.ts - zero[0].ts, bed.skew("r2") + MARGIN)
            vipd.steady_holders(bed.routers, VIP, ["r2"], 3 * A)
            inst = bed.vipd["r1"].inst()
            self.assertEqual((inst["state"], inst["fault"]), ("FAULT", True), inst)
            self.assertEqual(bed.adverts("r1", after=zero[0].ts + EPS), [],
                             "r1 advertised in FAULT")

            step("the check passes again: r1 leaves FAULT, preempts r2")
            t_ok = time.time()
            os.unlink(flag)
            self.back_to_r1(bed, t_ok, "check passing")
            self.assertFalse(bed.vipd["r1"].inst()["fault"])

    def link_down_case(self, bed, down, up, what):
        # the link is down somewhere between t_cmd (the command starts: a
        # fork and exec of ip(8), slow on a loaded host) and t_down (it
        # returned): r1 may still send an advert in between, none after
        t_cmd = time.time()
        down()
        t_down = time.time()
        bed.wait_holders(["r2"], timeout=bed.mdi("r2") + 2)
        self.assertEqual(bed.vipd["r1"].inst()["state"], "FAULT")
        last = bed.last_advert("r1", before=t_down + 0.05)
        first = bed.first_advert("r2", after=t_cmd)
        r1_del = bed.watch["r1"].first_del(VIP, after=t_cmd)
        step("%s: r1 removed the VIP %.3fs after the link went down (the command took "
             "%.3fs); r2 advertised %.3fs after r1's last advert (MDI %.4fs)"
             % (what, r1_del - t_down, t_down - t_cmd, first.ts - last.ts, bed.mdi("r2")))
        self.assertLess(r1_del - t_down, MARGIN)
        self.assertEqual(bed.adverts("r1", after=t_down + EPS), [])
        self.assertGreaterEqual(first.ts - last.ts, bed.mdi("r2") - EPS)
        self.assertLessEqual(first.ts - last.ts, bed.mdi("r2") + MARGIN)
        vipd.steady_holders(bed.routers, VIP, ["r2"], 3 * A)
        heard = bed.vipd["r1"].inst()["adverts_received"]
        t_up = time.time()
        up()
        self.back_to_r1(bed, t_up, what + " undone")
        self.assertEqual(bed.vipd["r2"].state(), "BACKUP")
        # r1 heard r2 again (its multicast membership survived) while it
        # waited out its Master_Down_Interval in BACKUP
        self.assertGreaterEqual(bed.vipd["r1"].inst()["adverts_received"] - heard, 2)

    def test_interface_down(self):
        with cphatest.Lab("vipd-track-link") as lab:
            bed = vipd.Bed(lab, {"r1": 250, "r2": 150}, advert=A)
            bed.start()
            bed.wait_holders(["r1"], timeout=bed.mdi("r1") + 3)
            r1 = bed.host["r1"]
            step("ip link set eth0 down inside r1")
            self.link_down_case(
                bed, lambda: r1.run(["ip", "link", "set", "eth0", "down"]),
                lambda: r1.run(["ip", "link", "set", "eth0", "up"]), "r1's eth0 down")
            step("r1's bridge port down (r1's eth0 loses carrier)")
            self.link_down_case(bed, lambda: lab.link_down(r1), lambda: lab.link_up(r1),
                                "r1's bridge port down")

    def test_ipv6_interface_flap_no_split_brain(self):
        """IPv6 VIP (VI_1 with 2001:db8::100/64 only), `ip link set eth0
        down` then `up` inside r1. Taking eth0 down removes r1's IPv6
        addresses; `up` brings the link-local back only after DAD (1-2 s
        tentative), and VRRPv3 over IPv6 must send from it (RFC 9568
        §5.1.2.1). Like keepalived 2.2.7, vipd stays in FAULT until the
        address is usable, then goes BACKUP, then preempts: the two never
        hold the VIP at the same time. (vipd 0.1.0 went BACKUP at once and
        MASTER 0.6 s later with adverts failing, a one-second split brain.)"""
        body = lambda n, p: vipd.instance(priority=p, advert=A, vips=(vipd.VIP6 + "/64",))
        with cphatest.Lab("vipd-track-v6flap") as lab:
            bed = vipd.Bed(lab, {"r1": 250, "r2": 150}, advert=A, v6=True, body=body)
            bed.start()
            bed.wait_holders(["r1"], timeout=bed.mdi("r1") + 3, ip=vipd.VIP6)
            r1 = bed.host["r1"]
            r1.run(["ip", "link", "set", "eth0", "down"])
            bed.wait_holders(["r2"], timeout=bed.mdi("r2") + 2, ip=vipd.VIP6)
            t_up = time.time()
            r1.run(["ip", "link", "set", "eth0", "up"])
            bed.wait_holders(["r1"], timeout=5, ip=vipd.VIP6)
            r1_add = bed.watch["r1"].first_add(vipd.VIP6, after=t_up)
            r1_adv = bed.first_advert("r1", after=t_up)
            r2_del = bed.watch["r2"].first_del(vipd.VIP6, after=t_up)
            step("eth0 up: r1 took the VIP after %.3fs, advertised after %.3fs, r2 let go "
                 "after %.3fs: both held it for %.3fs"
                 % (r1_add - t_up, r1_adv.ts - t_up, r2_del - t_up, r2_del - r1_add))
        # asserted once the lab is gone: the known failure keeps no logs
        self.assertLessEqual(abs(r1_add - r1_adv.ts), MARGIN,
                             "r1 held the VIP without advertising")
        self.assertLessEqual(r2_del - r1_add, MARGIN, "split brain")


def main():
    vipd.require()
    prog = unittest.main(exit=False, verbosity=2)
    return 0 if prog.result.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main())
