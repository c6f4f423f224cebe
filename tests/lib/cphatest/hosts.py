"""The test bed: network namespaces ("hosts") joined by a private bridge.

Names carry the runner's PID so tests can run in parallel:
namespaces ct<pid>-<host>, bridge cb<pid>, bridge-side veths cv<pid>h<idx>.
The root namespace never gets an address on the bridge. Everything the lab
creates is removed on exit, on failure, on SIGTERM/SIGINT and (for a runner
that died) by the next lab's sweep of leftovers whose PID is gone.
"""

import atexit
import ctypes
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time

from cphalab import netns

from . import curl as _curl
from . import util

_PR_SET_PDEATHSIG = 1
_active_lab = None
_interrupted_by = None  # signal number that interrupted a lab, if any


def interrupted_status():
    """Exit status for a runner stopped by a signal (128 + signo)."""
    return 128 + (_interrupted_by or signal.SIGINT)


def _ip(*args, check=True, timeout=15):
    return netns.run(["ip"] + list(args), check=check, timeout=timeout)


def _ns_ident(ns):
    return netns.ns_ident("/run/netns/" + ns)


def _kill_in_namespaces(idents, why):
    """SIGKILL (by PID) every process whose network namespace is in idents."""
    killed = netns.kill_pids(netns.pids_in(idents))
    if killed:
        print("cphatest: %s: killed leftover PIDs %s" % (why, killed),
              file=sys.stderr, flush=True)
    return killed


def sweep_leftovers():
    """Remove ct<pid>-*, cb<pid>, cv<pid>* left by runs whose PID is gone."""
    r = _ip("netns", "list", check=False)
    for line in r.stdout.splitlines():
        name = line.split()[0] if line.split() else ""
        m = re.match(r"^ct(\d+)-", name)
        if not m or util.pid_alive(int(m.group(1))):
            continue
        try:
            _kill_in_namespaces({_ns_ident(name)}, "sweep " + name)
        except OSError:
            pass
        _ip("netns", "del", name, check=False)
    r = _ip("-o", "link", "show", check=False)
    for line in r.stdout.splitlines():
        parts = line.split(":")
        if len(parts) < 2:
            continue
        name = parts[1].strip().split("@")[0]
        m = re.match(r"^(?:cb(\d+)|cv(\d+)h\d+)$", name)
        if not m:
            continue
        pid = int(m.group(1) or m.group(2))
        if not util.pid_alive(pid):
            _ip("link", "del", name, check=False)


def _child_setup(parent):
    """In the child before exec: die with the runner (PDEATHSIG survives exec)."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except Exception:
        pass
    if os.getppid() != parent:
        os._exit(1)


class Proc:
    """A long-lived process started in a host, in its own process group."""

    def __init__(self, popen, name, log_path, host, serial=False):
        self.serial = serial  # stopped alone at cleanup, in reverse start order
        self.popen = popen
        self.pid = popen.pid
        self.name = name
        self.log_path = log_path
        self.host = host

    def __repr__(self):
        return "<Proc %s pid=%d on %s>" % (self.name, self.pid, self.host.name)

    def poll(self):
        return self.popen.poll()

    def running(self):
        return self.popen.poll() is None

    def kill(self, sig=signal.SIGKILL):
        """Send sig to the process itself (by PID)."""
        if self.popen.poll() is None:
            os.kill(self.pid, sig)

    def _killpg(self, sig):
        try:
            os.killpg(self.pid, sig)  # pgid == pid: the process leads its session
        except (ProcessLookupError, PermissionError):
            pass

    def wait(self, timeout):
        """Exit status, or raise subprocess.TimeoutExpired."""
        return self.popen.wait(timeout=timeout)

    def terminate_and_wait(self, timeout=5.0):
        """SIGTERM the group, SIGKILL it after `timeout`; return the status."""
        if self.popen.poll() is None:
            self._killpg(signal.SIGTERM)
            try:
                return self.popen.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                pass
        self._killpg(signal.SIGKILL)
        try:
            return self.popen.wait(timeout=5)
        except subprocess.TimeoutExpired:
            return None

    def log_text(self):
        try:
            with open(self.log_path, encoding="utf-8", errors="replace") as f:
                return f.read()
        except OSError:
            return ""


class Host:
    """A network namespace with one interface (eth0) on the lab bridge."""

    def __init__(self, lab, name, ns, veth, v4, v6):
        self.lab = lab
        self.name = name
        self.ns = ns
        self.veth = veth  # bridge side, in the root namespace
        self.ifname = "eth0"
        self.v4 = v4
        self.v6 = v6

    def __repr__(self):
        return "<Host %s ns=%s v4=%s>" % (self.name, self.ns, self.v4)

    def run(self, argv, timeout=30, check=True, input=None, env=None):
        """Run argv in the namespace; return a (text) CompletedProcess."""
        env = dict(env or {})
        env.setdefault("TMPDIR", self.lab.tmp_dir)
        r = subprocess.run(["ip", "netns", "exec", self.ns] + list(argv),
                           capture_output=True, text=True, timeout=timeout,
                           input=input, env=util.clean_env(env),
                           stdin=None if input is not None else subprocess.DEVNULL)
        if check and r.returncode != 0:
            raise subprocess.CalledProcessError(r.returncode, r.args,
                                                r.stdout, r.stderr)
        return r

    def spawn(self, argv, name, env=None, serial=False):
        """Start argv in the namespace in a new session; log to the lab dir.

        serial=True: at cleanup, stop this one alone (not with its neighbours).
        """
        return self.lab._spawn(self, argv, name, env, serial)

    def curl(self, url, **kw):
        """HTTP(S) request with curl from inside this host (see curl.curl)."""
        return _curl.curl(self, url, **kw)


class Lab:
    """`with Lab("name") as lab:` -- a bridge plus hosts, cleaned up on exit."""

    STOP_TIMEOUT = 5.0

    def __init__(self, name):
        if not re.match(r"^[A-Za-z0-9_.-]+$", name):
            raise ValueError("bad lab name %r" % name)
        self.name = name
        self.pid = os.getpid()
        self.bridge = "cb%d" % self.pid
        self.hosts = {}
        self.procs = []
        self._ns_idents = set()
        self._nveth = 0
        self._down = set()  # hosts cut off the bridge by link_down()
        self._open = False
        self._old_handlers = {}
        self.dir = None
        self.log_dir = None
        self.tmp_dir = None  # TMPDIR of everything run in the lab's hosts
        self._bulky = []  # removed even on failure (etcd data), unless kept

    def _make_dir(self):
        base = os.environ.get("CPHA_TEST_LOGDIR")
        if base:
            os.makedirs(base, exist_ok=True)
            stem = os.path.join(base, "%s-%d" % (self.name, self.pid))
        else:
            stem = "/tmp/cpha-test-%s-%d" % (self.name, self.pid)
        for i in range(100):
            d = stem if i == 0 else "%s.%d" % (stem, i)
            try:
                os.mkdir(d, 0o700)
            except FileExistsError:
                continue
            self.dir = d
            self.log_dir = os.path.join(d, "logs")
            os.mkdir(self.log_dir)
            self.tmp_dir = os.path.join(d, "tmp")
            os.mkdir(self.tmp_dir)
            return
        raise RuntimeError("cannot create a log directory like " + stem)

    # -- lifecycle ---------------------------------------------------------
    def __enter__(self):
        self.start()
        return self

    def __exit__(self, etype, evalue, tb):
        self.close(failed=etype is not None)
        return False

    def start(self):
        global _active_lab
        if _active_lab is not None:
            raise RuntimeError("only one Lab at a time per process")
        self._make_dir()
        _active_lab = self
        self._open = True
        atexit.register(self._atexit)
        self._install_signals()
        try:
            sweep_leftovers()
            _ip("link", "add", self.bridge, "type", "bridge")
            # No IPv6 link-local (or any address) in the root namespace.
            _ip("link", "set", self.bridge, "addrgenmode", "none", check=False)
            _ip("link", "set", self.bridge, "up")
        except BaseException:
            self.close(failed=True)  # __exit__ does not run when __enter__ fails
            raise

    def _install_signals(self):
        if threading.current_thread() is not threading.main_thread():
            return

        def handler(signum, frame):
            global _interrupted_by
            _interrupted_by = signum
            raise KeyboardInterrupt("signal %d" % signum)
        for sig in (signal.SIGTERM, signal.SIGINT):
            self._old_handlers[sig] = signal.signal(sig, handler)

    def _restore_signals(self):
        for sig, h in self._old_handlers.items():
            try:
                signal.signal(sig, h)
            except (ValueError, TypeError):
                pass
        self._old_handlers = {}

    def _atexit(self):
        if self._open:
            self.close(failed=True)

    def close(self, failed=False):
        """Stop every process, delete namespaces, veths, bridge; report logs."""
        global _active_lab
        if not self._open:
            return
        self._open = False
        # A second Ctrl-C/SIGTERM must not abort the cleanup half-way.
        deferred = []
        if self._old_handlers:
            for sig in self._old_handlers:
                signal.signal(sig, lambda s, f: deferred.append(s))
        try:
            # Heal partitions first: clustered peers (etcd) stop quickly only
            # when they can reach each other.
            for name in list(self._down):
                _ip("link", "set", self.hosts[name].veth, "up", check=False)
            self._stop_all()
            if failed:
                self.dump_logs()
            self._teardown_net()
        finally:
            self._restore_signals()
            _active_lab = None
            try:
                atexit.unregister(self._atexit)
            except Exception:
                pass
            self._finish_logs(failed)
        if deferred:
            raise KeyboardInterrupt("signal %d during cleanup" % deferred[0])

    def _finish_logs(self, failed):
        keep = os.environ.get("CPHA_KEEP_LOGS")
        if failed:
            if not keep:
                for p in self._bulky:
                    shutil.rmtree(p, ignore_errors=True)
            print("cphatest: lab %s failed; logs kept in %s" % (self.name, self.dir),
                  file=sys.stderr, flush=True)
        elif keep:
            util.step("logs kept in %s" % self.dir)
        else:
            shutil.rmtree(self.dir, ignore_errors=True)

    def _stop_all(self):
        """Stop in reverse start order: consecutive ordinary processes together,
        serial ones (etcd members: stopping a whole cluster at once can stall
        for seconds in leadership transfer) one at a time."""
        batches, cur = [], []
        for p in reversed(self.procs):
            if p.poll() is not None:
                continue
            if p.serial:
                if cur:
                    batches.append(cur)
                    cur = []
                batches.append([p])
            else:
                cur.append(p)
        if cur:
            batches.append(cur)
        overall = time.monotonic() + 4 * self.STOP_TIMEOUT
        for batch in batches:
            t0 = time.monotonic()
            for p in batch:
                p._killpg(signal.SIGTERM)
            deadline = min(time.monotonic() + self.STOP_TIMEOUT, overall)
            for p in batch:
                try:
                    p.popen.wait(timeout=max(0.05, deadline - time.monotonic()))
                except subprocess.TimeoutExpired:
                    print("cphatest: %r ignored SIGTERM, SIGKILL" % p, file=sys.stderr)
                    p._killpg(signal.SIGKILL)
                    try:
                        p.popen.wait(timeout=5)
                    except subprocess.TimeoutExpired:
                        pass
            if time.monotonic() - t0 > 2.0:
                print("cphatest: stopping %s took %.1fs" % (
                    ", ".join("%s@%s" % (p.name, p.host.name) for p in batch),
                    time.monotonic() - t0), file=sys.stderr, flush=True)
        # Safety net: anything still inside one of our namespaces.
        if self._ns_idents:
            for _ in range(5):
                if not _kill_in_namespaces(self._ns_idents, "lab " + self.name):
                    break
                time.sleep(0.2)
        for p in self.procs:
            for f in (p.popen.stdout, p.popen.stderr):
                if f:
                    f.close()

    def _teardown_net(self):
        for h in self.hosts.values():
            _ip("netns", "del", h.ns, check=False)
            _ip("link", "del", h.veth, check=False)  # normally gone with the ns
        _ip("link", "del", self.bridge, check=False)

    def dump_logs(self, lines=40):
        """Print the tail of every process log to stderr."""
        for p in self.procs:
            out = util.tail(p.log_path, lines)
            print("----- %s on %s (pid %d, exit %s), last %d lines of %s -----\n%s"
                  % (p.name, p.host.name, p.pid, p.poll(), lines, p.log_path, out),
                  file=sys.stderr, flush=True)

    # -- hosts and links ---------------------------------------------------
    def add_host(self, name, v4=None, v6=None):
        """Create namespace ct<pid>-<name> with eth0 on the bridge."""
        if not self._open:
            raise RuntimeError("lab is not started")
        if name in self.hosts or not re.match(r"^[a-z0-9-]{1,20}$", name):
            raise ValueError("bad or duplicate host name %r" % name)
        ns = "ct%d-%s" % (self.pid, name)
        veth = "cv%dh%d" % (self.pid, self._nveth)
        self._nveth += 1
        if len(veth) > 15:
            raise ValueError("interface name %s too long" % veth)
        addr4 = v4.split("/")[0] if v4 else None
        addr6 = v6.split("/")[0] if v6 else None
        host = Host(self, name, ns, veth, addr4, addr6)
        self.hosts[name] = host  # registered first so cleanup finds partial hosts
        try:
            netns.make_host(ns, veth, self.bridge, v4, v6, addrgen=False)
        finally:
            if os.path.exists("/run/netns/" + ns):  # its processes die with the lab
                self._ns_idents.add(_ns_ident(ns))
        return host

    def link_down(self, host):
        """Cut host off the bridge (bridge-side veth down)."""
        _ip("link", "set", host.veth, "down")
        self._down.add(host.name)

    def link_up(self, host):
        """Reconnect host to the bridge."""
        _ip("link", "set", host.veth, "up")
        self._down.discard(host.name)

    def path(self, *parts):
        """A path inside the lab's directory (parent directories created)."""
        p = os.path.join(self.dir, *parts)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        return p

    def bulky(self, path):
        """Register a large scratch directory not worth keeping on failure."""
        self._bulky.append(path)
        return path

    # -- processes ---------------------------------------------------------
    def _spawn(self, host, argv, name, env, serial=False):
        if not self._open:
            raise RuntimeError("lab is not started")
        n = sum(1 for p in self.procs if p.name == name and p.host is host)
        log_path = os.path.join(self.log_dir, "%s-%s%s.log"
                                % (host.name, name, "" if n == 0 else ".%d" % n))
        logf = open(log_path, "ab", buffering=0)
        parent = os.getpid()
        env = dict(env or {})
        env.setdefault("TMPDIR", self.tmp_dir)  # temp files die with the lab
        try:
            popen = subprocess.Popen(
                ["ip", "netns", "exec", host.ns] + list(argv),
                stdin=subprocess.DEVNULL, stdout=logf, stderr=subprocess.STDOUT,
                env=util.clean_env(env), start_new_session=True,
                preexec_fn=lambda: _child_setup(parent), cwd=self.dir)
        finally:
            logf.close()
        proc = Proc(popen, name, log_path, host, serial)
        self.procs.append(proc)
        return proc
