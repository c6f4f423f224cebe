#!/usr/bin/env python3
"""cpha's OCF agents against the real programs, one lab host (m0, 198.18.0.11).

For every agent (kube-apiserver, kube-controller-manager, kube-scheduler with
the stand-ins (the lab's simulators); lbd from this build; HAProxy from Debian):
ocf-tester passes (meta-data valid against ra-api-1.dtd, run as nobody;
validate-all, probes, start, start again, stop, stop again), and
`pcs resource describe ocf:cpha:NAME` shows it (agents overlaid on
/usr/lib/ocf/resource.d in a private mount namespace). Then what ocf-tester
does not look at:
  kube-apiserver: an even --etcd-servers list is OCF_ERR_CONFIGURED (from
  args) or OCF_ERR_ARGS (from an envfile) at validate-all unless
  allow_even_etcd, and only a warning at start (never an outage); missing
  or mismatched TLS files; a start that dies quotes its log; with etcd down
  monitor says OCF_DEGRADED (never an error) and OK again when etcd is back;
  a recycled pid in the pid file is not ours (monitor: not running, stop
  leaves it alone); stop lets --shutdown-delay-duration run.
  kube-controller-manager from a systemd EnvironmentFile, kube-scheduler
  from args: --leader-elect is added (true / false) unless set.
  lbd and HAProxy: reload after a configuration change opens the new
  frontend, keeps the established connection and the process; a refused
  file keeps the old configuration and monitor reports OCF_DEGRADED.
Exit 0 pass, 77 skip, 1 fail.
    sudo python3 tests/integration/test_ocf_agents.py
"""

import os
import re
import sys
import time

sys.dont_write_bytecode = True

import cphatest  # noqa: E402
from cphatest import etcd, kube, ocf, step  # noqa: E402
from cphatest import lbd as lbdlib  # noqa: E402

IP = "198.18.0.11"


def check(cond, msg):
    if not cond:
        raise AssertionError(msg)


def expect(host, stage, name, action, params, rc, reason=None, **kw):
    got, err = ocf.run_agent(host, stage, name, action, params, **kw)
    why = ocf.exit_reason(err)
    check(got == rc, "%s %s: exit %d, expected %d\n%s" % (name, action, got, rc, err))
    if reason:
        check(why and re.search(reason, why),
              "%s %s: exit reason %r does not match %r" % (name, action, why, reason))
    return why


def tester(host, stage, name, params, instance):
    t0 = time.monotonic()
    r = ocf.ocf_tester(host, stage, name, params, instance)
    check(r.returncode == 0 and "passed all tests" in r.stdout,
          "ocf-tester %s failed (exit %d):\n%s\n%s" % (name, r.returncode, r.stdout, r.stderr))
    step("ocf-tester %s: passed (%.1fs)" % (name, time.monotonic() - t0))


def flags(argv):
    """The flags of an argv (binary dropped) as one args string."""
    for a in argv[1:]:
        check(not re.search(r"[\s'\"\\]", a), "flag %r would need quoting" % a)
    return " ".join(argv[1:])


def pid_of(path):
    with open(path) as f:
        return int(f.read().strip())


# ------------------------------------------------------------ apiserver --

def apiserver(lab, m0, stage, pki, members, etls):
    ca = pki.ca_cert
    cert, key = kube.apiserver_cert(pki, m0)
    url = members[0].client_url
    base = kube.apiserver_argv([url], cert, key, ca, etls)
    run = lab.path("run")
    common = {"binary": kube.binary("kube-apiserver"), "piddir": run,
              "logfile": lab.path("ocf", "kube-apiserver.log"), "ca": ca}

    step("kube-apiserver validate-all: quorum sizing and TLS files")
    even = dict(common, args=flags(kube.apiserver_argv([url, "https://198.18.0.12:2379"],
                                                     cert, key, ca, etls)))
    expect(m0, stage, "kube-apiserver", "validate-all", even, ocf.ERR_CONFIGURED,
           r"^even etcd size refused: list 3 or 5 --etcd-servers \(2 given.*2n\+1")
    expect(m0, stage, "kube-apiserver", "validate-all", dict(even, allow_even_etcd="true"),
           ocf.OK)
    envfile = ocf.write(lab.path("ocf", "apiserver.env"),
                        "# as in the classic unit\nKUBE_APISERVER_ARGS=\"%s\"\n"
                        % even["args"].replace(" ", " \\\n  "))
    expect(m0, stage, "kube-apiserver", "validate-all", dict(common, envfile=envfile),
           ocf.ERR_ARGS, r"even etcd size refused: .*2 given")
    # start only warns: a refusal there would stop the clone on every node
    step("kube-apiserver start with an even --etcd-servers: runs, with a warning")
    expect(m0, stage, "kube-apiserver", "start", even, ocf.OK, instance="even")
    expect(m0, stage, "kube-apiserver", "monitor", even, ocf.OK, instance="even")
    expect(m0, stage, "kube-apiserver", "stop", even, ocf.OK, instance="even")
    three = kube.apiserver_argv([url, url.replace("2379", "12379"), url.replace("2379", "22379")],
                                cert, key, ca, etls)
    expect(m0, stage, "kube-apiserver", "validate-all", dict(common, args=flags(three)), ocf.OK)
    dup = kube.apiserver_argv([url, url, url], cert, key, ca, etls)
    expect(m0, stage, "kube-apiserver", "validate-all", dict(common, args=flags(dup)),
           ocf.ERR_CONFIGURED, r"listed twice")
    missing = [a.replace(cert, lab.path("pki", "nope.crt")) for a in base]
    expect(m0, stage, "kube-apiserver", "validate-all", dict(common, args=flags(missing)),
           ocf.ERR_INSTALLED, r"--tls-cert-file .*nope.crt: No such file")
    swapped = [a.replace(key, etls.key) for a in base]
    expect(m0, stage, "kube-apiserver", "validate-all", dict(common, args=flags(swapped)),
           ocf.ERR_ARGS, r"is not the key of --tls-cert-file")
    expect(m0, stage, "kube-apiserver", "validate-all",
           dict(common, args=flags(base), binary="/nonexistent/kube-apiserver"),
           ocf.ERR_INSTALLED)

    step("kube-apiserver: a start that dies says why")
    # an address this host does not have: the listen fails after validate-all
    bad = dict(common, args=flags(base + ["--bind-address=198.18.0.99"]))
    expect(m0, stage, "kube-apiserver", "start", bad, ocf.ERR_GENERIC,
           r"exited with status 1 during start: .*198\.18\.0\.99")
    expect(m0, stage, "kube-apiserver", "stop", bad, ocf.OK)

    step("kube-apiserver: anonymous probes refused -> client certificate, name checked")
    noanon = dict(common, args=flags(base + ["--anonymous-auth=false"]))
    expect(m0, stage, "kube-apiserver", "start", noanon, ocf.ERR_GENERIC,
           r"HTTP 401.*set cert and key", instance="noanon", timeout_ms=10000)
    expect(m0, stage, "kube-apiserver", "stop", noanon, ocf.OK, instance="noanon")
    pcert, pkey = pki.issue("probe", "cpha-probe", client=True)
    withcert = dict(noanon, cert=pcert, key=pkey, server_name="kubernetes")
    expect(m0, stage, "kube-apiserver", "start", withcert, ocf.OK, instance="noanon")
    expect(m0, stage, "kube-apiserver", "monitor", withcert, ocf.OK, instance="noanon")
    expect(m0, stage, "kube-apiserver", "monitor", dict(withcert, server_name="wrong.example"),
           ocf.ERR_GENERIC, r"not live: .*(certificate|SSL|subject)", instance="noanon",
           timeout_ms=6000)
    expect(m0, stage, "kube-apiserver", "stop", withcert, ocf.OK, instance="noanon")

    params = dict(common, args=flags(base + ["--shutdown-delay-duration=1s"]))
    tester(m0, stage, "kube-apiserver", params, "apiserver")

    step("kube-apiserver: etcd down -> monitor OCF_DEGRADED, never an error")
    expect(m0, stage, "kube-apiserver", "start", params, ocf.OK, instance="apiserver")
    pidfile = os.path.join(run, "kube-apiserver-apiserver.pid")
    pid = pid_of(pidfile)
    members[0].stop()
    seen = []

    def degraded():
        rc, err = ocf.run_agent(m0, stage, "kube-apiserver", "monitor", params,
                                instance="apiserver", interval_ms=10000)
        seen.append(rc)
        check(rc in (ocf.OK, ocf.DEGRADED), "monitor with etcd down: %d\n%s" % (rc, err))
        return rc == ocf.DEGRADED
    cphatest.wait_until(degraded, 20, 0.3, "monitor to report OCF_DEGRADED")
    members[0].start()
    etcd.wait_healthy(members, etls, timeout=30)
    cphatest.wait_until(lambda: ocf.run_agent(m0, stage, "kube-apiserver", "monitor", params,
                                              instance="apiserver")[0] == ocf.OK,
                        20, 0.3, "monitor OK once etcd is back")
    check(pid_of(pidfile) == pid, "the same apiserver process throughout")
    step("monitor results while etcd was down: %s" % sorted(set(seen)))

    step("kube-apiserver: a recycled pid is not ours")
    expect(m0, stage, "kube-apiserver", "stop", params, ocf.OK, instance="apiserver")
    ocf.write(pidfile, "%d\n" % members[0].proc.pid)
    expect(m0, stage, "kube-apiserver", "monitor", params, ocf.NOT_RUNNING,
           instance="apiserver", interval_ms=0)
    expect(m0, stage, "kube-apiserver", "stop", params, ocf.OK, instance="apiserver")
    check(members[0].proc.running(), "stop left etcd (named by a stale pid file) alone")

    step("kube-apiserver: stop lets --shutdown-delay-duration=2s run")
    slow = dict(common, args=flags(base + ["--shutdown-delay-duration=2s"]),
                logfile=lab.path("ocf", "kube-apiserver-graceful.log"))
    expect(m0, stage, "kube-apiserver", "start", slow, ocf.OK, instance="apiserver")
    t0 = time.monotonic()
    expect(m0, stage, "kube-apiserver", "stop", slow, ocf.OK, instance="apiserver",
           timeout_ms=30000)
    took = time.monotonic() - t0
    log = open(slow["logfile"]).read()
    check(took >= 2.0, "stop took %.2fs, less than the shutdown delay" % took)
    check("AfterShutdownDelayDuration" in log and "apiserver is exiting" in log,
          "graceful shutdown ran to its end:\n%s" % log[-2000:])
    step("graceful stop took %.2fs" % took)


# --------------------------------------------------- kcm and scheduler --

def controllers(lab, m0, stage, pki):
    ca = pki.ca_cert
    sa_key = pki.new_key("sa")
    run = lab.path("run")

    kcm_cert, kcm_key = pki.issue("kcm", "system:kube-controller-manager", client=True)
    kc = kube.write_kubeconfig(lab.path("kcm.kubeconfig"), "https://%s:6443" % IP,
                               "system:kube-controller-manager", ca, kcm_cert, kcm_key)
    argv = [a for a in kube.controller_manager_argv(kc, ca, sa_key)
            if a != "--leader-elect=true"]
    envfile = ocf.write(lab.path("ocf", "kcm.env"),
                        "KUBE_CONTROLLER_MANAGER_ARGS=\"%s\"\nKCM_EXTRA=1\n" % flags(argv))
    params = {"binary": kube.binary("kube-controller-manager"), "envfile": envfile,
              "piddir": run, "logfile": lab.path("ocf", "kcm.log")}
    tester(m0, stage, "kube-controller-manager", params, "kcm")
    log = open(params["logfile"]).read()
    check("Leader election identity" in log, "the agent turned --leader-elect on:\n%s"
          % log[-1500:])
    expect(m0, stage, "kube-controller-manager", "start", params, ocf.OK, instance="kcm")
    saved = open(os.path.join(run, "kube-controller-manager-kcm.argv")).read().split("\0")
    check("--leader-elect=true" in saved, "saved command line %s" % saved)
    environ = open("/proc/%d/environ" % pid_of(
        os.path.join(run, "kube-controller-manager-kcm.pid"))).read().split("\0")
    check("KCM_EXTRA=1" in environ, "the envfile's variables reach the daemon: %s" % environ)
    expect(m0, stage, "kube-controller-manager", "stop", params, ocf.OK, instance="kcm")

    sched_cert, sched_key = pki.issue("sched", "system:kube-scheduler", client=True)
    kc = kube.write_kubeconfig(lab.path("sched.kubeconfig"), "https://%s:6443" % IP,
                               "system:kube-scheduler", ca, sched_cert, sched_key)
    argv = [a for a in kube.scheduler_argv(kc) if a != "--leader-elect=true"]
    params = {"binary": kube.binary("kube-scheduler"), "args": flags(argv),
              "piddir": run, "logfile": lab.path("ocf", "sched.log"), "leader_elect": "false"}
    tester(m0, stage, "kube-scheduler", params, "sched")
    log = open(params["logfile"]).read()
    check("leader election disabled" in log, "leader_elect=false reached the flags:\n%s"
          % log[-1500:])
    # the operator's flag wins over the parameter
    params["args"] += " --leader-elect=true"
    expect(m0, stage, "kube-scheduler", "start", params, ocf.OK, instance="sched")
    saved = open(os.path.join(run, "kube-scheduler-sched.argv")).read().split("\0")
    check("--leader-elect=false" not in saved, "saved command line %s" % saved)
    expect(m0, stage, "kube-scheduler", "stop", params, ocf.OK, instance="sched")


# ----------------------------------------------------------- lbd, haproxy --

def load_balancer(lab, m0, stage, name, binary, port):
    """ocf-tester, then reload without dropping a connection."""
    run = lab.path("run")
    sock = lab.path("%s-stats.sock" % name)
    cfg = lab.path("ocf", "%s.cfg" % name)
    backend = [("m0", "%s:8000" % IP)]
    ocf.write(cfg, ocf.lb_config(sock, [("fe", "%s:%d" % (IP, port))], backend))
    params = {"config": cfg, "piddir": run, "logfile": lab.path("ocf", "%s.log" % name),
              "check_address": "%s:%d" % (IP, port)}
    if binary:
        params["binary"] = binary
    expect(m0, stage, name, "validate-all", params, ocf.OK)
    tester(m0, stage, name, params, name)

    step("%s: reload keeps the established connection and the process" % name)
    expect(m0, stage, name, "start", params, ocf.OK, instance=name)
    pidfile = os.path.join(run, "%s-%s.pid" % (name, name))
    pid = pid_of(pidfile)
    conn, tag = lbdlib.tag_connect(m0, IP, port)
    check(tag == "m0", "connected through %s to the tag server: %r" % (name, tag))
    check(lbdlib.echo(conn, b"before\n") == b"before\n", "echo before the reload")
    ocf.write(cfg, ocf.lb_config(sock, [("fe", "%s:%d" % (IP, port)),
                                        ("fe2", "%s:%d" % (IP, port + 1))], backend))
    expect(m0, stage, name, "reload", dict(params, config_version="2"), ocf.OK, instance=name)
    check(pid_of(pidfile) == pid, "%s kept its pid (%d) over the reload" % (name, pid))
    check(lbdlib.tag_of(m0, IP, port + 1) == "m0", "the new frontend answers")
    check(lbdlib.echo(conn, b"after\n") == b"after\n",
          "the connection made before the reload still carries data")
    check(lbdlib.tag_of(m0, IP, port) == "m0", "the old frontend still answers")

    step("%s: a refused file keeps the running configuration (OCF_DEGRADED)" % name)
    with open(cfg, "a") as f:
        f.write("    no-such-keyword here\n")
    expect(m0, stage, name, "reload", dict(params, config_version="3"), ocf.OK, instance=name)
    expect(m0, stage, name, "monitor", params, ocf.DEGRADED, instance=name, interval_ms=10000)
    expect(m0, stage, name, "validate-all", params, ocf.ERR_ARGS, r"no-such-keyword")
    check(lbdlib.echo(conn, b"still\n") == b"still\n", "the connection survived the refusal")
    ocf.write(cfg, ocf.lb_config(sock, [("fe", "%s:%d" % (IP, port))], backend))
    expect(m0, stage, name, "reload", dict(params, config_version="4"), ocf.OK, instance=name)
    expect(m0, stage, name, "monitor", params, ocf.OK, instance=name, interval_ms=10000)
    check(pid_of(pidfile) == pid, "%s kept its pid" % name)
    check(lbdlib.echo(conn, b"end\n") == b"end\n", "the connection still works")
    conn.close()

    step("%s: changed options restart it" % name)
    opts = "-d" if name == "lbd" else "-V"
    expect(m0, stage, name, "reload", dict(params, options=opts), ocf.OK, instance=name)
    check(pid_of(pidfile) != pid, "a new process for new options")
    expect(m0, stage, name, "monitor", dict(params, options=opts), ocf.OK, instance=name)
    expect(m0, stage, name, "stop", dict(params, options=opts), ocf.OK, instance=name)
    expect(m0, stage, name, "monitor", params, ocf.NOT_RUNNING, instance=name)


def run(lab, stage):
    m0 = lab.add_host("m0", v4=IP + "/24", v6="2001:db8::11/64")
    pki = cphatest.Pki(lab.path("pki", "ca"))

    step("pcs resource describe, in a private mount namespace")
    for name in ocf.AGENTS:
        r = ocf.pcs_describe(stage, name)
        check(r.returncode == 0 and ("ocf:cpha:%s" % name) in r.stdout and "piddir" in r.stdout,
              "pcs resource describe ocf:cpha:%s (exit %d):\n%s%s"
              % (name, r.returncode, r.stdout, r.stderr))
    check(not os.path.exists(os.path.join(ocf.RA_DIR, "cpha")),
          "the host's /usr/lib/ocf/resource.d was not touched")

    step("start etcd (one member, TLS)")
    members, etls = etcd.make_cluster(lab, pki, [m0])
    members[0].start()
    etcd.wait_healthy(members, etls, timeout=30)

    apiserver(lab, m0, stage, pki, members, etls)

    step("an apiserver for the controllers (not managed by the agent)")
    cert, key = kube.apiserver_cert(pki, m0)
    ap = kube.start_apiserver(m0, [members[0].client_url], cert, key, pki.ca_cert, etls)
    kube.wait_ready(m0, "https://%s:6443" % IP, pki.ca_cert, ap)
    controllers(lab, m0, stage, pki)

    step("tag server on %s:8000 behind the load balancers" % IP)
    ts = m0.spawn(lbdlib.tool("tagserver.py", "--name", "m0", "--listen", "%s:8000" % IP),
                  name="tagserver")
    lbdlib.wait_log(ts, "listening on", 10)
    load_balancer(lab, m0, stage, "lbd", ocf.lbd_binary(), 7443)
    load_balancer(lab, m0, stage, "haproxy", None, 8443)


def main():
    ocf.require(tools=("ocf-tester", "xmllint", "etcd", "haproxy", "pcs", "unshare"))
    if not os.access(ocf.lbd_binary(), os.X_OK):
        print("SKIP: %s not built" % ocf.lbd_binary(), flush=True)
        return cphatest.SKIP
    return ocf.run_staged("ocf-agents", run, ocf.Stage())


if __name__ == "__main__":
    sys.exit(main())
