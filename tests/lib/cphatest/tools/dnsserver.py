#!/usr/bin/env python3
"""A test name server for lbd's run-time DNS: answers A and AAAA queries
over UDP (and TCP) from a JSON zone file that the test rewrites to change
an answer. The file is read again on every query:

    {"api.lab.test": ["198.18.0.11", "2001:db8::11"],   # addresses, any family
     "gone.lab.test": "NXDOMAIN",                        # NXDOMAIN
     "slow.lab.test": "DROP",                            # no answer (timeout)
     "bad.lab.test": "REFUSED"}                          # REFUSED
A name missing from the file gets NXDOMAIN. TTL 1 s.

    dnsserver.py --zone ZONE.json --listen 198.18.0.53:53 [--log QUERIES]

Prints "listening on ADDR" once it serves. With --log, appends one line per
query ("NAME TYPE ANSWER"), so a test can count queries. SIGTERM exits 0.
"""

import argparse
import json
import selectors
import signal
import socket
import struct
import sys

QTYPE = {1: "A", 28: "AAAA"}


def load(path):
    try:
        with open(path) as f:
            return {k.lower().rstrip("."): v for k, v in json.load(f).items()}
    except (OSError, ValueError):
        return {}


def parse_question(msg):
    """(id, flags, name, qtype, end of question) of a query."""
    qid, flags, qd = struct.unpack("!HHH", msg[:6])
    if qd < 1:
        raise ValueError("no question")
    labels, i = [], 12
    while True:
        n = msg[i]
        i += 1
        if n == 0:
            break
        if n & 0xC0:
            raise ValueError("compressed question")
        labels.append(msg[i:i + n].decode("ascii", "replace"))
        i += n
    qtype, _ = struct.unpack("!HH", msg[i:i + 4])
    return qid, flags, ".".join(labels).lower(), qtype, i + 4


def answer(msg, zone):
    """The reply to one query, or None to stay silent."""
    qid, flags, name, qtype, qend = parse_question(msg)
    entry = zone.get(name, "NXDOMAIN")
    rd = flags & 0x0100
    rcode, records = 0, []
    if entry == "DROP":
        return None, name, qtype, "DROP"
    if entry == "NXDOMAIN":
        rcode = 3
    elif entry == "REFUSED":
        rcode = 5
    else:
        for ip in entry:
            fam = socket.AF_INET6 if ":" in ip else socket.AF_INET
            if (fam == socket.AF_INET and qtype == 1) or (fam == socket.AF_INET6 and qtype == 28):
                records.append(socket.inet_pton(fam, ip))
    head = struct.pack("!HHHHHH", qid, 0x8000 | 0x0400 | rd | 0x0080 | rcode, 1,
                       len(records), 0, 0)
    body = msg[12:qend]
    for rdata in records:
        # the name as a pointer to the question (offset 12)
        body += struct.pack("!HHHIH", 0xC00C, qtype, 1, 1, len(rdata)) + rdata
    what = {3: "NXDOMAIN", 5: "REFUSED"}.get(rcode) or (
        ",".join(socket.inet_ntop(socket.AF_INET6 if len(r) == 16 else socket.AF_INET, r)
                 for r in records) or "NODATA")
    return head + body, name, qtype, what


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--zone", required=True)
    ap.add_argument("--listen", required=True)
    ap.add_argument("--log")
    args = ap.parse_args()
    host, _, port = args.listen.rpartition(":")
    host = host.strip("[]")
    fam = socket.AF_INET6 if ":" in host else socket.AF_INET
    udp = socket.socket(fam, socket.SOCK_DGRAM)
    udp.bind((host, int(port)))
    tcp = socket.socket(fam, socket.SOCK_STREAM)
    tcp.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    tcp.bind((host, int(port)))
    tcp.listen(16)
    stop = []
    signal.signal(signal.SIGTERM, lambda s, f: stop.append(s))
    sel = selectors.DefaultSelector()
    sel.register(udp, selectors.EVENT_READ, "udp")
    sel.register(tcp, selectors.EVENT_READ, "tcp")
    log = open(args.log, "a", buffering=1) if args.log else None
    print("listening on %s" % args.listen, flush=True)

    def reply(msg):
        try:
            out, name, qtype, what = answer(msg, load(args.zone))
        except (ValueError, IndexError, struct.error):
            return None
        if log:
            log.write("%s %s %s\n" % (name, QTYPE.get(qtype, qtype), what))
        return out

    while not stop:
        for key, _ in sel.select(0.2):
            if key.data == "udp":
                msg, peer = udp.recvfrom(4096)
                out = reply(msg)
                if out:
                    udp.sendto(out, peer)
            else:
                c, _ = tcp.accept()
                c.settimeout(2)
                try:
                    n = struct.unpack("!H", c.recv(2))[0]
                    msg = b""
                    while len(msg) < n:
                        part = c.recv(n - len(msg))
                        if not part:
                            break
                        msg += part
                    out = reply(msg)
                    if out:
                        c.sendall(struct.pack("!H", len(out)) + out)
                except (OSError, struct.error):
                    pass
                finally:
                    c.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
