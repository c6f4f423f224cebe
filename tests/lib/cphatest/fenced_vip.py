"""Two LB hosts lb1 and lb2 (198.18.0.21-22) with corosync (two_node),
fenced and vipd (track_fenced), each with a BMC on the host bmc: the bed of
the fenced + vipd tests.

    cl = fenced_vip.cluster(lab, [vipd_conf_lb1, vipd_conf_lb2])
    cl.start(); [fenced_vip.start_vipd(n) for n in cl.nodes]
    fenced_vip.holds(node)        # the VIP is on node's eth0
"""

import os
import subprocess

from . import fencedlab
from .util import check, require_root, skip

NAMES = ("lb1", "lb2")
IPS = ("198.18.0.21", "198.18.0.22")
BMC_IP = "198.18.0.40"
VIP = "198.18.0.100"
PRIO_DELAY = 8
LB2_DELAY = 4  # lb1 fences lb2 after lb2's vipd stopped hearing lb1 (3.6 s)
VIPD = os.path.join(fencedlab.BUILD, "vipd", "vipd")


def fenced_conf(cl):
    """Fencing off through the BMCs; whoever holds the VIP is fenced last
    (priority_delay_vip), lb2 first when they race (delay)."""
    return cl.bmc_conf("off", "8s", lambda n: "    priority_delay_vip %ds\n%s" % (
        PRIO_DELAY, "    delay %ds\n" % LB2_DELAY if n.name == "lb2" else ""))


def vipd_conf(prio, extra=(), vip=VIP):
    """vipd.conf of an LB host of the bed: VI_1 (VRRPv3, advert_int 1) with
    the VIP (vip) and track_fenced, and extra lines in the instance."""
    return """global_defs {
    router_id cpha
}
vrrp_instance VI_1 {
    state BACKUP
    interface eth0
    virtual_router_id 51
    priority %d
    advert_int 1
    virtual_ipaddress {
        %s/24
    }
%s    track_fenced
}
""" % (prio, vip, "".join("    %s\n" % x for x in extra))


def holds(node):
    r = subprocess.run(["ip", "-n", node.host.ns, "-o", "-4", "addr", "show", "dev", "eth0"],
                       capture_output=True, text=True, timeout=10)
    return (" %s/" % VIP) in r.stdout


def start_vipd(node):
    node.vipd = node.spawn([VIPD, "-f", node.vipd_conf], "vipd")


def vip_holder_known(node, holder):
    s = node.show()
    return s and any(n["name"] == holder and n["vip"] for n in s["nodes"])


def power_loss(cl, lab, node):
    """Power gone: every process, the addresses with them, the link."""
    cl.power_off(node, log=False)  # a crash, not a fencing
    subprocess.run(["ip", "-n", node.host.ns, "addr", "flush", "dev", "eth0", "to", VIP + "/32"],
                   capture_output=True, timeout=10)
    lab.link_down(node.host)


def require(tools=()):
    """Exit 77 (skip, saying why) unless root, the tools, fenced and vipd."""
    require_root(tools=("corosync", "ipmi_sim", "fence_ipmilan", "ipmitool", "nft")
                 + tuple(tools))
    for b in (fencedlab.FENCED, VIPD):
        if not os.access(b, os.X_OK):
            raise SystemExit(skip("%s not built (set CPHA_BUILD_DIR)" % b))


def cluster(lab, vipd_confs):
    """lb1, lb2 and bmc in lab; their fenced cluster (not started), every
    node's fenced.conf (fenced_conf) and vipd.conf (vipd_confs, in node
    order, each checked with vipd -c) written."""
    cl = fencedlab.build(lab, NAMES, IPS, BMC_IP, two_node=True)
    cl.write_fenced_conf(fenced_conf(cl))
    for n, text in zip(cl.nodes, vipd_confs):
        n.vipd_conf = os.path.join(n.dir, "vipd.conf")
        with open(n.vipd_conf, "w") as f:
            f.write(text)
        r = subprocess.run([VIPD, "-c", "-f", n.vipd_conf], capture_output=True,
                           text=True, timeout=30)
        check(r.returncode == 0, "vipd -c: %s" % r.stderr)
    return cl
