"""What the lab sees of itself: VIP holders, Pacemaker, etcd, Leases.

Every read goes through a lab host (the root namespace has no address on
the lab's bridge) with the tools an operator would use: ip, crm_mon,
etcdctl, curl with the cluster's own certificates.
"""

import json
import time
import xml.etree.ElementTree as ET

from . import lab as labmod
from .hosts import LabError

ETCD_TLS = ["--cacert", "/etc/etcd/pki/ca.pem", "--cert", "/etc/etcd/pki/etcd-client.pem",
            "--key", "/etc/etcd/pki/etcd-client-key.pem"]
API_TLS = ["--cacert", "/etc/kubernetes/pki/ca.pem", "--cert", "/etc/kubernetes/pki/admin.pem",
           "--key", "/etc/kubernetes/pki/admin-key.pem"]


def up_masters(lab):
    return [h for h in lab.by_role("master") if h.powered() and h.link_up()]


def vip_holders(lab):
    """LB hosts, powered and on the network, with the VIP on eth0."""
    return [h.name for h in lab.by_role("lb")
            if h.powered() and h.link_up() and labmod.VIP in h.addresses()]


def crm(lab, via=None):
    """crm_mon's XML from a master that has quorum (or any), or None."""
    for h in ([via] if via else up_masters(lab)):
        r = h.run(["crm_mon", "-1", "--output-as=xml"], check=False, timeout=20)
        if r.returncode == 0 and r.stdout.strip():
            try:
                x = ET.fromstring(r.stdout)
            except ET.ParseError:
                continue
            q = x.find("./summary/current_dc")
            if q is not None and q.get("with_quorum") == "true":
                return x
    return None


def resources(x):
    """{resource id: [nodes where active]} for primitives and clone members."""
    out = {}
    if x is None:
        return out
    for r in x.iter("resource"):
        rid = r.get("id")
        if r.get("active") == "true" and r.get("failed") != "true":
            for n in r.findall("node"):
                out.setdefault(rid, []).append(n.get("name"))
        else:
            out.setdefault(rid, [])
    return out


def nodes_online(x):
    if x is None:
        return []
    return [n.get("name") for n in x.iter("node") if n.get("online") == "true"
            and n.get("type") == "member"]


def etcd_members(lab, via=None):
    """[(name, clientURL)] from etcd's member list, or None."""
    for h in ([via] if via else up_masters(lab)):
        eps = ",".join("https://%s:2379" % m.v4 for m in lab.by_role("master"))
        r = h.run(["etcdctl", "--endpoints", eps, "--command-timeout=3s", "-w", "json"]
                  + ETCD_TLS + ["member", "list"], check=False, timeout=15,
                  env={"ETCDCTL_API": "3"})
        if r.returncode == 0:
            try:
                d = json.loads(r.stdout)
            except ValueError:
                continue
            return [(m.get("name", ""), (m.get("clientURLs") or [""])[0])
                    for m in d.get("members", [])]
    return None


def etcd_health(lab, via=None):
    """{endpoint: healthy} for every master's client URL."""
    out = {}
    for h in ([via] if via else up_masters(lab))[:1]:
        eps = ",".join("https://%s:2379" % m.v4 for m in lab.by_role("master"))
        r = h.run(["etcdctl", "--endpoints", eps, "--command-timeout=3s", "-w", "json"]
                  + ETCD_TLS + ["endpoint", "health"], check=False, timeout=20,
                  env={"ETCDCTL_API": "3"})
        try:
            for e in json.loads(r.stdout or "[]"):
                out[e.get("endpoint")] = bool(e.get("health"))
        except ValueError:
            pass
    return out


def api(lab, path, host=None, server=None, timeout=3):
    """GET through the VIP (or server) from the client host: (code, body)."""
    c = host or lab.host("client")
    url = "https://kubernetes:6443" + path
    resolve = "kubernetes:6443:" + (server or labmod.VIP)
    r = c.run(["curl", "-sS", "-m", str(timeout), "--resolve", resolve, "-o", "-", "-w",
               "\n%{http_code}"] + API_TLS + [url], check=False, timeout=timeout + 5)
    body, _, code = r.stdout.rpartition("\n")
    try:
        return int(code), body
    except ValueError:
        return 0, r.stderr


def lease(lab, name, server=None):
    code, body = api(lab, "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/" + name,
                     server=server)
    if code != 200:
        return None
    try:
        return json.loads(body).get("spec", {})
    except ValueError:
        return None


def acting(lab, binary):
    """(host, pid) of every running process of a kube-* program on the masters."""
    out = []
    for h in lab.by_role("master"):
        if not h.powered():
            continue
        for pid, argv in h.processes():
            # the program itself (or a stand-in's interpreter running it),
            # not its OCF agent, which has the same name under /usr/lib/ocf
            if any(a in ("/usr/bin/" + binary, binary) for a in argv[:2]):
                out.append((h.name, pid))
    return out


def admin(host, sock, command, timeout=5):
    """One command on a daemon's admin socket in host (lbd's or HAProxy's
    language); the reply."""
    import socket
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(timeout)
    try:
        s.connect(host.path(sock))
        s.sendall(command.encode() + b"\n")
        out = []
        while True:
            c = s.recv(65536)
            if not c:
                break
            out.append(c)
        return b"".join(out).decode(errors="replace")
    finally:
        s.close()


def lb_socket(host):
    import os
    return "/run/lbd/admin.sock" if os.path.exists(host.path("/run/lbd/admin.sock")) \
        else "/run/haproxy/admin.sock"


def fenced_show(host):
    """fenced's `show json` on an LB host, or None."""
    if not host.powered():
        return None
    r = host.run(["fenced", "-f", "/etc/fenced/fenced.conf", "show", "json"], check=False,
                 timeout=10)
    try:
        return json.loads(r.stdout)
    except ValueError:
        return None


def settled(lab, want_lb=True):
    """(ok, what is missing): the whole control plane as it should be."""
    x = crm(lab)
    if x is None:
        return False, "no quorate Pacemaker DC"
    online = nodes_online(x)
    masters = [m.name for m in lab.by_role("master")]
    if sorted(online) != sorted(masters):
        return False, "Pacemaker nodes online: %s" % online
    res = resources(x)
    nm = len(masters)
    for rid, n in (("etcd", nm), ("apiserver", nm), ("kcm", 1), ("scheduler", 1)):
        if len(res.get(rid, [])) != n:
            return False, "%s active on %s" % (rid, res.get(rid, []))
    members = etcd_members(lab)
    if not members or len(members) != nm or any(not m[0] for m in members):
        return False, "etcd members %s" % members
    health = etcd_health(lab)
    if len(health) != nm or not all(health.values()):
        return False, "etcd health %s" % health
    if want_lb:
        holders = vip_holders(lab)
        if len(holders) != 1:
            return False, "VIP holders %s" % holders
        code, body = api(lab, "/readyz")
        if code != 200:
            return False, "/readyz through the VIP: %d %s" % (code, body[:80])
    return True, ""


def wait_settled(lab, timeout, progress=None, want_lb=True):
    end = time.time() + timeout
    last = ""
    while time.time() < end:
        try:
            ok, why = settled(lab, want_lb)
        except LabError as e:
            ok, why = False, str(e)
        if ok:
            return True
        if why != last and progress:
            progress("  waiting: " + why)
        last = why
        time.sleep(1)
    raise LabError("the lab did not settle in %ds: %s" % (timeout, last))
