"""Small helpers shared by the cpha integration tests (standard library only)."""

import os
import shutil
import socket
import subprocess
import sys
import time
import unittest

from cphalab import netns
from cphalab.netns import pid_alive  # noqa: F401  (the tests' name for it)

SKIP = 77  # ctest's SKIP_RETURN_CODE for the integration tests

# Variables that would make curl, urllib or etcd send traffic somewhere else
# (a proxy) or change etcd's configuration behind the test's back.
_SCRUB_PREFIXES = ("ETCD_", "ETCDCTL_")
_SCRUB_NAMES = {"http_proxy", "https_proxy", "all_proxy", "no_proxy",
                "ftp_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY",
                "NO_PROXY", "FTP_PROXY", "CURL_HOME", "SSLKEYLOGFILE"}

_t0 = time.monotonic()


def check(cond, msg):
    """Fail the test with msg unless cond."""
    if not cond:
        raise AssertionError(msg)


def step(msg):
    """Print one progress line (with seconds since start) and flush."""
    print("[%6.2fs] %s" % (time.monotonic() - _t0, msg), flush=True)


def clean_env(extra=None):
    """The current environment without proxy and ETCD_* variables."""
    env = {k: v for k, v in os.environ.items()
           if k not in _SCRUB_NAMES and not k.startswith(_SCRUB_PREFIXES)}
    if extra:
        env.update(extra)
    return env


def repo_root():
    """Root of the source tree (the directory that holds tests/)."""
    here = os.path.dirname(os.path.abspath(__file__))
    return os.path.normpath(os.path.join(here, "..", "..", ".."))


def build_dir():
    """The build tree: $CPHA_BUILD_DIR, else build/ in the source tree."""
    return os.environ.get("CPHA_BUILD_DIR") or os.path.join(repo_root(), "build")


def built(*parts):
    """A file of the build tree: built("lbd", "lbd") is build/lbd/lbd."""
    return os.path.join(build_dir(), *parts)


def fixture_path(name):
    """Path of a kube-* stand-in (e.g. "kube-apiserver"): the lab's
    simulators, control-plane/lab/simulators.

    $CPHA_FIXTURE_DIR points elsewhere (e.g. at a deliberately broken copy,
    to check that the tests notice)."""
    d = os.environ.get("CPHA_FIXTURE_DIR") or os.path.join(repo_root(), "control-plane",
                                                            "lab", "simulators")
    path = os.path.join(d, name)
    if not os.access(path, os.X_OK):
        raise FileNotFoundError("fixture %s is missing or not executable" % path)
    return path


def root_skip_reason():
    """None when the namespace test bed can run here, else why not."""
    if os.geteuid() != 0:
        return "integration tests need root (network namespaces)"
    for tool in ("ip", "openssl", "curl"):
        if shutil.which(tool) is None:
            return "%s not installed" % tool
    try:
        r = subprocess.run(["ip", "netns", "list"], capture_output=True,
                           text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired) as e:
        return "ip netns unusable: %s" % e
    if r.returncode != 0:
        return "ip netns unusable: %s" % r.stderr.strip()
    return None


def require_root(tools=()):
    """Exit 77 (ctest skip) with "SKIP: reason" when the test bed cannot run."""
    reason = root_skip_reason()
    if reason is None:
        for tool in tools:
            if shutil.which(tool) is None:
                reason = "%s not installed" % tool
                break
    if reason is not None:
        print("SKIP: %s" % reason, flush=True)
        sys.exit(SKIP)


def wait_until(fn, timeout, interval=0.1, what="condition"):
    """Call fn() until it returns a true value, at most `timeout` seconds.

    Returns that value. Exceptions from fn but AssertionError count as "not
    yet"; the last one is named in the AssertionError raised on timeout.
    """
    return netns.wait_until(fn, timeout, interval, what, error=AssertionError,
                            retry=Exception)


def tail(path, lines=40):
    """Last `lines` lines of a text file ('' if unreadable)."""
    try:
        with open(path, "rb") as f:
            f.seek(0, os.SEEK_END)
            size = f.tell()
            f.seek(max(0, size - 256 * 1024))
            data = f.read().decode("utf-8", "replace")
    except OSError:
        return ""
    return "\n".join(data.splitlines()[-lines:])


def skip(reason):
    """Print "SKIP: reason" and return SKIP, for main() to return."""
    print("SKIP: %s" % reason, flush=True)
    return SKIP


def run_tests():
    """Run the test script's unittest cases, verbose; 0 when all passed, else 1."""
    prog = unittest.main(exit=False, verbosity=2)
    return 0 if prog.result.wasSuccessful() else 1


def wait_log(proc, needle, timeout):
    """Wait until proc's log holds needle (a str or a compiled regex);
    fail early if proc exits. proc has log_text(), running(), poll() and
    log_path (hosts.Proc and the daemon wrappers)."""
    def seen():
        text = proc.log_text()
        if (needle.search(text) if hasattr(needle, "search") else needle in text):
            return True
        if not proc.running():
            raise AssertionError("%r exited (%s) before logging %r:\n%s" % (
                proc, proc.poll(), needle, tail(proc.log_path, 30)))
        return False
    wait_until(seen, timeout, 0.02, "%r to log %r" % (proc, needle))


def recv_all(s):
    """All that s sends until it closes its side, as bytes."""
    out = []
    while True:
        c = s.recv(65536)
        if not c:
            break
        out.append(c)
    return b"".join(out)


def unix_request(path, command, timeout=5.0):
    """One command line on a fresh connection to the unix stream socket path
    (an admin socket); the whole reply, as text."""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(timeout)
    try:
        s.connect(path)
        s.sendall(command.encode() + b"\n")
        return recv_all(s).decode(errors="replace")
    finally:
        s.close()


def proc_status(pid):
    """/proc/PID/status as {field: [words]}."""
    out = {}
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            k, _, v = line.partition(":")
            out[k] = v.split()
    return out


def rss(pid):
    """Resident set size of pid in bytes (VmRSS)."""
    st = proc_status(pid)
    if "VmRSS" not in st:
        raise AssertionError("no VmRSS for %d" % pid)
    return int(st["VmRSS"][0]) * 1024


def unit_caps(unit, drop=()):
    """setpriv's --bounding-set argument for the CapabilityBoundingSet= of
    etc/systemd/UNIT (less the capabilities in drop, e.g. "CAP_DAC_OVERRIDE"):
    a daemon started under it has exactly what its unit would give it."""
    caps = []
    with open(os.path.join(repo_root(), "etc", "systemd", unit)) as f:
        for line in f:
            if line.startswith("CapabilityBoundingSet="):
                caps = line.split("=", 1)[1].split()
    return ",".join(["-all"] + ["+" + c[4:].lower() for c in caps
                                if c.startswith("CAP_") and c not in drop])
