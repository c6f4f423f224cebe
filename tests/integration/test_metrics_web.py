#!/usr/bin/env python3
"""Who can read a daemon's /metrics and /status: loopback by default, basic
auth and TLS from exporter-toolkit's web configuration file, and cpha status
reading them with the password and the cluster CA.

Topology (lbd's test topology): client (198.18.0.2), lb (198.18.0.10)
running lbd, servers s1..s3 with tag servers.
1. `cpha render` of a description without monitoring: binds metrics-bind to
   127.0.0.1; lbd started with that line answers on the lb host's loopback
   and refuses the client at the lb's address. cpha status run on the lb
   host reads that lbd; run on the client it does not ask it.
2. The description with monitoring: {listen: host, basic_auth}: render
   writes metrics-web.yml; lbd reloads with the rendered lines and file.
   From the client: no credentials or a wrong password is 401 with a Basic
   challenge, the right ones 200 with the metrics (and /status).
3. tls_server_config added: curl --cacert with the password gets 200; plain
   HTTP and TLS without the CA fail. cpha status from the client reads lbd
   over https with the password (answered), and says 401 with a wrong one.
4. A web configuration with an error: the reload is refused, the running
   one stays (TLS still answers).
vipd (one router, 198.18.0.11) with vipd_metrics_web_config: TLS and basic
auth the same, read by the client host.
Exit 0 pass, 77 skip (not root, lbd or cpha not built), else fail.
    sudo python3 tests/integration/test_metrics_web.py [-v]
"""

import json
import os
import shutil
import sys
import time
import unittest
import warnings

sys.dont_write_bytecode = True

import cphatest  # noqa: E402
from cphatest import cphacmd, lbd, step, vipd  # noqa: E402
from cphatest.pki import Pki  # noqa: E402

with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    import crypt  # noqa: E402  (libxcrypt's crypt(3): bcrypt as the daemons check it)

BODY = """
defaults
    mode tcp
    timeout connect 2s
    timeout client 30s
    timeout server 30s
    default-server check inter 300ms fall 1 rise 1

listen apiserver
    bind 198.18.0.10:6443
    balance roundrobin
    server s1 198.18.0.11:8000
    server s2 198.18.0.12:8000
    server s3 198.18.0.13:8000
"""

PORT = 9120  # lbd's metrics port as cpha render writes it
PASSWORD = "scrape me"

DESCRIPTION = """\
cluster: {name: mweb}
api: {name: kubernetes, vip: 198.18.0.100/24, interface: eth0}
masters:
  - {name: m0, address: 198.18.0.11}
load_balancers:
  - {name: lb0, address: 198.18.0.10}
components: {load_balancer: lbd, vip: vipd, manager: systemd}
"""


def read(path):
    with open(path) as f:
        return f.read()


def curl(host, url, *args):
    """(exit status, HTTP status or 0, headers+body) of one curl in host."""
    r = host.run(["curl", "-sS", "--noproxy", "*", "-m", "3", "-D", "-", "-o", "-",
                  "-w", "\n%{http_code}"] + list(args) + [url], check=False)
    out, _, code = r.stdout.rpartition("\n")
    return r.returncode, int(code or 0), out


class MetricsWeb(unittest.TestCase):

    def render(self, lab, extra):
        d = lab.path("desc-%d" % len(extra))
        os.makedirs(d, exist_ok=True)
        desc = os.path.join(d, "cluster.yaml")
        with open(desc, "w") as f:
            f.write(DESCRIPTION + extra)
        cphacmd.run(["-f", desc, "render", "--no-check", "--out", os.path.join(d, "out")])
        return desc, os.path.join(d, "out", "lb0", "etc", "lbd")

    def status(self, host, desc, pki):
        r = host.run([cphacmd.binary(), "-f", desc, "status", "--json", "--pki", pki,
                      "--timeout", "1s"], check=False, timeout=60)
        try:
            doc = json.loads(r.stdout)
        except ValueError:
            raise AssertionError("cpha status: exit %d, not JSON:\n%s%s"
                                 % (r.returncode, r.stdout, r.stderr))
        return doc["details"]["load_balancers"][0]

    def test_loopback_basic_auth_tls(self):
        for tool in ("curl", "openssl"):
            if not shutil.which(tool):
                self.skipTest("%s is not installed" % tool)
        with cphatest.Lab("mweb") as lab:
            t = lbd.Topology(lab)
            t.start_tagservers(8000)
            pki = Pki(lab.path("pki"))
            status_pki = lab.path("status-pki")
            os.makedirs(status_pki)
            shutil.copy(pki.ca_cert, os.path.join(status_pki, "ca.pem"))

            step("render without monitoring: lbd's /metrics on loopback")
            desc0, etc0 = self.render(lab, "")
            text = read(os.path.join(etc0, "lbd.cfg"))
            self.assertIn("    metrics-bind 127.0.0.1:%d\n" % PORT, text)
            self.assertNotIn("metrics-web-config", text)
            lb = lbd.Lbd(lab, t.lb, BODY, global_extra=["metrics-bind 127.0.0.1:%d" % PORT])
            lb.start()
            rc, code, out = curl(t.lb, "http://127.0.0.1:%d/metrics" % PORT)
            self.assertEqual((rc, code), (0, 200), out)
            self.assertIn("lbd_server_up", out)
            rc, code, out = curl(t.client, "http://198.18.0.10:%d/metrics" % PORT)
            self.assertEqual((rc, code), (7, 0), "the client must be refused: " + out)
            listeners = t.lb.run(["ss", "-Hltn", "sport = :%d" % PORT]).stdout.split()
            self.assertIn("127.0.0.1:%d" % PORT, listeners)
            self.assertNotIn("198.18.0.10:%d" % PORT, listeners)
            step("cpha status on the lb host reads its lbd; on the client it does not ask")
            self.assertEqual(self.status(t.lb, desc0, status_pki)["lbd"], "answered")
            self.assertEqual(self.status(t.client, desc0, status_pki)["lbd"], "not asked")

            step("monitoring: {listen: host, basic_auth}: rendered lines and web file")
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", DeprecationWarning)
                hashed = crypt.crypt(PASSWORD, crypt.mksalt(crypt.METHOD_BLOWFISH, rounds=1 << 6))
            pwfile = lab.path("metrics-password")
            with open(pwfile, "w") as f:
                f.write(PASSWORD + "\n")
            auth = ("  basic_auth: {user: prom, password_hash: '%s', password_file: %s}\n"
                    % (hashed, pwfile))
            desc1, etc1 = self.render(lab, "monitoring:\n  listen: host\n" + auth)
            text = read(os.path.join(etc1, "lbd.cfg"))
            self.assertIn("    metrics-bind 198.18.0.10:%d\n" % PORT, text)
            self.assertIn("    metrics-web-config metrics-web.yml\n", text)
            web = os.path.join(os.path.dirname(lb.cfg_path), "metrics-web.yml")
            shutil.copy(os.path.join(etc1, "metrics-web.yml"), web)
            lb.global_extra = ["metrics-bind 198.18.0.10:%d" % PORT,
                               "metrics-web-config metrics-web.yml"]
            lb.reload(BODY)
            url = "http://198.18.0.10:%d/metrics" % PORT
            rc, code, out = curl(t.client, url)
            self.assertEqual(code, 401, out)
            self.assertIn('WWW-Authenticate: Basic realm="cpha"', out)
            self.assertNotIn("lbd_server_up", out)
            rc, code, out = curl(t.client, url, "-u", "prom:wrong")
            self.assertEqual(code, 401, out)
            rc, code, out = curl(t.client, url, "-u", "nobody:" + PASSWORD)
            self.assertEqual(code, 401, out)
            # two new passwords were checked with bcrypt this second: a third
            # waits for the next one (429 and Retry-After until then)
            rc, code, out = curl(t.client, url, "-u", "prom:" + PASSWORD)
            if code == 429:
                self.assertIn("Retry-After: 1", out)
                time.sleep(1.1)
                rc, code, out = curl(t.client, url, "-u", "prom:" + PASSWORD)
            self.assertEqual(code, 200, out)
            self.assertIn("lbd_server_up", out)
            rc, code, out = curl(t.client, "http://198.18.0.10:%d/status" % PORT,
                                 "-u", "prom:" + PASSWORD)
            self.assertEqual(code, 200, out)
            self.assertIn('"daemon"', out)
            self.assertEqual(self.status(t.client, desc1, status_pki)["lbd"], "answered")

            step("tls_server_config: https with the CA; plain HTTP and an unknown CA fail")
            cert, key = pki.issue("metrics", "lb", sans=["IP:198.18.0.10"], server=True)
            tls = "  tls: {cert_file: %s, key_file: %s}\n" % (cert, key)
            desc2, etc2 = self.render(lab, "monitoring:\n  listen: host\n" + tls + auth)
            rendered = read(os.path.join(etc2, "metrics-web.yml"))
            self.assertIn("tls_server_config:\n  cert_file: '%s'\n" % cert, rendered)
            shutil.copy(os.path.join(etc2, "metrics-web.yml"), web)
            lb.reload(BODY)
            surl = "https://198.18.0.10:%d/metrics" % PORT
            rc, code, out = curl(t.client, surl, "--cacert", pki.ca_cert, "-u",
                                 "prom:" + PASSWORD)
            self.assertEqual((rc, code), (0, 200), out)
            self.assertIn("lbd_server_up", out)
            rc, code, out = curl(t.client, surl, "--cacert", pki.ca_cert)
            self.assertEqual(code, 401, out)
            rc, code, out = curl(t.client, url, "-u", "prom:" + PASSWORD)
            self.assertNotEqual(rc, 0, "plain HTTP on the TLS listener must fail: " + out)
            self.assertNotEqual(code, 200)
            rc, code, out = curl(t.client, surl, "-u", "prom:" + PASSWORD)
            self.assertEqual(rc, 60, "a server the system's CAs do not know: " + out)
            step("cpha status from the client: https, the cluster CA, the password")
            lb0 = self.status(t.client, desc2, status_pki)
            self.assertEqual(lb0["lbd"], "answered", lb0)
            with open(pwfile, "w") as f:
                f.write("not it\n")
            lb0 = self.status(t.client, desc2, status_pki)
            self.assertEqual(lb0["lbd"], "unreachable", lb0)
            self.assertIn("HTTP 401", lb0["lbd_error"])

            step("a certificate that is not there: lbd -c passes (it checks the file "
                 "only), the reload is refused, TLS still served")
            with open(web) as f:
                good = f.read()
            with open(web, "w") as f:
                f.write(good.replace(cert, cert + ".gone"))
            rc, err = lb.check()
            self.assertEqual(rc, 0, err)
            out = lb.reload(BODY, expect_ok=False)
            self.assertIn("metrics-web-config: cert_file %s.gone" % cert, out)
            rc, code, out = curl(t.client, surl, "--cacert", pki.ca_cert, "-u",
                                 "prom:" + PASSWORD)
            self.assertEqual(code, 200, out)
            with open(web, "w") as f:
                f.write(good)

            step("a web configuration with an error: reload refused, TLS still served")
            with open(web, "a") as f:
                f.write("rate_limit:\n  burst: 20\n")
            out = lb.reload(BODY, expect_ok=False)
            self.assertIn("'rate_limit' is not supported by cpha", out)
            rc, code, out = curl(t.client, surl, "--cacert", pki.ca_cert, "-u",
                                 "prom:" + PASSWORD)
            self.assertEqual(code, 200, out)


    def test_vipd_tls_basic_auth(self):
        if not shutil.which("curl"):
            self.skipTest("curl is not installed")
        if not os.path.exists(vipd.binary()):
            self.skipTest("vipd is not built")
        with cphatest.Lab("mwebv") as lab:
            pki = Pki(lab.path("pki"))
            cert, key = pki.issue("r1", "r1", sans=["IP:198.18.0.11"], server=True)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", DeprecationWarning)
                hashed = crypt.crypt(PASSWORD, crypt.mksalt(crypt.METHOD_BLOWFISH, rounds=1 << 6))
            web = lab.path("vipd-web.yml")
            with open(web, "w") as f:
                f.write("tls_server_config:\n  cert_file: %s\n  key_file: %s\n"
                        "basic_auth_users:\n  prom: '%s'\n" % (cert, key, hashed))
            bed = vipd.Bed(lab, {"r1": 250}, global_extra=lambda n: [
                "vipd_metrics_bind 198.18.0.11:9650", "vipd_metrics_web_config " + web])
            bed.start()
            surl = "https://198.18.0.11:9650/status"
            step("vipd: https with the CA and the password; 401 without; plain HTTP fails")
            out = None
            for _ in range(50):  # vipd opens its listener once it runs
                rc, code, out = curl(bed.client, surl, "--cacert", pki.ca_cert, "-u",
                                     "prom:" + PASSWORD)
                if code == 200:
                    break
                time.sleep(0.1)
            self.assertEqual(code, 200, out)
            self.assertIn('"instances"', out)
            rc, code, out = curl(bed.client, surl, "--cacert", pki.ca_cert)
            self.assertEqual(code, 401, out)
            rc, code, out = curl(bed.client, "http://198.18.0.11:9650/status", "-u",
                                 "prom:" + PASSWORD)
            self.assertNotEqual(code, 200, out)


if __name__ == "__main__":
    reason = cphatest.root_skip_reason()
    for path in (lbd.binary(), cphacmd.binary()):
        if not reason and not os.path.exists(path):
            reason = "%s is not built" % path
    if reason:
        print("SKIP: %s" % reason)
        sys.exit(77)
    r = unittest.main(exit=False, verbosity=2).result
    sys.exit(0 if r.wasSuccessful() else 1)
