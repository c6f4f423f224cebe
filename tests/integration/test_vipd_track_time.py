#!/usr/bin/env python3
"""vipd's tracking keeps working long after start: track_file, track_lbd
and track_script each fail and recover at several points in time (from 5 s
to over 40 s after start), flap, and come back, and every change moves the
VIP. (vipd 0.1.0 polled track_file and track_lbd once, a second after
start, and never again: a failure 5 s after start left the VIP where it
was for as long as one watched.)

r1 (priority 250) and r2 (150), VRRPv3, advert_int A = 0.2 s. r1 tracks
a file (weight -200), lbd's backend `api` (2 servers up wanted, weight
-200) and a script (interval 1 s, weight -200): any one failing brings r1
to 50, below r2, and r2 takes over; recovery brings r1 back to 250 and it
preempts. vipd reads track_file and lbd's state every second, so each move
is bounded by 1 s of polling + lbd's check (inter 0.2 s, fall 1, rise 1)
+ Master_Down_Interval + scheduling slack (BOUND).

Exit 0 pass, 77 skip (not root, tcpdump missing, vipd or lbd not built),
else fail.
    sudo python3 tests/integration/test_vipd_track_time.py [-v]
"""

import os
import signal
import sys
import time
import unittest

sys.dont_write_bytecode = True

import cphatest  # noqa: E402
from cphatest import lbd, step, util, vipd  # noqa: E402
from cphatest.vipd import VIP  # noqa: E402

A = 0.2
POLL = 1.0                    # vipd's track_file / track_lbd poll interval
BOUND = POLL + 0.2 + 1.0 + 2.0  # poll + lbd check + MDI(150) with slack
PORTS = (18001, 18002)


class TrackOverTime(unittest.TestCase):

    def backend(self, host, port):
        return host.spawn(["/usr/bin/python3", "-m", "http.server", str(port), "--bind",
                           "127.0.0.1"], name="http-%d" % port)

    def move(self, hosts, v1, to, what, t_start):
        """Wait for the VIP to be on `to` alone; check r1's priority."""
        t0 = time.time()
        took = vipd.wait_holders(hosts, VIP, [to], timeout=BOUND)
        step("%5.1fs after start: %s: VIP on %s after %.2fs"
             % (t0 - t_start, what, to, took or 0.0))
        vipd.steady_holders(hosts, VIP, [to], 3 * A)
        want = 250 if to == "r1" else 50
        util.wait_until(lambda: v1.inst()["priority"] == want, 2, 0.05,
                        "r1 at priority %d" % want)

    def test_conditions_change_long_after_start(self):
        with cphatest.Lab("vipd-track-time") as lab:
            r1, r2 = vipd.hosts(lab, 2, client=False)
            hosts = [r1, r2]
            backends = [self.backend(r1, p) for p in PORTS]
            _, sock = lbd.start_track_target(lab, r1, PORTS)
            tfile = lab.path("flags", "track-value")
            with open(tfile, "w") as f:
                f.write("0\n")
            cmd, flag = vipd.flag_script(lab, "chk")

            def set_file(v):
                with open(tfile + ".new", "w") as f:
                    f.write("%d\n" % v)
                os.replace(tfile + ".new", tfile)

            body1 = ("vrrp_track_file tf {\n    file %s\n}\n" % tfile +
                     vipd.script("chk", cmd, interval=1, weight=-200) +
                     vipd.instance(priority=250, advert=A, track_script=["chk"], extra=[
                         "track_file {", "    tf weight -200", "}",
                         "track_lbd {", "    %s api 2 weight -200" % sock, "}"]))
            v1 = vipd.Vipd(lab, r1, body1)
            v2 = vipd.Vipd(lab, r2, vipd.instance(priority=150, advert=A))
            t_start = time.time()
            v1.start()
            v2.start()
            util.wait_until(lambda: v1.inst()["priority"] == 250, 3, 0.05,
                            "r1 at priority 250 once its first poll is done")
            self.move(hosts, v1, "r1", "start", t_start)
            self.assertEqual(sorted((t["kind"], t["ok"]) for t in v1.inst()["tracks"]),
                             [("file", True), ("lbd", True), ("script", True)],
                             v1.inst()["tracks"])

            def at(seconds):
                """Sleep until `seconds` after vipd started."""
                delay = t_start + seconds - time.time()
                if delay > 0:
                    time.sleep(delay)

            def lbd_fail():
                backends[0].kill(signal.SIGKILL)
                backends[0].wait(5)

            def lbd_ok():
                backends[0] = self.backend(r1, PORTS[0])

            def script_fail():
                open(flag, "w").close()

            def script_ok():
                os.unlink(flag)

            timeline = [
                (5, "track_file 1", lambda: set_file(1), lambda: set_file(0)),
                (12, "lbd backend down", lbd_fail, lbd_ok),
                (19, "script failing", script_fail, script_ok),
                (30, "track_file 1 again", lambda: set_file(1), lambda: set_file(0)),
                (37, "lbd backend down again", lbd_fail, lbd_ok),
            ]
            for when, what, fail, ok in timeline:
                at(when)
                fail()
                self.move(hosts, v1, "r2", what, t_start)
                ok()
                self.move(hosts, v1, "r1", what + " undone", t_start)

            step("track_file flaps: 1, 0, 1, 0, 1, 0 with a move each time")
            for i in range(3):
                set_file(1)
                self.move(hosts, v1, "r2", "flap %d: file 1" % (i + 1), t_start)
                set_file(0)
                self.move(hosts, v1, "r1", "flap %d: file 0" % (i + 1), t_start)
            self.assertGreater(time.time() - t_start, 45)
            self.assertEqual(v1.state(), "MASTER")
            self.assertEqual(v2.state(), "BACKUP")


def main():
    vipd.require()
    if not os.path.exists(lbd.binary()):
        return util.skip("lbd is not built")
    return util.run_tests()


if __name__ == "__main__":
    sys.exit(main())
