"""Switch the LB hosts between the cpha stack and HAProxy + keepalived."""

import os
import shutil

from . import build, observe
from . import lab as labmod


def stage_files(lab, desc, out):
    """The admin workstation's description and render (the lab's stage
    directory: docs/runbook.md's cluster.yaml and out/) become the
    stack's, so that a runbook followed on this stack installs its files."""
    stage = lab.path("stage")
    if not os.path.isdir(stage):
        return
    shutil.copyfile(desc, os.path.join(stage, "cluster.yaml"))
    staged = os.path.join(stage, "out")
    if os.path.isdir(staged):
        shutil.rmtree(staged)
    shutil.copytree(out, staged, symlinks=True)


def switch(lab, stack, progress):
    progs = build.Programs()
    desc, out = build.make_files(lab, progs, stack)
    stage_files(lab, desc, out)
    # Prometheus: no LB job while the stacks change, then the new one's
    build.prometheus_config(lab, out, stack, lb=False)
    # between two_node and a quorum device corosync cannot reload: both
    # hosts' corosync stop before either starts with the new votes
    recluster = labmod.TWO_NODE in (stack, lab.info.get("stack"))
    for h in lab.by_role("lb"):
        build.stop_lb_daemons(h)
        if recluster or not labmod.is_cpha(stack):
            build.stop_lb_cluster(h)
    for h in lab.by_role("lb"):
        build.install_host(lab, h, desc, out, stack)
        if labmod.is_cpha(stack) and not h.service_pid("corosync"):
            build.start_lb_cluster(h)
        build.start_lb_daemons(h)
        build.start_haproxy_exporter(h)
    lab.info["stack"] = stack
    lab.save()
    try:
        observe.wait_settled(lab, 120, progress)
        for h in lab.by_role("lb"):
            build.wait_haproxy_exporter(h)
    finally:
        build.prometheus_config(lab, out, stack)
