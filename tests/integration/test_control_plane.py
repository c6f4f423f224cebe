#!/usr/bin/env python3
"""A three-master control plane in the lab, and controller-manager failover.

m0..m2 (198.18.0.11-13) each run a real etcd member (one 3-member cluster,
TLS for peers and clients) and a kube-apiserver stand-in listing all three
etcd members. kube-controller-manager stand-ins on m0 and m1 (kubeconfig to
their own host's apiserver, client-certificate auth) elect a leader through
the kube-system/kube-controller-manager Lease. The holder is killed with
SIGKILL; the other must take over within lease duration + retry period.
Then the new leader's host is cut off the bridge: it must give up (exit 1)
within the renew deadline.
Exit 0 pass, 77 skip (not root), 1 fail.
    sudo python3 tests/integration/test_control_plane.py
"""

import signal
import sys
import time

sys.dont_write_bytecode = True

import cphatest  # noqa: E402
from cphatest import etcd, kube, step  # noqa: E402

LEASE_S, RENEW_S, RETRY_S = 4, 3, 1
# The new leader writes acquireTime when it builds its update, right after the
# GET that showed the old lease expired; allow that much request latency on
# top of the lease duration + retry period bound.
LATENCY_SLACK_S = 0.3
NS, NAME = "kube-system", "kube-controller-manager"


def check(cond, msg):
    if not cond:
        raise AssertionError(msg)


def lease_of(host, ca, admin):
    return kube.get_lease(host, "https://%s:6443" % host.v4, NS, NAME, ca, *admin)


def run(lab):
    hosts = [lab.add_host("m%d" % i, v4="198.18.0.%d/24" % (11 + i),
                          v6="2001:db8::%d/64" % (11 + i)) for i in range(3)]
    pki = cphatest.Pki(lab.path("pki", "ca"))
    ca = pki.ca_cert
    members, etls = etcd.make_cluster(lab, pki, hosts)

    step("start etcd on m0..m2 (TLS peers and clients)")
    for m in members:
        m.start()
    etcd.wait_healthy(members, etls, timeout=40)
    names = etcd.member_names(hosts[2], members[2].client_url, etls)
    check(names == ["m0", "m1", "m2"], "one 3-member cluster, got %s" % names)

    step("start kube-apiserver stand-ins (all three etcd servers each)")
    urls = [m.client_url for m in members]
    aps = []
    for h in hosts:
        cert, key = kube.apiserver_cert(pki, h)
        aps.append(kube.start_apiserver(h, urls, cert, key, ca, etls))
    for h, ap in zip(hosts, aps):
        kube.wait_ready(h, "https://%s:6443" % h.v4, ca, ap, timeout=20)

    admin = pki.issue("admin", "kubernetes-admin", client=True, org="system:masters")
    kcm_cert, kcm_key = pki.issue("kcm", "system:kube-controller-manager", client=True)
    sa_key = pki.new_key("sa")
    kcms = []
    step("start kube-controller-manager stand-ins on m0 and m1 (lease %ds, "
         "renew %ds, retry %ds)" % (LEASE_S, RENEW_S, RETRY_S))
    for i, h in enumerate(hosts[:2]):
        # m0 uses file paths, m1 embedded *-data: both kubeconfig forms.
        kc = kube.write_kubeconfig(lab.path("kcm-%s.kubeconfig" % h.name),
                                   "https://%s:6443" % h.v4,
                                   "system:kube-controller-manager", ca, kcm_cert,
                                   kcm_key, embed=(i == 1))
        kcms.append(h.spawn(kube.controller_manager_argv(
            kc, ca, sa_key, LEASE_S, RENEW_S, RETRY_S), name="kube-controller-manager"))

    cphatest.wait_until(lambda: any(kube.logged_acquire(k, NS, NAME) for k in kcms),
                        10, 0.1, "a controller-manager to acquire the lease")
    time.sleep(2 * RETRY_S + 0.5)  # room for a wrong second acquisition to show
    ids = [kube.logged_identity(k) for k in kcms]
    check(all(ids) and ids[0] != ids[1], "two distinct identities logged: %s" % ids)
    holders = [i for i, k in enumerate(kcms) if kube.logged_acquire(k, NS, NAME)]
    check(len(holders) == 1, "exactly one acquired, got %s" % holders)
    hi, si = holders[0], 1 - holders[0]
    lease = lease_of(hosts[2], ca, admin)  # read through the third apiserver
    spec = lease["spec"]
    check(spec["holderIdentity"] == ids[hi],
          "lease holder %s is the one that logged acquiring (%s)"
          % (spec["holderIdentity"], ids[hi]))
    check(spec["leaseDurationSeconds"] == LEASE_S, "leaseDurationSeconds %s" % spec)
    check(spec["leaseTransitions"] == 0, "fresh lease has 0 transitions: %s" % spec)
    check(("new leader elected: %s" % ids[hi]) in kcms[si].log_text(),
          "the standby saw the leader")
    for i, h in enumerate(hosts[:2]):
        r = h.curl("https://%s:10257/healthz" % h.v4, insecure=True)
        check((r.status, r.body) == (200, "ok"), "kcm on %s /healthz: %r" % (h.name, r))
    step("leader is kcm on %s (%s), standby on %s" % (hosts[hi].name, ids[hi],
                                                      hosts[si].name))

    step("kill -9 the leader")
    kcms[hi].kill(signal.SIGKILL)
    kcms[hi].wait(timeout=5)
    t_kill = time.time()
    old = lease_of(hosts[2], ca, admin)["spec"]
    check(old["holderIdentity"] == ids[hi], "right after the kill the dead leader "
          "still holds the lease: %s" % old)
    old_renew = kube.parse_microtime(old["renewTime"])

    def survivor_holds():
        return lease_of(hosts[2], ca, admin)["spec"]["holderIdentity"] == ids[si]
    cphatest.wait_until(survivor_holds, LEASE_S + RETRY_S + 5, 0.1,
                        "the standby to take the lease over")
    new = lease_of(hosts[2], ca, admin)["spec"]
    acquired = kube.parse_microtime(new["acquireTime"])
    takeover = acquired - t_kill
    bound = LEASE_S + RETRY_S + LATENCY_SLACK_S
    step("takeover: new acquireTime - kill time = %.3fs (bound %.1fs); "
         "old renewTime + lease duration was %.3fs after the kill"
         % (takeover, bound, old_renew + LEASE_S - t_kill))
    check(takeover <= bound, "takeover %.3fs > %.1fs" % (takeover, bound))
    # Sharper than the bound above: the standby polls every retry period,
    # so it acquires within one retry period (+ latency) of the expiry.
    late = acquired - (old_renew + LEASE_S)
    check(late <= RETRY_S + LATENCY_SLACK_S,
          "acquired %.3fs after the old lease expired (> retry period %ds + %.1fs)"
          % (late, RETRY_S, LATENCY_SLACK_S))
    check(acquired >= old_renew + LEASE_S,
          "taken over before the old lease expired (%.3f < %.3f)"
          % (acquired, old_renew + LEASE_S))
    check(new["leaseTransitions"] == spec["leaseTransitions"] + 1,
          "leaseTransitions %s -> %s" % (spec["leaseTransitions"], new["leaseTransitions"]))
    check(kube.logged_acquire(kcms[si], NS, NAME), "the survivor logged acquiring")
    check(kcms[si].running() and all(a.running() for a in aps), "nothing else died")
    time.sleep(RETRY_S + 0.3)
    later = lease_of(hosts[0], ca, admin)["spec"]
    check(later["holderIdentity"] == ids[si] and
          kube.parse_microtime(later["renewTime"]) > acquired, "the new leader renews")

    step("cut %s off the bridge: its leader cannot renew and exits 1" % hosts[si].name)
    t_cut = time.monotonic()
    lab.link_down(hosts[si])
    try:
        rc = kcms[si].wait(timeout=RENEW_S + RETRY_S + 6)
    except Exception:
        rc = None
    lost_after = time.monotonic() - t_cut
    step("exit %s %.2fs after the cut" % (rc, lost_after))
    check(rc == 1, "controller-manager exit status after losing the lease: %s" % rc)
    check("leaderelection lost" in kcms[si].log_text(), "logged 'leaderelection lost'")
    # Last renewal at most one retry period before the cut; the renew deadline
    # runs from the first failed attempt.
    check(lost_after <= RENEW_S + RETRY_S + 1.0, "lost after %.2fs" % lost_after)


def main():
    cphatest.require_root()
    return cphatest.main("control-plane", run)


if __name__ == "__main__":
    sys.exit(main())
