#!/usr/bin/env python3
"""fenced -c with the real fence-agents.

Good files (the project's sample tests/samples/fenced.conf, unchanged, and
tests/fenced-configs/good) must pass `fenced -c` with exit status 0: their parameters are
checked against each agent's own metadata (`AGENT -o metadata`, Debian 12's
fence-agents). Bad files (tests/fenced-configs/bad) must be refused with
exit status 1 and the message their first line names:

    # expect: 9: 'outlet' is not a parameter of fence_apc_snmp

means stderr holds "FILE:9: 'outlet' is not a parameter of fence_apc_snmp".
-c sends nothing: the 10.10.x.x addresses of the sample stay untouched.

Exit 0 pass, 77 skip (fenced not built, or fence-agents missing), else fail.
    python3 tests/integration/test_fenced_config.py [-v]
"""

import glob
import os
import re
import shutil
import subprocess
import tempfile
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
BUILD = os.environ.get("CPHA_BUILD_DIR", os.path.join(REPO, "build"))
FENCED = os.path.join(BUILD, "fenced", "fenced")
CONFIGS = os.path.join(REPO, "tests", "fenced-configs")
SAMPLE = os.path.join(REPO, "tests", "samples", "fenced.conf")
EXPECT = re.compile(r"^#\s*expect:\s*(\d+):\s*(.+?)\s*$")
AGENTS = ("fence_ipmilan", "fence_apc_snmp", "fence_dummy")


def fenced_c(path, corosync_conf=os.devnull):
    # -C: never the test machine's own /etc/corosync/corosync.conf
    r = subprocess.run([FENCED, "-c", "-f", path, "-C", corosync_conf], stdin=subprocess.DEVNULL,
                       capture_output=True, text=True, timeout=120)
    return r.returncode, r.stdout, r.stderr


def skip_reason():
    if not os.access(FENCED, os.X_OK):
        return "%s not built (set CPHA_BUILD_DIR)" % FENCED
    for a in AGENTS:
        if not shutil.which(a, path="/usr/sbin:/sbin:/usr/bin"):
            return "%s not installed (fence-agents; scripts/setup.sh installs it)" % a
    return None


class FencedConfig(unittest.TestCase):

    def test_good(self):
        files = [SAMPLE] + sorted(glob.glob(os.path.join(CONFIGS, "good", "*.conf")))
        self.assertGreaterEqual(len(files), 2)
        for f in files:
            with self.subTest(file=os.path.basename(f)):
                rc, out, err = fenced_c(f)
                self.assertEqual(rc, 0, err)
                self.assertEqual(out, "Configuration file is valid\n")
                # every message names the file and a line
                for line in err.splitlines():
                    self.assertRegex(line, r"^%s:\d+: " % re.escape(f))

    def test_deprecated_names_warned(self):
        f = os.path.join(CONFIGS, "good", "levels-watchdog.conf")
        rc, _, out = fenced_c(f)
        self.assertEqual(rc, 0, out)
        self.assertIn("%s:10: 'ipaddr' is deprecated in fence_ipmilan: use ip" % f, out)
        self.assertIn("%s:11: 'login' is deprecated in fence_ipmilan: use username" % f, out)

    def test_bad(self):
        files = sorted(glob.glob(os.path.join(CONFIGS, "bad", "*.conf")))
        self.assertGreaterEqual(len(files), 5)
        for f in files:
            with self.subTest(file=os.path.basename(f)):
                with open(f) as fh:
                    m = EXPECT.match(fh.readline())
                self.assertIsNotNone(m, "%s: first line must be '# expect: LINE: text'" % f)
                rc, _, out = fenced_c(f)
                self.assertEqual(rc, 1, out)
                self.assertIn("%s:%s: %s" % (f, m.group(1), m.group(2)), out)

    def test_two_node_watchdog_only(self):
        # both halves of a two-node cluster keep quorum: a node left to its
        # watchdog alone would never reset; with a quorum device it would
        with tempfile.TemporaryDirectory() as d:
            conf = os.path.join(d, "fenced.conf")
            with open(conf, "w") as f:
                f.write("global_defs {\n    post_join_delay 6s\n}\n"
                        "fence_device ipmi-a {\n    agent fence_ipmilan\n"
                        "    ip 198.18.0.80\n    username admin\n    password x\n}\n"
                        "fence_node a {\n    level 1 {\n        ipmi-a\n    }\n}\n"
                        "watchdog {\n    device /dev/watchdog\n    timeout 5s\n}\n")
            cs = os.path.join(d, "corosync.conf")
            body = ("totem {\n    version: 2\n}\nnodelist {\n"
                    "    node {\n        name: a\n        nodeid: 1\n    }\n"
                    "    node {\n        name: b\n        nodeid: 2\n    }\n}\n"
                    "quorum {\n    provider: corosync_votequorum\n    two_node: 1\n%s}\n")
            with open(cs, "w") as f:
                f.write(body % "")
            rc, _, err = fenced_c(conf, cs)
            self.assertEqual(rc, 1, err)
            self.assertIn("%s:15: node b would be fenced by its watchdog only" % conf, err)
            with open(cs, "w") as f:
                f.write(body % "    device {\n        model: net\n    }\n")
            rc, _, err = fenced_c(conf, cs)
            self.assertEqual(rc, 0, err)
            with open(cs, "w") as f:
                f.write((body % "").replace("two_node: 1", "two_node: 0"))
            rc, _, err = fenced_c(conf, cs)
            self.assertEqual(rc, 0, err)

    def test_sample_unchanged(self):
        # the copy is the sample as given: no edits to make it pass
        with open(SAMPLE) as fh:
            text = fh.read()
        self.assertIn("fence_device ipmi-kubem00", text)
        self.assertIn("priority_delay_vip 5s", text)


def main():
    why = skip_reason()
    if why:
        print("skipped: " + why)
        return 77
    prog = unittest.main(exit=False, verbosity=2)
    return 0 if prog.result.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main())
