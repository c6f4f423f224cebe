"""A worker joins the cluster: what a kubelet does at TLS bootstrap.

docs/runbook.md, "Joining a worker", step by step with the tools an
operator and a worker have: `cpha token create` makes a bootstrap token,
its Secret and the worker's bootstrap kubeconfig; `kubectl apply` with the
break-glass super-admin.conf stores the Secret; the worker makes a key and
a certificate request (CN system:node:NAME, O system:nodes) with openssl,
POSTs it as a certificates.k8s.io/v1 CertificateSigningRequest with the
bootstrap token through the VIP (curl), waits for the controller-manager to
approve and sign it, and then talks to the apiserver as system:node:NAME.
https://kubernetes.io/docs/reference/access-authn-authz/kubelet-tls-bootstrapping/

Hosts are anything with run(argv, check=, timeout=, input=) returning a
text CompletedProcess (the lab's hosts, the integration tests' hosts); the
worker's files are in a directory both the caller and the worker see.
"""

import base64
import json
import os
import re
import subprocess
import time

CSRS = "/apis/certificates.k8s.io/v1/certificatesigningrequests"
WHOAMI = "/apis/authentication.k8s.io/v1/selfsubjectreviews"
SIGNER = "kubernetes.io/kube-apiserver-client-kubelet"


class JoinError(Exception):
    pass


class Api:
    """curl on the worker: https://NAME:PORT, optionally pinned to an address
    (the VIP) with --resolve, trusting ca."""

    def __init__(self, host, server, ca, via=None):
        self.host, self.server, self.ca = host, server.rstrip("/"), ca
        self.resolve = []
        if via:
            hostport = re.sub(r"^https://", "", self.server)
            self.resolve = ["--resolve", "%s:%s" % (hostport, via)]

    def call(self, method, path, body=None, token=None, cert=None, key=None, timeout=5):
        """(HTTP status, decoded JSON or text); status 0 when curl failed."""
        argv = ["curl", "-sS", "-m", str(timeout), "-X", method, "--cacert", self.ca,
                "-o", "-", "-w", "\n%{http_code}", "-H", "Accept: application/json"]
        argv += self.resolve
        if token:
            argv += ["-H", "Authorization: Bearer " + token]
        if cert:
            argv += ["--cert", cert, "--key", key]
        if body is not None:
            argv += ["-H", "Content-Type: application/json", "--data-binary", "@-"]
        r = self.host.run(argv + [self.server + path], check=False, timeout=timeout + 5,
                          input=json.dumps(body) if body is not None else None)
        text, _, code = r.stdout.rpartition("\n")
        try:
            status = int(code)
        except ValueError:
            return 0, (r.stderr or r.stdout).strip()
        try:
            return status, json.loads(text)
        except ValueError:
            return status, text


def create_token(cpha, pki, kubeconfig, ttl="1h", description=None):
    """`cpha token create`: (token, Secret YAML). cpha is the argv that runs
    cpha with its description (["cpha", "-f", "cluster.yaml"])."""
    argv = list(cpha) + ["token", "create", "--pki", pki, "--kubeconfig", kubeconfig,
                         "--ttl", ttl]
    if description:
        argv += ["--description", description]
    r = subprocess.run(argv, capture_output=True, text=True, timeout=60)
    if r.returncode != 0:
        raise JoinError("cpha token create: exit %d: %s" % (r.returncode, r.stderr.strip()))
    ids = re.findall(r'^  token-id: "([a-z0-9]{6})"$', r.stdout, re.M)
    secrets = re.findall(r'^  token-secret: "([a-z0-9]{16})"$', r.stdout, re.M)
    if len(ids) != 1 or len(secrets) != 1:
        raise JoinError("cpha token create: no token in its Secret:\n" + r.stdout)
    return "%s.%s" % (ids[0], secrets[0]), r.stdout


# kubectl's words for a request that met no server or lost its connection
# (the VIP moving, a load balancer reloading): an apply is idempotent, so
# it is made again, as kubectl itself says to
RETRYABLE = ("Please retry", "connection reset by peer", "connection refused",
             "Unable to connect to the server", "EOF")
APPLY_TRIES = 5


def kubectl_apply(admin, kubeconfig, text, what, extra=()):
    """kubectl apply -f - on the admin host: its output, or JoinError.
    --validate=false: kubectl validates against the server's OpenAPI
    document, which the stand-in apiserver does not serve (the server still
    refuses what it cannot take). A connection lost on the way is tried
    again, APPLY_TRIES times in all, 2 s apart."""
    for attempt in range(1, APPLY_TRIES + 1):
        r = admin.run(["kubectl", "--kubeconfig", kubeconfig] + list(extra)
                      + ["apply", "--validate=false", "-f", "-"], check=False, timeout=60,
                      input=text)
        if r.returncode == 0:
            return r.stdout.strip()
        said = (r.stderr or r.stdout).strip()
        if attempt == APPLY_TRIES or not any(w in said for w in RETRYABLE):
            raise JoinError("kubectl apply of %s: exit %d: %s" % (what, r.returncode, said))
        time.sleep(2)


def apply_bootstrap_rbac(admin, kubeconfig, rbac_yaml, extra=()):
    """The runbook's once-only step: the rendered cluster/bootstrap-rbac.yaml
    applied with the super-admin kubeconfig."""
    with open(rbac_yaml) as f:
        return kubectl_apply(admin, kubeconfig, f.read(), rbac_yaml, extra)


def store_secret(admin, kubeconfig, secret_yaml, extra=()):
    """The token's Secret, applied with the super-admin kubeconfig."""
    return kubectl_apply(admin, kubeconfig, secret_yaml, "the bootstrap token Secret", extra)


def ca_of_kubeconfig(path, out):
    """The CA embedded in a kubeconfig (certificate-authority-data) to out."""
    with open(path) as f:
        m = re.search(r"^    certificate-authority-data: (\S+)$", f.read(), re.M)
    if not m:
        raise JoinError("%s: no certificate-authority-data" % path)
    with open(out, "wb") as f:
        f.write(base64.b64decode(m.group(1)))
    return out


def make_request(worker, workdir, name, subject=None):
    """A new P-256 key and a CSR for system:node:NAME in system:nodes (or
    for subject, in openssl's /O=.../CN=... form): (key file, CSR PEM)."""
    key, csr = os.path.join(workdir, "kubelet-client-key.pem"), os.path.join(workdir,
                                                                             "kubelet.csr")
    r = worker.run(["openssl", "req", "-new", "-newkey", "ec", "-pkeyopt",
                    "ec_paramgen_curve:P-256", "-nodes", "-keyout", key, "-out", csr,
                    "-subj", subject or "/O=system:nodes/CN=system:node:%s" % name],
                   check=False,
                   timeout=30)
    if r.returncode != 0:
        raise JoinError("openssl req: %s" % r.stderr.strip())
    os.chmod(key, 0o600)
    with open(csr) as f:
        return key, f.read()


def csr_body(pem):
    """A CertificateSigningRequest as the kubelet sends it."""
    return {"apiVersion": "certificates.k8s.io/v1", "kind": "CertificateSigningRequest",
            "metadata": {"generateName": "csr-"},
            "spec": {"request": base64.b64encode(pem.encode()).decode(),
                     "signerName": SIGNER, "usages": ["digital signature", "client auth"]}}


def post_csr(api, token, pem):
    """POST the request with the bootstrap token: (status, answer)."""
    return api.call("POST", CSRS, csr_body(pem), token=token)


def wait_certificate(api, token, csr_name, timeout=30):
    """Poll the request (as the bootstrap user) until it has a certificate."""
    end = time.monotonic() + timeout
    last = None
    while time.monotonic() < end:
        status, obj = api.call("GET", "%s/%s" % (CSRS, csr_name), token=token)
        last = (status, obj)
        if status == 200 and isinstance(obj, dict):
            st = obj.get("status") or {}
            conds = [c.get("type") for c in st.get("conditions") or []]
            if "Denied" in conds or "Failed" in conds:
                raise JoinError("certificatesigningrequest %s: %s" % (csr_name, conds))
            if st.get("certificate"):
                return base64.b64decode(st["certificate"]).decode()
        time.sleep(0.3)
    raise JoinError("certificatesigningrequest %s: no certificate within %ss (last: %s)"
                    % (csr_name, timeout, last))


def whoami(api, **cred):
    """SelfSubjectReview (kubectl auth whoami): (status, user, groups)."""
    status, obj = api.call("POST", WHOAMI, {"apiVersion": "authentication.k8s.io/v1",
                                            "kind": "SelfSubjectReview"}, **cred)
    info = ((obj.get("status") or {}).get("userInfo") or {}) if isinstance(obj, dict) else {}
    return status, info.get("username"), info.get("groups") or []


class Join:
    """What join_worker did: the token, the request, the worker's files."""

    def __init__(self, **kw):
        self.__dict__.update(kw)


def join_worker(lab, worker=None, admin=None, name="worker0", cpha=None, pki=None,
                workdir=None, server=None, via=None,
                admin_kubeconfig="/etc/kubernetes/super-admin.conf", admin_args=(),
                ttl="1h", timeout=30):
    """Join worker NAME and return a Join; JoinError says which step failed.

    The defaults are the lab's (cpha lab): the client host as the worker, a
    master as the admin host with the super-admin.conf `cpha render` put
    there, the lab's description and PKI, the VIP by the name in /etc/hosts.
    The integration tests give every one of them.
    """
    from . import build  # the lab's own, only for its defaults
    if worker is None:
        worker = lab.host("client")
    if admin is None:
        admin = next(h for h in lab.by_role("master") if h.powered())
    if cpha is None:
        cpha = [build.Programs().cpha, "-f",
                lab.path("cluster-%s.yaml" % lab.info.get("stack", "cpha"))]
    pki = pki or lab.path("pki")
    workdir = workdir or lab.path("worker-" + name)
    server = server or "https://kubernetes:6443"
    os.makedirs(workdir, mode=0o700, exist_ok=True)

    bootstrap = os.path.join(workdir, "bootstrap-kubelet.conf")
    token, secret = create_token(cpha, pki, bootstrap, ttl=ttl,
                                 description="worker %s joining" % name)
    store_secret(admin, admin_kubeconfig, secret, admin_args)
    ca = ca_of_kubeconfig(bootstrap, os.path.join(workdir, "ca.pem"))
    api = Api(worker, server, ca, via)
    key, pem = make_request(worker, workdir, name)
    status, obj = post_csr(api, token, pem)
    if status != 201:
        raise JoinError("POST certificatesigningrequest with the bootstrap token: %s %s"
                        % (status, obj))
    csr_name = obj["metadata"]["name"]
    cert_pem = wait_certificate(api, token, csr_name, timeout)
    cert = os.path.join(workdir, "kubelet-client.pem")
    with open(cert, "w") as f:
        f.write(cert_pem)
    status, user, groups = whoami(api, cert=cert, key=key)
    if status != 201 or user != "system:node:" + name:
        raise JoinError("with its new certificate the worker is %s %s (HTTP %s)"
                        % (user, groups, status))
    return Join(name=name, token=token, token_id=token.split(".")[0], csr=csr_name,
                cert=cert, key=key, ca=ca, bootstrap_kubeconfig=bootstrap, user=user,
                groups=groups, api=api)
