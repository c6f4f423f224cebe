#!/usr/bin/env python3
"""A client on the link follows the VIP when vipd moves it: its ARP and
IPv6 neighbour caches point at the new master right after the new
master's first announcement, and its pings reach the new master.

r1 (priority 250) and r2 (150) run vipd with two VRRPv3 instances,
advert_int A = 0.2 s: VI_1 (VRID 51, 198.18.0.100/24) and VI_6 (VRID 52,
2001:db8::100/64, sent from the routers' link-local addresses). The
client c (198.18.0.50, 2001:db8::50) has pinged both VIPs, so its caches
hold r1's MAC. r1's vipd is killed with SIGKILL: the VIPs stay configured
on r1 (a crash removes nothing), so r1 would still answer a client that
kept sending to its MAC.

Checked from the client: tcpdump (the new master's gratuitous ARP /
unsolicited neighbour advertisement with the override flag) and
`ip -ts monitor neigh` (when the cache entry changed), then a ping of
each VIP and the ICMP echo counters of r1 and r2 (/proc/net/snmp and
snmp6 in each namespace): the echo must reach r2, not r1.

Bounds: the cache entry changes when the announcement arrives; 0.2 s
allows for the monitor's timestamp on a loaded host (measured: well
under 1 ms). The client must not have asked for the VIP itself (no ARP
request / neighbour solicitation from it between the kill and the
change), so the change is the announcement's doing. The announcement
comes MDI(150) = 0.6828 s after r1's last advertisement, at most A
before the kill.

Exit 0 pass, 77 skip (not root, tcpdump missing, vipd not built), else fail.
    sudo python3 tests/integration/test_vipd_client.py [-v]
"""

import sys
import unittest

sys.dont_write_bytecode = True

import cphatest  # noqa: E402
from cphatest import step, vipd  # noqa: E402
from cphatest.vipd import VIP, VIP6  # noqa: E402

A = 0.2
MARGIN = 0.15
EPS = 0.005
CACHE_BOUND = 0.2


def body(name, prio):
    return (vipd.instance(priority=prio, advert=A) +
            vipd.instance(name="VI_6", vrid=52, priority=prio, advert=A,
                          vips=(VIP6 + "/64",)))


class ClientView(unittest.TestCase):

    def test_caches_follow_the_vip(self):
        with cphatest.Lab("vipd-client") as lab:
            bed = vipd.Bed(lab, {"r1": 250, "r2": 150}, advert=A, v6=True, body=body)
            c = bed.client
            r1, r2 = bed.routers
            mac1, mac2 = bed.mac["r1"], bed.mac["r2"]
            bed.start()
            for ip in (VIP, VIP6):
                bed.wait_holders(["r1"], timeout=bed.mdi("r1") + 3, ip=ip)
                self.assertTrue(vipd.ping(c, ip), "no answer from %s" % ip)
                self.assertEqual(vipd.neigh(c, ip)[0], mac1)
            step("the client's caches hold r1's MAC %s for both VIPs" % mac1)
            watch = vipd.Watch(c, ("neigh",), name="ipmon-neigh")
            echo1 = (vipd.echo_requests(r1), vipd.echo_requests(r1, v6=True))
            echo2 = (vipd.echo_requests(r2), vipd.echo_requests(r2, v6=True))

            step("SIGKILL r1's vipd")
            t_kill = bed.vipd["r1"].crash()
            for ip in (VIP, VIP6):
                cphatest.wait_until(lambda ip=ip: vipd.neigh(c, ip)[0] == mac2,
                                    bed.mdi("r2") + 2, 0.02, "the client's cache for %s "
                                    "to hold r2's MAC" % ip)
            # the crash left both VIPs on r1: reaching r2 is the caches' doing
            self.assertTrue(vipd.has_addr(r1, VIP) and vipd.has_addr(r1, VIP6))
            for ip, kind in ((VIP, "ARP"), (VIP6, "NA")):
                ann = cphatest.wait_until(lambda ip=ip: bed.cap.garps(ip, smac=mac2), 2, 0.02,
                                          "an announcement of %s from r2" % ip)
                first = ann[0]
                if kind == "NA":
                    self.assertEqual(first.tlla, mac2)
                changed = watch.first_neigh(ip, mac2, after=t_kill)
                delta = changed - first.ts
                asked = [p for p in bed.cap.packets()
                         if p.smac == bed.mac["c"] and t_kill <= p.ts <= changed and
                         ((p.kind == "arp" and p.op == 1 and p.tpa == ip) or
                          (p.kind == "ns" and p.target == ip))]
                step("%s: r2's first %s %.3fs after the kill (%d so far); the "
                     "client's cache changed %.4fs after it"
                     % (ip, kind, first.ts - t_kill, len(ann), delta))
                self.assertGreaterEqual(first.ts - t_kill, bed.mdi("r2") - A - EPS)
                self.assertLessEqual(first.ts - t_kill, bed.mdi("r2") + MARGIN)
                self.assertGreaterEqual(delta, -EPS)
                self.assertLessEqual(delta, CACHE_BOUND)
                self.assertEqual(asked, [], "the client resolved %s itself" % ip)

            step("ping both VIPs from the client: r2 must get the echoes, not r1")
            for ip in (VIP, VIP6):
                self.assertTrue(vipd.ping(c, ip, count=2), "no answer from %s" % ip)
            got1 = (vipd.echo_requests(r1) - echo1[0],
                    vipd.echo_requests(r1, v6=True) - echo1[1])
            got2 = (vipd.echo_requests(r2) - echo2[0],
                    vipd.echo_requests(r2, v6=True) - echo2[1])
            step("echo requests since the kill (IPv4, IPv6): r1 %s, r2 %s" % (got1, got2))
            self.assertEqual(got1, (0, 0))
            self.assertEqual(got2, (2, 2))


def main():
    vipd.require()
    prog = unittest.main(exit=False, verbosity=2)
    return 0 if prog.result.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main())
