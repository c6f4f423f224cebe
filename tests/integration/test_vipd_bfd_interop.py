#!/usr/bin/env python3
"""vipd's BFD (RFC 5880, single hop RFC 5881) against real peers on one
link: keepalived 2.2.7's own BFD (a bfd_instance, its BFD process only)
and FRR's bfdd when installed.

r1 (198.18.0.11) runs vipd with one bfd_instance to r2 (198.18.0.12):
min_rx 50, min_tx 50, multiplier 3, so vipd declares the peer down
DETECT = 3 x 50 ms after its last packet. r2 runs the peer with the same
timers. For each peer, ROUNDS times:
  - the session comes Up, seen from both sides: vipd's admin socket
    (`show json`, "bfd") and the peer's own view (keepalived's log line for
    its bfd_instance; bfdd's `show bfd peers` through vtysh);
  - the peer is killed (SIGKILL, by PID) and vipd says Down with
    "detection time expired" between DETECT - one tx interval (the last
    packet may have left up to one interval before the kill) and
    3 x DETECT (a loaded machine); every detection time is logged;
  - the peer starts again and the session comes Up again.
IPv6 (2001:db8::11, ::12) against keepalived too, three rounds. A SIGHUP
to vipd with the same bfd_instance keeps the session Up (same
discriminator, no new Up). With bfdd, vipd's metrics say the same as its
admin socket. With keepalived, r1's vipd also has a vrrp_instance with `track_bfd` (no
weight): FAULT while the session is down, MASTER once it is Up, as
keepalived's track_bfd does.

Exit 0 pass, 77 skip (not root, vipd not built, the peer missing: the
reason is printed), else fail.
    sudo python3 tests/integration/test_vipd_bfd_interop.py [-v]
"""

import json
import os
import re
import shutil
import signal
import sys
import time
import unittest

sys.dont_write_bytecode = True

import cphatest  # noqa: E402
from cphatest import step, util, vipd  # noqa: E402

INTERVAL = 0.05
MULT = 3
DETECT = MULT * INTERVAL
ROUNDS = 10
UP_TIMEOUT = 15.0  # slow start (1 s packets while not Up) on a loaded machine
BFDD = "/usr/lib/frr/bfdd"
VTYSH = "/usr/bin/vtysh"

R1, R2 = vipd.ROUTER_IPS[0], vipd.ROUTER_IPS[1]


def bfd_block(name, neighbor, source):
    return ("bfd_instance %s {\n    neighbor_ip %s\n    source_ip %s\n"
            "    min_rx %d\n    min_tx %d\n    idle_tx 1000\n    multiplier %d\n}\n"
            % (name, neighbor, source, INTERVAL * 1000, INTERVAL * 1000, MULT))


def session(v):
    """vipd's view of its one BFD session (None while it does not answer)."""
    j = v.show()
    if not j or not j.get("bfd"):
        return None
    return j["bfd"][0]


def wait_up(v, timeout=UP_TIMEOUT):
    t0 = time.monotonic()
    util.wait_until(lambda: (session(v) or {}).get("state") == "Up", timeout, 0.02,
                    "vipd's BFD session Up")
    return time.monotonic() - t0


def detect(test, v, t_kill, what):
    """Wait for vipd to say Down; check the time from the kill."""
    util.wait_until(lambda: (session(v) or {}).get("state") == "Down", 5, 0.005,
                    "vipd's BFD session Down after %s" % what)
    took = time.time() - t_kill
    s = session(v)
    step("%s: vipd said Down %.0f ms after the kill (detection time %.0f ms)"
         % (what, took * 1000, s["detect_time_us"] / 1000.0))
    test.assertEqual(s["diag"], "detection time expired", s)
    test.assertEqual(s["detect_time_us"], int(DETECT * 1e6), s)
    # not before the detection time less one tx interval, not absurdly late
    test.assertGreaterEqual(took, DETECT - INTERVAL - 0.01, s)
    test.assertLess(took, 3 * DETECT, s)
    return took


class KeepalivedBfd:
    """keepalived with only a bfd_instance (its VRRP and checker children
    have nothing to do), in the foreground, its pid files in the lab
    directory."""

    UP = re.compile(r"\((\S+)\) Entering Up state")

    def __init__(self, lab, host, body):
        self.host = host
        self.dir = os.path.dirname(lab.path("ka-bfd-%s" % host.name, "x"))
        self.conf = os.path.join(self.dir, "keepalived.conf")
        with open(self.conf, "w") as f:
            f.write(vipd.config(body, 3, "ka-bfd"))
        self.proc = None

    def pidfile(self, what):
        return os.path.join(self.dir, what + ".pid")

    def start(self):
        for w in ("keepalived", "vrrp", "checkers", "bfd"):
            if os.path.exists(self.pidfile(w)):
                os.unlink(self.pidfile(w))
        self.proc = self.host.spawn(
            [vipd.KEEPALIVED, "-n", "-l", "-D", "-R", "-f", self.conf,
             "-p", self.pidfile("keepalived"), "-r", self.pidfile("vrrp"),
             "-c", self.pidfile("checkers"), "-b", self.pidfile("bfd")],
            name="keepalived-bfd")
        self.ups_at_start = self.ups()

    BAD = re.compile(r"bogus|Discarding|both poll and final|invalid|malformed", re.I)

    def bad_lines(self):
        """keepalived's complaints about vipd's packets."""
        return [ln for ln in self.proc.log_text().splitlines() if self.BAD.search(ln)]

    def up(self):
        """keepalived logged its session Up since this start."""
        return self.ups() > self.ups_at_start

    def bfd_pid(self):
        """The BFD child (checked to be our keepalived's child)."""
        util.wait_until(lambda: os.path.exists(self.pidfile("bfd")), 5, 0.02,
                        "keepalived's bfd pid file")
        with open(self.pidfile("bfd")) as f:
            pid = int(f.read().split()[0])
        with open("/proc/%d/stat" % pid) as f:
            ppid = int(f.read().rsplit(")", 1)[1].split()[1])
        if ppid != self.proc.pid:
            raise AssertionError("bfd pid %d is not a child of %d" % (pid, self.proc.pid))
        return pid

    def ups(self):
        return len(self.UP.findall(self.proc.log_text())) if self.proc else 0

    def kill(self):
        """SIGKILL the BFD child, then the parent: nothing is sent."""
        child = self.bfd_pid()
        t = time.time()
        os.kill(child, signal.SIGKILL)
        self.proc.kill(signal.SIGKILL)
        self.proc.wait(timeout=5)
        for _ in range(250):
            if not util.pid_alive(child):
                break
            time.sleep(0.02)
        return t


class Bfdd:
    """FRR's bfdd alone, as the frr user (its vty group is frrvty), with
    its configuration file, pid file, control and vty sockets in the lab
    directory; no zebra (nothing here needs interface data from it: the
    peer is a plain single-hop address). vtysh reads its view through its
    vty socket."""

    def __init__(self, lab, host):
        self.host = host
        self.dir = os.path.dirname(lab.path("bfdd-%s" % host.name, "x"))
        os.chmod(self.dir, 0o777)
        # bfdd drops to the frr user: let it reach its directory
        top = os.path.dirname(self.dir)
        os.chmod(top, os.stat(top).st_mode | 0o011)
        self.conf = os.path.join(self.dir, "bfdd.conf")
        with open(self.conf, "w") as f:
            f.write("bfd\n peer %s local-address %s\n  receive-interval %d\n"
                    "  transmit-interval %d\n  detect-multiplier %d\n  no shutdown\n"
                    " exit\nexit\n" % (R1, R2, INTERVAL * 1000, INTERVAL * 1000, MULT))
        os.chmod(self.conf, 0o644)
        self.proc = None

    def start(self):
        vty = os.path.join(self.dir, "bfdd.vty")
        if os.path.exists(vty):
            os.unlink(vty)
        self.proc = self.host.spawn(
            [BFDD, "-u", "frr", "-g", "frr", "-f", self.conf, "--vty_socket", self.dir,
             "-i", os.path.join(self.dir, "bfdd.pid"), "--bfdctl",
             os.path.join(self.dir, "bfdd.sock"), "-z", os.path.join(self.dir, "zserv.api"),
             "-A", "127.0.0.1", "-P", "0", "--log", "stdout"],
            name="bfdd")
        util.wait_until(lambda: os.path.exists(vty), 10, 0.05, "bfdd's vty socket")

    def vtysh(self, lines):
        argv = [VTYSH, "--vty_socket", self.dir, "-d", "bfdd"]
        for ln in lines:
            argv += ["-c", ln]
        r = self.host.run(argv, check=False)
        return r.stdout + r.stderr

    def peer_up(self):
        out = self.vtysh(["show bfd peers"])
        return re.search(r"Status:\s*up", out) is not None

    def kill(self):
        t = time.time()
        self.proc.kill(signal.SIGKILL)
        self.proc.wait(timeout=5)
        return t


class BfdInterop(unittest.TestCase):

    def rounds(self, v, peer, peer_up, what, peer_bad=lambda: [], rounds=ROUNDS):
        took = wait_up(v)
        util.wait_until(peer_up, UP_TIMEOUT, 0.05, "%s's view: session Up" % what)
        step("%s: Up on both sides after %.1f s" % (what, took))
        downs = session(v)["downs"]
        times = []
        for i in range(rounds):
            ups = session(v)["ups"]
            t = peer.kill()
            times.append(detect(self, v, t, "%s round %d" % (what, i + 1)))
            peer.start()
            wait_up(v)
            util.wait_until(peer_up, UP_TIMEOUT, 0.05, "%s's view: Up again" % what)
            self.assertEqual(session(v)["ups"], ups + 1)
            self.assertEqual(peer_bad(), [], "%s complains about vipd's packets" % what)
        step("%s: %d detections, %.0f..%.0f ms after the kill (detection time %.0f ms)"
             % (what, len(times), min(times) * 1000, max(times) * 1000, DETECT * 1000))
        self.assertEqual(session(v)["downs"], downs + rounds)
        self.assertEqual([ln for ln in v.log_text().splitlines() if "packet dropped" in ln],
                         [])

    def test_keepalived(self):
        why = vipd.keepalived_skip_reason()
        if why:
            self.skipTest(why)
        with cphatest.Lab("vipd-bfd-ka") as lab:
            r1, r2 = vipd.hosts(lab, 2, client=False)
            # track_bfd with no weight (keepalived's meaning): FAULT while
            # the session is down, the VIP held (alone) while it is Up
            v = vipd.Vipd(lab, r1, bfd_block("to_r2", R2, R1) + vipd.instance(
                priority=150, extra=["    track_bfd {", "        to_r2", "    }"]))
            ka = KeepalivedBfd(lab, r2, bfd_block("to_r1", R1, R2))
            v.start()
            self.assertEqual(v.state(), "FAULT")
            ka.start()
            v.wait_state("MASTER", UP_TIMEOUT)
            t = ka.kill()
            v.wait_state("FAULT", 3 * DETECT + 1)
            step("track_bfd: FAULT %.0f ms after the kill" % ((time.time() - t) * 1000))
            ka.start()
            v.wait_state("MASTER", UP_TIMEOUT)
            self.rounds(v, ka, ka.up, "keepalived", ka.bad_lines)
            # a reload with the same bfd_instance keeps the session running
            ups, pid = session(v)["ups"], session(v)["local_discriminator"]
            v.proc.kill(signal.SIGHUP)
            util.wait_until(lambda: "reloaded" in v.log_text(), 5, 0.05, "vipd's reload")
            time.sleep(3 * DETECT)
            s = session(v)
            self.assertEqual((s["state"], s["ups"], s["local_discriminator"]),
                             ("Up", ups, pid), s)
            step("keepalived: the session ran on through vipd's reload")

    def test_keepalived_ipv6(self):
        """IPv6: keepalived sends with hop limit 64 by default, and vipd's
        hoplimit default (64, as keepalived's) accepts it."""
        why = vipd.keepalived_skip_reason()
        if why:
            self.skipTest(why)
        with cphatest.Lab("vipd-bfd-ka6") as lab:
            r1, r2 = vipd.hosts(lab, 2, client=False, v6=True)
            a1, a2 = vipd.ROUTER_IP6S[0], vipd.ROUTER_IP6S[1]
            v = vipd.Vipd(lab, r1, bfd_block("to_r2", a2, a1))
            ka = KeepalivedBfd(lab, r2, bfd_block("to_r1", a1, a2))
            v.start()
            ka.start()
            self.rounds(v, ka, ka.up, "keepalived IPv6", ka.bad_lines, rounds=3)

    def test_frr_bfdd(self):
        if not os.access(BFDD, os.X_OK) or not os.access(VTYSH, os.X_OK):
            self.skipTest("FRR's bfdd is not installed (%s, %s; Debian package frr, "
                          "scripts/setup.sh installs it)" % (BFDD, VTYSH))
        with cphatest.Lab("vipd-bfd-frr") as lab:
            r1, r2 = vipd.hosts(lab, 2, client=False)
            v = vipd.Vipd(lab, r1, bfd_block("to_r2", R2, R1),
                          global_extra=["vipd_metrics_bind 127.0.0.1:9121"])
            b = Bfdd(lab, r2)
            v.start()
            b.start()
            self.rounds(v, b, b.peer_up, "bfdd")
            # the same in the metrics
            m = vipd.metrics(r1, "127.0.0.1:9121")
            lab_ = (("session", "to_r2"),)
            self.assertEqual(m[("vipd_bfd_session_state", lab_)], 3.0, m)
            self.assertEqual(m[("vipd_bfd_session_downs_total", lab_)], ROUNDS, m)
            self.assertAlmostEqual(m[("vipd_bfd_detect_time_seconds", lab_)], DETECT)
            self.assertGreater(m[("vipd_bfd_packets_total",
                                  (("direction", "in"), ("session", "to_r2")))], 0)
            # and in /status, what cpha status reads
            r = r1.curl("http://127.0.0.1:9121/status", timeout=3)
            self.assertEqual(r.status, 200, r.stderr)
            self.assertEqual(json.loads(r.body)["bfd"],
                             [{"name": "to_r2", "neighbor": R2, "state": "Up"}])


def main():
    vipd.require(tools=())
    return util.run_tests()


if __name__ == "__main__":
    sys.exit(main())
