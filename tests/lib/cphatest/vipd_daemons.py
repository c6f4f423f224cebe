"""vipd and the real keepalived as lab processes: start, crash (SIGKILL
by PID), graceful stop, reload, vipd's admin socket and metrics."""

import json
import os
import re
import signal
import time

from . import util
from .util import wait_log
from .vipd_setup import KEEPALIVED, KEEPALIVED_BAD, binary
from .vipd_conf import config


class Vipd:
    """One vipd in a host, in the foreground (logs to its lab log file).

    body: the vrrp_script / vrrp_instance blocks; global_defs is written
    here with the admin socket in the lab directory."""

    kind = "vipd"

    def __init__(self, lab, host, body, version=3, global_extra=(), name="vipd"):
        self.lab = lab
        self.host = host
        self.name = name
        d = os.path.dirname(lab.path("%s-%s" % (name, host.name), "x"))
        self.conf_path = os.path.join(d, "vipd.conf")
        self.sock_path = os.path.join(d, "admin.sock")
        self.proc = None
        self.version = version
        self.global_extra = list(global_extra)
        self.write(body)

    def __repr__(self):
        return "<vipd on %s>" % self.host.name

    def write(self, body):
        extra = ["vipd_admin_socket %s" % self.sock_path] + self.global_extra
        text = config(body, self.version, "vipd-" + self.host.name, extra)
        tmp = self.conf_path + ".tmp"
        with open(tmp, "w") as f:
            f.write(text)
        os.replace(tmp, self.conf_path)

    def check(self):
        """vipd -c on the file: (exit status, stdout + stderr)."""
        r = self.host.run([binary(), "-c", "-f", self.conf_path], check=False)
        return r.returncode, r.stdout + r.stderr

    def start(self, timeout=5, prefix=()):
        """Check the file, spawn vipd (after the words of prefix: setpriv
        ...), wait for its admin socket. Returns the time.time() just before
        the spawn."""
        rc, out = self.check()
        if rc != 0:
            raise AssertionError("vipd -c refused the test's file:\n%s\n%s"
                                 % (out, open(self.conf_path).read()))
        if os.path.exists(self.sock_path):
            os.unlink(self.sock_path)
        t0 = time.time()
        self.proc = self.host.spawn(list(prefix) + [binary(), "-f", self.conf_path],
                                    name=self.name)
        wait_log(self.proc, "started:", timeout)
        self.t_ready = time.time()  # its instances are running by now
        util.wait_until(lambda: self.show() is not None, timeout, 0.02,
                        "vipd admin socket %s" % self.sock_path)
        return t0

    @property
    def pid(self):
        return self.proc.pid

    def running(self):
        return self.proc is not None and self.proc.running()

    def crash(self):
        """SIGKILL (by PID), as a crash: nothing is sent, the VIPs stay on
        the interface. Returns the time.time() of the kill."""
        t = time.time()
        self.proc.kill(signal.SIGKILL)
        self.proc.wait(timeout=5)
        return t

    def stop(self, timeout=5):
        """SIGTERM (by PID) and wait: (time.time() of the signal, exit status)."""
        t = time.time()
        self.proc.kill(signal.SIGTERM)
        return t, self.proc.wait(timeout=timeout)

    def log_text(self):
        return self.proc.log_text() if self.proc else ""

    # -- admin socket --------------------------------------------------
    def admin(self, command, timeout=3.0):
        """One command on the admin socket; the reply text."""
        return util.unix_request(self.sock_path, command, timeout)

    def show(self):
        """`show json` as a dict (None while the socket does not answer)."""
        try:
            return json.loads(self.admin("show json"))
        except (OSError, ValueError):
            return None

    def inst(self, name=None):
        """One instance's object from `show json` (the first one by default)."""
        j = self.show()
        if j is None:
            raise AssertionError("%r: admin socket does not answer" % self)
        for i in j["instances"]:
            if name is None or i["instance"] == name:
                return i
        raise AssertionError("%r: no instance %s in %r" % (self, name, j))

    def state(self, name=None):
        return self.inst(name)["state"]

    def wait_state(self, state, timeout, name=None, interval=0.01):
        """Poll until the instance is in state; the seconds it took."""
        t0 = time.monotonic()
        util.wait_until(lambda: self.state(name) == state, timeout, interval,
                        "%r instance %s to be %s" % (self, name or "", state))
        return time.monotonic() - t0

    def bad_packets(self, name=None):
        return self.inst(name)["bad_packets"]


class Keepalived:
    """The real keepalived (VRRP only, no fork, logs to its lab log file,
    no syslog), with its pid files in the lab directory."""

    kind = "keepalived"
    ENTER = re.compile(r"\((\S+)\) Entering (\w+) STATE")

    def __init__(self, lab, host, body, version=3, global_extra=(), name="keepalived"):
        self.lab = lab
        self.host = host
        self.name = name
        self.dir = os.path.dirname(lab.path("%s-%s" % (name, host.name), "x"))
        self.conf_path = os.path.join(self.dir, "keepalived.conf")
        self.proc = None
        self.version = version
        self.global_extra = list(global_extra)
        self.write(body)

    def __repr__(self):
        return "<keepalived on %s>" % self.host.name

    def write(self, body):
        text = config(body, self.version, "ka-" + self.host.name, self.global_extra)
        with open(self.conf_path, "w") as f:
            f.write(text)

    def pidfile(self, what):
        return os.path.join(self.dir, what + ".pid")

    def start(self, timeout=5):
        """Spawn keepalived; wait until its VRRP child runs the instances
        (it logs their first state). Returns time.time() before the spawn."""
        for w in ("keepalived", "vrrp", "checkers", "bfd"):
            if os.path.exists(self.pidfile(w)):
                os.unlink(self.pidfile(w))
        t0 = time.time()
        # -R: a crashed VRRP child is not respawned (crash() kills it first)
        self.proc = self.host.spawn(
            [KEEPALIVED, "-n", "-l", "-D", "-G", "-R", "--vrrp", "-f", self.conf_path,
             "-p", self.pidfile("keepalived"), "-r", self.pidfile("vrrp"),
             "-c", self.pidfile("checkers"), "-b", self.pidfile("bfd")],
            name=self.name)
        wait_log(self.proc, self.ENTER, timeout)
        self.t_ready = time.time()  # its instances are running by now
        return t0

    def vrrp_pid(self):
        """PID of the VRRP child (checked to be our keepalived's child)."""
        with open(self.pidfile("vrrp")) as f:
            pid = int(f.read().split()[0])
        with open("/proc/%d/stat" % pid) as f:
            ppid = int(f.read().rsplit(")", 1)[1].split()[1])
        if ppid != self.proc.pid:
            raise AssertionError("vrrp pid %d is not a child of %d" % (pid, self.proc.pid))
        return pid

    def running(self):
        return self.proc is not None and self.proc.running()

    def crash(self):
        """SIGKILL the VRRP child, then the parent (both by PID): nothing is
        sent. Killing the parent first would make the child stop gracefully
        (it gets SIGTERM when its parent dies). Returns the kill's time."""
        child = self.vrrp_pid()
        t = time.time()
        os.kill(child, signal.SIGKILL)
        self.proc.kill(signal.SIGKILL)
        self.proc.wait(timeout=5)
        for _ in range(250):  # the child is reaped by init once the parent is gone
            if not util.pid_alive(child):
                break
            time.sleep(0.02)
        return t

    def stop(self, timeout=5):
        """SIGTERM the parent (by PID): the VRRP child sends priority 0 and
        exits. (time.time() of the signal, exit status)."""
        t = time.time()
        self.proc.kill(signal.SIGTERM)
        return t, self.proc.wait(timeout=timeout)

    def log_text(self):
        return self.proc.log_text() if self.proc else ""

    def states(self, name="VI_1"):
        """The states keepalived logged entering, in order."""
        return [m.group(2) for m in self.ENTER.finditer(self.log_text())
                if m.group(1) == name]

    def state(self, name="VI_1"):
        s = self.states(name)
        return s[-1] if s else None

    def bad_lines(self):
        """Log lines saying keepalived dropped a VRRP packet."""
        return [x for x in self.log_text().splitlines() if KEEPALIVED_BAD.search(x)]


_SAMPLE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)$')
_LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"')


def metrics(host, addr, timeout=3):
    """GET http://addr/metrics from inside host (vipd_metrics_bind):
    {(name, ((label, value), ...) sorted): value}."""
    r = host.curl("http://%s/metrics" % addr, timeout=timeout)
    if r.status != 200:
        raise AssertionError("metrics at %s: status %d rc %d %s" % (addr, r.status, r.rc,
                                                                     r.stderr))
    out = {}
    for line in r.body.splitlines():
        m = _SAMPLE.match(line.strip())
        if not m or line.startswith("#"):
            continue
        labels = tuple(sorted(_LABEL.findall(m.group(2) or "")))
        out[(m.group(1), labels)] = float(m.group(3))
    return out


def metric(samples, name, **labels):
    """One value from metrics() (None when absent)."""
    return samples.get((name, tuple(sorted(labels.items()))))
