#!/usr/bin/env python3
"""lbd -c and the real HAProxy -c on the same configuration files.

Good files (the samples in tests/samples/ and tests/lbd-configs/good/*.cfg)
must be accepted by both `lbd -c` and `haproxy -c` (HAProxy may warn). Bad files
(tests/lbd-configs/bad/*.cfg) must be refused by lbd with exit status 1 and
the message their first line names:

    # expect: 7: 'ssl' is not supported

means stderr holds "FILE:7: 'ssl' is not supported". Neither program is
started in a mode that listens: both only check the files.
Exit 0 pass, 77 skip (no lbd binary), else fail.
    python3 tests/integration/test_lbd_config.py [-v]
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
CONFIGS = os.path.join(REPO, "tests", "lbd-configs")
SAMPLES = os.path.join(REPO, "tests", "samples")
SAMPLE_NAMES = ("haproxy-seed.cfg", "haproxy-https-readyz.cfg")
EXPECT = re.compile(r"^#\s*expect:\s*(\d+):\s*(.+?)\s*$")


def run(argv):
    return subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          timeout=60)


def lbd_check(path):
    return run([LBD, "-c", "-f", path])


class GoodConfigs(unittest.TestCase):
    """Both lbd and HAProxy accept these files."""

    def check_good(self, path):
        r = lbd_check(path)
        self.assertEqual(r.returncode, 0,
                         "lbd -c refused %s:\n%s" % (path, r.stderr))
        self.assertIn("Configuration file is valid", r.stdout)
        # notices, if any, name their line like errors do
        for line in r.stderr.splitlines():
            self.assertTrue(line.startswith(path + ":"), line)
        if not os.access(HAPROXY, os.X_OK):
            self.skipTest("%s not installed: HAProxy's side not checked" % HAPROXY)
        h = run([HAPROXY, "-c", "-f", path])
        self.assertEqual(h.returncode, 0,
                         "haproxy -c refused %s:\n%s%s" % (path, h.stdout, h.stderr))

    def test_shared_samples(self):
        paths = [os.path.join(SAMPLES, n) for n in SAMPLE_NAMES]
        missing = [p for p in paths if not os.path.exists(p)]
        if missing:
            self.skipTest("samples not found: %s" % ", ".join(missing))
        for p in paths:
            with self.subTest(config=os.path.basename(p)):
                self.check_good(p)

    def test_good_dir(self):
        paths = sorted(glob.glob(os.path.join(CONFIGS, "good", "*.cfg")))
        self.assertTrue(paths, "no good configurations in %s" % CONFIGS)
        for p in paths:
            with self.subTest(config=os.path.basename(p)):
                self.check_good(p)

    def test_quiet_prints_nothing_on_stdout(self):
        p = sorted(glob.glob(os.path.join(CONFIGS, "good", "*.cfg")))[0]
        r = run([LBD, "-c", "-q", "-f", p])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout, "")


class BadConfigs(unittest.TestCase):
    """lbd refuses these files, at the line their first comment names."""

    def test_bad_dir(self):
        paths = sorted(glob.glob(os.path.join(CONFIGS, "bad", "*.cfg")))
        self.assertTrue(paths, "no bad configurations in %s" % CONFIGS)
        for p in paths:
            with self.subTest(config=os.path.basename(p)):
                with open(p) as f:
                    first = f.readline()
                m = EXPECT.match(first)
                self.assertIsNotNone(m, "%s: first line must be '# expect: LINE: TEXT'" % p)
                want = "%s:%s: %s" % (p, m.group(1), m.group(2))
                r = lbd_check(p)
                self.assertEqual(r.returncode, 1, "lbd -c on %s: %s" % (p, r.stderr))
                self.assertIn(want, r.stderr)
                self.assertRegex(r.stderr, r"configuration has \d+ errors?\n$")
                # every error line says where it is
                for line in r.stderr.splitlines()[:-1]:
                    self.assertRegex(line, r"^%s:\d+: " % re.escape(p))

    def test_missing_file(self):
        p = os.path.join(CONFIGS, "does-not-exist.cfg")
        r = lbd_check(p)
        self.assertEqual(r.returncode, 1)
        self.assertIn("%s: cannot read: No such file or directory" % p, r.stderr)


def main():
    if not os.access(LBD, os.X_OK):
        print("SKIP: %s not built (set CPHA_BUILD_DIR)" % LBD)
        return 77
    prog = unittest.main(exit=False, verbosity=2)
    return 0 if prog.result.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main())
