#!/usr/bin/env python3
"""fenced on a real three-node corosync cluster, fencing through real BMCs.

Three lab hosts n1-n3 run corosync (knet, token 1000 ms) and fenced; a
fourth host runs one ipmi_sim BMC per node (cphatest.fencedlab), reached
with the real fence_ipmilan. Level 2 of every node is fence_cpha_lab (the
test agent that powers a lab node off). Watchdogs are FIFOs read by the
test, which powers a node off when its armed watchdog goes silent.

  1. n3 dies (every process killed, as a crash): the lowest-id survivor n1
     fences it through its BMC (the BMC sees power off); n2 defers to n1;
     both histories say n3 was fenced by n1. The time is printed. n3 boots
     and rejoins, n1 unfences it (its BMC sees power on), and it is not
     fenced again.
  2. n2's BMC hangs (SIGSTOP) and n2 dies: level 1 fails (the agent is
     killed at agent_timeout or gives up), level 2 powers n2 off; every
     attempt is in the history of both members. A SIGHUP to n1 while it
     fences waits ("reload waits") and is done once the fence ended.
  3. n1 is cut off the network (alive): it loses quorum, never runs an
     agent, stops petting its watchdog and is reset within the watchdog
     timeout; the majority (n2, lowest id) fences it after its delay.
  4. A clean stop of fenced on a node is no failure: nobody fences it, and
     its watchdog is disarmed.
  5. n2 dies and every level fails (BMC hung, the lab agent refuses): n1
     says so loudly and retries after retry_interval, n2 shows as pending
     with its rounds, and n1's metrics read fenced_fence_failures_total 1,
     fenced_failed 1, then fenced_pending_overdue 1 once a round of its
     levels (2 x agent_timeout) has passed; `fenced ack n2` on n3 ends it:
     every member records the ack by n3, nothing runs any more, a second
     ack is refused, fenced_failed and fenced_pending_overdue read 0.
  6. SIGHUP: a good configuration is taken, one with an unknown agent
     parameter is refused (named in the log) and fenced runs on.
Exit 0 pass, 77 skip, 1 fail.
    sudo python3 tests/integration/test_fenced_cluster.py
"""

import json
import os
import re
import signal
import subprocess
import sys
import time

sys.dont_write_bytecode = True

from cphatest import fencedlab, step, util  # noqa: E402

NAMES = ("n1", "n2", "n3")
IPS = ("198.18.0.11", "198.18.0.12", "198.18.0.13")
BMC_IP = "198.18.0.40"
AGENT_TIMEOUT = 8
WD_TIMEOUT = 3.0
N1_DELAY = 6


def check(cond, msg):
    if not cond:
        raise AssertionError(msg)


def conf(cl, node):
    devs = []
    for n in cl.nodes:
        devs.append(cl.bmc_device(n))
    nodes = []
    for n in cl.nodes:
        nodes.append("""fence_node %(n)s {
    level 1 {
        bmc-%(n)s
    }
    level 2 {
        lab plug=%(n)s
    }
%(delay)s}
""" % {"n": n.name, "delay": "    delay %ds\n" % N1_DELAY if n.name == "n1" else ""})
    return """global_defs {
    fenced_metrics_bind 127.0.0.1:9131
    post_join_delay 30s
    post_fail_delay 0s
    fence_action off
    agent_timeout %(to)ds
    retry_interval 3s
    unfence yes
}
%(devs)s
fence_device lab {
    agent %(agent)s
    hosts_file %(hosts)s
    log_file %(log)s
}
%(nodes)s
watchdog {
    device %(fifo)s
    timeout %(wd)gs
}
""" % {"to": AGENT_TIMEOUT, "agent": os.path.join(cl.sbin, "fence_cpha_lab"),
       "devs": "".join(devs), "hosts": cl.hosts_file,
       "log": cl.fence_log, "nodes": "".join(nodes), "fifo": node.wd_fifo, "wd": WD_TIMEOUT}


def metrics(node):
    """fenced's Prometheus metrics on the node: {sample: value}."""
    r = node.run(["curl", "-s", "-m", "5", "http://127.0.0.1:9131/metrics"], check=False,
                 timeout=15)
    out = {}
    for line in r.stdout.splitlines():
        if line and not line.startswith("#"):
            k, v = line.rsplit(" ", 1)
            out[k] = float(v)
    return out


def status(node):
    """fenced's /status JSON on the node (the metrics listener)."""
    r = node.run(["curl", "-s", "-m", "5", "http://127.0.0.1:9131/status"], check=False,
                 timeout=15)
    check(r.returncode == 0, "GET /status on %s: curl exit %d" % (node.name, r.returncode))
    return r.stdout


def wait_fenced(cl, via, victim, since_count, timeout):
    return util.wait_until(
        lambda: len(via.history(victim.name, "fenced")) > since_count, timeout, 0.2,
        "%s to record %s fenced" % (via.name, victim.name))


def crash(cl, node):
    """Every process of the node dies at once; its BMC still says on."""
    t = time.time()
    cl.power_off(node, log=False)  # a crash, not a fencing
    check(not node.pids(), "processes of %s left after the crash" % node.name)
    return t


def reboot(cl, node):
    cl.wait_left(node)
    time.sleep(2)  # a few seconds after 'left', or pacemakerd exits: "allegedly just fenced"
    # the BMC still says off: unfencing (unfence yes) turns it on
    node.boot()
    util.wait_until(lambda: all(cl.domain_ok(n) for n in cl.nodes), 60, 0.5,
                    "%s back in every member's fence domain" % node.name)


def scenario_crash(cl):
    n1, n2, n3 = cl.nodes
    step("1. n3 crashes: n1 fences it through its BMC")
    before = len(n1.history("n3", "fenced"))
    t0 = crash(cl, n3)
    wait_fenced(cl, n1, n3, before, 30)
    took = time.time() - t0
    ev = cl.bmc_events(n3, t0)
    check(any(e == "set power 0" for _, e in ev), "n3's BMC saw no power off: %r" % ev)
    h1 = n1.history("n3", "fenced")[-1]
    check(h1["by"] == "n1", "n3 fenced by %r, want n1" % h1["by"])
    att = [h for h in n2.history("n3", "attempt") if h["level"] == 1 and h["ok"]]
    check(att and att[-1]["by"] == "n1", "n2's history lacks n1's level-1 attempt: %r"
          % n2.history("n3"))
    check(n2.history("n3", "fenced")[-1]["by"] == "n1", "n2's history disagrees")
    check(n2.history("n3", "deferred"), "n2 did not defer to n1: %r" % n2.history("n3"))
    check("fencing n3" not in n2.fenced_log(), "n2 ran an agent for n3")
    m = metrics(n1)
    check(m.get("fenced_quorate") == 1 and m.get("fenced_members") == 2,
          "n1's metrics: %r" % m)
    check(m.get('fenced_attempts_total{result="ok"}', 0) >= 1 and
          m.get("fenced_fenced_total", 0) >= 1 and
          m.get("fenced_attempt_duration_seconds_count", 0) >= 1, "n1's metrics: %r" % m)
    # the victim named, on the member that fenced it and on the one that deferred
    for n in (n1, n2):
        mm = metrics(n)
        check(mm.get('fenced_node_fenced_total{node="n3"}', 0) >= 1 and
              mm.get('fenced_node_fenced_total{node="n1"}') == 0,
              "%s's fenced_node_fenced_total: %r" % (n.name, mm))
    text = status(n1)
    st = json.loads(text)
    check(st["daemon"] == "fenced" and st["quorate"] is True and st["pid"] > 0 and
          re.fullmatch(r"[0-9a-f]{64}", st["config_sha256"] or ""), "n1's /status: %r" % st)
    check(sorted(st["members"]) == ["n1", "n2"], "n1's /status members: %r" % st["members"])
    check([h for h in st["history"] if h["node"] == "n3" and h["event"] == "fenced"],
          "n1's /status history: %r" % st["history"])
    check(all("detail" not in h for h in st["history"]), "agent output in /status")
    check(fencedlab.PASSWORD not in text, "the BMC password in /status")
    print("  n3 fenced by n1 through fence_ipmilan %.1f s after it died" % took, flush=True)
    t1 = time.time()
    reboot(cl, n3)
    util.wait_until(lambda: any(e == "set power 1" for _, e in cl.bmc_events(n3, t1)), 20, 0.2,
                    "n1 to unfence n3 (its BMC to see power on)")
    util.wait_until(lambda: [h for h in n1.history("n3", "unfence") if h["ok"]], 20, 0.2,
                    "n1's history to record n3 unfenced")
    time.sleep(3)
    check(len(n1.history("n3", "fenced")) == before + 1, "n3 was fenced again after rejoining")


def scenario_level2(cl):
    n1, n2, n3 = cl.nodes
    step("2. n2's BMC hangs and n2 dies: level 1 fails, level 2 fences; a reload "
         "meanwhile waits for the fence")
    bmc = cl.bmcs["n2"]
    before = len(n1.history("n2", "fenced"))
    log_before = len(n1.fenced_log())
    bmc.kill(signal.SIGSTOP)
    try:
        t0 = crash(cl, n2)
        # a reload while the fence runs waits for it, then is done
        util.wait_until(lambda: "fencing n2: level 1" in n1.fenced_log()[log_before:],
                        AGENT_TIMEOUT + 25, 0.1, "n1 to start fencing n2")
        n1.fenced.kill(signal.SIGHUP)
        util.wait_until(lambda: "reload waits: fencing n2 is in progress" in
                        n1.fenced_log()[log_before:], 10, 0.1, "n1's reload to wait")
        check("configuration reloaded" not in n1.fenced_log()[log_before:],
              "n1 reloaded while it fenced n2")
        wait_fenced(cl, n1, n2, before, AGENT_TIMEOUT + 25)
    finally:
        bmc.kill(signal.SIGCONT)
    took = time.time() - t0
    util.wait_until(lambda: "configuration reloaded" in n1.fenced_log()[log_before:], 10, 0.1,
                    "n1's reload once the fence of n2 ended")
    att = [h for h in n3.history("n2", "attempt") if h["by"] == "n1"]
    check(len(att) >= 2, "n3's history lacks the attempts: %r" % att)
    check(att[-2]["level"] == 1 and not att[-2]["ok"], "level 1 did not fail: %r" % att)
    check(att[-1]["level"] == 2 and att[-1]["ok"], "level 2 did not succeed: %r" % att)
    secs = float(att[-2]["detail"].split(" in ")[1].split("s")[0])
    check(secs <= AGENT_TIMEOUT + 2, "level 1 ran %.1f s, past agent_timeout" % secs)
    check(PASSWORD_NOT_IN_LOGS(cl), "the BMC password is in a log")
    print("  n2 fenced at level 2 %.1f s after it died (level 1 failed in %.1f s)"
          % (took, secs), flush=True)
    reboot(cl, n2)


def PASSWORD_NOT_IN_LOGS(cl):
    for n in cl.nodes:
        if fencedlab.PASSWORD in n.fenced_log():
            return False
    return True


def scenario_partition(cl, lab):
    n1, n2, n3 = cl.nodes
    wd = cl.watchdogs["n1"]
    step("3. n1 cut off: no quorum, no fencing by n1, its watchdog resets it, "
         "n2 fences it")
    check(wd.pets > 3 and wd.last is not None, "n1's watchdog is not petted: %d pets" % wd.pets)
    before = len(n2.history("n1", "fenced"))
    log_before = len(n1.fenced_log())
    t0 = time.time()
    lab.link_down(n1.host)
    try:
        util.wait_until(lambda: wd.resets, WD_TIMEOUT + 10, 0.1,
                        "n1's watchdog to reset it")
        reset_after = wd.resets[0] - t0
        wait_fenced(cl, n2, n1, before, N1_DELAY + 20)
        fenced_after = time.time() - t0
    finally:
        lab.link_up(n1.host)
    after = n1.fenced_log()[log_before:]
    check("NOT quorate" in after, "n1 did not see its quorum go: %s" % after[-2000:])
    check(not re.search(r"fencing n\d: level \d+, action", after),
          "n1 ran an agent without quorum:\n%s" % after[-2000:])
    check(reset_after <= WD_TIMEOUT + 6, "the watchdog reset came %.1f s after the cut"
          % reset_after)
    check(fenced_after >= N1_DELAY, "n2 fenced n1 before its delay (%.1f s)" % fenced_after)
    h = n3.history("n1", "fenced")[-1]
    check(h["by"] == "n2", "n1 fenced by %r, want n2" % h["by"])
    print("  n1 reset by its watchdog %.1f s after the cut; fenced by n2 after %.1f s"
          % (reset_after, fenced_after), flush=True)
    reboot(cl, n1)


def scenario_clean_stop(cl):
    n1, n2, n3 = cl.nodes
    step("4. a clean stop of fenced on n3 is not a failure")
    wd = cl.watchdogs["n3"]
    before = len(n1.history("n3"))
    disarmed, resets = wd.disarmed, len(wd.resets)
    n3.fenced.kill(signal.SIGTERM)
    n3.fenced.wait(15)
    util.wait_until(lambda: cl.domain_ok(n1, ["n1", "n2"]), 15, 0.3, "n3 out of the domain")
    time.sleep(4)
    check(len(n1.history("n3")) == before, "n3's clean stop made history: %r"
          % n1.history("n3")[before:])
    check(wd.disarmed == disarmed + 1, "n3's watchdog was not disarmed")
    time.sleep(WD_TIMEOUT)
    check(len(wd.resets) == resets, "n3 was reset by its watchdog after a clean stop")
    n3.start_fenced()
    util.wait_until(lambda: all(cl.domain_ok(n) for n in cl.nodes), 30, 0.5, "n3 back")


def scenario_ack(cl):
    n1, n2, n3 = cl.nodes
    step("5. n2 dies and every level fails (BMC hung, lab agent refuses): retried "
         "rounds, then the administrator acks it from n3")
    bmc = cl.bmcs["n2"]
    log_before = len(n1.fenced_log())
    crash(cl, n2)
    with open(cl.hosts_file) as f:
        hosts = json.load(f)
    del hosts["n2"]  # fence_cpha_lab now fails for n2: "unknown node"
    with open(cl.hosts_file, "w") as f:
        json.dump(hosts, f)
    bmc.kill(signal.SIGSTOP)
    try:
        util.wait_until(
            lambda: n1.fenced_log()[log_before:].count("fencing n2: level 1, action") >= 2,
            2 * AGENT_TIMEOUT + 20, 0.2, "n1 to retry every level of n2")
        after = n1.fenced_log()[log_before:]
        check("every level failed (round 1)" in after, "no loud all-failed line:\n%s" % after)
        s = n1.show()
        p = [x for x in s["pending"] if x["node"] == "n2"]
        check(p and p[0]["rounds"] >= 1, "n2 is not pending with its rounds: %r" % s["pending"])
        check(p[0]["failed"], "n2's pending entry does not say failed: %r" % p)
        # round 2's level 1 hangs for agent_timeout: one round failed so far
        m = metrics(n1)
        check(m.get("fenced_fence_failures_total") == 1 and m.get("fenced_failed") == 1,
              "n1's metrics after one failed round: %r" % m)
        # overdue once one round of its levels (2 x agent_timeout) has passed
        util.wait_until(lambda: metrics(n1).get("fenced_pending_overdue") == 1,
                        2 * AGENT_TIMEOUT + 10, 0.5, "n1 to count n2's fence overdue")
        r = n3.run([fencedlab.FENCED, "-f", n3.fenced_conf, "ack", "n2"], check=False,
                   timeout=15)
        check(r.returncode == 0 and "acknowledged" in r.stdout, "ack: %s%s" % (r.stdout,
                                                                              r.stderr))
        util.wait_until(lambda: n1.history("n2", "ack"), 10, 0.1, "n1 to record the ack")
    finally:
        bmc.kill(signal.SIGCONT)
        cl.write_hosts_file()
    h = n1.history("n2", "ack")[-1]
    check(h["by"] == "n3", "the ack is recorded as by %r, want n3" % h["by"])
    check(n3.history("n2", "ack"), "n3's history lacks the ack")
    att = [x for x in n1.history("n2", "attempt") if not x["ok"]]
    check(len(att) >= 2, "the failed attempts are not in the history: %r" % att)
    n = n1.fenced_log()[log_before:].count("action off")
    time.sleep(5)  # past retry_interval (3 s): nothing may start any more
    check(n1.fenced_log()[log_before:].count("action off") == n,
          "fencing went on after the ack")
    r = n3.run([fencedlab.FENCED, "-f", n3.fenced_conf, "ack", "n2"], check=False, timeout=15)
    check(r.returncode != 0 and "not waiting" in r.stdout, "a second ack was taken: %s"
          % r.stdout)
    s = n1.show()
    check(not s["pending"], "still pending after the ack: %r" % s["pending"])
    m = metrics(n1)
    check(m.get("fenced_failed") == 0 and m.get("fenced_pending_overdue") == 0 and
          m.get("fenced_fence_failures_total", 0) >= 1, "n1's metrics after the ack: %r" % m)
    print("  every level of n2 failed twice, reported loudly; acked from n3, fencing "
          "stopped", flush=True)
    reboot(cl, n2)


def scenario_reload(cl):
    n1, n2, n3 = cl.nodes
    step("6. SIGHUP: a good configuration is taken, a bad one refused, fenced runs on")
    with open(n2.fenced_conf) as f:
        good = f.read()
    log_before = len(n2.fenced_log())
    try:
        with open(n2.fenced_conf, "w") as f:
            f.write(good.replace("retry_interval 3s", "retry_interval 4s"))
        n2.fenced.kill(signal.SIGHUP)
        util.wait_until(lambda: "configuration reloaded" in n2.fenced_log()[log_before:], 30,
                        0.2, "n2 to reload")
        with open(n2.fenced_conf, "w") as f:
            f.write(good.replace("agent fence_ipmilan", "agent fence_ipmilan\n    bogus 1", 1))
        n2.fenced.kill(signal.SIGHUP)
        util.wait_until(lambda: "reload refused" in n2.fenced_log()[log_before:], 30, 0.2,
                        "n2 to refuse the bad configuration")
        after = n2.fenced_log()[log_before:]
        check("bogus" in after, "the refusal does not name the bad parameter:\n%s" % after)
    finally:
        with open(n2.fenced_conf, "w") as f:
            f.write(good)
    check(n2.fenced.running() and cl.domain_ok(n2), "n2's fenced is not running after reloads")


def run(lab):
    cl = fencedlab.build(lab, NAMES, IPS, BMC_IP)
    try:
        cl.write_fenced_conf(lambda n: conf(cl, n))
        for n in cl.nodes:
            cl.add_watchdog(n, WD_TIMEOUT)
        r = subprocess.run([fencedlab.FENCED, "-c", "-f", cl.nodes[0].fenced_conf],
                           stdin=subprocess.DEVNULL, capture_output=True, text=True,
                           timeout=60)
        check(r.returncode == 0, "fenced -c: %s%s" % (r.stdout, r.stderr))
        step("three nodes, corosync and fenced, quorate")
        cl.start()
        scenario_crash(cl)
        scenario_level2(cl)
        scenario_partition(cl, lab)
        scenario_clean_stop(cl)
        scenario_ack(cl)
        scenario_reload(cl)
    finally:
        cl.close()


def main():
    return fencedlab.main("fenced-cluster", run, dump_lines=80)


if __name__ == "__main__":
    sys.exit(main())
