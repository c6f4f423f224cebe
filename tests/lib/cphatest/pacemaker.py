"""A real corosync + Pacemaker node inside a lab host (no systemd, no pcsd).

Pacemaker in namespaces needs clients that enter both the network and the
mount namespace (libqb IPC uses abstract UNIX sockets and /dev/shm), a
private /run per node, and nothing killed by name (no PID namespace: every
node's processes share /proc). So a long-lived "holder" process owns a
private mount and UTS namespace inside the host's network namespace; it
sets the host name, mounts tmpfs on /run and /dev/shm, and binds per-node
directories over /etc/corosync, /var/lib/corosync, /var/lib/pacemaker,
/var/log and /etc/hosts. Extra mounts (an overlay that
adds OCF agents to /usr/lib/ocf/resource.d) come from the caller. Every
daemon and client runs through `nsenter -t HOLDER -n -m -u -- env -i ...`.
Nothing is killed by name: daemons are the lab's processes (stopped by PID),
and the lab kills whatever is left in the host's network namespace.

    node = pacemaker.Node(lab, host, "n1", extra_mounts=[stage.overlay_script()])
    node.start()                        # holder, corosync, pacemakerd; waits for a DC
    node.run(["pcs", "resource", "create", ...])
    node.resources()                    # {id: {"role":..., "active":..., "failed":...}}
    node.stop()                         # pacemakerd stops the resources, then corosync
"""

import grp
import os
import pwd
import shlex
import signal
import subprocess
import xml.etree.ElementTree as ET

from cphalab import netns

from . import util

_COROSYNC_HEAD = """totem {
    version: 2
    cluster_name: %(cluster)s
    transport: knet
    token: 1000
    crypto_cipher: aes256
    crypto_hash: sha256
}

nodelist {
"""

_COROSYNC_NODE = """    node {
        ring0_addr: %(addr)s
        name: %(name)s
        nodeid: %(id)d
    }
"""

_COROSYNC_TAIL = """}

quorum {
    provider: corosync_votequorum
}

logging {
    to_logfile: no
    to_stderr: yes
    to_syslog: no
    timestamp: on
}
"""


def corosync_conf(cluster, nodes):
    """corosync.conf (knet, token 1000 ms, votequorum, logs on stderr) for
    the cluster named cluster of nodes [(name, address), ...], node ids
    from 1 in that order."""
    conf = _COROSYNC_HEAD % {"cluster": cluster}
    for i, (name, addr) in enumerate(nodes):
        conf += _COROSYNC_NODE % {"addr": addr, "name": name, "id": i + 1}
    return conf + _COROSYNC_TAIL


_CIB_XML = """<cib admin_epoch="0" epoch="1" num_updates="0" validate-with="pacemaker-3.9">
  <configuration>
    <crm_config>
      <cluster_property_set id="cib-bootstrap-options">
        <nvpair id="cib-bootstrap-options-stonith-enabled" name="stonith-enabled" value="%(stonith)s"/>
        <nvpair id="cib-bootstrap-options-dc-deadtime" name="dc-deadtime" value="2s"/>
        <nvpair id="cib-bootstrap-options-cluster-recheck-interval" name="cluster-recheck-interval" value="1min"/>
%(extra)s      </cluster_property_set>
    </crm_config>
    <nodes/>
    <resources/>
    <constraints/>
  </configuration>
  <status/>
</cib>
"""


def cib_xml(fencing):
    """A pre-seeded CIB (accepted without its .sig): a DC elected in
    seconds rather than dc-deadtime's default 20 s; fencing off (one node)
    or on with a 30 s stonith-timeout (a cluster)."""
    extra = ('        <nvpair id="cib-bootstrap-options-stonith-timeout" '
             'name="stonith-timeout" value="30s"/>\n') if fencing else ""
    return _CIB_XML % {"stonith": "true" if fencing else "false", "extra": extra}


class Node:
    """One Pacemaker node in a lab host."""

    def __init__(self, lab, host, name, extra_mounts=()):
        self.lab = lab
        self.host = host
        self.name = name
        self.extra_mounts = list(extra_mounts)
        self.dir = lab.path("pcmk", name)
        self.holder = None
        self.corosync = None
        self.pacemakerd = None
        self.uid = pwd.getpwnam("hacluster").pw_uid
        self.gid = grp.getgrnam("haclient").gr_gid

    # -- files ---------------------------------------------------------------
    def _mkdir(self, rel, mode=0o755, owner=None):
        p = os.path.join(self.dir, rel)
        os.makedirs(p, exist_ok=True)
        os.chmod(p, mode)
        if owner:
            os.chown(p, *owner)
        return p

    def _write_node_files(self, conf, authkey, cib_text, hosts_text, extra_dirs=()):
        """The node's directories (extra_dirs: more (path, mode)) and files:
        corosync.conf, its key (a copy of the file authkey, or a new one
        when None), the pre-seeded CIB and /etc/hosts."""
        hc = (self.uid, self.gid)
        etc = self._mkdir("etc-corosync")
        self._mkdir("var-lib-corosync")
        self._mkdir("var-lib-pacemaker")
        for sub in ("cib", "pengine", "blackbox", "cores"):
            self._mkdir(os.path.join("var-lib-pacemaker", sub), 0o750, hc)
        self._mkdir("var-log")
        self._mkdir("var-log/pacemaker", 0o770, hc)
        self._mkdir("var-log/cpha", 0o750)
        for rel, mode in extra_dirs:
            self._mkdir(rel, mode)
        with open(os.path.join(etc, "corosync.conf"), "w") as f:
            f.write(conf)
        if authkey:
            with open(authkey, "rb") as src, \
                    open(os.path.join(etc, "authkey"), "wb") as dst:
                dst.write(src.read())
        else:
            r = subprocess.run(["corosync-keygen", "-k", os.path.join(etc, "authkey")],
                               capture_output=True, text=True, timeout=30)
            if r.returncode != 0:
                raise RuntimeError("corosync-keygen: %s" % r.stderr)
        os.chmod(os.path.join(etc, "authkey"), 0o400)
        cib = os.path.join(self.dir, "var-lib-pacemaker", "cib", "cib.xml")
        with open(cib, "w") as f:
            f.write(cib_text)
        os.chown(cib, *hc)
        os.chmod(cib, 0o600)
        with open(os.path.join(self.dir, "hosts"), "w") as f:
            f.write(hosts_text)

    def _prepare(self):
        self._write_node_files(
            corosync_conf("cpha-" + self.name, [(self.name, self.host.v4)]), None,
            cib_xml(fencing=False), "127.0.0.1 localhost\n%s %s\n" % (self.host.v4, self.name))

    def _holder_script(self):
        d = self.dir
        return netns.holder_script(self.name, [
            "mount --bind %s /etc/corosync" % shlex.quote(os.path.join(d, "etc-corosync")),
            "mount --bind %s /var/lib/corosync" % shlex.quote(os.path.join(d, "var-lib-corosync")),
            "mount --bind %s /var/lib/pacemaker" % shlex.quote(
                os.path.join(d, "var-lib-pacemaker")),
            "mount --bind %s /var/log" % shlex.quote(os.path.join(d, "var-log")),
            "mount --bind %s /etc/hosts" % shlex.quote(os.path.join(d, "hosts")),
        ] + self.extra_mounts)

    # -- processes -----------------------------------------------------------
    def argv(self, argv, env=None):
        """argv run inside the node (network, mount and UTS namespaces)."""
        return netns.nsenter_argv(self.holder.pid, argv, env)

    def run(self, argv, timeout=60, check=True, env=None):
        return self.host.run(self.argv(argv, env), timeout=timeout, check=check)

    def spawn(self, argv, name, env=None):
        return self.host.spawn(self.argv(argv, env), name=name)

    def path(self, inside):
        """A path of the node's mount namespace, seen from the root one."""
        return "/proc/%d/root%s" % (self.holder.pid, inside)

    def start_holder(self):
        """A fresh holder (empty /run and /dev/shm), once it is ready."""
        self.holder = self.host.spawn(
            ["unshare", "--mount", "--uts", "--propagation", "private", "sh", "-c",
             self._holder_script()], name="holder-" + self.name)
        util.wait_until(lambda: self._alive(self.holder) and
                        "holder ready" in self.holder.log_text(),
                        15, 0.05, "the holder of %s" % self.name)

    def start_pacemakerd(self):
        # TMPDIR reaches the agents (and the daemons they start): their
        # temporary files die with the lab
        self.pacemakerd = self.spawn(["pacemakerd"], "pacemakerd",
                                     env={"PCMK_logfacility": "none", "PCMK_stderr": "no",
                                          "TMPDIR": self.lab.tmp_dir})

    def start(self, timeout=60):
        self._prepare()
        self.start_holder()
        self.corosync = self.spawn(["corosync", "-f"], "corosync")
        util.wait_until(self._quorate, timeout, 0.2, "corosync on %s to be quorate" % self.name)
        self.start_pacemakerd()
        util.wait_until(self._has_dc, timeout, 0.5, "a DC on %s" % self.name)

    @staticmethod
    def _alive(proc):
        if not proc.running():
            raise AssertionError("%r exited (%s):\n%s" % (proc, proc.poll(), proc.log_text()))
        return True

    def _quorate(self):
        self._alive(self.corosync)
        r = self.run(["corosync-quorumtool", "-s"], check=False, timeout=10)
        return "Quorate:          Yes" in r.stdout or "Quorate: Yes" in " ".join(r.stdout.split())

    def _has_dc(self):
        self._alive(self.pacemakerd)
        x = self.status_xml()
        dc = x.find("./summary/current_dc") if x is not None else None
        return dc is not None and dc.get("present") == "true"

    def status_xml(self):
        """crm_mon -1 --output-as=xml as an ElementTree, or None."""
        r = self.run(["crm_mon", "-1", "--output-as=xml"], check=False, timeout=20)
        if r.returncode != 0:
            return None
        try:
            return ET.fromstring(r.stdout)
        except ET.ParseError:
            return None

    def resources(self):
        """{resource id: attributes of its <resource> element} (primitives,
        clone instances included: the id without the clone suffix)."""
        x = self.status_xml()
        out = {}
        if x is None:
            return out
        for r in x.iter("resource"):
            out[r.get("id")] = dict(r.attrib)
        return out

    def failures(self):
        """crm_mon's failed actions: [attributes]."""
        x = self.status_xml()
        if x is None:
            return []
        return [dict(f.attrib) for f in x.iter("failure")]

    def log_tail(self, lines=60):
        return util.tail(os.path.join(self.dir, "var-log", "pacemaker", "pacemaker.log"),
                         lines)

    def stop(self, timeout=90):
        """pacemakerd stops every resource and its daemons, then corosync
        stops. Returns pacemakerd's exit status (None if it had to be killed)."""
        rc = None
        if self.pacemakerd and self.pacemakerd.running():
            self.pacemakerd.kill(signal.SIGTERM)
            try:
                rc = self.pacemakerd.wait(timeout)
            except subprocess.TimeoutExpired:
                rc = self.pacemakerd.terminate_and_wait(5)
                rc = None
        if self.corosync and self.corosync.running():
            self.corosync.terminate_and_wait(15)
        return rc
