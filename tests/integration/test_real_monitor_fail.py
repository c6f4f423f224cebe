#!/usr/bin/env python3
"""The OpenShift on-prem pair of test_real_configs.py, hardened with the one
line an operator adds so that the monitor-uri reports the servers, not only
the proxy: `monitor fail if { nbsrv(masters) lt 1 }` in the file's
health_check_http_url listener (none of the public files in
tests/lbd-configs/real/ has a 'monitor fail' condition; HAProxy's
monitor-uri without one answers 200 while the process runs).

oa and ob run lbd with that file and vipd with OpenShift's
keepalived.conf (unicast), whose chk_ocp_lb (weight 20) and chk_ocp_both
(weight 5) scripts curl the monitor-uri (as MCO's chk_ocp_script*.sh do).
Three rounds, each starting from the current VIP holder H:

- H is cut off from the masters (blackhole routes in H only). While its
  lbd's checks fail, the monitor-uri on H answers 200 as long as the stats
  CSV shows a master UP and 503 once every master is DOWN (sampled every
  0.5 s: CSV, monitor, CSV, so that neither order of the two reads can hide
  a wrong answer); the other load balancer's monitor stays 200 throughout.
- The scripts fail (fall 3 x interval 2), H drops from 65 to 40 and the VIP
  goes to the other load balancer (65 > 40: it preempts); traffic through
  the VIP reaches two masters again.
- Routes removed: H's masters UP (rise 1), its monitor 200, the scripts
  pass (rise 3), priority 65 = the holder's: the VIP stays (no preemption
  on a tie), and the next round starts from the new holder.

Addresses: masters 198.18.0.11-13, oa/ob 198.18.0.21-22, client .50, VIP
198.18.0.5. About 2.5 minutes (the files' own intervals; none shortened).
Exit 0 pass, 77 skip, else fail. sudo python3 tests/integration/test_real_monitor_fail.py
"""

import os
import sys
import time
import unittest

sys.dont_write_bytecode = True

import cphatest  # noqa: E402
from cphatest import lbd, step, util, vipd  # noqa: E402
from cphatest.curl import curl  # noqa: E402
from cphatest import realconf as rc  # noqa: E402  (the rewrites, Daemon and addresses)

ROUNDS = 3
HARDENING = "  monitor fail if { nbsrv(masters) lt 1 }\n"


def harden(text):
    """The operator's added line, after the listener's monitor-uri."""
    return rc.sub(text, "  monitor-uri /haproxy_ready\n",
                  "  monitor-uri /haproxy_ready\n" + HARDENING)


def monitor(host):
    return curl(host, "http://localhost:9444/haproxy_ready").status


class MonitorFail(unittest.TestCase):

    def test_monitor_fail_moves_the_vip(self):
        with cphatest.Lab("real-monitor-fail") as lab:
            self.run_all(lab)

    def run_all(self, lab):
        t_start = time.monotonic()
        masters = [lab.add_host(n, v4=ip + "/24") for n, ip in rc.MASTERS]
        lbs = {n: lab.add_host(n, v4=ip + "/24") for n, ip in rc.LBS if n in ("oa", "ob")}
        client = lab.add_host("client", v4=rc.CLIENT + "/24")
        oa, ob = lbs["oa"], lbs["ob"]

        step("apiserver stand-ins on m1..m3 (TLS, /readyz)")
        apis = lbd.Apiservers(lab, masters)
        for m in masters:
            apis.start(m, wait=False)
        for m in masters:
            apis.wait_ready(m, timeout=30)

        step("OpenShift's files with '%s' added, checked with -c" % HARDENING.strip())
        cfg = harden(rc.read(rc.LBD_REAL, "openshift-mco-onprem.cfg"))
        conf = rc.read(rc.VIPD_REAL, "openshift-mco-onprem-unicast.conf")
        self.lb, self.vd = {}, {}
        for h, peer in ((oa, ob), (ob, oa)):
            d = os.path.dirname(lab.path("real-" + h.name, "x"))
            p = os.path.join(d, "haproxy.cfg")
            with open(p, "w") as f:
                f.write(rc.rewrite_openshift_cfg(cfg, d))
            self.lb[h.name] = rc.Daemon(h, "lbd", p, os.path.join(d, "stats.sock"))
            rc.write_ocp_scripts(d)
            p = os.path.join(d, "keepalived.conf")
            with open(p, "w") as f:
                f.write(rc.rewrite_openshift_conf(conf, d, h.v4, peer.v4))
            self.vd[h.name] = rc.Daemon(h, "vipd", p, os.path.join(d, "admin.sock"))
        for x in list(self.lb.values()) + list(self.vd.values()):
            x.start()
        self.hosts, self.client, self.ca = lbs, client, apis.ca

        step("every master UP on oa and ob, both monitors 200, both at priority 65")
        for h in (oa, ob):
            util.wait_until(lambda: self.status(h) == {"UP"}, 25, 0.5,
                            "lbd on %s: master-0..2 UP in the stats CSV" % h.name)
            self.assertEqual(monitor(h), 200, "monitor-uri on %s at start" % h.name)
            util.wait_until(lambda: rc.eff_priority(self.vd[h.name].vrrp()["ostest_API"]) == 65,
                            30, 0.2, "vipd on %s: ostest_API at priority 65" % h.name)
        util.wait_until(lambda: len(vipd.holders([oa, ob], rc.OCP_VIP)) == 1, 30, 0.1,
                        "the VIP %s on exactly one of oa/ob" % rc.OCP_VIP)
        rc.traffic_ok(client, rc.OCP_VIP, 9445, self.ca, "the VIP at start")

        for rnd in range(1, ROUNDS + 1):
            self.round(rnd)

        for x in list(self.lb.values()) + list(self.vd.values()):
            self.assertTrue(x.proc.running(), "%r exited: %s" % (x, util.tail(x.proc.log_path)))
        apis.kill_all()
        step("done in %.0fs" % (time.monotonic() - t_start))

    def status(self, host):
        return rc.ocp_status(host)

    def round(self, rnd):
        pair = [self.hosts["oa"], self.hosts["ob"]]
        holder = vipd.holders(pair, rc.OCP_VIP)
        self.assertEqual(len(holder), 1, "round %d: VIP held by %s" % (rnd, holder))
        h = self.hosts[holder[0]]
        other = pair[1] if h is pair[0] else pair[0]
        step("round %d/%d: the VIP holder %s cut off from the masters (blackhole routes)"
             % (rnd, ROUNDS, h.name))
        t0 = time.monotonic()
        for _, ip in rc.MASTERS:
            h.run(["ip", "route", "add", "blackhole", ip + "/32"])
        try:
            # inter 5s fall 3: every master DOWN after 3 failed checks, at
            # most 3 x 5 s plus one inter of phase and the checks' timeouts
            bound = 5 * (3 + 1) + 10
            seen_up_200 = False
            t_503 = None
            deadline = time.monotonic() + bound
            while time.monotonic() < deadline:
                before = self.status(h)
                code = monitor(h)
                after = self.status(h)
                if before == {"DOWN"}:
                    self.assertEqual(code, 503, "round %d: monitor-uri on %s answered %s "
                                     "with every master DOWN" % (rnd, h.name, code))
                if code == 503:
                    self.assertEqual(after, {"DOWN"}, "round %d: monitor-uri on %s "
                                     "answered 503 with a master UP (%s)" % (rnd, h.name, after))
                    t_503 = time.monotonic()
                    break
                self.assertEqual(code, 200, "round %d: monitor-uri on %s answered %s"
                                 % (rnd, h.name, code))
                if "UP" in before:
                    seen_up_200 = True
                time.sleep(0.5)
            self.assertIsNotNone(t_503, "round %d: monitor-uri on %s never answered 503 in "
                                 "%ds with the masters unreachable" % (rnd, h.name, bound))
            self.assertTrue(seen_up_200, "round %d: the monitor on %s was never seen at 200 "
                            "while a master was still UP (the checks failed at once?)"
                            % (rnd, h.name))
            self.assertEqual(monitor(other), 200, "round %d: monitor-uri on %s (it still "
                             "reaches the masters)" % (rnd, other.name))
            step("  %s: monitor-uri 200 while a master was UP, 503 %.1fs after the cut, "
                 "%s's stays 200" % (h.name, t_503 - t0, other.name))
            # chk_ocp_lb and chk_ocp_both: interval 2, fall 3 (+ curl's
            # time) -> 65 - 25 = 40 < 65: the other one preempts
            took = vipd.wait_holders(pair, rc.OCP_VIP, [other.name], timeout=25)
            step("  the VIP on %s %.1fs after the first 503" % (other.name,
                                                               time.monotonic() - t_503))
            self.assertEqual(rc.eff_priority(self.vd[h.name].vrrp()["ostest_API"]), 40,
                             "round %d: %s's priority with both scripts failing" % (rnd, h.name))
            self.assertLess(took, 25)
            rc.traffic_ok(self.client, rc.OCP_VIP, 9445, self.ca,
                          "the VIP on %s, round %d" % (other.name, rnd))
        finally:
            for _, ip in rc.MASTERS:
                h.run(["ip", "route", "del", "blackhole", ip + "/32"], check=False)
        step("round %d/%d: routes removed on %s" % (rnd, ROUNDS, h.name))
        util.wait_until(lambda: self.status(h) == {"UP"}, 15, 0.5,
                        "round %d: lbd on %s: master-0..2 UP again (inter 5s, rise 1)"
                        % (rnd, h.name))
        self.assertEqual(monitor(h), 200, "round %d: monitor-uri on %s with masters UP"
                         % (rnd, h.name))
        util.wait_until(lambda: rc.eff_priority(self.vd[h.name].vrrp()["ostest_API"]) == 65,
                        20, 0.2, "round %d: vipd on %s back to 65 (rise 3 x interval 2)"
                        % (rnd, h.name))
        vipd.steady_holders(pair, rc.OCP_VIP, [other.name], 2.0)
        step("  %s at 65 again, equal to %s's: the VIP stays on %s"
             % (h.name, other.name, other.name))


if __name__ == "__main__":
    lbd.require(tools=("curl", "timeout"))
    unittest.main()
