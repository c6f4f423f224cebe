#!/usr/bin/env python3
"""docs/migrate.md's commands work with the binaries of this build.

- The guide's example description (its yaml block) plans, and renders
  for each load-balancer host with --host: exactly lbd.cfg, vipd.conf,
  corosync.conf and fenced.conf under that host's directory (and the
  cluster-wide admin.conf), nothing for a master. When lbd, vipd and
  fenced are built, the render runs their checkers.
- Every `cpha ...` line of the guide's code blocks is accepted by cpha's
  parser: the same line with --help added exits 0 (an unknown option
  exits 64 before --help is read).
- Every `lbd -c`, `vipd -c` and `fenced -c` line runs and exits 0 on a
  file of its kind: public control-plane files from tests/lbd-configs and
  tests/vipd-configs for the first two, the rendered fenced.conf and
  corosync.conf of lb1 for the third.
Usage: check-migrate.py BUILD_DIR. Exit 0 pass, 1 fail, 77 skip (cpha not
built).
"""

import os
import re
import shlex
import subprocess
import sys
import tempfile

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
GUIDE = os.path.join(ROOT, "docs", "migrate.md")
LBD_FILE = os.path.join(ROOT, "tests", "lbd-configs", "real", "kubeadm-ha-2026.cfg")
VIPD_FILE = os.path.join(ROOT, "tests", "vipd-configs", "real", "kubeadm-ha-considerations.conf")
LB_FILES = ["etc/corosync/corosync.conf", "etc/fenced/fenced.conf", "etc/lbd/lbd.cfg",
            "etc/vipd/vipd.conf"]

failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL " + msg, flush=True)


def tree(d):
    out = []
    for root, _, files in os.walk(d):
        out += [os.path.relpath(os.path.join(root, f), d) for f in files]
    return sorted(out)


def blocks(text):
    """(language, body) of every fenced code block."""
    return re.findall(r"^```(\w*)\n(.*?)^```", text, re.M | re.S)


def main():
    build = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build"))
    cpha = os.path.join(build, "control-plane", "cpha")
    if not os.access(cpha, os.X_OK):
        print("SKIP: %s not built" % cpha)
        return 77
    daemons = {n: os.path.join(build, n, n) for n in ("lbd", "vipd", "fenced")}
    built = all(os.access(p, os.X_OK) for p in daemons.values())
    with open(GUIDE) as f:
        text = f.read()
    code = blocks(text)
    yamls = [b for lang, b in code if lang == "yaml"]
    if len(yamls) != 1:
        fail("docs/migrate.md: %d yaml blocks, want the one example" % len(yamls))
        return 1
    lines = [ln.strip() for lang, b in code if lang != "yaml" for ln in b.splitlines()]
    lines = [ln for ln in lines if ln and not ln.startswith("#")]

    with tempfile.TemporaryDirectory(prefix="cpha-migrate-") as tmp:
        desc = os.path.join(tmp, "lb-tier.yaml")
        with open(desc, "w") as f:
            f.write(yamls[0])
        env = dict(os.environ)
        if built:
            env["PATH"] = os.pathsep.join(
                [os.path.dirname(p) for p in daemons.values()] + [env.get("PATH", "")])
        r = subprocess.run([cpha, "-f", desc, "plan"], capture_output=True, text=True)
        if r.returncode != 0:
            fail("cpha plan on the guide's description: exit %d\n%s" % (r.returncode,
                                                                         r.stderr))
        out = os.path.join(tmp, "render")
        hosts = re.findall(r"^  - name: (lb\d)$", yamls[0], re.M)
        if hosts != ["lb1", "lb2"]:
            fail("the guide's load_balancers: %s, want lb1 lb2" % hosts)
        for h in hosts:
            argv = [cpha, "-f", desc, "render", "--host", h, "--out", out]
            if not built:
                argv.append("--no-check")
            r = subprocess.run(argv, capture_output=True, text=True, env=env)
            if r.returncode != 0:
                fail("%s: exit %d\n%s" % (" ".join(argv[1:]), r.returncode, r.stderr))
        want = sorted(["cluster/admin.conf"] + ["%s/%s" % (h, f) for h in hosts
                                                for f in LB_FILES])
        if tree(out) != want:
            fail("render --host lb1, lb2: %s, want %s" % (tree(out), want))

        for ln in lines:
            words = shlex.split(ln)
            if words[0] == "cpha":
                r = subprocess.run([cpha] + words[1:] + ["--help"], capture_output=True,
                                   text=True, cwd=tmp)
                if r.returncode != 0 or "usage: cpha" not in r.stdout:
                    fail("%r: cpha does not take it (exit %d)\n%s" % (ln, r.returncode,
                                                                     r.stderr))
                continue
            if words[0] not in daemons or "-c" not in words:
                continue
            if not built:
                print("not checked (%s not built): %s" % (words[0], ln))
                continue
            subst = {"lbd": {"-f": LBD_FILE}, "vipd": {"-f": VIPD_FILE},
                     "fenced": {"-f": os.path.join(out, "lb1", "etc/fenced/fenced.conf"),
                                "-C": os.path.join(out, "lb1",
                                                   "etc/corosync/corosync.conf")}}[words[0]]
            argv = [daemons[words[0]]]
            for i, w in enumerate(words[1:], 1):
                argv.append(subst.get(words[i - 1], w))
            r = subprocess.run(argv, capture_output=True, text=True)
            if r.returncode != 0:
                fail("%r as %s: exit %d\n%s%s" % (ln, " ".join(argv), r.returncode, r.stdout,
                                                  r.stderr))
            else:
                print("ok: %s" % ln)
    seen = {shlex.split(ln)[0] for ln in lines}
    for need in ("cpha", "lbd", "vipd", "fenced"):
        if need not in seen:
            fail("docs/migrate.md runs no %s command: has the guide changed?" % need)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
