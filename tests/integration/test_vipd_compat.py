#!/usr/bin/env python3
"""vipd -c against keepalived 2.2.7 on public keepalived.conf files.

tests/vipd-configs/real/*.conf are keepalived configurations for control
planes taken from public projects (sources in the README.md there),
rendered with test addresses and interface eth0. For each file this runs
`keepalived -t -f FILE` and `vipd -c -f FILE` and fails when vipd refuses
a file that keepalived runs, unless the README lists the file under
"Out of scope" (a feature vipd does not have on purpose, such as LVS);
then vipd must refuse it with the message given there.

Which files keepalived runs. `keepalived -t` exits 0 for a clean file,
6 when only the script security audit complains, and 5 when it reported
configuration errors: most of those are warnings after which it goes on
(a keyword it ignores, nopreempt cleared, authentication ignored), so 5
counts as "runs" unless one of the lines in KEEPALIVED_DROPS appears:
those mean keepalived dropped something the file needs (an unknown
keyword, a missing interface, an instance without VIPs). It runs in a
network namespace made for the check with eth0 and eth1, as in
test_vipd_config.py.

The summary line gives the counts reported in docs/compatibility.md:
    files N, keepalived runs K, vipd accepts A of them (P%)
and the test fails below 95%. Exit 0 pass, 77 skip, else fail.
    python3 tests/integration/test_vipd_compat.py [-v]
"""

import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
BUILD = os.environ.get("CPHA_BUILD_DIR", os.path.join(REPO, "build"))
VIPD = os.path.join(BUILD, "vipd", "vipd")
KEEPALIVED = "/usr/sbin/keepalived"
REAL = os.path.join(REPO, "tests", "vipd-configs", "real")
README = os.path.join(REAL, "README.md")
MIN_RATE = 95.0

NETNS_SCRIPT = ("ip link add eth0 type veth peer name veth0 && "
                "ip link add eth1 type veth peer name veth1 && "
                "ip link set eth0 up && ip link set eth1 up && "
                "exec %s -t -f \"$1\"" % KEEPALIVED)

# keepalived -t lines that mean it dropped part of what the file asks for
KEEPALIVED_DROPS = (
    "Unknown keyword",
    "doesn't exist",
    "Non-existent interface",
    "at least one is required",
)

# README rows: | `file.conf` | owner/repo | path | notes |
# out of scope: - `file.conf`: vipd says "MESSAGE"
OUT_OF_SCOPE = re.compile(r"^- `([^`]+)`: vipd says \"(.+)\"\s*$")


def run(argv):
    return subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          timeout=60, start_new_session=True)


def skip_reason():
    if not os.access(VIPD, os.X_OK):
        return "%s not built (set CPHA_BUILD_DIR)" % VIPD
    if not os.access(KEEPALIVED, os.X_OK):
        return "%s not installed" % KEEPALIVED
    if os.geteuid() != 0:
        return "not root: cannot make a network namespace for keepalived -t"
    for tool in ("unshare", "ip"):
        if not shutil.which(tool):
            return "%s not found" % tool
    return None


def keepalived_runs(path):
    """(runs, status, output) of keepalived -t on path."""
    r = run(["unshare", "-n", "sh", "-c", NETNS_SCRIPT, "sh", path])
    out = (r.stdout + r.stderr).strip()
    if r.returncode in (0, 6):
        return True, r.returncode, out
    if r.returncode == 5:
        return not any(d in out for d in KEEPALIVED_DROPS), 5, out
    return False, r.returncode, out


def out_of_scope():
    with open(README) as f:
        return {m.group(1): m.group(2) for m in map(OUT_OF_SCOPE.match, f) if m}


def listed_files():
    with open(README) as f:
        return set(re.findall(r"^\| `([^`]+\.conf)` \|", f.read(), re.M))


class Compat(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.paths = sorted(glob.glob(os.path.join(REAL, "*.conf")))
        cls.scope = out_of_scope()
        cls.results = {}
        for p in cls.paths:
            runs, status, kout = keepalived_runs(p)
            v = run([VIPD, "-c", "-f", p])
            cls.results[os.path.basename(p)] = (runs, status, kout, v)

    def test_collection(self):
        # at least 15 files, each with its source in the README
        self.assertGreaterEqual(len(self.paths), 15)
        self.assertEqual(set(self.results), listed_files(),
                         "every file in %s has a README row, and every row a file" % REAL)

    def test_keepalived_check_can_fail(self):
        # the rule is not a rubber stamp: an unknown keyword is a drop
        with tempfile.TemporaryDirectory(prefix="vipd-compat-") as d:
            p = os.path.join(d, "typo.conf")
            with open(p, "w") as f:
                f.write("vrrp_instance VI_1 {\n  interface eth0\n  virtual_router_id 1\n"
                        "  priorty 100\n  virtual_ipaddress {\n    198.18.0.1\n  }\n}\n")
            runs, status, out = keepalived_runs(p)
        self.assertEqual(status, 5, out)
        self.assertFalse(runs, out)

    def test_vipd_accepts_what_keepalived_runs(self):
        for name, (runs, status, kout, v) in sorted(self.results.items()):
            with self.subTest(config=name):
                if name in self.scope:
                    self.assertTrue(runs, "%s: keepalived does not run it (%d):\n%s"
                                    % (name, status, kout))
                    self.assertEqual(v.returncode, 1, v.stderr)
                    self.assertIn(self.scope[name], v.stderr)
                    continue
                if not runs:
                    continue
                self.assertEqual(v.returncode, 0, "vipd -c refused %s, which keepalived runs "
                                 "(-t status %d):\n%s" % (name, status, v.stderr))
                # every warning names file:line
                for line in v.stderr.splitlines():
                    self.assertRegex(line, r"^%s:\d+: " % re.escape(os.path.join(REAL, name)))

    def test_rate(self):
        ran = [n for n, r in self.results.items() if r[0]]
        ok = [n for n in ran if self.results[n][3].returncode == 0]
        rate = 100.0 * len(ok) / len(ran) if ran else 0.0
        print("\nfiles %d, keepalived runs %d, vipd accepts %d of them (%.1f%%)"
              % (len(self.results), len(ran), len(ok), rate), file=sys.stderr)
        for n in sorted(self.results):
            runs, status, _, v = self.results[n]
            print("  %-45s keepalived -t %d%s  vipd -c %d" % (
                n, status, "" if runs else " (drops)", v.returncode), file=sys.stderr)
        self.assertGreaterEqual(rate, MIN_RATE)


def main():
    why = skip_reason()
    if why:
        print("SKIP: %s" % why)
        return 77
    prog = unittest.main(exit=False, verbosity=2)
    return 0 if prog.result.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main())
