#!/usr/bin/env python3
"""A quorum device decides a split of the two LB hosts: the side that
reaches corosync-qnetd keeps quorum and fences the other; the cut side loses
quorum and fences nobody.

Hosts lb1, lb2 (the LB hosts), qn (corosync-qnetd) and bmc (one ipmi_sim
BMC per LB host, reached by the real fence_ipmilan). The LB hosts run
corosync with the corosync.conf and fenced with the fenced.conf that `cpha
render` makes from tests/fixtures/cpha/qdevice.yaml (its addresses rewritten
to this test's hosts; corosync logs to stderr), plus corosync-qdevice. The
TLS certificates are made by running docs/deploy.md's blocks marked
if=qdevice (as `cpha lab up --qdevice` does) on the hosts their lab= tag
names, the files carried through one $STAGE every host sees.

  0. the pair starts as the same description without its qdevice renders
     it (two_node, the fence-race delays), and is switched to the device
     while it runs, as docs/runbook.md's "Adding a quorum device to the LB
     hosts" says: the new files installed, `corosync-cfgtool -R`,
     corosync-qdevice started, fenced reloaded. Both hosts stay quorate
     throughout, and nobody is fenced;
  1. both LB hosts quorate with the device's vote (corosync-quorumtool:
     Qdevice flag, 3 votes; corosync-qdevice-tool: connected), and fenced
     on each says the device votes for it;
  2. lb2 is cut from lb1 and qn (nftables in lb2, both ways), lb1's fenced
     held (SIGSTOP) meanwhile: lb2 loses quorum; then lb1 (quorate all
     along) fences lb2 through lb2's BMC; lb2's fenced runs no agent and
     lb1's BMC is never told to power off; healed, lb2 boots and rejoins;
  3. the same with lb1 cut, nothing held: lb2 fences lb1, lb1 fences
     nobody (the cut side is taken down before votequorum, waiting for
     the device, gives it its lost quorum: it must not act on the old);
  4. lb2 cut again: a second time works;
  5. an even split (both still reach qn) with the VIP on lb2: lb2 keeps
     quorum, whatever the tie-breaker says;
  6. both stopped and started again with the device's files (a cold start,
     as at deployment): quorate with the device's vote.
Exit 0 pass, 77 skip, 1 fail.
    sudo python3 tests/integration/test_corosync_qdevice.py
"""

import os
import re
import shutil
import signal
import subprocess
import sys
import time

sys.dont_write_bytecode = True

import cphatest  # noqa: E402
from cphalab import guide  # noqa: E402
from cphatest import fencedlab, pacemaker, step, util  # noqa: E402

NAMES = ("lb1", "lb2")
IPS = ("198.18.0.81", "198.18.0.82")
QN_IP = "198.18.0.83"
VIP = "198.18.0.50/24"  # the fixture's api.vip
BMC_IP = "198.18.0.90"
FIXTURE = os.path.join(util.repo_root(), "tests", "fixtures", "cpha", "qdevice.yaml")
DEPLOY = os.path.join(util.repo_root(), "docs", "deploy.md")
CPHA = os.path.join(util.build_dir(), "control-plane", "cpha")
QNETD_DIR = "/etc/corosync/qnetd"  # what Debian's corosync-qnetd made at install


def check(cond, msg):
    if not cond:
        raise AssertionError(msg)


def guide_blocks():
    """[(where, block)] of docs/deploy.md's if=qdevice blocks, in order,
    as `cpha lab up` reads them (cphalab.guide)."""
    with open(DEPLOY) as f:
        blocks = [b for b in guide.parse(f.read(), DEPLOY) if b.cond == "qdevice"]
    check(len(blocks) >= 5, "docs/deploy.md: only %d if=qdevice blocks" % len(blocks))
    for b in blocks:
        check(b.where in ("qnetd", "lbs", "first-lb"),
              "docs/deploy.md:%d: lab=%s names no host of this test" % (b.line, b.where))
    return blocks


def render(lab, cl, qn, with_qdevice=True):
    """The LB hosts' rendered corosync.conf (one text) and fenced.conf
    ({name: text}) from the fixture, rewritten to this lab; without
    with_qdevice, from the fixture less its qdevice: section."""
    with open(FIXTURE) as f:
        desc = f.read()
    if not with_qdevice:
        check("\nqdevice:\n" in desc, "the fixture no longer ends with its qdevice: section")
        desc = desc[:desc.index("\nqdevice:\n") + 1]
    fixed = {"198.18.0.21": IPS[0], "198.18.0.22": IPS[1], "198.18.0.11": QN_IP,
             "198.18.0.40": BMC_IP, "/etc/fenced/bmc-password": cl.secret}
    for a, b in fixed.items():
        check(a in desc, "the fixture no longer holds %s" % a)
        desc = desc.replace(a, b)
    for n in cl.nodes:
        port = '"%d"' % (fencedlab.BMC_PORT0 + 1 + cl.nodes.index(n))
        check(port in desc, "the fixture's BMC port of %s is not %s" % (n.name, port))
    tag = "" if with_qdevice else "-two-node"
    path = os.path.join(lab.dir, "cluster%s.yaml" % tag)
    with open(path, "w") as f:
        f.write(desc)
    out = os.path.join(lab.dir, "render" + tag)
    r = subprocess.run([CPHA, "-f", path, "render", "--no-check", "--out", out],
                       capture_output=True, text=True, timeout=60)
    check(r.returncode == 0, "cpha render: %s%s" % (r.stdout, r.stderr))
    with open(os.path.join(out, "lb1", "etc", "corosync", "corosync.conf")) as f:
        cs = f.read()
    if with_qdevice:
        check("two_node" not in cs and "host: %s" % QN_IP in cs and "model: net" in cs,
              "rendered corosync.conf:\n%s" % cs)
    else:
        check("two_node: 1" in cs and "device" not in cs, "rendered corosync.conf:\n%s" % cs)
    cs = cs.replace("to_stderr: no", "to_stderr: yes").replace("to_syslog: yes",
                                                               "to_syslog: no")
    fenced = {}
    for n in cl.nodes:
        with open(os.path.join(out, n.name, "etc", "fenced", "fenced.conf")) as f:
            fenced[n.name] = f.read()
        race = [ln for ln in fenced[n.name].splitlines()
                if ln.split()[:1] in (["delay"], ["delay_max"], ["priority_delay_vip"])]
        check(bool(race) != with_qdevice, "fenced.conf of %s, %s a quorum device:\n%s"
              % (n.name, "with" if with_qdevice else "without", fenced[n.name]))
    return cs, fenced


def qnetd_host(lab, qn):
    """A node on host qn whose /etc/corosync holds a copy of this
    machine's qnetd database."""
    node = pacemaker.Node(lab, qn, "qn")
    node._prepare()
    dst = os.path.join(node.dir, "etc-corosync", "qnetd")
    shutil.rmtree(dst, ignore_errors=True)
    subprocess.run(["cp", "-a", QNETD_DIR, dst], check=True, timeout=30)
    node.start_holder()
    node.run(["sh", "-c", "mkdir -p /run/corosync-qnetd && "
              "chown coroqnetd:coroqnetd /run/corosync-qnetd"])
    return node


def certificates(lab, cl, qn, cluster_name):
    """docs/deploy.md's certificate steps, each on the hosts it names, up
    to the systemctl line of each block (this test starts the daemons)."""
    stage = os.path.join(lab.dir, "stage")
    os.makedirs(stage, exist_ok=True)
    hosts = {"qnetd": [qn], "lbs": cl.nodes, "first-lb": cl.nodes[:1]}
    for b in guide_blocks():
        for h in hosts[b.where]:
            for seg in guide.segments(b.text):
                if seg[0] != "sh":
                    break
                r = h.run(["env", "STAGE=" + stage, "LB_CLUSTER=" + cluster_name, "sh",
                           "-euc", seg[1]], check=False, timeout=60)
                check(r.returncode == 0, "docs/deploy.md:%d on %s: exit %d\n%s%s"
                      % (b.line, h.name, r.returncode, r.stdout, r.stderr))
    print("  docs/deploy.md: certificates made; carried: %s"
          % sorted(os.listdir(os.path.join(stage, "qdevice"))), flush=True)


def start_qdevice(node):
    node.run(["mkdir", "-p", "/run/corosync-qdevice"])
    node.qdevice = node.spawn(["corosync-qdevice", "-f", "-d"], "qdevice-" + node.name)


def quorum(node):
    """(quorate, total votes, Qdevice flag) from corosync-quorumtool -s, or
    None when it does not answer."""
    r = node.run(["corosync-quorumtool", "-s"], check=False, timeout=10)
    if "Quorate:" not in r.stdout:
        return None
    text = " ".join(r.stdout.split())
    votes = re.search(r"Total votes: (\d+)", text)
    flags = re.search(r"Flags: ([A-Za-z ]+?) (Membership|$)", text)
    return ("Quorate: Yes" in text, int(votes.group(1)) if votes else 0,
            bool(flags and "Qdevice" in flags.group(1).split()))


def with_device(node):
    q = quorum(node)
    if not q or q != (True, 3, True):
        return False
    r = node.run(["corosync-qdevice-tool", "-s"], check=False, timeout=10)
    return r.returncode == 0 and re.search(r"State:\s+Connected", r.stdout) is not None


def qdevice_vote(node):
    """fenced's show json: whether the quorum device votes for node; None
    when fenced does not say."""
    s = node.show()
    q = (s or {}).get("qdevice")
    return q.get("cast_vote") if isinstance(q, dict) else None


def cut(node, peers):
    rules = ("table inet cut {\n chain in {\n  type filter hook input priority 0;\n"
             "  ip saddr { %s } drop\n }\n chain out {\n  type filter hook output priority 0;\n"
             "  ip daddr { %s } drop\n }\n}\n" % (", ".join(peers), ", ".join(peers)))
    r = subprocess.run(["ip", "netns", "exec", node.host.ns, "nft", "-f", "-"], input=rules,
                       capture_output=True, text=True, timeout=10)
    check(r.returncode == 0, "nft: %s" % r.stderr)


def heal(node):
    subprocess.run(["ip", "netns", "exec", node.host.ns, "nft", "delete", "table", "inet",
                    "cut"], capture_output=True, timeout=10)


def quorum_seen(node, t0, seen):
    if node.corosync.running():
        q = quorum(node)
        if q:
            seen.append((time.time() - t0, q[0]))


def split(cl, keeper, victim, rnd, hold, even=False):
    """Cut victim from keeper and qn (even: from keeper only, both still
    reach qn). hold: keeper's fenced is stopped (SIGSTOP) until victim's
    corosync says it lost quorum, so that the loss is seen before the
    fence takes the victim down (the device gives the cut side its NACK
    only once qnetd's heartbeat to it fails)."""
    if even:
        step("%d. %s cut from %s, both reaching qn, the VIP on %s: the rendered heuristics "
             "give %s the vote (the tie-breaker would give it to %s), %s fences nobody"
             % (rnd, victim.name, keeper.name, keeper.name, keeper.name, victim.name,
                victim.name))
    else:
        step("%d. %s cut from %s and qn: %s keeps quorum and fences it; %s loses quorum and "
             "fences nobody%s" % (rnd, victim.name, keeper.name, keeper.name, victim.name,
                                  " (%s's fenced held until then)" % keeper.name if hold
                                  else ""))
    t0 = time.time()
    log_mark = len(victim.fenced_log())
    seen_victim, seen_keeper = [], []
    if hold:
        keeper.fenced.kill(signal.SIGSTOP)
    try:
        cut(victim, [keeper.host.v4] if even else [keeper.host.v4, QN_IP])
        if hold:
            end = time.time() + 45
            while time.time() < end and not any(not q for _, q in seen_victim):
                quorum_seen(victim, t0, seen_victim)
                quorum_seen(keeper, t0, seen_keeper)
                time.sleep(0.2)
            lost = [t for t, q in seen_victim if not q]
            check(lost, "%s kept quorum for 45 s after the cut: %r" % (victim.name,
                                                                       seen_victim[-5:]))
            print("  %s lost quorum %.1f s after the cut" % (victim.name, lost[0]), flush=True)
            # fenced (show json, cpha status's source) says the device
            # no longer votes for the cut side
            util.wait_until(lambda: qdevice_vote(victim) is False, 10, 0.3,
                            "%s's fenced reporting the device's vote gone" % victim.name)
    finally:
        if hold:
            keeper.fenced.kill(signal.SIGCONT)
    fenced_at = None
    end = time.time() + 45
    while time.time() < end and fenced_at is None:
        quorum_seen(victim, t0, seen_victim)
        quorum_seen(keeper, t0, seen_keeper)
        offs = [t for t, e in cl.bmc_events(victim, t0) if e.startswith("set power 0")]
        fenced_at = offs[0] if offs else None
        time.sleep(0.2)
    check(fenced_at is not None, "%s's BMC was not told to power off in 45 s; %s quorate: %r"
          % (victim.name, keeper.name, seen_keeper[-5:]))
    print("  %s powered off through its BMC %.1f s after the cut" % (victim.name,
                                                                    fenced_at - t0), flush=True)
    check(seen_keeper and all(q for _, q in seen_keeper), "%s lost quorum: %r" % (
        keeper.name, [s for s in seen_keeper if not s[1]][:5]))
    time.sleep(3)  # a fence from the cut side would have come by now
    offs = [e for t, e in cl.bmc_events(keeper, t0) if e.startswith("set power")]
    check(not offs, "%s's BMC was told %r after the cut" % (keeper.name, offs))
    log = victim.fenced_log()[log_mark:]
    check("fencing %s" % keeper.name not in log, "%s's fenced ran an agent against %s:\n%s"
          % (victim.name, keeper.name, log))
    check(keeper.corosync.running() and keeper.fenced.running(),
          "%s is down after the split" % keeper.name)
    print("  %s fenced nobody; %s's BMC untouched" % (victim.name, keeper.name), flush=True)

    step("%d. healed: %s boots and both are quorate with the device again" % (rnd,
                                                                              victim.name))
    heal(victim)
    cl.bmc_power(victim, True)
    cl.wait_left(victim)
    victim.boot()
    start_qdevice(victim)
    util.wait_until(lambda: with_device(keeper) and with_device(victim), 60, 0.5,
                    "both quorate with the device after %s rejoined" % victim.name)
    util.wait_until(lambda: cl.domain_ok(keeper) and cl.domain_ok(victim), 40, 0.5,
                    "both fenced quorate with both members")


def install(cl, cs, fenced):
    """Each LB host's corosync.conf and fenced.conf, as `cpha install` puts
    them (the files only; nothing is restarted)."""
    for n in cl.nodes:
        with open(os.path.join(n.dir, "etc-corosync", "corosync.conf"), "w") as f:
            f.write(cs)
        with open(n.fenced_conf, "w") as f:
            f.write(fenced[n.name])


def switch(cl, qnode, cs, fenced):
    """docs/runbook.md, "Adding a quorum device to the LB hosts", "Starting
    it": on a running two_node pair, while both hosts' quorum is watched."""
    t0 = time.time()
    seen = {n.name: [] for n in cl.nodes}
    bmc_mark = {n.name: len(cl.bmc_events(n, 0)) for n in cl.nodes}

    def watch(seconds):
        end = time.time() + seconds
        while time.time() < end:
            for n in cl.nodes:
                quorum_seen(n, t0, seen[n.name])
            time.sleep(0.2)

    step("0. the pair runs two_node; switched to the device as docs/runbook.md says")
    qnode.qnetd = qnode.spawn(["setpriv", "--reuid=coroqnetd", "--regid=coroqnetd",
                               "--init-groups", "corosync-qnetd", "-f", "-d"], "qnetd")
    watch(2)
    install(cl, cs, fenced)
    r = cl.nodes[0].run(["corosync-cfgtool", "-R"], check=False, timeout=30)
    check(r.returncode == 0, "corosync-cfgtool -R: %s%s" % (r.stdout, r.stderr))
    watch(2)
    for n in cl.nodes:
        start_qdevice(n)
    for n in cl.nodes:  # systemctl reload fenced
        n.fenced.kill(signal.SIGHUP)
    end = time.time() + 60
    while time.time() < end and not all(with_device(n) for n in cl.nodes):
        watch(0.5)
    check(all(with_device(n) for n in cl.nodes),
          "not both quorate with the device's vote 60 s after the switch: %r"
          % {n.name: quorum(n) for n in cl.nodes})
    watch(2)
    for n in cl.nodes:
        lost = [t for t, q in seen[n.name] if not q]
        check(seen[n.name] and not lost, "%s lost quorum during the switch, at %r"
              % (n.name, ["%.1f s" % t for t in lost[:5]]))
        offs = cl.bmc_events(n, 0)[bmc_mark[n.name]:]
        check(not offs, "%s's BMC was told %r during the switch" % (n.name, offs))
        check("reloaded" in n.fenced_log(), "fenced on %s did not reload" % n.name)
    print("  quorate all along (%s quorum reads), nobody fenced, %.1f s"
          % (sum(len(v) for v in seen.values()), time.time() - t0), flush=True)


def run(lab):
    cl = fencedlab.build(lab, NAMES, IPS, BMC_IP, cluster="lab-lb")
    qn = lab.add_host("qn", v4=QN_IP + "/24")
    try:
        cs, fenced = render(lab, cl, qn)
        cs2, fenced2 = render(lab, cl, qn, with_qdevice=False)
        cl.corosync_conf = cs2
        cl.write_fenced_conf(lambda n: fenced2[n.name])
        step("corosync (rendered without the quorum device: two_node) and fenced on lb1, "
             "lb2")
        cl.start()
        check(all(quorum(n) == (True, 2, False) for n in cl.nodes),
              "two_node: %r" % {n.name: quorum(n) for n in cl.nodes})
        qnode = qnetd_host(lab, qn)
        step("docs/deploy.md's certificate steps on qn, lb1 and lb2")
        certificates(lab, cl, qnode, "lab-lb")
        switch(cl, qnode, cs, fenced)
        step("1. corosync-qnetd on qn, corosync-qdevice on lb1 and lb2: the device votes")
        util.wait_until(lambda: all(with_device(n) for n in cl.nodes), 60, 0.5,
                        "both LB hosts quorate with the device's vote")
        util.wait_until(lambda: all(qdevice_vote(n) for n in cl.nodes), 20, 0.5,
                        "both fenced reporting the device's vote (show json: qdevice)")
        r = qnode.run(["corosync-qnetd-tool", "-l", "-v"], check=False, timeout=10)
        check(r.returncode == 0 and "lab-lb" in r.stdout and r.stdout.count("Node ID") == 2,
              "corosync-qnetd-tool -l: %s%s" % (r.stdout, r.stderr))
        # the guide's certificates in use: TLS with the client's verified
        check(r.stdout.count("TLS active:\t\tYes (client certificate verified)") == 2
              or len(re.findall(r"TLS active:\s+Yes \(client certificate verified\)",
                                r.stdout)) == 2, "corosync-qnetd-tool -lv: %s" % r.stdout)
        print("  " + "\n  ".join(r.stdout.strip().splitlines()), flush=True)
        lb1, lb2 = cl.nodes
        split(cl, lb1, lb2, 2, hold=True)
        split(cl, lb2, lb1, 3, hold=False)
        split(cl, lb1, lb2, 4, hold=False)
        # an even split: the tie-breaker (lowest) would pick lb1; the VIP
        # on lb2 makes its heuristics pass and lb1's fail
        lb2.run(["ip", "addr", "add", VIP, "dev", "eth0"])
        split(cl, lb2, lb1, 5, hold=False, even=True)
        step("6. both stopped and started with the device's files, as at deployment")
        for n in cl.nodes:  # a clean stop first: neither fences the other
            n.fenced.terminate_and_wait()
        for n in cl.nodes:
            cl.power_off(n, log=False)
        for n in cl.nodes:
            n.boot()
            start_qdevice(n)
        util.wait_until(lambda: all(with_device(n) for n in cl.nodes), 60, 0.5,
                        "both quorate with the device after a cold start")
        util.wait_until(lambda: all(qdevice_vote(n) for n in cl.nodes), 20, 0.5,
                        "both fenced reporting the device's vote after a cold start")
    finally:
        cl.close()


def main():
    cphatest.require_root(tools=("corosync", "corosync-qdevice", "corosync-qnetd",
                                 "corosync-qdevice-net-certutil", "ipmi_sim", "fence_ipmilan",
                                 "ipmitool", "nft"))
    if not os.path.isdir(os.path.join(QNETD_DIR, "nssdb")):
        return util.skip("%s/nssdb missing (Debian's corosync-qnetd makes it)" % QNETD_DIR)
    for b in (fencedlab.FENCED, CPHA):
        if not os.access(b, os.X_OK):
            return util.skip("%s not built (set CPHA_BUILD_DIR)" % b)
    return cphatest.main("corosync-qdevice", run, dump_lines=60)


if __name__ == "__main__":
    sys.exit(main())
