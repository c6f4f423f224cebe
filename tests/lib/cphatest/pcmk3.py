"""A real multi-node corosync + Pacemaker cluster in lab hosts, with fencing.

Builds on cphatest.pacemaker.Node (holder with private mount + UTS
namespaces, per-node /etc/corosync, /var/lib/pacemaker, /var/log, /etc/hosts;
every command through nsenter) and adds what a fencing cluster in
namespaces needs:

  - one corosync.conf (knet, token 1000 ms) listing every node and one
    authkey shared by all;
  - a pre-seeded CIB with fencing ON (stonith-enabled=true,
    dc-deadtime=2s) identical on every node;
  - a per-node directory bound over /var/lib/etcd (etcd data survives a
    "power cycle" of the node, as a disk would);
  - a test fence agent, fence_cpha_lab, that speaks the fence-agents stdin
    protocol (action=off/on/reboot/status/monitor/list/metadata,
    port=NODE) and "powers off" a node: it finds the node's processes by
    /proc/PID/ns/net, SIGKILLs them by PID (never by name: pacemaker-fenced
    sees every node's processes), wipes the node's /run and /dev/shm
    through its holder, then kills the holder. It is overlaid on /usr/sbin
    inside the node mount namespaces only (pacemaker-fenced looks there).
    Every action is appended to a log the test reads;
  - boot() again after a power-off: a fresh holder (empty /run and
    /dev/shm), corosync, pacemakerd; wait_left() first (a node must not
    rejoin before corosync saw it leave).

    cl = pcmk3.Cluster(lab, [h1, h2, h3], ["n1", "n2", "n3"], extra_mounts=[...])
    cl.start()                         # quorate, a DC, every node online
    cl.pcs(cl.nodes[0], "stonith", "create", "fence-lab", pcmk3.FENCE_AGENT, ...)
    cl.kill_corosync(node)             # an unclean failure
    cl.wait_fenced(node, since)        # the test agent powered it off
    cl.wait_left(node); node.boot()
"""

import json
import os
import shlex
import signal
import subprocess
import xml.etree.ElementTree as ET

from cphalab import netns

from . import pacemaker, util

FENCE_AGENT = "fence_cpha_lab"
# where the agent, a program of its own, imports cphalab from
LAB_DIR = os.path.dirname(os.path.dirname(os.path.abspath(netns.__file__)))

# The test fence agent (Python, standard library). Its configuration is the
# JSON file named by hosts_file: {"node": {"netns": [dev, ino], "holder": pid}}.
FENCE_AGENT_TEXT = r'''#!/usr/bin/python3
"""fence_cpha_lab: powers off a cpha test node (a set of namespaces)."""
import json, sys, time

sys.dont_write_bytecode = True
sys.path.insert(0, @LAB_DIR@)
from cphalab import netns

META = """<?xml version="1.0" ?>
<resource-agent name="fence_cpha_lab" shortdesc="Fence agent for cpha test nodes (namespaces)">
<longdesc>Powers off a cpha test node: kills every process of its network namespace by PID and wipes its /run and /dev/shm. Test use only.</longdesc>
<vendor-url>https://example.invalid/cpha</vendor-url>
<parameters>
	<parameter name="action" unique="0" required="1">
		<getopt mixed="-o, --action=[action]" />
		<content type="string" default="reboot" />
		<shortdesc lang="en">Fencing action</shortdesc>
	</parameter>
	<parameter name="plug" unique="0" required="0" obsoletes="port">
		<getopt mixed="-n, --plug=[id]" />
		<content type="string" />
		<shortdesc lang="en">Node to fence</shortdesc>
	</parameter>
	<parameter name="port" unique="0" required="0" deprecated="1">
		<getopt mixed="-n, --plug=[id]" />
		<content type="string" />
		<shortdesc lang="en">Node to fence</shortdesc>
	</parameter>
	<parameter name="hosts_file" unique="0" required="1">
		<getopt mixed="--hosts-file=[file]" />
		<content type="string" />
		<shortdesc lang="en">JSON file describing the test nodes</shortdesc>
	</parameter>
	<parameter name="log_file" unique="0" required="0">
		<getopt mixed="--log-file=[file]" />
		<content type="string" />
		<shortdesc lang="en">File every action is appended to</shortdesc>
	</parameter>
</parameters>
<actions>
	<action name="on" automatic="0"/>
	<action name="off" />
	<action name="reboot" />
	<action name="status" />
	<action name="list" />
	<action name="monitor" />
	<action name="metadata" />
	<action name="validate-all" />
</actions>
</resource-agent>
"""


def options():
    opts = {}
    args = sys.argv[1:]
    i = 0
    while i < len(args):
        a = args[i]
        if a in ("-o", "-n") and i + 1 < len(args):
            opts["action" if a == "-o" else "port"] = args[i + 1]
            i += 2
            continue
        if a.startswith("--") and "=" in a:
            k, v = a[2:].split("=", 1)
            opts[k.replace("-", "_")] = v
        i += 1
    if not args and not sys.stdin.isatty():
        for line in sys.stdin:
            line = line.strip()
            if line and not line.startswith("#") and "=" in line:
                k, v = line.split("=", 1)
                opts[k.strip()] = v.strip()
    return opts


def log(opts, text):
    path = opts.get("log_file")
    if path:
        with open(path, "a") as f:
            f.write("%.3f %s\n" % (time.time(), text))


def power_off(node):
    # everything but the holder, then its /run and /dev/shm, then the holder
    return netns.power_off(tuple(node["netns"]), node.get("holder", 0))


def main():
    opts = options()
    action = opts.get("action", "reboot")
    if action == "metadata":
        sys.stdout.write(META)
        return 0
    try:
        with open(opts["hosts_file"]) as f:
            hosts = json.load(f)
    except (KeyError, OSError, ValueError) as e:
        sys.stderr.write("hosts_file: %s\n" % e)
        return 1
    target = opts.get("port") or opts.get("plug") or opts.get("nodename")
    if action in ("monitor", "validate-all") or (action == "status" and not target):
        return 0
    if action == "list":
        for n in sorted(hosts):
            print(n)
        return 0
    if target not in hosts:
        sys.stderr.write("unknown node %r\n" % target)
        return 1
    node = hosts[target]
    if action == "status":
        return 0 if netns.pids_in({tuple(node["netns"])}) else 2
    if action in ("off", "reboot"):
        n = power_off(node)
        log(opts, "%s %s killed=%d" % (action, target, n))
        return 0
    if action == "on":
        log(opts, "on %s (the test boots it)" % target)
        return 0
    sys.stderr.write("unsupported action %s\n" % action)
    return 1


if __name__ == "__main__":
    sys.exit(main())
'''


def netns_ident(host):
    return list(netns.ns_ident("/run/netns/" + host.ns))


class Node(pacemaker.Node):
    """A node of a Cluster: the single-node helper with a shared corosync
    configuration and key, /var/lib/etcd bound per node, and boot() that
    does not wait for quorum alone."""

    def __init__(self, cluster, host, name):
        super().__init__(cluster.lab, host, name, extra_mounts=cluster.mounts_for(name))
        self.cluster = cluster
        self.prepared = False
        self.boots = 0

    @property
    def etcd_dir(self):
        return os.path.join(self.dir, "var-lib-etcd")

    def _prepare(self):
        if self.prepared:
            return
        hosts = "127.0.0.1 localhost\n" + "".join(
            "%s %s\n" % (n.host.v4, n.name) for n in self.cluster.nodes)
        self._write_node_files(self.cluster.corosync_conf, self.cluster.authkey,
                               pacemaker.cib_xml(fencing=True), hosts,
                               extra_dirs=[("var-lib-etcd", 0o700)])
        self.prepared = True

    def power_on(self):
        """A fresh holder (empty /run and /dev/shm) and corosync."""
        self._prepare()
        self.boots += 1
        self.start_holder()
        self.cluster.write_hosts_file()
        self.corosync = self.spawn(["corosync", "-f"], "corosync")

    def boot(self):
        """power_on() and pacemakerd; no wait for quorum or a DC (a node
        alone has neither)."""
        self.power_on()
        self.start_pacemakerd()

    def up(self):
        """corosync and pacemakerd of this boot still run."""
        return bool(self.corosync and self.corosync.running() and self.pacemakerd
                    and self.pacemakerd.running())

    def pids(self):
        """PIDs of every process in the node's network namespace."""
        return netns.pids_in({tuple(netns_ident(self.host))})

    def cmap(self, key):
        r = self.run(["corosync-cmapctl", "-g", key], check=False, timeout=10)
        return r.stdout.strip().rsplit("=", 1)[-1].strip() if r.returncode == 0 else None


class Cluster:
    """Nodes on hosts, one corosync cluster, fencing through fence_cpha_lab."""

    def __init__(self, lab, hosts, names, extra_mounts=(), cluster="cpha-lab", subdir="pcmk3"):
        self.lab = lab
        self.dir = os.path.join(lab.dir, subdir)
        os.makedirs(self.dir, exist_ok=True)
        self.extra_mounts = list(extra_mounts)
        self.sbin = os.path.join(self.dir, "sbin")
        os.makedirs(self.sbin, exist_ok=True)
        os.chmod(self.dir, 0o755)
        os.chmod(self.sbin, 0o755)
        agent = os.path.join(self.sbin, FENCE_AGENT)
        with open(agent, "w") as f:
            f.write(FENCE_AGENT_TEXT.replace("@LAB_DIR@", repr(LAB_DIR)))
        os.chmod(agent, 0o755)
        self.hosts_file = os.path.join(self.dir, "hosts.json")
        self.fence_log = os.path.join(self.dir, "fence.log")
        open(self.fence_log, "a").close()
        self.authkey = os.path.join(self.dir, "authkey")
        r = subprocess.run(["corosync-keygen", "-k", self.authkey], capture_output=True,
                           text=True, timeout=30)
        if r.returncode != 0:
            raise RuntimeError("corosync-keygen: %s" % r.stderr)
        self.nodes = []
        self.corosync_conf = pacemaker.corosync_conf(
            cluster, [(n, h.v4) for h, n in zip(hosts, names)])
        for h, n in zip(hosts, names):
            self.nodes.append(Node(self, h, n))

    def mounts_for(self, name):
        d = os.path.join(self.lab.dir, "pcmk", name, "var-lib-etcd")
        return ["mount --bind %s /var/lib/etcd" % shlex.quote(d),
                "mount -t overlay cpha-sbin -o lowerdir=%s:/usr/sbin /usr/sbin"
                % shlex.quote(self.sbin)] + self.extra_mounts

    def node(self, name):
        for n in self.nodes:
            if n.name == name:
                return n
        raise KeyError(name)

    def write_hosts_file(self):
        data = {}
        for n in self.nodes:
            data[n.name] = {"netns": netns_ident(n.host),
                            "holder": n.holder.pid if n.holder else 0}
        tmp = self.hosts_file + ".tmp"
        with open(tmp, "w") as f:
            json.dump(data, f)
        os.chmod(tmp, 0o644)
        os.replace(tmp, self.hosts_file)

    # -- lifecycle -------------------------------------------------------------
    def start(self, timeout=60):
        for n in self.nodes:
            n._prepare()
        for n in self.nodes:
            n.boot()
        util.wait_until(lambda: all(self.online(n) for n in self.nodes), timeout, 0.5,
                        "every node online with a DC")

    def any_up(self, exclude=()):
        for n in self.nodes:
            if n.up() and n not in exclude:
                return n
        raise AssertionError("no node is up")

    def online(self, node, via=None):
        """node is online in the view of via (any other node up), with a DC."""
        via = via or (node if node.up() else self.any_up())
        x = via.status_xml()
        if x is None:
            return False
        dc = x.find("./summary/current_dc")
        if dc is None or dc.get("present") != "true":
            return False
        for e in x.iter("node"):
            if e.get("name") == node.name:
                return e.get("online") == "true"
        return False

    def pcs(self, node, *args, check_rc=True, timeout=120):
        r = node.run(["pcs"] + list(args), check=False, timeout=timeout)
        if check_rc and r.returncode != 0:
            raise AssertionError("pcs %s: exit %d\n%s%s" % (
                " ".join(args)[:400], r.returncode, r.stdout, r.stderr))
        return r

    # -- failures --------------------------------------------------------------
    def power_off(self, node, log=True):
        """What a BMC or a watchdog does: every process of the node dies.
        log: the power-off goes to the fence log (fence_events) too."""
        agent = os.path.join(self.sbin, FENCE_AGENT)
        argv = [agent, "-o", "off", "-n", node.name, "--hosts-file=" + self.hosts_file]
        if log:
            argv.append("--log-file=" + self.fence_log)
        subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, timeout=30)

    def kill_corosync(self, node):
        """An unclean failure: SIGKILL the node's corosync (by PID)."""
        node.corosync.kill(signal.SIGKILL)

    def fence_events(self):
        """[(time, action, node)] from the fence agent's log."""
        out = []
        with open(self.fence_log) as f:
            for line in f:
                w = line.split()
                if len(w) >= 3:
                    out.append((float(w[0]), w[1], w[2]))
        return out

    def wait_fenced(self, node, since, timeout=60):
        """Wait until the agent powered node off after wall time since;
        returns the event's wall time."""
        def fenced():
            for t, action, target in self.fence_events():
                if t >= since and target == node.name and action in ("off", "reboot"):
                    return t
            return None
        return util.wait_until(fenced, timeout, 0.2, "%s fenced by %s" % (node.name, FENCE_AGENT))

    def wait_left(self, node, timeout=30):
        """Wait until the others' corosync lists node as left: a fenced node that
        rejoins before that makes pacemakerd exit ("We were allegedly just
        fenced", exit code 100)."""
        nodeid = self.nodes.index(node) + 1
        via = self.any_up(exclude=(node,))
        key = "runtime.members.%d.status" % nodeid
        util.wait_until(lambda: via.cmap(key) in ("left", None), timeout, 0.3,
                        "corosync on %s to see %s leave" % (via.name, node.name))

    def resources_xml(self, via=None):
        via = via or self.any_up()
        return via.status_xml()


def where(xml, rid):
    """Nodes running resource (or clone) rid, from crm_mon XML: {node: attrs}."""
    out = {}
    if xml is None:
        return out
    for r in xml.iter("resource"):
        if r.get("id") != rid:
            continue
        for n in r.iter("node"):
            out[n.get("name")] = dict(r.attrib)
    return out


def failures(xml):
    if xml is None:
        return []
    return [dict(f.attrib) for f in xml.iter("failure")]


def parse(text):
    try:
        return ET.fromstring(text)
    except ET.ParseError:
        return None
