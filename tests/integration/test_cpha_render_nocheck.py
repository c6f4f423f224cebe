#!/usr/bin/env python3
"""`cpha render --no-check` on a machine without Pacemaker's tools.

cib.xml is made by running pcs -f on an empty CIB from cibadmin, so a
machine without them (an operator's laptop, an LB host) cannot make it.
Here cpha runs with PATH set to an empty directory and, in a private
mount namespace, the Pacemaker tools in the directories cpha also
searches (/usr/sbin, /sbin) hidden behind an empty non-executable file
(nothing outside the namespace changes):
- with --no-check and the sample description (Pacemaker on the masters),
  render exits 0, writes every other file, with the same bytes as a
  render on this machine with the tools, and says on stderr
  "note: cluster/cib.xml not written: cibadmin not found (install
  pacemaker-cli-utils to make it)"; with only pcs hidden the note names
  pcs and its package;
- without --no-check the missing tool stays an error: exit 1, the same
  reason, nothing written;
- a description without Pacemaker (five-haproxy.yaml) renders with no note;
- `cpha check` of a master runs none of them even where they are
  installed (it compares the host's own files; cib.xml is cluster-wide);
- `cpha check` of a load-balancer host needs none of those tools (it
  compares the host's own files): the rendered lb00 is "ok".

Root (for the mount namespace) unless none of the tools is installed;
exit 0 pass, 77 skip, else fail.
    sudo python3 tests/integration/test_cpha_render_nocheck.py [-v]
"""

import filecmp
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.dont_write_bytecode = True

from cphatest import util  # noqa: E402

CPHA = util.built("control-plane", "cpha")
SAMPLE = os.path.join(util.repo_root(), "tests", "samples", "cluster.yaml")
FIVE = os.path.join(util.repo_root(), "tests", "fixtures", "cpha", "five-haproxy.yaml")
# what cpha runs for cib.xml (cibadmin, pcs, crm_resource) and to check it
PCMK_TOOLS = ("cibadmin", "pcs", "crm_verify", "crm_resource")
SBIN = "/usr/sbin:/usr/bin:/sbin:/bin"
NOTE = ("cpha render: note: cluster/cib.xml not written: cibadmin not found "
        "(install pacemaker-cli-utils to make it)\n")


def installed(tools):
    """Real paths of the tools that cpha would find (PATH, /usr/sbin, /sbin)."""
    out = set()
    for t in tools:
        for d in (os.environ.get("PATH", "") + ":" + SBIN).split(":"):
            p = os.path.join(d, t) if d else ""
            if p and os.access(p, os.X_OK):
                out.add(os.path.realpath(p))
    return sorted(out)


def tree(d):
    out = []
    for root, _, files in os.walk(d):
        out += [os.path.relpath(os.path.join(root, f), d) for f in files]
    return sorted(out)


class NoCheck(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="cpha-render-nocheck-%d-" % os.getpid())
        cls.empty = os.path.join(cls.tmp, "empty-path")
        os.mkdir(cls.empty)
        cls.blank = os.path.join(cls.tmp, "blank")
        with open(cls.blank, "w"):
            pass
        os.chmod(cls.blank, 0o644)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def render(self, desc, out, no_check=True, hide=PCMK_TOOLS):
        """cpha render with PATH an empty directory and hide's tools masked."""
        argv = [CPHA, "-f", desc, "render", "--out", out] + (["--no-check"] if no_check else [])
        masks = installed(hide)
        if masks:  # unshare, sh and mount by their paths: PATH has nothing
            mount = shutil.which("mount", path=SBIN)
            mounts = " && ".join("%s --bind %s %s" % (mount, self.blank, p) for p in masks)
            argv = [shutil.which("unshare", path=SBIN), "-m", "--propagation", "private",
                    shutil.which("sh", path=SBIN), "-c", '%s && exec "$@"' % mounts,
                    "sh"] + argv
        env = util.clean_env({"PATH": self.empty})
        return subprocess.run(argv, env=env, capture_output=True, text=True, timeout=300,
                              stdin=subprocess.DEVNULL)

    def test_sample_without_pacemaker_tools(self):
        util.step("render --no-check, no cibadmin/pcs/crm_verify: every file but cib.xml")
        out = os.path.join(self.tmp, "sample")
        r = self.render(SAMPLE, out)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn(NOTE, r.stderr)
        self.assertNotIn("is not installed", r.stderr)  # nothing was tried
        files = tree(out)
        self.assertNotIn("cluster/cib.xml", files)
        for f in ("cluster/pcs-commands.sh", "cluster/admin.conf", "lb00/etc/lbd/lbd.cfg",
                  "lb01/etc/vipd/vipd.conf", "kubem00/etc/corosync/corosync.conf",
                  "kubem02/etc/fenced/fenced.conf", "kubem01/etc/kubernetes/apiserver.env"):
            self.assertIn(f, files)
        listed = sorted(os.path.relpath(p, out) for p in r.stdout.split())
        self.assertEqual(listed, files)
        if not installed(("cibadmin", "pcs")):
            return
        util.step("the same files, same bytes, as a render with the tools")
        ref = os.path.join(self.tmp, "sample-ref")
        r = subprocess.run([CPHA, "-f", SAMPLE, "render", "--no-check", "--out", ref],
                           env=util.clean_env(), capture_output=True, text=True,
                           timeout=300, stdin=subprocess.DEVNULL)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertNotIn("note:", r.stderr)
        self.assertEqual(tree(ref), sorted(files + ["cluster/cib.xml"]))
        for f in files:
            self.assertTrue(filecmp.cmp(os.path.join(out, f), os.path.join(ref, f),
                                        shallow=False), f)

    def test_only_pcs_missing(self):
        if not installed(("cibadmin",)):
            self.skipTest("cibadmin not installed: the case of pcs alone missing")
        util.step("render --no-check, cibadmin there, pcs not: the note names pcs")
        out = os.path.join(self.tmp, "no-pcs")
        r = self.render(SAMPLE, out, hide=("pcs",))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("cpha render: note: cluster/cib.xml not written: pcs not found "
                      "(install pcs to make it)\n", r.stderr)
        self.assertNotIn("cluster/cib.xml", tree(out))

    def test_without_no_check_still_an_error(self):
        util.step("render without --no-check, no Pacemaker tools: an error, nothing written")
        out = os.path.join(self.tmp, "checked")
        r = self.render(SAMPLE, out, no_check=False)
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertIn("cluster:cib.xml: cibadmin not found (install pacemaker-cli-utils to "
                      "make it); --no-check writes the other files without it", r.stderr)
        self.assertNotIn("note:", r.stderr)
        self.assertEqual(tree(out) if os.path.isdir(out) else [], [])

    def test_check_without_pacemaker_tools(self):
        util.step("cpha check of an LB host, no Pacemaker tools: its files only, ok")
        out = os.path.join(self.tmp, "for-check")
        r = self.render(SAMPLE, out)
        self.assertEqual(r.returncode, 0, r.stderr)
        argv = [CPHA, "-f", SAMPLE, "check", "--host", "lb00", "--root",
                os.path.join(out, "lb00")]
        masks = installed(PCMK_TOOLS)
        if masks:
            mount = shutil.which("mount", path=SBIN)
            argv = [shutil.which("unshare", path=SBIN), "-m", "--propagation", "private",
                    shutil.which("sh", path=SBIN), "-c", " && ".join(
                        "%s --bind %s %s" % (mount, self.blank, p) for p in masks)
                    + ' && exec "$@"', "sh"] + argv
        r = subprocess.run(argv, env=util.clean_env({"PATH": self.empty}),
                           capture_output=True, text=True, timeout=120,
                           stdin=subprocess.DEVNULL)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("lb00: ok: 4 files as rendered", r.stdout)
        self.assertNotIn("cib.xml", r.stderr)

    def test_check_makes_no_cib(self):
        util.step("cpha check of a master, Pacemaker's tools there: none of them runs")
        out = os.path.join(self.tmp, "for-master-check")
        r = self.render(SAMPLE, out)
        self.assertEqual(r.returncode, 0, r.stderr)
        ran = os.path.join(self.tmp, "tools-ran")
        spy = os.path.join(self.tmp, "spy")
        with open(spy, "w") as f:
            f.write("#!/bin/sh\necho \"$0 $*\" >>%s\nexit 1\n" % ran)
        os.chmod(spy, 0o755)
        tools = installed(PCMK_TOOLS)
        if not tools or os.geteuid() != 0:
            self.skipTest("needs Pacemaker's tools installed and root (a mount namespace)")
        mount = shutil.which("mount", path=SBIN)
        argv = [shutil.which("unshare", path=SBIN), "-m", "--propagation", "private",
                shutil.which("sh", path=SBIN), "-c", " && ".join(
                    "%s --bind %s %s" % (mount, spy, p) for p in tools) + ' && exec "$@"',
                "sh", CPHA, "-f", SAMPLE, "check", "--host", "kubem00", "--root",
                os.path.join(out, "kubem00")]
        r = subprocess.run(argv, env=util.clean_env({"PATH": SBIN}), capture_output=True,
                           text=True, timeout=120, stdin=subprocess.DEVNULL)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("kubem00: ok:", r.stdout)
        self.assertFalse(os.path.exists(ran), "cpha check ran: %s" % (
            open(ran).read() if os.path.exists(ran) else ""))

    def test_no_pacemaker_no_note(self):
        util.step("a description without Pacemaker: no cib.xml to skip, no note")
        out = os.path.join(self.tmp, "five")
        r = self.render(FIVE, out)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertNotIn("note:", r.stderr)
        self.assertIn("kubem00/etc/haproxy/haproxy.cfg", tree(out))


if __name__ == "__main__":
    if not os.access(CPHA, os.X_OK):
        sys.exit(util.skip("%s not built (set CPHA_BUILD_DIR)" % CPHA))
    if installed(PCMK_TOOLS) and os.geteuid() != 0:
        sys.exit(util.skip("Pacemaker's tools are installed: hiding them needs a mount "
                           "namespace (root)"))
    sys.exit(util.run_tests())
