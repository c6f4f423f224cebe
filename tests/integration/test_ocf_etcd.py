#!/usr/bin/env python3
"""ocf:cpha:etcd against the real etcd (Debian's 3.4), one lab host per member.

m0 (198.18.0.11) runs a one-member cluster through the agent, with the classic
unit's TLS for clients and peers:
  - ocf-tester passes (meta-data valid, validate-all, probes, start, start
    again, monitor, notify, stop, stop again);
  - start, monitor and stop are idempotent when run by hand; a stopped and
    started member keeps its data and its member ID (a restart never leaves
    and rejoins);
  - quorum sizing: an even clone-max (4) and an even node_map (2) are
    OCF_ERR_CONFIGURED from validate-all, with an exit reason that says the
    fix first and why (4 members survive one failure, as 3 do, but need 3
    votes), within Pacemaker's 128 characters; a start that would bootstrap
    an even cluster is OCF_ERR_GENERIC (this node only); allow_even=true
    accepts them;
  - an even size on a running three-member cluster never stops a member:
    monitor is OCF_DEGRADED with the fix, a reload to a four-entry node_map
    and a member's restart with its data succeed, and a fourth node's start
    is OCF_ERR_GENERIC without a member add (the cluster stays at 3); a
    rolling restart by reload works with a node_map naming a node etcd does
    not have (the quorum of the cluster's own member list counts);
  - configuration errors: a node not in node_map (OCF_ERR_ARGS, this node
    only), a missing certificate (OCF_ERR_INSTALLED), an agent-owned flag
    in args (OCF_ERR_CONFIGURED);
  - monitor never returns a fatal code for a passing state: a member that
    started without a majority (m1 of a three-member map, alone) is
    OCF_DEGRADED, a killed one OCF_NOT_RUNNING.
Exit 0 pass, 77 skip, 1 fail.
    sudo python3 tests/integration/test_ocf_etcd.py
"""

import os
import re
import shutil
import signal
import sys
import threading
import time

sys.dont_write_bytecode = True

import cphatest  # noqa: E402
from cphatest import etcd, ocf, step  # noqa: E402

IP0, IP1 = "198.18.0.11", "198.18.0.12"
QUORUM_REASON = r"\(4 survive 1 failure as 3 do, but need 3 votes; or allow_even=true\)"


def check(cond, msg):
    if not cond:
        raise AssertionError(msg)


def agent_path():
    return os.path.join(ocf.agent_dir(), "etcd")


def expect(host, stage, action, params, rc, reason=None, **kw):
    got, err = ocf.run_agent(host, stage, "etcd", action, params, **kw)
    why = ocf.exit_reason(err)
    check(got == rc, "etcd %s: exit %d, expected %d\n%s" % (action, got, rc, err))
    if reason:
        check(why and re.search(reason, why),
              "etcd %s: exit reason %r does not match %r" % (action, why, reason))
    return why, err


def member_id(host, url, tls):
    r = host.curl(url + "/v3/maintenance/status", method="POST", data={}, **tls.curl_kw())
    check(r.status == 200, "status of %s: %r" % (url, r))
    return r.json()["header"]["member_id"]


def run(lab, stage):
    m0 = lab.add_host("m0", v4=IP0 + "/24", v6="2001:db8::11/64")
    m1 = lab.add_host("m1", v4=IP1 + "/24", v6="2001:db8::12/64")
    m2 = lab.add_host("m2", v4="198.18.0.13/24", v6="2001:db8::13/64")
    m3 = lab.add_host("m3", v4="198.18.0.14/24", v6="2001:db8::14/64")
    pki = cphatest.Pki(lab.path("pki", "ca"))
    servers, tls = etcd.issue_certs(pki, [m0, m1, m2, m3])

    def params(host, node_map, **over):
        cert, key = servers[host.name]
        p = {"node_map": node_map, "name": host.name,
             "data_dir": lab.bulky(lab.path("data", host.name)),
             "trusted_ca_file": pki.ca_cert, "cert_file": cert, "key_file": key,
             "peer_trusted_ca_file": pki.ca_cert, "peer_cert_file": cert,
             "peer_key_file": key, "agent_cert": tls.cert, "agent_key": tls.key,
             "token": "cpha-ocf-etcd-%d" % os.getpid(),
             "args": "--heartbeat-interval=100 --election-timeout=1000",
             "piddir": lab.path("run", host.name),
             "logfile": lab.path("log", host.name, "etcd.log")}
        p.update(over)
        return p

    one = params(m0, "m0=%s" % IP0)
    url0 = "https://%s:2379" % IP0

    step("quorum sizing: validate-all refuses an even clone-max or node_map; a start "
         "refuses only to make etcd even, for this node alone; allow_even accepts")
    clone4 = {"clone_max": 4, "clone_node_max": 1, "notify": "true"}
    why, _ = expect(m0, stage, "validate-all", one, ocf.ERR_CONFIGURED,
                    r"^even etcd size 4 refused: set clone-max to 3 or 5 " + QUORUM_REASON,
                    meta=clone4)
    step("exit reason: %s" % why)
    check(len(why) <= 128, "the whole reason within Pacemaker's 128 characters: %r" % why)
    # nothing runs and no data: the bootstrap of an even cluster is refused,
    # with a code Pacemaker keeps to this node (never OCF_ERR_CONFIGURED
    # from a start: it would stop every member of a running clone)
    expect(m0, stage, "start", one, ocf.ERR_GENERIC,
           r"^even etcd size 4 refused: set clone-max to 3 or 5; no new cluster bootstrapped",
           meta=clone4)
    check(not os.path.exists(os.path.join(one["data_dir"], "member")),
          "a refused start created no member")
    four = "m0=%s m1=%s m2=198.18.0.13 m3=198.18.0.14" % (IP0, IP1)
    expect(m0, stage, "validate-all", dict(one, node_map=four), ocf.ERR_CONFIGURED,
           r"^even etcd size 4 refused: set clone-max to 3 or 5", meta=clone4)
    expect(m0, stage, "validate-all", dict(one, node_map=four, allow_even="true"), ocf.OK,
           meta=clone4)
    even_map = dict(one, node_map="m0=%s m1=%s" % (IP0, IP1))
    expect(m0, stage, "validate-all", even_map, ocf.ERR_CONFIGURED,
           r"^even etcd size 2 refused: list 3 \(or 1\) members in node_map \(2 survive 0 "
           r"failures")
    expect(m0, stage, "start", even_map, ocf.ERR_GENERIC,
           r"^even etcd size 2 refused: list 3 \(or 1\) members in node_map; no new cluster")
    expect(m0, stage, "validate-all", dict(one, node_map="m0=%s m1=%s m2=198.18.0.13"
                                           % (IP0, IP1)), ocf.OK,
           meta={"clone_max": 3, "clone_node_max": 1, "notify": "true"})
    _, err = expect(m0, stage, "validate-all", one, ocf.OK, meta={"clone_max": 3})
    check("clone-max=3 is more than the 1 members" in err, "a warning only:\n%s" % err)

    step("configuration errors")
    expect(m0, stage, "validate-all", dict(one, name="m9"), ocf.ERR_ARGS,
           r"member m9 .* is not in node_map")
    expect(m0, stage, "validate-all", dict(one, node_map="m0=300.1.1.1"), ocf.ERR_CONFIGURED,
           r"^node_map: bad address")
    expect(m0, stage, "validate-all", dict(one, cert_file=lab.path("pki", "nope.crt")),
           ocf.ERR_INSTALLED, r"cert_file .*nope.crt: No such file")
    expect(m0, stage, "validate-all", dict(one, key_file=""), ocf.ERR_CONFIGURED,
           r"cert_file and key_file go together")
    expect(m0, stage, "validate-all", dict(one, args="--data-dir=/tmp/x"), ocf.ERR_CONFIGURED,
           r"args sets --data-dir")
    expect(m0, stage, "validate-all", dict(one, binary="/nonexistent/etcd"), ocf.ERR_INSTALLED)
    expect(m0, stage, "monitor", dict(one, node_map="garbage"), ocf.NOT_RUNNING,
           interval_ms=0)

    step("ocf-tester")
    t0 = time.monotonic()
    r = ocf.ocf_tester(m0, stage, "etcd", one, instance="etcd", timeout=60)
    check(r.returncode == 0 and "passed all tests" in r.stdout,
          "ocf-tester etcd failed (exit %d):\n%s\n%s" % (r.returncode, r.stdout, r.stderr))
    step("ocf-tester etcd: passed (%.1fs)" % (time.monotonic() - t0))

    step("start, start again, monitor, stop, stop again; data and member ID kept")
    shutil.rmtree(one["data_dir"])  # ocf-tester's cluster: start anew
    expect(m0, stage, "monitor", one, ocf.NOT_RUNNING, interval_ms=0)
    why, err = expect(m0, stage, "start", one, ocf.OK, instance="etcd")
    check("bootstrap" in err, "a new cluster was bootstrapped:\n%s" % err)
    mid = member_id(m0, url0, tls)
    rev = etcd.kv_put(m0, url0, "/cpha/test", "kept", tls)
    _, err = expect(m0, stage, "start", one, ocf.OK, instance="etcd")
    check("already running" in err, "second start saw the running member:\n%s" % err)
    expect(m0, stage, "monitor", one, ocf.OK, instance="etcd", interval_ms=10000)
    expect(m0, stage, "monitor", one, ocf.OK, instance="etcd", interval_ms=0)
    expect(m0, stage, "notify", one, ocf.OK, instance="etcd",
           meta={"notify_type": "post", "notify_operation": "start",
                 "notify_start_uname": "m0", "notify_active_uname": ""})
    expect(m0, stage, "stop", one, ocf.OK, instance="etcd")
    expect(m0, stage, "stop", one, ocf.OK, instance="etcd")
    expect(m0, stage, "monitor", one, ocf.NOT_RUNNING, instance="etcd", interval_ms=10000)
    _, err = expect(m0, stage, "start", one, ocf.OK, instance="etcd")
    check("restart-with-data" in err, "restarted with its data:\n%s" % err)
    check(member_id(m0, url0, tls) == mid, "the same member ID after a restart")
    kvs = etcd.kv_range(m0, url0, "/cpha/test", tls)
    check(kvs and kvs[0]["value"] == "kept" and kvs[0]["mod_revision"] == rev,
          "the write survived the restart: %s" % kvs)

    membership(lab, stage, (m0, m1, m2), m3, params, tls)


def even_size(stage, hosts, m3, p, p3, members, four, tls):
    """An even size on the running cluster hosts: every member keeps
    running, the fourth node m3 is not added."""
    m0, m1, m2 = hosts
    step("an even size on the running cluster: members keep running, m3 is not added")
    clone4 = {"clone_max": 4, "clone_node_max": 1, "notify": "true"}
    fix = r"^even etcd size 4 refused: set clone-max to 3 or 5; "
    why, _ = expect(m0, stage, "monitor", p["m0"], ocf.DEGRADED,
                    fix + r"member m0 keeps running, none is added", instance="etcd",
                    interval_ms=10000, meta=clone4)
    step("monitor under clone-max=4: OCF_DEGRADED: %s" % why)
    expect(m0, stage, "monitor", p["m0"], ocf.OK, instance="etcd", interval_ms=0, meta=clone4)
    with open(os.path.join(p["m1"]["piddir"], "etcd-etcd.pid")) as f:
        pid1 = int(f.read())
    _, err = expect(m1, stage, "reload", dict(p["m1"], node_map=four), ocf.OK, instance="etcd")
    check("list 3 or 5 members in node_map; member m1 keeps running" in err
          and "unchanged" in err, "reload to four members: a warning only:\n%s" % err)
    with open(os.path.join(p["m1"]["piddir"], "etcd-etcd.pid")) as f:
        check(int(f.read()) == pid1, "the same etcd on m1 after the reload")
    expect(m1, stage, "monitor", dict(p["m1"], node_map=four), ocf.DEGRADED,
           r"^even etcd size 4 refused: list 3 or 5 members in node_map; member m1 keeps",
           instance="etcd", interval_ms=10000)
    # a member of the running cluster restarts with its data (what a
    # Pacemaker restart or recovery does)
    mid = members()["m2"]["ID"]
    expect(m2, stage, "stop", p["m2"], ocf.OK, instance="etcd")
    _, err = expect(m2, stage, "start", p["m2"], ocf.OK, instance="etcd", timeout_ms=40000,
                    meta=clone4)
    check("restart-with-data" in err and "member m2 keeps running" in err,
          "m2 restarted with its data under clone-max=4:\n%s" % err)
    check(members()["m2"]["ID"] == mid, "m2 is the same member")
    _, err = expect(m2, stage, "start", p["m2"], ocf.OK, instance="etcd", meta=clone4)
    check("already running" in err, "a start of a running member under clone-max=4:\n%s" % err)
    # a fourth node: no member add, this node only, the reason says so
    why, _ = expect(m3, stage, "start", p3, ocf.ERR_GENERIC,
                    fix + r"member m3 not added: 3 members run, 4 would be even",
                    instance="etcd", timeout_ms=20000, meta=clone4)
    step("m3's start under clone-max=4: OCF_ERR_GENERIC: %s" % why)
    check(sorted(members()) == ["m0", "m1", "m2"], "still three members: %s" % members())
    check(not os.path.exists(os.path.join(p3["data_dir"], "member")), "m3 started nothing")
    expect(m3, stage, "monitor", p3, ocf.NOT_RUNNING, instance="etcd", interval_ms=0)
    for h in hosts:
        check(etcd.health(h, "https://%s:2379" % h.v4, tls)[0], "etcd on %s healthy" % h.name)


def membership(lab, stage, hosts, m3, params, tls):
    """Three members through the agent, m0 already running alone."""
    m0, m1, m2 = hosts
    three = " ".join("%s=%s" % (h.name, h.v4) for h in hosts)
    p = {h.name: params(h, three) for h in hosts}
    urls = {h.name: "https://%s:2379" % h.v4 for h in hosts}

    def members():
        r = m0.curl(urls["m0"] + "/v3/cluster/member/list", method="POST", data={},
                    **tls.curl_kw())
        check(r.status == 200, "member list: %r" % r)
        return {m.get("name", ""): m for m in r.json()["members"]}

    step("scale 1 -> 3: m1 and m2 start at once, join one at a time as learners")
    expect(m0, stage, "monitor", p["m0"], ocf.OK, instance="etcd", interval_ms=10000)
    results = {}

    def start(h):
        results[h.name] = ocf.run_agent(h, stage, "etcd", "start", p[h.name], instance="etcd",
                                        timeout_ms=40000)
    threads = [threading.Thread(target=start, args=(h,)) for h in (m1, m2)]
    t0 = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    for name, (rc, err) in sorted(results.items()):
        check(rc == ocf.OK, "start %s: %d\n%s" % (name, rc, err))
        check("added member %s" % name in err and "promoted from learner" in err,
              "%s joined as a learner and was promoted:\n%s" % (name, err))
    # one change at a time: never two learners at once (etcd's record)
    with open(p["m0"]["logfile"], errors="replace") as f:
        log = f.read()
    check(re.search(r"learners=\(\d+\)", log) and not re.search(r"learners=\(\d+ \d+", log),
          "one learner at a time in m0's etcd log")
    waited = [n for n, (_, err) in results.items() if "one membership change at a time" in err
              or "too many learner" in err or "unhealthy cluster" in err]
    ms = members()
    check(sorted(ms) == ["m0", "m1", "m2"] and not any(m.get("isLearner") for m in ms.values()),
          "three voters: %s" % ms)
    step("m1 and m2 joined in %.1fs (held back by the other's change: %s)"
         % (time.monotonic() - t0, ", ".join(sorted(waited)) or "none"))
    for h in hosts:
        expect(h, stage, "monitor", p[h.name], ocf.OK, instance="etcd", interval_ms=10000)

    four = three + " m3=%s" % m3.v4
    even_size(stage, hosts, m3, p, params(m3, four), members, four, tls)

    step("reload: a new node_map applies in place; new etcd flags restart the members "
         "one at a time, never below a majority")
    pids = {}
    for h in hosts:
        with open(os.path.join(p[h.name]["piddir"], "etcd-etcd.pid")) as f:
            pids[h.name] = int(f.read())
    _, err = expect(m1, stage, "reload", dict(p["m1"], node_map=three + "; "),
                    ocf.OK, instance="etcd")
    check("unchanged" in err, "a node_map change needs no restart:\n%s" % err)
    low = {"min": 3, "samples": []}
    stop = threading.Event()

    # etcd 3.4's /health is a linearizable read: right after a leadership
    # transfer (a stopping leader hands over) the new leader fails one read
    # with "request timed out, possibly due to previous leader failure" for
    # well under a second. A member restarted while another is still down
    # loses the majority for the seconds a restart takes; so the count
    # judged is the best of each second's samples.
    def watch():
        while not stop.is_set():
            n = sum(1 for h in hosts if etcd.health(h, urls[h.name], tls, timeout=1)[0])
            now = time.monotonic()
            low["samples"] = [(t, c) for t, c in low["samples"] if now - t <= 1.0]
            low["samples"].append((now, n))
            if now - low["samples"][0][0] >= 0.9:
                low["min"] = min(low["min"], max(c for _, c in low["samples"]))
            time.sleep(0.1)
    watcher = threading.Thread(target=watch)
    watcher.start()
    results = {}
    # with a node_map that names m3, which etcd does not have: the turns
    # count the quorum of the cluster's own member list (3), not of the map
    # (4: m0 would wait for 3 of m1, m2, m3 and fail at the timeout)
    newargs = {h.name: dict(p[h.name], args=p[h.name]["args"] + " --snapshot-count=50000",
                            node_map=four, allow_even="true")
               for h in hosts}

    def reload(h):
        results[h.name] = ocf.run_agent(h, stage, "etcd", "reload", newargs[h.name],
                                        instance="etcd", timeout_ms=60000)
    threads = [threading.Thread(target=reload, args=(h,)) for h in hosts]
    t0 = time.monotonic()
    try:
        for t in threads:
            t.start()
        for t in threads:
            t.join(90)
    finally:
        stop.set()
        watcher.join(10)
    for name, (rc, err) in sorted(results.items()):
        check(rc == ocf.OK and "restart-with-data" in err, "reload %s: %d\n%s" % (name, rc, err))
        with open(os.path.join(p[name]["piddir"], "etcd-etcd.pid")) as f:
            check(int(f.read()) != pids[name], "%s runs a new etcd" % name)
    check(low["min"] >= 2, "at least 2 of 3 healthy in every second (lowest: %d)" % low["min"])
    step("rolling restart by reload in %.1fs; fewest healthy members seen: %d of 3"
         % (time.monotonic() - t0, low["min"]))
    p = newargs

    step("a member the cluster removed: monitor says so, the restart sets its data aside "
         "and joins anew")
    old = ms["m2"]["ID"]

    def remove():
        # etcd refuses a change while the last one is recent ("unhealthy cluster")
        r = m0.curl(urls["m0"] + "/v3/cluster/member/remove", method="POST", data={"ID": old},
                    **tls.curl_kw())
        check(r.status in (200, 503), "remove m2: %r" % r)
        return r.status == 200
    cphatest.wait_until(remove, 15, 0.5, "m2 removed")
    with open(os.path.join(p["m2"]["piddir"], "etcd-etcd.pid")) as f:
        pid = int(f.read())
    cphatest.wait_until(lambda: not cphatest.util.pid_alive(pid), 20, 0.2,
                        "the removed member's etcd to exit")
    expect(m2, stage, "monitor", p["m2"], ocf.NOT_RUNNING, instance="etcd", interval_ms=10000)
    expect(m2, stage, "stop", p["m2"], ocf.OK, instance="etcd")
    _, err = expect(m2, stage, "start", p["m2"], ocf.OK, instance="etcd", timeout_ms=40000)
    check("discard-removed-data" in err and "join-as-learner" in err,
          "set aside, then joined:\n%s" % err)
    aside = [d for d in os.listdir(p["m2"]["data_dir"]) if d.startswith("member.removed-")]
    check(aside, "the old data is kept aside: %s" % os.listdir(p["m2"]["data_dir"]))
    ms = members()
    check(sorted(ms) == ["m0", "m1", "m2"] and ms["m2"]["ID"] != old, "m2 is a new member")

    step("the leader's monitor removes a dead member node_map no longer lists")
    expect(m2, stage, "stop", p["m2"], ocf.OK, instance="etcd")
    check(sorted(members()) == ["m0", "m1", "m2"], "a stop does not leave the cluster")
    two = "m0=%s m1=%s" % (m0.v4, m1.v4)
    leader = None
    for h in (m0, m1):
        r = h.curl(urls[h.name] + "/v3/maintenance/status", method="POST", data={},
                   **tls.curl_kw())
        if r.status == 200 and r.json()["leader"] == r.json()["header"]["member_id"]:
            leader = h
    check(leader is not None, "a leader among m0, m1")
    follower = m1 if leader is m0 else m0
    shrunk = dict(p[follower.name], node_map=two, allow_even="true")
    expect(follower, stage, "monitor", shrunk, ocf.OK, instance="etcd", interval_ms=10000)
    check("m2" in members(), "a follower's monitor changes nothing")

    def upkeep():
        # as Pacemaker does every interval; etcd may refuse a change that
        # follows another too closely, and the next monitor tries again
        _, err = expect(leader, stage, "monitor", dict(p[leader.name], node_map=two,
                                                      allow_even="true"),
                        ocf.OK, instance="etcd", interval_ms=10000)
        return "removed member m2" in err
    cphatest.wait_until(upkeep, 20, 1, "the leader's monitor to remove m2")
    check(sorted(members()) == ["m0", "m1"], "m2 gone: %s" % sorted(members()))

    step("monitor: quorum lost (1 of 2) is OCF_DEGRADED, a killed etcd OCF_NOT_RUNNING")
    with open(os.path.join(p["m0"]["piddir"], "etcd-etcd.pid")) as f:
        pid = int(f.read())
    os.kill(pid, signal.SIGKILL)
    cphatest.wait_until(lambda: not cphatest.util.pid_alive(pid), 5, 0.05, "etcd to die")
    expect(m0, stage, "monitor", p["m0"], ocf.NOT_RUNNING, instance="etcd", interval_ms=10000)

    def degraded():
        rc, err = ocf.run_agent(m1, stage, "etcd", "monitor", p["m1"], instance="etcd",
                                interval_ms=10000, timeout_ms=15000)
        check(rc in (ocf.OK, ocf.DEGRADED), "monitor without quorum: %d\n%s" % (rc, err))
        return rc == ocf.DEGRADED and ocf.exit_reason(err)
    why = cphatest.wait_until(degraded, 20, 0.5, "monitor to report OCF_DEGRADED")
    step("m1 without quorum: %s" % why)
    for h in (m0, m1):
        expect(h, stage, "stop", p[h.name], ocf.OK, instance="etcd")

    step("start and monitor of a member that never had a majority: OK, then OCF_DEGRADED")
    # m1 with an empty data dir and nobody answering: no notify variables,
    # so a static bootstrap of the whole map, which waits for its peers
    lone = params(m1, three, data_dir=lab.bulky(lab.path("data", "m1-lone")))
    # its start ends after 10 s of waiting, not at the end of its timeout:
    # Pacemaker may start the other members only once it is over
    t = time.monotonic()
    _, err = expect(m1, stage, "start", lone, ocf.OK, instance="etcd", timeout_ms=60000)
    took = time.monotonic() - t
    check("waiting for a majority" in err and "the start ends here" in err and 9 < took < 30,
          "start ended waiting for a majority after %.1f s:\n%s" % (took, err))
    for _ in range(2):
        rc, err = ocf.run_agent(m1, stage, "etcd", "monitor", lone, instance="etcd",
                                interval_ms=10000, timeout_ms=10000)
        check(rc == ocf.DEGRADED and "waits for a majority" in (ocf.exit_reason(err) or ""),
              "monitor of a member without quorum: %d\n%s" % (rc, err))
    expect(m1, stage, "stop", lone, ocf.OK, instance="etcd")
    expect(m1, stage, "monitor", lone, ocf.NOT_RUNNING, instance="etcd", interval_ms=0)


def main():
    ocf.require(tools=("ocf-tester", "etcd"))
    if not os.access(agent_path(), os.X_OK):
        print("SKIP: %s not built" % agent_path(), flush=True)
        return cphatest.SKIP
    return ocf.run_staged("ocf-etcd", run, ocf.stage_with_etcd())


if __name__ == "__main__":
    sys.exit(main())
