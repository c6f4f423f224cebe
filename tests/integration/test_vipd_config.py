#!/usr/bin/env python3
"""vipd -c and the real keepalived --config-test on the same files.

Good files (tests/samples/keepalived-apiserver-vip.conf and
tests/vipd-configs/good/*.conf) must be accepted by `vipd -c -f FILE` and
by `keepalived -t -f FILE` (keepalived 2.2.7, Debian 12). Bad files
(tests/vipd-configs/bad/*.conf) must be refused by vipd with exit status 1
and the message their first line names:

    # expect: 7: 'nopreempt' needs state BACKUP

means stderr holds "FILE:7: 'nopreempt' needs state BACKUP".

keepalived checks more than the syntax: the interfaces must exist and the
scripts must be there and safe. So it runs in a network namespace made for
the check (unshare -n) that has two veth ends named eth0 and eth1, with no
address; `-t` only reads the configuration and starts no VRRP. The shared
sample names /etc/keepalived/check_apiserver.sh, which is not installed
here: the copy given to keepalived differs from the sample only in that
path, which points to an executable in a private temporary directory. The
sample does not set enable_script_security, so keepalived's security audit
ends with exit status 6 and "SECURITY VIOLATION - scripts are being executed
but script_security not enabled."; that one line, and nothing else, is
accepted for it. Good files set script_user root and
enable_script_security where they run scripts, and must pass with status 0.

Without a vipd binary (CPHA_BUILD_DIR/vipd/vipd) the vipd checks are skipped
and keepalived's still run; without keepalived, root or unshare, keepalived's
are skipped. Exit 0 pass, 77 skip (neither could run), else fail.
    python3 tests/integration/test_vipd_config.py [-v]
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
CONFIGS = os.path.join(REPO, "tests", "vipd-configs")
SAMPLES = os.path.join(REPO, "tests", "samples")
SAMPLE = os.path.join(SAMPLES, "keepalived-apiserver-vip.conf")
SAMPLE_SCRIPT = "/etc/keepalived/check_apiserver.sh"
EXPECT = re.compile(r"^#\s*expect:\s*(\d+):\s*(.+?)\s*$")
SECURITY = ("SECURITY VIOLATION - scripts are being executed but script_security "
            "not enabled.")

# keepalived -t in a namespace of its own, with eth0 and eth1 (no address)
NETNS_SCRIPT = ("ip link add eth0 type veth peer name veth0 && "
                "ip link add eth1 type veth peer name veth1 && "
                "ip link set eth0 up && ip link set eth1 up && "
                "exec %s -t -f \"$1\"" % KEEPALIVED)


def run(argv):
    # a session of its own: keepalived signals its process group
    return subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          timeout=60, start_new_session=True)


def vipd_missing():
    if not os.access(VIPD, os.X_OK):
        return "%s not built (set CPHA_BUILD_DIR): vipd's side not checked" % VIPD
    return None


def keepalived_missing():
    if not os.access(KEEPALIVED, os.X_OK):
        return "%s not installed: keepalived's side not checked" % KEEPALIVED
    if os.geteuid() != 0:
        return "not root: cannot make a network namespace for keepalived -t"
    for tool in ("unshare", "ip"):
        if not shutil.which(tool):
            return "%s not found: cannot make a network namespace for keepalived -t" % tool
    return None


def vipd_check(path):
    return run([VIPD, "-c", "-f", path])


def keepalived_check(path):
    return run(["unshare", "-n", "sh", "-c", NETNS_SCRIPT, "sh", path])


def good_paths():
    return sorted(glob.glob(os.path.join(CONFIGS, "good", "*.conf")))


class Vipd(unittest.TestCase):
    """vipd -c accepts the good files and refuses the bad ones where they say."""

    def setUp(self):
        why = vipd_missing()
        if why:
            self.skipTest(why)

    def check_good(self, path):
        r = vipd_check(path)
        self.assertEqual(r.returncode, 0, "vipd -c refused %s:\n%s" % (path, r.stderr))
        self.assertIn("Configuration file is valid", r.stdout)
        # notices, if any, say where they are
        for line in r.stderr.splitlines():
            self.assertRegex(line, r"^%s[^:]*:\d+: " % re.escape(os.path.dirname(path)))

    def test_sample_unchanged(self):
        if not os.path.exists(SAMPLE):
            self.skipTest("sample not found: %s" % SAMPLE)
        self.check_good(SAMPLE)
        # MASTER 101 with weight -2 over a BACKUP at 100: nothing to warn about
        self.assertEqual(vipd_check(SAMPLE).stderr, "")

    def test_good_dir(self):
        paths = good_paths()
        self.assertTrue(paths, "no good configurations in %s" % CONFIGS)
        for p in paths:
            with self.subTest(config=os.path.basename(p)):
                self.check_good(p)

    def test_notices_name_their_line(self):
        p = os.path.join(CONFIGS, "good", "backup-nopreempt.conf")
        r = vipd_check(p)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("%s:5: 'notification_email' has no effect in vipd" % p, r.stderr)

    def test_bad_dir(self):
        paths = sorted(glob.glob(os.path.join(CONFIGS, "bad", "*.conf")))
        self.assertTrue(paths, "no bad configurations in %s" % CONFIGS)
        for p in paths:
            with self.subTest(config=os.path.basename(p)):
                with open(p) as f:
                    first = f.readline()
                m = EXPECT.match(first)
                self.assertIsNotNone(m, "%s: first line must be '# expect: LINE: TEXT'" % p)
                want = "%s:%s: %s" % (p, m.group(1), m.group(2))
                r = vipd_check(p)
                self.assertEqual(r.returncode, 1, "vipd -c on %s: %s" % (p, r.stderr))
                self.assertIn(want, r.stderr)
                self.assertNotIn("Configuration file is valid", r.stdout)

    def test_missing_file(self):
        p = os.path.join(CONFIGS, "does-not-exist.conf")
        r = vipd_check(p)
        self.assertEqual(r.returncode, 1)
        self.assertIn("%s: cannot read: No such file or directory" % p, r.stderr)


class Keepalived(unittest.TestCase):
    """keepalived -t accepts the same good files."""

    def setUp(self):
        why = keepalived_missing()
        if why:
            self.skipTest(why)

    def test_sample_with_script_path(self):
        if not os.path.exists(SAMPLE):
            self.skipTest("sample not found: %s" % SAMPLE)
        with open(SAMPLE) as f:
            text = f.read()
        self.assertEqual(text.count(SAMPLE_SCRIPT), 1)
        with tempfile.TemporaryDirectory(prefix="vipd-config-") as d:
            script = os.path.join(d, "check_apiserver.sh")
            with open(script, "w") as f:
                f.write("#!/bin/sh\nexit 0\n")
            os.chmod(script, 0o755)
            conf = os.path.join(d, "keepalived.conf")
            with open(conf, "w") as f:
                f.write(text.replace(SAMPLE_SCRIPT, script))
            r = keepalived_check(conf)
        out = (r.stdout + r.stderr).strip()
        if r.returncode == 6:
            # the security audit only (see the top of this file)
            self.assertEqual(out, SECURITY)
        else:
            self.assertEqual(r.returncode, 0, "keepalived -t refused the sample:\n" + out)

    def test_good_dir(self):
        paths = good_paths()
        self.assertTrue(paths, "no good configurations in %s" % CONFIGS)
        for p in paths:
            with self.subTest(config=os.path.basename(p)):
                r = keepalived_check(p)
                self.assertEqual(r.returncode, 0, "keepalived -t refused %s:\n%s%s"
                                 % (p, r.stdout, r.stderr))

    def test_check_can_fail(self):
        # the namespace check is not a rubber stamp: an interface it lacks fails
        with tempfile.TemporaryDirectory(prefix="vipd-config-") as d:
            conf = os.path.join(d, "keepalived.conf")
            with open(conf, "w") as f:
                f.write("vrrp_instance VI_1 {\n  interface eth9\n  virtual_router_id 1\n"
                        "  virtual_ipaddress {\n    198.18.0.1\n  }\n}\n")
            r = keepalived_check(conf)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("eth9", r.stdout + r.stderr)


def main():
    vipd_why, keepalived_why = vipd_missing(), keepalived_missing()
    if vipd_why and keepalived_why:
        print("SKIP: %s; %s" % (vipd_why, keepalived_why))
        return 77
    for why in (vipd_why, keepalived_why):
        if why:
            print("SKIP (part): %s" % why)
    prog = unittest.main(exit=False, verbosity=2)
    return 0 if prog.result.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main())
