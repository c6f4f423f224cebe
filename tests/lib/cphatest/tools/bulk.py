#!/usr/bin/env python3
"""Bulk transfer with half-closes and sha256 on both ends, for lbd tests.

server: bulk.py server --listen ADDR:PORT --size N
    per connection: read to EOF (the client's FIN), hashing; then send
    "<bytes> <sha256>\\n" of what arrived, N bytes of its own stream,
    "<N> <sha256>\\n" of what it sent, and close.
client: bulk.py client --target ADDR:PORT --size N [--out FILE]
    send N bytes, shutdown(SHUT_WR), read the server's verdict, its N bytes
    (hashing) and its trailer, then expect EOF. Prints one JSON line (and
    writes it to --out): sizes, hashes, match flags, seconds per phase.
    Exit status 0 only when every check holds.

--reverse (both sides): the server speaks first: N bytes, "<N> <sha256>\n",
then shutdown(SHUT_WR); only after that the client sends its N bytes and
closes. The server logs "reverse: received <bytes> bytes sha256 <hex>"; the
client's JSON has the hash of what it sent.

The streams cycle through a random block whose length (1 MiB + 4099) is
prime to the sizes lbd moves data in (pipes, splice chunks), seeded per
side, so both ends know nothing about each other's data but its hash.
"""

import argparse
import hashlib
import json
import random
import socket
import sys
import threading
import time

PERIOD = (1 << 20) + 4099
CHUNK = 1 << 20


def pattern(seed):
    block = random.Random(seed).randbytes(PERIOD)
    return memoryview(block + block)


def send_stream(sock, pat, size):
    h = hashlib.sha256()
    pos = 0
    while pos < size:
        off = pos % PERIOD
        n = min(CHUNK, size - pos)
        piece = pat[off:off + n]
        sock.sendall(piece)
        h.update(piece)
        pos += n
    return h.hexdigest()


def recv_exact_hash(sock, size, buf):
    """Hash exactly `size` bytes; return (hexdigest, bytes_read)."""
    h = hashlib.sha256()
    mv = memoryview(buf)
    got = 0
    while got < size:
        n = sock.recv_into(mv, min(len(buf), size - got))
        if n == 0:
            break
        h.update(mv[:n])
        got += n
    return h.hexdigest(), got


def recv_to_eof_hash(sock, buf):
    h = hashlib.sha256()
    mv = memoryview(buf)
    got = 0
    while True:
        n = sock.recv_into(mv)
        if n == 0:
            return h.hexdigest(), got
        h.update(mv[:n])
        got += n


def recv_line(sock, limit=200):
    out = b""
    while not out.endswith(b"\n") and len(out) < limit:
        c = sock.recv(1)
        if not c:
            break
        out += c
    return out.decode(errors="replace").strip()


def parse_addr(text):
    host, _, port = text.rpartition(":")
    host = host.strip("[]")
    return (socket.AF_INET6 if ":" in host else socket.AF_INET), (host, int(port))


def serve_one(conn, size, pat):
    buf = bytearray(4 << 20)
    try:
        conn.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4 << 20)
        digest, got = recv_to_eof_hash(conn, buf)
        conn.sendall(b"%d %s\n" % (got, digest.encode()))
        sent = send_stream(conn, pat, size)
        conn.sendall(b"%d %s\n" % (size, sent.encode()))
        conn.shutdown(socket.SHUT_WR)
        print("served: received %d bytes sha256 %s, sent %d sha256 %s" % (
            got, digest, size, sent), flush=True)
    except OSError as e:
        print("connection failed: %s" % e, flush=True)
    finally:
        conn.close()


def serve_one_reverse(conn, size, pat):
    buf = bytearray(4 << 20)
    try:
        sent = send_stream(conn, pat, size)
        conn.sendall(b"%d %s\n" % (size, sent.encode()))
        conn.shutdown(socket.SHUT_WR)
        digest, got = recv_to_eof_hash(conn, buf)
        print("reverse: sent %d sha256 %s, then received %d bytes sha256 %s" % (
            size, sent, got, digest), flush=True)
    except OSError as e:
        print("connection failed: %s" % e, flush=True)
    finally:
        conn.close()


def client_reverse(a, s, pat, res):
    t0 = time.monotonic()
    digest, got = recv_exact_hash(s, a.size, bytearray(4 << 20))
    res["received_bytes"], res["received_sha256"] = got, digest
    res["server_sent"] = recv_line(s)
    t_trailer = time.monotonic()
    res["eof_first"] = s.recv(1) == b""  # the server's FIN before we send
    t1 = time.monotonic()
    res["download_s"], res["eof_wait_s"] = round(t1 - t0, 3), round(t1 - t_trailer, 3)
    res["download_ok"] = (got == a.size and
                          res["server_sent"] == "%d %s" % (a.size, digest))
    res["sent_sha256"] = send_stream(s, pat, a.size)
    s.shutdown(socket.SHUT_WR)
    res["upload_s"] = round(time.monotonic() - t1, 3)
    # what the server got, it logs: the caller compares with sent_sha256
    return res["download_ok"] and res["eof_first"]


def server(a):
    fam, addr = parse_addr(a.listen)
    ls = socket.socket(fam, socket.SOCK_STREAM)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind(addr)
    ls.listen(16)
    pat = pattern("server")
    print("listening on %s" % a.listen, flush=True)
    while True:
        conn, _ = ls.accept()
        conn.settimeout(120)
        threading.Thread(target=serve_one_reverse if a.reverse else serve_one,
                         args=(conn, a.size, pat), daemon=True).start()


def client_forward(a, s, pat, res):
    t0 = time.monotonic()
    res["sent_sha256"] = send_stream(s, pat, a.size)
    s.shutdown(socket.SHUT_WR)
    t1 = time.monotonic()
    verdict = recv_line(s)
    t2 = time.monotonic()
    res["server_received"] = verdict
    digest, got = recv_exact_hash(s, a.size, bytearray(4 << 20))
    res["received_bytes"], res["received_sha256"] = got, digest
    res["server_sent"] = recv_line(s)
    t_trailer = time.monotonic()
    res["eof_after"] = s.recv(1) == b""
    t3 = time.monotonic()
    res["eof_wait_s"] = round(t3 - t_trailer, 3)  # the server's FIN, passed on
    res["upload_s"] = round(t1 - t0, 3)
    res["verdict_wait_s"] = round(t2 - t1, 3)
    res["download_s"] = round(t3 - t2, 3)
    res["upload_ok"] = verdict == "%d %s" % (a.size, res["sent_sha256"])
    res["download_ok"] = (got == a.size and
                          res["server_sent"] == "%d %s" % (a.size, digest))
    return res["upload_ok"] and res["download_ok"] and res["eof_after"]


def client(a):
    fam, addr = parse_addr(a.target)
    pat = pattern("client")
    res = {"size": a.size, "reverse": a.reverse}
    s = socket.socket(fam, socket.SOCK_STREAM)
    s.settimeout(a.timeout)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4 << 20)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
    s.connect(addr)
    try:
        ok = (client_reverse if a.reverse else client_forward)(a, s, pat, res)
    except OSError as e:  # reported with what was measured up to there
        res["error"] = "%s: %s" % (e.__class__.__name__, e)
        ok = False
    finally:
        s.close()
    line = json.dumps(res, sort_keys=True)
    print(line, flush=True)
    if a.out:
        with open(a.out, "w") as f:
            f.write(line + "\n")
    return 0 if ok else 1


def main():
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="mode", required=True)
    sp = sub.add_parser("server")
    sp.add_argument("--listen", required=True)
    sp.add_argument("--size", type=int, required=True)
    sp.add_argument("--reverse", action="store_true")
    cp = sub.add_parser("client")
    cp.add_argument("--target", required=True)
    cp.add_argument("--size", type=int, required=True)
    cp.add_argument("--timeout", type=float, default=60.0)
    cp.add_argument("--out")
    cp.add_argument("--reverse", action="store_true")
    a = ap.parse_args()
    return server(a) if a.mode == "server" else client(a)


if __name__ == "__main__":
    sys.exit(main())
