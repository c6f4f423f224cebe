"""lbd in the test bed: its configuration, start and reload, the admin
socket, sockets opened inside a host's namespace, and the helper programs
in tools/ (tag servers, client loops, watch streams, bulk transfers).

    from cphatest import lbd
    lbd.require()                                  # SKIP (77) when it cannot run
    with cphatest.Lab("lbd-x") as lab:
        t = lbd.Topology(lab)                      # client, lb, s1..s3
        t.start_tagservers(8000)
        lb = lbd.Lbd(lab, t.lb, BODY)              # BODY: defaults/frontend/backend
        lb.start()
        sock, tag = lbd.tag_connect(t.client, t.lb.v4, 6443)
        lb.wait_status("be", "s1", "DOWN", timeout=3)

Everything here talks to lab hosts only (198.18.0.0/15) and stops only the
processes it started (through the Lab, by PID).
"""

import csv
import io
import json
import os
import re
import signal
import socket
import ssl
import sys
import threading
import time

from cphalab import netns

from . import kube, util

PYTHON = "/usr/bin/python3" if os.access("/usr/bin/python3", os.X_OK) else sys.executable
TOOLS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tools")
CLIENT_IP = "198.18.0.2"
LB_IP = "198.18.0.10"
SERVER_IPS = ("198.18.0.11", "198.18.0.12", "198.18.0.13", "198.18.0.14")
CLIENT_IP6 = "2001:db8::2"
LB_IP6 = "2001:db8::10"
CLK_TCK = os.sysconf("SC_CLK_TCK")


def binary():
    """build/lbd/lbd (under $CPHA_BUILD_DIR when set)."""
    return util.built("lbd", "lbd")


def start_track_target(lab, host, ports):
    """An lbd in host for vipd's track_lbd: 'listen api' on 127.0.0.1:16443
    with servers a and b on 127.0.0.1:ports, checked every 200 ms (fall 1,
    rise 1); its admin socket in the lab. Returns (process, socket path)
    once the socket is there."""
    sock = lab.path("lbd-%s" % host.name, "admin.sock")
    cfg = lab.path("lbd-%s" % host.name, "lbd.cfg")
    with open(cfg, "w") as f:
        f.write("global\n    stats socket %s\n    nbthread 1\n"
                "defaults\n    mode tcp\n    timeout connect 1s\n"
                "    timeout client 10s\n    timeout server 10s\n"
                "listen api\n    bind 127.0.0.1:16443\n"
                "    default-server check inter 200ms fall 1 rise 1\n"
                "    server a 127.0.0.1:%d\n    server b 127.0.0.1:%d\n"
                % ((sock,) + tuple(ports)))
    proc = host.spawn([binary(), "-db", "-f", cfg], name="lbd")
    util.wait_until(lambda: os.path.exists(sock), 5, 0.05, "lbd's admin socket")
    return proc, sock


def require(tools=()):
    """Exit 77 with "SKIP: reason" unless root, the test bed and lbd are there."""
    util.require_root(tools)
    if not os.access(binary(), os.X_OK):
        print("SKIP: %s not built (cmake --build build; or set CPHA_BUILD_DIR)"
              % binary(), flush=True)
        sys.exit(util.SKIP)


def tool(name, *args):
    """argv running tools/<name> with the system Python."""
    return [PYTHON, os.path.join(TOOLS, name)] + [str(a) for a in args]


def read_json(path):
    """The JSON document in path, or None when absent or half-written."""
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


# --------------------------------------------------- sockets in a namespace --

def in_host(host, fn, *args, timeout=15):
    """Run fn(*args) in a short-lived thread that joined host's network
    namespace; return its result (or raise its exception). Sockets it
    creates belong to that namespace and work from any thread afterwards;
    the process itself (its main thread) never leaves the root namespace."""
    box = {}

    def run():
        try:
            netns.enter(host.ns)
            box["value"] = fn(*args)
        except BaseException as e:  # handed to the caller
            box["error"] = e
    t = threading.Thread(target=run, daemon=True, name="netns-" + host.name)
    t.start()
    t.join(timeout)
    if t.is_alive():
        raise TimeoutError("%s in %s did not finish in %gs" % (fn.__name__, host.name,
                                                               timeout))
    if "error" in box:
        raise box["error"]
    return box["value"]


def _family(ip):
    return socket.AF_INET6 if ":" in ip else socket.AF_INET


def _connect(ip, port, timeout, source):
    s = socket.socket(_family(ip), socket.SOCK_STREAM)
    s.settimeout(timeout)
    try:
        if source:
            s.bind((source, 0))
        s.connect((ip, port))
    except BaseException:
        s.close()
        raise
    return s


def connect(host, ip, port, timeout=3.0, source=None):
    """A TCP socket connected from inside host to ip:port (timeout set)."""
    return in_host(host, _connect, ip, port, timeout, source)


def read_line(sock, timeout=3.0, limit=256):
    """Bytes up to and including the first newline; fewer at EOF. A timeout
    raises socket.timeout."""
    sock.settimeout(timeout)
    out = b""
    while not out.endswith(b"\n") and len(out) < limit:
        c = sock.recv(1)
        if not c:
            break
        out += c
    return out


def tag_connect(host, ip, port, timeout=3.0, source=None):
    """Connect and read a tag server's greeting: (socket, tag)."""
    s = connect(host, ip, port, timeout, source)
    try:
        line = read_line(s, timeout)
    except BaseException:
        s.close()
        raise
    if not line.endswith(b"\n"):
        s.close()
        raise ConnectionError("no tag from %s:%d (got %r)" % (ip, port, line))
    return s, line.strip().decode()


def tag_of(host, ip, port, timeout=3.0, source=None):
    """Which tag server answers one new connection (the connection is closed)."""
    s, tag = tag_connect(host, ip, port, timeout, source)
    s.close()
    return tag


def echo(sock, data, timeout=3.0):
    """Send data and read the same number of bytes back."""
    sock.settimeout(timeout)
    sock.sendall(data)
    got = b""
    while len(got) < len(data):
        c = sock.recv(len(data) - len(got))
        if not c:
            break
        got += c
    return got


def wait_closed(sock, timeout):
    """Seconds until the peer closed (EOF or reset); raises socket.timeout.
    Data that arrives first is read and dropped."""
    t0 = time.monotonic()
    sock.settimeout(timeout)
    while True:
        try:
            if not sock.recv(4096):
                return time.monotonic() - t0
        except ConnectionResetError:
            return time.monotonic() - t0


def server_name_of(cert):
    """The lab host name in an apiserver certificate (DNS:<host> SAN)."""
    for kind, value in cert.get("subjectAltName", ()):
        if kind == "DNS" and value != "localhost" and not value.startswith("kubernetes"):
            return value
    return "?"


def https_get(host, ip, port, path, ca, timeout=3.0):
    """GET path over TLS from inside host: (status, body, server name)."""
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.check_hostname = False
    ctx.load_verify_locations(cafile=ca)
    s = connect(host, ip, port, timeout)
    try:
        t = ctx.wrap_socket(s)
    except BaseException:
        s.close()
        raise
    with t:
        server = server_name_of(t.getpeercert() or {})
        t.sendall(("GET %s HTTP/1.1\r\nHost: kubernetes\r\nConnection: close\r\n\r\n"
                   % path).encode())
        resp = util.recv_all(t)
    head, _, body = resp.partition(b"\r\n\r\n")
    status = int(head.split(b" ", 2)[1]) if head.startswith(b"HTTP/") else 0
    return status, body.decode(errors="replace"), server


# -------------------------------------------------------------- topology --

class Topology:
    """client (198.18.0.2), lb (198.18.0.10), s1..sN (198.18.0.11-14);
    with v6=True also 2001:db8::2, ::10 and ::11-14."""

    def __init__(self, lab, nservers=3, v6=False):
        self.lab = lab
        self.client = lab.add_host("client", v4=CLIENT_IP + "/24",
                                   v6=CLIENT_IP6 + "/64" if v6 else None)
        self.lb = lab.add_host("lb", v4=LB_IP + "/24", v6=LB_IP6 + "/64" if v6 else None)
        self.servers = [lab.add_host("s%d" % (i + 1), v4=SERVER_IPS[i] + "/24",
                                     v6=("2001:db8::%d/64" % (11 + i)) if v6 else None)
                        for i in range(nservers)]
        self.procs = {}
        # Thousands of short connections leave thousands of TIME_WAIT
        # sockets (client -> lb on the client, lb -> server on the lb, the
        # closing sides); reuse them for new outgoing connections, as busy
        # load balancers are set up to, so a second loop is not slowed down
        # by the search for a free port.
        for h in (self.client, self.lb):
            h.run(["sysctl", "-q", "-w", "net.ipv4.tcp_tw_reuse=1",
                   "net.ipv4.ip_local_port_range=10000 65001"])

    def start_tagservers(self, port, hosts=None, v6=False):
        """A tagserver.py named after its host on each server host (on its
        IPv6 address too with v6=True); wait until each listens.
        Returns {name: Proc}."""
        out = {}
        for h in hosts or self.servers:
            argv = tool("tagserver.py", "--name", h.name, "--listen", "%s:%d" % (h.v4, port))
            if v6:
                argv += ["--listen", "[%s]:%d" % (h.v6, port)]
            out[h.name] = h.spawn(argv, name="tagserver")
        for name, p in out.items():
            wait_log(p, "listening on", 10)
        self.procs.update(out)
        return out

    def add_client_addresses(self, ips):
        """More addresses on the client's eth0 (e.g. to be several clients)."""
        for ip in ips:
            self.client.run(["ip", "addr", "add", ip + "/24", "dev", "eth0"])


wait_log = util.wait_log


# ------------------------------------------------------------------- lbd --

class Lbd:
    """One lbd process in a host, run in the foreground (-db).

    body is the configuration after the global section (defaults, frontends,
    backends); the global section (admin socket, threads, logging to stdout,
    so traffic logs land in the process log) is written here.
    """

    def __init__(self, lab, host, body, nbthread=2, global_extra=(), name="lbd"):
        self.lab = lab
        self.host = host
        self.name = name
        self.nbthread = nbthread
        self.global_extra = list(global_extra)
        self.cfg_path = lab.path(name, "lbd.cfg")
        self.sock_path = lab.path(name, "admin.sock")
        self.proc = None
        self.reloads = 0
        self.write(body)

    def config_text(self, body):
        lines = ["global",
                 "    log stdout format raw local0",
                 "    nbthread %d" % self.nbthread,
                 "    stats socket %s mode 600 level admin" % self.sock_path]
        lines += ["    " + x for x in self.global_extra]
        return "\n".join(lines) + "\n\n" + body.strip("\n") + "\n"

    def write(self, body):
        """Replace the configuration file (atomically) with global + body."""
        tmp = self.cfg_path + ".tmp"
        with open(tmp, "w") as f:
            f.write(self.config_text(body))
        os.replace(tmp, self.cfg_path)

    def check(self):
        """lbd -c on the current file: (exit status, stderr)."""
        r = self.host.run([binary(), "-c", "-f", self.cfg_path], check=False)
        return r.returncode, r.stderr

    def start(self, timeout=10):
        rc, err = self.check()
        if rc != 0:
            raise AssertionError("lbd -c refused the test's configuration:\n%s\n%s"
                                 % (err, open(self.cfg_path).read()))
        self.proc = self.host.spawn([binary(), "-db", "-f", self.cfg_path], name=self.name)
        wait_log(self.proc, "started:", timeout)
        util.wait_until(lambda: "Name: lbd" in self.admin("show info"), timeout, 0.05,
                        "lbd admin socket %s" % self.sock_path)
        util.wait_until(self.listening, timeout, 0.05, "lbd to listen on every bind")
        return self.proc

    def bind_ports(self):
        """The ports of every 'bind' line of the current file."""
        ports = set()
        with open(self.cfg_path) as f:
            for line in f:
                m = re.match(r"^\s*bind\s+(\S+)", line)
                if m:
                    ports.update(int(a.rsplit(":", 1)[1]) for a in m.group(1).split(","))
        return ports

    def listening(self):
        """True when the host has a listening TCP socket on every bind port."""
        out = self.host.run(["ss", "-Hltn"]).stdout
        have = {int(x.split()[3].rsplit(":", 1)[1]) for x in out.splitlines() if x.strip()}
        return self.bind_ports() <= have

    @property
    def pid(self):
        return self.proc.pid

    # -- admin socket --------------------------------------------------
    def admin(self, command, timeout=5.0):
        """One command on the admin socket; the reply text."""
        return util.unix_request(self.sock_path, command, timeout)

    def admin_json(self, command):
        return json.loads(self.admin(command + " json"))

    def set_state(self, backend, server, state):
        reply = self.admin("set server %s/%s state %s" % (backend, server, state))
        if reply.strip():
            raise AssertionError("set server %s/%s state %s: %r" % (backend, server,
                                                                    state, reply))

    def servers(self, backend=None):
        """{server name: its 'show servers state json' object}."""
        cmd = "show servers state" + (" " + backend if backend else "")
        return {s["server"]: s for s in self.admin_json(cmd)
                if backend is None or s["backend"] == backend}

    def server(self, backend, name):
        return self.servers(backend)[name]

    def status(self, backend, name):
        return self.server(backend, name)["status"]

    def wait_status(self, backend, name, status, timeout, interval=0.02):
        """Poll until the server shows status (UP, DOWN, MAINT, DRAIN);
        return the seconds it took."""
        t0 = time.monotonic()
        util.wait_until(lambda: self.status(backend, name) == status, timeout, interval,
                        "%s/%s to be %s" % (backend, name, status))
        return time.monotonic() - t0

    def wait_all_up(self, backend, settle):
        """Every server UP, and still UP after `settle` seconds (by then
        each had its first check: they are spread over one inter)."""
        def all_up():
            st = self.servers(backend)
            return all(s["status"] == "UP" for s in st.values())
        util.wait_until(all_up, 10, 0.05, "every server of %s UP" % backend)
        time.sleep(settle)
        st = self.servers(backend)
        bad = {n: (s["status"], s["last_change_reason"]) for n, s in st.items()
               if s["status"] != "UP"}
        if bad:
            raise AssertionError("servers of %s not UP after %.1fs: %s" % (backend, settle,
                                                                          bad))

    # -- process -------------------------------------------------------
    def reload(self, body=None, timeout=5.0, expect_ok=True):
        """Write body (if given), SIGHUP, and wait for lbd to log the outcome.
        Returns the log lines the reload produced."""
        if body is not None:
            self.write(body)
        before = len(self.proc.log_text())
        self.proc.kill(signal.SIGHUP)
        want = "reloaded " if expect_ok else "reload refused"

        def done():
            new = self.proc.log_text()[before:]
            if ("reloaded " in new) or ("reload refused" in new):
                return new
            if not self.proc.running():
                raise AssertionError("lbd exited on SIGHUP: %s" % util.tail(
                    self.proc.log_path, 20))
            return None
        new = util.wait_until(done, timeout, 0.02, "lbd to log its reload")
        if want not in new:
            raise AssertionError("reload: expected %r, lbd logged:\n%s" % (want, new))
        if expect_ok:
            self.reloads += 1
        return new

    def cpu_seconds(self):
        """utime + stime of the lbd process (all threads), in seconds."""
        with open("/proc/%d/stat" % self.pid) as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / CLK_TCK

    def log_text(self):
        return self.proc.log_text()

    def log_lines(self, needle):
        return [x for x in self.log_text().splitlines() if needle in x]


# ------------------------------------------------- apiserver stand-ins ---

class Apiservers:
    """kube-apiserver stand-ins on server hosts, each with its own serving
    certificate (DNS:<host name>, so a client can tell them apart) and a
    health_stub.py standing in for etcd's /health on 127.0.0.1:2379."""

    def __init__(self, lab, hosts):
        from .pki import Pki
        self.lab = lab
        self.hosts = hosts
        self.pki = Pki(lab.path("pki", "ca"))
        self.ca = self.pki.ca_cert
        self.certs = {h.name: kube.apiserver_cert(self.pki, h) for h in hosts}
        self.procs = {}
        self.stubs = {}

    def fail_file(self, host):
        return self.lab.path("etcd-fail-%s" % host.name)

    def set_failing(self, host, failing):
        """Make host's apiserver /readyz answer 500 (its "etcd" unhealthy)."""
        p = self.fail_file(host)
        if failing:
            open(p, "w").close()
        elif os.path.exists(p):
            os.unlink(p)

    def start(self, host, extra=(), wait=True):
        if host.name not in self.stubs:
            self.stubs[host.name] = host.spawn(
                tool("health_stub.py", "--listen", "127.0.0.1:2379", "--fail-file",
                     self.fail_file(host)), name="etcd-health-stub")
            wait_log(self.stubs[host.name], "health stub on", 10)
        cert, key = self.certs[host.name]
        argv = [kube.binary("kube-apiserver"),
                "--etcd-servers=http://127.0.0.1:2379",
                "--bind-address=%s" % host.v4, "--secure-port=6443",
                "--tls-cert-file=%s" % cert, "--tls-private-key-file=%s" % key,
                "--v=1"] + list(extra)
        p = host.spawn(argv, name="kube-apiserver")
        self.procs[host.name] = p
        if wait:
            self.wait_ready(host)
        return p

    def kill_all(self):
        """SIGKILL the stand-ins still running (by PID): at the end of a test,
        so the lab does not wait out their --shutdown-delay-duration."""
        for p in self.procs.values():
            if p.running():
                p.kill(signal.SIGKILL)
                p.wait(timeout=5)

    def wait_ready(self, host, timeout=15, cert=None, key=None):
        """/readyz 200 (with a client certificate when given)."""
        p = self.procs[host.name]

        def ready():
            if not p.running():
                raise AssertionError("%r exited: %s" % (p, util.tail(p.log_path, 20)))
            return host.curl("https://%s:6443/readyz" % host.v4, cacert=self.ca,
                             cert=cert, key=key, timeout=2).status == 200
        util.wait_until(ready, timeout, 0.1, "apiserver on %s ready" % host.name)


# ------------------------------------------------ real configurations --

def csv_rows(text):
    """{(pxname, svname): row} of HAProxy's CSV ("# " before the header)."""
    lines = [x for x in text.splitlines() if x.strip()]
    if not lines or not lines[0].startswith("# "):
        raise AssertionError("not HAProxy CSV: %r" % text[:300])
    lines[0] = lines[0][2:]
    return {(r["pxname"], r["svname"]): r for r in csv.DictReader(io.StringIO("\n".join(lines)))}


def masters_reached(host, ip, port, ca, n=6):
    """Open n TLS connections from host to ip:port at once (held open, so
    leastconn spreads them too); GET /readyz on each. Returns the list of
    (master name or None, status or error text)."""
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.check_hostname = False
    ctx.load_verify_locations(cafile=ca)
    socks, out = [], []
    try:
        for _ in range(n):
            try:
                s = connect(host, ip, port, 3.0)
                t = ctx.wrap_socket(s)
                socks.append(t)
                out.append([server_name_of(t.getpeercert() or {}), None])
            except (OSError, ssl.SSLError) as e:
                out.append([None, "%s: %s" % (type(e).__name__, e)])
        i = 0
        for rec in out:
            if rec[0] is None:
                continue
            t = socks[i]
            i += 1
            try:
                t.sendall(b"GET /readyz HTTP/1.1\r\nHost: kubernetes\r\nConnection: close\r\n\r\n")
                head = util.recv_all(t).split(b"\r\n", 1)[0]
                rec[1] = head.decode(errors="replace")
            except (OSError, ssl.SSLError) as e:
                rec[0], rec[1] = None, "%s: %s" % (type(e).__name__, e)
    finally:
        for t in socks:
            t.close()
    return [tuple(r) for r in out]
