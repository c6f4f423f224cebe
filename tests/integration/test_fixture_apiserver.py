#!/usr/bin/env python3
"""The kube-apiserver stand-in against a real (TLS) etcd in one lab host.

Readiness follows etcd, Leases compare-and-swap on etcd revisions, watch
streams, graceful SIGTERM; plus the kube-scheduler stand-in's election and
the kubeconfig reader. Exit 0 pass, 77 skip (not root), else fail.
    sudo python3 tests/integration/test_fixture_apiserver.py [-k name]
"""

import base64
import json
import os
import re
import shutil
import signal
import sys
import tempfile
import time
import unittest

sys.dont_write_bytecode = True

import cphatest  # noqa: E402
import kubeconfig  # noqa: E402  (the stand-ins' reader, tested directly)
import kubefixture  # noqa: E402  (the version the stand-ins play by default)
from cphatest import etcd, kube, step  # noqa: E402

# This file tests the stand-ins themselves, never real binaries.
os.environ.pop("CPHA_KUBE_BINDIR", None)

IP = "198.18.0.11"
SILENT_PORT = 2391
# an etcd member that reads a request and never answers (a stall after
# the request arrived): argv cert key address port
SILENT_MEMBER = """
import socket, ssl, sys, threading
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
ctx.load_cert_chain(sys.argv[1], sys.argv[2])
srv = socket.create_server((sys.argv[3], int(sys.argv[4])))
print("listening", flush=True)
held = []
def serve(c):
    try:
        t = ctx.wrap_socket(c, server_side=True)
        data = t.recv(65536)
        print("request", data.split(b" ")[:2], flush=True)
        held.append(t)
    except OSError as e:
        print("error", e, flush=True)
while True:
    c, _ = srv.accept()
    threading.Thread(target=serve, args=(c,), daemon=True).start()
"""
API = "https://%s:6443" % IP
LEASES = API + "/apis/coordination.k8s.io/v1/namespaces/default/leases"

# As `kubectl config view --raw` writes it (kubectl 1.29), with a comment and
# quoting added to exercise the reader.
KUBECTL_LAYOUT = """\
apiVersion: v1
clusters:
- cluster:
    certificate-authority-data: %(ca)s
    server: https://198.18.0.11:6443
  name: kubernetes
- cluster:
    insecure-skip-tls-verify: true
    server: "https://[2001:db8::11]:6443"
  name: 'v6 # not a comment'
contexts:
- context:
    cluster: kubernetes
    user: system:kube-scheduler
  name: system:kube-scheduler@kubernetes
- context:
    cluster: 'v6 # not a comment'
    user: other
  name: other
current-context: system:kube-scheduler@kubernetes   # comment
kind: Config
preferences: {}
users:
- name: system:kube-scheduler
  user:
    client-certificate: pki/scheduler.crt
    client-key: /abs/scheduler.key
- name: other
  user:
    client-certificate-data: %(crt)s
    client-key-data: %(key)s
"""


class KubeconfigReaderTest(unittest.TestCase):
    """Pure: no root needed."""

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="cpha-kubeconfig-")
        self.path = os.path.join(self.dir, "kubeconfig")
        def enc(s):
            return base64.b64encode(s.encode()).decode()
        with open(self.path, "w") as f:
            f.write(KUBECTL_LAYOUT % {"ca": enc("CA-PEM\n"), "crt": enc("CRT"),
                                      "key": enc("KEY")})

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def test_current_context(self):
        cfg = kubeconfig.load_kubeconfig(self.path)
        self.assertEqual(cfg.server, "https://198.18.0.11:6443")
        self.assertEqual(cfg.ca_data, "CA-PEM\n")
        self.assertEqual(cfg.cert_file, os.path.join(self.dir, "pki/scheduler.crt"))
        self.assertEqual(cfg.key_file, "/abs/scheduler.key")
        self.assertFalse(cfg.insecure)

    def test_other_context_and_data(self):
        cfg = kubeconfig.load_kubeconfig(self.path, context="other",
                                         master="https://198.18.0.12:6443")
        self.assertEqual(cfg.server, "https://198.18.0.12:6443")
        self.assertTrue(cfg.insecure)
        self.assertEqual((cfg.cert_data, cfg.key_data), (b"CRT", b"KEY"))
        with open(self.path) as f:
            doc = kubeconfig.load_yaml(f.read())
        self.assertEqual(doc["clusters"][1]["name"], "v6 # not a comment")
        self.assertEqual(doc["preferences"], {})

    def test_errors(self):
        with self.assertRaises(kubeconfig.KubeconfigError):
            kubeconfig.load_kubeconfig(self.path, context="missing")
        for bad in ("a: |\n  x\n", "a: 1\na: 2\n", "a:\n\tb: 1\n", "a: &x 1\n"):
            with self.assertRaises(kubeconfig.YamlError, msg=bad):
                kubeconfig.load_yaml(bad)


def klog_time(line):
    """Seconds of day of a klog line (I1121 10:00:00.123456 ...)."""
    m = re.match(r"^[IWEF]\d{4} (\d\d):(\d\d):(\d\d\.\d+) ", line)
    return int(m.group(1)) * 3600 + int(m.group(2)) * 60 + float(m.group(3))


def log_line(text, needle):
    for line in text.splitlines():
        if needle in line:
            return line
    raise AssertionError("log has no line with %r:\n%s" % (needle, text[-3000:]))


class Bed:
    """One host m0 with a CA, an etcd member (not started) and certificates."""

    def __init__(self, lab):
        self.lab = lab
        self.m0 = lab.add_host("m0", v4=IP + "/24", v6="2001:db8::11/64")
        self.pki = cphatest.Pki(lab.path("pki", "ca"))
        members, self.etcd_tls = etcd.make_cluster(lab, self.pki, [self.m0])
        self.etcd = members[0]
        self.cert, self.key = kube.apiserver_cert(self.pki, self.m0)
        self.admin = self.pki.issue("admin", "kubernetes-admin", client=True,
                                    org="system:masters")
        self.ca = self.pki.ca_cert

    def start_etcd(self):
        self.etcd.start()
        etcd.wait_healthy([self.etcd], self.etcd_tls, timeout=30)

    def apiserver(self, extra=()):
        return kube.start_apiserver(self.m0, [self.etcd.client_url], self.cert,
                                    self.key, self.ca, self.etcd_tls, extra)

    def get(self, path, auth=True, **kw):
        if auth:
            kw.update(cert=self.admin[0], key=self.admin[1])
        return self.m0.curl(path if path.startswith("https:") else API + path,
                            cacert=self.ca, **kw)


class ApiserverFixtureTest(unittest.TestCase):

    def test_readiness_leases_watch(self):
        with cphatest.Lab("fixture-apiserver") as lab:
            b = Bed(lab)
            step("apiserver stand-in starts before etcd")
            ap = b.apiserver()
            cphatest.wait_until(lambda: b.get("/livez", auth=False).status == 200, 10,
                                0.1, "/livez 200 without etcd")
            r = b.get("/readyz", auth=False)
            self.assertEqual(r.status, 500, r)
            self.assertIn("[-]etcd failed: reason withheld", r.body)
            self.assertIn("readyz check failed", r.body)
            self.assertEqual(b.get("/healthz", auth=False).status, 500)
            t = kubefixture.read_table()
            self.assertEqual(b.get("/version", auth=False).json()["gitVersion"],
                             "v1.%d.%d" % (t["default"], t["minors"][t["default"]][1]))
            r = b.get("/apis/nothing/here")
            self.assertEqual((r.status, r.json()["kind"], r.json()["reason"]),
                             (404, "Status", "NotFound"))
            self.assertNotIn("unknown flag", ap.log_text())

            step("etcd starts: /readyz turns 200")
            b.start_etcd()
            t0 = time.monotonic()
            kube.wait_ready(b.m0, API, b.ca, ap, timeout=5)
            step("ready %.2fs after etcd was healthy" % (time.monotonic() - t0))
            self.assertEqual(b.get("/healthz", auth=False).body, "ok")

            step("leases: anonymous 403, create, conflict, CAS update")
            self.assertEqual(b.get(LEASES + "/l1", auth=False).status, 403)
            self.assertEqual(b.get(LEASES + "/l1").status, 404)
            lease = {"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
                     "metadata": {"name": "l1", "namespace": "default"},
                     "spec": {"holderIdentity": "a", "leaseDurationSeconds": 15}}
            r = b.get(LEASES, method="POST", data=lease)
            self.assertEqual(r.status, 201, r)
            rv1 = r.json()["metadata"]["resourceVersion"]
            self.assertEqual(b.get(LEASES, method="POST", data=lease).json()["reason"],
                             "AlreadyExists")
            got = b.get(LEASES + "/l1").json()
            self.assertEqual((got["kind"], got["metadata"]["resourceVersion"],
                              got["spec"]["holderIdentity"]), ("Lease", rv1, "a"))
            got["spec"]["holderIdentity"] = "b"
            r = b.get(LEASES + "/l1", method="PUT", data=got)
            self.assertEqual(r.status, 200, r)
            rv2 = r.json()["metadata"]["resourceVersion"]
            self.assertGreater(int(rv2), int(rv1))
            got["spec"]["holderIdentity"] = "c"  # still carries rv1: stale
            r = b.get(LEASES + "/l1", method="PUT", data=got)
            self.assertEqual((r.status, r.json().get("reason")), (409, "Conflict"), r)
            got["metadata"]["name"] = "absent"
            self.assertEqual(b.get(LEASES + "/absent", method="PUT", data=got).status, 404)
            stored, mod = etcd.kv_get_json(b.m0, b.etcd.client_url,
                                           "/registry/leases/default/l1", b.etcd_tls)
            self.assertEqual((stored["spec"]["holderIdentity"], str(mod)), ("b", rv2))

            step("watch stream delivers events")
            r = b.get("/api/v1/namespaces/default/events?watch=true", timeout=3.5,
                      extra=["-N", "-i"])
            head, _, body = r.body.partition("\n\n")
            self.assertRegex(head, r"(?im)^transfer-encoding: chunked")
            events = [json.loads(x) for x in body.splitlines() if x.startswith("{")]
            self.assertGreaterEqual(len(events), 2, r)
            self.assertEqual({e["type"] for e in events}, {"ADDED"})
            self.assertEqual(len({e["object"]["metadata"]["name"] for e in events}),
                             len(events))

            step("etcd stops: /readyz 500, lease GET 503")
            # etcd re-raises SIGTERM after its clean shutdown: -15, not 0.
            self.assertIn(b.etcd.stop(), (0, -signal.SIGTERM))
            cphatest.wait_until(lambda: b.get("/readyz", auth=False).status == 500, 5,
                                0.1, "/readyz 500 after etcd stopped")
            self.assertEqual(b.get("/livez", auth=False).status, 200)
            self.assertEqual(b.get(LEASES + "/l1").status, 503)

            step("etcd restarts: /readyz 200 again, lease kept")
            b.start_etcd()
            kube.wait_ready(b.m0, API, b.ca, ap, timeout=5)
            got = b.get(LEASES + "/l1").json()
            self.assertEqual((got["metadata"]["resourceVersion"],
                              got["spec"]["holderIdentity"]), (rv2, "b"))
            self.assertTrue(ap.running())

    def test_write_to_a_silent_member(self):
        """A write sent to a member that never answers may have been applied
        there: 504 (outcome unknown), not a retry on the next member, which
        would fail the txn's compare and answer a definite 409 for a write
        that happened. The next request starts at the next member; a read
        goes on to it at once."""
        with cphatest.Lab("fixture-apiserver-silent") as lab:
            b = Bed(lab)
            b.start_etcd()
            step("a member that takes the request over TLS and never answers")
            silent = b.m0.spawn(["python3", "-c", SILENT_MEMBER, b.etcd.cert, b.etcd.key,
                                 IP, str(SILENT_PORT)], name="silent-etcd")
            cphatest.wait_until(lambda: "listening" in silent.log_text(), 10, 0.1,
                                "the silent member to listen")
            ap = kube.start_apiserver(b.m0, ["https://%s:%d" % (IP, SILENT_PORT),
                                             b.etcd.client_url],
                                      b.cert, b.key, b.ca, b.etcd_tls)
            kube.wait_ready(b.m0, API, b.ca, ap, timeout=10)
            lease = {"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
                     "metadata": {"name": "s1", "namespace": "default"},
                     "spec": {"holderIdentity": "a", "leaseDurationSeconds": 15}}
            step("a create: the silent member takes it first")
            r = b.get(LEASES, method="POST", data=lease, timeout=10)
            self.assertEqual((r.status, r.json().get("reason")), (504, "Timeout"), r)
            self.assertIn("request", silent.log_text())
            self.assertEqual(etcd.kv_get_json(b.m0, b.etcd.client_url,
                                              "/registry/leases/default/s1", b.etcd_tls)[0],
                             None, "the write was retried on the other member")
            step("the next request goes to the next member")
            r = b.get(LEASES, method="POST", data=lease, timeout=10)
            self.assertEqual(r.status, 201, r)
            self.assertEqual(b.get(LEASES + "/s1", timeout=10).status, 200)
            self.assertTrue(ap.running())

    def test_sigterm_graceful(self):
        with cphatest.Lab("fixture-apiserver-term") as lab:
            b = Bed(lab)
            b.start_etcd()
            ap = b.apiserver(["--shutdown-delay-duration=2s"])
            kube.wait_ready(b.m0, API, b.ca, ap, timeout=10)
            watch = b.m0.spawn(["curl", "-sS", "-N", "--noproxy", "*", "--max-time", "20",
                                "--cacert", b.ca, "--cert", b.admin[0], "--key",
                                b.admin[1], LEASES + "?watch=1"], name="watch-client")
            cphatest.wait_until(lambda: '"ADDED"' in watch.log_text(), 5, 0.1,
                                "first watch event")

            step("SIGTERM with --shutdown-delay-duration=2s")
            t0 = time.monotonic()
            ap.kill(signal.SIGTERM)
            r = b.get("/readyz", auth=False)
            t_ready = time.monotonic() - t0
            self.assertEqual(r.status, 500, r)
            self.assertIn("[-]shutdown failed", r.body)
            self.assertLess(t_ready, 1.0)
            self.assertEqual(b.get("/livez", auth=False).status, 200)
            self.assertEqual(b.get("/healthz", auth=False).status, 200)
            time.sleep(max(0.0, 1.2 - (time.monotonic() - t0)))
            r = b.get("/livez", auth=False)
            self.assertEqual(r.status, 200, "still serving 1.2s into the delay")
            self.assertEqual(b.get(LEASES).status, 200)
            self.assertEqual(b.get("/readyz", auth=False).status, 500)

            rc = ap.wait(timeout=12)
            t_exit = time.monotonic() - t0
            step("exited %s after %.2fs" % (rc, t_exit))
            self.assertEqual(rc, 0)
            self.assertGreaterEqual(t_exit, 2.0)
            self.assertLess(t_exit, 8.0)
            r = b.get("/livez", auth=False)
            self.assertEqual((r.status, r.rc), (0, cphatest.curl.CURL_CONNECT_FAILED), r)
            self.assertEqual(watch.wait(timeout=5), 0, "watch ended by the server, cleanly")
            self.assertGreaterEqual(watch.log_text().count('"ADDED"'), 2)

            log = ap.log_text()
            steps = ['name="ShutdownInitiated"', 'name="AfterShutdownDelayDuration"',
                     'name="NotAcceptingNewRequest"', "ending 1 open watch stream",
                     "apiserver is exiting"]
            lines = [log_line(log, s) for s in steps]
            self.assertEqual([log.index(x) for x in lines],
                             sorted(log.index(x) for x in lines), "shutdown steps in order")
            delay = (klog_time(lines[1]) - klog_time(lines[0])) % 86400
            self.assertGreaterEqual(delay, 1.95)

    def test_scheduler_election_and_flags(self):
        with cphatest.Lab("fixture-scheduler") as lab:
            b = Bed(lab)
            step("apiserver without --tls-cert-file exits 1")
            r = b.m0.run([kube.binary("kube-apiserver"), "--etcd-servers=" +
                          b.etcd.client_url], timeout=20, check=False)
            self.assertEqual(r.returncode, 1, r.stderr)
            self.assertIn("tls-cert-file", r.stderr)
            r = b.m0.run([kube.binary("kube-scheduler"), "--leader-elect",
                          "--leader-elect-retry-period=x"], timeout=20, check=False)
            self.assertEqual(r.returncode, 1, r.stderr)
            step("a flag the version lacks: refused as kube refuses it")
            r = b.m0.run(kube.scheduler_argv("/nonexistent", extra=["--bogus"]), timeout=20,
                         check=False)
            self.assertEqual(r.returncode, 1, r.stderr)
            self.assertIn("Error: unknown flag: --bogus", r.stderr)

            b.start_etcd()
            ap = b.apiserver()
            kube.wait_ready(b.m0, API, b.ca, ap, timeout=10)
            cert, key = b.pki.issue("scheduler", "system:kube-scheduler", client=True)
            kc = kube.write_kubeconfig(lab.path("scheduler.kubeconfig"), API,
                                       "system:kube-scheduler", b.ca, cert, key, embed=True)
            step("kube-scheduler stand-in (self-signed serving cert) takes the lease")
            sch = b.m0.spawn(kube.scheduler_argv(kc), name="kube-scheduler")
            cphatest.wait_until(
                lambda: kube.logged_acquire(sch, "kube-system", "kube-scheduler"), 10,
                0.1, "kube-scheduler to acquire its lease")
            ident = kube.logged_identity(sch)
            lease = kube.get_lease(b.m0, API, "kube-system", "kube-scheduler", b.ca,
                                   *b.admin)
            self.assertEqual(lease["spec"]["holderIdentity"], ident)
            self.assertEqual(lease["spec"]["leaseDurationSeconds"], 4)
            time.sleep(1.5)  # renewals happen every retry period (1s)
            later = kube.get_lease(b.m0, API, "kube-system", "kube-scheduler", b.ca,
                                   *b.admin)
            self.assertGreater(kube.parse_microtime(later["spec"]["renewTime"]),
                               kube.parse_microtime(lease["spec"]["renewTime"]))
            self.assertEqual(later["spec"]["acquireTime"], lease["spec"]["acquireTime"])
            for path in ("/healthz", "/livez", "/readyz"):
                r = b.m0.curl("https://%s:10259%s" % (IP, path), insecure=True)
                self.assertEqual((r.status, r.body), (200, "ok"), path)
            r = b.m0.curl("https://%s:10259/healthz" % IP, cacert=b.ca)
            self.assertEqual(r.rc, cphatest.curl.CURL_PEER_VERIFY, "self-signed, not our CA")

            step("/metrics: leader_election_master_status, 1 on the leader, 0 on a "
                 "candidate, 1 on the candidate once it has the lease")
            gauge = 'leader_election_master_status{name="kube-scheduler"} %d'

            def metrics(port):
                r = b.m0.curl("https://%s:%d/metrics" % (IP, port), insecure=True)
                self.assertEqual(r.status, 200, r)
                self.assertIn("# TYPE leader_election_master_status gauge", r.body)
                return r.body
            self.assertIn(gauge % 1, metrics(10259))
            second = b.m0.spawn(kube.scheduler_argv(kc, extra=["--secure-port=10261"]),
                                name="kube-scheduler-2")
            cphatest.wait_until(lambda: "attempting to acquire leader lease"
                                in second.log_text(), 10, 0.1, "the second to try")
            time.sleep(1.5)  # a retry period or more: it stays a candidate
            self.assertIn(gauge % 0, metrics(10261))
            self.assertIn(gauge % 1, metrics(10259))
            step("SIGTERM: exit 0 promptly")
            sch.kill(signal.SIGTERM)
            self.assertEqual(sch.wait(timeout=3), 0)
            cphatest.wait_until(
                lambda: kube.logged_acquire(second, "kube-system", "kube-scheduler"), 10,
                0.1, "the second to acquire the lease")
            self.assertIn(gauge % 1, metrics(10261))
            second.kill(signal.SIGTERM)
            self.assertEqual(second.wait(timeout=3), 0)


def main():
    reason = cphatest.root_skip_reason()
    loader = unittest.TestLoader()
    suite = loader.loadTestsFromTestCase(KubeconfigReaderTest)
    if reason is None:
        suite.addTests(loader.loadTestsFromTestCase(ApiserverFixtureTest))
    if len(sys.argv) > 2 and sys.argv[1] == "-k":
        suite = unittest.TestSuite(t for t in suite if sys.argv[2] in t.id())
    try:
        result = unittest.TextTestRunner(verbosity=2, stream=sys.stdout).run(suite)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return cphatest.interrupted_status()
    if not result.wasSuccessful():
        return 1
    if reason is not None:
        print("SKIP: %s (namespace tests)" % reason)
        return cphatest.SKIP
    return 0


if __name__ == "__main__":
    sys.exit(main())
