#!/usr/bin/env python3
"""vipd's track_process (keepalived 2.2's vrrp_track_process) moves the VIP
as the tracked processes come and go, over and over.

r1 (priority 250) and r2 (150), VRRPv3, advert_int A = 0.2 s. The tracked
"process" is a copy of sleep under a name unique to this run (so nothing
else on the machine matches it), started in r1's namespace; vipd counts
processes in /proc once a second.

- by name: r1 tracks it with weight -200. Killing it brings r1 to 50 and
  the VIP to r2; starting it again brings r1 back to 250 and the VIP home.
  Four times over some 30 s; a process whose name only starts with the
  tracked one never counts.
- quorum 2, full_command: `process COPY 1000` (exact parameters) needs two
  such processes; one is not enough, and a copy started with another
  parameter never counts.
- terminate_delay 4: a restart within a second leaves the VIP where it is
  (watched for 6 s); a process gone for good moves it after the delay.

Each move is bounded by 1 s of polling + Master_Down_Interval + scheduling
slack (BOUND); r1's priority and the track's state are read from
`show json`.

Exit 0 pass, 77 skip (not root, tcpdump missing, vipd not built), else
fail.
    sudo python3 tests/integration/test_vipd_track_process.py [-v]
"""

import os
import shutil
import signal
import sys
import time
import unittest

sys.dont_write_bytecode = True

import cphatest  # noqa: E402
from cphatest import step, util, vipd  # noqa: E402
from cphatest.vipd import VIP  # noqa: E402

A = 0.2
POLL = 1.0                        # vipd's /proc poll interval
BOUND = POLL + 1.0 + 2.0          # poll + MDI(150) with slack
DELAY = 4.0                       # terminate_delay in the delay case
NAME = "cptp%d" % (os.getpid() % 1000000)  # within comm's 15 characters


def sleep_binary():
    return shutil.which("sleep")


class TrackProcess(unittest.TestCase):

    def setUp(self):
        self.t_start = time.time()

    def copy(self, lab, name):
        """A copy of sleep named `name`, in the lab's directory."""
        path = lab.path("bin", name)
        shutil.copy(sleep_binary(), path)
        os.chmod(path, 0o755)
        return path

    def move(self, hosts, v1, to, want_prio, what, extra=0.0):
        """Wait for the VIP to be on `to` alone, and r1 at want_prio."""
        t0 = time.time()
        took = vipd.wait_holders(hosts, VIP, [to], timeout=BOUND + extra)
        step("%5.1fs: %s: VIP on %s after %.2fs"
             % (t0 - self.t_start, what, to, took or 0.0))
        vipd.steady_holders(hosts, VIP, [to], 3 * A)
        util.wait_until(lambda: v1.inst()["priority"] == want_prio, 2, 0.05,
                        "r1 at priority %d" % want_prio)
        tracks = [t for t in v1.inst()["tracks"] if t["kind"] == "process"]
        self.assertEqual(len(tracks), 1, v1.inst()["tracks"])
        self.assertEqual(tracks[0]["ok"], to == "r1", tracks)
        return took or 0.0

    def start_pair(self, lab, r1, r2, body1):
        """vipd on r1 with body1 and on r2 at priority 150, both started;
        t_start is now."""
        v1 = vipd.Vipd(lab, r1, body1)
        v2 = vipd.Vipd(lab, r2, vipd.instance(priority=150, advert=A))
        self.t_start = time.time()
        v1.start()
        v2.start()
        return v1, v2

    def stop(self, proc):
        proc.kill(signal.SIGKILL)
        proc.wait(5)

    def test_by_name_over_time(self):
        with cphatest.Lab("vipd-tproc-name") as lab:
            r1, r2 = vipd.hosts(lab, 2, client=False)
            hosts = [r1, r2]
            exe = self.copy(lab, NAME)
            decoy = self.copy(lab, NAME + "x")
            proc = r1.spawn([exe, "1000"], name="tracked")
            body1 = ("vrrp_track_process tp {\n    process %s\n    weight -200\n}\n" % NAME +
                     vipd.instance(priority=250, advert=A,
                                   extra=["track_process {", "    tp", "}"]))
            v1, v2 = self.start_pair(lab, r1, r2, body1)
            self.move(hosts, v1, "r1", 250, "start, %s running" % NAME)
            d = r1.spawn([decoy, "1000"], name="decoy")
            for i in range(4):
                self.stop(proc)
                self.move(hosts, v1, "r2", 50, "round %d: %s killed (%sx runs)"
                          % (i + 1, NAME, NAME))
                time.sleep(2)  # and it stays there: the decoy does not count
                self.move(hosts, v1, "r2", 50, "round %d: still on r2" % (i + 1))
                proc = r1.spawn([exe, "1000"], name="tracked")
                self.move(hosts, v1, "r1", 250, "round %d: %s started" % (i + 1, NAME))
                time.sleep(1.5)
            self.stop(d)
            self.assertGreater(time.time() - self.t_start, 25)
            self.assertEqual(v1.state(), "MASTER")
            self.assertEqual(v2.state(), "BACKUP")

    def test_quorum_two_full_command(self):
        with cphatest.Lab("vipd-tproc-quorum") as lab:
            r1, r2 = vipd.hosts(lab, 2, client=False)
            hosts = [r1, r2]
            exe = self.copy(lab, NAME)
            body1 = ("vrrp_track_process two {\n    process %s 1000\n    quorum 2\n}\n" % exe +
                     vipd.instance(priority=250, advert=A,
                                   extra=["track_process {", "    two weight -200", "}"]))
            first = r1.spawn([exe, "1000"], name="first")
            other = r1.spawn([exe, "999"], name="other-param")
            v1, v2 = self.start_pair(lab, r1, r2, body1)
            self.move(hosts, v1, "r2", 50, "start: one of two (and one with 999)")
            for i in range(4):
                second = r1.spawn([exe, "1000"], name="second")
                self.move(hosts, v1, "r1", 250, "round %d: two running" % (i + 1))
                time.sleep(1.5)
                self.stop(first if i % 2 else second)
                if i % 2:
                    first = second
                self.move(hosts, v1, "r2", 50, "round %d: one running" % (i + 1))
                time.sleep(1.5)
            self.stop(other)
            self.stop(first)
            self.move(hosts, v1, "r2", 50, "none running")
            self.assertGreater(time.time() - self.t_start, 20)

    def test_terminate_delay(self):
        with cphatest.Lab("vipd-tproc-delay") as lab:
            r1, r2 = vipd.hosts(lab, 2, client=False)
            hosts = [r1, r2]
            exe = self.copy(lab, NAME)
            proc = r1.spawn([exe, "1000"], name="tracked")
            body1 = ("vrrp_track_process tp {\n    process %s\n    weight -200\n"
                     "    terminate_delay %g\n}\n" % (NAME, DELAY) +
                     vipd.instance(priority=250, advert=A,
                                   extra=["track_process {", "    tp", "}"]))
            v1, v2 = self.start_pair(lab, r1, r2, body1)
            self.move(hosts, v1, "r1", 250, "start, %s running" % NAME)
            for i in range(2):
                step("round %d: %s restarted within a second: the VIP stays" % (i + 1, NAME))
                self.stop(proc)
                time.sleep(0.5)
                proc = r1.spawn([exe, "1000"], name="tracked")
                vipd.steady_holders(hosts, VIP, ["r1"], DELAY + 2)
                self.assertEqual(v1.inst()["priority"], 250)
                self.stop(proc)
                took = self.move(hosts, v1, "r2", 50,
                                 "round %d: %s gone for good" % (i + 1, NAME), extra=DELAY)
                # not before terminate_delay (less a poll's granularity)
                self.assertGreaterEqual(took, DELAY - POLL)
                proc = r1.spawn([exe, "1000"], name="tracked")
                self.move(hosts, v1, "r1", 250, "round %d: %s back" % (i + 1, NAME))
            self.assertGreater(time.time() - self.t_start, 20)


def main():
    vipd.require()
    if not sleep_binary():
        return util.skip("no sleep binary to copy")
    return util.run_tests()


if __name__ == "__main__":
    sys.exit(main())
