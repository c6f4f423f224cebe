#!/usr/bin/env python3
"""`cpha install`: one host's files put in place from `cpha pki` and
`cpha render`, as an operator runs it on the host.

For every host of the sample (tests/samples/cluster.yaml: Pacemaker on
three masters, lbd + vipd on two LB hosts) and of the systemd fixture
(tests/fixtures/cpha/systemd.yaml: the LB on the masters, two hosts that run
only etcd, etcd.data_dir /srv/etcd), `cpha install --root ROOT/HOST`:
- --dry-run prints one line per file and writes nothing; its lines are the
  rows of the table in docs/runbook.md that the host's roles select;
- the install makes every rendered file of the host with the same bytes and
  mode, each PKI file with the same bytes and the table's mode, the
  description, and the etcd data directory (0700) on etcd members;
  `cpha check --root` then finds the host as rendered;
- a second run changes nothing and says "unchanged"; a mode changed by hand
  is put back; the missing fence secrets are named until they are written;
- refusals, with nothing written: an unknown host, a missing PKI file, a
  directory of the root that is a symbolic link out of it, a destination
  that is a symbolic link; front-proxy files are optional (a warning while
  absent, installed once present); a file in OUT/HOST that render does not
  make is not installed.
Render runs with --no-check here: the checkers are test_cpha_render_checkers'
subject, and this test needs only the files.

Exit 0 pass, 77 skip (cpha not built, or pcs missing for the sample's
cib.xml), else fail.
    python3 tests/integration/test_cpha_install.py [-v] [-k NAME]
"""

import filecmp
import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))

from cphatest import util  # noqa: E402

BUILD = os.environ.get("CPHA_BUILD_DIR", os.path.join(REPO, "build"))
CPHA = os.path.join(BUILD, "control-plane", "cpha")
SAMPLE = os.path.join(REPO, "tests", "samples", "cluster.yaml")
SYSTEMD = os.path.join(REPO, "tests", "fixtures", "cpha", "systemd.yaml")
RUNBOOK = os.path.join(REPO, "docs", "runbook.md")

# host -> what the table's "on" column selects for it
SAMPLE_HOSTS = {"kubem00": "master", "kubem01": "master", "kubem02": "master",
                "lb00": "lb", "lb01": "lb"}
SYSTEMD_HOSTS = {"m1": "master", "m2": "master", "m3": "master", "e4": "etcd", "e5": "etcd"}


def cpha(*args, check=True):
    r = subprocess.run([CPHA] + list(args), capture_output=True, text=True, timeout=300,
                       stdin=subprocess.DEVNULL,
                       env=util.clean_env({"PATH": "/usr/sbin:/usr/bin:/sbin:/bin"}))
    if check and r.returncode != 0:
        raise AssertionError("cpha %s: exit %d\n%s%s" % (" ".join(args), r.returncode,
                                                         r.stdout, r.stderr))
    return r


def runbook_rows():
    """(source, dest, mode, on) of the table in docs/runbook.md."""
    with open(RUNBOOK) as f:
        text = f.read()
    table = text.split("<!-- cpha install table: begin -->")[1].split(
        "<!-- cpha install table: end -->")[0]
    rows = []
    for line in table.strip().splitlines()[2:]:
        cells = [c.strip() for c in line.strip("|").split("|")]
        m = re.match(r"`PKIDIR/(.+)`", cells[0])
        dest = re.match(r"`([^`]+)`", cells[1]).group(1)
        rows.append((m.group(1) if m else cells[0], dest, int(cells[2], 8), cells[3]))
    return rows


# The table's "on" groups each kind of host of the fixtures is in (their
# masters are the etcd members).
GROUPS = {"master": {"masters", "etcd members", "corosync members"},
          "lb": {"corosync members"},
          "etcd": {"etcd members"}}


def selects(on, kind):
    """Whether a table row's "on" column takes a host of this kind."""
    groups = {g.strip() for g in on.split("(")[0].split(",")}
    return "every host" in groups or bool(groups & GROUPS[kind])


def mode_of(path):
    return stat.S_IMODE(os.lstat(path).st_mode)


def files_under(d):
    out = []
    for dirpath, _, names in os.walk(d):
        for n in names:
            out.append(os.path.join(dirpath, n))
    return sorted(out)


class Install(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="cpha-install-")
        cls.sets = {}
        for name, desc in (("sample", SAMPLE), ("systemd", SYSTEMD)):
            d = os.path.join(cls.tmp, name)
            os.makedirs(d)
            util.step("%s: cpha pki, cpha render --no-check" % name)
            cpha("-f", desc, "pki", "--dir", os.path.join(d, "pki"))
            cpha("-f", desc, "render", "--no-check", "--out", os.path.join(d, "out"))
            cls.sets[name] = (desc, os.path.join(d, "pki"), os.path.join(d, "out"))

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def root(self, name):
        r = tempfile.mkdtemp(prefix="root-%s-" % name, dir=self.tmp)
        return r

    def install(self, which, host, root, *extra, check=True, pki=None):
        desc, pkidir, out = self.sets[which]
        return cpha("-f", desc, "install", "--host", host, "--render", out,
                    "--pki", pki or pkidir, "--root", root, *extra, check=check)

    def check_host(self, which, host, kind, rows):
        desc, pki, out = self.sets[which]
        root = self.root(host)
        data_dir = "/srv/etcd" if which == "systemd" else "/var/lib/etcd"

        util.step("%s/%s: --dry-run writes nothing, prints the table's rows" % (which, host))
        r = self.install(which, host, root, "--dry-run")
        self.assertEqual(os.listdir(root), [], "a dry run wrote under the root")
        lines = r.stdout.splitlines()
        for src, dest, mode, on in rows:
            if dest == "/var/lib/etcd":
                dest = data_dir
            if not src.startswith("(") and not src.startswith("the "):
                line = "install -m %04o %s %s" % (mode, os.path.join(pki, src), root + dest)
                present = os.path.exists(os.path.join(pki, src))
                if selects(on, kind) and present:
                    self.assertIn(line, lines, r.stdout)
                elif selects(on, kind):
                    self.assertIn("(skipped with a warning", on)
                    self.assertIn("%s: missing" % os.path.join(pki, src), r.stderr)
                else:
                    self.assertNotIn(root + dest, r.stdout)
            elif src.startswith("(directory)"):
                line = "install -d -m %04o %s" % (mode, root + dest)
                self.assertEqual(line in lines, selects(on, kind), r.stdout)
            else:
                self.assertIn("install -m %04o %s %s" % (mode, desc, root + dest), lines)
        hostdir = os.path.join(out, host)
        for p in files_under(hostdir):
            dest = p[len(hostdir):]
            self.assertIn("install -m %04o %s %s" % (mode_of(p), p, root + dest), lines)

        util.step("%s/%s: install" % (which, host))
        r = self.install(which, host, root)
        for p in files_under(hostdir):
            got = root + p[len(hostdir):]
            self.assertTrue(filecmp.cmp(p, got, shallow=False), got)
            self.assertEqual(mode_of(got), mode_of(p), got)
            self.assertTrue(stat.S_ISREG(os.lstat(got).st_mode))
        for src, dest, mode, on in rows:
            if not selects(on, kind):
                if not dest.startswith("/var/log") and not dest.startswith("/etc/cpha"):
                    self.assertFalse(os.path.exists(root + dest), dest)
                continue
            if dest == "/var/lib/etcd":
                dest = data_dir
            got = root + dest
            if src.startswith("(directory)"):
                self.assertTrue(os.path.isdir(got), got)
            elif src.startswith("the "):
                self.assertTrue(filecmp.cmp(desc, got, shallow=False))
            elif os.path.exists(os.path.join(pki, src)):
                self.assertTrue(filecmp.cmp(os.path.join(pki, src), got, shallow=False), got)
            else:
                self.assertFalse(os.path.exists(got), got)
                continue
            self.assertEqual(mode_of(got), mode, got)
        if kind == "lb":
            self.assertFalse(os.path.exists(root + "/etc/kubernetes"))
        if kind in ("master", "lb"):
            self.assertEqual(mode_of(root + "/etc/corosync/authkey"), 0o400)
        else:
            self.assertFalse(os.path.exists(root + "/etc/corosync"))
        self.assertEqual(os.path.isdir(root + data_dir), kind != "lb")
        # parents made 0755
        for d in ("/etc", "/etc/cpha", "/var/log/cpha"):
            self.assertEqual(mode_of(root + d), 0o755, d)

        util.step("%s/%s: a second run changes nothing" % (which, host))
        r = self.install(which, host, root)
        self.assertNotIn("install ", r.stdout)
        self.assertNotIn("chmod ", r.stdout)
        self.assertIn("%s: 0 changed" % host, r.stdout)
        self.assertTrue(all(line.startswith("unchanged ") for line in r.stdout.splitlines()[:-1]),
                        r.stdout)
        return root, r

    def test_sample_hosts(self):
        rows = runbook_rows()
        self.assertGreater(len(rows), 20)
        for host, kind in SAMPLE_HOSTS.items():
            root, r = self.check_host("sample", host, kind, rows)
            # the fence secrets this host's configuration reads
            want = (["ipmi-kubem00", "ipmi-kubem01", "ipmi-kubem02"] if kind == "master"
                    else ["ipmi-lb00", "ipmi-lb01"])
            for n in want:
                self.assertIn(root + "/etc/cpha/secrets/" + n, r.stderr)
            self.assertNotIn("ipmi-lb" if kind == "master" else "ipmi-kubem", r.stderr)
            os.makedirs(root + "/etc/cpha/secrets")
            for n in want:
                with open(root + "/etc/cpha/secrets/" + n, "w") as f:
                    f.write("secret\n")
                os.chmod(root + "/etc/cpha/secrets/" + n, 0o600)
            r = self.install("sample", host, root)
            self.assertNotIn("secret", r.stderr)
        util.step("sample: cpha check --root finds kubem00 and lb00 as rendered")
        for host in ("kubem00", "lb00"):
            root = self.root("check-" + host)
            self.install("sample", host, root)
            r = cpha("-f", SAMPLE, "check", "--host", host, "--root", root, check=False)
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            self.assertIn("%s: ok" % host, r.stdout)

    def test_systemd_hosts(self):
        rows = runbook_rows()
        for host, kind in SYSTEMD_HOSTS.items():
            root, r = self.check_host("systemd", host, kind, rows)
            if kind == "etcd":
                names = [os.path.relpath(p, root) for p in files_under(root)]
                self.assertEqual(sorted(names), sorted([
                    "etc/cpha/cluster.yaml", "etc/etcd/pki/ca.pem",
                    "etc/etcd/pki/etcd-server.pem", "etc/etcd/pki/etcd-server-key.pem",
                    "etc/systemd/system/etcd.service"]))

    def test_mode_put_back(self):
        root = self.root("mode")
        self.install("systemd", "m1", root)
        key = root + "/etc/kubernetes/pki/apiserver-key.pem"
        os.chmod(key, 0o644)
        os.chmod(root + "/srv/etcd", 0o755)
        r = self.install("systemd", "m1", root)
        self.assertIn("chmod 0600 %s" % key, r.stdout)
        self.assertIn("chmod 0700 %s" % (root + "/srv/etcd"), r.stdout)
        self.assertEqual(mode_of(key), 0o600)
        self.assertEqual(mode_of(root + "/srv/etcd"), 0o700)
        # content changed by hand: written again, whole
        with open(root + "/etc/kubernetes/admin.conf", "a") as f:
            f.write("# edited\n")
        r = self.install("systemd", "m1", root)
        self.assertIn("install -m 0600 %s %s" % (
            os.path.join(self.sets["systemd"][2], "m1", "etc/kubernetes/admin.conf"),
            root + "/etc/kubernetes/admin.conf"), r.stdout)
        # no temporary file (.NAME.XXXXXX) left beside it
        self.assertEqual([n for n in os.listdir(root + "/etc/kubernetes")
                          if n.startswith(".")], [])

    def test_refusals(self):
        desc, pki, out = self.sets["systemd"]
        util.step("refusals: unknown host, missing source, links out of the root")
        root = self.root("refuse")
        r = self.install("systemd", "nosuch", root, check=False)
        self.assertEqual(r.returncode, 1)
        self.assertIn("no host 'nosuch'", r.stderr)

        r = cpha("-f", desc, "install", "--host", "m1", "--render", out, "--root", root,
                 check=False)
        self.assertEqual(r.returncode, 64, r.stderr)

        broken = os.path.join(self.tmp, "pki-broken")
        shutil.copytree(pki, broken)
        os.unlink(os.path.join(broken, "etcd-client.pem"))
        r = self.install("systemd", "m1", root, pki=broken, check=False)
        self.assertEqual(r.returncode, 1)
        self.assertIn("%s: missing" % os.path.join(broken, "etcd-client.pem"), r.stderr)
        self.assertIn("/etc/etcd/pki/etcd-client.pem", r.stderr)
        self.assertIn("nothing was written", r.stderr)
        self.assertEqual(os.listdir(root), [])
        # the etcd-only host needs no client certificate: fine without it
        self.install("systemd", "e4", self.root("e4-broken"), pki=broken)

        outside = os.path.join(self.tmp, "outside")
        os.makedirs(outside)
        os.symlink(outside, os.path.join(root, "etc"))
        r = self.install("systemd", "m1", root, check=False)
        self.assertEqual(r.returncode, 1)
        self.assertIn("a symbolic link to %s, out of the root" % outside, r.stderr)
        self.assertEqual(os.listdir(outside), [])
        self.assertFalse(os.path.exists(os.path.join(root, "var")))
        os.unlink(os.path.join(root, "etc"))

        # a link inside the root is followed; a link as the file is refused
        os.makedirs(os.path.join(root, "data", "etcd"))
        os.makedirs(os.path.join(root, "etc", "kubernetes"))
        os.makedirs(os.path.join(root, "srv"))
        os.symlink("../data/etcd", os.path.join(root, "srv", "etcd"))
        os.symlink(outside + "/admin.conf", os.path.join(root, "etc/kubernetes/admin.conf"))
        r = self.install("systemd", "m1", root, check=False)
        self.assertEqual(r.returncode, 1)
        self.assertIn("admin.conf: a symbolic link", r.stderr)
        self.assertEqual(os.listdir(outside), [])
        os.unlink(os.path.join(root, "etc/kubernetes/admin.conf"))
        r = self.install("systemd", "m1", root)
        self.assertEqual(mode_of(os.path.join(root, "data", "etcd")), 0o700)

    def test_front_proxy_and_strays(self):
        desc, pki, out = self.sets["systemd"]
        fp = os.path.join(self.tmp, "pki-front-proxy")
        shutil.copytree(pki, fp)
        names = ["front-proxy-ca.pem", "front-proxy-client.pem", "front-proxy-client-key.pem"]
        root = self.root("fp")
        # a PKI directory from before the front-proxy CA: refused, naming
        # the file and how to make it; nothing written
        os.unlink(os.path.join(fp, "front-proxy-client.pem"))
        r = self.install("systemd", "m2", root, pki=fp, check=False)
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("front-proxy-client.pem", r.stderr)
        self.assertFalse(os.path.exists(root + "/etc/kubernetes/pki/" + names[0]))
        shutil.copy2(os.path.join(pki, "front-proxy-client.pem"), fp)
        r = self.install("systemd", "m2", root, pki=fp)
        for n in names:
            got = root + "/etc/kubernetes/pki/" + n
            self.assertTrue(filecmp.cmp(os.path.join(fp, n), got, shallow=False))
            self.assertEqual(mode_of(got), 0o600 if "key" in n else 0o644)
        # nothing on a host signs with the front-proxy CA: its key stays
        self.assertFalse(os.path.exists(root + "/etc/kubernetes/pki/front-proxy-ca-key.pem"))

        util.step("a file in OUT/HOST that render does not make is not installed")
        stray_out = os.path.join(self.tmp, "out-stray")
        shutil.copytree(out, stray_out)
        os.makedirs(os.path.join(stray_out, "m3", "etc", "lbd"))
        with open(os.path.join(stray_out, "m3", "etc", "lbd", "lbd.cfg"), "w") as f:
            f.write("stale\n")
        root = self.root("stray")
        r = cpha("-f", desc, "install", "--host", "m3", "--render", stray_out, "--pki", pki,
                 "--root", root)
        self.assertIn("etc/lbd/lbd.cfg: not a file that", r.stderr)
        self.assertFalse(os.path.exists(root + "/etc/lbd"))


def skip_reason():
    if not os.access(CPHA, os.X_OK):
        return "%s is not built" % CPHA
    if not shutil.which("pcs", path="/usr/sbin:/usr/bin"):
        return "pcs is not installed (render makes the sample's cib.xml with it)"
    return None


if __name__ == "__main__":
    reason = skip_reason()
    if reason:
        print("SKIP: %s" % reason, flush=True)
        sys.exit(util.SKIP)
    sys.exit(util.run_tests())
