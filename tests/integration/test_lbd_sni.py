#!/usr/bin/env python3
"""lbd's traffic rules with real TLS ClientHellos, as OpenShift's HyperShift
router and multi-cluster API load balancers use them: tcp-request
inspect-delay, `tcp-request content accept if { req_ssl_hello_type 1 }`,
use_backend on req_ssl_sni, a content reject, a content reject in the
backend the frontend chose (HAProxy runs those once the session enters
it) and a connection reject.

Each client sends a ClientHello made by Python's ssl module and reads the
tag server's name and the echo of its bytes: the server that answers
follows the server name, the bytes arrive whole (lbd reads them without
consuming them), a ClientHello sent in two pieces is waited for, a client
that sends nothing goes to default_backend once inspect-delay is over,
the rejected ones are closed without reaching a server. Ten rounds, then
a reload that swaps two routes: new sessions follow it, one opened before
keeps echoing.

Topology: client 198.18.0.2 (and 198.18.0.3, rejected by address), lb
198.18.0.10 running lbd, s1..s3 198.18.0.11-13 each running tagserver.py.
Exit 0 pass, 77 skip (not root, or lbd not built), else fail.
    python3 tests/integration/test_lbd_sni.py [-v]
"""

import socket
import ssl
import sys
import time
import unittest

sys.dont_write_bytecode = True

import cphatest  # noqa: E402
from cphatest import lbd, step  # noqa: E402

INSPECT = 1.0
BODY = """
defaults
    mode tcp
    timeout connect 2s
    timeout client 30s
    timeout server 30s

frontend api
    bind 198.18.0.10:6443
    tcp-request connection reject if { src 198.18.0.3 }
    tcp-request inspect-delay %ds
    tcp-request content reject if { req_ssl_sni -i evil.example.com }
    tcp-request content accept if { req_ssl_hello_type 1 }
    acl to_a req_ssl_sni -i a.example.com
    acl to_b req.ssl_sni -m end .b.example.com
    use_backend %s if to_a
    use_backend %s if to_b
    default_backend other

backend one
    server s1 198.18.0.11:8000
backend two
    tcp-request inspect-delay 1s
    tcp-request content reject if { req.ssl_sni -i y.b.example.com }
    server s2 198.18.0.12:8000
backend other
    server s3 198.18.0.13:8000
"""

LB = lbd.LB_IP
CLIENT2_IP = "198.18.0.3"


def body(a="one", b="two"):
    return BODY % (int(INSPECT), a, b)


def client_hello(name):
    """The first flight of a TLS client for server name `name` (None: no
    server_name extension)."""
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    inc, out = ssl.MemoryBIO(), ssl.MemoryBIO()
    tls = ctx.wrap_bio(inc, out, server_hostname=name)
    try:
        tls.do_handshake()
    except ssl.SSLWantReadError:
        pass
    return out.read()


def recv_exactly(s, n, timeout=3.0):
    s.settimeout(timeout)
    got = b""
    while len(got) < n:
        c = s.recv(n - len(got))
        if not c:
            break
        got += c
    return got


def session(host, data, pause=0.0, split=None):
    """Send data (in two pieces `pause` apart when split is given), then
    read the tag line and the echo. Returns (tag, echoed bytes, seconds
    from connect to the tag)."""
    s = lbd.connect(host, LB, 6443)
    try:
        t0 = time.monotonic()
        if split:
            s.sendall(data[:split])
            time.sleep(pause)
            s.sendall(data[split:])
        elif data:
            s.sendall(data)
        line = lbd.read_line(s, timeout=INSPECT + 3)
        took = time.monotonic() - t0
        if not line.endswith(b"\n"):
            raise ConnectionError("no tag (got %r)" % line)
        return line.strip().decode(), recv_exactly(s, len(data)), took
    finally:
        s.close()


def refused(host, name="evil.example.com"):
    """The connection is closed (EOF or reset) without a tag."""
    s = lbd.connect(host, LB, 6443)
    try:
        s.sendall(client_hello(name))
        s.settimeout(INSPECT + 3)
        try:
            return s.recv(64) == b""
        except ConnectionResetError:
            return True
    finally:
        s.close()


class Sni(unittest.TestCase):

    def test_sni_routing(self):
        with cphatest.Lab("lbd-sni") as lab:
            t = lbd.Topology(lab)
            client2 = lab.add_host("client2", v4=CLIENT2_IP + "/24")
            t.start_tagservers(8000)
            lb = lbd.Lbd(lab, t.lb, body())
            lb.start()
            c = t.client
            hellos = {n: client_hello(n) for n in ("a.example.com", "x.b.example.com",
                                                   "c.example.com", "evil.example.com")}
            hellos[None] = client_hello(None)

            for i in range(10):
                step("round %d: a -> s1, *.b -> s2, others and no name -> s3" % (i + 1))
                for name, want in (("a.example.com", "s1"), ("x.b.example.com", "s2"),
                                   ("c.example.com", "s3"), (None, "s3")):
                    tag, echoed, _ = session(c, hellos[name])
                    self.assertEqual(tag, want, "server name %s" % name)
                    self.assertEqual(echoed, hellos[name], "the ClientHello was not "
                                     "passed on whole")
                self.assertTrue(refused(c), "evil.example.com was not rejected")
                self.assertTrue(refused(c, "y.b.example.com"), "y.b.example.com was not "
                                "rejected by backend two's rule")

            step("a ClientHello in two pieces 300 ms apart is waited for")
            tag, echoed, took = session(c, hellos["a.example.com"], pause=0.3, split=40)
            self.assertEqual((tag, echoed), ("s1", hellos["a.example.com"]))
            self.assertGreaterEqual(took, 0.29)

            step("not TLS: no wait, default_backend")
            tag, echoed, took = session(c, b"GET / HTTP/1.0\r\n\r\n")
            self.assertEqual((tag, echoed), ("s3", b"GET / HTTP/1.0\r\n\r\n"))
            self.assertLess(took, INSPECT)

            step("a client that sends nothing: default_backend after inspect-delay")
            tag, _, took = session(c, b"")
            self.assertEqual(tag, "s3")
            self.assertGreaterEqual(took, INSPECT - 0.05)
            self.assertLess(took, INSPECT + 1.0)

            step("tcp-request connection reject if { src %s }, five times" % CLIENT2_IP)
            for _ in range(5):
                try:
                    s = lbd.connect(client2, LB, 6443)
                except ConnectionResetError:
                    continue  # the reset came before connect() returned
                s.settimeout(3)
                try:
                    self.assertEqual(s.recv(64), b"")
                except ConnectionResetError:
                    pass
                finally:
                    s.close()

            step("reload swapping the routes of a and *.b; a session opened before stays")
            old = lbd.connect(c, LB, 6443)
            old.sendall(hellos["a.example.com"])
            self.assertEqual(lbd.read_line(old), b"s1\n")
            lb.reload(body(a="two", b="one"))
            for _ in range(3):
                self.assertEqual(session(c, hellos["a.example.com"])[0], "s2")
                self.assertEqual(session(c, hellos["x.b.example.com"])[0], "s1")
            self.assertEqual(recv_exactly(old, len(hellos["a.example.com"])),
                             hellos["a.example.com"])
            self.assertEqual(lbd.echo(old, b"still here"), b"still here")
            old.close()
            self.assertTrue(lb.proc.running())


def main():
    lbd.require()
    prog = unittest.main(exit=False, verbosity=2)
    return 0 if prog.result.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main())
