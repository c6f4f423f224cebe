#!/usr/bin/env python3
"""lbd's HTTPS /readyz checks against kube-apiserver stand-ins: TLS
verification, client certificates, and HTTP status.

One lbd, one frontend + single-server backend per case, so the client can
see the verdict: through a backend whose server is UP it reaches that
apiserver (named by its certificate); through one whose server is DOWN the
connection is closed without an answer.

  verify none                                  -> UP
  verify required, ca-file = the right CA      -> UP
  verify required, ca-file = another CA        -> DOWN, TLS reason logged
  crt (client cert) to an apiserver that refuses anonymous requests
  (--client-ca-file, --anonymous-auth=false: 401 without a cert) -> UP
  the same without crt                         -> DOWN, "wrong status: 401"
  /readyz turning 500 (its etcd unhealthy)     -> DOWN, "wrong status: 500",
                                                  then UP again

Topology: client 198.18.0.2, lb 198.18.0.10 (lbd), s1..s3 198.18.0.11-13.
Exit 0 pass, 77 skip (not root, or lbd not built), else fail.
    sudo python3 tests/integration/test_lbd_checks.py [-v]
"""

import ssl
import sys
import unittest

sys.dont_write_bytecode = True

import cphatest  # noqa: E402
from cphatest import lbd, step, util  # noqa: E402

CASES = {  # backend: (frontend port, server, server options)
    "none": (7001, "198.18.0.11", "verify none"),
    "ca": (7002, "198.18.0.11", "verify required ca-file %(ca)s"),
    "wrongca": (7003, "198.18.0.11", "verify required ca-file %(other_ca)s"),
    "crt": (7004, "198.18.0.12", "verify required ca-file %(ca)s crt %(crt)s"),
    "nocrt": (7005, "198.18.0.12", "verify required ca-file %(ca)s"),
    "status": (7006, "198.18.0.13", "verify none"),
}
INTER = 0.5


def body(files):
    out = ["""
defaults
    mode tcp
    log global
    retries 1
    timeout connect 1s
    timeout client 30s
    timeout server 30s
    timeout check 1s
    option httpchk
    http-check connect ssl
    http-check send meth GET uri /readyz
    http-check expect status 200
    default-server check inter 500ms fall 2 rise 2
"""]
    for be, (port, ip, opts) in CASES.items():
        out.append("frontend %s\n    bind 198.18.0.10:%d\n    default_backend %s\n"
                   % (be, port, be))
        out.append("backend %s\n    server a %s:6443 %s\n" % (be, ip, opts % files))
    return "\n".join(out)


class Checks(unittest.TestCase):

    def reach(self, t, api, be):
        """(HTTP status, server) through the frontend of backend be, or None
        when lbd closes the connection without an answer."""
        try:
            status, _, server = lbd.https_get(t.client, lbd.LB_IP, CASES[be][0], "/livez",
                                              api.ca)
        except (OSError, ssl.SSLError) as e:
            step("  %s: no answer (%s)" % (be, e.__class__.__name__))
            return None
        return status, server

    def test_https_checks(self):
        with cphatest.Lab("lbd-checks") as lab:
            t = lbd.Topology(lab)
            s1, s2, s3 = t.servers
            api = lbd.Apiservers(lab, t.servers)
            other = cphatest.Pki(lab.path("pki", "other-ca"), cn="some-other-ca")
            cert, key = api.pki.issue("lbd-check", "lbd-check", client=True)
            crt = lab.path("pki", "lbd-check.pem")  # HAProxy's crt: cert + key
            with open(crt, "w") as f:
                for part in (cert, key):
                    with open(part) as src:
                        f.write(src.read())
            step("apiserver stand-ins; s2 refuses requests without a client cert")
            api.start(s1, wait=False)
            api.start(s2, extra=["--client-ca-file=%s" % api.ca, "--anonymous-auth=false"],
                      wait=False)
            api.start(s3, wait=False)
            api.wait_ready(s1)
            api.wait_ready(s2, cert=cert, key=key)
            api.wait_ready(s3)
            lb = lbd.Lbd(lab, t.lb, body({"ca": api.ca, "other_ca": other.ca_cert,
                                          "crt": crt}))
            lb.start()

            # servers start UP; a failing one is DOWN after its first check
            for be in ("wrongca", "nocrt"):
                lb.wait_status(be, "a", "DOWN", timeout=INTER + 3)
            for be in ("none", "ca", "crt", "status"):
                lb.wait_all_up(be, settle=0)
            lb.wait_all_up("none", settle=INTER * 2)  # every server checked twice
            st = {be: lb.server(be, "a") for be in CASES}
            for be in CASES:
                step("%-8s %-5s %s" % (be, st[be]["status"], st[be]["last_change_reason"]))
            for be in ("none", "ca", "crt", "status"):
                self.assertEqual(st[be]["status"], "UP", be)
                self.assertEqual(st[be]["check_failures"], 0, be)
            self.assertRegex(st["wrongca"]["last_change_reason"],
                             r"^Layer6 invalid response: TLS error: .*certificate")
            self.assertEqual(st["nocrt"]["last_change_reason"], "Layer7 wrong status: 401")
            self.assertRegex(lb.log_text(), r"server wrongca/a is DOWN: Layer6 invalid "
                             r"response: TLS error: .*certificate")
            self.assertIn("server nocrt/a is DOWN: Layer7 wrong status: 401", lb.log_text())

            step("the client's view through each frontend")
            self.assertEqual(self.reach(t, api, "none"), (200, "s1"))
            self.assertEqual(self.reach(t, api, "ca"), (200, "s1"))
            self.assertIsNone(self.reach(t, api, "wrongca"))
            # the client has no certificate: s2 answers it 401, but answers
            self.assertEqual(self.reach(t, api, "crt"), (401, "s2"))
            self.assertIsNone(self.reach(t, api, "nocrt"))
            self.assertEqual(self.reach(t, api, "status"), (200, "s3"))

            step("s3's /readyz turns 500")
            api.set_failing(s3, True)
            took = lb.wait_status("status", "a", "DOWN", timeout=5)
            reason = lb.server("status", "a")["last_change_reason"]
            step("DOWN after %.2fs: %s" % (took, reason))
            self.assertEqual(reason, "Layer7 wrong status: 500")
            self.assertIn("server status/a is DOWN: Layer7 wrong status: 500", lb.log_text())
            self.assertIsNone(self.reach(t, api, "status"))
            self.assertEqual(s3.curl("https://%s:6443/livez" % s3.v4, cacert=api.ca).status,
                             200, "s3 itself is still alive: only /readyz fails")

            step("s3's /readyz back to 200")
            api.set_failing(s3, False)
            took = lb.wait_status("status", "a", "UP", timeout=5)
            step("UP after %.2fs: %s" % (took, lb.server("status", "a")["last_change_reason"]))
            self.assertRegex(lb.server("status", "a")["last_change_reason"],
                             r"^Layer7 check passed")
            self.assertEqual(self.reach(t, api, "status"), (200, "s3"))
            # the others did not move meanwhile
            for be, want in (("none", "UP"), ("ca", "UP"), ("crt", "UP"),
                             ("wrongca", "DOWN"), ("nocrt", "DOWN")):
                self.assertEqual(lb.status(be, "a"), want, be)


def main():
    lbd.require()
    return util.run_tests()


if __name__ == "__main__":
    sys.exit(main())
