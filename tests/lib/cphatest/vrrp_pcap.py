"""Packets on the wire: tcpdump into a pcap file in a host, read and
decoded here (Ethernet, IPv4/IPv6, VRRP v2/v3)."""

import ipaddress
import socket
import struct

from .util import wait_log
from .vipd_net import _norm
from .vipd_setup import VRRP_PROTO


class Packet:
    """A decoded frame: ts, smac, dmac, kind ("vrrp", "arp", "na", "ns",
    "echo", "other"), IP src, dst and ttl (hop limit) where there is one, and
    the fields of its kind (vrrp: version, vrid, priority, adver (v3
    centiseconds, v2 seconds), addrs, auth_type, auth, length (the IP
    payload's, a trailer after the addresses included); arp: op, sha, spa,
    tha, tpa; na: target, override, solicited, tlla; ns: target)."""

    def __init__(self, ts):
        self.ts = ts
        self.smac = self.dmac = None
        self.kind = "other"
        self.src = self.dst = None
        self.ttl = None
        self.f = {}

    def __getattr__(self, k):
        try:
            return self.__dict__["f"][k]
        except KeyError:
            raise AttributeError(k)

    def __repr__(self):
        return "<%s %.6f %s->%s %s>" % (self.kind, self.ts, self.src, self.dst, self.f)


def _macs(b):
    return ":".join("%02x" % x for x in b)


def _vrrp(p, payload, family):
    if len(payload) < 8:
        return
    alen = 4 if family == 4 else 16
    ver = payload[0] >> 4
    n = payload[3]
    p.kind = "vrrp"
    p.f.update(version=ver, type=payload[0] & 15, vrid=payload[1], priority=payload[2],
               naddrs=n, checksum=payload[6] << 8 | payload[7], length=len(payload))
    if ver == 2:
        p.f.update(auth_type=payload[4], adver=payload[5])
    else:
        p.f.update(adver=(payload[4] & 15) << 8 | payload[5])
    addrs = []
    for i in range(n):
        a = payload[8 + i * alen:8 + (i + 1) * alen]
        if len(a) == alen:
            addrs.append(str(ipaddress.ip_address(a)))
    p.f["addrs"] = addrs
    if ver == 2:
        p.f["auth"] = payload[8 + n * alen:8 + n * alen + 8]


def decode(ts, frame):
    p = Packet(ts)
    if len(frame) < 14:
        return p
    p.dmac, p.smac = _macs(frame[0:6]), _macs(frame[6:12])
    et = frame[12] << 8 | frame[13]
    b = frame[14:]
    if et == 0x0806 and len(b) >= 28:
        p.kind = "arp"
        p.f.update(op=b[6] << 8 | b[7], sha=_macs(b[8:14]),
                   spa=socket.inet_ntoa(b[14:18]), tha=_macs(b[18:24]),
                   tpa=socket.inet_ntoa(b[24:28]))
    elif et == 0x0800 and len(b) >= 20:
        hl = (b[0] & 15) * 4
        p.ttl = b[8]
        p.src, p.dst = socket.inet_ntoa(b[12:16]), socket.inet_ntoa(b[16:20])
        total = b[2] << 8 | b[3]
        if b[9] == VRRP_PROTO:
            _vrrp(p, b[hl:total], 4)
        elif b[9] == 1 and len(b) > hl and b[hl] == 8:
            p.kind = "echo"
    elif et == 0x86dd and len(b) >= 40:
        nh = b[6]
        p.ttl = b[7]
        p.src = str(ipaddress.ip_address(b[8:24]))
        p.dst = str(ipaddress.ip_address(b[24:40]))
        body = b[40:40 + (b[4] << 8 | b[5])]
        if nh == VRRP_PROTO:
            _vrrp(p, body, 6)
        elif nh == 58 and body:
            if body[0] == 136 and len(body) >= 24:
                p.kind = "na"
                p.f.update(target=str(ipaddress.ip_address(body[8:24])),
                           override=bool(body[4] & 0x20), solicited=bool(body[4] & 0x40),
                           tlla=None)
                opt = body[24:]
                while len(opt) >= 8 and opt[1]:
                    if opt[0] == 2:
                        p.f["tlla"] = _macs(opt[2:8])
                    opt = opt[opt[1] * 8:]
            elif body[0] == 135 and len(body) >= 24:
                p.kind = "ns"
                p.f["target"] = str(ipaddress.ip_address(body[8:24]))
            elif body[0] == 128:
                p.kind = "echo"
    return p


def read_pcap(path):
    """Decoded packets of a pcap file (Ethernet), a partial last record
    left out."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        return []
    if len(data) < 24:
        return []
    magic = data[:4]
    if magic in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1"):
        e = "<"
    elif magic in (b"\xa1\xb2\xc3\xd4", b"\xa1\xb2\x3c\x4d"):
        e = ">"
    else:
        raise ValueError("%s: not a pcap file" % path)
    div = 1e9 if magic in (b"\x4d\x3c\xb2\xa1", b"\xa1\xb2\x3c\x4d") else 1e6
    off, out = 24, []
    while off + 16 <= len(data):
        sec, frac, incl, _orig = struct.unpack(e + "IIII", data[off:off + 16])
        if off + 16 + incl > len(data):
            break
        out.append(decode(sec + frac / div, data[off + 16:off + 16 + incl]))
        off += 16 + incl
    return out


class Capture:
    """tcpdump on a host's eth0 into a pcap file in the lab directory:
    VRRP, ARP, ICMP and ICMPv6 by default."""

    FILTER = "ip proto 112 or ip6 proto 112 or arp or icmp or icmp6"

    def __init__(self, host, name="tcpdump", filt=FILTER, ifname="eth0"):
        self.host = host
        self.path = host.lab.path("pcap", "%s-%s.pcap" % (host.name, name))
        # -Z root: write the file as root (the lab directory is 0700);
        # -U --immediate-mode: every packet is in the file at once
        self.proc = host.spawn(["tcpdump", "-i", ifname, "-n", "-U", "--immediate-mode",
                                "-Z", "root", "-s", "512", "-w", self.path, filt],
                               name=name)
        wait_log(self.proc, "listening on", 10)

    def packets(self, kind=None):
        return [p for p in read_pcap(self.path) if kind is None or p.kind == kind]

    def vrrp(self, src=None, vrid=None):
        return [p for p in self.packets("vrrp")
                if (src is None or p.src == src) and (vrid is None or p.vrid == vrid)]

    def garps(self, ip, smac=None):
        """Gratuitous ARPs (sender IP = target IP = ip) or unsolicited
        neighbour advertisements for ip (override set), in order."""
        out = []
        for p in self.packets():
            if p.kind == "arp" and p.spa == ip and p.tpa == ip:
                pass
            elif p.kind == "na" and _norm(p.target) == _norm(ip) and p.override \
                    and not p.solicited:
                pass
            else:
                continue
            if smac is None or p.smac == smac:
                out.append(p)
        return out

    def stop(self):
        self.proc.terminate_and_wait(5)
