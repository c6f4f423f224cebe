#!/usr/bin/env python3
"""cphalab.arpwatch, the soak's ARP view of the VIP from the client, on
three test hosts: the VIP on one host, then on two (both answer), then on
one again; a gratuitous ARP is not counted as an answer. Exit 0 pass, 77
skip (not root), else fail.
    sudo python3 tests/integration/test_lab_arpwatch.py
"""

import sys
import time
import unittest

sys.dont_write_bytecode = True

import cphatest  # noqa: E402
from cphatest import step  # noqa: E402
from cphalab import arpwatch  # noqa: E402

VIP = "198.18.0.2"


def mac(host):
    return host.run(["cat", "/sys/class/net/eth0/address"]).stdout.strip()


class ArpWatchTest(unittest.TestCase):
    def test_frames(self):
        me = bytes.fromhex("020000000031")
        other = bytes.fromhex("020000000021")
        req = arpwatch.request(me, "198.18.0.31", VIP)
        self.assertEqual(len(req), 42)
        self.assertIsNone(arpwatch.parse_reply(req, VIP, "198.18.0.31"))  # a request
        reply = bytearray(req)
        reply[0:6], reply[6:12] = me, other
        reply[20:22] = b"\x00\x02"
        reply[22:28], reply[28:32] = other, bytes([198, 18, 0, 2])
        reply[32:38], reply[38:42] = me, bytes([198, 18, 0, 31])
        self.assertEqual(arpwatch.parse_reply(bytes(reply), VIP, "198.18.0.31"), other)
        garp = bytearray(reply)
        garp[38:42] = bytes([198, 18, 0, 2])  # a gratuitous reply: about the VIP, to nobody
        self.assertIsNone(arpwatch.parse_reply(bytes(garp), VIP, "198.18.0.31"))
        self.assertIsNone(arpwatch.parse_reply(bytes(reply), "198.18.0.3", "198.18.0.31"))
        self.assertIsNone(arpwatch.parse_reply(bytes(reply[:30]), VIP, "198.18.0.31"))

    def test_two_holders(self):
        with cphatest.Lab("lab-arpwatch") as lab:
            client = lab.add_host("client", v4="198.18.0.31/24")
            a = lab.add_host("a", v4="198.18.0.21/24")
            b = lab.add_host("b", v4="198.18.0.22/24")
            names = {mac(a): "a", mac(b): "b"}
            a.run(["ip", "addr", "add", VIP + "/24", "dev", "eth0"])
            for rnd in range(3):  # the watcher again and again, from a fresh start
                step("round %d: the VIP on a only" % (rnd + 1))
                w = arpwatch.ArpWatch(client.ns, client.v4, VIP, names, interval=0.1)
                w.start()
                time.sleep(2)
                self.assertIsNone(w.error)
                self.assertGreaterEqual(w.rounds, 10, "requests sent in 2 s")
                self.assertGreaterEqual(w.answered, w.rounds - 2, "a answers every request")
                self.assertEqual(w.doubles, [])
                # the requests name the client's own address: the hosts
                # that learn it from them still reach the client
                self.assertEqual(w.mac, mac(client))
                r = a.run(["ip", "neigh", "show", client.v4, "dev", "eth0"])
                self.assertIn(mac(client), r.stdout, "a's entry for the client: " + r.stdout)
                r = client.run(["ping", "-c", "3", "-i", "0.2", "-W", "1", VIP], check=False)
                self.assertEqual(r.returncode, 0, "the VIP answers the client while watched: " +
                                 r.stdout + r.stderr)
                step("the VIP on b too: both answer")
                t = time.time()
                b.run(["ip", "addr", "add", VIP + "/24", "dev", "eth0"])
                time.sleep(1.5)
                n = len(w.doubles)
                self.assertGreaterEqual(n, 5, "requests answered twice in 1.5 s")
                self.assertTrue(all(d[1] == ["a", "b"] for d in w.doubles), w.doubles)
                self.assertTrue(all(d[0] >= t - 0.2 for d in w.doubles), w.doubles)
                step("the VIP off a: b alone answers")
                a.run(["ip", "addr", "del", VIP + "/24", "dev", "eth0"])
                time.sleep(0.3)
                n = len(w.doubles)
                before = w.answered
                time.sleep(1.5)
                self.assertEqual(len(w.doubles), n, w.doubles[n:])
                self.assertGreaterEqual(w.answered - before, 10)
                w.stop()
                self.assertFalse(w.is_alive())
                # back to the start: the VIP on a alone
                b.run(["ip", "addr", "del", VIP + "/24", "dev", "eth0"])
                a.run(["ip", "addr", "add", VIP + "/24", "dev", "eth0"])
            step("a namespace that does not exist: an error, not a crash")
            w = arpwatch.ArpWatch("ct-no-such-ns", client.v4, VIP, names)
            w.start()
            w.join(5)
            self.assertIn("no-such-ns", w.error or "")


def main():
    reason = cphatest.root_skip_reason()
    if reason is not None:
        print("SKIP: %s" % reason)
        return cphatest.SKIP
    suite = unittest.TestLoader().loadTestsFromTestCase(ArpWatchTest)
    try:
        result = unittest.TextTestRunner(verbosity=2, stream=sys.stdout).run(suite)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return cphatest.interrupted_status()
    return 0 if result.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main())
