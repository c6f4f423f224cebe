"""Who answers ARP for the VIP, as the client sees it.

Every interval the watcher sends one ARP request for the VIP from the
client's eth0 and collects the replies addressed to the client until the
next request. Two hardware addresses answering the same request mean two
hosts held the VIP at the moment the request arrived: the kernel answers
ARP when the request comes in, from the addresses it holds then. That is
the clients' own view of a split brain, independent of how the lab reads
each host's addresses (one host after the other, not at one instant).

The socket lives in the client's network namespace: a thread of its own
enters the namespace (setns(2) changes only the calling thread), opens
an AF_PACKET socket there, and never does anything else."""

import select
import socket
import struct
import threading
import time

from . import netns

ETH_P_ARP = 0x0806
BROADCAST = b"\xff" * 6


def mac_text(b):
    return ":".join("%02x" % x for x in b)


def request(src_mac, src_ip, target_ip):
    """An Ethernet frame holding an ARP who-has target_ip from src."""
    eth = BROADCAST + src_mac + struct.pack("!H", ETH_P_ARP)
    arp = struct.pack("!HHBBH", 1, 0x0800, 6, 4, 1) + src_mac + socket.inet_aton(src_ip) + \
        b"\x00" * 6 + socket.inet_aton(target_ip)
    return eth + arp


def parse_reply(frame, asked_ip, our_ip):
    """The sender's hardware address of an ARP reply to us about asked_ip,
    or None for anything else (requests, gratuitous ARP, other hosts')."""
    if len(frame) < 42 or frame[12:14] != struct.pack("!H", ETH_P_ARP):
        return None
    htype, ptype, hlen, plen, oper = struct.unpack("!HHBBH", frame[14:22])
    if (htype, ptype, hlen, plen, oper) != (1, 0x0800, 6, 4, 2):
        return None
    sha, spa, tpa = frame[22:28], frame[28:32], frame[38:42]
    if spa != socket.inet_aton(asked_ip) or tpa != socket.inet_aton(our_ip):
        return None
    return sha


class ArpWatch(threading.Thread):
    """ARP for `vip` from `netns` (its eth0 at `our_ip`) every `interval`
    seconds. names: {hardware address text: host name}. After stop():
    rounds (requests sent), answered (rounds with a reply), doubles
    [(t, [names])] (rounds answered by two or more addresses), error (why
    it could not run, or None)."""

    def __init__(self, netns, our_ip, vip, names, interval=0.1):
        super().__init__(daemon=True)
        self.netns, self.our_ip, self.vip, self.names = netns, our_ip, vip, names
        self.interval = interval
        self.stop_ev = threading.Event()
        self.rounds = self.answered = 0
        self.doubles = []
        self.error = None
        self.mac = None  # the client's, as sent in the requests

    def _open(self):
        netns.enter(self.netns)
        s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ARP))
        s.bind(("eth0", 0))
        # the bound interface's own hardware address (not /sys: sysfs shows
        # the namespace it was mounted in, the lab controller's, whose
        # address in our requests would send every host's answers for the
        # client to a machine that is not on the lab's network)
        mac = s.getsockname()[4]
        if len(mac) != 6:
            s.close()
            raise OSError("eth0 in %s has no Ethernet address" % self.netns)
        return s, mac

    def run(self):
        try:
            s, mac = self._open()
        except OSError as e:
            self.error = str(e)
            return
        self.mac = mac_text(mac)
        frame = request(mac, self.our_ip, self.vip)
        try:
            while not self.stop_ev.is_set():
                t = time.time()
                end = t + self.interval
                seen = set()
                s.send(frame)
                self.rounds += 1
                while True:
                    left = end - time.time()
                    if left <= 0:
                        break
                    r, _, _ = select.select([s], [], [], left)
                    if not r:
                        break
                    sha = parse_reply(s.recv(2048), self.vip, self.our_ip)
                    if sha is not None:
                        seen.add(mac_text(sha))
                if seen:
                    self.answered += 1
                if len(seen) > 1:
                    self.doubles.append((t, sorted(self.names.get(m, m) for m in seen)))
        except OSError as e:
            self.error = str(e)
        finally:
            s.close()

    def stop(self):
        self.stop_ev.set()
        self.join(timeout=5)


def lb_macs(lab):
    """{eth0's hardware address: host name} of the LB hosts that are on
    (one powered off, or booting, is left out: the last map keeps it)."""
    out = {}
    for h in lab.by_role("lb"):
        try:
            if not h.powered():
                continue
            r = h.run(["cat", "/sys/class/net/eth0/address"], check=False, timeout=10)
        except Exception:  # powered off between the two, or busy: next time
            continue
        if r.returncode == 0 and r.stdout.strip():
            out[r.stdout.strip()] = h.name
    return out
