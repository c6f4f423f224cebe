"""vipd (and the real keepalived) in the test bed: configuration files in
keepalived's language, start / crash / graceful stop, vipd's admin socket,
who holds a VIP (the addresses on each host's eth0), a client's neighbour
cache and pings, packets on the wire (tcpdump into a pcap file, decoded
here), address and neighbour events with their times (`ip -ts monitor`),
and hand-made VRRP advertisements sent from a host.

    from cphatest import vipd
    vipd.require()                                    # SKIP (77) when it cannot run
    with cphatest.Lab("vipd-x") as lab:
        r1, r2, c = vipd.hosts(lab, 2)                # routers .11, .12; client .50
        a = vipd.Vipd(lab, r1, vipd.instance(priority=200))
        b = vipd.Vipd(lab, r2, vipd.instance(priority=100))
        a.start(); b.start()
        vipd.wait_holders([r1, r2], VIP, ["r1"], timeout=3)
        a.crash()                                     # SIGKILL, by PID

VRRP timing (RFC 9568 §6.1; VRRPv2: RFC 3768, Skew_Time counted in whole
seconds), what vipd and keepalived compute:
    Skew_Time            = (256 - Priority) * Master_Adver_Interval / 256
    Master_Down_Interval = 3 * Master_Adver_Interval + Skew_Time

Everything here talks to lab hosts only (198.18.0.0/15, 2001:db8::/32 and
the hosts' own IPv6 link-local addresses) and stops only the processes it
started (through the Lab, by PID).
"""

import datetime
import ipaddress
import json
import os
import re
import signal
import socket
import struct
import subprocess
import sys
import time

from . import util

KEEPALIVED = "/usr/sbin/keepalived"
CLIENT_IP = "198.18.0.50"
CLIENT_IP6 = "2001:db8::50"
ROUTER_IPS = ("198.18.0.11", "198.18.0.12", "198.18.0.13", "198.18.0.14")
ROUTER_IP6S = ("2001:db8::11", "2001:db8::12", "2001:db8::13", "2001:db8::14")
OTHER_IP = "198.18.0.60"   # a third party (sends hand-made packets)
VIP = "198.18.0.100"
VIP6 = "2001:db8::100"
MCAST4 = "224.0.0.18"
MCAST6 = "ff02::12"
VRRP_PROTO = 112

# Lines keepalived 2.2.7 logs when it drops a VRRP packet (its vrrp.c);
# none may appear for a peer that speaks the protocol as keepalived does.
KEEPALIVED_BAD = re.compile(
    r"invalid TTL/HL|TTL/HL \d+ not in range|wrong version|received a \d+ auth|"
    r"invalid passwd|Invalid VRRPv[23] checksum|vrrp packet too|"
    r"advertisement interval mismatch|Invalid packet type|unexpected ip number count|"
    r"ip_tot_len mismatch|icast packet but received|expected \d+ VIPs but received|"
    r"not present in MASTER advert|not a unicast peer|discarding \S*icast packet|"
    r"Invalid auth type|bogus", re.I)


# ------------------------------------------------------------- set-up --

def binary():
    """build/vipd/vipd (under $CPHA_BUILD_DIR when set)."""
    return util.built("vipd", "vipd")


def require(tools=("tcpdump",)):
    """Exit 77 with "SKIP: reason" unless root, the test bed, the tools and
    vipd are there."""
    util.require_root(tools)
    if not os.access(binary(), os.X_OK):
        print("SKIP: %s not built (cmake --build build --target vipd; or set "
              "CPHA_BUILD_DIR)" % binary(), flush=True)
        sys.exit(util.SKIP)


def keepalived_skip_reason():
    """None when the real keepalived can run here, else why not."""
    if not os.access(KEEPALIVED, os.X_OK):
        return "%s not installed" % KEEPALIVED
    try:
        r = subprocess.run([KEEPALIVED, "--version"], capture_output=True, text=True,
                           timeout=10, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired) as e:
        return "keepalived --version: %s" % e
    if "v2." not in r.stdout + r.stderr:
        return "unexpected keepalived version: %r" % (r.stdout + r.stderr)[:80]
    return None


def keepalived_version():
    r = subprocess.run([KEEPALIVED, "--version"], capture_output=True, text=True,
                       timeout=10, stdin=subprocess.DEVNULL)
    return (r.stdout + r.stderr).splitlines()[0].strip()


def hosts(lab, nrouters, client=True, v6=False, other=False):
    """Routers r1..rN (198.18.0.11-14, with v6 also 2001:db8::11-14), then
    the client c (198.18.0.50 / 2001:db8::50), then (other=True) a third
    party x (198.18.0.60). Returns the list in that order. With v6 every
    host's link-local address is ready (not tentative) on return."""
    out = [lab.add_host("r%d" % (i + 1), v4=ROUTER_IPS[i] + "/24",
                        v6=ROUTER_IP6S[i] + "/64" if v6 else None)
           for i in range(nrouters)]
    if client:
        out.append(lab.add_host("c", v4=CLIENT_IP + "/24",
                                v6=CLIENT_IP6 + "/64" if v6 else None))
    if other:
        out.append(lab.add_host("x", v4=OTHER_IP + "/24"))
    if v6:
        for h in out:
            wait_link_local(h)
    return out


# ------------------------------------------------------------- timing --

def skew(priority, advert, version=3):
    """Skew_Time in seconds: v3 counts it in Master_Adver_Interval, v2 in
    whole seconds."""
    base = advert if version == 3 else 1.0
    return (256 - priority) * base / 256.0


def master_down(priority, advert, version=3):
    """Master_Down_Interval in seconds."""
    return 3 * advert + skew(priority, advert, version)


# ------------------------------------------------------ configuration --

def instance(name="VI_1", vrid=51, priority=100, vips=(VIP + "/24",), advert=0.2,
             interface="eth0", state="BACKUP", version=None, nopreempt=False,
             preempt_delay=None, unicast_src=None, peers=(), auth_pass=None,
             track_script=(), track_interface=(), extra=()):
    """One vrrp_instance block. track_script entries are names or
    (name, weight) pairs; extra: more lines, as written."""
    lines = ["vrrp_instance %s {" % name,
             "    state %s" % state,
             "    interface %s" % interface,
             "    virtual_router_id %d" % vrid,
             "    priority %d" % priority,
             "    advert_int %g" % advert]
    if version is not None:
        lines.append("    version %d" % version)
    if nopreempt:
        lines.append("    nopreempt")
    if preempt_delay is not None:
        lines.append("    preempt_delay %g" % preempt_delay)
    if unicast_src:
        lines.append("    unicast_src_ip %s" % unicast_src)
    if peers:
        lines += ["    unicast_peer {"] + ["        %s" % p for p in peers] + ["    }"]
    if auth_pass is not None:
        lines += ["    authentication {", "        auth_type PASS",
                  "        auth_pass %s" % auth_pass, "    }"]
    lines += ["    virtual_ipaddress {"] + ["        %s" % v for v in vips] + ["    }"]
    if track_script:
        lines.append("    track_script {")
        for t in track_script:
            if isinstance(t, (tuple, list)):
                lines.append("        %s weight %d" % tuple(t))
            else:
                lines.append("        %s" % t)
        lines.append("    }")
    if track_interface:
        lines += ["    track_interface {"] + ["        %s" % t for t in track_interface] \
            + ["    }"]
    lines += ["    %s" % x for x in extra]
    lines.append("}")
    return "\n".join(lines) + "\n"


def script(name, command, interval=1, weight=None, fall=1, rise=1, timeout=None):
    """One vrrp_script block (interval and timeout in whole seconds, as
    keepalived reads them)."""
    lines = ["vrrp_script %s {" % name,
             "    script \"%s\"" % command,
             "    interval %d" % interval,
             "    fall %d" % fall,
             "    rise %d" % rise]
    if weight is not None:
        lines.append("    weight %d" % weight)
    if timeout is not None:
        lines.append("    timeout %d" % timeout)
    lines.append("}")
    return "\n".join(lines) + "\n"


def flag_script(lab, name):
    """A command line that succeeds while lab file `name` does not exist,
    and that file's path: the test fails the check by creating it."""
    flag = lab.path("flags", name)
    return "/usr/bin/test ! -e %s" % flag, flag


def config(body, version=3, router_id="cpha", global_extra=()):
    """global_defs (VRRP version, router_id, more lines) + body."""
    lines = ["global_defs {",
             "    router_id %s" % router_id,
             "    vrrp_version %d" % version]
    lines += ["    %s" % x for x in global_extra]
    lines.append("}")
    return "\n".join(lines) + "\n\n" + body


# ------------------------------------------------------------ daemons --

wait_log = util.wait_log


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


# ------------------------------------------------- addresses and links --

def _norm(ip):
    return str(ipaddress.ip_address(ip))


def addresses(host, ifname="eth0"):
    """{address: addr_info dict} on host's interface (ip -j addr)."""
    r = host.run(["ip", "-j", "addr", "show", "dev", ifname], check=False)
    out = {}
    if r.returncode != 0:
        return out
    for link in json.loads(r.stdout or "[]"):
        for a in link.get("addr_info", []):
            if "local" in a:  # filtered-out entries are empty objects
                out[_norm(a["local"])] = a
    return out


def has_addr(host, ip, ifname="eth0"):
    return _norm(ip) in addresses(host, ifname)


def holders(hs, ip):
    """Names of the hosts whose eth0 carries ip."""
    return [h.name for h in hs if has_addr(h, ip)]


def wait_holders(hs, ip, names, timeout, interval=0.02):
    """Poll until exactly `names` hold ip; the seconds it took."""
    t0 = time.monotonic()
    want = sorted(names)
    last = []

    def ok():
        last[:] = [holders(hs, ip)]
        return sorted(last[0]) == want
    try:
        util.wait_until(ok, timeout, interval, "%s held by %s" % (ip, want))
    except AssertionError as e:
        raise AssertionError("%s (last seen held by %s)" % (e, last[0] if last else "?"))
    return time.monotonic() - t0


def steady_holders(hs, ip, names, duration, interval=0.05):
    """Assert that exactly `names` hold ip for `duration` seconds."""
    want = sorted(names)
    end = time.monotonic() + duration
    n = 0
    while n < 10000:
        n += 1
        got = sorted(holders(hs, ip))
        if got != want:
            raise AssertionError("%s held by %s, expected %s" % (ip, got, want))
        if time.monotonic() >= end:
            return
        time.sleep(interval)


def mac(host, ifname="eth0"):
    r = host.run(["ip", "-j", "link", "show", "dev", ifname])
    return json.loads(r.stdout)[0]["address"].lower()


def link_local(host, ifname="eth0"):
    """The interface's fe80:: address once usable (not tentative), or None."""
    r = host.run(["ip", "-j", "-6", "addr", "show", "dev", ifname, "scope", "link"],
                 check=False)
    for link in json.loads(r.stdout or "[]"):
        for a in link.get("addr_info", []):
            if "local" not in a or a.get("tentative") or a.get("dadfailed"):
                continue
            return a["local"]
    return None


def wait_link_local(host, timeout=10):
    """Wait for the kernel's link-local address (it goes through DAD, about
    a second); VRRPv3 over IPv6 sends from it (RFC 9568 §5.1.2.1)."""
    return util.wait_until(lambda: link_local(host), timeout, 0.05,
                           "%s: IPv6 link-local address" % host.name)


def neigh(host, ip, ifname="eth0"):
    """(lladdr or None, [states]) of host's neighbour entry for ip."""
    r = host.run(["ip", "-j", "neigh", "show", "to", ip, "dev", ifname], check=False)
    for e in json.loads(r.stdout or "[]"):
        if _norm(e.get("dst", "::")) == _norm(ip):
            return (e.get("lladdr") or "").lower() or None, e.get("state", [])
    return None, []


def ping(host, ip, count=1, timeout=1.0):
    """True when ip answered an echo from host."""
    r = host.run(["ping", "-n", "-c", str(count), "-W", "%g" % timeout, "-i", "0.2", ip],
                 check=False, timeout=count * (timeout + 1) + 5)
    return r.returncode == 0


def echo_requests(host, v6=False):
    """ICMP (v6: ICMPv6) echo requests host's kernel received so far."""
    if v6:
        text = host.run(["cat", "/proc/net/snmp6"]).stdout
        for line in text.splitlines():
            k, _, v = line.partition(" ")
            if k == "Icmp6InEchos":
                return int(v.split()[0])
        raise AssertionError("no Icmp6InEchos in %s's /proc/net/snmp6" % host.name)
    lines = [x.split() for x in host.run(["cat", "/proc/net/snmp"]).stdout.splitlines()
             if x.startswith("Icmp:")]
    return int(lines[1][lines[0].index("InEchos")])


def bridge_port_state(lab, host, forwarding):
    """Stop (or restart) the bridge forwarding to and from host's port,
    without touching carrier: host's eth0 stays up and running, so its VRRP
    instance is not in FAULT (lab.link_down takes the carrier away). The
    lab deletes the port with the host, whatever its state."""
    subprocess.run(["bridge", "link", "set", "dev", host.veth, "state",
                    "3" if forwarding else "0"], check=True, capture_output=True,
                   timeout=10)


# ----------------------------------------------------- ip -ts monitor --

_TS = re.compile(r"^\[(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)\.(\d{6})\] ?(.*)$")


class Event:
    """One `ip -ts monitor` event: its time (epoch seconds, from ip's
    clock as it read the message), deleted or not, its first line."""

    def __init__(self, ts, deleted, text):
        self.ts, self.deleted, self.text = ts, deleted, text

    def __repr__(self):
        return "<Event %.6f %s%s>" % (self.ts, "Deleted " if self.deleted else "",
                                      self.text)


class Watch:
    """`ip -ts monitor OBJECTS` in a host: address or neighbour changes,
    each with the time it happened."""

    def __init__(self, host, objects=("address",), name="ipmon"):
        self.host = host
        self.proc = host.spawn(["ip", "-ts", "monitor"] + list(objects), name=name)
        # ready when `ip netns exec` has exec'd ip monitor and it holds its
        # netlink socket
        util.wait_until(self._ready, 5, 0.01, "ip monitor in %s" % host.name)
        time.sleep(0.02)

    def _ready(self):
        if not self.proc.running():
            raise AssertionError("ip monitor exited: %s" % self.proc.log_text())
        try:
            with open("/proc/%d/cmdline" % self.proc.pid, "rb") as f:
                argv = f.read().split(b"\0")
            if b"netns" in argv:
                return False
            return any(os.readlink("/proc/%d/fd/%s" % (self.proc.pid, fd)).startswith(
                "socket:") for fd in os.listdir("/proc/%d/fd" % self.proc.pid))
        except OSError:
            return False

    def events(self):
        out = []
        for line in self.proc.log_text().splitlines():
            m = _TS.match(line)
            if not m:
                continue
            dt = datetime.datetime.strptime(m.group(1), "%Y-%m-%dT%H:%M:%S")
            ts = time.mktime(dt.timetuple()) + int(m.group(2)) / 1e6
            text = m.group(3)
            deleted = text.startswith("Deleted ")
            out.append(Event(ts, deleted, text[8:] if deleted else text))
        return out

    def addr_events(self, ip):
        """[(time, "add" | "del")] for ip on any interface of the host."""
        want = _norm(ip)
        out = []
        for e in self.events():
            m = re.search(r"\binet6? (\S+)/\d+", e.text)
            if m and _norm(m.group(1)) == want:
                out.append((e.ts, "del" if e.deleted else "add"))
        return out

    def first(self, ip, what="add", after=0.0, timeout=2.0):
        """Time of the first `what` ("add" or "del") of ip at or after
        `after`; waits up to `timeout` for ip monitor to write it (it may
        lag behind a poll that already saw the change)."""
        def find():
            for ts, w in self.addr_events(ip):
                if w == what and ts >= after:
                    return ts
            return None
        return util.wait_until(find, timeout, 0.02, "%s: %s of %s in ip monitor"
                               % (self.host.name, what, ip))

    def first_add(self, ip, after=0.0, timeout=2.0):
        return self.first(ip, "add", after, timeout)

    def first_del(self, ip, after=0.0, timeout=2.0):
        return self.first(ip, "del", after, timeout)

    def first_neigh(self, ip, lladdr, after=0.0, timeout=2.0):
        """Time the host's entry for ip first pointed at lladdr (waits for
        ip monitor to write it)."""
        def find():
            for ts, ll, _state, deleted in self.neigh_events(ip):
                if ll == lladdr and not deleted and ts >= after:
                    return ts
            return None
        return util.wait_until(find, timeout, 0.02, "%s: neighbour %s -> %s in ip monitor"
                               % (self.host.name, ip, lladdr))

    def neigh_events(self, ip):
        """[(time, lladdr or None, state, deleted)] for ip."""
        want = _norm(ip)
        out = []
        for e in self.events():
            parts = e.text.split()
            if not parts:
                continue
            try:
                if _norm(parts[0]) != want:
                    continue
            except ValueError:
                continue
            ll = None
            if "lladdr" in parts:
                ll = parts[parts.index("lladdr") + 1].lower()
            out.append((e.ts, ll, parts[-1], e.deleted))
        return out


# --------------------------------------------------------------- pcap --

class Packet:
    """A decoded frame: ts, smac, dmac, kind ("vrrp", "arp", "na", "ns",
    "echo", "other"), IP src, dst and ttl (hop limit) where there is one, and
    the fields of its kind (vrrp: version, vrid, priority, adver (v3
    centiseconds, v2 seconds), addrs, auth_type, auth; arp: op, sha, spa,
    tha, tpa; na: target, override, solicited, tlla; ns: target)."""

    def __init__(self, ts):
        self.ts = ts
        self.smac = self.dmac = None
        self.kind = "other"
        self.src = self.dst = None
        self.ttl = None
        self.f = {}

    def __getattr__(self, k):
        try:
            return self.__dict__["f"][k]
        except KeyError:
            raise AttributeError(k)

    def __repr__(self):
        return "<%s %.6f %s->%s %s>" % (self.kind, self.ts, self.src, self.dst, self.f)


def _macs(b):
    return ":".join("%02x" % x for x in b)


def _vrrp(p, payload, family):
    if len(payload) < 8:
        return
    alen = 4 if family == 4 else 16
    ver = payload[0] >> 4
    n = payload[3]
    p.kind = "vrrp"
    p.f.update(version=ver, type=payload[0] & 15, vrid=payload[1], priority=payload[2],
               naddrs=n, checksum=payload[6] << 8 | payload[7])
    if ver == 2:
        p.f.update(auth_type=payload[4], adver=payload[5])
    else:
        p.f.update(adver=(payload[4] & 15) << 8 | payload[5])
    addrs = []
    for i in range(n):
        a = payload[8 + i * alen:8 + (i + 1) * alen]
        if len(a) == alen:
            addrs.append(str(ipaddress.ip_address(a)))
    p.f["addrs"] = addrs
    if ver == 2:
        p.f["auth"] = payload[8 + n * alen:8 + n * alen + 8]


def decode(ts, frame):
    p = Packet(ts)
    if len(frame) < 14:
        return p
    p.dmac, p.smac = _macs(frame[0:6]), _macs(frame[6:12])
    et = frame[12] << 8 | frame[13]
    b = frame[14:]
    if et == 0x0806 and len(b) >= 28:
        p.kind = "arp"
        p.f.update(op=b[6] << 8 | b[7], sha=_macs(b[8:14]),
                   spa=socket.inet_ntoa(b[14:18]), tha=_macs(b[18:24]),
                   tpa=socket.inet_ntoa(b[24:28]))
    elif et == 0x0800 and len(b) >= 20:
        hl = (b[0] & 15) * 4
        p.ttl = b[8]
        p.src, p.dst = socket.inet_ntoa(b[12:16]), socket.inet_ntoa(b[16:20])
        total = b[2] << 8 | b[3]
        if b[9] == VRRP_PROTO:
            _vrrp(p, b[hl:total], 4)
        elif b[9] == 1 and len(b) > hl and b[hl] == 8:
            p.kind = "echo"
    elif et == 0x86dd and len(b) >= 40:
        nh = b[6]
        p.ttl = b[7]
        p.src = str(ipaddress.ip_address(b[8:24]))
        p.dst = str(ipaddress.ip_address(b[24:40]))
        body = b[40:40 + (b[4] << 8 | b[5])]
        if nh == VRRP_PROTO:
            _vrrp(p, body, 6)
        elif nh == 58 and body:
            if body[0] == 136 and len(body) >= 24:
                p.kind = "na"
                p.f.update(target=str(ipaddress.ip_address(body[8:24])),
                           override=bool(body[4] & 0x20), solicited=bool(body[4] & 0x40),
                           tlla=None)
                opt = body[24:]
                while len(opt) >= 8 and opt[1]:
                    if opt[0] == 2:
                        p.f["tlla"] = _macs(opt[2:8])
                    opt = opt[opt[1] * 8:]
            elif body[0] == 135 and len(body) >= 24:
                p.kind = "ns"
                p.f["target"] = str(ipaddress.ip_address(body[8:24]))
            elif body[0] == 128:
                p.kind = "echo"
    return p


def read_pcap(path):
    """Decoded packets of a pcap file (Ethernet), a partial last record
    left out."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        return []
    if len(data) < 24:
        return []
    magic = data[:4]
    if magic in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1"):
        e = "<"
    elif magic in (b"\xa1\xb2\xc3\xd4", b"\xa1\xb2\x3c\x4d"):
        e = ">"
    else:
        raise ValueError("%s: not a pcap file" % path)
    div = 1e9 if magic in (b"\x4d\x3c\xb2\xa1", b"\xa1\xb2\x3c\x4d") else 1e6
    off, out = 24, []
    while off + 16 <= len(data):
        sec, frac, incl, _orig = struct.unpack(e + "IIII", data[off:off + 16])
        if off + 16 + incl > len(data):
            break
        out.append(decode(sec + frac / div, data[off + 16:off + 16 + incl]))
        off += 16 + incl
    return out


class Capture:
    """tcpdump on a host's eth0 into a pcap file in the lab directory:
    VRRP, ARP, ICMP and ICMPv6 by default."""

    FILTER = "ip proto 112 or ip6 proto 112 or arp or icmp or icmp6"

    def __init__(self, host, name="tcpdump", filt=FILTER, ifname="eth0"):
        self.host = host
        self.path = host.lab.path("pcap", "%s-%s.pcap" % (host.name, name))
        # -Z root: write the file as root (the lab directory is 0700);
        # -U --immediate-mode: every packet is in the file at once
        self.proc = host.spawn(["tcpdump", "-i", ifname, "-n", "-U", "--immediate-mode",
                                "-Z", "root", "-s", "512", "-w", self.path, filt],
                               name=name)
        wait_log(self.proc, "listening on", 10)

    def packets(self, kind=None):
        return [p for p in read_pcap(self.path) if kind is None or p.kind == kind]

    def vrrp(self, src=None, vrid=None):
        return [p for p in self.packets("vrrp")
                if (src is None or p.src == src) and (vrid is None or p.vrid == vrid)]

    def garps(self, ip, smac=None):
        """Gratuitous ARPs (sender IP = target IP = ip) or unsolicited
        neighbour advertisements for ip (override set), in order."""
        out = []
        for p in self.packets():
            if p.kind == "arp" and p.spa == ip and p.tpa == ip:
                pass
            elif p.kind == "na" and _norm(p.target) == _norm(ip) and p.override \
                    and not p.solicited:
                pass
            else:
                continue
            if smac is None or p.smac == smac:
                out.append(p)
        return out

    def stop(self):
        self.proc.terminate_and_wait(5)


# ------------------------------------------- hand-made advertisements --

def _sum16(b):
    if len(b) % 2:
        b += b"\0"
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return s


def advert(version, vrid, priority, vips, adver, src=None, dst=MCAST4, auth_pass=None,
           bad_checksum=False):
    """VRRP advertisement bytes (the IP payload) over IPv4. v3: checksum over
    the IPv4 pseudo-header with src and dst (as keepalived 2.2.7 and vipd);
    v2: no pseudo-header, adver in seconds, auth_pass (PASS) or none."""
    addrs = b"".join(socket.inet_aton(v.split("/")[0]) for v in vips)
    if version == 2:
        hdr = struct.pack("!BBBBBBH", 0x21, vrid, priority, len(vips),
                          1 if auth_pass is not None else 0, adver, 0)
        pkt = hdr + addrs + (auth_pass or "").encode().ljust(8, b"\0")[:8]
        csum = 0xffff - _sum16(pkt)
    else:
        hdr = struct.pack("!BBBBHH", 0x31, vrid, priority, len(vips), adver & 0x0fff, 0)
        pkt = hdr + addrs
        phdr = socket.inet_aton(src) + socket.inet_aton(dst) + \
            struct.pack("!BBH", 0, VRRP_PROTO, len(pkt))
        csum = 0xffff - _sum16(phdr + pkt)
    if bad_checksum:
        csum ^= 0x5a5a
    return pkt[:6] + struct.pack("!H", csum) + pkt[8:]


def _send_raw(src, dst, ttl, payloads, interval):
    s = socket.socket(socket.AF_INET, socket.SOCK_RAW, VRRP_PROTO)
    try:
        s.setsockopt(socket.IPPROTO_IP, socket.IP_TTL, ttl)
        s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_TTL, ttl)
        s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_LOOP, 0)
        s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF, socket.inet_aton(src))
        s.bind((src, 0))
        for i, p in enumerate(payloads):
            if i:
                time.sleep(interval)
            s.sendto(p, (dst, 0))
    finally:
        s.close()
    return len(payloads)


def send_adverts(host, payloads, dst=MCAST4, ttl=255, interval=0.05):
    """Send VRRP payloads from host (IPv4, protocol 112, from host.v4, with
    this TTL), `interval` seconds apart; returns how many were sent."""
    from .lbd import in_host  # a socket opened inside host's namespace
    return in_host(host, _send_raw, host.v4, dst, ttl, list(payloads), interval,
                   timeout=len(payloads) * interval + 10)


# ---------------------------------------------------------------- bed --

class Bed:
    """Routers r1..rN each running vipd (one instance unless body says
    otherwise), a client c that captures what is on the wire (tcpdump),
    and an `ip -ts monitor address` on every router.

    priorities: {router name: priority}, names r1..rN.
    body(name, priority) -> the vrrp_* blocks of that router (default: one
    instance VI_1, VRID 51, VIP 198.18.0.100/24, advert_int `advert`);
    global_extra(name) -> more global_defs lines for that router."""

    def __init__(self, lab, priorities, advert=0.2, v6=False, other=False, body=None,
                 global_extra=None):
        self.lab = lab
        self.advert = advert
        self.prio = dict(priorities)
        names = sorted(priorities)
        hs = hosts(lab, len(names), v6=v6, other=other)
        self.routers = hs[:len(names)]
        self.host = {h.name: h for h in hs}
        self.client = self.host["c"]
        self.other = self.host.get("x")
        self.mac = {h.name: mac(h) for h in hs}
        self.cap = Capture(self.client)
        self.watch = {h.name: Watch(h) for h in self.routers}
        body = body or (lambda n, p: instance(priority=p, advert=advert))
        self.vipd = {h.name: Vipd(lab, h, body(h.name, self.prio[h.name]),
                                  global_extra=global_extra(h.name) if global_extra else ())
                     for h in self.routers}

    def start(self, *names):
        """Start vipd on the routers named (all by default); the time
        before the first spawn."""
        t = time.time()
        for n in names or [h.name for h in self.routers]:
            self.vipd[n].start()
        return t

    def mdi(self, name):
        return master_down(self.prio[name], self.advert)

    def skew(self, name):
        return skew(self.prio[name], self.advert)

    def hosts_named(self, names):
        return [self.host[n] for n in names]

    def wait_holders(self, names, timeout, ip=VIP, among=None):
        """Exactly `names` of the routers (or of `among`) hold ip."""
        hs = self.routers if among is None else self.hosts_named(among)
        return wait_holders(hs, ip, names, timeout)

    def holders(self, ip=VIP):
        return holders(self.routers, ip)

    def adverts(self, name, vrid=None, after=None, before=None, priority=None):
        """VRRP advertisements router `name` sent (by source MAC), as the
        client saw them."""
        return [p for p in self.cap.packets("vrrp")
                if p.smac == self.mac[name] and (vrid is None or p.vrid == vrid)
                and (after is None or p.ts >= after) and (before is None or p.ts < before)
                and (priority is None or p.priority == priority)]

    def wait_adverts(self, name, after, priority=None, vrid=None, timeout=2.0):
        """The advertisements of `name` since `after` (with that priority),
        waiting until there is at least one in the capture file."""
        return util.wait_until(lambda: self.adverts(name, vrid=vrid, after=after,
                                                    priority=priority),
                               timeout, 0.02, "an advertisement from %s with priority %s"
                               % (name, priority))

    def last_advert(self, name, before, vrid=None):
        a = self.adverts(name, vrid=vrid, before=before)
        if not a:
            raise AssertionError("no advertisement from %s before %.3f" % (name, before))
        return a[-1]

    def first_advert(self, name, after, vrid=None, timeout=3.0):
        """The first advertisement from `name` at or after `after` (waits
        for it to reach the capture file)."""
        return util.wait_until(lambda: (self.adverts(name, vrid=vrid, after=after) or [None])[0],
                               timeout, 0.02, "an advertisement from %s" % name)


# ------------------------------------------------ keepalived interop --

class Interop:
    """One interoperability case (a unittest.TestCase mixin runs it with
    run_interop): r1 runs the master side (priority 200), r2 the backup
    side (100), one of them vipd and the other the real keepalived, same
    keepalived-language instance (VRID 51, one VIP), VRRPv3 (advert_int
    0.2 s) or VRRPv2 (1 s, PASS "s3cret"), multicast or unicast, IPv4 or
    IPv6. tcpdump runs on r2 (it sees r1's unicast adverts and its own).

    1. the master side starts alone and takes the VIP; the backup side
       starts and stays BACKUP for its whole Master_Down_Interval and
       0.3 s more (had it dropped the master's adverts, it would have
       taken the VIP by then);
    2. SIGKILL the master: the backup takes over MDI(100) after the
       master's last advert;
    3. restart the crashed side: it removes its stale VIP and preempts
       (the new master steps down on its first advert);
    4. SIGTERM it: it sends priority 0 and the backup takes over
       Skew_Time(100) later;
    and neither ever reports a packet of the other as bad (vipd's
    bad_packets and its log, keepalived's log)."""

    PASS = "s3cret"
    MARGIN = 0.15
    EPS = 0.005

    def __init__(self, test, lab, master_kind, version, v6, unicast):
        self.t = test
        self.lab = lab
        self.version = version
        self.v6 = v6
        self.unicast = unicast
        self.advert = 0.2 if version == 3 else 1
        self.vip = VIP6 if v6 else VIP
        self.kinds = {"r1": master_kind,
                      "r2": "keepalived" if master_kind == "vipd" else "vipd"}
        self.prio = {"r1": 200, "r2": 100}
        hs = hosts(lab, 2, v6=v6)
        self.host = {h.name: h for h in hs}
        self.routers = hs[:2]
        self.addr = {h.name: (h.v6 if v6 else h.v4) for h in self.routers}
        self.mac = {h.name: mac(h) for h in self.routers}
        self.cap = Capture(self.host["r2"])
        self.watch = {h.name: Watch(h) for h in self.routers}
        self.daemons = {}
        self.crashed = []

    def body(self, name):
        other = "r2" if name == "r1" else "r1"
        kw = {}
        if self.unicast:
            kw.update(unicast_src=self.addr[name], peers=(self.addr[other],))
        if self.version == 2:
            kw["auth_pass"] = self.PASS
        return instance(priority=self.prio[name], advert=self.advert,
                        vips=(self.vip + ("/64" if self.v6 else "/24"),), **kw)

    def daemon(self, name, label=""):
        cls = Vipd if self.kinds[name] == "vipd" else Keepalived
        d = cls(self.lab, self.host[name], self.body(name), version=self.version,
                name=self.kinds[name] + label)
        self.daemons.setdefault(name, []).append(d)
        return d

    def mdi(self, name):
        return master_down(self.prio[name], self.advert, self.version)

    def adverts(self, name, after=None, before=None):
        return [p for p in self.cap.packets("vrrp")
                if p.smac == self.mac[name] and (after is None or p.ts >= after)
                and (before is None or p.ts < before)]

    def check_adverts(self, name, after):
        """name's advertisements on the wire are the configured ones."""
        adv = self.adverts(name, after=after)
        self.t.assertTrue(adv, "no advertisement from %s" % name)
        for p in adv:
            if p.priority == 0:
                continue
            self.t.assertEqual((p.version, p.vrid, p.priority, p.addrs),
                               (self.version, 51, self.prio[name], [self.vip]), p)
            if self.unicast:
                other = "r2" if name == "r1" else "r1"
                self.t.assertEqual(_norm(p.dst), _norm(self.addr[other]), p)
            else:
                self.t.assertEqual(p.dst, MCAST6 if self.v6 else MCAST4, p)
            # keepalived 2.2.7 sends IPv6 unicast adverts with hop limit
            # 64 (vipd accepts any TTL from unicast peers); else 255
            if not (self.unicast and self.v6 and self.kinds[name] == "keepalived"):
                self.t.assertEqual(p.ttl, 255, p)
            if self.version == 2:
                self.t.assertEqual((p.auth_type, p.auth), (1, b"s3cret\0\0"), p)
        return adv

    def backup_state_ok(self, d, name):
        """d (on `name`) is a backup that accepted the other's adverts."""
        if d.kind == "keepalived":
            self.t.assertEqual(d.states(), ["BACKUP"], d.log_text()[-2000:])
            return
        j = d.inst()
        self.t.assertEqual((j["state"], j["transitions"]), ("BACKUP", 1), j)
        other = "r2" if name == "r1" else "r1"
        peer_addr = self.addr[other] if (self.unicast or not self.v6) \
            else link_local(self.host[other])
        self.t.assertEqual([(_norm(p["address"]), p["checksum"]) for p in j["peers"]],
                           [(_norm(peer_addr), "plain" if self.version == 2 else "phdr")])
        self.t.assertGreaterEqual(j["peers"][0]["adverts"], 2)

    def no_bad(self):
        for name, ds in self.daemons.items():
            for d in ds:
                if d.kind == "keepalived":
                    self.t.assertEqual(d.bad_lines(), [], "keepalived on %s" % name)
                else:
                    self.t.assertNotIn("dropped an advertisement", d.log_text())
                    if d.running():
                        self.t.assertEqual(d.bad_packets(), {}, "vipd on %s" % name)

    def run(self):
        t = self.t
        step = util.step
        m = self.daemon("r1")
        b = self.daemon("r2")
        step("%s (200) on r1 alone" % m.kind)
        m.start()
        wait_holders(self.routers, self.vip, ["r1"], self.mdi("r1") + 3)
        t_b = b.start()
        # the backup's whole Master_Down_Interval (armed at its start-up)
        # and 0.3 s more
        steady_holders(self.routers, self.vip, ["r1"], self.mdi("r2") + 0.3)
        self.backup_state_ok(b, "r2")
        self.check_adverts("r1", after=t_b)
        self.no_bad()
        step("%s (100) on r2 stayed BACKUP for %.2fs: it accepts %s's adverts"
             % (b.kind, self.mdi("r2") + 0.3, m.kind))

        t_kill = m.crash()
        took = wait_holders([self.host["r2"]], self.vip, ["r2"], self.mdi("r2") + 2)
        last = self.adverts("r1", before=t_kill + 0.05)[-1]
        first = util.wait_until(lambda: (self.adverts("r2", after=t_kill) or [None])[0],
                                3, 0.02, "r2's first advert")
        gap = first.ts - last.ts
        step("SIGKILL %s: %s took over, first advert %.3fs after the master's last (MDI "
             "%.4fs); VIP seen on r2 %.3fs after the kill"
             % (m.kind, b.kind, gap, self.mdi("r2"), took))
        t.assertGreaterEqual(gap, self.mdi("r2") - self.EPS)
        t.assertLessEqual(gap, self.mdi("r2") + self.MARGIN)
        self.check_adverts("r2", after=t_kill)

        m2 = self.daemon("r1", label="-again")
        t_r = m2.start()
        wait_holders(self.routers, self.vip, ["r1"], self.mdi("r1") + 2)
        back = self.watch["r1"].first_add(self.vip, after=t_r)
        r2_del = self.watch["r2"].first_del(self.vip, after=t_r)
        first = util.wait_until(lambda: (self.adverts("r1", after=t_r) or [None])[0],
                                3, 0.02, "r1's first advert")
        step("%s restarted on r1: took the VIP back %.3fs after its start (MDI %.4fs); "
             "%s let go %.3fs after its first advert"
             % (m.kind, back - t_r, self.mdi("r1"), b.kind, r2_del - first.ts))
        # started in BACKUP, its Master_Down_Timer runs out: it discards
        # the lower priority's adverts. The timer cannot start before the
        # spawn, nor after the daemon logged its instance running: the
        # start-up itself (keepalived's three processes take 0.1 s and more
        # on a loaded machine) is not counted against the margin
        t.assertGreaterEqual(back - t_r, self.mdi("r1") - self.EPS)
        t.assertLessEqual(back - m2.t_ready, self.mdi("r1") + self.MARGIN)
        t.assertLess(r2_del - first.ts, self.MARGIN)
        t.assertGreaterEqual(r2_del - first.ts, -self.EPS)
        steady_holders(self.routers, self.vip, ["r1"], 0.5)
        if b.kind == "vipd":
            t.assertEqual(b.state(), "BACKUP")
        else:
            t.assertEqual(b.states(), ["BACKUP", "MASTER", "BACKUP"])
        self.check_adverts("r1", after=t_r)

        t_term, rc = m2.stop()
        t.assertEqual(rc, 0, m2.log_text()[-2000:])
        wait_holders(self.routers, self.vip, ["r2"], skew(100, self.advert, self.version) + 2)
        zero = util.wait_until(lambda: [p for p in self.adverts("r1", after=t_term)
                                        if p.priority == 0], 2, 0.02,
                               "a priority 0 advert from %s on SIGTERM" % m2.kind)
        first = util.wait_until(lambda: (self.adverts("r2", after=zero[0].ts) or [None])[0],
                                3, 0.02, "r2's first advert")
        sk = skew(self.prio["r2"], self.advert, self.version)
        step("SIGTERM %s: priority 0 sent; %s advertised %.4fs later (Skew_Time %.4fs)"
             % (m2.kind, b.kind, first.ts - zero[0].ts, sk))
        # RFC 9568 §6.4.2: priority 0 sets the Master_Down_Timer to Skew_Time
        t.assertGreaterEqual(first.ts - zero[0].ts, sk - self.EPS)
        t.assertLessEqual(first.ts - zero[0].ts, sk + self.MARGIN)
        self.no_bad()


def run_interop(test, master_kind, version, v6=False, unicast=False):
    """Run one Interop case in a lab of its own (test: the TestCase)."""
    reason = keepalived_skip_reason()
    if reason:
        test.skipTest(reason)
    tag = "%s-v%d%s%s" % ("km" if master_kind == "keepalived" else "vm", version,
                          "u" if unicast else "m", "6" if v6 else "4")
    from .hosts import Lab
    with Lab("vipd-ka-" + tag) as lab:
        Interop(test, lab, master_kind, version, v6, unicast).run()
