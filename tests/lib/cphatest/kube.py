"""Kubernetes control-plane pieces for the lab: kube-apiserver,
kube-controller-manager and kube-scheduler (the real binaries from
$CPHA_KUBE_BINDIR when set, else the stand-ins in control-plane/lab/simulators), their
certificates and kubeconfig files, and Lease reads."""

import datetime
import os
import re

from . import util

LEASES = "/apis/coordination.k8s.io/v1/namespaces/%s/leases"


def binary(name):
    """Real binary from $CPHA_KUBE_BINDIR if there, else the stand-in."""
    d = os.environ.get("CPHA_KUBE_BINDIR")
    if d and os.access(os.path.join(d, name), os.X_OK):
        return os.path.join(d, name)
    return util.fixture_path(name)


def apiserver_cert(pki, host):
    """Serving certificate for the apiserver on host: (cert, key)."""
    sans = ["IP:%s" % host.v4, "IP:127.0.0.1", "DNS:localhost", "DNS:kubernetes",
            "DNS:kubernetes.default", "DNS:kubernetes.default.svc", "DNS:%s" % host.name]
    if host.v6:
        sans.append("IP:%s" % host.v6)
    return pki.issue("apiserver-%s" % host.name, "kube-apiserver", sans=sans,
                     server=True)


def apiserver_argv(etcd_urls, cert, key, ca, etcd_tls, extra=()):
    """The classic unit's flags, pointed at the lab's etcd and certificates."""
    return [binary("kube-apiserver"),
            "--etcd-servers=%s" % ",".join(etcd_urls),
            "--etcd-cafile=%s" % etcd_tls.ca,
            "--etcd-certfile=%s" % etcd_tls.cert,
            "--etcd-keyfile=%s" % etcd_tls.key,
            "--allow-privileged=true",
            "--bind-address=0.0.0.0",
            "--secure-port=6443",
            "--service-cluster-ip-range=198.18.128.0/24",
            "--service-node-port-range=30000-32767",
            "--client-ca-file=%s" % ca,
            "--tls-cert-file=%s" % cert,
            "--tls-private-key-file=%s" % key,
            "--endpoint-reconciler-type=lease",
            "--authorization-mode=Node,RBAC",
            "--v=2"] + list(extra)


def start_apiserver(host, etcd_urls, cert, key, ca, etcd_tls, extra=()):
    return host.spawn(apiserver_argv(etcd_urls, cert, key, ca, etcd_tls, extra),
                      name="kube-apiserver")


def wait_ready(host, url, ca, proc=None, timeout=20, path="/readyz"):
    """Poll url+path (anonymous, as a load balancer does) until 200."""
    def probe():
        if proc is not None and not proc.running():
            raise AssertionError("%r exited with %s" % (proc, proc.poll()))
        return host.curl(url + path, cacert=ca, timeout=2).status == 200
    util.wait_until(probe, timeout, 0.2, "%s%s on %s to answer 200" % (url, path, host.name))


def write_kubeconfig(path, server, user, ca, cert, key, embed=False,
                     cluster="kubernetes"):
    """Write a kubeconfig laid out exactly as `kubectl config view --raw`."""
    from .pki import Pki
    ctx = "%s@%s" % (user, cluster)
    lines = ["apiVersion: v1", "clusters:", "- cluster:"]
    lines.append("    certificate-authority-data: %s" % Pki.b64(ca) if embed
                 else "    certificate-authority: %s" % ca)
    lines += ["    server: %s" % server, "  name: %s" % cluster, "contexts:",
              "- context:", "    cluster: %s" % cluster, "    user: %s" % user,
              "  name: %s" % ctx, "current-context: %s" % ctx, "kind: Config",
              "preferences: {}", "users:", "- name: %s" % user, "  user:"]
    if embed:
        lines += ["    client-certificate-data: %s" % Pki.b64(cert),
                  "    client-key-data: %s" % Pki.b64(key)]
    else:
        lines += ["    client-certificate: %s" % cert, "    client-key: %s" % key]
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    os.chmod(path, 0o600)
    return path


def controller_manager_argv(kubeconfig, ca, sa_key, lease=4, renew=3, retry=1,
                            name="kube-controller-manager", extra=()):
    """The classic unit's flags plus short leader-election timings (seconds).
    Without --address (gone since 1.23; the secure port binds
    every address by default)."""
    return [binary(name),
            "--kubeconfig=%s" % kubeconfig,
            "--cluster-cidr=198.19.0.0/16",
            "--cluster-name=kubernetes",
            "--leader-elect=true",
            "--leader-elect-lease-duration=%gs" % lease,
            "--leader-elect-renew-deadline=%gs" % renew,
            "--leader-elect-retry-period=%gs" % retry,
            "--service-cluster-ip-range=198.18.128.0/24",
            "--root-ca-file=%s" % ca,
            "--service-account-private-key-file=%s" % sa_key,
            "--use-service-account-credentials=true",
            "--controllers=*",
            "--v=2"] + list(extra)


def scheduler_argv(kubeconfig, lease=4, renew=3, retry=1, extra=()):
    return [binary("kube-scheduler"),
            "--kubeconfig=%s" % kubeconfig,
            "--leader-elect=true",
            "--leader-elect-lease-duration=%gs" % lease,
            "--leader-elect-renew-deadline=%gs" % renew,
            "--leader-elect-retry-period=%gs" % retry,
            "--v=2"] + list(extra)


def get_lease(host, url, ns, name, ca, cert, key):
    """The Lease object as JSON, or None when absent (404)."""
    r = host.curl("%s%s/%s" % (url, LEASES % ns, name), cacert=ca, cert=cert,
                  key=key, timeout=3)
    if r.status == 404:
        return None
    if r.status != 200:
        raise RuntimeError("GET lease %s/%s: %r %s" % (ns, name, r, r.stderr))
    return r.json()


def parse_microtime(text):
    """"2026-11-21T10:00:00.123456Z" -> epoch seconds (float)."""
    return datetime.datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


_IDENTITY_RE = re.compile(r'Leader election identity: "([^"]+)"')


def logged_identity(proc):
    """The leader-election identity a component logged, or None."""
    m = _IDENTITY_RE.search(proc.log_text())
    return m.group(1) if m else None


def logged_acquire(proc, ns, name):
    """True when the component logged taking the lease."""
    return ("successfully acquired lease %s/%s" % (ns, name)) in proc.log_text()
