#!/usr/bin/env python3
"""vipd's daemon duties beyond the protocol: putting back a VIP that
someone removed while vipd is master, a SIGHUP reload that keeps an
unchanged instance's state, track_lbd (the VIP follows lbd's healthy
backends, no script; an lbd slow to answer is not a dead one), and a vrrp_sync_group whose members fault together.

Two routers r1 (priority 250) and r2 (150), VRRPv3, advert_int 0.2 s.
Exit 0 pass, 77 skip (not root, vipd or lbd not built), else fail.
    sudo python3 tests/integration/test_vipd_daemon.py [-v]
"""

import os
import pwd
import signal
import sys
import time
import unittest

sys.dont_write_bytecode = True

import cphatest  # noqa: E402
from cphatest import lbd, step, util, vipd  # noqa: E402
from cphatest.vipd import VIP  # noqa: E402

A = 0.2
VIP2 = "198.18.0.101"


def start_pair(lab, body_r1, body_r2):
    r1, r2 = vipd.hosts(lab, 2, client=False)
    v1 = vipd.Vipd(lab, r1, body_r1)
    v2 = vipd.Vipd(lab, r2, body_r2)
    v1.start()
    v2.start()
    vipd.wait_holders([r1, r2], VIP, ["r1"], timeout=vipd.master_down(150, A) + 3)
    return r1, r2, v1, v2


def lbd_pair(lab, weight):
    """r1 (250) with track_lbd on an lbd of two python http servers (2
    wanted, weight), r2 (150); started, the VIP on r1. Returns r1, r2, v1,
    v2, the http servers and lbd's process."""
    r1, r2 = vipd.hosts(lab, 2, client=False)
    backends = [r1.spawn(["/usr/bin/python3", "-m", "http.server", str(p), "--bind",
                          "127.0.0.1"], name="http-%d" % p) for p in (18001, 18002)]
    lbd_proc, sock = lbd.start_track_target(lab, r1, (18001, 18002))
    v1 = vipd.Vipd(lab, r1, vipd.instance(
        priority=250, advert=A,
        extra=["track_lbd {", "    %s api 2 weight %d" % (sock, weight), "}"]))
    v2 = vipd.Vipd(lab, r2, vipd.instance(priority=150, advert=A))
    v1.start()
    v2.start()
    vipd.wait_holders([r1, r2], VIP, ["r1"], timeout=vipd.master_down(150, A) + 5)
    return r1, r2, v1, v2, backends, lbd_proc


class Daemon(unittest.TestCase):

    def test_vip_removed_behind_its_back_is_put_back(self):
        with cphatest.Lab("vipd-restore") as lab:
            r1, r2, v1, v2 = start_pair(lab, vipd.instance(priority=250, advert=A),
                                        vipd.instance(priority=150, advert=A))
            step("someone removes the VIP from master r1")
            r1.run(["ip", "addr", "del", VIP + "/24", "dev", "eth0"])
            util.wait_until(lambda: vipd.has_addr(r1, VIP), 2, 0.01,
                            "the VIP back on r1")
            self.assertEqual(v1.inst()["vips_restored"], 1)
            self.assertEqual(v1.state(), "MASTER")
            self.assertEqual(v2.state(), "BACKUP")
            self.assertFalse(vipd.has_addr(r2, VIP))
            self.assertIn("putting it back", v1.log_text())

    def test_reload_keeps_an_unchanged_instance(self):
        with cphatest.Lab("vipd-reload") as lab:
            body = vipd.instance(priority=250, advert=A)
            r1, r2, v1, v2 = start_pair(lab, body, vipd.instance(priority=150, advert=A))
            before = v1.inst()
            watch = vipd.Watch(r1)
            step("SIGHUP to r1 with the same VRRP settings (a notify line added)")
            v1.write(vipd.instance(priority=250, advert=A, extra=["notify_master /bin/true"]))
            t0 = time.time()
            v1.proc.kill(signal.SIGHUP)
            vipd.wait_log(v1.proc, "reloaded", 5)
            time.sleep(3 * A)
            after = v1.inst()
            self.assertEqual(after["state"], "MASTER")
            self.assertEqual(after["transitions"], before["transitions"])
            self.assertTrue(vipd.has_addr(r1, VIP))
            self.assertEqual(v2.state(), "BACKUP")
            self.assertEqual([t for t, w in watch.addr_events(VIP) if t >= t0 and w == "del"],
                             [], "the VIP was never removed during the reload")
            step("SIGHUP with a lower priority: the instance restarts and r2 takes over")
            v1.write(vipd.instance(priority=100, advert=A))
            v1.proc.kill(signal.SIGHUP)
            vipd.wait_holders([r1, r2], VIP, ["r2"], timeout=vipd.master_down(150, A) + 3)

    def test_track_lbd_moves_the_vip(self):
        if not os.path.exists(lbd.binary()):
            self.skipTest("lbd is not built")
        with cphatest.Lab("vipd-tracklbd") as lab:
            r1, r2, v1, v2, backends, lbd_proc = lbd_pair(lab, -200)
            step("one of r1's two apiservers stops: lbd has 1 healthy, track_lbd wants 2")
            backends[0].kill(signal.SIGKILL)
            # lbd: one failed check (inter 0.2 s); vipd polls lbd every second
            took = vipd.wait_holders([r1, r2], VIP, ["r2"], timeout=0.2 + 1 + 1 + 3)
            step("VIP on r2 after %.2fs" % took if took else "VIP on r2")
            self.assertEqual(v1.inst()["priority"], 50)
            self.assertTrue(lbd_proc.running())
            self.assertEqual([(t["kind"], t["ok"]) for t in v1.inst()["tracks"]],
                             [("lbd", False)])

    def test_track_lbd_busy_lbd(self):
        """An lbd slow to answer (stopped here, as one busy with its own
        reload on a loaded machine) is not a dead one: it still forwards.
        The VIP stays through ten vipd reloads made while lbd does not answer
        (vipd used to ask lbd in line at each reload and went FAULT when it
        had no answer within 0.5 s) and through two questions unanswered;
        three in a row (LBD_UNANSWERED_DOWN) move it. An lbd that is gone
        (killed: nobody on its socket) moves it at the next poll."""
        if not os.path.exists(lbd.binary()):
            self.skipTest("lbd is not built")
        with cphatest.Lab("vipd-lbdbusy") as lab:
            r1, r2, v1, v2, _, lbd_proc = lbd_pair(lab, 0)
            hosts = [r1, r2]
            transitions = v1.inst()["transitions"]

            step("ten times: lbd stopped for 0.8 s while r1's vipd reloads")
            for i in range(10):
                lbd_proc.kill(signal.SIGSTOP)
                v1.proc.kill(signal.SIGHUP)
                try:
                    vipd.steady_holders(hosts, VIP, ["r1"], 0.8)
                finally:
                    lbd_proc.kill(signal.SIGCONT)
                util.wait_until(lambda: v1.show()["reloads"] == i + 1, 5, 0.05,
                                "reload %d done" % (i + 1))
                vipd.steady_holders(hosts, VIP, ["r1"], 3 * A)
            self.assertEqual(v1.inst()["transitions"], transitions)
            self.assertIn("kept in state MASTER", v1.log_text())

            step("lbd stopped for 1.8 s: two questions unanswered, the VIP stays")
            lbd_proc.kill(signal.SIGSTOP)
            try:
                vipd.steady_holders(hosts, VIP, ["r1"], 1.8)
            finally:
                lbd_proc.kill(signal.SIGCONT)
            vipd.steady_holders(hosts, VIP, ["r1"], 1.5)
            self.assertIn("lbd did not answer within 500 ms", v1.log_text())
            self.assertEqual(v1.inst()["transitions"], transitions)

            step("lbd stopped until r2 has the VIP: three questions unanswered")
            t0 = time.monotonic()
            lbd_proc.kill(signal.SIGSTOP)
            try:
                # the third question goes out at least 2 s after the first
                # and is given up 0.5 s later; then FAULT, priority 0, r2
                vipd.wait_holders(hosts, VIP, ["r2"], timeout=3.5 + 3)
                took = time.monotonic() - t0
            finally:
                lbd_proc.kill(signal.SIGCONT)
            step("VIP on r2 %.2f s after lbd stopped" % took)
            self.assertGreater(took, 2.4)
            self.assertIn("lbd did not answer 3 questions in a row", v1.log_text())
            vipd.wait_holders(hosts, VIP, ["r1"], timeout=1 + vipd.master_down(150, A) + 3)

            step("lbd killed: nobody on its socket, r2 has the VIP after one poll")
            t0 = time.monotonic()
            lbd_proc.kill(signal.SIGKILL)
            lbd_proc.wait(5)
            vipd.wait_holders(hosts, VIP, ["r2"], timeout=1 + 3)
            step("VIP on r2 %.2f s after lbd was killed" % (time.monotonic() - t0))
            self.assertEqual([(t["kind"], t["ok"]) for t in v1.inst()["tracks"]],
                             [("lbd", False)])

    def test_track_lbd_with_the_units_privileges(self):
        """As the packaged units run them: lbd as an unprivileged user (its
        unit's DynamicUser) with its admin socket 0600 in a 0750 directory of
        its own, vipd as root with only vipd.service's capability bounding
        set. track_lbd must read the socket, the whole time; without
        CAP_DAC_OVERRIDE (the unit before this test) it cannot."""
        if not os.path.exists(lbd.binary()):
            self.skipTest("lbd is not built")
        try:
            nobody = pwd.getpwnam("nobody")
        except KeyError:
            self.skipTest("no user nobody")
        with cphatest.Lab("vipd-tracklbd-units") as lab:
            r1, r2 = vipd.hosts(lab, 2, client=False)
            backend = r1.spawn(["/usr/bin/python3", "-m", "http.server", "18001", "--bind",
                                "127.0.0.1"], name="http")
            os.chmod(lab.dir, 0o755)  # lbd, as nobody, reads its file in the lab
            run = lab.path("run-lbd", "x").rsplit("/", 1)[0]
            os.chown(run, nobody.pw_uid, nobody.pw_gid)
            os.chmod(run, 0o750)
            sock = os.path.join(run, "admin.sock")
            cfg = lab.path("lbd-units.cfg")
            with open(cfg, "w") as f:
                f.write("global\n    stats socket %s mode 600 level admin\n"
                        "    nbthread 1\n"
                        "defaults\n    mode tcp\n    timeout connect 1s\n"
                        "    timeout client 10s\n    timeout server 10s\n"
                        "listen api\n    bind 127.0.0.1:16443\n"
                        "    server a 127.0.0.1:18001 check inter 200ms fall 1 rise 1\n"
                        % sock)
            os.chmod(cfg, 0o644)
            # lbd starts as nobody, as under DynamicUser= (no root to drop)
            lbd_proc = r1.spawn(["setpriv", "--reuid", str(nobody.pw_uid), "--regid",
                                 str(nobody.pw_gid), "--clear-groups", lbd.binary(), "-db",
                                 "-f", cfg], name="lbd")
            util.wait_until(lambda: os.path.exists(sock), 5, 0.05, "lbd's admin socket")
            self.assertEqual(os.stat(sock).st_uid, nobody.pw_uid)

            def start(caps):
                v = vipd.Vipd(lab, r1, vipd.instance(
                    priority=250, advert=A,
                    extra=["track_lbd {", "    %s api 1 weight -200" % sock, "}"]))
                v.start(prefix=["setpriv", "--bounding-set", caps, "--inh-caps", "-all"])
                return v

            step("vipd without CAP_DAC_OVERRIDE: lbd's socket is out of its reach")
            v1 = start(util.unit_caps("vipd.service", drop=("CAP_DAC_OVERRIDE",)))
            time.sleep(2.5)
            self.assertEqual([(t["kind"], t["ok"]) for t in v1.inst()["tracks"]],
                             [("lbd", False)])
            v1.stop()
            step("vipd with vipd.service's bounding set: track_lbd reads it, every poll")
            v1 = start(util.unit_caps("vipd.service"))
            v2 = vipd.Vipd(lab, r2, vipd.instance(priority=150, advert=A))
            v2.start()
            vipd.wait_holders([r1, r2], VIP, ["r1"], timeout=vipd.master_down(150, A) + 5)
            for _ in range(6):
                time.sleep(1.0)
                self.assertEqual([(t["kind"], t["ok"]) for t in v1.inst()["tracks"]],
                                 [("lbd", True)])
                self.assertEqual(v1.inst()["priority"], 250)
            step("the backend stops: the track fails through the same socket")
            backend.kill(signal.SIGKILL)
            vipd.wait_holders([r1, r2], VIP, ["r2"], timeout=0.2 + 1 + 1 + 3)
            self.assertTrue(lbd_proc.running())

    def test_sync_group_faults_together(self):
        with cphatest.Lab("vipd-sync") as lab:
            cmd, flag = vipd.flag_script(lab, "chk")
            group = "vrrp_sync_group G {\n    group {\n        VI_1\n        VI_2\n    }\n}\n"

            def body(prio, with_script):
                b = vipd.instance("VI_1", vrid=51, priority=prio, advert=A)
                b += vipd.instance("VI_2", vrid=52, priority=prio, advert=A,
                                   vips=(VIP2 + "/24",),
                                   track_script=["chk"] if with_script else ())
                return (vipd.script("chk", cmd, interval=1, weight=0) if with_script else "") \
                    + b + group
            r1, r2, v1, v2 = start_pair(lab, body(250, True), body(150, False))
            vipd.wait_holders([r1, r2], VIP2, ["r1"], timeout=3)
            step("VI_2's check fails on r1 (weight 0: FAULT); VI_1 must follow")
            open(flag, "w").close()
            vipd.wait_holders([r1, r2], VIP2, ["r2"], timeout=1 + 0.2 + 3)
            vipd.wait_holders([r1, r2], VIP, ["r2"], timeout=3)
            self.assertEqual(v1.state("VI_1"), "FAULT")
            self.assertEqual(v1.state("VI_2"), "FAULT")
            step("the check recovers: both come back to r1")
            os.unlink(flag)
            vipd.wait_holders([r1, r2], VIP, ["r1"], timeout=1 + 0.2 + 3)
            vipd.wait_holders([r1, r2], VIP2, ["r1"], timeout=3)


if __name__ == "__main__":
    reason = cphatest.root_skip_reason() or (
        None if os.path.exists(vipd.binary()) else "vipd is not built")
    if reason:
        print("SKIP: %s" % reason)
        sys.exit(77)
    r = unittest.main(exit=False, verbosity=2).result
    sys.exit(0 if r.wasSuccessful() else 1)
