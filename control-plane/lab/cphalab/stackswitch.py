"""Switch the LB hosts between the cpha stack and HAProxy + keepalived."""

from . import build, observe
from . import lab as labmod


def switch(lab, stack, progress):
    progs = build.Programs()
    desc, out = build.make_files(lab, progs, stack)
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
