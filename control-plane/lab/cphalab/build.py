"""Make the lab's hosts the product's way and start their services.

`cpha lab up` follows docs/deploy.md (follow_guide, guide.py): plan, pki
and render on the admin side, `cpha install` on each host, the services
through their units (units.py), the pcs script into the live cluster.
Later installs (a stack switch, a rebuilt master) use the same `cpha
install`. The lab's own additions are what a site has of its own: the
BMC password files, the hosts' names in /etc/hosts, and dc-deadtime 5s
(Pacemaker's 20 s default would only slow the many reboots).
"""

import contextlib
import fcntl
import grp
import os
import pwd
import shlex
import shutil
import signal
import subprocess
import time

from . import lab as labmod
from . import alerts, bmc, guide, kubever, units
from .hosts import LabError

KUBE = ["kube-apiserver", "kube-controller-manager", "kube-scheduler"]
AGENTS = ["etcd", "kube-apiserver", "kube-controller-manager", "kube-scheduler", "lbd",
          "haproxy"]


class Programs:
    """Where every program the lab runs is, and what it is (for the report)."""

    def __init__(self):
        self.cpha = os.environ.get("CPHA_LAB_CPHA") or shutil.which("cpha") or "/usr/bin/cpha"
        self.cpha = os.path.realpath(self.cpha)
        top = os.path.dirname(os.path.dirname(self.cpha))
        self.build = top if os.path.exists(os.path.join(top, "lbd", "lbd")) else None
        here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        sims = [os.environ.get("CPHA_LAB_SIMULATORS", ""), os.path.join(here, "simulators")]
        self.simulators = next((os.path.realpath(d) for d in sims
                                if d and os.path.exists(os.path.join(d, "kube-apiserver"))), None)

    def daemon(self, name):
        if self.build:
            return os.path.join(self.build, name, name)
        p = shutil.which(name) or os.path.join("/usr/sbin", name)
        return p

    def agent_dir(self):
        if self.build:
            return os.path.join(self.build, "resource-agents", "cpha")
        return "/usr/lib/ocf/resource.d/cpha"

    def kube(self, name):
        """(path, "real" | "stand-in (lab simulator)")."""
        real = shutil.which(name)
        if real and not (self.simulators and os.path.realpath(real).startswith(self.simulators)):
            return real, "real " + name
        if not self.simulators:
            raise LabError("%s: not on PATH and no lab simulator found (CPHA_LAB_SIMULATORS)"
                           % name)
        return os.path.join(self.simulators, name), "stand-in (lab simulator)"

    def describe(self):
        out = {}
        for n in KUBE:
            out[n] = self.kube(n)[1]
        for n, argv in (("etcd", ["etcd", "--version"]), ("haproxy", ["haproxy", "-v"]),
                        ("keepalived", ["keepalived", "--version"]),
                        ("pacemaker", ["pacemakerd", "--version"]),
                        ("corosync", ["corosync", "-v"]), ("kubectl", ["kubectl", "version",
                                                                       "--client"])):
            try:
                r = subprocess.run(argv, capture_output=True, text=True, timeout=10)
                line = (r.stdout or r.stderr).strip().splitlines()
                out[n] = line[0] if line else "present"
            except (OSError, subprocess.TimeoutExpired):
                out[n] = "absent"
        out["cpha"] = "cpha (this build)" if self.build else "cpha (installed)"
        return out


def cpha(progs, args, check=True, timeout=300):
    env = dict(os.environ)
    if progs.build:
        env["PATH"] = ":".join([os.path.join(progs.build, d) for d in ("lbd", "vipd", "fenced")]
                               + [env.get("PATH", "")])
    r = subprocess.run([progs.cpha] + args, capture_output=True, text=True, timeout=timeout,
                       env=env)
    if check and r.returncode != 0:
        raise LabError("cpha %s: exit %d\n%s%s" % (" ".join(args), r.returncode, r.stdout,
                                                   r.stderr))
    return r


def prepare_dirs(lab, progs):
    """The overlays' lower directories: lab programs and the cpha agents.
    The kube-* stand-ins play the table's default version, or the lab's
    release of the one the description names (kubever)."""
    os.makedirs(lab.bin_dir, exist_ok=True)
    release = None
    named = kubever.description_version(lab.info)
    if named and all(progs.kube(n)[1] != "real " + n for n in KUBE):
        table = kubever.Table(progs.simulators)
        try:
            version = table.version(named)
        except ValueError as e:
            raise LabError("kubernetes.version: %s" % e)
        if version != table.version():
            release = kubever.release_dir(lab, table, version)
            lab.info["k8s_lower"] = version
            lab.save()
    for n in KUBE:
        os.symlink(os.path.join(release, n) if release else progs.kube(n)[0],
                   os.path.join(lab.bin_dir, n))
    os.symlink(progs.cpha, os.path.join(lab.bin_dir, "cpha"))
    for n in ("lbd", "vipd", "fenced"):
        os.symlink(progs.daemon(n), os.path.join(lab.bin_dir, n))
    os.makedirs(os.path.join(lab.ocf_dir, "cpha"), exist_ok=True)
    for a in AGENTS:
        src = os.path.join(progs.agent_dir(), a)
        if os.path.exists(src):
            os.symlink(src, os.path.join(lab.ocf_dir, "cpha", a))


def make_files(lab, progs, stack):
    """plan, pki (once), render, for a stack; returns (description, render
    directory). A render of the same description by the same cpha is
    kept: its checkers (pcs, crm_verify, haproxy -c, ...) take half a
    minute, at every switch of the stacks."""
    desc = lab.path("cluster-%s.yaml" % stack)
    text = lab.description(stack)
    with open(desc, "w") as f:
        f.write(text)
    pki, out = lab.path("pki"), lab.path("render-" + stack)
    st = os.stat(progs.cpha)
    stamp = "%s\n%s %d %d\n" % (text, progs.cpha, st.st_mtime_ns, st.st_size)
    stamp_path = out + ".made-from"
    try:
        with open(stamp_path) as f:
            if f.read() == stamp and os.path.isdir(out) and os.path.isdir(pki):
                return desc, out
    except OSError:
        pass
    cpha(progs, ["-f", desc, "plan"])
    if not os.path.exists(pki):
        cpha(progs, ["-f", desc, "pki", "--dir", pki])
    if os.path.exists(stamp_path):
        os.unlink(stamp_path)
    if os.path.exists(out):
        shutil.rmtree(out)
    cpha(progs, ["-f", desc, "render", "--out", out])
    if stack == "peer-preempt":
        for h in lab.by_role("lb"):
            p = os.path.join(out, h.name, "etc", "keepalived", "keepalived.conf")
            with open(p) as f:
                conf = f.read()
            with open(p, "w") as f:
                f.write(preempting(conf))
    with open(stamp_path, "w") as f:
        f.write(stamp)
    return desc, out


def guide_follower(lab, progs, stack, progress, name="deploy.md"):
    """A guide.Follower of docs/NAME for the lab's stage directory, with
    the variables deploy.md defines and this build's programs first on
    the admin workstation's PATH."""
    stage = lab.path("stage")
    env = dict(os.environ)
    env["PATH"] = ":".join([os.path.dirname(progs.cpha)] + [
        os.path.join(progs.build, d) for d in ("lbd", "vipd", "fenced") if progs.build]
        + [env.get("PATH", "")])
    api = ((lab.info.get("source") or {}).get("api") or {}).get("name", "kubernetes")
    bmcs = " ".join(h.name for h in lab.by_role("master") + lab.by_role("lb"))
    variables = {"STAGE": stage, "VIP": labmod.VIP, "API_NAME": api, "BMC_HOSTS": bmcs,
                 "BMC_PASSWORD": labmod.BMC_PASSWORD,
                 "METRICS_PASSWORD": labmod.METRICS_PASSWORD,
                 "LB_CLUSTER": labmod.lb_cluster_name(lab.info.get("source"))}
    conds = ("qdevice",) if labmod.with_qdevice(stack, lab.info.get("qdevice")) else ()
    conds += ("vipd", "lbs-fenced") if labmod.is_cpha(stack) else ("keepalived",)
    return guide.Follower(lab, stage, variables, env, unit_dirs(), UNIT_ENV, progress,
                          conds, name)


def follow_runbook(lab, stack, run, progress, variables=None):
    """docs/runbook.md's blocks marked run=RUN, as written, on the lab's
    hosts (the lab's stage directory is the admin workstation's);
    variables: more of them, for this run."""
    f = guide_follower(lab, Programs(), stack, progress, "runbook.md")
    f.vars.update(variables or {})
    f.follow(run=run)


def follow_guide(lab, progs, stack, progress):
    """docs/deploy.md on the lab's hosts (guide.py): plan, pki and render
    on the admin workstation (this machine), then each host's steps. The
    peer stack's LB hosts stop where HAProxy and keepalived take over
    (start_lb). Returns (description, render directory)."""
    stage = lab.path("stage")
    os.makedirs(stage, exist_ok=True)
    text = lab.description(stack)
    desc = lab.path("cluster-%s.yaml" % stack)
    for p in (desc, os.path.join(stage, "cluster.yaml")):
        with open(p, "w") as f:
            f.write(text)
    if not os.path.lexists(lab.path("pki")):
        os.symlink(os.path.join("stage", "pki"), lab.path("pki"))
    follower = guide_follower(lab, progs, stack, progress)
    follower.follow(skip=() if labmod.is_cpha(stack)
                    else ("lbs", "first-lb", "client", "qnetd"))
    # the lab's own: a controller elected in 5 s after its many reboots
    # (Pacemaker's default dc-deadtime is 20 s)
    lab.by_role("master")[0].run(["pcs", "property", "set", "dc-deadtime=5s"], timeout=120)
    return desc, os.path.join(stage, "out")


def preempting(text):
    """keepalived.conf as cpha render makes it, changed to preempt as
    kubeadm's HA guide does: no nopreempt, and the check lowering the
    priority below every healthy host (the highest priority less 99)
    instead of putting the instance in FAULT, failing until it passes."""
    prios = [int(l.split()[1]) for l in text.splitlines()
             if l.split()[:1] == ["priority"] and len(l.split()) > 1]
    weight = max(max(prios, default=100) - 99, 1)
    out = []
    for line in text.splitlines(True):
        if line.strip() == "nopreempt":
            continue
        out.append(line)
        if line.strip() == "fall 2":
            out.append("    weight -%d\n    init_fail\n" % weight)
    return "".join(out).replace(
        "! keepalived's configuration language.",
        "! keepalived's configuration language. The lab's variant: preempting.", 1)


def hacluster():
    return pwd.getpwnam("hacluster").pw_uid, grp.getgrnam("haclient").gr_gid


def hosts_file(lab, api=True):
    """The names of the lab's hosts (what their DNS would say); with api,
    also api.name at the VIP (docs/deploy.md's step, which `cpha lab up`
    runs itself)."""
    lines = ["127.0.0.1 localhost"]
    if api:
        lines.append("%s kubernetes" % labmod.VIP)
    lines += ["%s %s" % (h.v4, h.name) for h in lab.hosts.values()]
    return "\n".join(lines) + "\n"


def prepare_host(lab, host, api=True):
    """What a freshly installed host has before docs/deploy.md begins: its
    name service, and the directories the corosync and Pacemaker packages
    make (the lab lays the machine's programs over the host, not the
    packages' files)."""
    host.write("/etc/hosts", hosts_file(lab, api))
    # the site's secret for `cpha status` (monitoring.basic_auth's
    # password_file), on every host where it may run
    host.write(labmod.METRICS_PASSWORD_FILE, labmod.METRICS_PASSWORD + "\n", 0o600)
    hc = hacluster()
    for d in ("/var/lib/corosync", "/var/log/cpha"):
        os.makedirs(host.path(d), exist_ok=True)
    for d in ("cib", "pengine", "blackbox", "cores"):
        p = host.path("/var/lib/pacemaker/" + d)
        os.makedirs(p, exist_ok=True)
        os.chmod(p, 0o750)
        os.chown(p, *hc)
    p = host.path("/var/log/pacemaker")
    os.makedirs(p, exist_ok=True)
    os.chmod(p, 0o770)
    os.chown(p, *hc)


def lose_disk(host):
    """host loses its power and its disk (/etc, /var/lib, /usr/bin's
    additions, /var/log): powered on again, it is a blank machine."""
    host.power_off()
    for d in ("etc.up", "varlib.up", "usrbin.up", "log"):
        shutil.rmtree(host.dir + "/" + d, ignore_errors=True)


def site_secrets(lab, host):
    """The secrets a site keeps of its own on a master or LB host
    (docs/deploy.md, step 3): each BMC's password, spares' too."""
    for h in lab.hosts.values():
        if h.role in ("master", "lb", labmod.SPARE):
            host.write("/etc/cpha/secrets/ipmi-" + h.name, labmod.BMC_PASSWORD + "\n", 0o600)


def install_host(lab, host, desc, out, stack):
    """A master's or LB host's files, as docs/deploy.md and docs/runbook.md
    put them: `cpha install` on the host, after the secrets the site keeps
    of its own. Files of the other LB stack are removed first (install
    only adds)."""
    prepare_host(lab, host)
    site_secrets(lab, host)
    hostdir = os.path.join(out, host.name)
    for d in ("/etc/lbd", "/etc/vipd", "/etc/haproxy", "/etc/keepalived"):
        if os.path.isdir(host.path(d)) and not os.path.exists(hostdir + d):
            shutil.rmtree(host.path(d), ignore_errors=True)  # the other stack's files
    r = host.run(["cpha", "-f", desc, "install", "--host", host.name, "--render", out,
                  "--pki", os.path.realpath(lab.path("pki")), "--root", "/"], check=False,
                 timeout=120)
    if r.returncode:
        raise LabError("%s: cpha install: exit %d\n%s%s" % (host.name, r.returncode, r.stdout,
                                                              r.stderr))
    # after an upgrade, a master (rebuilt) gets the release the cluster runs
    if host.role == "master" and lab.info.get("k8s_version"):
        table = kubever.Table(Programs().simulators)
        version = kubever.current(lab, table)
        if version != kubever.lower_version(lab, table):
            kubever.install_release(host, kubever.release_dir(lab, table, version))


# -- BMCs ----------------------------------------------------------------------------
# The power state is the host's: the lab program asks and acts.


def bmc_log(lab, name):
    return lab.path("bmc", name + ".log")


def pdu_log(lab, name):
    return lab.path("bmc", name + "-pdu.log")


def start_bmcs(lab):
    """Each master's and LB host's BMC, and its stand-in PDU (the second
    fence level): two ipmi_sim on the bmc host switching one power state."""
    bmc_host = lab.by_role("bmc")[0]
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    labcmd = "python3 %s --name %s" % (shlex.quote(os.path.join(here, "cpha-lab")), lab.name)
    targets = [lab.host(h[0]) for h in labmod.bmc_targets(
        labmod.lab_hosts(lab.info.get("source")))]
    for i, h in enumerate(targets):
        power = "%s power %s " % (labcmd, h.name)
        d = lab.path("bmc", h.name)
        argv = bmc.write(d, "bmc-" + h.name, bmc_host.v4,
                         labmod.BMC_PORT0 + i + 1, labmod.BMC_PASSWORD, bmc_log(lab, h.name),
                         power + "off", power + "on", idx=i)
        pdu = bmc.write(lab.path("bmc", h.name + "-pdu"), "pdu-" + h.name, bmc_host.v4,
                        labmod.PDU_PORT0 + i + 1, labmod.BMC_PASSWORD, pdu_log(lab, h.name),
                        power + "off", power + "on", idx=0x40 + i, power=bmc.power_file(d))
        h.set_power(h.powered())
        bmc_host.start("bmc-" + h.name, argv)
        bmc_host.start("pdu-" + h.name, pdu)


def bmc_events(lab, name, since=0.0):
    """What the host's fence devices were told, both levels, in time order."""
    return sorted(bmc.events(bmc_log(lab, name), since) +
                  bmc.events(pdu_log(lab, name), since))


# -- services ------------------------------------------------------------------------
# What the lab adds to a unit's environment: Pacemaker logs to the host's
# own /var/log only (the machine's syslog is not the host's); lbd, vipd
# and fenced, whose standard error is a plain file here (no journal), say
# when each line was written.
UNIT_ENV = {"pacemaker": {"PCMK_logfacility": "none", "PCMK_stderr": "no"},
            "lbd": {"CPHA_LOG_TIME": "1"}, "vipd": {"CPHA_LOG_TIME": "1"},
            "fenced": {"CPHA_LOG_TIME": "1"},
            # as start_lb_daemons starts it: its log on the console (the
            # host's log), its state dumps in the host's own /run
            "keepalived": {"TMPDIR": "/run/keepalived", "DAEMON_ARGS": "-l -D"}}


def unit_dirs():
    """The units of this build (etc/systemd in the source tree), looked up
    after the host's own (an installed package's)."""
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    d = os.path.realpath(os.path.join(here, "..", "..", "etc", "systemd"))
    return [d] if os.path.isdir(d) else []


def start_units(host, names, progress=None):
    """`systemctl start NAMES` on host, through the units (units.py)."""
    return units.start(host, names, unit_dirs(), UNIT_ENV, progress)


def start_master(host):
    """What a master's init starts: corosync, Pacemaker, and fenced where
    render wrote its configuration (fence_via pacemaker)."""
    start_units(host, ["corosync", "pacemaker", "fenced"])


def lb_stack(host):
    if os.path.exists(host.path("/etc/lbd/lbd.cfg")):
        return "cpha"
    return "peer"


def start_lb_proxy(host):
    """The load balancer alone: lbd, or HAProxy."""
    if lb_stack(host) == "cpha":
        start_units(host, ["lbd"])
    elif not host.service_pid("haproxy"):
        host.start("haproxy", ["haproxy", "-W", "-db", "-f", "/etc/haproxy/haproxy.cfg"])


def start_lb_daemons(host):
    if lb_stack(host) == "cpha":
        start_units(host, ["lbd", "vipd"])
    else:
        start_lb_proxy(host)
        # TMPDIR: where keepalived writes its state dumps (keepalived.json on
        # SIGJSON), the host's own /run rather than the machine's /tmp
        host.start("keepalived", ["keepalived", "-n", "-l", "-D", "-f",
                                  "/etc/keepalived/keepalived.conf"],
                   env={"TMPDIR": "/run/keepalived"})


def stop_lb_daemons(host):
    for n in (HAPROXY_EXPORTER, "vipd", "keepalived", "lbd", "haproxy"):
        host.stop(n)


def has_qdevice(host):
    """The host's corosync.conf counts a quorum device's vote."""
    try:
        with open(host.path("/etc/corosync/corosync.conf")) as f:
            return any(l.split() == ["model:", "net"] for l in f)
    except OSError:
        return False


def start_lb_cluster(host):
    start_units(host, ["corosync"] + (["corosync-qdevice"] if has_qdevice(host) else [])
                + ["fenced"])


def stop_lb_cluster(host):
    for n in ("fenced", "corosync-qdevice", "corosync"):
        host.stop(n)


def start_lb(host):
    """The cpha stack: corosync and fenced, then lbd and vipd. The peer
    stack is HAProxy and keepalived alone: keepalived has no fencer to
    wait for, and a fencer beside it that cannot tell who holds the VIP
    only races the other host (both fenced at once)."""
    if lb_stack(host) == "cpha":
        start_lb_cluster(host)
    start_lb_daemons(host)


MONITOR_UNITS = ("prometheus-node-exporter", "cpha-check-textfile.timer")
# HAProxy's exporter, on the peer stack's LB hosts where cpha render wrote
# its arguments (monitoring.prometheus)
HAPROXY_EXPORTER = "prometheus-haproxy-exporter"
HAPROXY_EXPORTER_ARGS = "/etc/default/prometheus-haproxy-exporter"
PEER_RULES = "peer-rules.yml"  # beside this file


def start_monitor(host):
    """node-exporter and the check timer, where the guide enabled them
    (docs/deploy.md, "Monitoring")."""
    if os.path.exists(host.path("/etc/systemd/system/cpha-check-textfile.timer")):
        start_units(host, list(MONITOR_UNITS))
    start_haproxy_exporter(host)


def start_haproxy_exporter(host):
    """HAProxy's exporter on a peer LB host (docs/monitoring.md, "HAProxy
    and keepalived"), after HAProxy: it reads HAProxy's stats socket."""
    if (host.role == "lb" and lb_stack(host) != "cpha" and host.powered()
            and os.path.exists(host.path(HAPROXY_EXPORTER_ARGS))
            and not host.service_pid(HAPROXY_EXPORTER)):
        start_units(host, [HAPROXY_EXPORTER])


HAPROXY_EXPORTER_PORT = 9101  # as cpha render writes its arguments (its default)


def wait_haproxy_exporter(host, timeout=30):
    """Until HAProxy's exporter on a peer LB host listens. Prometheus given
    its target any sooner scrapes nothing (up == 0), and the community's
    PrometheusTargetMissing, which has no for:, fires for a lab that is
    only starting up; a loaded machine starts the exporter seconds late."""
    if (host.role != "lb" or lb_stack(host) == "cpha" or not host.powered()
            or not host.service_pid(HAPROXY_EXPORTER)):
        return
    deadline = time.monotonic() + timeout
    while True:
        r = host.run(["ss", "-Hltn", "sport = :%d" % HAPROXY_EXPORTER_PORT], check=False)
        if r.returncode == 0 and r.stdout.strip():
            return
        if time.monotonic() > deadline:
            raise LabError("%s: %s does not listen on port %d after %d s"
                           % (host.name, HAPROXY_EXPORTER, HAPROXY_EXPORTER_PORT, timeout))
        time.sleep(0.2)


def without_targets(text, job, hosts=None):
    """prometheus.yml as cpha render writes it (a target's line, then its
    labels {host: NAME}), without job's targets on hosts, or without the
    job (hosts None): while the stacks change, the LB hosts' daemons are
    stopped."""
    lines = text.splitlines(True)
    out, cur, i = [], None, 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("  - job_name: "):
            cur = line.split(":", 1)[1].strip()
        elif not line.startswith("    "):
            cur = None
        if cur == job and hosts is None:
            i += 1
            continue
        nxt = lines[i + 1].strip() if i + 1 < len(lines) else ""
        if (cur == job and line.startswith("      - targets: ")
                and nxt in ["labels: {host: %s}" % h for h in hosts]):
            i += 2
            continue
        out.append(line)
        i += 1
    return "".join(out)


# The LB hosts' scrape jobs of either stack (the daemons' and HAProxy's)
LB_JOBS = ("cpha-lbd", "cpha-vipd", "haproxy")


def prometheus_config(lab, out, stack, lb=True):
    """The client's Prometheus follows the LB stack: the configuration cpha
    render wrote for it (jobs cpha-lbd, cpha-vipd and cpha-fenced, or
    haproxy) with cpha's rules, or for the peer the community's HAProxy
    rules (peer-rules.yml), then a reload (SIGHUP), waited for. Without lb,
    none of the LB hosts' jobs: the switch drops the old stack's before
    stopping it, as Prometheus writes no staleness markers for the series
    of a job a reload removed (a last `up` of 0, from a daemon stopped
    between two scrapes, would stand for 5 minutes). Nothing without a
    Prometheus on the client."""
    client = lab.host("client")
    if not client.service_pid("prometheus"):
        return
    with open(os.path.join(out, "cluster", "prometheus", "prometheus.yml")) as f:
        text = f.read()
    lbs = [h.name for h in lab.by_role("lb")]
    if not labmod.is_cpha(stack):
        here = os.path.dirname(os.path.abspath(__file__))
        with open(os.path.join(here, PEER_RULES)) as f:
            client.write("/etc/prometheus/" + PEER_RULES, f.read(), 0o644)
        text = text.replace("\n  - cpha-rules.yml\n", "\n  - %s\n" % PEER_RULES, 1)
    if not lb:
        text = without_targets(text, "cpha-fenced", lbs)
    if not lb:
        for job in LB_JOBS:
            text = without_targets(text, job)
    client.write("/etc/prometheus/prometheus.yml", text, 0o644)
    since = time.time()
    client.signal("prometheus", signal.SIGHUP)
    end = since + 30
    while time.time() < end:
        t = alerts.config_time(lab)
        if t is not None and t >= since - 1.0:
            return
        time.sleep(0.5)
    raise LabError("client: Prometheus did not reload its configuration in 30 s")


def start_alerting(lab):
    """The client host's Alertmanager, sending to the lab's recorder
    (alertlog.py), which writes alerts.jsonl in the lab's directory."""
    client = lab.host("client")
    if not client.service_pid("alertlog"):
        here = os.path.dirname(os.path.abspath(__file__))
        client.start("alertlog", ["python3", os.path.join(here, "alertlog.py"),
                                 labmod.ALERTLOG_LISTEN, lab.path("alerts.jsonl")])
    start_units(client, ["prometheus-alertmanager"])


def boot(lab, host):
    """What the host's init would start."""
    host.power_on()
    if host.role == "master":
        start_master(host)
    elif host.role == "lb":
        start_lb(host)
    start_monitor(host)


@contextlib.contextmanager
def host_lock(lab, host):
    """Held while a host boots or a daemon of it is started, by any of the
    lab's processes and threads: a BMC told to power a host on boots it
    from a process of its own (cpha-lab boot, 6 s later), and the soak may
    power the same host on meanwhile. Two boots at once start each daemon
    twice, the second on the first's notify socket (a soak: "No such file
    or directory: .../notify-lb2-corosync")."""
    fd = os.open(lab.path("boot-%s.lock" % host.name), os.O_CREAT | os.O_RDWR | os.O_CLOEXEC,
                 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def boot_if_off(lab, host):
    """boot(), under the host's lock, unless the host is on by then
    (booted by another hand meanwhile). True if this call booted it."""
    with host_lock(lab, host):
        if host.powered():
            return False
        boot(lab, host)
        return True


UPGRADE_SUFFIX = "+lab-upgrade"


def upgrade_dirs(lab):
    """Two directories of lbd, vipd and fenced (symbolic links to them):
    this build's, and its NAME-lab-upgrade variants, the same code built
    to report another version (CMakeLists.txt, cpha_lab_upgrade_variant).
    The lb-upgrade scenario installs whichever the LB hosts do not run."""
    progs = Programs()
    if not progs.build:
        raise LabError("lb-upgrade installs another build of lbd, vipd and fenced: it needs "
                       "cpha run from a build tree (an installed cpha has no other build)")
    dirs = {}
    for name, suffix in (("this", ""), ("upgrade", "-lab-upgrade")):
        d = lab.path("programs-" + name)
        os.makedirs(d, exist_ok=True)
        for n in ("lbd", "vipd", "fenced"):
            target = os.path.join(progs.build, n, n + suffix)
            if not os.path.exists(target):
                raise LabError("lb-upgrade: %s is not built (cmake --build %s --target %s)"
                               % (target, progs.build, n + suffix))
            link = os.path.join(d, n)
            if not os.path.lexists(link):
                os.symlink(target, link)
        dirs[name] = d
    return dirs
