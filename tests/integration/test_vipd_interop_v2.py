#!/usr/bin/env python3
"""vipd and the real keepalived (2.2.7) on one link, VRRPv2 with simple
password authentication (auth_type PASS, "s3cret", NUL-padded to 8 bytes
on the wire): each as master with the other as backup, multicast and
unicast (VRRPv2 is IPv4 only).

Every case runs in a lab of its own: r1 (198.18.0.11) runs the master
side with priority 200, r2 (198.18.0.12) the backup side with 100, one
instance VI_1 (VRID 51, VIP 198.18.0.100/24), advert_int 1 s (VRRPv2
counts whole seconds); unicast cases name each other's address in
unicast_src_ip / unicast_peer. See cphatest.vipd.Interop for the steps:
the right one holds the VIP, the backup stays backup for its whole
Master_Down_Interval, SIGKILL the master and the backup takes over
MDI(100) = 3 x 1 + 156 / 256 = 3.6094 s after the last advert (+ MARGIN
0.15 s), the crashed side comes back and preempts (MDI(200) = 3.2188 s
after its start), and neither reports a packet of the other as bad
(vipd's bad_packets and its log; keepalived's log has no checksum, TTL,
auth or format complaint).

Exit 0 pass, 77 skip (not root, tcpdump or keepalived missing, vipd not
built), else fail.
    sudo python3 tests/integration/test_vipd_interop_v2.py [-v]
"""

import sys
import unittest

sys.dont_write_bytecode = True

from cphatest import util, vipd  # noqa: E402


class InteropV2(unittest.TestCase):

    def test_keepalived_master_multicast(self):
        vipd.run_interop(self, "keepalived", 2)

    def test_vipd_master_multicast(self):
        vipd.run_interop(self, "vipd", 2)

    def test_keepalived_master_unicast(self):
        vipd.run_interop(self, "keepalived", 2, unicast=True)

    def test_vipd_master_unicast(self):
        vipd.run_interop(self, "vipd", 2, unicast=True)


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
