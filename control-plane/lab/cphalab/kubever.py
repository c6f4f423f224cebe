"""The Kubernetes version the lab's masters run, and a new one to go to.

The kube-* programs of the lab are the stand-ins (lab/simulators), which
play the version in KUBE_FIXTURE_VERSION from cpha's own table
(control-plane/k8s_versions.def). A "release" of the lab is a directory of
three small programs, kube-apiserver, kube-controller-manager and
kube-scheduler, each running its stand-in as that version: a different
file per version, installed into a master's /usr/bin as the real
release's binaries would be (docs/runbook.md, "Upgrading Kubernetes by
one minor version"). The lab's own /usr/bin (its overlays' lower
directory) holds the stand-ins themselves, which play the table's
default, or the release of the version the description names.
"""

import importlib.util
import os
import shlex

from .hosts import LabError

PROGRAMS = ("kube-apiserver", "kube-controller-manager", "kube-scheduler")

LAUNCHER = '''#!/usr/bin/python3
"""%(prog)s of Kubernetes %(version)s in the cpha lab: the stand-in
%(sim)s playing that version."""
import os
import runpy

os.environ["KUBE_FIXTURE_VERSION"] = %(version_q)s
runpy.run_path(%(sim_q)s, run_name="__main__")
'''


def _fixture(simulators):
    path = os.path.join(simulators, "kubefixture.py")
    spec = importlib.util.spec_from_file_location("cphalab_kubefixture", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


class Table:
    """The version table the stand-ins play (kubefixture.read_table)."""

    def __init__(self, simulators):
        if not simulators:
            raise LabError("the lab's Kubernetes versions come from its stand-ins: no lab "
                           "simulator found (CPHA_LAB_SIMULATORS)")
        self.simulators = simulators
        self.kf = _fixture(simulators)
        self.t = self.kf.read_table()

    @property
    def minors(self):
        return sorted(self.t["minors"])

    def version(self, text=None):
        """"v1.M.P" of text ("1.36", "v1.36.4"; None: the table's default)."""
        minor, patch = self.kf.parse_version(text or "1.%d" % self.t["default"], self.t)
        return "v1.%d.%d" % (minor, patch)

    def of_minor(self, minor):
        return self.version("1.%d" % minor)


def minor_of(version):
    """36 of "v1.36.4"."""
    return int(version.lstrip("v").split(".")[1])


def plan_upgrade(minors, current):
    """(prepare, target) minors for an upgrade by one minor from current,
    among the table's minors: prepare is None when current has a next
    minor, else the minor below current, which the lab first goes back to
    (the newest minor has nowhere to go). Pure."""
    if current + 1 in minors:
        return None, current + 1
    if current - 1 in minors:
        return current - 1, current
    raise LabError("Kubernetes 1.%d: the table has no minor next to it (it has %s)" % (
        current, ", ".join("1.%d" % m for m in minors)))


def description_version(info):
    """kubernetes.version of the lab's description as written, or None."""
    src = info.get("source") or {}
    v = (src.get("kubernetes") or {}).get("version")
    return str(v) if v is not None else None


def current(lab, table):
    """"v1.M.P" the lab's masters run: that of the last upgrade's
    kubernetes.version (lab.info["k8s_version"], "1.37"), else the
    description's, else the table's default."""
    return table.version(lab.info.get("k8s_version") or description_version(lab.info))


def release_dir(lab, table, version):
    """The lab's release of version: its directory of the three programs,
    made once."""
    d = lab.path("kubernetes-" + version)
    os.makedirs(d, exist_ok=True)
    for prog in PROGRAMS:
        p = os.path.join(d, prog)
        if os.path.exists(p):
            continue
        sim = os.path.join(table.simulators, prog)
        with open(p + ".tmp", "w") as f:
            f.write(LAUNCHER % {"prog": prog, "version": version, "sim": sim,
                                "version_q": repr(version), "sim_q": repr(sim)})
        os.chmod(p + ".tmp", 0o755)
        os.rename(p + ".tmp", p)
    return d


def lower_version(lab, table):
    """The version the lab's /usr/bin plays on every host (prepare_dirs)."""
    return lab.info.get("k8s_lower") or table.version()


def install_release(host, d):
    """The three programs of release directory d into host's /usr/bin, as
    a rebuilt master gets the binaries of the cluster's version."""
    host.run(["sh", "-c", "install -m 0755 %s /usr/bin/" % " ".join(
        shlex.quote(os.path.join(d, p)) for p in PROGRAMS)], timeout=30)
