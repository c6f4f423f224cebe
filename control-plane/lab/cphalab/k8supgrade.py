"""The k8s-minor-upgrade scenario: Kubernetes one minor version up, the
runbook's way, under the prober's load.

kubernetes.version goes up one minor in the description (the operator's
edit), then docs/runbook.md's "Upgrading Kubernetes by one minor version"
runs as written: plan and render, the LB hosts' files, each master in
turn drained around its apiserver's restart with the new release's
kube-apiserver, then the controllers. The release is the lab's
(kubever.release_dir): the stand-ins playing the new version.
"""

import json
import re
import time

from . import build, kubever, observe
from .hosts import LabError

CONTROLLERS = ("kube-controller-manager", "kube-scheduler")
LOGS = {p: "/var/log/cpha/%s.log" % p for p in CONTROLLERS}
VERSION_LINE = re.compile(r"Version: (v\d+\.\d+\.\d+)")


def set_version(lab, stack, minor):
    """The operator's edit: kubernetes.version 1.<minor> in the admin
    host's description (the lab's stage directory) and in the lab's copy
    of it, which a stack switch or a rebuilt master renders from."""
    lab.info["k8s_version"] = "1.%d" % minor
    lab.save()
    lab.write_description(stack)


def roll(lab, stack, mark, table, minor):
    """kubernetes.version 1.<minor>, and the runbook's blocks to get
    there. Returns the release's version ("v1.M.P")."""
    version = table.of_minor(minor)
    d = kubever.release_dir(lab, table, version)
    set_version(lab, stack, minor)
    mark("kubernetes.version 1.%d in the description; following docs/runbook.md, "
         "\"Upgrading Kubernetes by one minor version\" (new binaries: %s)" % (minor, d))
    build.follow_runbook(lab, stack, "k8s-minor-upgrade", mark, {"KUBE_NEW": d})
    return version


def prepare(lab, stack, progress):
    """Before a run, not measured: a lab already on the table's newest
    minor first goes back one, the same way, so that every run goes up."""
    table = kubever.Table(build.Programs().simulators)
    cur = kubever.minor_of(kubever.current(lab, table))
    back, _ = kubever.plan_upgrade(table.minors, cur)
    if back is None:
        return
    progress("  preparing (not measured): Kubernetes 1.%d is the newest the lab has; back "
             "to 1.%d first" % (cur, back))
    roll(lab, stack, lambda what: progress("    " + what), table, back)


def apiserver_versions(lab):
    """{master: gitVersion of its apiserver's /version, or None}, read from
    the client host."""
    client = lab.host("client")
    out = {}
    for m in lab.by_role("master"):
        r = client.run(["curl", "-sS", "--max-time", "5", "--cacert",
                        "/etc/kubernetes/pki/ca.pem", "https://%s:6443/version" % m.v4],
                       check=False, timeout=30)
        try:
            out[m.name] = json.loads(r.stdout).get("gitVersion")
        except ValueError:
            out[m.name] = None
    return out


def controller_versions(lab):
    """{program: the version the running controller-manager and scheduler
    said at their start (the last "Version:" line of the log on the master
    running each), or None}."""
    out = {}
    for prog in CONTROLLERS:
        out[prog] = None
        for host, _ in observe.acting(lab, prog):
            try:
                with open(lab.host(host).path(LOGS[prog]), errors="replace") as f:
                    found = VERSION_LINE.findall(f.read())
            except OSError:
                found = []
            out[prog] = found[-1] if found else None
    return out


def k8s_minor_upgrade(ctx):
    """Kubernetes one minor up (prepare() made sure there is one), the
    runbook's way: every apiserver, one master at a time and drained, then
    the controllers. Checks that each runs the new version afterwards."""
    lab = ctx.lab
    table = kubever.Table(build.Programs().simulators)
    old = kubever.current(lab, table)
    back, target = kubever.plan_upgrade(table.minors, kubever.minor_of(old))
    if back is not None:
        raise LabError("Kubernetes %s has no next minor in the table" % old)
    masters = lab.by_role("master")
    before = apiserver_versions(lab)
    ctx.notes.append("apiservers before: %s" % ", ".join(
        "%s %s" % (m, v) for m, v in sorted(before.items())))
    t0 = time.time()
    new = roll(lab, ctx.stack, ctx.mark, table, target)
    ctx.mark("runbook done in %.0f s" % (time.time() - t0))
    api = apiserver_versions(lab)
    ctl = controller_versions(lab)
    api_new = sorted(m for m, v in api.items() if v == new)
    ctl_new = sorted(p for p, v in ctl.items() if v == new)
    ctx.check.update(masters=len(masters), apiservers_upgraded=len(api_new),
                     controllers=len(CONTROLLERS), controllers_upgraded=len(ctl_new))
    ctx.notes.append("Kubernetes %s to %s: apiservers on it: %s of %d; %s" % (
        old, new, ", ".join(api_new) or "none", len(masters),
        ", ".join("%s %s" % (p, v) for p, v in sorted(ctl.items()))))
    return t0
