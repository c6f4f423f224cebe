"""Hosts made of network namespaces: what the lab and the integration tests
(tests/lib/cphatest) both build on.

A host is a network namespace with one interface, eth0, whose peer is a
veth on a bridge in the root namespace. Its processes are found by their
network namespace (/proc/PID/ns/net), never by name, and are signalled by
PID. A host with a "holder" (the long-lived process that owns the host's
mount namespace) is powered off by killing every other process of the
namespace, emptying the holder's /run and /dev/shm, then killing the rest.

Standard library only: the lab ships this file, the tests import it.
"""

import ctypes
import json
import os
import shlex
import shutil
import signal
import subprocess
import time

PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"


class LabError(RuntimeError):
    """A command, a wait or a kill of the namespace bed failed."""


def run(argv, check=True, timeout=60, input=None, env=None):
    """argv run to completion, its output captured as text; with check, a
    non-zero exit raises LabError with the end of its stderr."""
    r = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, input=input,
                       env=env)
    if check and r.returncode != 0:
        raise LabError("%s: exit %d: %s" % (" ".join(argv), r.returncode,
                                            (r.stderr or r.stdout).strip()[-2000:]))
    return r


def wait_until(fn, timeout, interval=0.2, what="condition", error=LabError, retry=()):
    """Call fn() until it returns a true value, at most timeout seconds, and
    return that value; else raise error("timed out after ..."). An
    exception of a class in retry counts as "not yet" (the last one is
    named in the error), one of class error always propagates."""
    deadline = time.monotonic() + timeout
    last_exc = None
    tries = 0
    max_tries = int(timeout / max(interval, 0.001)) + 2
    while tries < max_tries:
        tries += 1
        try:
            v = fn()
            if v:
                return v
            last_exc = None
        except error:
            raise
        except retry as e:
            last_exc = e
        if time.monotonic() >= deadline:
            break
        time.sleep(min(interval, max(0.0, deadline - time.monotonic())))
    detail = " (last error: %r)" % (last_exc,) if last_exc else ""
    raise error("timed out after %gs waiting for %s%s" % (timeout, what, detail))


def pid_alive(pid):
    """pid runs: it exists and is not a zombie (a killed process whose
    parent has not reaped it yet)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
    except (OSError, IndexError):
        return False


CLONE_NEWNET = 0x40000000


def enter(netns):
    """Move the calling thread (setns(2) changes only the thread) into the
    network namespace /run/netns/NETNS: sockets it opens from then on
    belong there, and work from any thread afterwards. For a thread of its
    own, never the main thread: the process stays in the root namespace."""
    libc = ctypes.CDLL(None, use_errno=True)
    fd = os.open("/run/netns/" + netns, os.O_RDONLY | os.O_CLOEXEC)
    try:
        if libc.setns(fd, CLONE_NEWNET) != 0:
            e = ctypes.get_errno()
            raise OSError(e, "setns %s: %s" % (netns, os.strerror(e)))
    finally:
        os.close(fd)


def ns_ident(path):
    """(st_dev, st_ino) of a namespace file (/run/netns/NAME, /proc/PID/ns/net)."""
    st = os.stat(path)
    return (st.st_dev, st.st_ino)


def pids_in(idents, exclude=()):
    """PIDs, this process's and those in exclude aside, whose network
    namespace is one of idents (a collection of ns_ident values)."""
    out = []
    me = os.getpid()
    for e in os.listdir("/proc"):
        if not e.isdigit() or int(e) == me or int(e) in exclude:
            continue
        try:
            if ns_ident("/proc/%s/ns/net" % e) in idents:
                out.append(int(e))
        except OSError:
            pass
    return out


def cmdline(pid):
    """pid's argv, or [] when it is gone."""
    try:
        with open("/proc/%d/cmdline" % pid, "rb") as f:
            return [a.decode(errors="replace") for a in f.read().split(b"\0") if a]
    except OSError:
        return []


def kill_pids(pids):
    """SIGKILL each of pids; returns those that were there to be killed."""
    killed = []
    for p in pids:
        try:
            os.kill(p, signal.SIGKILL)
            killed.append(p)
        except ProcessLookupError:
            pass
    return killed


def kill_all(ident, exclude=(), rounds=60):
    """SIGKILL every process of a namespace (by PID) until none is left;
    returns how many kills were sent."""
    n = 0
    for _ in range(rounds):
        pids = pids_in({ident}, exclude)
        if not pids:
            return n
        n += len(kill_pids(pids))
        time.sleep(0.05)
    raise LabError("processes left in a lab namespace: %s" % pids_in({ident}, exclude))


def wipe_run(holder):
    """Empty /run and /dev/shm of the holder's mount namespace (what a
    power loss takes: both are tmpfs)."""
    for d in ("/run", "/dev/shm"):
        root = "/proc/%d/root%s" % (holder, d)
        try:
            names = os.listdir(root)
        except OSError:
            continue
        for n in names:
            p = os.path.join(root, n)
            if os.path.isdir(p) and not os.path.islink(p):
                shutil.rmtree(p, ignore_errors=True)
            else:
                try:
                    os.unlink(p)
                except OSError:
                    pass


def power_off(ident, holder=0, before_wipe=None):
    """A host loses power: every process of its network namespace but the
    holder is killed, then (before_wipe() called first, when given) the
    holder's /run and /dev/shm are emptied, then the holder and anything
    left are killed. Returns how many kills were sent."""
    n = kill_all(ident, exclude=(holder,) if holder else ())
    if before_wipe:
        before_wipe()
    if holder and pid_alive(holder):
        wipe_run(holder)
    return n + kill_all(ident)


def make_host(netns, veth, bridge, v4=None, v6=None, addrgen=True, dad=True):
    """Network namespace netns with eth0 (v4, /24 unless it says; v6, /64
    unless it says; both optional), lo and eth0 up; eth0's peer veth on
    bridge, up. addrgen=False: the root namespace's veth gets no IPv6
    link-local address. dad=False: no IPv6 duplicate address detection in
    the namespace, so every IPv6 address there (the link-local one VRRP
    sends from, a VIP a daemon adds without nodad, as keepalived does)
    is usable at once, also after the link comes back."""
    run(["ip", "netns", "add", netns])
    if not dad:
        # before eth0 exists: it takes the namespace's default
        run(["ip", "netns", "exec", netns, "sysctl", "-q", "-w",
             "net.ipv6.conf.default.accept_dad=0", "net.ipv6.conf.all.accept_dad=0"])
    run(["ip", "link", "add", veth, "type", "veth", "peer", "name", "eth0", "netns", netns])
    if not addrgen:
        run(["ip", "link", "set", veth, "addrgenmode", "none"], check=False)
    run(["ip", "link", "set", veth, "master", bridge, "up"])
    ns = ["ip", "-n", netns]
    run(ns + ["link", "set", "lo", "up"])
    if v4:
        run(ns + ["addr", "add", v4 if "/" in v4 else v4 + "/24", "dev", "eth0"])
    if v6:
        run(ns + ["-6", "addr", "add", v6 if "/" in v6 else v6 + "/64", "dev", "eth0",
                  "nodad"])
    run(ns + ["link", "set", "eth0", "up"])


def holder_script(hostname, mounts, run_dirs=()):
    """The shell script of a host's holder, run in new mount and UTS
    namespaces: the host name, tmpfs on /run (with Pacemaker's directories
    and run_dirs) and /dev/shm, then mounts (shell lines); it says "holder
    ready" and sleeps for as long as the host is on."""
    return "\n".join([
        "set -e",
        "hostname %s" % shlex.quote(hostname),
        "mount -t tmpfs -o mode=0755 cpha-run /run",
        "mkdir -p " + " ".join(["/run/crm", "/run/resource-agents", "/run/lock"]
                               + list(run_dirs)),
        "chown hacluster:haclient /run/crm 2>/dev/null || true",
        "chmod 0750 /run/crm; chmod 1755 /run/resource-agents",
        "mount -t tmpfs -o mode=1777 cpha-shm /dev/shm",
    ] + list(mounts) + ["echo holder ready", "exec sleep infinity"])


def nsenter_argv(holder, argv, env=None):
    """argv run in the holder's network, mount and UTS namespaces, with a
    clean environment (PATH, LANG, HOME and env)."""
    e = ["PATH=" + PATH, "LANG=C.UTF-8", "HOME=/root"]
    e += ["%s=%s" % kv for kv in (env or {}).items()]
    return ["nsenter", "-t", str(holder), "-n", "-m", "-u", "--", "env", "-i"] + e + list(argv)


def write_json(path, obj):
    """obj as JSON in path, replaced whole (a reader sees the old or the new)."""
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(obj, f, indent=1)
    os.replace(tmp, path)
