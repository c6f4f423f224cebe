"""The lab: its hosts, where its files are, and its state between commands.

State lives in /run/cpha-lab/NAME/state.json (gone at reboot, as the
namespaces are); data (host disks, PKI, rendered files, logs, reports) in
/var/tmp/cpha-lab/NAME, outside /etc and /var/lib because the hosts
overlay those.
"""

import json
import os
import shutil

from . import hosts
from .hosts import LabError, run

STATE_ROOT = "/run/cpha-lab"
DATA_ROOT = "/var/tmp/cpha-lab"

VIP = "198.18.0.2"
VIP6 = "2001:db8:18::2"  # the second VIP of a dual-stack lab (up --dual-stack)
HOSTS = [  # name, role, IPv4, IPv6
    ("m1", "master", "198.18.0.11", "2001:db8:18::11"),
    ("m2", "master", "198.18.0.12", "2001:db8:18::12"),
    ("m3", "master", "198.18.0.13", "2001:db8:18::13"),
    ("lb1", "lb", "198.18.0.21", "2001:db8:18::21"),
    ("lb2", "lb", "198.18.0.22", "2001:db8:18::22"),
    ("client", "client", "198.18.0.31", "2001:db8:18::31"),
    ("bmc", "bmc", "198.18.0.41", "2001:db8:18::41"),
    # spare hosts, powered off until master-add makes them masters 4 and 5
    # (master-remove makes them spares again)
    ("m4", "spare", "198.18.0.14", "2001:db8:18::14"),
    ("m5", "spare", "198.18.0.15", "2001:db8:18::15"),
]
SPARE = "spare"
BMC_PORT0 = 6230
# The second fence level: another ipmi_sim per host, standing in for the
# switched PDU outlet a site gives each host as its second level (one that
# works when the BMC does not answer); it switches the same power, with the
# same password. Its ports follow the BMCs'.
PDU_PORT0 = 6260
BMC_PASSWORD = "lab-Bmc-7c1"  # IPMI 1.5: 16 bytes at most; lab only
# The daemons' /metrics and /status: on each host's address, over TLS (cpha
# pki's metrics.pem in /etc/cpha) with basic auth (bcrypt of
# METRICS_PASSWORD), so that `cpha status` on any lab host reads every
# daemon through the authenticated path. Lab only.
METRICS_USER = "prometheus"
METRICS_PASSWORD = "lab-Metrics-5e2"
METRICS_HASH = "$2b$10$TMRqAKGU5zb8ybQqnE0.Z.zuewpZrcgp7Ehh07Xch2klRr4UAjTy."
METRICS_PASSWORD_FILE = "/etc/cpha/secrets/metrics"
MONITORING = {"listen": "host", "tls": True,
              "basic_auth": {"user": METRICS_USER, "password_hash": METRICS_HASH,
                             "password_file": METRICS_PASSWORD_FILE},
              # Prometheus on the client host, every 5 s (docs/lab.md, "Alerts")
              "prometheus": {"scrape_interval": "5s", "alertmanagers": ["127.0.0.1:9093"]}}
# The client host's Alertmanager sends every notification, at once, to the
# lab's recorder (alertlog.py), which keeps them for the runs' reports.
ALERTLOG_LISTEN = "127.0.0.1:9095"
ALERTMANAGER_YML = """\
# The lab's Alertmanager: every alert on its own, notified at once, to the
# recorder of the lab (its report lists them).
route:
  receiver: lab
  group_by: ['...']
  group_wait: 0s
  group_interval: 1s
  repeat_interval: 4h
receivers:
  - name: lab
    webhook_configs:
      - url: http://%s/
        send_resolved: true
""" % ALERTLOG_LISTEN

DESCRIPTION = """\
# The lab's cluster: three masters, two load-balancer hosts (cpha lab).
# Every address is in 198.18.0.0/15 inside the lab's own namespaces.
cluster: {name: lab}
api: {name: kubernetes, vip: %(vip)s, interface: eth0}
kubernetes: {%(k8s_version)sservice_cidr: 198.18.128.0/24, cluster_cidr: 198.18.192.0/20}
masters:
%(masters)s
load_balancers:
%(lbs)s
etcd: {hosts: masters, token: lab-etcd-token}
components: {load_balancer: %(lb)s, vip: %(vipd)s, manager: pacemaker}
fencing:
%(lbs_fencing)s  devices:
%(devices)s
monitoring:
  listen: host
  tls: true
  basic_auth: {user: %(muser)s, password_hash: '%(mhash)s', password_file: %(mfile)s}
  prometheus: {scrape_interval: 5s, alertmanagers: ['127.0.0.1:9093']}
"""


def lab_hosts(source=None):
    """(name, role, IPv4, IPv6) of every lab host: the embedded cluster's,
    or a description's masters and LB hosts at lab addresses."""
    if not source:
        return list(HOSTS)
    out = []
    for i, m in enumerate(source["masters"]):
        out.append((m["name"], "master", "198.18.0.%d" % (11 + i), "2001:db8:18::%x" % (0x11 + i)))
    for i, m in enumerate(source["load_balancers"]):
        out.append((m["name"], "lb", "198.18.0.%d" % (21 + i), "2001:db8:18::%x" % (0x21 + i)))
    # a description's own hosts only: no spare hosts (master-add needs the
    # embedded description's)
    return out + [h for h in HOSTS if h[1] in ("client", "bmc")]


def read_source(path):
    """A cluster description to run in the lab instead of the embedded one:
    its names, Kubernetes settings, etcd token and PKI lifetimes stay; its
    addresses, VIP, interface and fence devices become the lab's. The lab
    runs what it can measure: Pacemaker masters (etcd on them) and separate
    LB hosts; anything else is refused, saying what."""
    try:
        import yaml
    except ImportError:
        raise LabError("-f %s: python3-yaml is needed to read it (scripts/setup.sh "
                       "installs it)" % path)
    try:
        with open(path) as f:
            doc = yaml.safe_load(f)
    except (OSError, yaml.YAMLError) as e:
        raise LabError("%s: %s" % (path, e))
    if not isinstance(doc, dict):
        raise LabError("%s: not a cluster description (a mapping)" % path)
    comp = doc.get("components") or {}
    why = []
    if comp.get("manager", "pacemaker") != "pacemaker":
        why.append("components.manager is %s (the lab runs pacemaker)" % comp.get("manager"))
    if not doc.get("load_balancers"):
        why.append("no load_balancers (the lab runs the load balancers on their own hosts)")
    etcd = doc.get("etcd") or {}
    if etcd.get("hosts", "masters") != "masters":
        why.append("etcd.hosts is not masters (the lab stacks etcd on the masters)")
    masters = doc.get("masters") or []
    if len(masters) not in (3, 5):
        why.append("%d masters (the lab runs 3 or 5)" % len(masters))
    if len(doc.get("load_balancers") or []) > 8:
        why.append("more than 8 load balancers")
    if why:
        raise LabError("%s: cannot run in the lab: %s" % (path, "; ".join(why)))
    names = [h["name"] for h in masters + doc["load_balancers"]]
    clash = [n for n in names if n in ("client", "bmc")]
    if clash:
        raise LabError("%s: host names %s are the lab's own" % (path, clash))
    return doc


# corosync-qnetd, with `cpha lab up --qdevice`: on the client host, the
# side of a partition the clients are on
QNETD_ROLE = "client"
# The stack a lab with a quorum device also runs, to compare: cpha with
# the LB hosts' corosync as two_node (the fence race decides a partition)
TWO_NODE = "cpha-two-node"


def is_cpha(stack):
    """lbd, vipd and fenced on the LB hosts (with or without the device)."""
    return stack in ("cpha", TWO_NODE)


def qdevice_address(hosts_list):
    return [h for h in hosts_list if h[1] == QNETD_ROLE][0][2]


def with_qdevice(stack, qdevice):
    """Does the stack's description name the quorum device? Every stack of
    a --qdevice lab but the two_node one (the peer's LB hosts run no
    corosync: for them it changes nothing)."""
    return bool(qdevice) and stack != TWO_NODE


def api_vips(dual_stack=False):
    """api.vip of the lab's description: the IPv4 VIP, and with
    dual_stack the IPv6 one after it (the hosts' family first)."""
    return [VIP + "/24", VIP6 + "/64"] if dual_stack else VIP + "/24"


def source_description(stack, src, qdevice=False, dual_stack=False, version=None):
    """The description src at lab addresses (YAML text)."""
    import copy
    import yaml
    d = copy.deepcopy(src)
    hosts = {h[0]: h for h in lab_hosts(src)}
    for h in d["masters"] + d["load_balancers"]:
        h["address"] = hosts[h["name"]][2]
    api = d.setdefault("api", {})
    api["vip"] = api_vips(dual_stack)
    api["interface"] = "eth0"
    k8s = d.setdefault("kubernetes", {})
    k8s["service_cidr"], k8s["cluster_cidr"] = "198.18.128.0/24", "198.18.192.0/20"
    k8s.pop("bin_dir", None)
    if version:
        k8s["version"] = version
    comp = d.setdefault("components", {})
    comp["load_balancer"], comp["vip"] = (("lbd", "vipd") if is_cpha(stack)
                                          else ("haproxy", "keepalived"))
    fencing = d.setdefault("fencing", {})
    for k in ("watchdog", "watchdog_timeout"):
        fencing.pop(k, None)
    masters = {h[0] for h in lab_hosts(src) if h[1] == "master"}
    fencing["devices"] = [{"name": "%s-%s" % (kind, n), "agent": "fence_ipmilan", "host": n,
                           "level": level, "params": p}
                          for kind, level, n, p in fence_params(lab_hosts(src))
                          if is_cpha(stack) or n in masters]
    fencing.pop("load_balancers", None)
    if not is_cpha(stack):
        fencing["load_balancers"] = "none"  # as in description()
    d["monitoring"] = copy.deepcopy(MONITORING)
    d.pop("qdevice", None)
    if with_qdevice(stack, qdevice) and is_cpha(stack):
        d["qdevice"] = {"address": qdevice_address(lab_hosts(src)), "algorithm": "ffsplit"}
    return "# %s, run in the cpha lab at lab addresses\n" % src.get("_path", "a description") \
        + yaml.safe_dump({k: v for k, v in d.items() if not k.startswith("_")},
                         sort_keys=False)


def bmc_params(hosts, port0=BMC_PORT0):
    """(host, fence_ipmilan parameters) for every master and LB host: one
    ipmi_sim each on the bmc host, in this order (build.start_bmcs too)."""
    bmc = [h for h in hosts if h[1] == "bmc"][0]
    targets = bmc_targets(hosts)
    return [(h[0], {"ip": bmc[2], "ipport": port0 + i + 1, "username": "admin",
                    "password_file": "/etc/cpha/secrets/ipmi-" + h[0], "lanplus": 1,
                    "cipher": 3, "power_wait": 0}) for i, h in enumerate(targets)]


def bmc_targets(hosts):
    """The hosts with a BMC, in the order of their ports: masters, LB
    hosts, then the spares (so that adding spares moves no port)."""
    return [h for role in ("master", "lb", SPARE) for h in hosts if h[1] == role]


def fence_params(hosts):
    """(device kind, level, host, fence_ipmilan parameters): every master and
    LB host's BMC at level 1, its stand-in PDU at level 2."""
    return [("ipmi", 1, n, p) for n, p in bmc_params(hosts)] + \
        [("pdu", 2, n, p) for n, p in bmc_params(hosts, PDU_PORT0)]


def description(stack="cpha", source=None, qdevice=False, dual_stack=False, version=None,
                added=()):
    """The lab's cluster description (YAML text) for stack: the embedded
    one, or source's at lab addresses; with the quorum device on the
    client host when qdevice (with_qdevice); with dual_stack api.vip gives
    VIP and VIP6; with version, that kubernetes.version (an upgrade's);
    added: the spare hosts that master-add made masters, after the others."""
    if source:
        return source_description(stack, source, qdevice, dual_stack, version)
    lb, vipd = ("lbd", "vipd") if is_cpha(stack) else ("haproxy", "keepalived")
    unknown = [n for n in added if n not in [h[0] for h in HOSTS if h[1] == SPARE]]
    if unknown:
        raise LabError("no spare hosts %s in the lab" % " ".join(unknown))
    ms = [h for h in HOSTS if h[1] == "master"] + [h for h in HOSTS if h[0] in added]
    lbs = [h for h in HOSTS if h[1] == "lb"]
    ports = {h[0]: i for i, h in enumerate(bmc_targets(HOSTS))}
    bmc = [h for h in HOSTS if h[1] == "bmc"][0]
    devs = []
    # power_wait 0: ipmi_sim's power off is a hard off, as a real BMC's
    # "chassis power off" is; the agent still reads the status until it
    # says off (cluster.yaml(5), fencing devices)
    # level 2: the stand-in PDU of each host, used when its BMC fails
    # the peer (HAProxy and keepalived, as kubeadm's HA guide has them)
    # fences no LB host: keepalived alone decides the VIP
    fenced = ms + lbs if is_cpha(stack) else ms
    for kind, level, port0 in (("ipmi", 1, BMC_PORT0), ("pdu", 2, PDU_PORT0)):
        for h in ms + lbs:
            if h not in fenced:
                continue
            i = ports[h[0]]
            devs.append("    - {name: %s-%s, agent: fence_ipmilan, host: %s, level: %d, "
                        "params: {ip: %s, ipport: %d, username: admin, "
                        "password_file: /etc/cpha/secrets/ipmi-%s, lanplus: 1, cipher: 3, "
                        "power_wait: 0}}"
                        % (kind, h[0], h[0], level, bmc[2], port0 + i + 1, h[0]))
    vip = api_vips(dual_stack)
    text = DESCRIPTION % {
        "vip": "[%s]" % ", ".join(vip) if isinstance(vip, list) else vip, "lb": lb, "vipd": vipd,
        "masters": "\n".join("  - {name: %s, address: %s}" % (h[0], h[2]) for h in ms),
        "lbs": "\n".join("  - {name: %s, address: %s}" % (h[0], h[2]) for h in lbs),
        "devices": "\n".join(devs), "muser": METRICS_USER, "mhash": METRICS_HASH,
        "lbs_fencing": "" if is_cpha(stack) else "  load_balancers: none\n",
        "mfile": METRICS_PASSWORD_FILE,
        "k8s_version": "version: '%s', " % version if version else ""}
    if with_qdevice(stack, qdevice) and is_cpha(stack):
        text += "qdevice: {address: %s, algorithm: ffsplit}\n" % qdevice_address(HOSTS)
    return text


def lb_cluster_name(source=None):
    """The LB hosts' corosync cluster_name, as cpha render writes it."""
    return "%s-lb" % ((source or {}).get("cluster") or {}).get("name", "lab")


class Lab:
    def __init__(self, name="lab"):
        if not name.isalnum() or len(name) > 6:
            raise LabError("lab name %r: 1-6 letters or digits" % name)
        self.name = name
        self.prefix = "cl" + name
        self.bridge = self.prefix + "br"
        self.state_dir = os.path.join(STATE_ROOT, name)
        self.data = os.path.join(DATA_ROOT, name)
        self.bin_dir = os.path.join(self.data, "bin")
        self.ocf_dir = os.path.join(self.data, "ocf")
        self.hosts = {}
        self.info = {}  # stack, description, binaries, ...

    # -- state --------------------------------------------------------------------
    @property
    def root_ns(self):
        return os.path.join(self.state_dir, "rootns")

    @property
    def state_file(self):
        return os.path.join(self.state_dir, "state.json")

    def exists(self):
        return os.path.exists(self.state_file)

    def load(self):
        if not self.exists():
            raise LabError("lab %s is not up (cpha lab up)" % self.name)
        with open(self.state_file) as f:
            s = json.load(f)
        self.info = s.get("info", {})
        self.hosts = {}
        for d in s["hosts"]:
            self.hosts[d["name"]] = hosts.Host.from_json(self, d).refresh()
        return self

    def save(self):
        os.makedirs(self.state_dir, exist_ok=True)
        hosts.write_json(self.state_file, {"name": self.name, "info": self.info,
                                           "hosts": [h.to_json() for h in self.hosts.values()]})
        for h in self.hosts.values():
            if not os.path.exists(h.state_file):
                h.save()

    def host(self, name):
        if name not in self.hosts:
            raise LabError("no host %r in lab %s (hosts: %s)" % (name, self.name,
                                                              " ".join(self.hosts)))
        return self.hosts[name]

    def by_role(self, role):
        return [h for h in self.hosts.values() if h.role == role]

    def write_description(self, stack):
        """The operator's edit made: the description of stack as it is now
        into the admin host's copy (the stage directory) and the lab's
        (a stack switch or a rebuilt master renders from it). Returns it."""
        text = self.description(stack)
        for p in (self.path("cluster-%s.yaml" % stack), self.path("stage", "cluster.yaml")):
            with open(p + ".tmp", "w") as f:
                f.write(text)
            os.rename(p + ".tmp", p)
        return text

    def description(self, stack, version=None):
        """The description of stack for this lab as it is now (its source,
        quorum device, VIPs, Kubernetes version and added masters)."""
        return description(stack, self.info.get("source"), self.info.get("qdevice"),
                           self.dual_stack, version or self.info.get("k8s_version"),
                           self.info.get("added_masters") or ())

    def path(self, *parts):
        return os.path.join(self.data, *parts)

    # -- network ------------------------------------------------------------------
    def create(self, source=None):
        if self.exists():
            raise LabError("lab %s is already up (cpha lab down first)" % self.name)
        os.makedirs(self.state_dir, exist_ok=True)
        if os.path.exists(self.data):
            shutil.rmtree(self.data)
        os.makedirs(self.data)
        for i, (n, role, v4, v6) in enumerate(lab_hosts(source)):
            self.hosts[n] = hosts.Host(self, n, role, v4, v6, i)
        self.save()
        # the root network namespace, pinned: the BMCs (in their own
        # namespace) power hosts on and off through it
        open(self.root_ns, "w").close()
        run(["mount", "--bind", "/proc/self/ns/net", self.root_ns])
        run(["ip", "link", "add", self.bridge, "type", "bridge"])
        run(["ip", "link", "set", self.bridge, "up"])
        # no IPv6 address on the bridge: the root namespace stays off the lab net
        run(["sysctl", "-q", "-w", "net.ipv6.conf.%s.disable_ipv6=1" % self.bridge], check=False)
        # and so no MLD querier on it: the bridge floods multicast (VRRP over
        # IPv6 to ff02::12) rather than guess who listens
        run(["ip", "link", "set", self.bridge, "type", "bridge", "mcast_snooping", "0"])
        for h in self.hosts.values():
            h.create_net()

    @property
    def dual_stack(self):
        """The lab runs both VIPs (up --dual-stack; kept in its state)."""
        return bool(self.info.get("dual_stack"))

    def destroy(self, keep_data=False):
        """Every process of every lab namespace, the namespaces, the bridge;
        the data directory too unless keep_data."""
        errors = []
        prefix = self.prefix + "-"
        r = run(["ip", "netns", "list"], check=False)
        names = [l.split()[0] for l in r.stdout.splitlines() if l.split()]
        # a host left hung (a run that failed mid-scenario): its frozen
        # processes take SIGKILL only once thawed
        cgroups = hosts.thaw_all(self.prefix, kill=True)
        for ns in names:
            if not ns.startswith(prefix):
                continue
            try:
                hosts.kill_all(hosts.ns_ident("/run/netns/" + ns))
            except (OSError, LabError) as e:
                errors.append(str(e))
        r = run(["ip", "-o", "link", "show"], check=False)
        for line in r.stdout.splitlines():
            w = line.split(": ")
            if len(w) > 1 and w[1].split("@")[0].startswith(self.prefix + "v"):
                run(["ip", "link", "delete", w[1].split("@")[0]], check=False)
        for ns in names:
            if ns.startswith(prefix):
                run(["ip", "netns", "delete", ns], check=False)
        run(["ip", "link", "delete", self.bridge], check=False)
        for c in cgroups:
            if not hosts.remove_cgroup(c):
                errors.append("%s: processes left in the cgroup" % c)
        if os.path.exists(self.root_ns):
            run(["umount", self.root_ns], check=False)
        if os.path.exists(self.state_dir):
            shutil.rmtree(self.state_dir, ignore_errors=True)
        if not keep_data and os.path.isdir(self.data):
            # the hosts' overlay work directories hold root-only entries:
            # rmtree copes; a mount left inside would stop it
            shutil.rmtree(self.data, ignore_errors=True)
        return errors
