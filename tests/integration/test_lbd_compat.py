#!/usr/bin/env python3
"""lbd against HAProxy 2.6 on real control-plane haproxy.cfg files.

tests/lbd-configs/real/*.cfg are public haproxy.cfg files and templates
(sources in that folder's README.md), rendered with test addresses. For each
file both `haproxy -c -f FILE` and `lbd -c -f FILE` run; the test fails when
lbd refuses a file HAProxy accepts, when lbd accepts a file HAProxy refuses,
or when one of lbd's messages does not start with FILE:LINE. It prints the
counts (HAProxy accepts N of M, lbd K). A file that also proxies HTTP to
real servers (out of lbd's scope) is listed in HTTP_PROXYING: lbd must
refuse it, and only for lines of its mode http sections. Neither program listens or resolves
anything: both only check the files, and the files name only IP addresses
from 198.18.0.0/15 and 2001:db8::/32, or localhost.
Exit 0 pass, 77 skip (no lbd binary or no haproxy), else fail.
    python3 tests/integration/test_lbd_compat.py [-v]
"""

import glob
import os
import re
import subprocess
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
BUILD = os.environ.get("CPHA_BUILD_DIR", os.path.join(REPO, "build"))
LBD = os.path.join(BUILD, "lbd", "lbd")
HAPROXY = "/usr/sbin/haproxy"
REAL = os.path.join(REPO, "tests", "lbd-configs", "real")
# Files whose control-plane part lbd runs but which also route HTTP
# ingress through mode http frontends and backends with servers
HTTP_PROXYING = {"linuxera-multicluster-sni.cfg"}


def http_section_lines(path):
    """Line numbers of the sections of path that are in mode http
    (their own 'mode http', or their defaults' when they write none)."""
    sections, cur = [], None
    with open(path) as f:
        for n, line in enumerate(f, 1):
            words = line.split("#", 1)[0].split()
            if not words:
                continue
            if not line[0].isspace():
                cur = {"kind": words[0], "lines": [], "mode": None}
                sections.append(cur)
            if cur is not None:
                cur["lines"].append(n)
                if words[0] == "mode" and len(words) > 1:
                    cur["mode"] = words[1]
    out, default = set(), None
    for sec in sections:
        if sec["kind"] == "defaults":
            default = sec["mode"]
        elif sec["kind"] in ("frontend", "backend", "listen") and \
                (sec["mode"] or default) == "http":
            out.update(sec["lines"])
    return out


def run(argv):
    return subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          timeout=60)


def real_files():
    return sorted(glob.glob(os.path.join(REAL, "*.cfg")))


class RealConfigs(unittest.TestCase):
    """Every file: lbd says yes exactly when HAProxy says yes."""

    @classmethod
    def setUpClass(cls):
        cls.results = {}
        for p in real_files():
            h = run([HAPROXY, "-c", "-f", p])
            r = run([LBD, "-c", "-f", p])
            cls.results[p] = (h, r)
        n = len(cls.results)
        ha = sum(1 for h, _ in cls.results.values() if h.returncode == 0)
        lb = sum(1 for h, r in cls.results.values() if h.returncode == 0 and r.returncode == 0)
        print("\n%d files: HAProxy 2.6 accepts %d, lbd accepts %d of those (%d also proxy "
              "HTTP, which lbd does not)" % (n, ha, lb, len(HTTP_PROXYING)), file=sys.stderr)

    def test_collection_is_large_enough(self):
        self.assertGreaterEqual(len(self.results), 25)
        with open(os.path.join(REAL, "README.md")) as f:
            readme = f.read()
        for p in self.results:
            self.assertIn(os.path.basename(p), readme,
                          "%s has no source in README.md" % os.path.basename(p))

    def test_files_use_test_addresses_only(self):
        v4 = re.compile(r"(?<![\w.])(\d{1,3})\.(\d{1,3})\.\d{1,3}\.\d{1,3}(?![\w.])")
        for p in self.results:
            with open(p) as f:
                for n, line in enumerate(f, 1):
                    line = line.split("#", 1)[0]
                    for m in v4.finditer(line):
                        a, b = int(m.group(1)), int(m.group(2))
                        ok = (a == 198 and b in (18, 19)) or a in (0, 127)
                        self.assertTrue(ok, "%s:%d: address %s is not a test address"
                                        % (p, n, m.group(0)))

    def test_lbd_agrees_with_haproxy(self):
        for p, (h, r) in self.results.items():
            with self.subTest(config=os.path.basename(p)):
                if os.path.basename(p) in HTTP_PROXYING:
                    self.assertEqual(h.returncode, 0)
                    self.assertNotEqual(r.returncode, 0, "lbd accepts HTTP proxying in %s" % p)
                    http = http_section_lines(p)
                    for line in r.stderr.splitlines()[:-1]:
                        n = int(line[len(p) + 1:].split(":", 1)[0])
                        self.assertIn(n, http, "lbd refuses a line of %s outside its HTTP "
                                      "proxying: %s" % (os.path.basename(p), line))
                elif h.returncode == 0:
                    self.assertEqual(r.returncode, 0,
                                     "HAProxy accepts %s but lbd refuses it:\n%s"
                                     % (p, r.stderr))
                else:
                    self.assertNotEqual(r.returncode, 0,
                                        "HAProxy refuses %s but lbd accepts it:\n%s"
                                        % (p, h.stdout + h.stderr))

    def test_lbd_messages_name_file_and_line(self):
        for p, (_, r) in self.results.items():
            with self.subTest(config=os.path.basename(p)):
                lines = r.stderr.splitlines()
                if r.returncode != 0:
                    self.assertRegex(lines[-1], r"configuration has \d+ errors?$")
                    lines = lines[:-1]
                for line in lines:
                    self.assertRegex(line, r"^%s:\d+: " % re.escape(p))


def main():
    if not os.access(LBD, os.X_OK):
        print("SKIP: %s not built (set CPHA_BUILD_DIR)" % LBD)
        return 77
    if not os.access(HAPROXY, os.X_OK):
        print("SKIP: %s not installed: nothing to compare lbd with" % HAPROXY)
        return 77
    prog = unittest.main(exit=False, verbosity=2)
    return 0 if prog.result.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main())
