"""The cpha command in tests: run it, and use what it renders in lab hosts.

Lab hosts are network namespaces that share the test machine's file system,
so a host's rendered files are installed under a root directory of their own
(ROOT/etc/etcd/pki/..., as `cpha check --root` reads them), and the flags of
a rendered unit are used with every absolute path moved under that root
(rebase()). Nothing else in a flag is changed.
"""

import os
import re
import shlex
import subprocess

from . import util

# Path prefixes a rendered file refers to that rebase() moves under a root.
ROOTED = ("/etc/", "/var/lib/", "/run/", "/var/run/", "/var/log/")


build_dir = util.build_dir


def binary():
    """build/control-plane/cpha."""
    return os.path.join(build_dir(), "control-plane", "cpha")


def checker_env():
    """An environment whose PATH finds this build's lbd, vipd and fenced
    first (render runs them as checkers), then the system's tools."""
    b = build_dir()
    env = dict(os.environ)
    env["PATH"] = ":".join([os.path.join(b, "lbd"), os.path.join(b, "vipd"),
                            os.path.join(b, "fenced"), "/usr/local/sbin",
                            "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin"])
    return env


def run(args, check=True, timeout=300):
    """cpha ARGS with checker_env(); returns CompletedProcess (text)."""
    r = subprocess.run([binary()] + list(args), capture_output=True, text=True,
                       env=checker_env(), timeout=timeout, stdin=subprocess.DEVNULL)
    if check and r.returncode != 0:
        raise AssertionError("cpha %s: exit %d\n%s%s" % (" ".join(args), r.returncode,
                                                         r.stdout, r.stderr))
    return r


def exec_start(unit_text):
    """argv of a systemd unit's ExecStart= (continuation lines joined)."""
    joined = unit_text.replace("\\\n", " ")
    for line in joined.splitlines():
        line = line.strip()
        if line.startswith("ExecStart="):
            return shlex.split(line[len("ExecStart="):])
    raise AssertionError("no ExecStart= in unit")


def env_args(env_text, var):
    """The words of VAR="..." in an environment file."""
    for line in env_text.splitlines():
        if line.startswith(var + "="):
            return shlex.split(shlex.split(line[len(var) + 1:])[0])
    raise AssertionError("no %s= in environment file" % var)


def _rebase_word(w, root):
    if w.startswith(ROOTED):
        return root + w
    return w


def rebase(argv, root):
    """argv with every absolute path under /etc, /var/lib, /run, /var/log
    moved under root: "--x=/etc/a" and "/etc/a,/etc/b" forms too."""
    out = []
    for a in argv:
        if a.startswith("--") and "=" in a:
            k, v = a.split("=", 1)
            out.append(k + "=" + ",".join(_rebase_word(p, root) for p in v.split(",")))
        else:
            out.append(_rebase_word(a, root))
    return out


def rebase_text(text, root):
    """A rendered text (a kubeconfig) with the same paths moved under root."""
    pat = r"(?<=[\s:=,\"'])(%s)" % "|".join(re.escape(p) for p in ROOTED)
    return re.sub(pat, lambda m: root + m.group(1), text)


def install(desc, render_dir, pki_dir, host, root):
    """A host's files, certificates and keys under root, as `cpha install`
    places them on a real host (docs/deploy.md, step 3)."""
    return run(["-f", desc, "install", "--host", host, "--render", render_dir, "--pki", pki_dir,
                "--root", root])
