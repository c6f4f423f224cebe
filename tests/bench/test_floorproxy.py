#!/usr/bin/env python3
"""The benchmark floor (cpha-bench-floor, bench/tools/floorproxy.c) is a
proxy, so it must behave as one or the floor it gives is wrong: bytes
pass unchanged both ways, a client's FIN reaches the server while the
server still answers (half-close), a server's reset reaches the client
as a reset and not as a clean end, backends take turns, bad arguments are
refused. Loopback only.

    test_floorproxy.py BUILD_DIR
"""

import hashlib
import os
import socket
import struct
import subprocess
import sys
import threading
import time
import unittest

FLOOR = None


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class Backend:
    """A listening socket served by handler(conn) on a thread per connection."""

    def __init__(self, handler):
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.port = self.sock.getsockname()[1]
        self.handler = handler
        threading.Thread(target=self.loop, daemon=True).start()

    def loop(self):
        while True:
            try:
                c, _ = self.sock.accept()
            except OSError:
                return
            threading.Thread(target=self.handler, args=(c,), daemon=True).start()

    def close(self):
        self.sock.close()


def read_all(s):
    out = b""
    while True:
        b = s.recv(65536)
        if not b:
            return out
        out += b


class Floor(unittest.TestCase):
    def start(self, *frontends, threads=1):
        port = free_port()
        argv = [FLOOR, str(threads)] + ["%d=%s" % (port, ",".join(str(b.port) for b in fe))
                                        for fe in frontends[:1]]
        self.proc = subprocess.Popen(argv, stderr=subprocess.PIPE)
        self.addCleanup(self.stop)
        end = time.time() + 5
        while time.time() < end:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                return port
            except OSError:
                time.sleep(0.05)
        self.fail("cpha-bench-floor did not listen: %s" % self.proc.stderr.read1(4096))

    def stop(self):
        self.proc.kill()
        self.proc.wait()
        self.proc.stderr.close()

    def test_half_close_and_bulk_both_ways(self):
        def handler(c):
            data = read_all(c)  # until the client's FIN
            c.sendall(("%d %s\n" % (len(data), hashlib.sha256(data).hexdigest())).encode() +
                      b"y" * 4000000)
            c.close()
        b = Backend(handler)
        self.addCleanup(b.close)
        port = self.start([b], threads=2)
        data = os.urandom(3000000)
        s = socket.create_connection(("127.0.0.1", port), timeout=10)
        s.sendall(data)
        s.shutdown(socket.SHUT_WR)
        out = read_all(s)
        s.close()
        line, rest = out.split(b"\n", 1)
        self.assertEqual(line.decode(), "%d %s" % (len(data), hashlib.sha256(data).hexdigest()))
        self.assertEqual(len(rest), 4000000)
        self.assertEqual(rest, b"y" * 4000000)

    def test_server_reset_reaches_the_client_as_a_reset(self):
        def handler(c):
            c.sendall(b"partial")
            time.sleep(0.2)
            c.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            c.close()
        b = Backend(handler)
        self.addCleanup(b.close)
        port = self.start([b])
        s = socket.create_connection(("127.0.0.1", port))
        s.settimeout(5)
        got = b""
        with self.assertRaises(ConnectionResetError):
            while True:
                d = s.recv(4096)
                if not d:
                    break  # a clean end: the assertion fails
                got += d
        self.assertEqual(got, b"partial")
        s.close()

    def test_backends_take_turns(self):
        def answer(name):
            def handler(c):
                c.sendall(name)
                c.close()
            return handler
        a, b = Backend(answer(b"a")), Backend(answer(b"b"))
        self.addCleanup(a.close)
        self.addCleanup(b.close)
        port = self.start([a, b])
        # the start-up probe took the first turn (a)
        seen = []
        for _ in range(4):
            s = socket.create_connection(("127.0.0.1", port))
            seen.append(read_all(s))
            s.close()
        self.assertEqual(seen, [b"b", b"a", b"b", b"a"])

    def test_bad_arguments(self):
        for argv in ([], ["0", "1=2"], ["1"], ["1", "x"], ["1", "80=0"], ["1", "80="],
                     ["1", "80=1,"]):
            r = subprocess.run([FLOOR] + argv, capture_output=True, text=True)
            self.assertEqual(r.returncode, 2, argv)
            self.assertTrue(r.stderr, argv)


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit("usage: test_floorproxy.py BUILD_DIR")
    FLOOR = os.path.join(sys.argv.pop(1), "bench", "cpha-bench-floor")
    unittest.main()
