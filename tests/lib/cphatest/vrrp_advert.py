"""Hand-made VRRP advertisements (v2 and v3, IPv4 and IPv6, checksums
as RFC 9568 §5.2.8 says) sent from a host."""

import socket
import struct
import time

from .vipd_setup import MCAST4, VRRP_PROTO


def _sum16(b):
    if len(b) % 2:
        b += b"\0"
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return s


def advert(version, vrid, priority, vips, adver, src=None, dst=MCAST4, auth_pass=None,
           bad_checksum=False):
    """VRRP advertisement bytes (the IP payload) over IPv4. v3: checksum over
    the IPv4 pseudo-header with src and dst (as keepalived 2.2.7 and vipd);
    v2: no pseudo-header, adver in seconds, auth_pass (PASS) or none."""
    addrs = b"".join(socket.inet_aton(v.split("/")[0]) for v in vips)
    if version == 2:
        hdr = struct.pack("!BBBBBBH", 0x21, vrid, priority, len(vips),
                          1 if auth_pass is not None else 0, adver, 0)
        pkt = hdr + addrs + (auth_pass or "").encode().ljust(8, b"\0")[:8]
        csum = 0xffff - _sum16(pkt)
    else:
        hdr = struct.pack("!BBBBHH", 0x31, vrid, priority, len(vips), adver & 0x0fff, 0)
        pkt = hdr + addrs
        phdr = socket.inet_aton(src) + socket.inet_aton(dst) + \
            struct.pack("!BBH", 0, VRRP_PROTO, len(pkt))
        csum = 0xffff - _sum16(phdr + pkt)
    if bad_checksum:
        csum ^= 0x5a5a
    return pkt[:6] + struct.pack("!H", csum) + pkt[8:]


def _send_raw(src, dst, ttl, payloads, interval):
    s = socket.socket(socket.AF_INET, socket.SOCK_RAW, VRRP_PROTO)
    try:
        s.setsockopt(socket.IPPROTO_IP, socket.IP_TTL, ttl)
        s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_TTL, ttl)
        s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_LOOP, 0)
        s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF, socket.inet_aton(src))
        s.bind((src, 0))
        for i, p in enumerate(payloads):
            if i:
                time.sleep(interval)
            s.sendto(p, (dst, 0))
    finally:
        s.close()
    return len(payloads)


def send_adverts(host, payloads, dst=MCAST4, ttl=255, interval=0.05):
    """Send VRRP payloads from host (IPv4, protocol 112, from host.v4, with
    this TTL), `interval` seconds apart; returns how many were sent."""
    from .lbd import in_host  # a socket opened inside host's namespace
    return in_host(host, _send_raw, host.v4, dst, ttl, list(payloads), interval,
                   timeout=len(payloads) * interval + 10)
