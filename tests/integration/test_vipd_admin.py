#!/usr/bin/env python3
"""vipd's admin socket and metrics against what is seen from outside, and
bad packets: counted by reason, and without effect on who holds the VIP.

r1 (priority 250) and r2 (150) run vipd, advert_int A = 0.2 s for the
VRRPv3 instance VI_1 (VRID 51, VIP 198.18.0.100/24); the client c
captures the wire. Metrics are served on each router's own address
(vipd_metrics_bind 198.18.0.1x:9650), read with curl inside the host.

show json: states, VIP presence (compared with `ip addr` on each host),
transitions, the peer a backup hears and its checksum form, advert
counters (compared with the adverts on the wire), last_change after a
takeover, and the same states in the Prometheus gauge; vipd_vip_held
follows where the address is (1 on the MASTER, and on a BACKUP with the
address added by hand: it answers ARP there too), and the keepalived exporter's names
(keepalived_vrrp_state, keepalived_become_master_total, ...) say the same.

Bad packets: a third host x (198.18.0.60) sends hand-made advertisements
(raw socket, protocol 112) that would make the master step down if they
were accepted: priority 254 for VI_1, and for VI_2 (VRRPv2, VRID 61,
198.18.0.101/24, advert_int 1, PASS "s3cret"). Each kind is sent 5 times:
TTL 64 (not on-link: RFC 9568 §7.1), a wrong checksum, a wrong address
list, and (VRRPv2) a wrong password. Both routers must count exactly 5
of each, under its reason, in show json and in the metrics, and r1 must
keep both VIPs with no transition. Then the same packets, correct, are
sent: r1 must step down for them (so the sender was right, and it was the
defect that made vipd ignore the others), and take the VIP back once they
stop: MDI(250) = 0.6047 s (v3), 3.0234 s (v2) after the last one.
Last, 100 bad adverts in half a second make a handful of log lines, not
100 (the house rule: no line per packet), while the counter has all 100.

Exit 0 pass, 77 skip (not root, tcpdump missing, vipd not built), else fail.
    sudo python3 tests/integration/test_vipd_admin.py [-v]
"""

import json
import shutil
import subprocess
import sys
import time
import unittest

sys.dont_write_bytecode = True

import cphatest  # noqa: E402
from cphatest import step, vipd  # noqa: E402
from cphatest.vipd import MCAST4, VIP  # noqa: E402

A = 0.2
MARGIN = 0.15
VIP2 = "198.18.0.101"
PASS = "s3cret"
N = 5
PORT = 9650


def metrics_addr(bed, name):
    return "%s:%d" % (bed.host[name].v4, PORT)


def status(bed, name):
    """vipd's /status JSON (the metrics listener), and its text."""
    r = bed.host[name].curl("http://%s/status" % metrics_addr(bed, name), timeout=3)
    if r.status != 200:
        raise AssertionError("/status on %s: status %d rc %d %s" % (name, r.status, r.rc,
                                                                    r.stderr))
    return json.loads(r.body), r.body


def global_extra(name):
    return ["vipd_metrics_bind %s:%d" % (vipd.ROUTER_IPS[int(name[1:]) - 1], PORT)]


def body_v2(name, prio):
    return (vipd.instance(priority=prio, advert=A) +
            vipd.instance(name="VI_2", vrid=61, priority=prio, advert=1, version=2,
                          auth_pass=PASS, vips=(VIP2 + "/24",)))


class Admin(unittest.TestCase):

    def test_show_json_follows_states(self):
        with cphatest.Lab("vipd-admin") as lab:
            bed = vipd.Bed(lab, {"r1": 250, "r2": 150}, advert=A, global_extra=global_extra)
            r1, r2 = bed.routers
            t0 = bed.start()
            bed.wait_holders(["r1"], timeout=bed.mdi("r1") + 3)
            time.sleep(4 * A)
            j1, j2 = bed.vipd["r1"].inst(), bed.vipd["r2"].inst()
            wire1 = len(bed.adverts("r1"))
            step("r1: %s prio %d sent %d (wire %d); r2: %s received %d, peers %s"
                 % (j1["state"], j1["priority"], j1["adverts_sent"], wire1, j2["state"],
                    j2["adverts_received"], j2["peers"]))
            self.assertEqual((j1["state"], j1["priority"], j1["fault"]), ("MASTER", 250, False))
            self.assertEqual((j2["state"], j2["priority"]), ("BACKUP", 150))
            for h, j in ((r1, j1), (r2, j2)):
                self.assertEqual(j["vips"][0]["address"], VIP)
                self.assertEqual(j["vips"][0]["present"], vipd.has_addr(h, VIP), h.name)
            self.assertEqual((j1["transitions"], j1["became_master"]), (2, 1))
            self.assertEqual((j2["transitions"], j2["became_master"]), (1, 0))
            self.assertEqual(len(j2["peers"]), 1, j2["peers"])
            self.assertEqual((j2["peers"][0]["address"], j2["peers"][0]["checksum"]),
                             (r1.v4, "phdr"))
            # counters against the wire: the reads are a few ms apart and
            # an advert goes out every 0.2 s, so at most one in between
            self.assertLessEqual(abs(j1["adverts_sent"] - wire1), 1)
            self.assertLessEqual(abs(j2["adverts_received"] - wire1), 1)
            self.assertLessEqual(abs(j2["peers"][0]["adverts"] - j2["adverts_received"]), 1)
            self.assertEqual((j1["bad_packets"], j2["bad_packets"]), ({}, {}))
            self.assertGreaterEqual(j1["last_change_usec"], t0 * 1e6)
            self.assertRegex(bed.vipd["r1"].admin("show"),
                             r"instance VI_1: MASTER, priority 250 \(configured 250\), "
                             r"VRID 51 on eth0, VRRPv3 multicast")
            self.assertRegex(bed.vipd["r2"].admin("show"),
                             r"peer %s: \d+ adverts, checksum phdr" % r1.v4)
            self.assertIn("Unknown command", bed.vipd["r1"].admin("show everything"))
            for n, want in (("r1", 2), ("r2", 1)):
                m = vipd.metrics(bed.host[n], metrics_addr(bed, n))
                self.assertEqual(vipd.metric(m, "vipd_instance_state", vrrp_instance="VI_1"),
                                 want)
                self.assertEqual(vipd.metric(m, "vipd_bad_packets_total", vrrp_instance="VI_1",
                                             reason="ttl"), 0)
                # the holder, as the address on the interface shows
                self.assertEqual(vipd.metric(m, "vipd_vip_held", vrrp_instance="VI_1", vip=VIP),
                                 1 if vipd.has_addr(bed.host[n], VIP) else 0, n)
                self.assertEqual(vipd.metric(m, "vipd_vip_held", vrrp_instance="VI_1", vip=VIP),
                                 1 if n == "r1" else 0, n)
                # the keepalived exporter's names, labels and state numbers
                self.assertEqual(vipd.metric(m, "keepalived_up"), 1)
                self.assertEqual(vipd.metric(m, "keepalived_vrrp_state", iname="VI_1",
                                             intf="eth0", vrid="51",
                                             ip_address=VIP + "/24"), want, n)
                self.assertEqual(vipd.metric(m, "keepalived_become_master_total", iname="VI_1",
                                             intf="eth0", vrid="51"), 1 if n == "r1" else 0)
            m = vipd.metrics(r1, metrics_addr(bed, "r1"))
            sent = vipd.metric(m, "keepalived_advertisements_sent_total", iname="VI_1",
                               intf="eth0", vrid="51")
            self.assertLessEqual(abs(sent - vipd.metric(m, "vipd_adverts_sent_total",
                                                        vrrp_instance="VI_1")), 1)
            self.assertGreater(sent, 0)
            if shutil.which("promtool"):
                body = r1.curl("http://%s/metrics" % metrics_addr(bed, "r1"), timeout=3).body
                lint = subprocess.run(["promtool", "check", "metrics"], input=body,
                                      capture_output=True, text=True, timeout=30)
                self.assertEqual(lint.returncode, 0, lint.stdout + lint.stderr)
            else:
                step("promtool is not installed: vipd's metrics text is not linted")

            step("/status: state, priorities and the VIP's presence; one added by hand shows")
            for n, state in (("r1", "MASTER"), ("r2", "BACKUP")):
                st, _ = status(bed, n)
                self.assertEqual((st["daemon"], st["config_sha256"]),
                                 ("vipd", bed.vipd[n].show()["config_sha256"]))
                i = st["instances"][0]
                self.assertEqual((i["name"], i["state"], i["interface"]), ("VI_1", state, "eth0"))
                self.assertEqual(i["effective_priority"], 250 if n == "r1" else 150)
                self.assertEqual(i["vips"][0]["address"], VIP)
                self.assertEqual(i["vips"][0]["present"], n == "r1")
            r2.run(["ip", "addr", "add", VIP + "/24", "dev", "eth0"])
            try:
                self.assertTrue(status(bed, "r2")[0]["instances"][0]["vips"][0]["present"])
                self.assertEqual(status(bed, "r2")[0]["instances"][0]["state"], "BACKUP")
                # on the interface of a BACKUP: held there too (it answers
                # ARP), so the VIP's holders sum to 2
                m = vipd.metrics(r2, metrics_addr(bed, "r2"))
                self.assertEqual(vipd.metric(m, "vipd_vip_held", vrrp_instance="VI_1", vip=VIP),
                                 1)
            finally:
                r2.run(["ip", "addr", "del", VIP + "/24", "dev", "eth0"], check=False)
            self.assertFalse(status(bed, "r2")[0]["instances"][0]["vips"][0]["present"])

            step("SIGKILL r1: r2's show json follows")
            t_kill = bed.vipd["r1"].crash()
            bed.wait_holders(["r2"], timeout=bed.mdi("r2") + 2, among=["r2"])
            bed.vipd["r2"].wait_state("MASTER", timeout=1)
            j2 = bed.vipd["r2"].inst()
            now = time.time()
            self.assertEqual((j2["transitions"], j2["became_master"]), (2, 1))
            self.assertTrue(j2["vips"][0]["present"])
            self.assertTrue(t_kill * 1e6 <= j2["last_change_usec"] <= now * 1e6,
                            (t_kill, j2["last_change_usec"], now))
            step("r2 MASTER, last change %.3fs after the kill"
                 % (j2["last_change_usec"] / 1e6 - t_kill))
            self.assertGreater(j2["last_change_usec"] / 1e6 - t_kill, bed.mdi("r2") - A - 0.01)
            m = vipd.metrics(r2, metrics_addr(bed, "r2"))
            self.assertEqual(vipd.metric(m, "vipd_instance_state", vrrp_instance="VI_1"), 2)
            self.assertEqual(vipd.metric(m, "vipd_instance_transitions_total",
                                         vrrp_instance="VI_1"), 2)
            self.assertEqual(vipd.metric(m, "vipd_vip_held", vrrp_instance="VI_1", vip=VIP), 1)
            self.assertEqual(vipd.metric(m, "keepalived_vrrp_state", iname="VI_1", intf="eth0",
                                         vrid="51", ip_address=VIP + "/24"), 2)
            self.assertEqual(vipd.metric(m, "keepalived_become_master_total", iname="VI_1",
                                         intf="eth0", vrid="51"), 1)

    def send(self, bed, payloads, ttl=255, interval=0.02):
        vipd.send_adverts(bed.other, payloads, dst=MCAST4, ttl=ttl, interval=interval)

    def step_down_and_back(self, bed, inst, vip, pkts, interval, mdi):
        """x sends valid priority-254 adverts: r1 gives the VIP up on the
        first one, and takes it back MDI(250) after the last one."""
        t_ok = time.time()
        self.send(bed, pkts, ttl=255, interval=interval)
        t_last = time.time()
        bed.wait_holders(["r1"], timeout=mdi + 2, ip=vip)
        t_del = bed.watch["r1"].first_del(vip, after=t_ok)
        t_add = bed.watch["r1"].first_add(vip, after=t_ok)
        self.assertLess(t_del, t_add)
        step("%s: r1 gave the VIP up %.3fs after x's first valid advert, took it back "
             "%.3fs after x's last (MDI %.4fs)"
             % (inst, t_del - t_ok, t_add - t_last, mdi))
        self.assertLessEqual(t_del - t_ok, MARGIN)
        # its Master_Down_Timer restarted on x's last advert, sent just
        # before t_last
        self.assertGreaterEqual(t_add - t_last, mdi - 0.05)
        self.assertLessEqual(t_add - t_last, mdi + MARGIN)
        self.assertEqual(bed.vipd["r1"].inst(inst)["transitions"],
                         bed.vipd["r1"].inst(inst)["became_master"] * 2)
        self.assertEqual(bed.holders(vip), ["r1"])

    def wait_bad(self, bed, inst, reason, n):
        for r in ("r1", "r2"):
            cphatest.wait_until(lambda r=r: bed.vipd[r].bad_packets(inst).get(reason) == n,
                                2, 0.02, "%s %s to count %d %s" % (r, inst, n, reason))

    def test_bad_packets_counted_and_ignored(self):
        with cphatest.Lab("vipd-badpkt") as lab:
            bed = vipd.Bed(lab, {"r1": 250, "r2": 150}, advert=A, other=True, body=body_v2,
                           global_extra=global_extra)
            x = bed.other
            bed.start()
            bed.wait_holders(["r1"], timeout=bed.mdi("r1") + 3)
            bed.wait_holders(["r1"], timeout=vipd.master_down(250, 1, 2) + 3, ip=VIP2)
            before = {n: {i: bed.vipd[n].inst(i)["transitions"] for i in ("VI_1", "VI_2")}
                      for n in ("r1", "r2")}
            t0 = time.time()

            def v3(**kw):
                a = dict(version=3, vrid=51, priority=254, vips=[VIP], adver=20, src=x.v4)
                a.update(kw)
                return vipd.advert(**a)

            def v2(**kw):
                a = dict(version=2, vrid=61, priority=254, vips=[VIP2], adver=1,
                         auth_pass=PASS)
                a.update(kw)
                return vipd.advert(**a)

            cases = [("VI_1", "ttl", [v3()] * N, 64),
                     ("VI_1", "checksum", [v3(bad_checksum=True)] * N, 255),
                     ("VI_1", "address_list", [v3(vips=["198.18.0.99"])] * N, 255),
                     ("VI_2", "ttl", [v2()] * N, 64),
                     ("VI_2", "auth_password", [v2(auth_pass="wrong")] * N, 255),
                     ("VI_2", "checksum", [v2(bad_checksum=True)] * N, 255)]
            for inst, reason, pkts, ttl in cases:
                step("x sends %d %s adverts with priority 254, bad: %s" % (N, inst, reason))
                self.send(bed, pkts, ttl=ttl)
                self.wait_bad(bed, inst, reason, N)
            # the wire carried them (and nothing else from x); tcpdump may
            # write the last one a moment after the routers counted it
            def from_x():
                return [p for p in bed.cap.packets("vrrp") if p.smac == bed.mac["x"]]
            cphatest.wait_until(lambda: len(from_x()) >= N * len(cases), 3, 0.05,
                                "the capture to hold x's %d adverts" % (N * len(cases)))
            sent = from_x()
            self.assertEqual(len(sent), N * len(cases))
            self.assertEqual(sorted({p.ttl for p in sent}), [64, 255])
            vipd.steady_holders(bed.routers, VIP, ["r1"], 3 * A)
            vipd.steady_holders(bed.routers, VIP2, ["r1"], 0.1)
            for n in ("r1", "r2"):
                for i in ("VI_1", "VI_2"):
                    j = bed.vipd[n].inst(i)
                    want = {r: N for ii, r, _p, _t in cases if ii == i}
                    self.assertEqual(j["bad_packets"], want, (n, i))
                    self.assertEqual(j["transitions"], before[n][i], (n, i))
                    self.assertEqual([p["address"] for p in j["peers"]],
                                     [] if n == "r1" else [bed.host["r1"].v4])
                m = vipd.metrics(bed.host[n], metrics_addr(bed, n))
                for i, reason, _p, _t in cases:
                    self.assertEqual(vipd.metric(m, "vipd_bad_packets_total", vrrp_instance=i,
                                                 reason=reason), N, (n, i, reason))
            for n in ("r1", "r2"):
                st, text = status(bed, n)
                self.assertEqual([i["name"] for i in st["instances"]], ["VI_1", "VI_2"])
                self.assertNotIn(PASS, text)  # VI_2's auth_pass never leaves vipd
            # r1 went on advertising as master, with its own priority
            self.assertEqual({p.priority for p in bed.adverts("r1", vrid=51, after=t0)}, {250})
            for t, w in bed.watch["r1"].addr_events(VIP) + bed.watch["r1"].addr_events(VIP2):
                self.assertFalse(w == "del" and t >= t0, "r1 lost a VIP")
            step("counted by reason on both routers; r1 kept both VIPs")

            step("control: the same adverts, correct, do move the VIP")
            self.step_down_and_back(bed, "VI_1", VIP, [v3()] * 4, A, bed.mdi("r1"))
            self.assertIn(x.v4, [p["address"] for p in bed.vipd["r1"].inst("VI_1")["peers"]])
            self.step_down_and_back(bed, "VI_2", VIP2, [v2()] * 2, 0.5,
                                    vipd.master_down(250, 1, 2))
            # the valid ones were not counted as bad
            for n in ("r1", "r2"):
                for i in ("VI_1", "VI_2"):
                    self.assertEqual(sum(bed.vipd[n].bad_packets(i).values()),
                                     N * sum(1 for c in cases if c[0] == i), (n, i))

    def test_bad_packet_log_is_rate_limited(self):
        """Repeated identical failures are rate-limited, never one
        line per packet. 100 bad adverts in half a second: the counter has
        all of them, the log a handful of lines (lib's limiter lets a burst
        of identical lines through, then counts the rest)."""
        with cphatest.Lab("vipd-badlog") as lab:
            bed = vipd.Bed(lab, {"r1": 250}, advert=A, other=True)
            bed.start()
            bed.wait_holders(["r1"], timeout=bed.mdi("r1") + 3)
            pkt = vipd.advert(3, 51, 254, [VIP], 20, src=bed.other.v4)
            self.send(bed, [pkt] * 100, ttl=64, interval=0.005)
            cphatest.wait_until(lambda: bed.vipd["r1"].bad_packets().get("ttl") == 100,
                                3, 0.02, "100 ttl drops counted")
            lines = [x for x in bed.vipd["r1"].log_text().splitlines()
                     if "dropped an advertisement" in x]
            step("100 bad packets in 0.5s: %d log lines" % len(lines))
            self.assertLessEqual(len(lines), 10)


def main():
    vipd.require(("tcpdump", "curl"))
    prog = unittest.main(exit=False, verbosity=2)
    return 0 if prog.result.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main())
