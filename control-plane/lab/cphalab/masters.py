"""The master-add and master-remove scenarios: 3 masters to 5 and back,
the runbook's way, under the prober's load.

The lab has two spare hosts, m4 and m5, powered off at `cpha lab up`.
master-add powers them on as blank machines with the site's secrets
(docs/deploy.md's steps before the guide's blocks), makes them masters of
the description (the operator's edit) and runs docs/runbook.md's "Adding
two masters" as written. master-remove drops them from the description
and runs "Removing two masters"; they are then powered off and their disks
wiped, spares again. Each scenario first brings the lab to where it
starts (three masters, or five), not measured (PREPARE).
"""

import os
import subprocess
import threading
import time

from . import build, observe
from . import lab as labmod
from .hosts import LabError

PAIR = 2  # masters go in pairs: etcd stays odd once settled


def set_masters(lab, stack, added):
    """The operator's edit: the description's masters are the lab's own
    and added (spare hosts' names), in the admin host's copy (the stage),
    the lab's copy (a stack switch or a rebuilt master renders from it)
    and the client host's (`cpha status` there)."""
    lab.info["added_masters"] = list(added)
    lab.save()
    lab.host("client").write("/etc/cpha/cluster.yaml", lab.write_description(stack))


def sans_of(hosts):
    """What `cpha pki remove-san` takes out for hosts: names, addresses."""
    return " ".join("%s %s %s" % (h.name, h.v4, h.v6) for h in hosts)


def add(lab, stack, mark):
    """Two spare hosts become masters. Returns their names."""
    spares = lab.by_role(labmod.SPARE)[:PAIR]
    if len(spares) < PAIR:
        raise LabError("master-add: the lab has no %d spare hosts (the embedded "
                       "description's m4 and m5; a lab made with -f has none)" % PAIR)
    names = [h.name for h in spares]
    for h in spares:
        build.lose_disk(h)  # a machine that never ran anything of the cluster's
        h.power_on()
        h.role = "master"
    lab.save()
    for h in spares:
        build.prepare_host(lab, h)
        build.site_secrets(lab, h)
    set_masters(lab, stack, names)
    mark("%s powered on, blank but for the site's secrets; masters in the description; "
         "following docs/runbook.md, \"Adding two masters\"" % " and ".join(names))
    build.follow_runbook(lab, stack, "master-add", mark, {"ADDED": " ".join(names)})
    return names


def remove(lab, stack, mark):
    """The masters master-add added become spares again. Returns their
    names."""
    gone = [lab.host(n) for n in lab.info.get("added_masters") or []]
    if not gone:
        raise LabError("master-remove: the lab has no added masters (master-add first)")
    names = [h.name for h in gone]
    for h in gone:
        h.role = labmod.SPARE
    lab.save()
    set_masters(lab, stack, [])
    mark("%s out of the description; following docs/runbook.md, \"Removing two masters\""
         % " and ".join(names))
    build.follow_runbook(lab, stack, "master-remove", mark,
                         {"REMOVED": " ".join(names), "REMOVED_SANS": sans_of(gone)})
    for h in gone:
        build.lose_disk(h)  # retired: powered off, its disk wiped
    mark("%s powered off, disks wiped" % " and ".join(names))
    return names


def cluster_facts(lab):
    """What the change must have left: etcd's voting members and
    learners, Pacemaker's online nodes, and each LB host's apiserver
    servers that are UP."""
    voting, learners = observe.etcd_voting(lab)
    return {"etcd_voting": voting, "etcd_learners": learners,
            "pacemaker_online": sorted(observe.nodes_online(observe.crm(lab))),
            "lb_up": {h.name: sorted(s for s, st in (observe.lb_servers(h) or {}).items()
                                     if st.startswith("UP"))
                      for h in lab.by_role("lb")}}


def judge_change(ctx, want):
    """The checks of a run that ends with want (the masters' names)."""
    f = cluster_facts(ctx.lab)
    ctx.check.update(masters=len(want), etcd_voting=len(f["etcd_voting"]),
                     etcd_learners=len(f["etcd_learners"]))
    ctx.invariants["etcd_members_are_the_masters"] = sorted(f["etcd_voting"]) == sorted(want) \
        and not f["etcd_learners"]
    ctx.invariants["pacemaker_nodes_are_the_masters"] = f["pacemaker_online"] == sorted(want)
    ctx.invariants["lbs_serve_every_master"] = all(v == sorted(want)
                                                   for v in f["lb_up"].values())
    ctx.notes.append("etcd voting members: %s; learners: %s; Pacemaker online: %s; "
                     "apiservers UP on %s" % (
                         " ".join(sorted(f["etcd_voting"])) or "none",
                         " ".join(f["etcd_learners"]) or "none",
                         " ".join(f["pacemaker_online"]) or "none",
                         "; ".join("%s: %s" % (k, " ".join(v)) for k, v in
                                   sorted(f["lb_up"].items()))))
    return f


class Membership(threading.Thread):
    """etcd's member list every 2 s while the runbook runs: each change
    of (voting members, learners), with its time."""

    def __init__(self, lab, t0):
        super().__init__(daemon=True)
        self.lab, self.t0 = lab, t0
        self.seen = []  # [(s from t0, voting, learners)]
        self.done = threading.Event()

    def run(self):
        while not self.done.is_set():
            try:
                voting, learners = observe.etcd_voting(self.lab)
            except Exception:  # a host powered off under the query: next time
                voting, learners = [], []
            if voting and (not self.seen or self.seen[-1][1:] != (len(voting), len(learners))):
                self.seen.append((time.time() - self.t0, len(voting), len(learners)))
            self.done.wait(2)

    def stop(self, ctx):
        """The sequence into ctx: notes, and the most learners at once."""
        self.done.set()
        self.join(30)
        ctx.check["max_learners"] = max([x[2] for x in self.seen] or [0])
        ctx.notes.append("etcd's member list while the runbook ran (voting + learners): %s" % (
            ", ".join("%d + %d at +%.0f s" % (v, l, t) for t, v, l in self.seen) or "none read"))


def master_add(ctx):
    """Two masters added (3 to 5): docs/runbook.md's "Adding two
    masters", its blocks run as written. The new members join as
    learners, one at a time (etcd allows one learner; the agent waits)."""
    t0 = time.time()
    seen = Membership(ctx.lab, t0)
    seen.start()
    try:
        names = add(ctx.lab, ctx.stack, ctx.mark)
    finally:
        seen.stop(ctx)
    ctx.mark("runbook done in %.0f s" % (time.time() - t0))
    judge_change(ctx, [h.name for h in ctx.lab.by_role("master")])
    ctx.invariants["one_learner_at_a_time"] = ctx.check["max_learners"] <= 1
    ctx.notes.append("added %s" % " and ".join(names))
    return t0


def master_remove(ctx):
    """The two added masters removed (5 to 3): docs/runbook.md's
    "Removing two masters", its blocks run as written; then no
    certificate names them."""
    lab = ctx.lab
    gone = [lab.host(n) for n in lab.info.get("added_masters") or []]
    t0 = time.time()
    seen = Membership(lab, t0)
    seen.start()
    try:
        remove(lab, ctx.stack, ctx.mark)
    finally:
        seen.stop(ctx)
    ctx.mark("runbook done in %.0f s" % (time.time() - t0))
    judge_change(ctx, [h.name for h in lab.by_role("master")])
    left = still_named(lab, gone)
    ctx.invariants["certificates_name_no_removed_master"] = not left
    ctx.notes.append("certificates naming a removed master: %s" % (", ".join(left) or "none"))
    return t0


def still_named(lab, gone):
    """The PKI's certificates that still name any of the hosts gone (by
    name or address), as "FILE: NAME"."""
    pki = lab.path("stage", "pki")
    words = set()
    for h in gone:
        words |= {h.name, h.v4, h.v6}
    out = []
    for f in sorted(os.listdir(pki)):
        if not f.endswith(".pem") or f.endswith("-key.pem"):
            continue
        r = subprocess.run(["openssl", "x509", "-noout", "-ext", "subjectAltName", "-in",
                            os.path.join(pki, f)], capture_output=True, text=True, timeout=30)
        sans = {w.split(":", 1)[-1] for w in r.stdout.replace(",", " ").split()}
        out += ["%s: %s" % (f, w) for w in sorted(words & sans)]
    return out


def prepare_add(lab, stack, progress):
    """Before master-add, not measured: a lab with five masters goes back
    to three, the runbook's way."""
    if lab.info.get("added_masters"):
        progress("  preparing (not measured): removing the added masters first")
        remove(lab, stack, lambda m: progress("  " + m))
        observe.wait_settled(lab, 300, progress)


def prepare_remove(lab, stack, progress):
    """Before master-remove, not measured: a lab with three masters gets
    the two spares first, the runbook's way."""
    if not lab.info.get("added_masters"):
        progress("  preparing (not measured): adding two masters first")
        add(lab, stack, lambda m: progress("  " + m))
        observe.wait_settled(lab, 300, progress)
