"""Whole scenarios: a Bed of routers running vipd and/or keepalived with
a client, and the keepalived interoperability runs (Interop,
run_interop) that the interop tests share."""

import time

from . import util
from .vipd_setup import (MCAST4, MCAST6, VIP, VIP6, hosts, keepalived_skip_reason,
                         master_down, skew)
from .vipd_conf import instance
from .vipd_daemons import Keepalived, Vipd
from .vipd_net import _norm, holders, link_local, mac, steady_holders, wait_holders
from .ipmonitor import Watch
from .vrrp_pcap import Capture


class Bed:
    """Routers r1..rN each running vipd (one instance unless body says
    otherwise), a client c that captures what is on the wire (tcpdump),
    and an `ip -ts monitor address` on every router.

    priorities: {router name: priority}, names r1..rN.
    body(name, priority) -> the vrrp_* blocks of that router (default: one
    instance VI_1, VRID 51, VIP 198.18.0.100/24, advert_int `advert`);
    global_extra(name) -> more global_defs lines for that router."""

    def __init__(self, lab, priorities, advert=0.2, v6=False, other=False, body=None,
                 global_extra=None):
        self.lab = lab
        self.advert = advert
        self.prio = dict(priorities)
        names = sorted(priorities)
        hs = hosts(lab, len(names), v6=v6, other=other)
        self.routers = hs[:len(names)]
        self.host = {h.name: h for h in hs}
        self.client = self.host["c"]
        self.other = self.host.get("x")
        self.mac = {h.name: mac(h) for h in hs}
        self.cap = Capture(self.client)
        self.watch = {h.name: Watch(h) for h in self.routers}
        body = body or (lambda n, p: instance(priority=p, advert=advert))
        self.vipd = {h.name: Vipd(lab, h, body(h.name, self.prio[h.name]),
                                  global_extra=global_extra(h.name) if global_extra else ())
                     for h in self.routers}

    def start(self, *names):
        """Start vipd on the routers named (all by default); the time
        before the first spawn."""
        t = time.time()
        for n in names or [h.name for h in self.routers]:
            self.vipd[n].start()
        return t

    def mdi(self, name):
        return master_down(self.prio[name], self.advert)

    def skew(self, name):
        return skew(self.prio[name], self.advert)

    def hosts_named(self, names):
        return [self.host[n] for n in names]

    def wait_holders(self, names, timeout, ip=VIP, among=None):
        """Exactly `names` of the routers (or of `among`) hold ip."""
        hs = self.routers if among is None else self.hosts_named(among)
        return wait_holders(hs, ip, names, timeout)

    def holders(self, ip=VIP):
        return holders(self.routers, ip)

    def adverts(self, name, vrid=None, after=None, before=None, priority=None):
        """VRRP advertisements router `name` sent (by source MAC), as the
        client saw them."""
        return [p for p in self.cap.packets("vrrp")
                if p.smac == self.mac[name] and (vrid is None or p.vrid == vrid)
                and (after is None or p.ts >= after) and (before is None or p.ts < before)
                and (priority is None or p.priority == priority)]

    def wait_adverts(self, name, after, priority=None, vrid=None, timeout=2.0):
        """The advertisements of `name` since `after` (with that priority),
        waiting until there is at least one in the capture file."""
        return util.wait_until(lambda: self.adverts(name, vrid=vrid, after=after,
                                                    priority=priority),
                               timeout, 0.02, "an advertisement from %s with priority %s"
                               % (name, priority))

    def last_advert(self, name, before, vrid=None):
        a = self.adverts(name, vrid=vrid, before=before)
        if not a:
            raise AssertionError("no advertisement from %s before %.3f" % (name, before))
        return a[-1]

    def first_advert(self, name, after, vrid=None, timeout=3.0):
        """The first advertisement from `name` at or after `after` (waits
        for it to reach the capture file)."""
        return util.wait_until(lambda: (self.adverts(name, vrid=vrid, after=after) or [None])[0],
                               timeout, 0.02, "an advertisement from %s" % name)


# ------------------------------------------------ keepalived interop --

class Interop:
    """One interoperability case (a unittest.TestCase mixin runs it with
    run_interop): r1 runs the master side (priority 200), r2 the backup
    side (100), one of them vipd and the other the real keepalived, same
    keepalived-language instance (VRID 51, one VIP), VRRPv3 (advert_int
    0.2 s) or VRRPv2 (1 s, PASS "s3cret"), multicast or unicast, IPv4 or
    IPv6. tcpdump runs on r2 (it sees r1's unicast adverts and its own).

    1. the master side starts alone and takes the VIP; the backup side
       starts and stays BACKUP for its whole Master_Down_Interval and
       0.3 s more (had it dropped the master's adverts, it would have
       taken the VIP by then);
    2. SIGKILL the master: the backup takes over MDI(100) after the
       master's last advert;
    3. restart the crashed side: it removes its stale VIP and preempts
       (the new master steps down on its first advert);
    4. SIGTERM it: it sends priority 0 and the backup takes over
       Skew_Time(100) later;
    and neither ever reports a packet of the other as bad (vipd's
    bad_packets and its log, keepalived's log)."""

    PASS = "s3cret"
    MARGIN = 0.15
    EPS = 0.005

    def __init__(self, test, lab, master_kind, version, v6, unicast):
        self.t = test
        self.lab = lab
        self.version = version
        self.v6 = v6
        self.unicast = unicast
        self.advert = 0.2 if version == 3 else 1
        self.vip = VIP6 if v6 else VIP
        self.kinds = {"r1": master_kind,
                      "r2": "keepalived" if master_kind == "vipd" else "vipd"}
        self.prio = {"r1": 200, "r2": 100}
        hs = hosts(lab, 2, v6=v6)
        self.host = {h.name: h for h in hs}
        self.routers = hs[:2]
        self.addr = {h.name: (h.v6 if v6 else h.v4) for h in self.routers}
        self.mac = {h.name: mac(h) for h in self.routers}
        self.cap = Capture(self.host["r2"])
        self.watch = {h.name: Watch(h) for h in self.routers}
        self.daemons = {}
        self.crashed = []

    def body(self, name):
        other = "r2" if name == "r1" else "r1"
        kw = {}
        if self.unicast:
            kw.update(unicast_src=self.addr[name], peers=(self.addr[other],))
        if self.version == 2:
            kw["auth_pass"] = self.PASS
        return instance(priority=self.prio[name], advert=self.advert,
                        vips=(self.vip + ("/64" if self.v6 else "/24"),), **kw)

    def daemon(self, name, label=""):
        cls = Vipd if self.kinds[name] == "vipd" else Keepalived
        d = cls(self.lab, self.host[name], self.body(name), version=self.version,
                name=self.kinds[name] + label)
        self.daemons.setdefault(name, []).append(d)
        return d

    def mdi(self, name):
        return master_down(self.prio[name], self.advert, self.version)

    def adverts(self, name, after=None, before=None):
        return [p for p in self.cap.packets("vrrp")
                if p.smac == self.mac[name] and (after is None or p.ts >= after)
                and (before is None or p.ts < before)]

    def check_adverts(self, name, after):
        """name's advertisements on the wire are the configured ones."""
        adv = self.adverts(name, after=after)
        self.t.assertTrue(adv, "no advertisement from %s" % name)
        for p in adv:
            if p.priority == 0:
                continue
            self.t.assertEqual((p.version, p.vrid, p.priority, p.addrs),
                               (self.version, 51, self.prio[name], [self.vip]), p)
            if self.unicast:
                other = "r2" if name == "r1" else "r1"
                self.t.assertEqual(_norm(p.dst), _norm(self.addr[other]), p)
            else:
                self.t.assertEqual(p.dst, MCAST6 if self.v6 else MCAST4, p)
            # keepalived 2.2.7 sends IPv6 unicast adverts with hop limit
            # 64 (vipd accepts any TTL from unicast peers); else 255
            if not (self.unicast and self.v6 and self.kinds[name] == "keepalived"):
                self.t.assertEqual(p.ttl, 255, p)
            if self.version == 2:
                self.t.assertEqual((p.auth_type, p.auth), (1, b"s3cret\0\0"), p)
        return adv

    def backup_state_ok(self, d, name):
        """d (on `name`) is a backup that accepted the other's adverts."""
        if d.kind == "keepalived":
            self.t.assertEqual(d.states(), ["BACKUP"], d.log_text()[-2000:])
            return
        j = d.inst()
        self.t.assertEqual((j["state"], j["transitions"]), ("BACKUP", 1), j)
        other = "r2" if name == "r1" else "r1"
        peer_addr = self.addr[other] if (self.unicast or not self.v6) \
            else link_local(self.host[other])
        self.t.assertEqual([(_norm(p["address"]), p["checksum"]) for p in j["peers"]],
                           [(_norm(peer_addr), "plain" if self.version == 2 else "phdr")])
        self.t.assertGreaterEqual(j["peers"][0]["adverts"], 2)

    def no_bad(self):
        for name, ds in self.daemons.items():
            for d in ds:
                if d.kind == "keepalived":
                    self.t.assertEqual(d.bad_lines(), [], "keepalived on %s" % name)
                else:
                    self.t.assertNotIn("dropped an advertisement", d.log_text())
                    if d.running():
                        self.t.assertEqual(d.bad_packets(), {}, "vipd on %s" % name)

    def run(self):
        t = self.t
        step = util.step
        m = self.daemon("r1")
        b = self.daemon("r2")
        step("%s (200) on r1 alone" % m.kind)
        m.start()
        wait_holders(self.routers, self.vip, ["r1"], self.mdi("r1") + 3)
        t_b = b.start()
        # the backup's whole Master_Down_Interval (armed at its start-up)
        # and 0.3 s more
        steady_holders(self.routers, self.vip, ["r1"], self.mdi("r2") + 0.3)
        self.backup_state_ok(b, "r2")
        self.check_adverts("r1", after=t_b)
        self.no_bad()
        step("%s (100) on r2 stayed BACKUP for %.2fs: it accepts %s's adverts"
             % (b.kind, self.mdi("r2") + 0.3, m.kind))

        t_kill = m.crash()
        took = wait_holders([self.host["r2"]], self.vip, ["r2"], self.mdi("r2") + 2)
        last = self.adverts("r1", before=t_kill + 0.05)[-1]
        first = util.wait_until(lambda: (self.adverts("r2", after=t_kill) or [None])[0],
                                3, 0.02, "r2's first advert")
        gap = first.ts - last.ts
        step("SIGKILL %s: %s took over, first advert %.3fs after the master's last (MDI "
             "%.4fs); VIP seen on r2 %.3fs after the kill"
             % (m.kind, b.kind, gap, self.mdi("r2"), took))
        t.assertGreaterEqual(gap, self.mdi("r2") - self.EPS)
        t.assertLessEqual(gap, self.mdi("r2") + self.MARGIN)
        self.check_adverts("r2", after=t_kill)

        m2 = self.daemon("r1", label="-again")
        t_r = m2.start()
        wait_holders(self.routers, self.vip, ["r1"], self.mdi("r1") + 2)
        back = self.watch["r1"].first_add(self.vip, after=t_r)
        r2_del = self.watch["r2"].first_del(self.vip, after=t_r)
        first = util.wait_until(lambda: (self.adverts("r1", after=t_r) or [None])[0],
                                3, 0.02, "r1's first advert")
        step("%s restarted on r1: took the VIP back %.3fs after its start (MDI %.4fs); "
             "%s let go %.3fs after its first advert"
             % (m.kind, back - t_r, self.mdi("r1"), b.kind, r2_del - first.ts))
        # started in BACKUP, its Master_Down_Timer runs out: it discards
        # the lower priority's adverts. The timer cannot start before the
        # spawn, nor after the daemon logged its instance running: the
        # start-up itself (keepalived's three processes take 0.1 s and more
        # on a loaded machine) is not counted against the margin
        t.assertGreaterEqual(back - t_r, self.mdi("r1") - self.EPS)
        t.assertLessEqual(back - m2.t_ready, self.mdi("r1") + self.MARGIN)
        t.assertLess(r2_del - first.ts, self.MARGIN)
        t.assertGreaterEqual(r2_del - first.ts, -self.EPS)
        steady_holders(self.routers, self.vip, ["r1"], 0.5)
        if b.kind == "vipd":
            t.assertEqual(b.state(), "BACKUP")
        else:
            t.assertEqual(b.states(), ["BACKUP", "MASTER", "BACKUP"])
        self.check_adverts("r1", after=t_r)

        t_term, rc = m2.stop()
        t.assertEqual(rc, 0, m2.log_text()[-2000:])
        wait_holders(self.routers, self.vip, ["r2"], skew(100, self.advert, self.version) + 2)
        zero = util.wait_until(lambda: [p for p in self.adverts("r1", after=t_term)
                                        if p.priority == 0], 2, 0.02,
                               "a priority 0 advert from %s on SIGTERM" % m2.kind)
        first = util.wait_until(lambda: (self.adverts("r2", after=zero[0].ts) or [None])[0],
                                3, 0.02, "r2's first advert")
        sk = skew(self.prio["r2"], self.advert, self.version)
        step("SIGTERM %s: priority 0 sent; %s advertised %.4fs later (Skew_Time %.4fs)"
             % (m2.kind, b.kind, first.ts - zero[0].ts, sk))
        # RFC 9568 §6.4.2: priority 0 sets the Master_Down_Timer to Skew_Time
        t.assertGreaterEqual(first.ts - zero[0].ts, sk - self.EPS)
        t.assertLessEqual(first.ts - zero[0].ts, sk + self.MARGIN)
        self.no_bad()


def run_interop(test, master_kind, version, v6=False, unicast=False):
    """Run one Interop case in a lab of its own (test: the TestCase)."""
    reason = keepalived_skip_reason()
    if reason:
        test.skipTest(reason)
    tag = "%s-v%d%s%s" % ("km" if master_kind == "keepalived" else "vm", version,
                          "u" if unicast else "m", "6" if v6 else "4")
    from .hosts import Lab
    with Lab("vipd-ka-" + tag) as lab:
        Interop(test, lab, master_kind, version, v6, unicast).run()
