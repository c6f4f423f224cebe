#!/usr/bin/env python3
"""An abort passed on as an abort: a reset on one side of lbd is a reset on
the other, and a clean close stays a clean close.

A TLS server behind lbd (certificates from cphatest.Pki) answers one request
line "MODE SIZE TAG" per connection:
  clean  SIZE bytes, then close_notify and FIN: the TLS client through lbd
         reads every byte, then close_notify, then a FIN (not a reset);
  reset  SIZE bytes, then SO_LINGER {1,0} and close (RST, no close_notify):
         the client's read must fail with ECONNRESET. Before lbd passed
         resets on, it saw a FIN, which a TLS client that tolerates a
         missing close_notify (as Python's default and many HTTP clients do)
         takes for a complete response: a cut-off list or watch looked whole;
  upload the server reads until the end and logs how it ended; the client
         sends some bytes and resets: the server must see a reset, not EOF.
Small responses (2 KiB) go through lbd's copy path, bulk ones (6 MiB) through
splice; each case runs several times in a row on the same lbd.

Topology: client 198.18.0.2, lb 198.18.0.10 (lbd), s1 198.18.0.11.
Exit 0 pass, 77 skip (not root, or lbd not built), else fail.
    sudo python3 tests/integration/test_lbd_reset.py [-v]
"""

import hashlib
import socket
import ssl
import struct
import sys
import time
import unittest

sys.dont_write_bytecode = True

import cphatest  # noqa: E402
from cphatest import lbd, step, util  # noqa: E402

SMALL = 2 << 10
BULK = 6 << 20
ROUNDS = 4

BODY = """
defaults
    mode tcp
    log global
    option tcplog
    timeout connect 2s
    timeout client 20s
    timeout server 20s

frontend fe
    bind 198.18.0.10:6443
    default_backend be

backend be
    server s1 198.18.0.11:9443
"""

# The TLS server, run with the lab's Python in s1's namespace.
SERVER = r'''
import fcntl, hashlib, signal, socket, ssl, struct, sys, threading, time
cert, key, addr = sys.argv[1], sys.argv[2], sys.argv[3]
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
ctx.load_cert_chain(cert, key)
ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
host, port = addr.rsplit(":", 1)
ls.bind((host, int(port)))
ls.listen(64)
signal.signal(signal.SIGTERM, lambda s, f: sys.exit(0))
print("listening on %s" % addr, flush=True)

def payload(n):
    out, i = bytearray(), 0
    while len(out) < n:
        out += hashlib.sha256(struct.pack("!Q", i)).digest() * 64
        i += 1
    return bytes(out[:n])

def tcp_state(sock):
    return sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 8)[0]

def serve(raw):
    try:
        t = ctx.wrap_socket(raw, server_side=True)
        t.settimeout(30)
        line = b""
        while not line.endswith(b"\n"):
            c = t.recv(1)
            if not c:
                return
            line += c
        mode, size, tag = line.decode().split()
        size = int(size)
        if mode == "upload":
            got, how = 0, None
            try:
                while True:
                    c = t.recv(65536)
                    if not c:
                        break
                    got += len(c)
            except ConnectionResetError:
                how = "reset"
            except ssl.SSLError as e:
                how = "ssl-error:%s" % e
            # Python's TLS layer reads a reset as a (ragged) end of stream:
            # the socket's state says which it was (CLOSE: RST, CLOSE_WAIT: FIN)
            if how is None:
                how = {7: "reset", 8: "eof"}.get(tcp_state(t), "state %d" % tcp_state(t))
            print("upload %s ended: %s after %d bytes" % (tag, how, got), flush=True)
            t.close()
            return
        t.sendall(payload(size))
        if mode == "clean":
            t.unwrap().close()  # close_notify, then FIN
            return
        for _ in range(1000):  # let what was written leave (autocork), then RST
            if struct.unpack("i", fcntl.ioctl(t.fileno(), 0x5411, b"\0" * 4))[0] == 0:
                break
            time.sleep(0.01)
        t.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        t.close()  # RST, no close_notify
    except Exception as e:
        print("connection error: %r" % e, flush=True)

while True:
    c, _ = ls.accept()
    threading.Thread(target=serve, args=(c,), daemon=True).start()
'''


def payload(n):
    out, i = bytearray(), 0
    while len(out) < n:
        out += hashlib.sha256(struct.pack("!Q", i)).digest() * 64
        i += 1
    return bytes(out[:n])


def client_ctx(ca):
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.check_hostname = False
    ctx.load_verify_locations(cafile=ca)
    return ctx


TCP_CLOSE = 7


def tcp_state(sock):
    return sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 8)[0]


def fetch(host, ctx, mode, size, tag):
    """One request through lbd; returns (bytes received, sha256, how it
    ended): "eof" (close_notify, then FIN), "fin" (FIN without
    close_notify: a cut a lenient client takes for the end) or "reset"
    (the socket's read failed with ECONNRESET). Python's TLS layer reports
    a reset on read as an unexpected EOF, so the TCP state tells them apart
    (CLOSE after a RST, CLOSE_WAIT after a FIN)."""
    s = lbd.connect(host, lbd.LB_IP, 6443, timeout=20)
    t = ctx.wrap_socket(s, suppress_ragged_eofs=False)
    h, got, how = hashlib.sha256(), 0, None
    try:
        t.sendall(("%s %d %s\n" % (mode, size, tag)).encode())
        while True:
            try:
                c = t.recv(1 << 16)
            except ConnectionResetError:
                how = "reset"
                break
            except ssl.SSLEOFError:
                how = "reset" if tcp_state(t) == TCP_CLOSE else "fin"
                break
            if not c:  # close_notify: answer it; then the FIN must follow
                raw = t.unwrap()
                raw.settimeout(10)
                try:
                    how = "eof" if raw.recv(1) == b"" else "data after close_notify"
                except ConnectionResetError:
                    how = "reset"
                break
            h.update(c)
            got += len(c)
    finally:
        t.close()
    return got, h.hexdigest(), how


def upload_then_reset(host, ctx, tag, nbytes):
    s = lbd.connect(host, lbd.LB_IP, 6443, timeout=20)
    t = ctx.wrap_socket(s)
    t.sendall(("upload 0 %s\n" % tag).encode())
    t.sendall(b"x" * nbytes)
    time.sleep(0.2)  # the bytes reach the server before the reset
    t.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    t.close()


class Reset(unittest.TestCase):

    def test_resets_pass_through_and_fins_stay_fins(self):
        with cphatest.Lab("lbd-reset") as lab:
            t = lbd.Topology(lab, nservers=1)
            s1 = t.servers[0]
            pki = cphatest.Pki(lab.path("pki"))
            cert, key = pki.issue("s1", "s1", sans=("IP:%s" % s1.v4,), server=True)
            script = lab.path("tls_server.py")
            with open(script, "w") as f:
                f.write(SERVER)
            srv = s1.spawn([lbd.PYTHON, script, cert, key, "%s:9443" % s1.v4],
                           name="tls-server")
            lbd.wait_log(srv, "listening on", 10)
            lb = lbd.Lbd(lab, t.lb, BODY)
            lb.start()
            ctx = client_ctx(pki.ca_cert)

            for rnd in range(1, ROUNDS + 1):
                for size, path in ((SMALL, "copy"), (BULK, "splice")):
                    got, digest, how = lbd.in_host(t.client, fetch, t.client, ctx, "clean",
                                                   size, "c%d" % rnd, timeout=60)
                    self.assertEqual(how, "eof", "round %d %s: a clean close from the "
                                     "server must reach the client as one" % (rnd, path))
                    self.assertEqual(got, size, "round %d %s: bytes" % (rnd, path))
                    self.assertEqual(digest, hashlib.sha256(payload(size)).hexdigest(),
                                     "round %d %s: content" % (rnd, path))
                    got, _, how = lbd.in_host(t.client, fetch, t.client, ctx, "reset",
                                              size, "r%d" % rnd, timeout=60)
                    self.assertEqual(how, "reset", "round %d %s: the server reset after "
                                     "%d of %d bytes reached the client as a clean "
                                     "close" % (rnd, path, got, size))
                    self.assertLessEqual(got, size)
                step("round %d: clean closes clean, resets reset (copy and splice)" % rnd)

            for rnd in range(1, ROUNDS + 1):
                for n, path in ((SMALL, "copy"), (BULK, "splice")):
                    tag = "u%d-%s" % (rnd, path)
                    lbd.in_host(t.client, upload_then_reset, t.client, ctx, tag, n,
                                timeout=60)
                    lbd.wait_log(srv, "upload %s ended:" % tag, 10)
                    line = [x for x in srv.log_text().splitlines()
                            if x.startswith("upload %s ended:" % tag)][0]
                    self.assertIn("ended: reset", line, "round %d %s: the client's reset "
                                  "reached the server as: %s" % (rnd, path, line))
                step("round %d: client resets reach the server as resets" % rnd)
            self.assertNotIn("connection error", srv.log_text())
            self.assertTrue(lb.proc.running(), "lbd still running")


def main():
    lbd.require()
    return util.run_tests()


if __name__ == "__main__":
    sys.exit(main())
