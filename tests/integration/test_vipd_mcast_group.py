#!/usr/bin/env python3
"""global_defs vrrp_mcast_group4 / vrrp_mcast_group6 with a group other
than RFC 9568's: adverts go to it, are accepted from it, and failover works
on it, between two vipd and between vipd and the real keepalived.

Each case runs in a lab of its own: r1 (198.18.0.11) with priority 200,
r2 (.12) with 100, one instance VI_1 (VRID 51, VIP 198.18.0.100/24, or
2001:db8::100/64 for IPv6), advert_int 0.2 s, VRRPv3, every router with
`vrrp_mcast_group4 224.0.0.100` (IPv6: `vrrp_mcast_group6 ff02::1:ff`).

- two vipd: exactly r1 holds the VIP; three times SIGKILL r1's vipd (by
  PID) and r2 takes the VIP, then start it again and it takes it back
  (preempt); the client's capture holds adverts from both routers, all to
  224.0.0.100 and none to 224.0.0.18; neither vipd dropped a packet.
- vipd (r1) and keepalived (r2): r1 holds the VIP, keepalived stays
  BACKUP (it accepts vipd's adverts on the group); kill vipd, keepalived
  takes over; vipd comes back and takes the VIP back (it accepts
  keepalived's adverts: it preempts only because its priority is higher,
  and keepalived steps down on its adverts). Then the other way: keepalived
  on r1 as master, vipd on r2 as backup.
- IPv6, two vipd: one failover and back on ff02::1:ff.
- the instance's own group (mcast_dst_ip 224.0.0.101), vipd and
  keepalived: as above.
- a vipd on 224.0.0.100 drops adverts sent to 224.0.0.18.

Exit 0 pass, 77 skip (not root, tcpdump missing, vipd not built; the
keepalived case alone skips without keepalived), else fail.
    sudo python3 tests/integration/test_vipd_mcast_group.py [-v]
"""

import sys
import unittest

sys.dont_write_bytecode = True

import cphatest  # noqa: E402
from cphatest import util, vipd  # noqa: E402

GROUP4 = "224.0.0.100"
GROUP6 = "ff02::1:ff"
GROUP4_INST = "224.0.0.101"
ADVERT = 0.2
PRIO = {"r1": 200, "r2": 100}


class McastGroup(unittest.TestCase):

    def setup_lab(self, lab, v6, per_instance=False):
        hs = vipd.hosts(lab, 2, v6=v6)
        self.routers = hs[:2]
        self.host = {h.name: h for h in hs}
        self.mac = {h.name: vipd.mac(h) for h in self.routers}
        self.cap = vipd.Capture(self.host["c"])
        self.vip = vipd.VIP6 if v6 else vipd.VIP
        self.group = GROUP6 if v6 else GROUP4
        self.rfc = vipd.MCAST6 if v6 else vipd.MCAST4
        self.glob = ("vrrp_mcast_group6 %s" % GROUP6 if v6 else
                     "vrrp_mcast_group4 %s" % GROUP4,)
        extra = ()
        if per_instance:  # the instance's mcast_dst_ip, no global group
            self.group, self.glob = GROUP4_INST, ()
            extra = ("mcast_dst_ip %s" % GROUP4_INST,)
        self.body = {n: vipd.instance(priority=PRIO[n], advert=ADVERT,
                                      vips=(self.vip + ("/64" if v6 else "/24"),),
                                      extra=extra)
                     for n in PRIO}

    def daemon(self, lab, kind, name, label=""):
        cls = vipd.Vipd if kind == "vipd" else vipd.Keepalived
        return cls(lab, self.host[name], self.body[name], global_extra=self.glob,
                   name=kind + label)

    def mdi(self, name):
        return vipd.master_down(PRIO[name], ADVERT)

    def fail_over_and_back(self, lab, d1, kind1, label):
        """SIGKILL d1 on r1: r2 takes the VIP; start kind1 again on r1: it
        takes the VIP back. Returns the new r1 daemon."""
        pid = d1.pid if kind1 == "vipd" else d1.vrrp_pid()
        d1.crash()
        took = vipd.wait_holders([self.host["r2"]], self.vip, ["r2"], self.mdi("r2") + 3)
        util.step("%s: SIGKILL %s on r1 (pid %d): r2 took the VIP %.3fs later"
                  % (label, kind1, pid, took))
        d = self.daemon(lab, kind1, "r1", label="-" + label)
        d.start()
        vipd.wait_holders(self.routers, self.vip, ["r1"], self.mdi("r1") + 3)
        util.step("%s: %s back on r1, it holds the VIP again" % (label, kind1))
        return d

    def check_wire(self):
        """Adverts from both routers, all to the configured group."""
        adv = self.cap.packets("vrrp")
        dsts = sorted({p.dst for p in adv})
        util.step("adverts on the wire: %d, to %s" % (len(adv), dsts))
        for n in ("r1", "r2"):
            self.assertTrue([p for p in adv if p.smac == self.mac[n]],
                            "no advert from %s" % n)
        self.assertEqual(dsts, [self.group])
        self.assertFalse([p for p in adv if p.dst == self.rfc])
        for p in adv:
            self.assertEqual((p.vrid, p.ttl), (51, 255), p)

    def no_bad(self, ds):
        for d in ds:
            if d.kind == "keepalived":
                self.assertEqual(d.bad_lines(), [], d.log_text()[-2000:])
            else:
                self.assertNotIn("dropped an advertisement", d.log_text())
                if d.running():
                    self.assertEqual(d.bad_packets(), {})

    def test_two_vipd_ipv4(self):
        with cphatest.Lab("vipd-mcgrp4") as lab:
            self.setup_lab(lab, False)
            r1 = self.daemon(lab, "vipd", "r1")
            r2 = self.daemon(lab, "vipd", "r2")
            r1.start()
            vipd.wait_holders(self.routers, self.vip, ["r1"], self.mdi("r1") + 3)
            r2.start()
            vipd.steady_holders(self.routers, self.vip, ["r1"], self.mdi("r2") + 0.3)
            self.assertEqual(r2.state(), "BACKUP")
            ds = [r1, r2]
            cur = r1
            for i in range(3):
                cur = self.fail_over_and_back(lab, cur, "vipd", "again%d" % (i + 1))
                ds.append(cur)
                vipd.steady_holders(self.routers, self.vip, ["r1"], 0.5)
                self.assertEqual(r2.state(), "BACKUP")
            self.check_wire()
            self.no_bad(ds)

    def test_two_vipd_ipv6(self):
        with cphatest.Lab("vipd-mcgrp6") as lab:
            self.setup_lab(lab, True)
            r1 = self.daemon(lab, "vipd", "r1")
            r2 = self.daemon(lab, "vipd", "r2")
            r1.start()
            vipd.wait_holders(self.routers, self.vip, ["r1"], self.mdi("r1") + 3)
            r2.start()
            vipd.steady_holders(self.routers, self.vip, ["r1"], self.mdi("r2") + 0.3)
            self.assertEqual(r2.state(), "BACKUP")
            d = self.fail_over_and_back(lab, r1, "vipd", "again")
            vipd.steady_holders(self.routers, self.vip, ["r1"], 0.5)
            self.check_wire()
            self.no_bad([r1, r2, d])

    def test_other_group_dropped(self):
        """r1's vipd (group 224.0.0.100, priority 200) is master; a
        listener on r1 joins 224.0.0.18 on eth0, so the kernel delivers
        adverts to that group to r1's raw sockets too. A third host x sends
        priority-250 adverts for VRID 51 to 224.0.0.18: vipd drops them
        (counted as other_group) and stays master. The same adverts sent to
        224.0.0.100 make it step down: the drop is the group, nothing else."""
        with cphatest.Lab("vipd-mcgrp-other") as lab:
            hs = vipd.hosts(lab, 1, other=True)
            r1, x = hs[0], hs[2]
            self.host = {h.name: h for h in hs}
            d = vipd.Vipd(lab, r1, vipd.instance(priority=200, advert=ADVERT),
                          global_extra=("vrrp_mcast_group4 %s" % GROUP4,))
            d.start()
            vipd.wait_holders([r1], vipd.VIP, ["r1"], self.mdi("r1") + 3)
            join = ("import socket,struct,time\n"
                    "s=socket.socket(socket.AF_INET,socket.SOCK_DGRAM)\n"
                    "s.setsockopt(socket.IPPROTO_IP,socket.IP_ADD_MEMBERSHIP,"
                    "struct.pack('4s4si',socket.inet_aton('224.0.0.18'),"
                    "socket.inet_aton('0.0.0.0'),socket.if_nametoindex('eth0')))\n"
                    "print('joined',flush=True)\ntime.sleep(600)\n")
            lst = r1.spawn([sys.executable, "-c", join], name="join-rfc-group")
            vipd.wait_log(lst, "joined", 5)
            rfc = [vipd.advert(3, 51, 250, [vipd.VIP], 20, src=x.v4, dst=vipd.MCAST4)] * 10
            vipd.send_adverts(x, rfc, dst=vipd.MCAST4)
            util.wait_until(lambda: d.bad_packets().get("other_group", 0) >= 5, 3, 0.05,
                                "vipd to count adverts to 224.0.0.18 as other_group")
            self.assertEqual(d.state(), "MASTER")
            self.assertEqual(vipd.holders([r1], vipd.VIP), ["r1"])
            util.step("adverts to 224.0.0.18 dropped: %s" % d.bad_packets())
            ours = [vipd.advert(3, 51, 250, [vipd.VIP], 20, src=x.v4, dst=GROUP4)] * 3
            vipd.send_adverts(x, ours, dst=GROUP4)
            d.wait_state("BACKUP", 3)
            util.step("the same adverts to %s: vipd stepped down" % GROUP4)

    def interop(self, kind1, kind2, tag, per_instance=False):
        reason = vipd.keepalived_skip_reason()
        if reason:
            self.skipTest(reason)
        with cphatest.Lab("vipd-mcgrp-" + tag) as lab:
            self.setup_lab(lab, False, per_instance)
            d1 = self.daemon(lab, kind1, "r1")
            d2 = self.daemon(lab, kind2, "r2")
            d1.start()
            vipd.wait_holders(self.routers, self.vip, ["r1"], self.mdi("r1") + 3)
            d2.start()
            # the backup's whole Master_Down_Interval and more: had it not
            # accepted the master's adverts on the group, it would take over
            vipd.steady_holders(self.routers, self.vip, ["r1"], self.mdi("r2") + 0.3)
            if kind2 == "vipd":
                self.assertEqual(d2.state(), "BACKUP")
            else:
                self.assertEqual(d2.states(), ["BACKUP"])
            d = self.fail_over_and_back(lab, d1, kind1, "again")
            vipd.steady_holders(self.routers, self.vip, ["r1"], 0.5)
            if kind2 == "vipd":
                self.assertEqual(d2.state(), "BACKUP")
            else:
                self.assertEqual(d2.states(), ["BACKUP", "MASTER", "BACKUP"])
            self.check_wire()
            self.no_bad([d1, d2, d])

    def test_vipd_master_keepalived_backup(self):
        self.interop("vipd", "keepalived", "vk")

    def test_keepalived_master_vipd_backup(self):
        self.interop("keepalived", "vipd", "kv")

    def test_instance_mcast_dst_ip_with_keepalived(self):
        """The instance's own group (mcast_dst_ip 224.0.0.101, keepalived
        2.2.7 has it), vipd master and keepalived backup."""
        self.interop("vipd", "keepalived", "inst", per_instance=True)


if __name__ == "__main__":
    sys.exit(vipd.unittest_main())
