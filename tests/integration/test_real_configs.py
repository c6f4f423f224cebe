#!/usr/bin/env python3
"""Three public control-plane configurations run for real: lbd with the
haproxy.cfg of tests/lbd-configs/real/ and vipd with the keepalived.conf of
tests/vipd-configs/real/ that belongs with it, in front of three apiserver
stand-ins.

Scenarios (the files are used as they are, but for the rewriting each
rewrite_* function of cphatest.realconf shows, one comment per substitution):

- OpenShift on-prem (machine-config-operator): openshift-mco-onprem.cfg with
  openshift-mco-onprem-unicast.conf on load balancers oa and ob. The
  keepalived file's chk_ocp_lb / chk_ocp_both scripts curl the monitor-uri
  (written here as MCO's chk_ocp_script*.sh do).
- Kubernetes HA guide (kubeadm docs/ha-considerations.md):
  kubeadm-ha-2023.cfg with kubeadm-ha-considerations.conf on ka (the guide's
  MASTER, priority 101) and kb (BACKUP, 100); check_apiserver.sh curls the
  apiserver through the local load balancer, as the guide writes it.
- kubespray: kubespray-loadbalancer.cfg on sa alone. kubespray runs this
  file on every node, bound to 127.0.0.1:6443, without keepalived, so it is
  not paired with a keepalived file (the terraform-vsphere-kubespray files
  track a process named haproxy for a different haproxy.cfg).

What is asserted:
- traffic: TLS connections through each scenario's entry point (the VIP,
  or 127.0.0.1:6443 on the kubespray node) reach at least two masters;
- OpenShift's stats page (HTML) and its ';csv' export answer on the file's
  stats listener (localhost:29445, with the file's 'stats auth'), and the
  CSV lists master-0..2 UP;
- monitor-uri: 200 on OpenShift's and kubespray's listeners. Three times:
  every master's apiserver is stopped (SIGKILL by PID) -> the stats CSV
  shows every server DOWN within inter * (fall + 1) + slack, traffic
  fails, and the monitor keeps answering 200: neither file has a 'monitor
  fail' condition, and HAProxy's monitor-uri then reports the proxy alive,
  not its servers (lbd.cfg(5) says the same; test_real_monitor_fail.py
  adds the condition and sees 503 move the VIP). Started again -> UP within
  inter * rise + slack and traffic reaches two masters again;
- VIP moves by the track scripts, three times each:
  OpenShift: first the VIP holder is cut off from the masters (blackhole
  routes in that host only): its stats CSV shows every master DOWN, yet its
  monitor-uri answers 200 (no 'monitor fail', as above), so chk_ocp_lb keeps
  passing and the VIP stays for 12 s. Then lbd on the holder is stopped (by
  PID), its monitor stops answering, chk_ocp_lb and chk_ocp_both fail
  (fall 3 x interval 2) and the VIP goes to the other load balancer; lbd
  is started again and the scripts recover (rise 3), the priorities are
  equal again (40+20+5) so the VIP stays (no preemption on a tie); the
  next round starts from the new holder.
  kubeadm (side by side with OpenShift's rounds): once check_apiserver.sh
  passes on ka, ka is cut off from the masters (blackhole routes in ka
  only), check_apiserver.sh fails 10 times in a row (interval 3: the move
  takes more than 24 s), ka drops to 99 < 100 and the VIP goes to kb;
  routes removed -> lbd's checks and the script recover (rise 2), ka is
  101 again and preempts the VIP back;
- privilege drop: none of these three files has 'user'/'group' in global,
  so there is nothing to check (test_lbd_privdrop.py covers the keywords).

Addresses: masters 198.18.0.11-13 (the files' rendered server addresses),
oa/ob 198.18.0.21-22, ka/kb 198.18.0.31-32, sa 198.18.0.41, client
198.18.0.50; VIPs 198.18.0.5 and .4 (OpenShift) and 198.18.0.100 (kubeadm).
About 3.5 minutes (the files' own intervals; none shortened).
Exit 0 pass, 77 skip, else fail. sudo python3 tests/integration/test_real_configs.py
"""

import os
import re
import signal
import sys
import threading
import time
import unittest

sys.dont_write_bytecode = True

import cphatest  # noqa: E402
from cphatest import lbd, step, util, vipd  # noqa: E402
from cphatest.curl import curl  # noqa: E402
from cphatest.realconf import (CLIENT, KUBEADM_VIP, LBD_REAL, LBS, MASTERS,  # noqa: E402
                               OCP_VIP, VIPD_REAL, Daemon, eff_priority, ocp_status, read,
                               rewrite_kubeadm_cfg, rewrite_kubeadm_conf,
                               rewrite_kubespray_cfg, rewrite_openshift_cfg,
                               rewrite_openshift_conf, stats, traffic_ok,
                               write_check_apiserver, write_ocp_scripts)

ROUNDS = 3


class RealConfigs(unittest.TestCase):

    def test_real_configs(self):
        with cphatest.Lab("real-configs") as lab:
            self.lab = lab
            self.run_all(lab)

    # -------------------------------------------------------------------
    def run_all(self, lab):
        t_start = time.monotonic()
        masters = [lab.add_host(n, v4=ip + "/24") for n, ip in MASTERS]
        lbs = {n: lab.add_host(n, v4=ip + "/24") for n, ip in LBS}
        client = lab.add_host("client", v4=CLIENT + "/24")
        oa, ob, ka, kb, sa = (lbs[n] for n in ("oa", "ob", "ka", "kb", "sa"))

        step("apiserver stand-ins on m1..m3 (TLS, /readyz /healthz)")
        apis = lbd.Apiservers(lab, masters)
        for m in masters:
            apis.start(m, wait=False)
        for m in masters:
            apis.wait_ready(m, timeout=30)
        ca = apis.ca

        step("configuration files, rewritten (see rewrite_*), checked with -c")
        d = {h.name: os.path.dirname(lab.path("real-" + h.name, "x")) for h in lbs.values()}
        lb, vd = {}, {}
        ocp_cfg = read(LBD_REAL, "openshift-mco-onprem.cfg")
        ocp_conf = read(VIPD_REAL, "openshift-mco-onprem-unicast.conf")
        for h, peer in ((oa, ob), (ob, oa)):
            p = os.path.join(d[h.name], "haproxy.cfg")
            with open(p, "w") as f:
                f.write(rewrite_openshift_cfg(ocp_cfg, d[h.name]))
            lb[h.name] = Daemon(h, "lbd", p, os.path.join(d[h.name], "stats.sock"))
            write_ocp_scripts(d[h.name])
            p = os.path.join(d[h.name], "keepalived.conf")
            with open(p, "w") as f:
                f.write(rewrite_openshift_conf(ocp_conf, d[h.name], h.v4, peer.v4))
            vd[h.name] = Daemon(h, "vipd", p, os.path.join(d[h.name], "admin.sock"))
        kcfg = read(LBD_REAL, "kubeadm-ha-2023.cfg")
        kconf = read(VIPD_REAL, "kubeadm-ha-considerations.conf")
        for h, backup in ((ka, False), (kb, True)):
            p = os.path.join(d[h.name], "haproxy.cfg")
            with open(p, "w") as f:
                f.write(rewrite_kubeadm_cfg(kcfg, d[h.name]))
            lb[h.name] = Daemon(h, "lbd", p)
            write_check_apiserver(d[h.name])
            p = os.path.join(d[h.name], "keepalived.conf")
            with open(p, "w") as f:
                f.write(rewrite_kubeadm_conf(kconf, d[h.name], backup))
            vd[h.name] = Daemon(h, "vipd", p, os.path.join(d[h.name], "admin.sock"))
        p = os.path.join(d["sa"], "haproxy.cfg")
        with open(p, "w") as f:
            f.write(rewrite_kubespray_cfg(read(LBD_REAL, "kubespray-loadbalancer.cfg"), d["sa"]))
        lb["sa"] = Daemon(sa, "lbd", p)
        for x in list(lb.values()) + list(vd.values()):
            x.check()

        step("lbd on oa ob ka kb sa, vipd on oa ob ka kb")
        for x in lb.values():
            x.start()
        for x in vd.values():
            x.start()
        self.lb, self.vd, self.ca = lb, vd, ca
        self.hosts = lbs
        self.client, self.masters, self.apis = client, masters, apis

        step("OpenShift: stats page and ';csv' on localhost:29445; every master UP")
        for n in ("oa", "ob"):
            util.wait_until(lambda: ocp_status(lbs[n]) == {"UP"}, 25, 0.5,
                            "OpenShift lbd on %s: master-0..2 UP in the stats CSV" % n)
            r = stats(lbs[n], "")
            self.assertEqual(r.status, 200, "stats page on %s: %r" % (n, r))
            self.assertIn("<html", r.body.lower(), "stats page on %s is not HTML" % n)
            for s in ("master-0", "master-1", "master-2"):
                self.assertIn(s, r.body, "stats page on %s does not list %s" % (n, s))
            info = util.unix_request(lb[n].sock, "show info", 5.0)
            self.assertIn("Name: lbd", info, "the file's 'stats socket' on %s: %r"
                          % (n, info[:200]))
            r = curl(lbs[n], "http://localhost:29445/haproxy_stats;csv")
            self.assertEqual(r.status, 401, "stats CSV without the file's 'stats auth' "
                             "on %s: %r" % (n, r))

        step("VIPs: OpenShift 198.18.0.5 on one of oa/ob; kubeadm 198.18.0.100 on ka")
        vipd.wait_holders([ka, kb], KUBEADM_VIP, ["ka"], timeout=20)
        util.wait_until(lambda: len(vipd.holders([oa, ob], OCP_VIP)) == 1, 30, 0.1,
                        "OpenShift API VIP %s on exactly one of oa/ob" % OCP_VIP)
        # both load balancers must be at full priority (40 + 20 + 5) before the rounds
        for n in ("oa", "ob"):
            util.wait_until(lambda: eff_priority(vd[n].vrrp()["ostest_API"]) == 65, 20, 0.2,
                            "vipd on %s: ostest_API at priority 65 (both scripts OK)" % n)

        step("traffic through each entry point reaches at least two masters")
        self.traffic_ok(client, OCP_VIP, 9445, "OpenShift VIP")
        self.traffic_ok(client, KUBEADM_VIP, 6443, "kubeadm VIP", wait=20)
        self.traffic_ok(sa, "127.0.0.1", 6443, "kubespray node's 127.0.0.1:6443", wait=40)
        self.monitors_ok("start")

        for rnd in range(1, ROUNDS + 1):
            self.all_masters_round(rnd)

        step("track scripts move the VIPs, %d rounds each (OpenShift and kubeadm "
             "side by side)" % ROUNDS)
        errors = []

        def kubeadm_rounds():
            try:
                for rnd in range(1, ROUNDS + 1):
                    self.kubeadm_round(rnd)
            except BaseException as e:  # re-raised in the main thread
                errors.append(e)
        th = threading.Thread(target=kubeadm_rounds, daemon=True)
        th.start()
        try:
            for rnd in range(1, ROUNDS + 1):
                self.openshift_round(rnd)
        finally:
            th.join(240)
        if th.is_alive():
            raise AssertionError("kubeadm VIP rounds did not end in time")
        if errors:
            raise errors[0]

        step("every entry point still carries traffic to two masters")
        self.traffic_ok(client, OCP_VIP, 9445, "OpenShift VIP at the end")
        self.traffic_ok(client, KUBEADM_VIP, 6443, "kubeadm VIP at the end")
        # kubespray: rise 2 x downinter 15s after the last restart (long past)
        self.traffic_ok(sa, "127.0.0.1", 6443, "kubespray 127.0.0.1:6443 at the end",
                        wait=2 * 15 + 15)

        step("privilege drop: no 'user'/'group' in these files' global sections")
        for n, x in lb.items():
            text = read(x.path)
            self.assertIsNone(re.search(r"^\s*(user|group|uid|gid)\s", text, re.M),
                              "%s has user/group now: add the /proc/PID/status check" % x.path)
        for x in list(lb.values()) + list(vd.values()):
            self.assertTrue(x.proc.running(), "%r exited: %s" % (x, util.tail(x.proc.log_path)))
        apis.kill_all()
        step("done in %.0fs" % (time.monotonic() - t_start))

    # --------------------------------------------------------- checks --
    def traffic_ok(self, host, ip, port, what, wait=10):
        traffic_ok(host, ip, port, self.ca, what, wait)

    def traffic_fails(self, host, ip, port, what):
        res = lbd.masters_reached(host, ip, port, self.ca, n=2)
        self.assertFalse(any(n and st and " 200" in st for n, st in res),
                         "%s (%s:%d) answered with every master stopped: %s"
                         % (what, ip, port, res))

    def monitors_ok(self, when):
        r = curl(self.client, "http://%s:9444/haproxy_ready" % OCP_VIP)
        self.assertEqual(r.status, 200, "OpenShift monitor-uri via the VIP (%s): %r"
                         % (when, r))
        r = curl(self.client, "http://%s:8081/healthz" % self.hosts["sa"].v4)
        self.assertEqual(r.status, 200, "kubespray monitor-uri on sa:8081 (%s): %r"
                         % (when, r))

    def all_masters_round(self, rnd):
        oa, ob = self.hosts["oa"], self.hosts["ob"]
        step("round %d/%d: every master's apiserver stopped (SIGKILL by PID)"
             % (rnd, ROUNDS))
        for m in self.masters:
            p = self.apis.procs[m.name]
            p.kill(signal.SIGKILL)
            p.wait(timeout=5)
        # openshift-mco-onprem.cfg: inter 5s fall 3 -> DOWN after the 3rd
        # failed check, at most 3 * 5 s after the stop plus one inter of phase
        bound = 5 * (3 + 1) + 5
        t0 = time.monotonic()
        for h in (oa, ob):
            util.wait_until(lambda: ocp_status(h) == {"DOWN"}, bound, 0.5,
                            "round %d: OpenShift lbd on %s to show master-0..2 DOWN in "
                            "the stats CSV within %ds (inter 5s, fall 3)"
                            % (rnd, h.name, bound))
        step("  every server DOWN after %.1fs; traffic fails; monitor-uri still 200 "
             "(no 'monitor fail' in the files)" % (time.monotonic() - t0))
        self.traffic_fails(self.client, OCP_VIP, 9445, "OpenShift VIP")
        self.traffic_fails(self.client, KUBEADM_VIP, 6443, "kubeadm VIP")
        self.traffic_fails(self.hosts["sa"], "127.0.0.1", 6443, "kubespray 127.0.0.1:6443")
        self.monitors_ok("round %d, every master stopped" % rnd)
        step("round %d/%d: apiservers started again" % (rnd, ROUNDS))
        for m in self.masters:
            self.apis.start(m, wait=False)
        for m in self.masters:
            self.apis.wait_ready(m, timeout=30)
        # rise 1, inter 5s: UP at the next check
        bound = 5 * 1 + 10
        for h in (oa, ob):
            util.wait_until(lambda: ocp_status(h) == {"UP"}, bound, 0.5,
                            "round %d: OpenShift lbd on %s: master-0..2 UP again within "
                            "%ds (inter 5s, rise 1)" % (rnd, h.name, bound))
        self.traffic_ok(self.client, OCP_VIP, 9445, "OpenShift VIP, round %d" % rnd)
        self.monitors_ok("round %d, masters back" % rnd)

    def openshift_round(self, rnd):
        oa, ob = self.hosts["oa"], self.hosts["ob"]
        pair = [oa, ob]
        holder = vipd.holders(pair, OCP_VIP)
        self.assertEqual(len(holder), 1, "OpenShift VIP held by %s" % holder)
        h = self.hosts[holder[0]]
        other = ob if h is oa else oa
        step("OpenShift round %d/%d: the VIP holder %s cut off from the masters "
             "(blackhole routes in %s)" % (rnd, ROUNDS, h.name, h.name))
        for _, ip in MASTERS:
            h.run(["ip", "route", "add", "blackhole", ip + "/32"])
        try:
            bound = 5 * (3 + 1) + 5
            util.wait_until(lambda: ocp_status(h) == {"DOWN"}, bound, 0.5,
                            "OpenShift round %d: lbd on %s to show master-0..2 DOWN "
                            "within %ds (inter 5s, fall 3)" % (rnd, h.name, bound))
            # chk_ocp_lb curls the monitor-uri, which has no 'monitor fail'
            # condition: as with HAProxy it answers 200 while the proxy runs,
            # so the scripts keep passing (interval 2 x fall 3 + 1.9 s timeout
            # and a Master_Down_Interval: 12 s) and the VIP stays
            r = curl(h, "http://localhost:9444/haproxy_ready")
            self.assertEqual(r.status, 200, "OpenShift round %d: monitor-uri on %s with "
                             "every server DOWN: %r" % (rnd, h.name, r))
            vipd.steady_holders(pair, OCP_VIP, [h.name], 12.0, interval=0.2)
            step("  every master DOWN on %s, monitor-uri 200: the VIP stays for 12 s"
                 % h.name)
        finally:
            for _, ip in MASTERS:
                h.run(["ip", "route", "del", "blackhole", ip + "/32"])
        util.wait_until(lambda: ocp_status(h) == {"UP"}, 15, 0.5,
                        "OpenShift round %d: lbd on %s: master-0..2 UP again (rise 1)"
                        % (rnd, h.name))
        step("OpenShift round %d/%d: lbd on the VIP holder %s stopped (SIGTERM by PID) "
             "-> its monitor-uri fails" % (rnd, ROUNDS, h.name))
        self.lb[h.name].stop()
        # chk_ocp_lb and chk_ocp_both: interval 2, fall 3 -> 6 s (+ a 1.9 s
        # timeout each), then the other LB's Master_Down_Interval (~3.8 s)
        took = vipd.wait_holders(pair, OCP_VIP, [other.name], timeout=20)
        step("  OpenShift VIP on %s after %.1fs" % (other.name, took))
        self.traffic_ok(self.client, OCP_VIP, 9445, "OpenShift VIP on %s, round %d"
                        % (other.name, rnd))
        self.lb[h.name].start()
        # rise 3 x interval 2: priority 65 again, equal to the holder's
        util.wait_until(lambda: eff_priority(self.vd[h.name].vrrp()["ostest_API"]) == 65,
                        20, 0.2, "OpenShift round %d: vipd on %s back to priority 65 after "
                        "lbd restarted (chk_ocp_lb rise 3)" % (rnd, h.name))
        vipd.steady_holders(pair, OCP_VIP, [other.name], 2.0)
        step("  %s recovered (priority 65 = %s's): the VIP stays on %s"
             % (h.name, other.name, other.name))

    def kubeadm_round(self, rnd):
        ka, kb = self.hosts["ka"], self.hosts["kb"]
        pair = [ka, kb]
        # on ka; or back on it: when every apiserver was stopped (the rounds
        # before), check_apiserver may have reached fall 10 on ka on a loaded
        # machine (a success between two rounds needs lbd's rise 2 x 2 s
        # first), and the VIP comes back after its rise 2 x 3 s and ka's
        # Master_Down_Interval
        vipd.wait_holders(pair, KUBEADM_VIP, ["ka"], timeout=20)
        # the check passes on ka again (after the rounds with every master
        # stopped, lbd's rise 2 x inter 2s), and vipd has run it since: with
        # keepalived's counting one success puts the script back at full
        # health, so the next failure needs fall = 10 in a row
        script = os.path.join(os.path.dirname(self.vd["ka"].path), "check_apiserver.sh")
        util.wait_until(lambda: ka.run([script], check=False).returncode == 0, 30, 0.5,
                        "kubeadm round %d: check_apiserver.sh to pass on ka" % rnd)
        time.sleep(2 * 3 + 1)
        step("kubeadm round %d/%d: ka cut off from the masters (blackhole routes in ka)"
             % (rnd, ROUNDS))
        for _, ip in MASTERS:
            ka.run(["ip", "route", "add", "blackhole", ip + "/32"])
        # lbd: default inter 2s, fall 3 (~8 s); check_apiserver: interval 3,
        # fall 10 (30 s, + up to 2 s per curl); then kb's Master_Down_Interval
        took = vipd.wait_holders(pair, KUBEADM_VIP, ["kb"], timeout=60)
        step("  kubeadm VIP on kb after %.1fs" % took)
        # the 1st failure comes at the earliest right away (lbd closes the
        # client's connection when its server connect fails), the 10th
        # 9 intervals later: 27 s, less 3 s for the sampling
        self.assertGreater(took, 24,
                           "kubeadm round %d: the VIP moved after %.1fs, before "
                           "check_apiserver's fall 10 x interval 3 could have elapsed "
                           "(vipd counted failures differently from keepalived?)"
                           % (rnd, took))
        self.traffic_ok(self.client, KUBEADM_VIP, 6443, "kubeadm VIP on kb, round %d" % rnd)
        for _, ip in MASTERS:
            ka.run(["ip", "route", "del", "blackhole", ip + "/32"])
        # lbd rise 2 x inter 2s, check_apiserver rise 2 x 3s, preempt
        took = vipd.wait_holders(pair, KUBEADM_VIP, ["ka"], timeout=30)
        step("  routes removed: kubeadm VIP back on ka after %.1fs (priority 101 > 100)"
             % took)
        self.traffic_ok(self.client, KUBEADM_VIP, 6443, "kubeadm VIP on ka, round %d" % rnd)


if __name__ == "__main__":
    lbd.require(tools=("curl", "timeout"))
    unittest.main()
