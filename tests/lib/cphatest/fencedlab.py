"""corosync + fenced clusters in lab hosts, each host with its own BMC.

Nodes are pcmk3 nodes (holder with private mount and UTS namespaces, one
corosync.conf and authkey, fence_cpha_lab on /usr/sbin) that run corosync
and fenced instead of Pacemaker. Every node has a BMC: an `ipmi_sim`
(Debian's openipmi) on the lab host "bmc", one UDP port each, whose
chassis_control script powers the node off through fence_cpha_lab (kills
its processes by PID, wipes its /run) and reports its power from whether
any process is left. fenced reaches it with the real fence_ipmilan
(lanplus, cipher 3, which ipmi_sim answers at once).

Watchdogs are FIFOs: fenced writes "pet" lines, "V" on a clean stop; a
reader thread here powers the node off when an armed watchdog is silent
for its timeout, as a hardware one would reset the host.

    fl = fencedlab.Cluster(lab, hosts, names, bmc_host, conf_fn)
    fl.start()                  # BMCs, corosync, fenced; quorate everywhere
    fl.show(node)               # fenced show json of that node
    fl.bmc_events(node)         # [(time, "set power 0", "get power 1"...)] from its BMC
"""

import json
import os
import shlex
import threading
import time

from cphalab import bmc

from . import pcmk3, util

BUILD = util.build_dir()
FENCED = os.path.join(BUILD, "fenced", "fenced")
BMC_PORT0 = 6230
PASSWORD = "bmc-Secret-9f3"  # IPMI 1.5 takes at most 16 bytes


def unit_caps():
    """setpriv's --bounding-set for fenced.service's CapabilityBoundingSet."""
    return util.unit_caps("fenced.service")


class Node(pcmk3.Node):
    """A pcmk3 node that runs corosync and fenced (no Pacemaker)."""

    def __init__(self, cluster, host, name):
        super().__init__(cluster, host, name)
        self.fenced = None
        self.fenced_conf = os.path.join(self.dir, "fenced.conf")
        self.wd_fifo = os.path.join(self.dir, "watchdog")

    def boot(self):
        self.power_on()
        util.wait_until(lambda: self.cmap("runtime.votequorum.this_node_id") is not None,
                        20, 0.2, "corosync on %s" % self.name)
        self.start_fenced()

    def start_fenced(self):
        """fenced with no more capabilities than its systemd unit gives it
        (etc/systemd/fenced.service's CapabilityBoundingSet), so the tests
        prove that set works: corosync's IPC, the agents, the watchdog."""
        self.fenced = self.spawn(["setpriv", "--bounding-set", unit_caps(), "--inh-caps",
                                  "-all", FENCED, "-f", self.fenced_conf], "fenced")

    def up(self):
        return bool(self.corosync and self.corosync.running() and self.fenced
                    and self.fenced.running())

    def show(self):
        """fenced's show json on this node, or None."""
        r = self.run([FENCED, "-f", self.fenced_conf, "show", "json"], check=False, timeout=15)
        if r.returncode != 0:
            return None
        try:
            return json.loads(r.stdout)
        except ValueError:
            return None

    def history(self, victim, event=None):
        """The entries of fenced's history on this node about victim (node
        name), of that event when given; fenced must answer."""
        s = self.show()
        if s is None:
            raise AssertionError("fenced show json on %s failed" % self.name)
        return [h for h in s["history"] if h["node"] == victim and (event is None or
                                                                     h["event"] == event)]

    def fenced_log(self):
        return self.fenced.log_text() if self.fenced else ""


class Watchdog:
    """Reads a node's watchdog FIFO: powers the node off when an armed
    watchdog is not petted for timeout seconds (a reset)."""

    def __init__(self, cluster, node, timeout):
        self.cluster = cluster
        self.node = node
        self.timeout = timeout
        self.pets = 0
        self.last = None
        self.resets = []  # wall times
        self.disarmed = 0
        self.stop = threading.Event()
        if os.path.exists(node.wd_fifo):
            os.unlink(node.wd_fifo)
        os.mkfifo(node.wd_fifo, 0o600)
        # read-write keeps the FIFO open whatever fenced does
        self.fd = os.open(node.wd_fifo, os.O_RDWR | os.O_NONBLOCK)
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self):
        buf = b""
        while not self.stop.is_set():
            try:
                data = os.read(self.fd, 4096)
            except BlockingIOError:
                data = b""
            buf += data
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                if line == b"pet":
                    self.pets += 1
                    self.last = time.monotonic()
                elif line == b"V":
                    self.disarmed += 1
                    self.last = None
            if self.last is not None and time.monotonic() - self.last > self.timeout:
                self.resets.append(time.time())
                self.last = None
                try:
                    self.cluster.power_off(self.node)
                except Exception:  # the node may already be off
                    pass
            time.sleep(0.05)

    def close(self):
        self.stop.set()
        self.thread.join(5)
        os.close(self.fd)


class Cluster(pcmk3.Cluster):
    """corosync + fenced nodes with BMCs on bmc_host."""

    def __init__(self, lab, hosts, names, bmc_host, cluster="cpha-fenced", two_node=False,
                 subdir="pcmk3"):
        self.bmc_host = bmc_host
        super().__init__(lab, hosts, names, cluster=cluster, subdir=subdir)
        if two_node:
            self.corosync_conf = self.corosync_conf.replace(
                "provider: corosync_votequorum",
                "provider: corosync_votequorum\n    two_node: 1")
        self.nodes = [Node(self, h, n) for h, n in zip(hosts, names)]
        self.bmcs = {}
        self.watchdogs = {}
        self.secret = os.path.join(self.dir, "bmc-password")
        with open(self.secret, "w") as f:
            f.write(PASSWORD + "\n")
        os.chmod(self.secret, 0o600)

    def bmc_port(self, node):
        return BMC_PORT0 + self.nodes.index(node) + 1

    def bmc_device(self, node):
        """fenced.conf's fence_device bmc-NODE: the real fence_ipmilan
        against the node's BMC."""
        return """fence_device bmc-%(n)s {
    agent fence_ipmilan
    ip %(ip)s
    ipport %(port)d
    username admin
    password_file %(secret)s
    lanplus 1
    cipher 3
}
""" % {"n": node.name, "ip": self.bmc_host.v4, "port": self.bmc_port(node),
       "secret": self.secret}

    def write_fenced_conf(self, conf):
        """Every node's files (_prepare) and its fenced.conf: the text conf,
        or conf(node) when conf is a function."""
        for n in self.nodes:
            n._prepare()
            with open(n.fenced_conf, "w") as f:
                f.write(conf(n) if callable(conf) else conf)

    def bmc_conf(self, action, agent_timeout, node_lines=lambda node: ""):
        """fenced.conf for every node: global_defs (post_join_delay 20s,
        fence_action action, agent_timeout), then each node's BMC device
        and its fence_node with that one device at level 1, plus
        node_lines(node) (lines of the block, each ending in a newline)."""
        out = ["""global_defs {
    post_join_delay 20s
    post_fail_delay 0s
    fence_action %s
    agent_timeout %s
    retry_interval 3s
}
""" % (action, agent_timeout)]
        for n in self.nodes:
            out.append(self.bmc_device(n))
            out.append("""fence_node %(n)s {
    level 1 {
        bmc-%(n)s
    }
%(more)s}
""" % {"n": n.name, "more": node_lines(n)})
        return "".join(out)

    def bmc_power(self, node, on):
        """What the node's BMC reports from now on (a power loss it saw)."""
        bmc.set_power(os.path.join(self.dir, "bmc-" + node.name), on)

    def bmc_log(self, node):
        return os.path.join(self.dir, "bmc-%s.log" % node.name)

    def start_bmc(self, node):
        """The node's BMC: its power switch's off powers the node off
        through the fence agent (logged to the fence log), on only marks
        it on (the test boots the node, as the host would)."""
        off = " ".join(shlex.quote(a) for a in (
            os.path.join(self.sbin, pcmk3.FENCE_AGENT), "-o", "off", "-n", node.name,
            "--hosts-file=" + self.hosts_file, "--log-file=" + self.fence_log))
        argv = bmc.write(os.path.join(self.dir, "bmc-" + node.name), "bmc-" + node.name,
                         self.bmc_host.v4, self.bmc_port(node), PASSWORD, self.bmc_log(node),
                         off)
        p = self.bmc_host.spawn(argv, name="bmc-" + node.name)
        self.bmcs[node.name] = p
        return p

    def bmc_events(self, node, since=0.0):
        return bmc.events(self.bmc_log(node), since)

    def power_offs(self, node, since=0.0):
        """The power-off commands node's BMC got since then."""
        return [e for _, e in self.bmc_events(node, since) if e.startswith("set power 0")]

    def add_watchdog(self, node, timeout):
        self.watchdogs[node.name] = Watchdog(self, node, timeout)
        return self.watchdogs[node.name]

    def start(self, timeout=60):
        for n in self.nodes:
            n._prepare()
            self.start_bmc(n)
        for n in self.nodes:
            n.boot()
        util.wait_until(lambda: all(self.domain_ok(n) for n in self.nodes), timeout, 0.5,
                        "every fenced quorate with every node a member")

    def domain_ok(self, node, members=None):
        s = node.show()
        if not s or not s.get("quorate"):
            return False
        want = sorted(members or [n.name for n in self.nodes])
        return sorted(s.get("members", [])) == want

    def close(self):
        for w in self.watchdogs.values():
            w.close()


def build(lab, names, ips, bmc_ip, **kw):
    """Hosts names (at ips, /24) and "bmc" (at bmc_ip) in lab, and a
    Cluster of them, not started (kw: Cluster's own, e.g. two_node)."""
    hosts = [lab.add_host(n, v4=ip + "/24") for n, ip in zip(names, ips)]
    bmc_host = lab.add_host("bmc", v4=bmc_ip + "/24")
    return Cluster(lab, hosts, list(names), bmc_host, **kw)


def main(name, run, dump_lines=80):
    """A fenced cluster test's main: root and the tools it runs, fenced
    built (else skipped, 77, saying why), then cphatest's main."""
    from .testmain import main as test_main

    util.require_root(tools=("corosync", "ipmi_sim", "fence_ipmilan", "ipmitool"))
    if not os.access(FENCED, os.X_OK):
        return util.skip("%s not built (set CPHA_BUILD_DIR)" % FENCED)
    return test_main(name, run, dump_lines=dump_lines)
