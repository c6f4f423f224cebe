#!/usr/bin/env python3
"""lbd's log-format, bind v4v6/v6only and option dontlog-normal, seen from
outside: a syslog UNIX socket the test reads gets one line per session in the
configured format; a 'bind :::PORT v4v6' listener takes IPv4 and IPv6
clients, a 'v6only' one refuses IPv4.

Topology: client (198.18.0.2, 2001:db8::2), lb (198.18.0.10, 2001:db8::10)
running lbd, servers s1..s2 running tag servers (they send their name, then
echo).
Exit 0 pass, 77 skip (not root, lbd not built), else fail.
    sudo python3 tests/integration/test_lbd_logformat.py [-v]
"""

import re
import socket
import sys
import time
import unittest

sys.dont_write_bytecode = True

import cphatest  # noqa: E402
from cphatest import lbd, step, util  # noqa: E402

FORMAT = ("%ci:%cp -> %fi:%fp [%t] %ft %b/%s %Tw/%Tc/%Tt %B %U %ts "
          "%ac/%fc/%bc/%sc/%rc %sq/%bq %{+Q}H %pid %si:%sp %bi:%bp")

BODY = """
defaults
    mode tcp
    log %(sock)s local0
    option tcplog
    log-format "%(fmt)s"
    timeout connect 2s
    timeout client 30s
    timeout server 30s
    retries 0

frontend both
    bind :::6443 v4v6
    default_backend be

frontend v6
    bind :::6444 v6only
    default_backend be

frontend quiet
    bind 198.18.0.10:6445
    option dontlog-normal
    log-format "%%f %%b/%%s %%ts"
    default_backend be

frontend quiet_dead
    bind 198.18.0.10:6446
    option dontlog-normal
    log-format "%%f %%b/%%s %%ts"
    default_backend dead

backend be
    server s1 198.18.0.11:8000

backend dead
    server nobody 198.18.0.12:8009
"""


class Syslog:
    """A datagram UNIX socket lbd logs to; lines without the syslog header."""

    def __init__(self, path):
        self.path = path
        self.s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.s.bind(path)
        self.lines = []

    def read(self, count, timeout):
        """Wait for at least count lines in all; return them all."""
        deadline = time.monotonic() + timeout
        while len(self.lines) < count and time.monotonic() < deadline:
            self.s.settimeout(max(0.01, deadline - time.monotonic()))
            try:
                d = self.s.recv(4096).decode()
            except socket.timeout:
                break
            # rfc3164: "<PRI>Mmm dd hh:mm:ss host tag[pid]: line"
            self.lines.append(d.split("]: ", 1)[1] if "]: " in d else d)
        return self.lines

    def close(self):
        self.s.close()


class LogFormat(unittest.TestCase):

    def test_log_format_v4v6_dontlog_normal(self):
        with cphatest.Lab("lbd-logfmt") as lab:
            t = lbd.Topology(lab, nservers=2, v6=True)
            t.start_tagservers(8000, hosts=t.servers[:1])
            log = Syslog(lab.path("syslog.sock"))
            try:
                self.run_checks(lab, t, log)
            finally:
                log.close()

    def run_checks(self, lab, t, log):
        body = BODY % {"sock": log.path, "fmt": FORMAT}
        lb = lbd.Lbd(lab, t.lb, body)
        lb.start()

        step("bind :::6443 v4v6 takes an IPv4 and an IPv6 client")
        for ip in (lbd.LB_IP, lbd.LB_IP6):
            s, tag = lbd.tag_connect(t.client, ip, 6443)
            self.assertEqual(tag, "s1")
            self.assertEqual(lbd.echo(s, b"hello"), b"hello")
            s.close()

        step("one log-format line per session, every field as configured")
        lines = log.read(2, 5)
        self.assertEqual(len(lines), 2, lines)
        pid = lb.proc.pid if hasattr(lb.proc, "pid") else None
        ip4 = r"(?:::ffff:)?198\.18\.0\.2"
        fi4 = r"(?:::ffff:)?198\.18\.0\.10"
        for line, ci, fi in ((lines[0], ip4, fi4), (lines[1], r"2001:db8::2", r"2001:db8::10")):
            pat = (r"^%s:\d+ -> %s:6443 \[\d\d/\w{3}/\d{4}:\d\d:\d\d:\d\d\.\d{3}\] both be/s1 "
                   r"0/\d+/\d+ 8 5 -- \d+/\d+/\d+/\d+/0 0/0 \"[^\"]+\" (\d+) "
                   r"198\.18\.0\.11:8000 198\.18\.0\.10:\d+$") % (ci, fi)
            m = re.match(pat, line.strip())
            self.assertIsNotNone(m, "%r does not match %r" % (line, pat))
            if pid is not None:
                self.assertEqual(int(m.group(1)), pid)

        step("bind :::6444 v6only refuses IPv4, takes IPv6")
        with self.assertRaises(ConnectionRefusedError):
            lbd.connect(t.client, lbd.LB_IP, 6444)
        s, tag = lbd.tag_connect(t.client, lbd.LB_IP6, 6444)
        self.assertEqual(tag, "s1")
        s.close()
        lines = log.read(3, 5)
        self.assertEqual(len(lines), 3, lines)
        self.assertIn(" -> 2001:db8::10:6444 ", lines[2])
        self.assertIn(" v6 be/s1 ", lines[2])

        step("option dontlog-normal: a clean session is not logged, a failed one is")
        s, tag = lbd.tag_connect(t.client, lbd.LB_IP, 6445)
        self.assertEqual(lbd.echo(s, b"x"), b"x")
        s.close()
        s = lbd.connect(t.client, lbd.LB_IP, 6446)
        s.settimeout(5)
        self.assertEqual(s.recv(10), b"")  # the server refused: lbd closes
        s.close()
        lines = log.read(4, 5)
        self.assertEqual(len(lines), 4, lines)
        self.assertEqual(lines[3].strip(), "quiet_dead dead/nobody SC")
        # nothing more comes (the clean session on 'quiet' was not logged)
        self.assertEqual(len(log.read(5, 1)), 4, log.lines)


def main():
    lbd.require()
    return util.run_tests()


if __name__ == "__main__":
    sys.exit(main())
