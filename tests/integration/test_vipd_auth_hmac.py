#!/usr/bin/env python3
"""auth_hmac (keepalived 2.4.3's HMAC-SHA256 trailer) in running vipd:
signed adverts on the wire, a wrong key dropped, a migration from unsigned
adverts without the VIP moving, and receive-only beside a keepalived that
has no auth_hmac (Debian 12's 2.2.7). The trailer's bytes are pinned by
keepalived 2.4.3's own packets in unit.vipd_hmac; this is the daemon.

Each case runs in a lab of its own: r1 (198.18.0.11) with priority 200,
r2 (.12) with 100, one instance VI_1 (VRID 51, VIP 198.18.0.100/24),
advert_int 0.2 s, VRRPv3 multicast.

- signed pair: both enforce with the same key. r1 holds the VIP and r2
  stays BACKUP, accepting every advert as signed; every advert on the wire
  from either carries the 28-byte trailer. Kill r1's vipd (SIGKILL, by
  PID): r2 takes over; start it again: it takes the VIP back.
- wrong key: r2's key differs (same id). r2 drops r1's adverts
  (auth_hmac_bad_hmac) and takes the VIP too: both hold it, as two
  keepalived with different keys would. r2 reloaded (SIGHUP) with r1's
  key: it steps down, and only r1 holds the VIP.
- migration: r1 without auth_hmac; r2 receive-only, then permissive: r2
  stays BACKUP and counts the unsigned adverts it accepts (show json and
  vipd_auth_hmac_accepted_total{signed="no"}). r1 reloaded to permissive:
  its adverts are signed from then on and r2's unsigned count stops. Then
  both enforce. The VIP stays on r1 throughout and is never removed.
- keepalived 2.2.7 (no auth_hmac) and vipd receive-only, each as master
  in turn: the other stays BACKUP (receive-only sends plain adverts and
  accepts keepalived's); kill the master, the other takes over.

Exit 0 pass, 77 skip (not root, tcpdump missing, vipd not built; the
keepalived case alone skips without keepalived), else fail.
    sudo python3 tests/integration/test_vipd_auth_hmac.py [-v]
"""

import signal
import sys
import time
import unittest

sys.dont_write_bytecode = True

import cphatest  # noqa: E402
from cphatest import util, vipd  # noqa: E402

ADVERT = 0.2
PRIO = {"r1": 200, "r2": 100}
KEY = "cpha-test-hmac-key-0123456789abcdef"
OTHER_KEY = "cpha-test-hmac-key-another-one-98765"
TRAILER = 28
PORT = 9651


def hmac_block(mode="enforce", key=KEY, key_id=1):
    return ["auth_hmac {", "    key %d %s" % (key_id, key), "    active_key %d" % key_id,
            "    mode %s" % mode, "}"]


class AuthHmac(unittest.TestCase):

    def setup_lab(self, lab):
        hs = vipd.hosts(lab, 2)
        self.routers = hs[:2]
        self.host = {h.name: h for h in hs}
        self.mac = {h.name: vipd.mac(h) for h in self.routers}
        self.cap = vipd.Capture(self.host["c"])

    def body(self, name, extra=()):
        return vipd.instance(priority=PRIO[name], advert=ADVERT, extra=list(extra))

    def vipd_on(self, lab, name, extra=(), label=""):
        ip = vipd.ROUTER_IPS[int(name[1:]) - 1]
        return vipd.Vipd(lab, self.host[name], self.body(name, extra),
                         global_extra=["vipd_metrics_bind %s:%d" % (ip, PORT)],
                         name="vipd" + label)

    def reload(self, d, name, extra):
        d.write(self.body(name, extra))
        d.proc.kill(signal.SIGHUP)
        vipd.wait_log(d.proc, "reloaded", 5)

    def mdi(self, name):
        return vipd.master_down(PRIO[name], ADVERT)

    def hmac(self, d):
        return d.inst()["auth_hmac"]

    def accepted(self, name, signed):
        ip = vipd.ROUTER_IPS[int(name[1:]) - 1]
        m = vipd.metrics(self.host[name], "%s:%d" % (ip, PORT))
        return vipd.metric(m, "vipd_auth_hmac_accepted_total", vrrp_instance="VI_1",
                           signed=signed)

    def adverts(self, name, since=0.0):
        return [p for p in self.cap.packets("vrrp")
                if p.smac == self.mac[name] and p.ts >= since]

    def assert_signed(self, ps, signed, what):
        self.assertTrue(ps, "no advert from %s on the wire" % what)
        for p in ps:
            plain = 8 + 4 * p.naddrs
            self.assertEqual(p.length, plain + TRAILER if signed else plain,
                             "%s: %r" % (what, p))

    def test_signed_pair(self):
        with cphatest.Lab("vipd-hmac-pair") as lab:
            self.setup_lab(lab)
            r1 = self.vipd_on(lab, "r1", hmac_block())
            r2 = self.vipd_on(lab, "r2", hmac_block())
            r1.start()
            vipd.wait_holders(self.routers, vipd.VIP, ["r1"], self.mdi("r1") + 3)
            r2.start()
            # r2's whole Master_Down_Interval and more: had it dropped r1's
            # signed adverts, it would have taken the VIP
            vipd.steady_holders(self.routers, vipd.VIP, ["r1"], self.mdi("r2") + 0.3)
            self.assertEqual(r2.state(), "BACKUP")
            h = self.hmac(r2)
            self.assertEqual((h["mode"], h["active_key"], h["signs"]), ("enforce", 1, True))
            self.assertGreaterEqual(h["accepted"], 3, h)
            self.assertEqual(h["accepted_unsigned"], 0, h)
            self.assertEqual(r2.bad_packets(), {})
            self.assertRegex(r2.admin("show"),
                             r"auth_hmac enforce, key 1: accepted \d+ signed, 0 unsigned; "
                             r"dropped 0")
            util.step("r2 BACKUP, %d of r1's adverts accepted as signed" % h["accepted"])
            pid = r1.pid
            r1.crash()  # nothing sent: the VIP stays on r1's interface
            took = vipd.wait_holders([self.host["r2"]], vipd.VIP, ["r2"], self.mdi("r2") + 3)
            util.step("SIGKILL r1's vipd (pid %d): r2 took the VIP %.3fs later" % (pid, took))
            r1b = self.vipd_on(lab, "r1", hmac_block(), label="-again")
            r1b.start()
            vipd.wait_holders(self.routers, vipd.VIP, ["r1"], self.mdi("r1") + 3)
            vipd.steady_holders(self.routers, vipd.VIP, ["r1"], 0.5)
            self.assertEqual(r2.state(), "BACKUP")
            # r1 came back as BACKUP and heard r2 as master before preempting
            self.assertGreaterEqual(self.hmac(r1b)["accepted"], 1)
            for d in (r1b, r2):
                self.assertEqual(d.bad_packets(), {})
            util.step("r1 back: it took the VIP back from r2")
            self.assert_signed(self.adverts("r1"), True, "r1")
            self.assert_signed(self.adverts("r2"), True, "r2")
            util.step("every advert on the wire carries the trailer (%d from r1, %d from r2)"
                      % (len(self.adverts("r1")), len(self.adverts("r2"))))

    def test_wrong_key_dropped(self):
        with cphatest.Lab("vipd-hmac-wrongkey") as lab:
            self.setup_lab(lab)
            r1 = self.vipd_on(lab, "r1", hmac_block())
            r2 = self.vipd_on(lab, "r2", hmac_block(key=OTHER_KEY))
            r1.start()
            vipd.wait_holders(self.routers, vipd.VIP, ["r1"], self.mdi("r1") + 3)
            r2.start()
            vipd.wait_holders(self.routers, vipd.VIP, ["r1", "r2"], self.mdi("r2") + 3)
            util.wait_until(lambda: r2.bad_packets().get("auth_hmac_bad_hmac", 0) >= 3, 3, 0.05,
                            "r2 to drop 3 adverts as auth_hmac_bad_hmac")
            bad = r2.bad_packets()["auth_hmac_bad_hmac"]
            self.assertEqual(list(r2.bad_packets()), ["auth_hmac_bad_hmac"])
            self.assertEqual(self.hmac(r2)["accepted"], 0)
            self.assertIn("auth_hmac: bad_hmac", r2.log_text())
            util.step("r2 dropped %d of r1's adverts (bad hmac) and holds the VIP too" % bad)
            self.reload(r2, "r2", hmac_block())
            vipd.wait_holders(self.routers, vipd.VIP, ["r1"], 3)
            r2.wait_state("BACKUP", 3)
            vipd.steady_holders(self.routers, vipd.VIP, ["r1"], self.mdi("r2") + 0.3)
            self.assertGreaterEqual(self.hmac(r2)["accepted"], 1)
            util.step("r2 reloaded with r1's key: BACKUP, only r1 holds the VIP")

    def test_migration(self):
        with cphatest.Lab("vipd-hmac-migrate") as lab:
            self.setup_lab(lab)
            watch = vipd.Watch(self.host["r1"])
            r1 = self.vipd_on(lab, "r1")
            r2 = self.vipd_on(lab, "r2", hmac_block("receive-only"))
            r1.start()
            vipd.wait_holders(self.routers, vipd.VIP, ["r1"], self.mdi("r1") + 3)
            r2.start()
            vipd.steady_holders(self.routers, vipd.VIP, ["r1"], self.mdi("r2") + 0.3)
            h = self.hmac(r2)
            self.assertEqual((h["mode"], h["signs"]), ("receive-only", False))
            self.assertGreaterEqual(h["accepted_unsigned"], 3, h)
            self.assertEqual(h["accepted"], h["accepted_unsigned"])
            util.step("receive-only: r2 BACKUP, %d unsigned adverts accepted"
                      % h["accepted_unsigned"])

            self.reload(r2, "r2", hmac_block("permissive"))
            vipd.steady_holders(self.routers, vipd.VIP, ["r1"], self.mdi("r2") + 0.3)
            self.assertEqual(r2.state(), "BACKUP")
            before = self.hmac(r2)["accepted_unsigned"]
            self.assertGreater(before, h["accepted_unsigned"])
            m = self.accepted("r2", "no")
            self.assertTrue(before <= m <= self.hmac(r2)["accepted_unsigned"],
                            "vipd_auth_hmac_accepted_total{signed=\"no\"} %s, show json %d"
                            % (m, before))
            util.step("permissive: r2 BACKUP, still accepting unsigned adverts (%d)" % before)

            t_signed = time.time()
            self.reload(r1, "r1", hmac_block("permissive"))
            self.assertEqual(r1.state(), "MASTER")
            time.sleep(3 * ADVERT)  # an advert sent before the reload may still arrive
            unsigned = self.hmac(r2)["accepted_unsigned"]
            signed0 = self.accepted("r2", "yes")
            vipd.steady_holders(self.routers, vipd.VIP, ["r1"], self.mdi("r2") + 0.3)
            self.assertEqual(self.hmac(r2)["accepted_unsigned"], unsigned)
            self.assertGreater(self.accepted("r2", "yes"), signed0)
            self.assert_signed(self.adverts("r1", t_signed + 3 * ADVERT), True, "r1, permissive")
            util.step("r1 permissive: its adverts are signed, r2's unsigned count stopped at %d"
                      % unsigned)

            self.reload(r1, "r1", hmac_block())
            self.reload(r2, "r2", hmac_block())
            vipd.steady_holders(self.routers, vipd.VIP, ["r1"], self.mdi("r2") + 0.3)
            self.assertEqual((r1.state(), r2.state()), ("MASTER", "BACKUP"))
            self.assertEqual(self.hmac(r1)["mode"], "enforce")
            for d in (r1, r2):
                self.assertEqual(d.bad_packets(), {})
            self.assert_signed(self.adverts("r1", t_signed + 3 * ADVERT), True, "r1")
            events = watch.addr_events(vipd.VIP)
            self.assertEqual([w for _, w in events], ["add"],
                             "the VIP was added once to r1 and never removed: %s" % events)
            util.step("both enforce: r1 MASTER, r2 BACKUP, the VIP never left r1")

    def test_receive_only_beside_keepalived(self):
        reason = vipd.keepalived_skip_reason()
        if reason:
            self.skipTest(reason)
        for kind1, kind2 in (("keepalived", "vipd"), ("vipd", "keepalived")):
            with cphatest.Lab("vipd-hmac-ka-" + kind1[:2]) as lab:
                self.setup_lab(lab)

                def make(kind, name, label=""):
                    if kind == "vipd":
                        return self.vipd_on(lab, name, hmac_block("receive-only"), label)
                    return vipd.Keepalived(lab, self.host[name], self.body(name),
                                           name="keepalived" + label)

                d1, d2 = make(kind1, "r1"), make(kind2, "r2")
                d1.start()
                vipd.wait_holders(self.routers, vipd.VIP, ["r1"], self.mdi("r1") + 3)
                d2.start()
                vipd.steady_holders(self.routers, vipd.VIP, ["r1"], self.mdi("r2") + 0.3)
                v = d2 if kind2 == "vipd" else d1
                ka = d1 if kind1 == "keepalived" else d2
                if kind2 == "vipd":
                    self.assertEqual(d2.state(), "BACKUP")
                    self.assertGreaterEqual(self.hmac(d2)["accepted_unsigned"], 3)
                else:
                    self.assertEqual(d2.states(), ["BACKUP"])
                self.assert_signed(self.adverts("r1"), False, "r1 (%s)" % kind1)
                self.assertEqual(v.bad_packets(), {})
                d1.crash()  # nothing sent: the VIP stays on r1's interface
                took = vipd.wait_holders([self.host["r2"]], vipd.VIP, ["r2"],
                                         self.mdi("r2") + 3)
                self.assertEqual(ka.bad_lines(), [], ka.log_text()[-2000:])
                util.step("%s master, %s (%s) BACKUP; %s killed, %s took the VIP %.3fs later"
                          % (kind1, kind2, "receive-only" if kind2 == "vipd" else "2.2.7",
                             kind1, kind2, took))


if __name__ == "__main__":
    sys.exit(vipd.unittest_main())
