#!/usr/bin/env python3
"""vipd under a flood of VRRP packets from many spoofed source addresses.

A third host x (198.18.0.60) sends hand-made packets through a raw IP
socket (IPPROTO_RAW: x writes the IP header, so each packet carries a
source address of its own, drawn from 198.18.1.0 - 198.19.255.254).

test_bad_packet_flood_logs_little: r1 runs VI_1 (VRRPv3, VRID 51, priority
200) and VI_2 (VRRPv2, VRID 52, PASS "s3cret"), multicast. x floods for
4 s with five kinds of bad packets, each from a different source: a wrong
checksum, TTL 64, VRRPv2 for the v3 instance, a wrong password for VI_2,
and adverts for VRID 77 (another virtual router: ignored, not counted).
vipd must write a few lines per reason and, once the interval (10 s) is
over, one summary per reason ("vrrp: bad checksum: N more in the last 10s,
last: ..."), even though nothing else is logged then: fewer than 50 lines
for thousands of packets. For every reason, the lines let through plus
the summaries' counts equal the counter in show json and in the metrics.
During the flood r2 starts with priority 250: r1's MASTER -> BACKUP is
logged all the same. A second flood after a quiet gap behaves as the first.

test_unicast_ignores_spoofed_owner_adverts: r1 (200) and r2 (100) in
unicast mode, each the other's only unicast_peer. x floods both with
valid priority-255 VRRPv3 adverts for the VIP (the owner's priority; v3
has no authentication), from sources that are not peers. Checked up to ten
times over 8 s: r1 stays MASTER with the VIP, r2 BACKUP without; afterwards no
transition happened and the packets were counted as unknown_peer (so they
passed every other check: accepted, they would have taken the VIP away).

test_multicast_nftables_ruleset_from_the_man_page: the same flood in
multicast mode, sent to 224.0.0.18, takes the VIP off both hosts (the
exposure vipd(8) describes); once the example ruleset of vipd(8)'s
SECURITY section (its peers are 198.18.0.11 and .12, r1 and r2 here) is
loaded on both, the next flood leaves the VIP on r1, checked up to ten
times over 8 s, and the ruleset's counter shows the packets it dropped.

Exit 0 pass, 77 skip (not root, curl missing, vipd not built), else fail.
    sudo python3 tests/integration/test_vipd_flood.py [-v]
"""

import json
import os
import random
import re
import shutil
import socket
import struct
import sys
import time
import unittest

sys.dont_write_bytecode = True

import cphatest  # noqa: E402
from cphatest import step, util, vipd  # noqa: E402
from cphatest.vipd import MCAST4, VIP  # noqa: E402

A = 0.2
PASS = "s3cret"
PORT = 9650
FLOOD_SECONDS = 4.0
SPOOF_SECONDS = 8.0
RATE = 12000          # packets per second at most (the machine is shared)
INTERVAL = 10         # lib/log.c's default rate-limit interval, seconds
MAX_LINES = 50        # drop lines + summaries allowed per flood

# The sender, run inside x: packets from a JSON file, paced, for a while;
# prints what it sent per kind. Stops by itself.
FLOOD = r'''
import json, socket, sys, time
spec = json.load(open(sys.argv[1]))
seconds, rate = float(sys.argv[2]), float(sys.argv[3])
pkts = [(k, d, bytes.fromhex(h)) for k, d, h in spec["packets"]]
s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_RAW)
s.setsockopt(socket.SOL_SOCKET, socket.SO_BINDTODEVICE, b"eth0")
s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF, socket.inet_aton(spec["ifaddr"]))
sent, errors, n = {}, 0, 0
start = time.monotonic()
while n < seconds * rate:
    if n % 128 == 0:
        now = time.monotonic()
        if now - start >= seconds:
            break
        ahead = start + n / rate - now
        if ahead > 0:
            time.sleep(ahead)
    k, d, p = pkts[n % len(pkts)]
    n += 1
    try:
        s.sendto(p, (d, 0))
    except OSError:
        errors += 1
        continue
    sent[k] = sent.get(k, 0) + 1
print("FLOOD " + json.dumps({"sent": sent, "errors": errors}), flush=True)
'''

SUMMARY = re.compile(r": warning: (vrrp: [^:]+): (\d+) more in the last (\d+)s, last: "
                     r"instance (\S+): dropped an advertisement from (\S+): (.+)$")
PASSED = re.compile(r": warning: instance (\S+): dropped an advertisement from (\S+): (.+)$")


def spoofed_sources(n, seed, avoid=()):
    """n distinct addresses from 198.18.1.0 - 198.19.255.254 (never the
    lab's own 198.18.0.0/24)."""
    rng = random.Random(seed)
    out = set()
    while len(out) < n:
        a = "198.%d.%d.%d" % (rng.choice((18, 19)), rng.randint(1, 255), rng.randint(1, 254))
        if a not in avoid:
            out.add(a)
    return sorted(out)


def ip_packet(src, dst, ttl, payload):
    """IPv4 header (the kernel fills in the length, id and checksum) +
    payload, protocol 112, TOS 0xc0 as VRRP senders use."""
    hdr = struct.pack("!BBHHHBBH4s4s", 0x45, 0xc0, 0, 0, 0, ttl, vipd.VRRP_PROTO, 0,
                      socket.inet_aton(src), socket.inet_aton(dst))
    return hdr + payload


def flood(lab, x, kinds, name, seconds=FLOOD_SECONDS):
    """Start the sender in x for `seconds`: kinds is [(kind, [(dst, ip
    packet), ...])], sent interleaved. Returns its process."""
    pkts = []
    longest = max(len(p) for _k, p in kinds)
    for i in range(longest):
        for k, plist in kinds:
            d, p = plist[i % len(plist)]
            pkts.append((k, d, p.hex()))
    spec = lab.path(name, "packets.json")
    with open(spec, "w") as f:
        json.dump({"ifaddr": x.v4, "packets": pkts}, f)
    prog = lab.path(name, "flood.py")
    with open(prog, "w") as f:
        f.write(FLOOD)
    return x.spawn([sys.executable, prog, spec, str(seconds), str(RATE)], name=name)


def flood_result(proc):
    """Wait for the sender to finish; {kind: packets sent}."""
    rc = proc.wait(timeout=SPOOF_SECONDS + 20)
    if rc != 0:
        raise AssertionError("flood sender exited %s:\n%s" % (rc, proc.log_text()[-2000:]))
    m = re.search(r"^FLOOD (.*)$", proc.log_text(), re.M)
    if not m:
        raise AssertionError("flood sender said nothing:\n%s" % proc.log_text()[-2000:])
    return json.loads(m.group(1))["sent"]


def drop_lines(text):
    """vipd's log: ([(instance, source, reason)] let through,
    [(instance, reason, count, source)] summaries)."""
    passed, summaries = [], []
    for line in text.splitlines():
        m = SUMMARY.search(line)
        if m:
            summaries.append((m.group(4), m.group(6), int(m.group(2)), m.group(5)))
            continue
        m = PASSED.search(line)
        if m:
            passed.append((m.group(1), m.group(2), m.group(3)))
    return passed, summaries


def man_ruleset():
    """The nftables example of vipd(8), as printed."""
    path = os.path.join(util.repo_root(), "docs", "man", "vipd.8")
    with open(path) as f:
        blocks = re.findall(r"^\.EX\n(.*?)^\.EE$", f.read(), re.M | re.S)
    rules = [b for b in blocks if b.startswith("table inet")]
    if len(rules) != 1 or "\\" in rules[0]:
        raise AssertionError("vipd.8: expected one plain nftables example, found %r" % rules)
    return rules[0]


def owner_flood_kinds(hosts, dst_of, avoid, seed):
    """Valid priority-255 VRRPv3 adverts for VRID 51 and the VIP from 3000
    spoofed sources, one kind per host, sent to dst_of(host)."""
    src = spoofed_sources(3000, seed, avoid=avoid)
    return [("owner-%s" % h.name, [(dst_of(h), ip_packet(s, dst_of(h), 255, vipd.advert(
        3, 51, 255, [VIP], 20, src=s, dst=dst_of(h)))) for s in src]) for h in hosts]


def no_rp_filter(host):
    # spoofed sources are off-link: keep reverse-path filtering out of it
    host.run(["sysctl", "-q", "-w", "net.ipv4.conf.all.rp_filter=0",
              "net.ipv4.conf.eth0.rp_filter=0"])


class Flood(unittest.TestCase):

    def bad_kinds(self, x, seed):
        n = 600
        src = spoofed_sources(5 * n, seed)

        def v3(s, **kw):
            a = dict(version=3, vrid=51, priority=100, vips=[VIP], adver=20, src=s, dst=MCAST4)
            a.update(kw)
            return vipd.advert(**a)
        v2 = dict(version=2, vrid=52, priority=100, vips=["198.18.0.101"], adver=1)
        return [
            ("checksum", [(MCAST4, ip_packet(s, MCAST4, 255, v3(s, bad_checksum=True)))
                          for s in src[0:n]]),
            ("ttl", [(MCAST4, ip_packet(s, MCAST4, 64, v3(s))) for s in src[n:2 * n]]),
            ("version", [(MCAST4, ip_packet(s, MCAST4, 255, vipd.advert(
                **dict(v2, vrid=51, vips=[VIP], auth_pass=PASS)))) for s in src[2 * n:3 * n]]),
            ("auth_password", [(MCAST4, ip_packet(s, MCAST4, 255, vipd.advert(
                **dict(v2, auth_pass="wrong")))) for s in src[3 * n:4 * n]]),
            ("vrid", [(MCAST4, ip_packet(s, MCAST4, 255, v3(s, vrid=77)))
                      for s in src[4 * n:5 * n]]),
        ]

    def counters(self, v, host):
        """{(instance, reason): count} from show json, checked against the
        metrics."""
        out = {}
        m = vipd.metrics(host, "%s:%d" % (host.v4, PORT))
        for inst in ("VI_1", "VI_2"):
            for reason, n in v.bad_packets(inst).items():
                out[(inst, reason)] = n
                self.assertEqual(vipd.metric(m, "vipd_bad_packets_total", vrrp_instance=inst,
                                             reason=reason), n, (inst, reason))
        return out

    def tally(self, text):
        """The drop lines of text: (let through, summaries, {(instance,
        reason): lines let through + summary counts})."""
        passed, summaries = drop_lines(text)
        got = {}
        for inst, _src, reason in passed:
            got[(inst, reason)] = got.get((inst, reason), 0) + 1
        for inst, reason, n, src in summaries:
            got[(inst, reason)] = got.get((inst, reason), 0) + n
            self.assertTrue(src.startswith("198.18.") or src.startswith("198.19."), src)
        return passed, summaries, got

    def hold_through_flood(self, r1, r2, v1, v2, t0):
        """Up to ten checks, 0.2 s apart, while the flood that began at t0
        lasts: the VIP on r1 alone, r1 MASTER and r2 BACKUP each time, and
        at least six checks made. Returns how many."""
        checks = 0
        while checks < 10 and time.monotonic() - t0 < SPOOF_SECONDS - 0.5:
            self.assertEqual(vipd.holders([r1, r2], VIP), ["r1"],
                             "check %d, %.1fs into the flood" % (checks + 1,
                                                                time.monotonic() - t0))
            self.assertEqual((v1.state(), v2.state()), ("MASTER", "BACKUP"))
            checks += 1
            time.sleep(0.2)
        self.assertGreaterEqual(checks, 6)
        return checks

    def test_bad_packet_flood_logs_little(self):
        with cphatest.Lab("vipd-flood") as lab:
            r1, r2, x = vipd.hosts(lab, 2, client=False, other=True)
            no_rp_filter(r1)
            body = (vipd.instance(priority=200, advert=A) +
                    vipd.instance(name="VI_2", vrid=52, priority=200, advert=1, version=2,
                                  auth_pass=PASS, vips=("198.18.0.101/24",)))
            v1 = vipd.Vipd(lab, r1, body,
                           global_extra=["vipd_metrics_bind %s:%d" % (r1.v4, PORT)])
            v1.start()
            v1.wait_state("MASTER", timeout=vipd.master_down(200, A) + 3, name="VI_1")
            v1.wait_state("MASTER", timeout=vipd.master_down(200, 1, 2) + 3, name="VI_2")
            v2 = vipd.Vipd(lab, r2, vipd.instance(priority=250, advert=A))
            total = {}
            log_start = len(v1.log_text())
            for rnd in (1, 2):
                before = self.counters(v1, r1)
                step("round %d: x floods r1 for %gs with 5 kinds of bad packets from 3000 "
                     "source addresses" % (rnd, FLOOD_SECONDS))
                t0 = time.monotonic()
                proc = flood(lab, x, self.bad_kinds(x, rnd), "flood%d" % rnd)
                if rnd == 1:
                    time.sleep(0.5)
                    step("r2 (priority 250) starts during the flood")
                    v2.start()
                    vipd.wait_log(v1.proc, "instance VI_1: MASTER -> BACKUP",
                                  vipd.master_down(250, A) + 3)
                    vipd.wait_holders([r1, r2], VIP, ["r2"], timeout=2)
                sent = flood_result(proc)
                text = v1.log_text()[log_start:]
                passed, summaries = drop_lines(text)
                step("round %d: sent %s; %d drop lines in r1's log right after the flood"
                     % (rnd, sent, len(passed) + len(summaries)))
                self.assertLess(len(passed) + len(summaries), MAX_LINES)
                self.assertGreater(sum(sent.values()), 5000, sent)

                # the summaries come out once the interval is over, with
                # nothing more logged: vipd's one-second flush timer
                def settled():
                    now = self.counters(v1, r1)
                    grown = {k: n - before.get(k, 0) for k, n in now.items()
                             if n != before.get(k, 0)}
                    _p, _s, got = self.tally(v1.log_text()[log_start:])
                    return grown if got == grown else None
                grown = util.wait_until(settled, INTERVAL + 8, 0.2,
                                        "summaries matching the counters")
                text = v1.log_text()[log_start:]
                passed, summaries, got = self.tally(text)
                self.assertEqual(got, grown)
                step("round %d: %.1fs after the flood began: %d lines let through, "
                     "summaries %s; counters grew by %s"
                     % (rnd, time.monotonic() - t0, len(passed),
                        [(s[1], s[2]) for s in summaries], grown))
                self.assertLess(len(passed) + len(summaries), MAX_LINES)
                want = {("VI_1", "checksum"), ("VI_1", "ttl"), ("VI_1", "version"),
                        ("VI_2", "auth_password")}
                self.assertEqual(set(grown), want)
                for (inst, reason), n in grown.items():
                    # every reason let a few lines through and summed up the rest
                    self.assertTrue([p for p in passed if p[0] == inst and p[2] == reason],
                                    (inst, reason))
                    self.assertEqual(len([s for s in summaries
                                          if s[0] == inst and s[1] == reason]), 1)
                    self.assertLessEqual(n, sent[reason], (inst, reason))
                    self.assertGreater(n, 500, (inst, reason))
                    total[(inst, reason)] = total.get((inst, reason), 0) + n
                # the lines let through name different sources
                self.assertGreater(len({p[1] for p in passed}), 4)
                log_start = len(v1.log_text())
            self.assertIn("instance VI_1: MASTER -> BACKUP", v1.log_text())
            self.assertEqual(v1.state("VI_1"), "BACKUP")
            self.assertEqual(v1.state("VI_2"), "MASTER")
            step("two floods: %d packets counted, all accounted for in the log"
                 % sum(total.values()))

    def test_unicast_ignores_spoofed_owner_adverts(self):
        with cphatest.Lab("vipd-spoof") as lab:
            r1, r2, x = vipd.hosts(lab, 2, client=False, other=True)
            for h in (r1, r2):
                no_rp_filter(h)
            v1 = vipd.Vipd(lab, r1, vipd.instance(priority=200, advert=A, unicast_src=r1.v4,
                                                  peers=(r2.v4,)))
            v2 = vipd.Vipd(lab, r2, vipd.instance(priority=100, advert=A, unicast_src=r2.v4,
                                                  peers=(r1.v4,)))
            v1.start()
            v2.start()
            vipd.wait_holders([r1, r2], VIP, ["r1"], timeout=vipd.master_down(100, A) + 3)
            v2.wait_state("BACKUP", timeout=2)
            before = (v1.inst()["transitions"], v2.inst()["transitions"])
            kinds = owner_flood_kinds((r1, r2), lambda h: h.v4, (r1.v4, r2.v4), 8)
            step("x floods r1 and r2 for %gs with priority-255 adverts from 3000 spoofed "
                 "non-peer sources" % SPOOF_SECONDS)
            t0 = time.monotonic()
            proc = flood(lab, x, kinds, "spoof", SPOOF_SECONDS)
            rcvd = v1.inst()["adverts_received"]

            def seen():
                j = v1.inst()
                return j["bad_packets"].get("unknown_peer", 0) + j["adverts_received"] - rcvd
            # dropped or (were the check missing) taken: r1 has the flood
            util.wait_until(lambda: seen() > 100, 3, 0.05, "r1 to see the flood")
            checks = self.hold_through_flood(r1, r2, v1, v2, t0)
            sent = flood_result(proc)
            bad1, bad2 = v1.bad_packets(), v2.bad_packets()
            step("%d checks over the flood: VIP on r1 each time; sent %s; r1 dropped %s, "
                 "r2 %s" % (checks, sent, bad1, bad2))
            # dropped for the source alone: every other check passed
            self.assertEqual(set(bad1), {"unknown_peer"})
            self.assertEqual(set(bad2), {"unknown_peer"})
            self.assertGreater(bad1["unknown_peer"], 1000)
            self.assertGreater(bad2["unknown_peer"], 1000)
            self.assertEqual((v1.inst()["transitions"], v2.inst()["transitions"]), before)
            vipd.steady_holders([r1, r2], VIP, ["r1"], 3 * A)
            passed, summaries = drop_lines(v1.log_text())
            step("r1 logged %d drop lines" % (len(passed) + len(summaries)))
            self.assertLess(len(passed) + len(summaries), MAX_LINES)
            self.assertTrue(passed)
            self.assertEqual({p[2] for p in passed}, {"not a unicast_peer"})

    def test_multicast_nftables_ruleset_from_the_man_page(self):
        if not shutil.which("nft"):
            self.skipTest("nft (nftables) is not installed")
        ruleset = man_ruleset()
        with cphatest.Lab("vipd-nft") as lab:
            r1, r2, x = vipd.hosts(lab, 2, client=False, other=True)
            self.assertEqual((r1.v4, r2.v4), ("198.18.0.11", "198.18.0.12"))
            for h in (r1, r2):
                no_rp_filter(h)
            v1 = vipd.Vipd(lab, r1, vipd.instance(priority=200, advert=A))
            v2 = vipd.Vipd(lab, r2, vipd.instance(priority=100, advert=A))
            v1.start()
            v2.start()
            vipd.wait_holders([r1, r2], VIP, ["r1"], timeout=vipd.master_down(100, A) + 3)
            kinds = owner_flood_kinds([x], lambda h: MCAST4, (r1.v4, r2.v4), 9)

            step("control: without the ruleset, a 2s flood of forged priority-255 adverts")
            proc = flood(lab, x, kinds, "control", 2.0)
            took = vipd.wait_holders([r1, r2], VIP, [], timeout=2)
            step("the VIP left r1 %.2fs into the flood; no host holds it" % took)
            flood_result(proc)
            vipd.wait_holders([r1, r2], VIP, ["r1"], timeout=vipd.master_down(200, A) + 3)

            path = lab.path("nft", "vrrp.nft")
            with open(path, "w") as f:
                f.write(ruleset)
            for h in (r1, r2):
                h.run(["nft", "-f", path])
            v1.wait_state("MASTER", timeout=2)
            before = (v1.inst()["transitions"], v2.inst()["transitions"])
            step("vipd(8)'s ruleset loaded on r1 and r2; x floods for %gs" % SPOOF_SECONDS)
            t0 = time.monotonic()
            proc = flood(lab, x, kinds, "filtered", SPOOF_SECONDS)

            def dropped(h):
                out = h.run(["nft", "list", "table", "inet", "vrrp_peers"]).stdout
                m = re.search(r"counter packets (\d+)", out)
                return int(m.group(1)) if m else 0
            util.wait_until(lambda: dropped(r1) > 100, 3, 0.05, "r1's ruleset to drop")
            checks = self.hold_through_flood(r1, r2, v1, v2, t0)
            sent = flood_result(proc)
            n1, n2 = dropped(r1), dropped(r2)
            step("%d checks: VIP on r1 each time; sent %s; the ruleset dropped %d on r1, "
                 "%d on r2" % (checks, sent, n1, n2))
            self.assertGreater(n1, 1000)
            self.assertGreater(n2, 1000)
            self.assertEqual((v1.inst()["transitions"], v2.inst()["transitions"]), before)
            # r1's own adverts still reach r2: it stays BACKUP past its MDI
            vipd.steady_holders([r1, r2], VIP, ["r1"], vipd.master_down(100, A) + 0.2)


def main():
    vipd.require(("curl",))
    return util.run_tests()


if __name__ == "__main__":
    sys.exit(main())
