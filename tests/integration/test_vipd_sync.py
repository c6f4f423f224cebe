#!/usr/bin/env python3
"""vrrp_sync_group, notify fifos and vrrp_startup_delay, with keepalived as
the reference: each case runs once with vipd on r1 and once with the real
keepalived on r1, and both must do the same.

Sync group (r1: group G = VI_1 (VRID 51, VIP .100) + VI_2 (VRID 52, VIP
.101), both priority 150; r2: vipd, the same two instances at 100, no
group; advert_int A = 0.2 s):

1. r1 holds both VIPs; G's notify_master ran and the fifo says
   'GROUP "G" MASTER 0'.
2. r2's VI_1 goes to 200 (a reload): it preempts VI_1, and r1's VI_1,
   leaving MASTER, takes VI_2 to BACKUP with it (without the group r1
   would keep VI_2): r2 ends up with both VIPs. Then, for 8 Master_Down
   Intervals, r1's VI_2 hears only r2's lower priority and asks to take
   over again and again, but VI_1 still hears 200, so the group stays
   BACKUP: nobody moves.
3. r2's VI_1 back to 100: both of r1's members want MASTER, the group
   takes both VIPs back.
4. VI_1's track script fails (weight 0): the whole group is FAULT, r2
   holds both; it recovers and the group is MASTER again.
5. VI_2's notify runs as `nobody nogroup` (USER GROUP after the command).
6. SIGTERM: the fifo and the group's notify scripts saw BACKUP (start),
   MASTER, BACKUP, MASTER, FAULT, BACKUP, MASTER, as keepalived's do; with
   vipd the fifo reader also gets the STOP lines (keepalived 2.2.7 stops
   its reader first).

Startup delay: r1 alone with vrrp_startup_delay D = 1.5 s takes its VIP
D + Master_Down_Interval after it started, not Master_Down_Interval.

Exit 0 pass, 77 skip (not root, vipd not built), else fail.
    sudo python3 tests/integration/test_vipd_sync.py [-v]
"""

import os
import re
import signal
import sys
import time
import unittest

sys.dont_write_bytecode = True

import cphatest  # noqa: E402
from cphatest import step, util, vipd  # noqa: E402

A = 0.2
VIP1, VIP2 = "198.18.0.100", "198.18.0.101"
DELAY = 1.5
MARGIN = 0.3


def recorder(lab, name):
    """An executable that appends its arguments to a log: (path, log)."""
    path = lab.path("bin", name + ".sh")
    log = lab.path("out", name + ".log")
    with open(path, "w") as f:
        f.write("#!/bin/sh\necho \"$*\" >> %s\n" % log)
    os.chmod(path, 0o755)
    return path, log


def id_recorder(lab):
    """An executable that appends `id -u`, `id -g` and its arguments to a
    log, in a directory the user nobody can reach: (path, log)."""
    os.chmod(lab.dir, 0o711)
    d = os.path.dirname(lab.path("shared", "x"))
    os.chmod(d, 0o1777)
    path, log = os.path.join(d, "id.sh"), os.path.join(d, "id.log")
    with open(path, "w") as f:
        f.write("#!/bin/sh\necho \"$(id -u) $(id -g) $*\" >> %s\n" % log)
    os.chmod(path, 0o755)
    return path, log


def fifo_reader(lab):
    """A notify_fifo_script that copies the fifo (its last argument) to a
    log until end of file: (path, log)."""
    path = lab.path("bin", "fifo-reader.sh")
    log = lab.path("out", "fifo.log")
    with open(path, "w") as f:
        f.write("#!/bin/sh\nexec cat \"$1\" >> %s\n" % log)
    os.chmod(path, 0o755)
    return path, log


def lines(path):
    try:
        with open(path) as f:
            return [x.strip() for x in f if x.strip()]
    except FileNotFoundError:
        return []


def steady_both(hs, names, duration):
    """Both VIPs held by exactly `names` for `duration` seconds."""
    end = time.monotonic() + duration
    for _ in range(10000):
        for ip in (VIP1, VIP2):
            got = sorted(vipd.holders(hs, ip))
            if got != sorted(names):
                raise AssertionError("%s held by %s, expected %s" % (ip, got, names))
        if time.monotonic() >= end:
            return
        time.sleep(0.05)


def group_body(rec, flag, idrec):
    test_cmd = "/usr/bin/test ! -e %s" % flag
    return (vipd.script("chk", test_cmd, interval=1)
            + vipd.instance("VI_1", 51, 150, vips=(VIP1 + "/24",), advert=A,
                            track_script=["chk"])
            + vipd.instance("VI_2", 52, 150, vips=(VIP2 + "/24",), advert=A,
                            extra=["notify %s nobody nogroup" % idrec])
            + "vrrp_sync_group G {\n    group {\n        VI_1\n        VI_2\n    }\n"
            + "    notify_master \"%s gm\"\n    notify_backup \"%s gb\"\n" % (rec, rec)
            + "    notify_fault \"%s gf\"\n    notify \"%s any\"\n}\n" % (rec, rec))


def plain_body(p1):
    return (vipd.instance("VI_1", 51, p1, vips=(VIP1 + "/24",), advert=A)
            + vipd.instance("VI_2", 52, 100, vips=(VIP2 + "/24",), advert=A))


class Sync(unittest.TestCase):

    def sync_case(self, kind):
        with cphatest.Lab("vipd-sync-" + kind) as lab:
            r1, r2 = vipd.hosts(lab, 2, client=False)
            rec, rec_log = recorder(lab, "notify")
            reader, fifo_log = fifo_reader(lab)
            idrec, id_log = id_recorder(lab)
            fifo = lab.path("run", "notify.fifo")
            flag = lab.path("flags", "chk")
            extra = ["script_user root", "notify_fifo %s" % fifo,
                     "notify_fifo_script %s" % reader]
            cls = vipd.Vipd if kind == "vipd" else vipd.Keepalived
            a = cls(lab, r1, group_body(rec, flag, idrec), global_extra=extra)
            b = vipd.Vipd(lab, r2, plain_body(100))
            both = [r1, r2]
            mdi150 = vipd.master_down(150, A)

            step("%s on r1 (group G: VI_1 + VI_2 at 150), vipd on r2 (100, no group)" % kind)
            a.start()
            b.start()
            vipd.wait_holders(both, VIP1, ["r1"], timeout=mdi150 + 3)
            vipd.wait_holders(both, VIP2, ["r1"], timeout=2)
            util.wait_until(lambda: "gm" in lines(rec_log), 3, 0.05, "G's notify_master")
            util.wait_until(lambda: 'GROUP "G" MASTER 0' in lines(fifo_log), 3, 0.05,
                            "the fifo's GROUP line")

            step("r2's VI_1 to 200 (reload): r1's VI_1 leaves MASTER and takes VI_2 along")
            b.write(plain_body(200))
            b.proc.kill(signal.SIGHUP)
            vipd.wait_holders(both, VIP1, ["r2"], timeout=vipd.master_down(200, A) + 3)
            vipd.wait_holders(both, VIP2, ["r2"], timeout=vipd.master_down(100, A) + 3)
            watch = 8 * mdi150
            step("for %.1fs (8 x MDI) r1's VI_2 asks, VI_1 hears 200: the group stays"
                 % watch)
            steady_both(both, ["r2"], watch)
            util.wait_until(lambda: "gb" in lines(rec_log), 3, 0.05, "G's notify_backup")

            step("r2's VI_1 back to 100: every member of G wants MASTER, G takes both")
            b.write(plain_body(100))
            b.proc.kill(signal.SIGHUP)
            vipd.wait_holders(both, VIP1, ["r1"], timeout=2 * mdi150 + 3)
            vipd.wait_holders(both, VIP2, ["r1"], timeout=2)
            steady_both(both, ["r1"], 3 * A)

            step("VI_1's track script fails: G is FAULT, r2 holds both")
            open(flag, "w").close()
            vipd.wait_holders(both, VIP1, ["r2"], timeout=4)
            vipd.wait_holders(both, VIP2, ["r2"], timeout=2)
            util.wait_until(lambda: "gf" in lines(rec_log), 3, 0.05, "G's notify_fault")
            os.unlink(flag)
            vipd.wait_holders(both, VIP1, ["r1"], timeout=4 + 2 * mdi150)
            vipd.wait_holders(both, VIP2, ["r1"], timeout=2)

            step("SIGTERM r1: the fifo reader reads up to G's STOP")
            _, rc = a.stop()
            self.assertEqual(rc, 0)
            for _ in range(100):
                if 'GROUP "G" STOP 0' in lines(fifo_log):
                    break
                time.sleep(0.05)
            got = lines(fifo_log)
            step("fifo: %s" % " | ".join(got))
            groups = [x for x in got if x.startswith('GROUP "G" ')]
            # keepalived 2.2.7 stops its fifo script before the STOP lines
            # reach it; vipd lets the script read them
            self.assertEqual([x.split()[2] for x in groups],
                             ["BACKUP", "MASTER", "BACKUP", "MASTER", "FAULT", "BACKUP",
                              "MASTER"] + (["STOP"] if kind == "vipd" else []), got)
            self.assertTrue(all(re.fullmatch(r'(INSTANCE|GROUP) "[^"]+" [A-Z_]+ \d+', x)
                                for x in got), got)
            self.assertIn('INSTANCE "VI_1" MASTER 150', got)
            if kind == "vipd":
                self.assertIn('INSTANCE "VI_2" STOP 150', got)
            notes = lines(rec_log)
            step("notify: %s" % " | ".join(notes))
            specific = [x for x in notes if x in ("gm", "gb", "gf")]
            self.assertEqual(specific[specific.index("gm"):],
                             ["gm", "gb", "gm", "gf", "gb", "gm"], notes)
            self.assertIn("any GROUP G FAULT 0", notes)
            self.assertIn("any GROUP G MASTER 0", notes)
            # notify CMD USER GROUP: run as nobody:nogroup
            ids = lines(id_log)
            step("VI_2's notify as nobody: %s" % " | ".join(ids))
            self.assertIn("65534 65534 INSTANCE VI_2 MASTER 150", ids)
            b.stop()

    def delay_case(self, kind):
        with cphatest.Lab("vipd-startdelay-" + kind) as lab:
            r1, = vipd.hosts(lab, 1, client=False)
            cls = vipd.Vipd if kind == "vipd" else vipd.Keepalived
            a = cls(lab, r1, vipd.instance("VI_1", 51, 150, vips=(VIP1 + "/24",), advert=A),
                    global_extra=["vrrp_startup_delay %g" % DELAY])
            t0 = time.time()
            a.start()
            vipd.wait_holders([r1], VIP1, ["r1"], timeout=DELAY + 3)
            took = time.time() - t0
            mdi = vipd.master_down(150, A)
            step("%s took the VIP %.2fs after its start (delay %.1f + MDI %.3f)"
                 % (kind, took, DELAY, mdi))
            self.assertGreaterEqual(took, DELAY + mdi - 0.05)
            self.assertLess(took, DELAY + mdi + MARGIN + 0.5)
            a.stop()

    def test_sync_vipd(self):
        self.sync_case("vipd")

    def test_sync_keepalived(self):
        why = vipd.keepalived_skip_reason()
        if why:
            self.skipTest(why)
        self.sync_case("keepalived")

    def test_startup_delay_vipd(self):
        self.delay_case("vipd")

    def test_startup_delay_keepalived(self):
        why = vipd.keepalived_skip_reason()
        if why:
            self.skipTest(why)
        self.delay_case("keepalived")


def main():
    vipd.require(tools=())
    prog = unittest.main(exit=False, verbosity=2)
    return 0 if prog.result.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main())
