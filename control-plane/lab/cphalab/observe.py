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
ADMIN_CERT, ADMIN_KEY = "/etc/kubernetes/pki/admin.pem", "/etc/kubernetes/pki/admin-key.pem"
API_TLS = ["--cacert", "/etc/kubernetes/pki/ca.pem", "--cert", ADMIN_CERT, "--key", ADMIN_KEY]


def up_masters(lab):
    return [h for h in lab.by_role("master") if h.powered() and h.link_up()]


def vip_holders(lab):
    """LB hosts, powered and on the network, with the VIP on eth0."""
    return [h.name for h in lab.by_role("lb")
            if h.powered() and h.link_up() and labmod.VIP in h.addresses()]


def vip_holders_both(lab):
    """(holders of the VIP, holders of the IPv6 VIP): LB hosts, powered
    and on the network, with each on eth0, from one look at each host's
    addresses (the two lists are of the same moment, host by host)."""
    v4, v6 = [], []
    for h in lab.by_role("lb"):
        if h.powered() and h.link_up():
            a = h.addresses()
            if labmod.VIP in a:
                v4.append(h.name)
            if labmod.VIP6 in a:
                v6.append(h.name)
    return v4, v6


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


def etcdctl(host, masters, args, timeout=15):
    """etcdctl ARGS (JSON out) on host against the masters' client URLs,
    with the cluster's client certificate."""
    eps = ",".join("https://%s:2379" % m.v4 for m in masters)
    return host.run(["etcdctl", "--endpoints", eps, "--command-timeout=3s", "-w", "json"]
                    + ETCD_TLS + list(args), check=False, timeout=timeout,
                    env={"ETCDCTL_API": "3"})


def etcd_members(lab, via=None):
    """[(name, clientURL)] from etcd's member list, or None."""
    for h in ([via] if via else up_masters(lab)):
        r = etcdctl(h, lab.by_role("master"), ["member", "list"])
        if r.returncode == 0:
            try:
                d = json.loads(r.stdout)
            except ValueError:
                continue
            return [(m.get("name", ""), (m.get("clientURLs") or [""])[0])
                    for m in d.get("members", [])]
    return None


def etcd_voting(lab, via=None):
    """([voting members' names], [learners' names]) from etcd's member
    list (a member never started by its peer URL), or ([], [])."""
    for h in ([via] if via else up_masters(lab)):
        r = etcdctl(h, up_masters(lab), ["member", "list"])
        try:
            ms = json.loads(r.stdout)["members"]
        except (ValueError, KeyError, TypeError):
            continue
        voting, learners = [], []
        for m in ms:
            name = m.get("name") or (m.get("peerURLs") or ["?"])[0]
            (learners if m.get("isLearner") else voting).append(name)
        return voting, learners
    return [], []


def etcd_health(lab, via=None):
    """{endpoint: healthy} for every master's client URL."""
    out = {}
    for h in ([via] if via else up_masters(lab))[:1]:
        r = etcdctl(h, lab.by_role("master"), ["endpoint", "health"], timeout=20)
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
    server = server or labmod.VIP
    resolve = "kubernetes:6443:" + ("[%s]" % server if ":" in server else server)
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


# each program's secure port (kubeadm's and cpha render's), on loopback
SECURE_PORT = {"kube-controller-manager": 10257, "kube-scheduler": 10259}


def master_status(text, name):
    """leader_election_master_status{name=NAME} from a /metrics text: 1
    (holds the lease), 0 (waits for it), or None (not there)."""
    for line in text.splitlines():
        if not line.startswith("leader_election_master_status{"):
            continue
        labels, _, value = line[len("leader_election_master_status{"):].partition("}")
        if 'name="%s"' % name not in labels.split(","):
            continue
        try:
            return int(float(value.split()[0]))
        except (ValueError, IndexError):
            return None
    return None


def leading(hosts, binary):
    """The names of the hosts whose `binary` says it holds its lease: the
    leader_election_master_status gauge it serves on /metrics (as the real
    programs do), read on its secure port on the host's loopback with the
    admin's client certificate. A host that does not answer within a
    second is left out."""
    out = []
    url = "https://127.0.0.1:%d/metrics" % SECURE_PORT[binary]
    for h in hosts:
        r = h.run(["curl", "-sS", "-k", "-m", "1", "--cert", ADMIN_CERT, "--key", ADMIN_KEY,
                   url], check=False, timeout=4)
        if r.returncode == 0 and master_status(r.stdout, binary) == 1:
            out.append(h.name)
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
        holders, holders6 = vip_holders_both(lab)
        if len(holders) != 1:
            return False, "VIP holders %s" % holders
        if lab.dual_stack and holders6 != holders:
            return False, "IPv6 VIP holders %s, IPv4 VIP holders %s" % (holders6, holders)
        for vip in [labmod.VIP] + ([labmod.VIP6] if lab.dual_stack else []):
            code, body = api(lab, "/readyz", server=vip)
            if code != 200:
                return False, "/readyz through the VIP %s: %d %s" % (vip, code, body[:80])
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


# -- the facts of a settled start (judge.settle_reasons) ---------------------------
KEEPALIVED_STATES = {0: "INIT", 1: "BACKUP", 2: "MASTER", 3: "FAULT"}
# `keepalived --signum=JSON`: SIGRTMIN+2 on Linux
KEEPALIVED_SIGJSON = __import__("signal").SIGRTMIN + 2


def vrrp_conf(host):
    """(the VRRP daemon's configuration text, "vipd" | "keepalived")."""
    for path, name in (("/etc/vipd/vipd.conf", "vipd"),
                       ("/etc/keepalived/keepalived.conf", "keepalived")):
        try:
            with open(host.path(path)) as f:
                return f.read(), name
        except OSError:
            continue
    return "", None


def vrrp_settings(host):
    """{"advert_int": s, "preempt": bool, "startup_delay": s} from the
    host's VRRP configuration."""
    text, _ = vrrp_conf(host)
    adv, preempt, delay = 1.0, True, 0.0
    for line in text.splitlines():
        w = line.split("!")[0].split("#")[0].split()
        if len(w) >= 2 and w[0] == "advert_int":
            adv = float(w[1])
        elif len(w) >= 2 and w[0] == "vrrp_startup_delay":
            delay = float(w[1])
        elif w and w[0] == "nopreempt":
            preempt = False
    return {"advert_int": adv, "preempt": preempt, "startup_delay": delay}


def process_age(pid):
    """Seconds since process pid started, or None."""
    import os
    try:
        with open("/proc/%d/stat" % pid) as f:
            start = int(f.read().rsplit(")", 1)[1].split()[19])
        with open("/proc/uptime") as f:
            up = float(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        return None
    return up - start / os.sysconf("SC_CLK_TCK")


def vrrp_state(host):
    """What the host's VRRP daemon says of itself: {"state", "priority",
    "last_change" (unix s)}, or {} when it does not answer. vipd: its
    admin socket's show json; keepalived: its JSON dump (SIGJSON, written
    to $TMPDIR, the host's /run/keepalived)."""
    import os
    _, daemon = vrrp_conf(host)
    try:
        if daemon == "vipd":
            inst = json.loads(admin(host, "/run/vipd/admin.sock", "show json"))["instances"][0]
            return {"state": inst["state"], "priority": inst["priority"],
                    "last_change": inst["last_change_usec"] / 1e6}
        if daemon == "keepalived":
            pid = host.service_pid("keepalived")
            if not pid:
                return {}
            path = host.path("/run/keepalived/keepalived.json")
            before = os.stat(path).st_mtime if os.path.exists(path) else 0
            os.kill(pid, KEEPALIVED_SIGJSON)
            end = time.time() + 2
            while time.time() < end:
                if os.path.exists(path) and os.stat(path).st_mtime != before:
                    with open(path) as f:
                        d = json.load(f)[0]["data"]
                    return {"state": KEEPALIVED_STATES.get(d["state"], str(d["state"])),
                            "priority": d["effective_priority"],
                            "last_change": d["last_transition"]}
                time.sleep(0.05)
    except (OSError, ValueError, KeyError, IndexError, LabError):
        pass
    return {}


def lb_servers(host, proxy="apiserver"):
    """{server: status} of the load balancer's apiserver backend (its
    admin socket's show stat, HAProxy's CSV from lbd and HAProxy alike),
    or None when it does not answer."""
    try:
        text = admin(host, lb_socket(host), "show stat")
    except (OSError, LabError):
        return None
    out = {}
    for line in text.splitlines():
        w = line.split(",")
        if len(w) > 17 and w[0] == proxy and w[1] not in ("FRONTEND", "BACKEND"):
            out[w[1]] = w[17]
    return out if out else None


def etcd_member_ids(lab):
    """{member name: member ID} from etcd's member list ({} when none answers)."""
    for h in up_masters(lab)[:1]:
        r = etcdctl(h, up_masters(lab), ["member", "list"])
        try:
            return {m.get("name", ""): m["ID"] for m in json.loads(r.stdout)["members"]}
        except (ValueError, KeyError, TypeError):
            return {}
    return {}


def etcd_leaders(lab, via=None, masters=None):
    """The leader ID each answering etcd endpoint names ([] when none
    answers); masters: ask only these (default: every master)."""
    for h in ([via] if via else up_masters(lab))[:1]:
        r = etcdctl(h, masters or lab.by_role("master"), ["endpoint", "status"], timeout=20)
        try:
            return [e["Status"]["leader"] for e in json.loads(r.stdout or "[]")]
        except (ValueError, KeyError, TypeError):
            return []
    return []


def pcmk_idle(lab, x):
    """The DC's controller is in S_IDLE (no transition in progress)."""
    dc = x.find("./summary/current_dc") if x is not None else None
    if dc is None or not dc.get("name"):
        return False
    for h in up_masters(lab):
        r = h.run(["crmadmin", "-q", "-S", dc.get("name")], check=False, timeout=15)
        if r.returncode == 0:
            return "S_IDLE" in (r.stdout + r.stderr)
    return False


def pcmk_failed(x):
    """Pacemaker's failed actions, as text."""
    out = []
    for f in (x.iter("failure") if x is not None else []):
        out.append("%s on %s: %s" % (f.get("op_key"), f.get("node"),
                                     f.get("exitreason") or f.get("exitstatus")))
    return out


def lease_age(lab, name, now):
    """Seconds since the Lease's renewTime, or None (no Lease, no answer)."""
    import datetime
    spec = lease(lab, name)
    rt = (spec or {}).get("renewTime")
    if not rt:
        return None
    try:
        t = datetime.datetime.strptime(rt.rstrip("Z")[:26], "%Y-%m-%dT%H:%M:%S.%f")
    except ValueError:
        try:
            t = datetime.datetime.strptime(rt.rstrip("Z"), "%Y-%m-%dT%H:%M:%S")
        except ValueError:
            return None
    return now - t.replace(tzinfo=datetime.timezone.utc).timestamp()


def prober_facts(events, steady):
    """What judge.settle_reasons needs of a running prober's EventLog."""
    events.poll()
    now = time.time()
    n, bad = events.window(now - steady, now)
    return {"history": events.since_start(now), "requests": n, "failed": bad,
            "watches": events.watches, "open": len(events.open_at(now))}


def settle_facts(lab, events=None, steady=5.0, events6=None):
    """The facts judge.settle_reasons judges, gathered now. events: the
    running prober's EventLog (None: no prober); events6: the IPv6
    prober's of a dual-stack lab (None: not dual stack)."""
    now = time.time()
    f = {"now": now, "masters": [m.name for m in lab.by_role("master")]}
    x = crm(lab)
    if x is not None:
        f["pcmk"] = {"online": nodes_online(x), "resources": resources(x),
                     "idle": pcmk_idle(lab, x), "failed": pcmk_failed(x)}
    else:
        f["pcmk"] = None
    members = etcd_members(lab)
    if members is None:
        f["etcd"] = None
    else:
        health = etcd_health(lab)
        f["etcd"] = {"members": len([m for m in members if m[0]]),
                     "healthy": sum(1 for v in health.values() if v),
                     "leaders": etcd_leaders(lab)}
    lbs = []
    for h in lab.by_role("lb"):
        up = h.powered() and h.link_up()
        d = {"name": h.name, "powered": up}
        if up:
            addrs = h.addresses()
            d["vip"] = labmod.VIP in addrs
            if lab.dual_stack:
                d["vip6"] = labmod.VIP6 in addrs
            d.update(vrrp_state(h))
            _, daemon = vrrp_conf(h)
            pid = h.service_pid(daemon) if daemon else 0
            d["uptime"] = process_age(pid) if pid else None
            d["servers"] = lb_servers(h)
            f.update(vrrp_settings(h))
        lbs.append(d)
    f["lbs"] = lbs
    f["leases"] = {n: lease_age(lab, n, time.time())
                   for n in ("kube-controller-manager", "kube-scheduler")}
    f["prober"] = prober_facts(events, steady) if events is not None else None
    if events6 is not None:
        f["prober6"] = prober_facts(events6, steady)
    return f
