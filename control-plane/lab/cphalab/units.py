"""Services started the way their systemd units say, inside a lab host.

A lab host is a network namespace with its own mounts, not a machine with
its own systemd, so the lab does what systemd would do with a unit's
[Service] lines: EnvironmentFile= and Environment=, ConditionFileNotEmpty=,
RuntimeDirectory=, every ExecStartPre= in turn, then ExecStart= as the service, and for
Type=notify it waits for READY=1 on a NOTIFY_SOCKET of its own. Units named
together start in the order of their After= lines, as `systemctl start`
orders a transaction.

A NAME.timer unit starts its service again every OnUnitActiveSec= (first
after OnActiveSec=), as a loop process of the host named timer-NAME: the
lab's hosts have no systemd to keep the time.

Not carried out (systemd's own machinery, not the program's): the
sandboxing lines (DynamicUser=, ProtectSystem=, PrivateTmp=,
CapabilityBoundingSet=, ...), Restart= and WatchdogSec=. The programs run
as root with the host's mounts; docs/lab.md says so.

The parsing and ordering are pure (unit-tested in tests/lab); start() is
the I/O around them.
"""

import os
import re
import shlex
import signal
import socket
import time

from .hosts import LabError

# Where systemd looks for a unit, most local first. The lab adds the
# units of its own build (etc/systemd in the source tree) last: an
# installed package puts them in /lib/systemd/system.
UNIT_DIRS = ["/etc/systemd/system", "/lib/systemd/system", "/usr/lib/systemd/system"]


class Unit:
    """The lines of a unit file that the lab acts on."""

    def __init__(self, name, text):
        self.name = name
        self.sections = parse(text)

    def get(self, section, key):
        """Every value of key in section, in order; an empty value resets
        the list, as systemd does for list settings."""
        out = []
        for k, v in self.sections.get(section, []):
            if k == key:
                if v == "":
                    out = []
                else:
                    out.append(v)
        return out

    def last(self, section, key, default=None):
        v = self.get(section, key)
        return v[-1] if v else default

    def after(self):
        return [w for v in self.get("Unit", "After") for w in v.split()]

    def service_type(self):
        return self.last("Service", "Type", "simple")


def parse(text):
    """{section: [(key, value)]} of a unit file: comments (# ;) dropped,
    backslash continuations joined."""
    sections = {}
    cur = None
    pending = ""
    for raw in text.splitlines():
        line = raw.strip()
        if pending:
            line = pending + " " + line
            pending = ""
        if line.endswith("\\"):
            pending = line[:-1].rstrip()
            continue
        if not line or line[0] in "#;":
            continue
        if line.startswith("[") and line.endswith("]"):
            cur = sections.setdefault(line[1:-1], [])
            continue
        if cur is None or "=" not in line:
            continue
        k, v = line.split("=", 1)
        cur.append((k.strip(), v.strip()))
    return sections


def env_assignments(value):
    """KEY=VALUE words of an Environment= line (quotes as systemd reads them)."""
    out = {}
    for w in shlex.split(value):
        if "=" in w:
            k, v = w.split("=", 1)
            out[k] = v
    return out


def env_file(text):
    """KEY=VALUE lines of an EnvironmentFile= (comments and blanks skipped,
    one level of quotes removed)."""
    out = {}
    for line in text.splitlines():
        line = line.strip()
        if not line or line[0] in "#;" or "=" not in line:
            continue
        k, v = line.split("=", 1)
        k, v = k.strip(), v.strip()
        if len(v) >= 2 and v[0] == v[-1] and v[0] in "'\"":
            v = v[1:-1]
        out[k] = v
    return out


def command(value, env):
    """(argv, ignore_failure) of an Exec*= line: leading prefixes "-"
    (failure ignored), "@", "+", "!", ":" (privilege and argv[0] games the
    lab does not play) removed; "${VAR}" replaced within a word, a "$VAR"
    word split into words (systemd.service(5), "Command lines")."""
    ignore = False
    while value and value[0] in "-@+!:":
        ignore = ignore or value[0] == "-"
        value = value[1:]
    argv = []
    for w in shlex.split(value):
        m = re.fullmatch(r"\$([A-Za-z_][A-Za-z0-9_]*)", w)
        if m:
            argv += env.get(m.group(1), "").split()
            continue
        argv.append(re.sub(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}",
                           lambda m: env.get(m.group(1), ""), w))
    return argv, ignore


def reload_signal(line):
    """The signal of an ExecReload= that signals the main process
    (`/bin/kill -HUP $MAINPID`, `kill -s HUP $MAINPID`), else None."""
    w = shlex.split(line.lstrip("-@+!:"))
    if len(w) < 3 or os.path.basename(w[0]) != "kill" or w[-1] not in ("$MAINPID",
                                                                       "${MAINPID}"):
        return None
    name = w[2] if w[1] == "-s" and len(w) == 4 else w[1][1:] if w[1].startswith("-") else ""
    name = name.upper()
    if name.isdigit():
        return signal.Signals(int(name))
    try:
        return signal.Signals[name if name.startswith("SIG") else "SIG" + name]
    except KeyError:
        return None


def seconds(value):
    """A systemd time span ("30s", "5min", "1h", "2min 30s", "45") in
    seconds (systemd.time(7))."""
    scale = {"": 1, "s": 1, "sec": 1, "second": 1, "seconds": 1, "m": 60, "min": 60,
             "minute": 60, "minutes": 60, "h": 3600, "hr": 3600, "hour": 3600, "hours": 3600,
             "ms": 0.001, "msec": 0.001}
    total, found = 0.0, False
    for num, unit in re.findall(r"(\d+(?:\.\d+)?)\s*([a-z]*)", value):
        if unit not in scale:
            raise LabError("time span %r: unit %r unknown" % (value, unit))
        total += float(num) * scale[unit]
        found = True
    if not found:
        raise LabError("time span %r: no number" % value)
    return total


def timer_loop(timer, service_argv):
    """The argv of a loop that does what systemd does with timer (a Unit):
    run service_argv after OnActiveSec=, then every OnUnitActiveSec=."""
    first = seconds(timer.last("Timer", "OnActiveSec", "0"))
    every = timer.last("Timer", "OnUnitActiveSec")
    if not every:
        raise LabError("%s: the lab runs timers with OnUnitActiveSec= only" % timer.name)
    cmd = " ".join(shlex.quote(a) for a in service_argv)
    return ["sh", "-c", "sleep %g; while :; do %s; sleep %g; done" % (
        first, cmd, seconds(every))]


def order(units):
    """The units (a dict name -> Unit) in an order that respects every
    After= among them; otherwise their given order. A cycle is an error,
    as systemd refuses such a transaction."""
    names = list(units)
    done, out, busy = set(), [], set()

    def visit(n, path):
        if n in done:
            return
        if n in busy:
            raise LabError("units ordered in a cycle: %s" % " -> ".join(path + [n]))
        busy.add(n)
        for a in units[n].after():
            a = a[:-8] if a.endswith(".service") else a
            if a in units:
                visit(a, path + [n])
        busy.discard(n)
        done.add(n)
        out.append(n)

    for n in names:
        visit(n, [])
    return out


def systemctl_line(line):
    """(verb, [unit names]) of a `systemctl` line the lab carries out, or
    None for any other line. `enable --now` is start (nothing boots the
    lab's hosts but the lab, which starts what is enabled: see boot()),
    `disable --now` stop."""
    w = shlex.split(line)
    if not w or w[0] != "systemctl":
        return None
    args = [x for x in w[1:] if not x.startswith("-")]
    flags = [x for x in w[1:] if x.startswith("-")]
    if not args:
        return None
    verb, names = args[0], [n[:-8] if n.endswith(".service") else n for n in args[1:]]
    if verb == "enable" and "--now" in flags:
        verb = "start"
    elif verb == "disable" and "--now" in flags:
        verb = "stop"
    if verb not in ("start", "stop", "restart", "enable", "disable", "is-active", "status",
                    "daemon-reload", "reload"):
        raise LabError("systemctl %s: not a verb the lab carries out" % verb)
    return verb, names


# -- I/O ---------------------------------------------------------------------------
def unit_file(name):
    """NAME.timer stays as it is; anything else is NAME.service."""
    return name if name.endswith(".timer") else name + ".service"


def find(host, name, extra_dirs=()):
    """The unit file of name as the host sees it, or None."""
    for d in UNIT_DIRS:
        p = host.path(os.path.join(d, unit_file(name)))
        if os.path.exists(p):
            return p
    for d in extra_dirs:
        p = os.path.join(d, unit_file(name))
        if os.path.exists(p):
            return p
    return None


def load(host, name, extra_dirs=()):
    p = find(host, name, extra_dirs)
    if not p:
        raise LabError("%s: unit %s not found (%s)" % (
            host.name, unit_file(name), ", ".join(UNIT_DIRS + list(extra_dirs))))
    with open(p) as f:
        return Unit(name, f.read())


def environment(host, unit):
    env = {}
    for v in unit.get("Service", "EnvironmentFile"):
        optional = v.startswith("-")
        p = v.lstrip("-")
        try:
            with open(host.path(p)) as f:
                env.update(env_file(f.read()))
        except OSError:
            if not optional:
                raise LabError("%s: %s.service: EnvironmentFile=%s: cannot read" % (
                    host.name, unit.name, p))
    for v in unit.get("Service", "Environment"):
        env.update(env_assignments(v))
    return env


def condition_met(host, unit):
    for p in unit.get("Unit", "ConditionFileNotEmpty"):
        try:
            if os.path.getsize(host.path(p)) == 0:
                return False
        except OSError:
            return False
    return True


# Type=notify programs that send READY=1 only when systemd itself is their
# parent (keepalived's check_parent_systemd()): the lab, their parent here,
# takes them as started once they run, as for Type=simple
NOTIFY_UNDER_SYSTEMD_ONLY = ("keepalived",)


def process_name(name, unit):
    """The host's service (process) unit NAME runs as: timer-STEM for
    STEM.timer (its loop), else its ExecStart= program's name."""
    if name.endswith(".timer"):
        return "timer-" + name[:-6]
    argv, _ = command(unit.get("Service", "ExecStart")[0], {})
    return os.path.basename(argv[0])


def start(host, names, extra_dirs=(), extra_env=None, progress=None, timeout=60):
    """`systemctl start NAMES` on host: each unit in After= order,
    ExecStartPre= lines run to completion, ExecStart= started as the
    host's service named after its program; Type=notify waits for
    READY=1. Returns the names started (a unit whose condition fails is
    skipped, as systemd skips it)."""
    units = {n: load(host, n, extra_dirs) for n in names}
    started = []
    for n in order(units):
        u = units[n]
        if n.endswith(".timer"):
            stem = n[:-6]
            svc = "timer-" + stem
            if not host.service_pid(svc):
                s = load(host, u.last("Timer", "Unit", stem + ".service")[:-8], extra_dirs)
                argv, _ = command(s.get("Service", "ExecStart")[0], environment(host, s))
                argv[0] = local(host, argv[0])
                host.start(svc, timer_loop(u, argv))
                started.append(n)
            continue
        if not condition_met(host, u):
            if progress:
                progress("%s: %s.service skipped: a Condition is not met" % (host.name, n))
            continue
        env = environment(host, u)
        env.update((extra_env or {}).get(n, {}))
        starts = u.get("Service", "ExecStart")
        if len(starts) != 1:
            raise LabError("%s: %s.service: %d ExecStart= lines" % (host.name, n, len(starts)))
        argv, _ = command(starts[0], env)
        svc = os.path.basename(argv[0])
        if host.service_pid(svc):
            continue  # active already: start does nothing
        runtime_dirs(host, u)
        for line in u.get("Service", "ExecStartPre"):
            pre, ignore = command(line, env)
            pre[0] = local(host, pre[0])
            r = host.run(pre, check=False, timeout=timeout, env=env)
            if r.returncode != 0 and not ignore:
                raise LabError("%s: %s.service: ExecStartPre=%s: exit %d\n%s%s" % (
                    host.name, n, " ".join(pre), r.returncode, r.stdout, r.stderr))
        argv[0] = local(host, argv[0])
        notify = u.service_type() == "notify" and svc not in NOTIFY_UNDER_SYSTEMD_ONLY
        sock = path = None
        if notify:
            path = host.lab.path("notify-%s-%s" % (host.name, n))
            try:
                os.unlink(path)
            except OSError:
                pass
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
            sock.bind(path)
            env["NOTIFY_SOCKET"] = path
        try:
            pid = host.start(svc, argv, env=env)
            if notify:
                wait_ready(host, n, sock, pid, timeout)
        finally:
            if sock:
                sock.close()
                os.unlink(path)
        started.append(n)
    return started


def runtime_dirs(host, unit):
    """RuntimeDirectory=: the directories under /run the program expects
    systemd to have made (corosync-qdevice's and corosync-qnetd's sockets
    live there), with RuntimeDirectoryMode= (default 0755)."""
    names = " ".join(unit.get("Service", "RuntimeDirectory")).split()
    if not names:
        return
    mode = unit.last("Service", "RuntimeDirectoryMode", "0755")
    host.run(["install", "-d", "-m", mode] + ["/run/" + n for n in names])


def local(host, prog):
    """The lab installs its programs in the hosts' /usr/bin overlay, not
    where a package puts them (/usr/sbin): a path the host lacks is
    looked up by name on the host's PATH."""
    if "/" not in prog or os.path.exists(host.path(prog)):
        return prog
    return os.path.basename(prog)


def wait_ready(host, name, sock, pid, timeout):
    from .hosts import pid_alive
    end = time.time() + timeout
    sock.settimeout(0.2)
    while time.time() < end:
        try:
            msg = sock.recv(4096).decode(errors="replace")
        except socket.timeout:
            if not pid_alive(pid):
                raise LabError("%s: %s.service: its process exited before READY=1" % (
                    host.name, name))
            continue
        if "READY=1" in msg.split("\n"):
            return
    raise LabError("%s: %s.service: no READY=1 within %ds (Type=notify)" % (
        host.name, name, timeout))
