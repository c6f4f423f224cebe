"""Real etcd members (TLS for clients and peers) inside lab hosts."""

import base64
import json
import os
import shutil

from . import util

CLIENT_PORT = 2379
PEER_PORT = 2380


def b64(s):
    return base64.b64encode(s.encode() if isinstance(s, str) else s).decode()


def unb64(s):
    return base64.b64decode(s or "")


class ClientTls:
    """CA file plus the client certificate/key used to talk to etcd."""

    def __init__(self, ca, cert, key):
        self.ca, self.cert, self.key = ca, cert, key

    def curl_kw(self):
        return {"cacert": self.ca, "cert": self.cert, "key": self.key}


def issue_certs(pki, hosts, client_name="etcd-client"):
    """Server+peer certificates for each host and one client certificate.

    Returns ({host.name: (cert, key)}, ClientTls).
    """
    servers = {}
    for h in hosts:
        sans = ["IP:%s" % h.v4, "IP:127.0.0.1", "DNS:localhost", "DNS:%s" % h.name]
        if h.v6:
            sans.append("IP:%s" % h.v6)
        servers[h.name] = pki.issue("etcd-%s" % h.name, "etcd-%s" % h.name,
                                    sans=sans, server=True, client=True)
    cert, key = pki.issue(client_name, client_name, client=True)
    return servers, ClientTls(pki.ca_cert, cert, key)


class EtcdMember:
    """One etcd member, started with the same TLS flags as the classic unit."""

    def __init__(self, host, name, ca, cert, key, initial_cluster, data_dir,
                 token="etcd-cluster-token", extra_args=()):
        self.host = host
        self.name = name
        self.ca, self.cert, self.key = ca, cert, key
        self.initial_cluster = initial_cluster  # [(name, ip)]
        self.data_dir = data_dir
        self.token = token
        self.extra_args = list(extra_args)
        self.proc = None

    @property
    def client_url(self):
        return "https://%s:%d" % (self.host.v4, CLIENT_PORT)

    @property
    def peer_url(self):
        return "https://%s:%d" % (self.host.v4, PEER_PORT)

    def argv(self):
        cluster = ",".join("%s=https://%s:%d" % (n, ip, PEER_PORT)
                           for n, ip in self.initial_cluster)
        return ["etcd",
                "--name", self.name,
                "--data-dir=%s" % self.data_dir,
                "--trusted-ca-file=%s" % self.ca,
                "--cert-file=%s" % self.cert,
                "--key-file=%s" % self.key,
                "--client-cert-auth=true",
                "--listen-client-urls",
                "%s,https://127.0.0.1:%d" % (self.client_url, CLIENT_PORT),
                "--advertise-client-urls", self.client_url,
                "--peer-client-cert-auth=true",
                "--peer-trusted-ca-file=%s" % self.ca,
                "--peer-cert-file=%s" % self.cert,
                "--peer-key-file=%s" % self.key,
                "--initial-advertise-peer-urls", self.peer_url,
                "--listen-peer-urls", self.peer_url,
                "--initial-cluster-token", self.token,
                "--initial-cluster", cluster,
                "--initial-cluster-state", "new",
                "--debug=false"] + self.extra_args

    def start(self):
        """Spawn etcd in its host (again, after stop(): same data dir)."""
        if self.proc is not None and self.proc.running():
            raise RuntimeError("etcd %s already running" % self.name)
        self.proc = self.host.spawn(self.argv(), name="etcd", serial=True)
        return self.proc

    def stop(self, timeout=10):
        """SIGTERM and wait; returns the exit status."""
        if self.proc is None:
            return None
        return self.proc.terminate_and_wait(timeout)


def make_cluster(lab, pki, hosts, token=None):
    """EtcdMember objects (not started) for hosts, plus the ClientTls."""
    servers, client = issue_certs(pki, hosts)
    token = token or "cpha-%s-%d" % (lab.name, lab.pid)
    initial = [(h.name, h.v4) for h in hosts]
    members = []
    for h in hosts:
        cert, key = servers[h.name]
        data = lab.bulky(lab.path("etcd", h.name + ".data"))
        members.append(EtcdMember(h, h.name, pki.ca_cert, cert, key, initial,
                                  data, token=token))
    return members, client


def health(host, url, tls, timeout=2):
    """(ok, detail) of GET url/health from inside host."""
    r = host.curl(url.rstrip("/") + "/health", timeout=timeout, **tls.curl_kw())
    if r.status != 200:
        return False, "status %d rc %d %s" % (r.status, r.rc,
                                              (r.body or r.stderr).strip())
    try:
        ok = r.json().get("health") == "true"
    except ValueError:
        return False, "bad body %r" % r.body
    return ok, r.body.strip()


def wait_healthy(members, tls, timeout=30):
    """Wait until every member answers {"health":"true"}; bounded."""
    for m in members:
        def probe(m=m):
            if m.proc is not None and not m.proc.running():
                raise AssertionError("etcd %s exited with %s"
                                     % (m.name, m.proc.poll()))
            return health(m.host, m.client_url, tls)[0]
        util.wait_until(probe, timeout, 0.25, "etcd %s healthy" % m.name)


def _post(host, url, path, body, tls, timeout=5):
    r = host.curl(url.rstrip("/") + path, method="POST", data=body,
                  timeout=timeout, **tls.curl_kw())
    if r.status != 200:
        raise RuntimeError("etcd %s%s: status %d rc %d: %s %s"
                           % (url, path, r.status, r.rc, r.body, r.stderr))
    return r.json()


def kv_put(host, url, key, value, tls):
    """Put key=value through the v3 JSON gateway; returns the new revision."""
    out = _post(host, url, "/v3/kv/put", {"key": b64(key), "value": b64(value)},
                tls)
    return int(out["header"]["revision"])


def kv_range(host, url, key, tls, prefix=False):
    """[{key, value, create_revision, mod_revision, version}] (decoded)."""
    body = {"key": b64(key)}
    if prefix:
        end = bytearray(key.encode())
        end[-1] += 1
        body["range_end"] = base64.b64encode(bytes(end)).decode()
    out = _post(host, url, "/v3/kv/range", body, tls)
    kvs = []
    for kv in out.get("kvs", []):
        kvs.append({"key": unb64(kv["key"]).decode(),
                    "value": unb64(kv.get("value")).decode("utf-8", "replace"),
                    "create_revision": int(kv.get("create_revision", 0)),
                    "mod_revision": int(kv.get("mod_revision", 0)),
                    "version": int(kv.get("version", 0))})
    return kvs


def member_names(host, url, tls):
    """Sorted member names from POST /v3/cluster/member/list."""
    out = _post(host, url, "/v3/cluster/member/list", {}, tls)
    return sorted(m.get("name", "") for m in out.get("members", []))


def kv_get_json(host, url, key, tls):
    """(decoded JSON value, mod_revision) of key, or (None, 0) if absent."""
    kvs = kv_range(host, url, key, tls)
    if not kvs:
        return None, 0
    return json.loads(kvs[0]["value"]), kvs[0]["mod_revision"]


def wipe(member):
    """Delete a stopped member's data directory."""
    if member.proc is not None and member.proc.running():
        raise RuntimeError("etcd %s is running" % member.name)
    shutil.rmtree(member.data_dir, ignore_errors=True)
    os.makedirs(os.path.dirname(member.data_dir), exist_ok=True)


def client_pki_dir(lab, tls):
    """etcd's client certificate as installed on a master (ca.pem,
    etcd-client.pem, etcd-client-key.pem) in a directory of the lab."""
    d = os.path.join(lab.dir, "etc-etcd-pki")
    os.makedirs(d)
    for src, dst in ((tls.ca, "ca.pem"), (tls.cert, "etcd-client.pem"),
                     (tls.key, "etcd-client-key.pem")):
        shutil.copy(src, os.path.join(d, dst))
    return d

def main(name, run, dump_lines=30):
    """An etcd test's main: skipped (77, saying why) when not root or
    without etcd and etcdctl, else cphatest's main."""
    from .testmain import main as test_main

    reason = util.root_skip_reason()
    for tool in ("etcd", "etcdctl"):
        if reason is None and not shutil.which(tool):
            reason = "%s is not installed" % tool
    if reason is not None:
        print("SKIP: %s" % reason)
        return util.SKIP
    return test_main(name, run, dump_lines=dump_lines)
