#!/usr/bin/env python3
"""cpha end to end: plan, pki and render make a control plane that runs.

A description with three masters (m0..m2, 198.18.0.11-13, manager systemd)
and one load-balancer host (lb0, 198.18.0.21) goes through `cpha plan`,
`cpha pki` and `cpha render` (every real checker). Then, in lab hosts:
- real etcd on each master, started with the flags of the rendered
  etcd.service and the certificates of `cpha pki`: the three form one
  cluster over TLS (peers and clients);
- kube-apiserver stand-ins with the rendered unit's flags;
- lbd on lb0 with the rendered lbd.cfg, unchanged;
- the real kubectl, with the rendered admin kubeconfig, through lbd at the
  VIP: `kubectl get --raw /readyz` answers ok, ten times, from a client host;
- `cpha check`: a host as rendered is "ok"; an edited file is drift; a
  running lbd (and vipd) that loaded other bytes than its file is drift;
  `--textfile` writes cpha_config_drift{host} 0, then 1 for the drifted host
  (the file replaced whole, mode 0644).
Each host's files are installed under its own root directory (lab hosts
share the file system); flags keep their words, with paths moved under
that root (cphatest.cphacmd.rebase). lbd runs in a mount namespace whose
/run is its root's, so its admin socket is where the file says.
Exit 0 pass, 77 skip (not root, or no kubectl), 1 fail.
    sudo python3 tests/integration/test_cpha_cluster.py
"""

import os
import shutil
import signal
import sys
import time

sys.dont_write_bytecode = True

import cphatest  # noqa: E402
from cphatest import cphacmd, etcd, kube, step, util  # noqa: E402

VIP = "198.18.0.2"
SAMPLE = os.path.join(util.repo_root(), "tests", "samples", "cluster.yaml")
MASTERS = [("m%d" % i, "198.18.0.%d" % (11 + i)) for i in range(3)]
LB = ("lb0", "198.18.0.21")
CLIENT = ("c0", "198.18.0.31")

DESCRIPTION = """\
cluster: {name: lab}
api: {name: kubernetes, vip: %(vip)s/24, interface: eth0}
kubernetes: {service_cidr: 198.18.128.0/24, cluster_cidr: 198.18.192.0/20}
masters:
%(masters)s
load_balancers:
  - {name: %(lb)s, address: %(lbaddr)s}
components: {load_balancer: lbd, vip: vipd, manager: systemd}
""" % {"vip": VIP, "lb": LB[0], "lbaddr": LB[1],
       "masters": "\n".join("  - {name: %s, address: %s}" % m for m in MASTERS)}


def check(cond, msg):
    if not cond:
        raise AssertionError(msg)


def read(path):
    with open(path) as f:
        return f.read()


def run(lab):
    desc = lab.path("cluster.yaml")
    with open(desc, "w") as f:
        f.write(DESCRIPTION)
    pki, out = lab.path("pki"), lab.path("out")

    step("cpha plan: the design holds (a single LB host is only a warning)")
    r = cphacmd.run(["-f", desc, "plan"])
    check("etcd: 3 members, quorum 2, tolerates 1 failure" in r.stdout, r.stdout)
    check("a single load-balancer host" in r.stderr, r.stderr)
    r = cphacmd.run(["-f", desc, "plan", "--strict"], check=False)
    check(r.returncode == 2, "plan --strict with warnings: exit %d" % r.returncode)

    step("cpha render refuses what plan refuses: four etcd members")
    even = lab.path("even.yaml")
    with open(even, "w") as f:
        f.write(DESCRIPTION.replace("masters:\n", "masters:\n  - {name: m9, address: "
                                    "198.18.0.19}\n", 1))
    r = cphacmd.run(["-f", even, "render", "--out", lab.path("out-even")], check=False)
    check(r.returncode == 1 and "etcd: 4 members refused" in r.stderr
          and not os.path.exists(lab.path("out-even")), r.stderr)
    r = cphacmd.run(["-f", even, "render", "--allow-even", "--out", lab.path("out-even")])
    check("--initial-cluster=m9=" in read(lab.path("out-even", "m0", "etc/systemd/system/"
                                                   "etcd.service")), "m9 in the cluster")

    step("cpha pki, then cpha pki check")
    cphacmd.run(["-f", desc, "pki", "--dir", pki])
    cphacmd.run(["-f", desc, "pki", "--dir", pki, "check"])

    step("cpha render (every file through its own checker)")
    r = cphacmd.run(["-f", desc, "render", "--out", out])
    check(os.path.exists(os.path.join(out, "lb0", "etc/lbd/lbd.cfg")), r.stdout)

    hosts = {n: lab.add_host(n, v4="%s/24" % a) for n, a in MASTERS + [LB, CLIENT]}
    roots = {n: lab.path("root", n) for n in hosts}
    for n, _ in MASTERS:
        cphacmd.install(desc, out, pki, n, roots[n])
    cphacmd.install(desc, out, pki, LB[0], roots[LB[0]])

    step("real etcd on m0..m2 with the rendered unit's flags")
    procs = {}
    for n, _ in MASTERS:
        unit = read(roots[n] + "/etc/systemd/system/etcd.service")
        argv = cphacmd.rebase(cphacmd.exec_start(unit), roots[n])
        argv[0] = shutil.which("etcd") or argv[0]
        os.makedirs(roots[n] + "/var/lib/etcd", mode=0o700, exist_ok=True)
        procs["etcd-" + n] = hosts[n].spawn(argv, name="etcd", serial=True)
    r0 = roots["m0"] + "/etc/etcd/pki/"
    tls = etcd.ClientTls(r0 + "ca.pem", r0 + "etcd-client.pem", r0 + "etcd-client-key.pem")
    members = []
    for n, a in MASTERS:
        m = etcd.EtcdMember(hosts[n], n, tls.ca, None, None, [], None)
        m.proc = procs["etcd-" + n]
        members.append(m)
    etcd.wait_healthy(members, tls, timeout=60)
    names = etcd.member_names(hosts["m2"], members[2].client_url, tls)
    check(names == ["m0", "m1", "m2"], "one 3-member cluster over TLS, got %s" % names)

    step("kube-apiserver stand-ins with the rendered unit's flags")
    for n, a in MASTERS:
        unit = read(roots[n] + "/etc/systemd/system/kube-apiserver.service")
        argv = cphacmd.rebase(cphacmd.exec_start(unit), roots[n])
        argv[0] = kube.binary("kube-apiserver")
        procs["api-" + n] = hosts[n].spawn(argv, name="kube-apiserver")
    for n, a in MASTERS:
        kube.wait_ready(hosts[n], "https://%s:6443" % a, roots[n] + "/etc/kubernetes/pki/ca.pem",
                        procs["api-" + n], timeout=30)

    step("lbd on lb0 with the rendered lbd.cfg; the VIP on lb0 by hand")
    lbroot = roots[LB[0]]
    os.makedirs(lbroot + "/run/lbd", exist_ok=True)
    lbd_cmd = "mount --bind %s/run /run && exec %s -f %s/etc/lbd/lbd.cfg" % (
        lbroot, os.path.join(cphacmd.build_dir(), "lbd", "lbd"), lbroot)
    # unshare and sh exec into lbd: the spawned pid is lbd's (SIGHUP below)
    procs["lbd"] = hosts[LB[0]].spawn(["unshare", "--mount", "--propagation", "private",
                                       "sh", "-c", lbd_cmd], name="lbd")
    hosts[LB[0]].run(["ip", "addr", "add", "%s/24" % VIP, "dev", "eth0"])
    sock = lbroot + "/run/lbd/admin.sock"
    util.wait_until(lambda: os.path.exists(sock), 10, what="lbd's admin socket")

    step("the real kubectl, rendered admin.conf, through lbd at the VIP (10 times)")
    kubectl = shutil.which("kubectl")
    kc = lab.path("admin.conf")
    with open(kc, "w") as f:
        f.write(cphacmd.rebase_text(read(os.path.join(out, "cluster", "admin.conf")),
                                    roots["m0"]))
    env = dict(os.environ, HOME=lab.path("home"))
    os.makedirs(env["HOME"], exist_ok=True)

    def readyz():
        r = hosts[CLIENT[0]].run([kubectl, "--kubeconfig", kc,
                                  "--server", "https://%s:6443" % VIP,
                                  "--tls-server-name", "kubernetes",
                                  "get", "--raw", "/readyz"], check=False, env=env)
        return r.returncode == 0 and r.stdout.strip() == "ok", r
    # lbd needs rise x inter of good checks before it sends traffic
    util.wait_until(lambda: readyz()[0], 30, interval=0.5, what="kubectl /readyz via lbd")
    for i in range(10):
        ok, r = readyz()
        check(ok, "kubectl get --raw /readyz #%d: rc %d %r %r" % (i, r.returncode, r.stdout,
                                                                   r.stderr))

    step("cpha check: every host as rendered is ok; lbd runs what its file says")
    for n in [LB[0], "m0"]:
        r = cphacmd.run(["-f", desc, "check", "--host", n, "--root", roots[n]], check=False)
        check(r.returncode == 0 and "%s: ok" % n in r.stdout,
              "check %s: exit %d\n%s%s" % (n, r.returncode, r.stdout, r.stderr))
    r = cphacmd.run(["-f", desc, "check", "--host", LB[0], "--root", lbroot], check=False)
    check("lbd: running with" in r.stdout, r.stdout)
    prom = os.path.join(lab.path("textfile"), "cpha-check.prom")
    os.makedirs(os.path.dirname(prom), exist_ok=True)
    r = cphacmd.run(["-f", desc, "check", "--host", "m0", "--root", roots["m0"],
                     "--textfile", prom], check=False)
    check(r.returncode == 0 and 'cpha_config_drift{host="m0"} 0\n' in read(prom) and
          'cpha_config_check_timestamp_seconds{host="m0"} ' in read(prom) and
          os.stat(prom).st_mode & 0o777 == 0o644, "check --textfile, no drift:\n" + read(prom))

    step("cpha check: an edited kubeconfig on m1 is drift, with its diff")
    kcm = roots["m1"] + "/var/lib/kube-controller-manager/kubeconfig"
    text = read(kcm)
    with open(kcm, "w") as f:
        f.write(text.replace("https://kubernetes:6443", "https://198.18.0.12:6443"))
    r = cphacmd.run(["-f", desc, "check", "--host", "m1", "--root", roots["m1"],
                     "--textfile", prom], check=False)
    check(r.returncode == 1, "edited file: exit %d\n%s" % (r.returncode, r.stdout))
    check('cpha_config_drift{host="m1"} 1\n' in read(prom) and "m0" not in read(prom),
          "check --textfile, drift:\n" + read(prom))
    check("/var/lib/kube-controller-manager/kubeconfig: DRIFT" in r.stdout, r.stdout)
    check("+    server: https://kubernetes:6443" in r.stdout, r.stdout)
    check("m1: degraded" in r.stdout, r.stdout)

    step("cpha check: lbd reloaded an edited file, then the file was put back")
    cfg = lbroot + "/etc/lbd/lbd.cfg"
    good = read(cfg)
    with open(cfg, "w") as f:
        f.write(good.replace("maxconn 4000", "maxconn 3999"))
    r = cphacmd.run(["-f", desc, "check", "--host", LB[0], "--root", lbroot], check=False)
    check(r.returncode == 1 and "/etc/lbd/lbd.cfg: DRIFT" in r.stdout and
          "lbd: DRIFT" in r.stdout, "edited lbd.cfg, lbd not reloaded:\n" + r.stdout)
    reloads = int(util.unix_request(sock, "show info").split("Reloads: ")[1].split()[0])
    procs["lbd"].kill(signal.SIGHUP)
    util.wait_until(lambda: int(util.unix_request(sock, "show info").split("Reloads: ")[1]
                                .split()[0]) > reloads, 10, what="lbd reload")
    with open(cfg, "w") as f:
        f.write(good)
    r = cphacmd.run(["-f", desc, "check", "--host", LB[0], "--root", lbroot], check=False)
    check(r.returncode == 1, "stale lbd: exit %d\n%s" % (r.returncode, r.stdout))
    check("/etc/lbd/lbd.cfg: DRIFT" not in r.stdout, r.stdout)
    check("lbd: DRIFT: the running daemon loaded other bytes" in r.stdout, r.stdout)

    step("cpha restart / logs: the manager's own command, printed (--dry-run)")
    expect = [
        (desc, ["restart", "apiserver", "--host", "m0"],
         "systemctl restart kube-apiserver.service"),
        (desc, ["logs", "etcd", "-f"], "journalctl -u etcd.service -n 200 -f"),
        (desc, ["restart", "lb"], "systemctl restart lbd.service"),
        (SAMPLE, ["restart", "etcd", "--host", "kubem01"],
         "crm_resource --restart --resource etcd-clone --node kubem01 --lifetime PT5M"),
        (SAMPLE, ["restart", "controllers"], "crm_resource --restart --resource kcm"),
        (SAMPLE, ["logs", "apiserver"], "tail -n 200 /var/log/cpha/kube-apiserver.log"),
    ]
    for f, args, want in expect:
        r = cphacmd.run(["-f", f] + args + ["--dry-run"])
        check(r.stdout.strip() == "cpha: running: " + want, "%s: %r" % (args, r.stdout))
    r = cphacmd.run(["-f", desc, "restart", "etcdd", "--dry-run"], check=False)
    check(r.returncode == 64 and "unknown role 'etcdd'" in r.stderr, r.stderr)

    step("after a reload of the good file, lb0 is ok again and kubectl still works")
    reloads += 1
    procs["lbd"].kill(signal.SIGHUP)
    util.wait_until(lambda: int(util.unix_request(sock, "show info").split("Reloads: ")[1]
                                .split()[0]) > reloads, 10, what="lbd reload")
    r = cphacmd.run(["-f", desc, "check", "--host", LB[0], "--root", lbroot], check=False)
    check(r.returncode == 0, "reloaded: exit %d\n%s" % (r.returncode, r.stdout))
    check(readyz()[0], "kubectl after the reloads")

    step("vipd on lb0 with the rendered vipd.conf: cpha check compares what it loaded")
    # same /run as lbd (track_lbd reads its socket); no fenced here, so
    # track_fenced keeps it from taking the VIP, which is fine for this
    os.makedirs(lbroot + "/run/vipd", exist_ok=True)
    vipd_cmd = "mount --bind %s/run /run && exec %s -f %s/etc/vipd/vipd.conf" % (
        lbroot, os.path.join(cphacmd.build_dir(), "vipd", "vipd"), lbroot)
    procs["vipd"] = hosts[LB[0]].spawn(["unshare", "--mount", "--propagation", "private",
                                        "sh", "-c", vipd_cmd], name="vipd")
    vsock = lbroot + "/run/vipd/admin.sock"
    util.wait_until(lambda: os.path.exists(vsock), 10, what="vipd's admin socket")
    r = cphacmd.run(["-f", desc, "check", "--host", LB[0], "--root", lbroot], check=False)
    check(r.returncode == 0 and "vipd: running with" in r.stdout, r.stdout)
    vconf = lbroot + "/etc/vipd/vipd.conf"
    with open(vconf, "a") as f:
        f.write("! edited by hand\n")
    r = cphacmd.run(["-f", desc, "check", "--host", LB[0], "--root", lbroot], check=False)
    check(r.returncode == 1 and "/etc/vipd/vipd.conf: DRIFT" in r.stdout and
          "vipd: DRIFT: the running daemon loaded other bytes" in r.stdout, r.stdout)


def main():
    reason = cphatest.root_skip_reason()
    if reason:
        return cphatest.util.skip(reason)
    if not shutil.which("kubectl"):
        return cphatest.util.skip("kubectl is not installed: the test drives the real one")
    if not shutil.which("etcd"):
        return cphatest.util.skip("etcd is not installed (scripts/setup.sh installs it)")
    return cphatest.main("cphacluster", run, dump_lines=40)


if __name__ == "__main__":
    sys.exit(main())
