"""Lab hosts: network + mount + UTS namespaces on one bridge.

A host is a network namespace (/run/netns/<prefix>-<host>) plus a long-lived
"holder" process in its own mount and UTS namespaces. The holder mounts, for
its host only: tmpfs on /run and /dev/shm, sysfs, overlays over /etc and
/var/lib (the host's "disk": upper directories under the lab's data
directory), /var/log, and overlays that add the lab's programs to
/usr/bin (writable, each host's own) and the cpha agents to
/usr/lib/ocf/resource.d (read-only). Every process of a host runs through `nsenter -t HOLDER -n -m -u`, detached, logging to the
host's log directory. Power off = the host's link down, every process in its
network namespace killed by PID, /run wiped; power on = a new holder.
A hang = every process of the host frozen in its own cgroup v1 freezer
(FREEZER/<prefix>-<host>), links up; a frozen task dies of SIGKILL only once
thawed, so a power-off and the lab's cleanup send their kills, then thaw.

Processes are found by their network namespace (/proc/PID/ns/net), never by
name, and only processes of this lab's namespaces are ever signalled.
"""

import json
import os
import shlex
import signal
import subprocess
import threading
import time

from . import bmc
from .netns import (LabError, cmdline, holder_script, kill_all, kill_pids,  # noqa: F401
                    make_host, ns_ident, nsenter_argv, pid_alive, pids_in, power_off, run,
                    wait_until, write_json)

FREEZER = "/sys/fs/cgroup/freezer"  # the cgroup v1 freezer hierarchy


def freezer_procs(path):
    """PIDs (thread group leaders) in the freezer cgroup at path."""
    try:
        with open(os.path.join(path, "cgroup.procs")) as f:
            return [int(l) for l in f if l.strip()]
    except OSError:
        return []


def freezer_state(path):
    """"THAWED", "FREEZING", "FROZEN", or None when there is no such cgroup."""
    try:
        with open(os.path.join(path, "freezer.state")) as f:
            return f.read().strip()
    except OSError:
        return None


def thaw(path, kill=False):
    """Thaw the freezer cgroup at path; with kill, SIGKILL each of its
    processes first, so none runs again: a frozen task takes the signal
    only once thawed, and then dies before it runs any code of its own."""
    if freezer_state(path) is None:
        return
    if kill:
        for p in freezer_procs(path):
            try:
                os.kill(p, signal.SIGKILL)
            except ProcessLookupError:
                pass
    with open(os.path.join(path, "freezer.state"), "w") as f:
        f.write("THAWED")


def thaw_all(prefix, kill=False):
    """Thaw (with kill, after SIGKILL) every freezer cgroup of a lab
    (named <prefix>-<host>); returns their paths."""
    try:
        names = [n for n in os.listdir(FREEZER) if n.startswith(prefix + "-")]
    except OSError:
        return []
    out = []
    for n in names:
        path = os.path.join(FREEZER, n)
        thaw(path, kill)
        out.append(path)
    return out


def remove_cgroup(path):
    """rmdir the (empty) cgroup at path; False when it still has tasks."""
    try:
        os.rmdir(path)
        return True
    except FileNotFoundError:
        return True
    except OSError:
        return False


class Host:
    """One lab host. Its persistent facts live in the lab state."""

    def __init__(self, lab, name, role, v4, v6, index):
        self.lab = lab
        self.name = name
        self.role = role  # master | lb | client | bmc
        self.v4 = v4
        self.v6 = v6
        self.index = index
        self.netns = "%s-%s" % (lab.prefix, name)
        self.veth = "%sv%d" % (lab.prefix, index)  # the bridge side
        self.dir = os.path.join(lab.data, "hosts", name)
        self.holder = 0
        self.services = {}  # name -> pid
        # the runner's invariant monitor reads hosts while a scenario
        # powers them: a refresh must not undo a power-on in flight
        self.lock = threading.RLock()

    # -- state ------------------------------------------------------------------
    def to_json(self):
        return {"name": self.name, "role": self.role, "v4": self.v4, "v6": self.v6,
                "index": self.index, "holder": self.holder, "services": self.services}

    @classmethod
    def from_json(cls, lab, d):
        h = cls(lab, d["name"], d["role"], d["v4"], d["v6"], d["index"])
        h.holder = d.get("holder", 0)
        h.services = d.get("services", {})
        return h

    @property
    def state_file(self):
        return os.path.join(self.lab.state_dir, "host-%s.json" % self.name)

    def save(self):
        """The host's power and services: its own file, as the BMC's power
        command (another process) changes them too."""
        write_json(self.state_file, {"holder": self.holder, "services": self.services})

    def refresh(self):
        with self.lock:
            return self._refresh()

    def _refresh(self):
        try:
            with open(self.state_file) as f:
                d = json.load(f)
            self.holder, self.services = d.get("holder", 0), d.get("services", {})
        except (OSError, ValueError):
            pass
        return self

    @property
    def ident(self):
        return ns_ident("/run/netns/" + self.netns)

    def powered(self):
        self.refresh()
        return bool(self.holder) and pid_alive(self.holder)

    # -- network ----------------------------------------------------------------
    def create_net(self):
        make_host(self.netns, self.veth, self.lab.bridge, self.v4, self.v6, dad=False)

    def link(self, up):
        run(["ip", "link", "set", self.veth, "up" if up else "down"])

    def link_up(self):
        r = run(["ip", "-o", "link", "show", self.veth], check=False)
        return "state UP" in r.stdout or ",UP" in r.stdout.split(">")[0]

    def addresses(self):
        r = run(["ip", "-n", self.netns, "-o", "addr", "show", "dev", "eth0"], check=False)
        return [w.split()[3].split("/")[0] for w in r.stdout.splitlines() if len(w.split()) > 3]

    # -- the holder ---------------------------------------------------------------
    def _mkdirs(self):
        for d in ("etc.up", "etc.work", "varlib.up", "varlib.work", "usrbin.up", "usrbin.work",
                  "log", "logs"):
            os.makedirs(os.path.join(self.dir, d), exist_ok=True)

    def holder_script(self):
        d = self.dir
        q = shlex.quote
        if self.role == "bmc":  # BMCs act on the lab: they see its /run
            return "hostname %s\necho holder ready\nexec sleep infinity" % q(self.name)
        mounts = [
            "mount -t sysfs cpha-sys /sys",
            "mount -t overlay cpha-etc -o lowerdir=/etc,upperdir=%s,workdir=%s /etc" % (
                q(d + "/etc.up"), q(d + "/etc.work")),
            "mount -t overlay cpha-varlib -o lowerdir=/var/lib,upperdir=%s,workdir=%s /var/lib"
            % (q(d + "/varlib.up"), q(d + "/varlib.work")),
            "mount --bind %s /var/log" % q(d + "/log"),
            # writable, the host's own: an upgrade installs a program here
            # (docs/runbook.md), on this host alone
            "mount -t overlay cpha-bin -o lowerdir=%s:/usr/bin,upperdir=%s,workdir=%s /usr/bin"
            % (q(self.lab.bin_dir), q(d + "/usrbin.up"), q(d + "/usrbin.work")),
        ]
        if os.path.isdir("/usr/lib/ocf/resource.d"):
            mounts.append("mount -t overlay cpha-ocf -o lowerdir=%s:/usr/lib/ocf/resource.d "
                          "/usr/lib/ocf/resource.d" % q(self.lab.ocf_dir))
        return holder_script(self.name, mounts, ("/run/lbd", "/run/vipd", "/run/fenced",
                                                 "/run/haproxy", "/run/keepalived",
                                                 "/run/netns"))

    def set_power(self, on):
        """What the host's BMC reports: power is on from the moment it is
        switched on, while the system still boots."""
        d = os.path.join(self.lab.data, "bmc", self.name)
        if os.path.isdir(d):
            bmc.set_power(d, on)

    def power_on(self):
        """A fresh holder: empty /run and /dev/shm, the disk as it was."""
        with self.lock:
            self._power_on()

    def _power_on(self):
        self.set_power(True)
        if self.powered():
            return
        self._mkdirs()
        # a host that lost power lost every address a daemon had added
        # (a VIP): only the boot configuration's come back
        r = run(["ip", "-n", self.netns, "-o", "addr", "show", "dev", "eth0"], check=False)
        for w in (line.split() for line in r.stdout.splitlines()):
            if len(w) > 3 and w[3].split("/")[0] not in (self.v4, self.v6) \
                    and not w[3].startswith("fe80"):
                run(["ip", "-n", self.netns, "addr", "del", w[3], "dev", "eth0"], check=False)
        log = os.path.join(self.dir, "logs", "holder.log")
        with open(log, "w") as out:
            p = subprocess.Popen(["nsenter", "--net=/run/netns/" + self.netns, "--",
                                  "unshare", "--mount", "--uts", "--propagation", "private",
                                  "sh", "-c", self.holder_script()],
                                 stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                 start_new_session=True, close_fds=True)
        self.holder = p.pid
        try:
            wait_until(lambda: p.poll() is None and "holder ready" in open(log).read()
                       or p.poll() is not None, 15, 0.05, "the holder of " + self.name)
        except LabError:
            pass
        if p.poll() is not None:
            raise LabError("%s: the holder failed: %s" % (self.name, open(log).read()[-2000:]))
        self.services = {}
        self.link(True)
        self.save()

    def power_off(self):
        """Power lost: the link first (nothing more leaves), then every
        process, then /run and /dev/shm, then the holder."""
        with self.lock:
            self._power_off()

    def _power_off(self):
        self.link(False)
        self.set_power(False)
        try:
            ident = self.ident
        except OSError:
            return
        # a hung host's processes are frozen: the kills first, then the
        # thaw, so none of them runs again before it dies
        kill_pids(pids_in({ident}, exclude=(self.holder,)))
        thaw(self.freezer)
        power_off(ident, self.holder)
        self.holder = 0
        self.services = {}
        self.save()

    # -- hang ---------------------------------------------------------------------
    @property
    def freezer(self):
        return os.path.join(FREEZER, self.netns)

    def freeze(self):
        """Stop every process of the host, its links left up: each moved
        into the host's freezer cgroup (again while new ones appear: a
        process forking as it is moved), then the cgroup frozen. Returns
        (stopped, processes): how many of the host's processes the cgroup
        holds once FROZEN, and how many the host has."""
        self.refresh()
        ident = self.ident
        # the host's processes share the holder's mount namespace too; the
        # lab's own commands that only enter its network (`ip -n`) do not,
        # and freezing one would stop the lab, not the host
        mnt = ns_ident("/proc/%d/ns/mnt" % self.holder)

        def host_pids():
            out = []
            for p in pids_in({ident}):
                try:
                    if ns_ident("/proc/%d/ns/mnt" % p) == mnt:
                        out.append(p)
                except OSError:
                    pass
            return out
        os.makedirs(self.freezer, exist_ok=True)
        for _ in range(20):
            inside = set(freezer_procs(self.freezer))
            new = [p for p in host_pids() if p not in inside]
            if not new:
                break
            for p in new:
                try:
                    with open(os.path.join(self.freezer, "cgroup.procs"), "w") as f:
                        f.write(str(p))
                except OSError:  # gone meanwhile
                    pass
        with open(os.path.join(self.freezer, "freezer.state"), "w") as f:
            f.write("FROZEN")
        wait_until(lambda: freezer_state(self.freezer) == "FROZEN", 5, 0.02,
                   "the freezer of " + self.name)
        # a process outside the cgroup counts only when it is still there
        # a moment later (a short command of the lab's inside the host)
        inside = set(freezer_procs(self.freezer))
        out = [p for p in host_pids() if p not in inside]
        if out:
            time.sleep(0.3)
            now = set(host_pids())
            out = [p for p in out if p in now]
        pids = inside | set(out)
        self.not_frozen = [(p, cmdline(p)) for p in out]
        return len(inside), len(pids)

    def frozen(self):
        return freezer_state(self.freezer) == "FROZEN"

    def thaw(self):
        """Let the host's processes run again (no-op when none is frozen)."""
        thaw(self.freezer)

    # -- processes ----------------------------------------------------------------
    def argv(self, argv, env=None):
        if not self.powered():
            raise LabError("%s is powered off" % self.name)
        return nsenter_argv(self.holder, argv, env)

    def run(self, argv, check=True, timeout=60, env=None, input=None):
        return run(self.argv(argv, env), check=check, timeout=timeout, input=input)

    def start(self, name, argv, env=None):
        """A service of this host, detached, its output in logs/NAME.log."""
        with self.lock:
            return self._start(name, argv, env)

    def _start(self, name, argv, env=None):
        log = os.path.join(self.dir, "logs", name + ".log")
        with open(log, "a") as out:
            out.write("==== %s start: %s\n" % (time.strftime("%H:%M:%S"), " ".join(argv)))
            out.flush()
            p = subprocess.Popen(self.argv(argv, env), stdout=out, stderr=subprocess.STDOUT,
                                 stdin=subprocess.DEVNULL, start_new_session=True,
                                 close_fds=True)
        self.services[name] = p.pid
        self.save()
        return p.pid

    def service_pid(self, name):
        """The service's own PID (nsenter execs through env into it)."""
        self.refresh()
        pid = self.services.get(name, 0)
        return pid if pid and pid_alive(pid) else 0

    def stop(self, name, sig=signal.SIGTERM, timeout=30):
        pid = self.service_pid(name)
        if not pid:
            return
        os.kill(pid, sig)
        end = time.time() + timeout
        while time.time() < end and pid_alive(pid):
            reap(pid)
            time.sleep(0.05)
        if pid_alive(pid):
            os.kill(pid, signal.SIGKILL)
        with self.lock:
            self.refresh()
            self.services.pop(name, None)
            self.save()

    def signal(self, name, sig):
        pid = self.service_pid(name)
        if not pid:
            raise LabError("%s: %s is not running" % (self.name, name))
        os.kill(pid, sig)

    def path(self, inside):
        """A path of the host's file system, seen from the root namespace."""
        return "/proc/%d/root%s" % (self.holder, inside)

    def write(self, inside, data, mode=0o644, owner=None):
        p = self.path(inside)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "wb" if isinstance(data, bytes) else "w") as f:
            f.write(data)
        os.chmod(p, mode)
        if owner:
            os.chown(p, *owner)

    def processes(self):
        """(pid, argv) of every process of the host but the holder."""
        try:
            ident = self.ident
        except OSError:
            return []
        return [(p, cmdline(p)) for p in pids_in({ident}, exclude=(self.holder,))]


def reap(pid):
    try:
        os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        pass

