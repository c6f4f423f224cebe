#!/usr/bin/env python3
"""A worker joins a two-master control plane with a bootstrap token.

m0 and m1 (198.18.0.11-12) each run a real etcd member and a kube-apiserver
stand-in (--enable-bootstrap-token-auth=true) with the certificates `cpha
pki` made from a description of this cluster; the VIP 198.18.0.2 is an
address of m0 (no vipd: the address is all a worker sees of it). m0 runs a
kube-controller-manager stand-in that approves node-client requests and
signs them with the cluster CA (--cluster-signing-cert-file/-key-file).
The rendered cluster/bootstrap-rbac.yaml is applied with the real kubectl
and the super-admin credentials, as the runbook says (the stand-in stores
the bindings; it does not evaluate them). Then cphalab.worker.join_worker
on w0 (198.18.0.31): `cpha token create`, the Secret stored with kubectl
and super-admin (on m1), a CSR POSTed with the token through the VIP, the
certificate awaited, then used: the worker must be system:node:worker0 in
system:nodes.
Then the negatives: the token cannot read Secrets (403); requests for
another subject (O system:masters, a CN that is no node) are left pending
and unsigned; an unknown token and an expired one get 401 and leave no
certificate request behind; the token cleaner removes the expired token's
Secret.
Exit 0 pass, 77 skip (not root, or no kubectl), 1 fail.
    sudo python3 tests/integration/test_worker_join.py
"""

import base64
import os
import shutil
import subprocess
import sys
import time

sys.dont_write_bytecode = True

import cphatest  # noqa: E402
from cphatest import cphacmd, etcd, kube, step  # noqa: E402
from cphalab import worker as wk  # noqa: E402

VIP = "198.18.0.2"
DESCRIPTION = """\
cluster: {name: join}
api: {name: kubernetes, vip: %s/24}
kubernetes: {service_cidr: 198.18.128.0/24}
masters:
  - {name: m0, address: 198.18.0.11}
  - {name: m1, address: 198.18.0.12}
components: {manager: systemd}
""" % VIP
CSRS = "/apis/certificates.k8s.io/v1/certificatesigningrequests"


def check(cond, msg):
    if not cond:
        raise AssertionError(msg)


def csr_names(api, admin_cred):
    status, obj = api.call("GET", CSRS, **admin_cred)
    check(status == 200, "list CSRs as admin: %s %s" % (status, obj))
    return sorted(i["metadata"]["name"] for i in obj.get("items") or [])


def run(lab):
    masters = [lab.add_host("m%d" % i, v4="198.18.0.%d/24" % (11 + i)) for i in range(2)]
    w0 = lab.add_host("w0", v4="198.18.0.31/24")
    masters[0].run(["ip", "addr", "add", VIP + "/24", "dev", "eth0"])

    step("cpha pki from the cluster's description")
    desc = lab.path("cluster.yaml")
    with open(desc, "w") as f:
        f.write(DESCRIPTION)
    pki = lab.path("pki")
    cpha = [cphacmd.binary(), "-f", desc]
    r = subprocess.run(cpha + ["pki", "--dir", pki], capture_output=True, text=True,
                       timeout=120)
    check(r.returncode == 0, "cpha pki: %s%s" % (r.stdout, r.stderr))
    ca = os.path.join(pki, "ca.pem")

    step("etcd on m0, m1; apiserver stand-ins with bootstrap token authentication")
    epki = cphatest.Pki(lab.path("etcd-pki", "ca"))
    members, etls = etcd.make_cluster(lab, epki, masters)
    for m in members:
        m.start()
    etcd.wait_healthy(members, etls, timeout=40)
    aps = []
    for h in masters:
        aps.append(kube.start_apiserver(
            h, [m.client_url for m in members], os.path.join(pki, "apiserver.pem"),
            os.path.join(pki, "apiserver-key.pem"), ca, etls,
            extra=["--enable-bootstrap-token-auth=true"]))
    for h, ap in zip(masters, aps):
        kube.wait_ready(h, "https://%s:6443" % h.v4, ca, ap, timeout=20)

    step("kube-controller-manager on m0: signs with the cluster CA")
    kc = kube.write_kubeconfig(lab.path("kcm.kubeconfig"), "https://%s:6443" % masters[0].v4,
                               "system:kube-controller-manager", ca,
                               os.path.join(pki, "controller-manager.pem"),
                               os.path.join(pki, "controller-manager-key.pem"))
    kcm = masters[0].spawn(kube.controller_manager_argv(
        kc, ca, os.path.join(pki, "sa.key"), extra=[
            "--cluster-signing-cert-file=%s" % ca,
            "--cluster-signing-key-file=%s" % os.path.join(pki, "ca-key.pem"),
            "--controllers=*,bootstrapsigner,tokencleaner"]), name="kube-controller-manager")
    cphatest.wait_until(lambda: "Started controllers" in kcm.log_text(), 15, 0.1,
                        "the controller-manager to lead and start its controllers")

    step("the rendered bootstrap-rbac.yaml applied with kubectl and super-admin (on m1)")
    out = lab.path("render")
    r = subprocess.run(cpha + ["render", "--out", out, "--no-check", "--allow-even"],
                       capture_output=True, text=True, timeout=120)
    check(r.returncode == 0, "cpha render: %s%s" % (r.stdout, r.stderr))
    superadmin = kube.write_kubeconfig(
        lab.path("super-admin.conf"), "https://%s:6443" % VIP, "super-admin", ca,
        os.path.join(pki, "super-admin.pem"), os.path.join(pki, "super-admin-key.pem"))
    cache = lab.path("kube-cache")
    said = wk.apply_bootstrap_rbac(masters[1], superadmin,
                                   os.path.join(out, "cluster", "bootstrap-rbac.yaml"),
                                   ["--cache-dir", cache])
    check(said.count("created") == 4, "four bindings created: %s" % said)

    step("join worker0 from w0 (token stored with kubectl on m1, CSR through the VIP)")
    t0 = time.monotonic()
    j = wk.join_worker(None, worker=w0, admin=masters[1], name="worker0", cpha=cpha, pki=pki,
                       workdir=lab.path("w0"), server="https://kubernetes:6443", via=VIP,
                       admin_kubeconfig=superadmin, admin_args=["--cache-dir", cache],
                       ttl="10m", timeout=20)
    step("joined in %.1fs: %s %s (request %s)" % (time.monotonic() - t0, j.user, j.groups,
                                                 j.csr))
    check(j.user == "system:node:worker0", "user %s" % j.user)
    check("system:nodes" in j.groups, "groups %s" % j.groups)

    admin = {"cert": os.path.join(pki, "admin.pem"), "key": os.path.join(pki, "admin-key.pem")}
    status, csr = j.api.call("GET", "%s/%s" % (CSRS, j.csr), **admin)
    check(status == 200, "GET the request as admin: %s" % status)
    spec = csr["spec"]
    check(spec["username"] == "system:bootstrap:" + j.token_id,
          "requested by the bootstrap user, not %s" % spec["username"])
    check(set(spec["groups"]) >= {"system:bootstrappers",
                                  "system:bootstrappers:cpha:default-node-token"},
          "bootstrap groups: %s" % spec["groups"])
    conds = csr["status"]["conditions"]
    check([(c["type"], c["reason"]) for c in conds] == [("Approved", "AutoApproved")],
          "approved by the controller: %s" % conds)
    r = subprocess.run(["openssl", "verify", "-CAfile", ca, j.cert], capture_output=True,
                       text=True)
    check(r.returncode == 0, "the certificate chains to ca.pem: %s" % r.stdout + r.stderr)
    r = subprocess.run(["openssl", "x509", "-in", j.cert, "-noout", "-subject", "-ext",
                        "extendedKeyUsage", "-nameopt", "RFC2253"], capture_output=True,
                       text=True)
    check("CN=system:node:worker0,O=system:nodes" in r.stdout and
          "TLS Web Client Authentication" in r.stdout, "the certificate: %s" % r.stdout)
    status, crbs = j.api.call("GET", "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings",
                              **admin)
    binds = {(b["roleRef"]["name"], b["subjects"][0]["name"]) for b in crbs["items"]}
    check(("system:node-bootstrapper", "system:bootstrappers:cpha:default-node-token")
          in binds and ("cluster-admin", "kubeadm:cluster-admins") in binds,
          "the bindings stored: %s" % binds)
    status, sec = j.api.call("GET", "/api/v1/namespaces/kube-system/secrets/bootstrap-token-"
                             + j.token_id, **admin)
    check(status == 200 and sec["type"] == "bootstrap.kubernetes.io/token"
          and base64.b64decode(sec["data"]["usage-bootstrap-authentication"]) == b"true",
          "the Secret kubectl stored: %s %s" % (status, sec))

    step("the bootstrap token is no admin: Secrets are forbidden to it")
    status, _ = j.api.call("GET", "/api/v1/namespaces/kube-system/secrets", token=j.token)
    check(status == 403, "bootstrap token listing Secrets: %s" % status)
    status, _ = j.api.call("GET", "/api/v1/namespaces/kube-system/secrets", cert=j.cert,
                           key=j.key)
    check(status == 403, "a node listing Secrets: %s" % status)

    step("a request for more than a node's identity is left pending, unsigned")
    os.makedirs(lab.path("w0-greedy"), exist_ok=True)
    greedy = []
    for subj in ("/O=system:masters/CN=system:node:worker0",
                 "/O=system:nodes/O=system:masters/CN=system:node:worker0",
                 "/O=system:nodes/CN=admin"):
        _, pem = wk.make_request(w0, lab.path("w0-greedy"), "worker0", subject=subj)
        status, obj = wk.post_csr(j.api, j.token, pem)
        check(status == 201, "the token may ask (%s): %s %s" % (subj, status, obj))
        greedy.append(obj["metadata"]["name"])
    time.sleep(2.0)  # four rounds of the approver
    for n in greedy:
        status, obj = j.api.call("GET", "%s/%s" % (CSRS, n), **admin)
        check(status == 200 and not obj["status"].get("conditions")
              and not obj["status"].get("certificate"),
              "request %s stays pending: %s" % (n, obj["status"]))

    step("an unknown token: 401, no request stored")
    before = csr_names(j.api, admin)
    os.makedirs(lab.path("w0-unknown"), exist_ok=True)
    _, pem = wk.make_request(w0, lab.path("w0-unknown"), "worker1")
    status, obj = wk.post_csr(j.api, "abcdef.0123456789abcdef", pem)
    check(status == 401, "unknown token: %s %s" % (status, obj))
    status, obj = wk.post_csr(j.api, j.token_id + ".0123456789abcdef", pem)
    check(status == 401, "known ID, wrong secret: %s %s" % (status, obj))
    check(csr_names(j.api, admin) == before, "no new request")

    step("an expired token: 401, no request stored, its Secret cleaned up")
    os.makedirs(lab.path("w0-expired"), exist_ok=True)
    token, secret = wk.create_token(cpha, pki, lab.path("w0-expired", "bootstrap.conf"),
                                    ttl="3s")
    wk.store_secret(masters[1], superadmin, secret, ["--cache-dir", cache])
    tid = token.split(".")[0]
    status, user, _ = wk.whoami(j.api, token=token)
    check(status == 201 and user == "system:bootstrap:" + tid,
          "the fresh token works: %s %s" % (status, user))
    time.sleep(3.5)
    status, obj = wk.post_csr(j.api, token, pem)
    check(status == 401, "expired token: %s %s" % (status, obj))
    check(csr_names(j.api, admin) == before, "no new request")

    def cleaned():
        s, _ = j.api.call("GET", "/api/v1/namespaces/kube-system/secrets/bootstrap-token-"
                          + tid, **admin)
        return s == 404
    cphatest.wait_until(cleaned, 10, 0.2, "the token cleaner to delete the expired Secret")
    check(kcm.running() and all(a.running() for a in aps), "nothing died")


def main():
    cphatest.require_root()
    if not shutil.which("kubectl"):
        print("SKIP: no kubectl (the operator's tool that stores the token's Secret)")
        return 77
    return cphatest.main("worker-join", run)


if __name__ == "__main__":
    sys.exit(main())
