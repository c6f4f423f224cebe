#!/usr/bin/env python3
"""Unit tests of cphalab.worker's own logic against a faked worker host:
the request it sends, how it reads the apiserver's answers (curl's output),
when it stops waiting for a certificate, and what it takes from
`cpha token create`'s output. No root, no namespaces, no apiserver."""

import base64
import json
import os
import subprocess
import sys
import tempfile
import unittest
from unittest import mock

sys.dont_write_bytecode = True

from cphalab import worker  # noqa: E402

SECRET = """apiVersion: v1
kind: Secret
metadata:
  name: "bootstrap-token-07401b"
  namespace: kube-system
type: bootstrap.kubernetes.io/token
stringData:
  token-id: "07401b"
  token-secret: "f395accd246ae52d"
  usage-bootstrap-authentication: "true"
"""


class FakeHost:
    """Answers curl with the next (body, status) and keeps the argv."""

    def __init__(self, answers):
        self.answers = list(answers)
        self.calls = []

    def run(self, argv, check=True, timeout=60, input=None):
        self.calls.append((argv, input))
        body, status = self.answers.pop(0)
        out = (json.dumps(body) if isinstance(body, dict) else body) + "\n%s" % status
        return subprocess.CompletedProcess(argv, 0 if status else 7, out,
                                           "" if status else "curl: (7) refused")


class TestWorker(unittest.TestCase):
    def test_csr_body(self):
        b = worker.csr_body("-----BEGIN CERTIFICATE REQUEST-----\nX\n")
        self.assertEqual(b["kind"], "CertificateSigningRequest")
        self.assertEqual(b["spec"]["signerName"],
                         "kubernetes.io/kube-apiserver-client-kubelet")
        self.assertEqual(b["spec"]["usages"], ["digital signature", "client auth"])
        self.assertEqual(base64.b64decode(b["spec"]["request"]).decode(),
                         "-----BEGIN CERTIFICATE REQUEST-----\nX\n")
        self.assertEqual(b["metadata"], {"generateName": "csr-"})

    def test_api_call(self):
        h = FakeHost([({"kind": "Status"}, 401), ("", 0), ("not json", 200)])
        api = worker.Api(h, "https://kubernetes:6443/", "/ca.pem", via="198.18.0.2")
        self.assertEqual(api.call("POST", "/x", {"a": 1}, token="t"), (401, {"kind": "Status"}))
        argv, data = h.calls[0]
        self.assertIn("kubernetes:6443:198.18.0.2", argv)
        self.assertIn("Authorization: Bearer t", argv)
        self.assertEqual(argv[-1], "https://kubernetes:6443/x")
        self.assertEqual(json.loads(data), {"a": 1})
        self.assertEqual(api.call("GET", "/y")[0], 0)  # curl failed
        self.assertEqual(api.call("GET", "/z"), (200, "not json"))
        self.assertNotIn("--data-binary", h.calls[2][0])

    def test_wait_certificate(self):
        cert = base64.b64encode(b"PEM").decode()
        h = FakeHost([({"status": {}}, 200), ("", 0),
                      ({"status": {"conditions": [{"type": "Approved"}]}}, 200),
                      ({"status": {"conditions": [{"type": "Approved"}],
                                   "certificate": cert}}, 200)])
        api = worker.Api(h, "https://k:6443", "/ca.pem")
        with mock.patch.object(worker.time, "sleep"):
            self.assertEqual(worker.wait_certificate(api, "t", "csr-x", timeout=30), "PEM")
        h = FakeHost([({"status": {"conditions": [{"type": "Denied"}]}}, 200)])
        with self.assertRaisesRegex(worker.JoinError, "Denied"):
            worker.wait_certificate(worker.Api(h, "https://k:6443", "/ca.pem"), "t", "c")
        h = FakeHost([({"status": {}}, 200)] * 3)
        clock = iter([0.0, 0.0, 1.0, 2.0, 99.0, 99.0])
        with mock.patch.object(worker.time, "monotonic", lambda: next(clock)), \
                mock.patch.object(worker.time, "sleep"):
            with self.assertRaisesRegex(worker.JoinError, "no certificate within 5s"):
                worker.wait_certificate(worker.Api(h, "https://k:6443", "/ca.pem"), "t",
                                        "c", timeout=5)

    def test_create_token(self):
        ok = subprocess.CompletedProcess([], 0, SECRET, "")
        with mock.patch.object(worker.subprocess, "run", return_value=ok) as run:
            token, text = worker.create_token(["cpha", "-f", "c.yaml"], "pki", "b.conf",
                                              ttl="2h", description="w0")
        self.assertEqual(token, "07401b.f395accd246ae52d")
        self.assertEqual(text, SECRET)
        argv = run.call_args[0][0]
        self.assertEqual(argv[:5], ["cpha", "-f", "c.yaml", "token", "create"])
        self.assertEqual(argv[argv.index("--ttl") + 1], "2h")
        self.assertEqual(argv[argv.index("--description") + 1], "w0")
        bad = subprocess.CompletedProcess([], 1, "", "cpha token: pki/ca.pem: No such file")
        with mock.patch.object(worker.subprocess, "run", return_value=bad):
            with self.assertRaisesRegex(worker.JoinError, "No such file"):
                worker.create_token(["cpha"], "pki", "b.conf")
        odd = subprocess.CompletedProcess([], 0, SECRET.replace("07401b", "0740"), "")
        with mock.patch.object(worker.subprocess, "run", return_value=odd):
            with self.assertRaisesRegex(worker.JoinError, "no token"):
                worker.create_token(["cpha"], "pki", "b.conf")

    def test_ca_of_kubeconfig(self):
        with tempfile.TemporaryDirectory() as d:
            kc = os.path.join(d, "k.conf")
            with open(kc, "w") as f:
                f.write("clusters:\n- cluster:\n    certificate-authority-data: %s\n"
                        % base64.b64encode(b"CA PEM").decode())
            out = worker.ca_of_kubeconfig(kc, os.path.join(d, "ca.pem"))
            with open(out, "rb") as f:
                self.assertEqual(f.read(), b"CA PEM")
            with open(kc, "w") as f:
                f.write("clusters: []\n")
            with self.assertRaises(worker.JoinError):
                worker.ca_of_kubeconfig(kc, os.path.join(d, "ca.pem"))


class KubectlHost:
    """Answers kubectl with the next (exit, stderr)."""

    def __init__(self, answers):
        self.answers = list(answers)
        self.calls = 0

    def run(self, argv, check=True, timeout=60, input=None):
        self.calls += 1
        rc, err = self.answers.pop(0)
        return subprocess.CompletedProcess(argv, rc, "applied" if rc == 0 else "", err)


class TestKubectlApply(unittest.TestCase):
    """An apply whose connection was lost (the VIP moving under it, as when
    a preferred LB host takes the VIP back just after `cpha lab up` found
    the lab settled) is made again; a refusal is not."""

    RESET = ("error: error when creating \"STDIN\": unexpected error when reading "
             "response body. Please retry. Original error: read tcp "
             "198.18.0.11:52810->198.18.0.2:6443: read: connection reset by peer")

    def test_retried_after_reset(self):
        h = KubectlHost([(1, self.RESET), (1, self.RESET), (0, "")])
        with mock.patch.object(worker.time, "sleep"):
            self.assertEqual(worker.kubectl_apply(h, "/k", "x", "rbac"), "applied")
        self.assertEqual(h.calls, 3)

    def test_refusal_not_retried(self):
        h = KubectlHost([(1, 'Error from server (Forbidden): "x" is forbidden')])
        with mock.patch.object(worker.time, "sleep"):
            with self.assertRaisesRegex(worker.JoinError, "Forbidden"):
                worker.kubectl_apply(h, "/k", "x", "rbac")
        self.assertEqual(h.calls, 1)

    def test_bounded(self):
        h = KubectlHost([(1, self.RESET)] * worker.APPLY_TRIES)
        with mock.patch.object(worker.time, "sleep"):
            with self.assertRaisesRegex(worker.JoinError, "connection reset"):
                worker.kubectl_apply(h, "/k", "x", "rbac")
        self.assertEqual(h.calls, worker.APPLY_TRIES)


if __name__ == "__main__":
    unittest.main()
