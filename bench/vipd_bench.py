#!/usr/bin/env python3
"""vipd against keepalived: VRRP failover time measured from outside, same run.

Three hosts (network namespaces on a private bridge, 198.18.0.0/15 only):
router A (priority 150, "state MASTER"), router B (priority 100, "state
BACKUP") and a client. A and B run the same implementation -- both vipd, then
both keepalived, alternating per repetition -- with the same configuration:
VRRPv3, IPv4 multicast, one VIP, keepalived's defaults for everything else.

Everything is observed from one raw AF_PACKET socket opened in the client's
namespace, with kernel receive timestamps (CLOCK_REALTIME); t0 is read from
the same clock just before the signal is sent. For each repetition:

  1. start A, wait until it advertises and answers ARP for the VIP; start B,
     wait until B is BACKUP and has seen A's adverts; the client's neighbour
     entry for the VIP holds A's MAC;
  2. t0, then SIGKILL to A's process group (the crash case: vipd, or
     keepalived's parent and VRRP child at once, so nothing says goodbye),
     or SIGTERM to A's main process (the graceful case: the master sends
     priority 0, as under systemd);
  3. while the client sends an ARP request for the VIP every --probe-ms,
     record the first gratuitous ARP for the VIP from B (t_arp), the first
     ARP reply for the VIP from B (t_answer) and B's first advertisement.

RFC 9568 timers for B (priority 100), advert interval T:
  Skew_Time            = (256 - 100) * T / 256
  Master_Down_Interval = 3 * T + Skew_Time
Failover measured from t0 is Master_Down_Interval minus the time since A's
last advertisement; t0 is placed at the same spread of phases of A's advert
interval for both implementations, so the "since t0" rows compare like with
like, and the "since A's last advert" rows remove the phase: those are the
ones to hold against Master_Down_Interval. Graceful
handover is held against Skew_Time (+5 ms) from t0 and from A's priority-0
advertisement.

Goals: never slower than keepalived; crash failover within 5% of
Master_Down_Interval; graceful handover within Skew_Time + 5 ms. This is a
benchmark: it prints numbers, ratios and verdicts and never fails on timings.
"""

import argparse
import os
import random
import select
import shutil
import signal
import socket
import statistics
import struct
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "tests", "lib"))
sys.path.insert(0, os.path.join(ROOT, "control-plane", "lab"))  # cphatest builds on cphalab

import cphatest  # noqa: E402
from cphatest import util  # noqa: E402
from cphatest.lbd import in_host  # noqa: E402

BUILD = os.environ.get("CPHA_BUILD_DIR", os.path.join(ROOT, "build"))
VIPD = os.path.join(BUILD, "vipd", "vipd")
KEEPALIVED = shutil.which("keepalived") or "/usr/sbin/keepalived"

A_IP, B_IP, CLIENT_IP = "198.18.0.11", "198.18.0.12", "198.18.0.50"
VIP = "198.18.0.100"  # the one probed; --vips N adds .101, .102, ...
VIPS = [VIP]
PREFIX = 24
VRID = 51
PRIO_A, PRIO_B = 150, 100
IMPLS = ("vipd", "keepalived")
POST_WINDOW = 0.15  # s of capture after B's takeover (its GARP burst)

ETH_P_ALL = 0x0003
ETH_P_ARP = 0x0806
ETH_P_IP = 0x0800
PACKET_OUTGOING = 4
SO_TIMESTAMPNS = getattr(socket, "SO_TIMESTAMPNS", 35)  # Linux asm-generic

VRRP_CONF = """\
global_defs {{
    router_id {router_id}
    vrrp_version 3
{extra_global}}}

vrrp_instance VI_1 {{
    state {state}
    interface eth0
    virtual_router_id {vrid}
    priority {prio}
    advert_int {advert}
    virtual_ipaddress {{
{vips}
    }}
}}
"""


def log(msg):
    print(msg, flush=True)


def skew_time(adv, prio=PRIO_B):
    return (256 - prio) * adv / 256.0


def master_down(adv, prio=PRIO_B):
    return 3 * adv + skew_time(adv, prio)


def ip4(s):
    return socket.inet_aton(s)


def mac_bytes(s):
    return bytes(int(x, 16) for x in s.split(":"))


def mac_str(b):
    return ":".join("%02x" % x for x in b)


# ----------------------------------------------------------------- wire ---

class Wire:
    """The client's view of the link: one AF_PACKET socket (opened inside the
    client's namespace) that sends ARP requests for the VIP and records every
    VRRP advertisement, gratuitous ARP and ARP reply for the VIP, with the
    kernel's receive time (ns, CLOCK_REALTIME)."""

    def __init__(self, host, client_mac, names):
        self.names = names  # {mac bytes: "A"/"B"}
        self.vip_index = {ip4(v): i for i, v in enumerate(VIPS)}
        self.client_mac = client_mac
        self.vip, self.client_ip = ip4(VIP), ip4(CLIENT_IP)
        self.sock = in_host(host, self._open)
        self.sock.setblocking(False)
        self.poller = select.poll()
        self.poller.register(self.sock.fileno(), select.POLLIN)
        self.events = []  # (ts_ns, kind, who, info)
        self.probe = (b"\xff" * 6 + client_mac + struct.pack("!H", ETH_P_ARP) +
                      struct.pack("!HHBBH", 1, ETH_P_IP, 6, 4, 1) + client_mac +
                      ip4(CLIENT_IP) + b"\x00" * 6 + ip4(VIP))
        self.probes_sent = 0
        self.ts_fallbacks = 0

    @staticmethod
    def _open():
        s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
        s.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
        s.bind(("eth0", ETH_P_ALL))
        return s

    def close(self):
        self.sock.close()

    def send_probe(self):
        try:
            self.sock.send(self.probe)
            self.probes_sent += 1
        except OSError:
            pass

    def _read_all(self):
        while True:
            try:
                data, anc, _flags, addr = self.sock.recvmsg(2048, socket.CMSG_SPACE(16))
            except (BlockingIOError, InterruptedError):
                return
            ts = None
            for level, typ, cd in anc:
                if level == socket.SOL_SOCKET and typ == SO_TIMESTAMPNS and len(cd) >= 16:
                    sec, nsec = struct.unpack("qq", cd[:16])
                    ts = sec * 1000000000 + nsec
            if ts is None:
                ts = time.time_ns()
                self.ts_fallbacks += 1
            if addr[2] == PACKET_OUTGOING:
                continue
            self._parse(ts, data)

    def _parse(self, ts, b):
        if len(b) < 14:
            return
        src = bytes(b[6:12])
        who = self.names.get(src)
        etype = struct.unpack("!H", b[12:14])[0]
        if etype == ETH_P_ARP and len(b) >= 42:
            op = struct.unpack("!H", b[20:22])[0]
            sha, spa, tpa = bytes(b[22:28]), bytes(b[28:32]), bytes(b[38:42])
            who = self.names.get(sha, who)
            if spa == tpa and spa in self.vip_index:
                # gratuitous (request or reply form): sender IP = target IP
                self.events.append((ts, "garp", who, self.vip_index[spa]))
            elif op == 2 and spa == self.vip and tpa == self.client_ip:
                self.events.append((ts, "reply", who, mac_str(sha)))
        elif etype == ETH_P_IP and len(b) >= 34:
            ihl = (b[14] & 0x0F) * 4
            if b[23] != 112 or len(b) < 14 + ihl + 8:
                return
            v = b[14 + ihl:]
            if v[1] != VRID:
                return
            ver = v[0] >> 4
            adv = (((v[4] & 0x0F) << 8) | v[5]) if ver == 3 else v[5] * 100
            self.events.append((ts, "advert", who, (v[2], adv, ver)))

    def pump(self, seconds, probe_ms=None, until=None):
        """Read (and probe every probe_ms) for at most `seconds`; stop early
        when until(events) is true. Returns until's last value (or None)."""
        end = time.monotonic() + seconds
        next_probe = time.monotonic()
        while True:
            now = time.monotonic()
            if probe_ms and now >= next_probe:
                self.send_probe()
                next_probe = now + probe_ms / 1000.0
            self._read_all()
            if until is not None:
                v = until(self.events)
                if v:
                    return v
            now = time.monotonic()
            if now >= end:
                return None
            wait = end - now
            if probe_ms:
                wait = min(wait, max(0.0, next_probe - now))
            self.poller.poll(max(0, int(wait * 1000)) if wait > 0.001 else 0)

    def since(self, t_ns, kind=None, who=None):
        return [e for e in self.events if e[0] >= t_ns and (kind is None or e[1] == kind)
                and (who is None or e[2] == who)]


def first(evs):
    return evs[0][0] if evs else None


# --------------------------------------------------------- routers ---

class Router:
    """One VRRP daemon (vipd or keepalived) on one host of the lab."""

    def __init__(self, lab, host, impl, role, advert, workdir):
        self.lab, self.host, self.impl, self.role = lab, host, impl, role
        self.dir = os.path.join(workdir, "%s-%s" % (impl, role))
        os.makedirs(self.dir, exist_ok=True)
        self.conf = os.path.join(self.dir, "conf")
        extra = ""
        if impl == "vipd":
            extra = "    vipd_admin_socket %s\n" % os.path.join(self.dir, "admin.sock")
        with open(self.conf, "w") as f:
            f.write(VRRP_CONF.format(router_id="r" + role, extra_global=extra,
                                     state="MASTER" if role == "A" else "BACKUP",
                                     vrid=VRID, prio=PRIO_A if role == "A" else PRIO_B,
                                     advert="%g" % advert, vips="\n".join(
                                         "        %s/%d" % (v, PREFIX) for v in VIPS)))
        self.proc = None

    def argv(self):
        if self.impl == "vipd":
            return [VIPD, "-f", self.conf]
        p = lambda n: os.path.join(self.dir, n)  # noqa: E731
        return [KEEPALIVED, "--dont-fork", "--log-console", "--log-detail", "--no-syslog",
                "--vrrp", "--use-file=" + self.conf, "--pid=" + p("keepalived.pid"),
                "--vrrp_pid=" + p("vrrp.pid"), "--checkers_pid=" + p("checkers.pid"),
                "--bfd_pid=" + p("bfd.pid")]

    def start(self):
        for n in ("keepalived.pid", "vrrp.pid", "checkers.pid", "bfd.pid"):
            try:
                os.unlink(os.path.join(self.dir, n))
            except FileNotFoundError:
                pass
        self.proc = self.host.spawn(self.argv(), name="%s-%s" % (self.impl, self.role))
        return self.proc

    def backup_logged(self):
        needle = "-> BACKUP" if self.impl == "vipd" else "Entering BACKUP STATE"
        return needle in self.proc.log_text()

    def vrrp_child(self):
        """keepalived's VRRP child PID (None for vipd or when unknown)."""
        if self.impl != "keepalived":
            return None
        try:
            with open(os.path.join(self.dir, "vrrp.pid")) as f:
                return int(f.read().strip())
        except (OSError, ValueError):
            return None

    def crash(self):
        """SIGKILL the whole process group at once (keepalived's children are
        in it; a lone child outside it is killed right after, by PID)."""
        child = self.vrrp_child()
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        if child and util.pid_alive(child):
            try:
                if os.getpgid(child) != self.proc.pid:
                    os.kill(child, signal.SIGKILL)
            except ProcessLookupError:
                pass

    def terminate(self):
        """SIGTERM to the main process only, as systemd does for both."""
        self.proc.kill(signal.SIGTERM)

    def stop(self):
        if self.proc is not None:
            child = self.vrrp_child()
            self.proc.terminate_and_wait(5.0)
            if child and util.pid_alive(child):
                try:
                    os.kill(child, signal.SIGKILL)
                except ProcessLookupError:
                    pass


# ------------------------------------------------------ one repetition ---

class RepFailed(Exception):
    pass


def clean_vip(hosts):
    for h in hosts:
        for v in VIPS:
            h.run(["ip", "addr", "del", "%s/%d" % (v, PREFIX), "dev", "eth0"], check=False,
                  timeout=10)


def client_neigh(client):
    r = client.run(["ip", "neigh", "show", VIP, "dev", "eth0"], check=False, timeout=10)
    parts = r.stdout.split()
    return parts[parts.index("lladdr") + 1] if "lladdr" in parts else None


def one_rep(ctx, impl, advert, mode, phase):
    """Run one repetition, t0 at `phase` (0..1) of A's advert interval;
    return a dict of timings (seconds) and notes."""
    lab, wire, hA, hB, hC = ctx["lab"], ctx["wire"], ctx["A"], ctx["B"], ctx["C"]
    mdi = master_down(advert)
    res = {"notes": []}
    clean_vip((hA, hB))
    hC.run(["ip", "neigh", "flush", "dev", "eth0"], check=False, timeout=10)
    rA = Router(lab, hA, impl, "A", advert, ctx["work"])
    rB = Router(lab, hB, impl, "B", advert, ctx["work"])
    try:
        wire.pump(0.02)
        wire.events.clear()
        t_startA = time.time_ns()
        rA.start()

        def a_ready(evs):
            return (any(e[1] == "advert" and e[2] == "A" and e[3][0] == PRIO_A for e in evs)
                    and any(e[1] == "reply" and e[2] == "A" for e in evs))
        if not wire.pump(master_down(advert, PRIO_A) + 5.0, probe_ms=20, until=a_ready):
            raise RepFailed("A (%s) did not become master: %s" % (
                impl, util.tail(rA.proc.log_path, 5)))
        res["a_start"] = (first([e for e in wire.events if e[1] == "advert" and e[2] == "A"])
                          - t_startA) / 1e9

        t_startB = time.time_ns()
        rB.start()
        deadline = time.monotonic() + 10
        while not rB.backup_logged():
            if not rB.proc.running() or time.monotonic() > deadline:
                raise RepFailed("B (%s) did not log BACKUP: %s" % (
                    impl, util.tail(rB.proc.log_path, 5)))
            wire.pump(0.01)
        t_bup = time.time_ns()
        # the client talks to the VIP once: its neighbour entry is A's
        hC.run(["ping", "-c", "1", "-W", "1", VIP], check=False, timeout=10)
        # B must have taken in a couple of A's adverts since it came up
        if not wire.pump(3 * advert + 2.0, until=lambda evs: len(
                [e for e in evs if e[0] >= t_bup and e[1] == "advert" and e[2] == "A"]) >= 2):
            raise RepFailed("A stopped advertising after B started")
        t_chk = time.time_ns()
        wire.pump(0.03, probe_ms=ctx["probe_ms"])
        if wire.since(t_startB, "advert", "B") or wire.since(t_startB, "garp", "B"):
            raise RepFailed("B advertised before t0 (%s): not a clean BACKUP" % impl)
        if wire.since(t_chk, "reply", "B") or not wire.since(t_chk, "reply", "A"):
            raise RepFailed("the VIP does not answer from A alone before t0")
        neigh = client_neigh(hC)
        if neigh != ctx["mac_str"]["A"]:
            raise RepFailed("client neighbour entry for the VIP is %s, not A's %s"
                            % (neigh, ctx["mac_str"]["A"]))
        if not rA.proc.running() or not rB.proc.running():
            raise RepFailed("a router exited before t0")

        # -- t0: `phase` of an advert interval after one of A's adverts --
        t_mark = time.time_ns()
        if not wire.pump(advert + 1.0, until=lambda evs: wire.since(t_mark, "advert", "A")):
            raise RepFailed("A stopped advertising before t0")
        target = wire.since(t_mark, "advert", "A")[0][0] + int(phase * advert * 1e9)
        while time.time_ns() < target - 2000000:
            wire.pump(min(0.001, (target - time.time_ns()) / 1e9))
        while time.time_ns() < target:
            pass
        t0 = time.time_ns()
        if mode == "kill":
            rA.crash()
        else:
            rA.terminate()
        bound = (mdi if mode == "kill" else skew_time(advert)) + 3.0

        def done(evs):
            return (wire.since(t0, "garp", "B") and wire.since(t0, "reply", "B")
                    and wire.since(t0, "advert", "B"))
        wire.pump(bound, probe_ms=ctx["probe_ms"], until=done)
        # the rest of B's first GARP burst, its next adverts, A's last packets
        post = POST_WINDOW if len(VIPS) == 1 else min(1.5, max(POST_WINDOW, 10 * advert))
        wire.pump(post, probe_ms=ctx["probe_ms"])

        garps = wire.since(t0, "garp", "B")
        garpB = first([e for e in garps if e[3] == 0])
        replyB = first(wire.since(t0, "reply", "B"))
        advB = first(wire.since(t0, "advert", "B"))
        if replyB is None and garpB is None:
            raise RepFailed("B (%s) did not take over within %.1f s" % (impl, bound))
        a_before = [e for e in wire.events if e[0] < t0 and e[1] == "advert" and e[2] == "A"]
        a_after = wire.since(t0, "advert", "A")
        last_a = a_before[-1][0] if a_before else None
        prio0 = [e for e in a_after if e[3][0] == 0]
        if mode == "kill" and a_after:
            res["notes"].append("A advertised after SIGKILL (%s)" % ",".join(
                "prio %d at +%.1f ms" % (e[3][0], (e[0] - t0) / 1e6) for e in a_after))
        if mode == "term":
            if not prio0:
                res["notes"].append("no priority-0 advert from A after SIGTERM")
            else:
                res["prio0"] = (prio0[0][0] - t0) / 1e9
        ref = prio0[0][0] if (mode == "term" and prio0) else last_a

        def rel(t, base):
            return None if t is None or base is None else (t - base) / 1e9
        res.update({
            "t_arp": rel(garpB, t0), "t_answer": rel(replyB, t0), "t_advert": rel(advB, t0),
            "ref_arp": rel(garpB, ref), "ref_answer": rel(replyB, ref),
            "ref_advert": rel(advB, ref), "phase": rel(t0, last_a),
        })
        if replyB is None:
            res["notes"].append("B sent GARP but no ARP reply seen within %.1f s" % bound)
        if garpB is None:
            res["notes"].append("no GARP from B within %.1f s" % bound)
        # every VIP announced (with --vips N)
        per_vip = [first([e for e in garps if e[3] == i]) for i in range(len(VIPS))]
        if None in per_vip:
            res["notes"].append("B sent no GARP for %d of %d VIPs within the window" % (
                per_vip.count(None), len(VIPS)))
        else:
            res["t_arp_all"] = rel(max(per_vip), t0)
        # A's advert period before t0, B's advert gaps after it took over
        a_steady = [e[0] for e in a_before if e[0] >= t_bup]
        res["a_period"] = [(y - x) / 1e9 for x, y in zip(a_steady, a_steady[1:])]
        b_adv = [e[0] for e in wire.since(t0, "advert", "B")]
        res["b_gaps"] = [(y - x) / 1e9 for x, y in zip(b_adv, b_adv[1:])]
        # B's first GARP burst for the probed VIP (keepalived's default: 5 at once)
        gb = [e for e in garps if e[3] == 0]
        res["garps"] = len(gb)
        res["garp_spread"] = (gb[-1][0] - gb[0][0]) / 1e9 if gb else None
        res["garp_offsets"] = [(e[0] - gb[0][0]) / 1e6 for e in gb]
        if mode == "term" and replyB is not None:
            lastA = [e for e in wire.since(t0, "reply", "A") if e[0] < replyB]
            res["gap"] = rel(replyB, lastA[-1][0]) if lastA else rel(replyB, t0)
        return res
    finally:
        rA.stop()
        rB.stop()


# ------------------------------------------------------------ report ---

def med(xs):
    return statistics.median(xs) if xs else float("nan")


def p95(xs):
    if not xs:
        return float("nan")
    if len(xs) == 1:
        return xs[0]
    return statistics.quantiles(xs, n=20, method="inclusive")[18]


def report(results, sections, probe_ms):
    log("")
    log("All times in ms, from kernel receive timestamps on the client. Rows with "
        "'ARP reply' also carry the ARP probe interval (%g ms) as resolution." % probe_ms)
    for mode, adv, nreps in sections:
        mdi, skew = master_down(adv), skew_time(adv)
        r = results.get((mode, adv))
        if r is None:
            continue
        if mode == "kill":
            title = ("crash failover (SIGKILL to A), advert_int %g s: Master_Down_Interval "
                     "%.1f ms" % (adv, mdi * 1000))
            ref, refname, limit, limname = mdi, "MDI", mdi * 1.05, "MDI+5%"
            rows = [("t_arp", "GARP from B, since t0", False),
                    ("t_arp_all", "GARP for every VIP from B, since t0", False),
                    ("t_answer", "ARP reply from B, since t0", False),
                    ("ref_advert", "advert from B, since A's last advert", True),
                    ("ref_arp", "GARP from B, since A's last advert", True),
                    ("ref_answer", "ARP reply from B, since A's last advert", True)]
        else:
            title = ("graceful handover (SIGTERM to A), advert_int %g s: Skew_Time %.1f ms"
                     % (adv, skew * 1000))
            ref, refname, limit, limname = skew, "Skew", skew + 0.005, "Skew+5ms"
            rows = [("prio0", "A's priority-0 advert, since t0", None),
                    ("t_arp", "GARP from B, since t0", True),
                    ("t_arp_all", "GARP for every VIP from B, since t0", True),
                    ("t_answer", "ARP reply from B, since t0", True),
                    ("ref_answer", "ARP reply from B, since A's prio 0", True),
                    ("gap", "no ARP answer (A's last to B's first)", None)]
        log("")
        log(title)
        log("  successful repetitions: vipd %d, keepalived %d (of %d each)"
            % (len(r["vipd"]["ok"]), len(r["keepalived"]["ok"]), nreps))
        log("  %-48s %8s %10s %8s %8s %8s  %s" % ("first ... (stat)", "vipd", "keepalived",
                                                 "vipd/ka", "vipd/" + refname,
                                                 "ka/" + refname, "verdict"))
        for k, label, against_rfc in rows:
            if k == "t_arp_all" and len(VIPS) == 1:
                continue
            for stat, fn in (("median", med), ("p95", p95)):
                a = fn([x[k] for x in r["vipd"]["ok"] if x.get(k) is not None])
                b = fn([x[k] for x in r["keepalived"]["ok"] if x.get(k) is not None])
                ratio = a / b if b == b and b > 0 else float("nan")
                verdict = ""
                if against_rfc is not None and a == a and b == b:
                    d = (a - b) * 1000
                    if d <= 0:
                        verdict = "at or below keepalived"
                    else:
                        verdict = "behind keepalived by %.1f ms" % d
                        if "answer" in k and d < probe_ms:
                            verdict += " (< probe interval)"
                    if against_rfc:
                        if a <= limit:
                            verdict += "; within " + limname
                        else:
                            verdict += "; BEYOND %s by %.1f ms" % (limname, (a - limit) * 1000)
                            if "answer" in k and a - limit < probe_ms / 1000.0:
                                verdict += " (< probe interval)"
                if against_rfc is None:
                    rr = "%8s %8s" % ("", "")
                else:
                    rr = "%8.3f %8.3f" % (a / ref, b / ref)
                log("  %-48s %8.1f %10.1f %8.3f %s  %s" % (
                    "%s (%s)" % (label, stat), a * 1000, b * 1000, ratio, rr, verdict))
        ph = [x["phase"] for i in IMPLS for x in r[i]["ok"] if x.get("phase") is not None]
        if ph:
            log("  t0 fell %.0f to %.0f ms after A's last %sadvert (the same spread of phases "
                "for both)"
                % (min(ph) * 1000, max(ph) * 1000, "regular " if mode == "term" else ""))
        for i in IMPLS:
            ok = r[i]["ok"]
            st = [x["a_start"] for x in ok if x.get("a_start") is not None]
            g = [x["garps"] for x in ok]
            sp = [x["garp_spread"] for x in ok if x.get("garp_spread") is not None]
            ap = [p for x in ok for p in x.get("a_period", [])]
            bg = [p for x in ok for p in x.get("b_gaps", [])]
            log("  %-10s A: start to first advert median %.0f ms, advert period median %.1f "
                "max %.1f ms; B after takeover: GARPs for the VIP %s, spread median %.2f ms, "
                "advert gaps max %.1f ms" % (
                    i, med(st) * 1000, med(ap) * 1000, max(ap or [float("nan")]) * 1000,
                    "/".join(map(str, sorted(set(g)))) or "-", med(sp) * 1000,
                    max(bg) * 1000 if bg else float("nan")))
            notes = {}
            for x in ok:
                for n in x["notes"]:
                    n = n.split(" (")[0]
                    notes[n] = notes.get(n, 0) + 1
            for n, c in notes.items():
                log("  %-10s note x%d: %s" % (i, c, n))
            fails = {}
            for f in r[i]["fail"]:
                fails[f] = fails.get(f, 0) + 1
            for f, c in fails.items():
                log("  %-10s FAILED repetition x%d: %s" % (i, c, f))


# ---------------------------------------------------------------- main ---

def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--reps", type=int, default=20,
                    help="crash repetitions per implementation at advert_int 0.1 s (20); "
                         "1 s gets 2/5 of it (8), graceful half of each")
    ap.add_argument("--reps-1s", type=int, default=None,
                    help="crash repetitions per implementation at advert_int 1 s")
    ap.add_argument("--quick", action="store_true", help="4 + 2 crash, 2 + 1 graceful")
    ap.add_argument("--probe-ms", type=float, default=5.0, help="ARP probe interval (5)")
    ap.add_argument("--budget", type=float, default=540.0,
                    help="stop starting repetitions after this many seconds (540)")
    ap.add_argument("--vips", type=int, default=1,
                    help="VIPs in the instance (1); the first is the one probed")
    ap.add_argument("--verbose", action="store_true",
                    help="per repetition, also print B's GARP times (ms after its first)")
    ap.add_argument("--only", choices=("0.1", "1"), default=None,
                    help="one advert interval only")
    args = ap.parse_args()
    if args.quick:
        args.reps = 4
        if args.reps_1s is None:
            args.reps_1s = 2
    if not 1 <= args.vips <= 100:
        sys.exit("--vips: 1 to 100")
    VIPS[:] = ["198.18.0.%d" % (100 + i) for i in range(args.vips)]
    reps01 = max(1, args.reps)
    reps1 = args.reps_1s if args.reps_1s is not None else max(1, round(args.reps * 0.4))
    sections = []
    if args.only in (None, "0.1"):
        sections += [("kill", 0.1, reps01), ("term", 0.1, max(1, reps01 // 2))]
    if args.only in (None, "1"):
        sections += [("kill", 1.0, reps1), ("term", 1.0, max(1, reps1 // 2))]

    why = util.root_skip_reason()
    if why:
        sys.exit("vipd_bench: %s" % why)
    for tool in (VIPD, KEEPALIVED):
        if not os.access(tool, os.X_OK):
            sys.exit("missing: %s (run bench/vipd-run.sh)" % tool)
    kv = subprocess.run([KEEPALIVED, "--version"], capture_output=True, text=True)
    vv = subprocess.run([VIPD, "-v"], capture_output=True, text=True)
    log("%s; %s" % (vv.stdout.strip(), (kv.stdout + kv.stderr).splitlines()[0].strip()))
    log("machine: %d CPUs, load average at start %.2f %.2f %.2f (other work on the machine "
        "shows up as noise)" % ((os.cpu_count() or 0,) + os.getloadavg()))
    log("plan: " + ", ".join("%s@%gs x%d" % s for s in sections) + " per implementation; "
        "%d VIP%s; ARP probe every %g ms" % (len(VIPS), "" if len(VIPS) == 1 else "s",
                                             args.probe_ms))

    started = time.monotonic()
    results = {}
    work = tempfile.mkdtemp(prefix="cpha-vipd-bench-")
    wire = None
    lab = cphatest.Lab("vipd-bench")
    interrupted = failed = False
    try:
        lab.start()
        hA = lab.add_host("ra", v4="%s/%d" % (A_IP, PREFIX))
        hB = lab.add_host("rb", v4="%s/%d" % (B_IP, PREFIX))
        hC = lab.add_host("client", v4="%s/%d" % (CLIENT_IP, PREFIX))
        macs = {}
        for role, h in (("A", hA), ("B", hB), ("C", hC)):
            out = h.run(["cat", "/sys/class/net/eth0/address"]).stdout.strip()
            macs[role] = out
        wire = Wire(hC, mac_bytes(macs["C"]), {mac_bytes(macs["A"]): "A",
                                               mac_bytes(macs["B"]): "B"})
        ctx = {"lab": lab, "wire": wire, "A": hA, "B": hB, "C": hC, "work": work,
               "probe_ms": args.probe_ms, "mac_str": macs}
        for mode, adv, n in sections:
            r = results.setdefault((mode, adv), {i: {"ok": [], "fail": []} for i in IMPLS})
            # t0 phases: the same spread-out sequence for both implementations,
            # so that "since t0" figures compare like with like
            phases = [(k + 0.5) / n for k in range(n)]
            random.Random(n).shuffle(phases)
            for rep in range(n):
                order = IMPLS if rep % 2 == 0 else tuple(reversed(IMPLS))
                for impl in order:
                    if time.monotonic() - started > args.budget:
                        r[impl]["fail"].append("not run: the time budget (--budget %.0f s) "
                                               "was used up" % args.budget)
                        continue
                    try:
                        x = one_rep(ctx, impl, adv, mode, phases[rep])
                    except (RepFailed, OSError, subprocess.SubprocessError) as e:
                        r[impl]["fail"].append(str(e))
                        log("%s@%gs rep %d %-10s FAILED: %s" % (mode, adv, rep + 1, impl, e))
                        continue
                    r[impl]["ok"].append(x)
                    f = lambda v: "   -   " if v is None else "%7.1f" % (v * 1000)  # noqa
                    log("%s@%gs rep %2d %-10s t_arp %s  t_answer %s  B advert %s  "
                        "since ref: arp %s answer %s ms%s" % (
                            mode, adv, rep + 1, impl, f(x["t_arp"]), f(x["t_answer"]),
                            f(x["t_advert"]), f(x["ref_arp"]), f(x["ref_answer"]),
                            ("  [" + "; ".join(x["notes"]) + "]") if x["notes"] else ""))
                    if args.verbose:
                        log("    B's GARPs at +%s ms" % ", +".join(
                            "%.2f" % o for o in x["garp_offsets"]))
    except KeyboardInterrupt:
        interrupted = True
        log("interrupted: cleaning up")
    except BaseException:
        failed = True  # the lab keeps its logs and says where
        raise
    finally:
        if wire is not None:
            wire.close()
        lab.close(failed=failed)
        shutil.rmtree(work, ignore_errors=True)
    if wire is not None and wire.ts_fallbacks:
        log("note: %d packets had no kernel timestamp (user-space time used)"
            % wire.ts_fallbacks)
    report(results, sections, args.probe_ms)
    log("")
    log("load average at end %.2f %.2f %.2f; run took %.0f s" % (
        os.getloadavg() + (time.monotonic() - started,)))
    log("(ratios are vipd/keepalived and each against the RFC timer; lower is better. "
        "Goals: never slower than keepalived, crash failover within 5% of "
        "Master_Down_Interval, graceful within Skew_Time + 5 ms)")
    if interrupted:
        sys.exit(cphatest.interrupted_status())


if __name__ == "__main__":
    main()
