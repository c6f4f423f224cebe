#!/usr/bin/env python3
"""vipd and the real keepalived (2.2.7) on one link, VRRPv3: each as
master with the other as backup, multicast and unicast, IPv4 and IPv6.

Every case runs in a lab of its own: r1 (198.18.0.11 / 2001:db8::11) runs
the master side with priority 200, r2 (.12 / ::12) the backup side with
100, one instance VI_1 (VRID 51, VIP 198.18.0.100/24 or
2001:db8::100/64), advert_int 0.2 s; unicast cases name each other's
address in unicast_src_ip / unicast_peer. IPv6 adverts leave from the
link-local address (multicast) or the configured global one (unicast).
See cphatest.vipd.Interop for the steps; in short: the right one holds
the VIP, the backup stays backup for its whole Master_Down_Interval (it
accepts the other's adverts), SIGKILL the master and the backup takes
over MDI(100) = 3 x 0.2 + 156 x 0.2 / 256 = 0.7219 s after the last
advert (+ MARGIN 0.15 s), the crashed side comes back and preempts, and
neither reports a packet of the other as bad (vipd's bad_packets and its
log; keepalived's log has no checksum, TTL, auth or format complaint).

keepalived 2.2.7 facts this relies on (tests/vipd-vectors/README.md): its
VRRPv3 IPv4 checksum covers a pseudo-header with the real destination
(vipd reports it as "phdr"); it sends IPv6 unicast adverts with hop
limit 64; every priority here is explicit (a MASTER without one gets 255).

Exit 0 pass, 77 skip (not root, tcpdump or keepalived missing, vipd not
built), else fail.
    sudo python3 tests/integration/test_vipd_interop_v3.py [-v]
"""

import sys
import unittest

sys.dont_write_bytecode = True

import cphatest  # noqa: E402
from cphatest import util, vipd  # noqa: E402


class InteropV3(unittest.TestCase):

    def test_keepalived_master_ipv4_multicast(self):
        vipd.run_interop(self, "keepalived", 3)

    def test_vipd_master_ipv4_multicast(self):
        vipd.run_interop(self, "vipd", 3)

    def test_keepalived_master_ipv4_unicast(self):
        vipd.run_interop(self, "keepalived", 3, unicast=True)

    def test_vipd_master_ipv4_unicast(self):
        vipd.run_interop(self, "vipd", 3, unicast=True)

    def test_keepalived_master_ipv6_multicast(self):
        vipd.run_interop(self, "keepalived", 3, v6=True)

    def test_vipd_master_ipv6_multicast(self):
        vipd.run_interop(self, "vipd", 3, v6=True)

    def test_keepalived_master_ipv6_unicast(self):
        vipd.run_interop(self, "keepalived", 3, v6=True, unicast=True)

    def test_vipd_master_ipv6_unicast(self):
        vipd.run_interop(self, "vipd", 3, v6=True, unicast=True)

    def test_keepalived_log_check_sees_bad_packets(self):
        """The cases above find nothing in keepalived's log: this shows the
        check would. A third host sends keepalived (master, priority 200)
        a VRRPv3 advert with a wrong checksum and one with TTL 64."""
        with cphatest.Lab("vipd-ka-badlog") as lab:
            r1, _c, x = vipd.hosts(lab, 1, other=True)
            ka = vipd.Keepalived(lab, r1, vipd.instance(priority=200, advert=0.2))
            ka.start()
            vipd.wait_holders([r1], vipd.VIP, ["r1"], vipd.master_down(200, 0.2) + 3)
            self.assertEqual(ka.bad_lines(), [])
            good = vipd.advert(3, 51, 100, [vipd.VIP], 20, src=x.v4)
            bad = vipd.advert(3, 51, 100, [vipd.VIP], 20, src=x.v4, bad_checksum=True)
            vipd.send_adverts(x, [bad])
            vipd.send_adverts(x, [good], ttl=64)
            lines = cphatest.wait_until(lambda: len(ka.bad_lines()) >= 2 and ka.bad_lines(),
                                        3, 0.05, "keepalived to log the bad adverts")
            util.step("keepalived logged: %s" % lines)
            self.assertRegex("\n".join(lines), "checksum")
            self.assertRegex("\n".join(lines), "TTL")


def main():
    vipd.require()
    reason = vipd.keepalived_skip_reason()
    if reason:
        print("SKIP: %s" % reason, flush=True)
        return util.SKIP
    util.step("peer: %s" % vipd.keepalived_version())
    prog = unittest.main(exit=False, verbosity=2)
    return 0 if prog.result.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main())
