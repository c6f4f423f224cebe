"""cphatest: the integration test bed for cpha (Python standard library only).

    import cphatest
    cphatest.require_root()
    with cphatest.Lab("vip") as lab:
        m0 = lab.add_host("m0", v4="198.18.0.11/24", v6="2001:db8::11/64")
        p = m0.spawn(["etcd", ...], name="etcd")

Modules: hosts (Lab, Host, Proc), testmain (main: a test's run in one
Lab, PASS or FAIL), pki (Pki), etcd (real etcd members),
kube (the kube-* stand-ins: the lab's simulators), curl (HTTP from a host),
util (wait_until, wait_log, step, repo_root, build_dir, fixture_path,
require_root, check, the admin-socket client unix_request), pacemaker and
pcmk3 (corosync + Pacemaker), pcmk_cp (the three-node cluster that runs
the control plane), fencedlab (corosync + fenced with BMCs), fenced_vip
(two LB hosts with fenced and vipd), realconf (public configurations run
for real), vipd (re-exports vipd_setup, vipd_conf,
vipd_daemons, vipd_net, ipmonitor, vrrp_pcap, vrrp_advert, vipd_bed).
"""

from .hosts import Host, Lab, Proc, interrupted_status, sweep_leftovers
from .pki import Pki
from .testmain import main
from .util import (SKIP, fixture_path, repo_root, require_root,
                   root_skip_reason, step, wait_until)

__all__ = ["Host", "Lab", "Proc", "Pki", "SKIP", "fixture_path",
           "interrupted_status", "main", "repo_root",
           "require_root", "root_skip_reason", "step", "sweep_leftovers",
           "wait_until"]
