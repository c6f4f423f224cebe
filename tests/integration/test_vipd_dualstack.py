#!/usr/bin/env python3
"""A dual-stack VIP pair as `cpha render` writes it, run by vipd and, as
the reference, by keepalived: an IPv4 instance over unicast between the
hosts' IPv4 addresses and an IPv6 instance over multicast (link-local
sources), with the same virtual_router_id, in one vrrp_sync_group, each
tracking the same check with weight 0.

r1 (priority 150) and r2 (100), advert_int A = 0.2 s:
1. r1 holds both VIPs, for 10 advert intervals;
2. r1's check fails: the group is FAULT, r2 holds both;
3. it passes again: r1 takes both back;
4. r1's daemon stops: r2 holds both;
and every time the two VIPs end up on one host, never split.

Step 3 found a vipd bug: when a script that both members of a sync group
track recovered, the member told first stayed in FAULT (it decided before
the other's fault cleared), and so did the group.

Exit 0 pass, 77 skip (not root, vipd not built), else fail.
    python3 tests/integration/test_vipd_dualstack.py [-v]
"""

import os
import sys
import unittest

sys.dont_write_bytecode = True

import cphatest  # noqa: E402
from cphatest import step, vipd  # noqa: E402

A = 0.2
VIP4 = "198.18.0.100"
VIP6 = "2001:db8:10::2"


def body(lab, r, priority, flag):
    """r's configuration: the two instances and their sync group."""
    peer = vipd.ROUTER_IPS[1 - r]
    return (vipd.script("lb_healthy", "/usr/bin/test ! -e %s" % flag, interval=1)
            + vipd.instance("apiserver", 60, priority, vips=(VIP4 + "/24 dev eth0",), advert=A,
                            unicast_src=vipd.ROUTER_IPS[r], peers=(peer,),
                            track_script=[("lb_healthy", 0)])
            + vipd.instance("apiserver_ipv6", 60, priority, vips=(VIP6 + "/64 dev eth0",),
                            advert=A, track_script=[("lb_healthy", 0)])
            + "vrrp_sync_group apiserver_vips {\n    group {\n        apiserver\n"
            + "        apiserver_ipv6\n    }\n}\n")


def both_on(hs, name, timeout):
    vipd.wait_holders(hs, VIP4, [name], timeout=timeout)
    vipd.wait_holders(hs, VIP6, [name], timeout=timeout)


class DualStack(unittest.TestCase):

    def case(self, kind):
        with cphatest.Lab("vipd-dual-" + kind) as lab:
            r1, r2 = vipd.hosts(lab, 2, client=False)
            for h in (r1, r2):
                vipd.wait_link_local(h)
            flags = [lab.path("flags", "r%d" % (i + 1)) for i in range(2)]
            cls = vipd.Vipd if kind == "vipd" else vipd.Keepalived
            extra = ["script_user root", "enable_script_security"]
            d1 = cls(lab, r1, body(lab, 0, 150, flags[0]), global_extra=extra)
            d2 = cls(lab, r2, body(lab, 1, 100, flags[1]), global_extra=extra)
            hs = [r1, r2]
            mdi = vipd.master_down(100, A)

            step("%s on r1 (150) and r2 (100): r1 holds both VIPs" % kind)
            d1.start()
            d2.start()
            both_on(hs, "r1", mdi + 4)
            vipd.steady_holders(hs, VIP4, ["r1"], 10 * A)
            self.assertEqual(vipd.holders(hs, VIP6), ["r1"])

            step("r1's check fails: the group is FAULT, r2 holds both")
            os.makedirs(os.path.dirname(flags[0]), exist_ok=True)
            open(flags[0], "w").close()
            both_on(hs, "r2", mdi + 4)
            vipd.steady_holders(hs, VIP6, ["r2"], 5 * A)
            self.assertEqual(vipd.holders(hs, VIP4), ["r2"])

            step("it passes again: r1 takes both back")
            os.unlink(flags[0])
            both_on(hs, "r1", vipd.master_down(150, A) + 4)
            vipd.steady_holders(hs, VIP4, ["r1"], 5 * A)
            self.assertEqual(vipd.holders(hs, VIP6), ["r1"])

            step("r1's daemon stops: r2 holds both")
            d1.stop()
            both_on(hs, "r2", mdi + 2)
            vipd.steady_holders(hs, VIP6, ["r2"], 5 * A)
            self.assertEqual(vipd.holders(hs, VIP4), ["r2"])
            d2.stop()

    def test_vipd(self):
        self.case("vipd")

    def test_keepalived(self):
        if not os.access(vipd.KEEPALIVED, os.X_OK):
            self.skipTest("keepalived is not installed: no reference to compare with")
        self.case("keepalived")


def main():
    vipd.require()
    prog = unittest.main(exit=False, verbosity=2)
    return 0 if prog.result.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main())
