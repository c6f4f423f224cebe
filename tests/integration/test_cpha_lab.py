#!/usr/bin/env python3
"""cpha lab, short profile: up, three scenarios, the report, down.

`cpha lab up` (its own name, so it runs beside other tests), then
`cpha lab run apiserver-rolling-restart reload-under-load lb-poweroff`
with the prober on the client host; the report must hold what the issue
asks for and the scenarios must have happened:
- report.json has the three scenarios with every field; the prober made
  ~10 ticks a second (3 requests each) for the whole window;
- apiserver-rolling-restart and reload-under-load: 0 failed requests, all
  50 watches (and any broken by the restarts restored);
- lb-poweroff: the VIP moved only after the old holder was fenced, never
  on two hosts; the gap is finite and the clients served again;
- every invariant held; report.md names the stand-ins as lab simulators;
  timeline.svg parses as XML;
then `cpha lab down` leaves no namespace, bridge or process.
Exit 0 pass, 77 skip (not root), 1 fail.
    sudo python3 tests/integration/test_cpha_lab.py
"""

import json
import os
import subprocess
import sys
import xml.dom.minidom

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

import cphatest  # noqa: E402
from cphatest import cphacmd, step, util  # noqa: E402

NAME = "t%d" % (os.getpid() % 10000)
SCENARIOS = ["apiserver-rolling-restart", "reload-under-load", "lb-poweroff"]


def check(cond, msg):
    if not cond:
        raise AssertionError(msg)


def lab(*args, timeout=900, check_rc=True):
    r = subprocess.run([cphacmd.binary(), "lab", "--name", NAME] + list(args),
                       capture_output=True, text=True, timeout=timeout)
    sys.stdout.write(r.stdout)
    if check_rc and r.returncode != 0:
        raise AssertionError("cpha lab %s: exit %d\n%s" % (" ".join(args), r.returncode,
                                                          r.stderr))
    return r


def leftovers():
    r = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True)
    ns = [l.split()[0] for l in r.stdout.splitlines() if l.startswith("cl%s-" % NAME)]
    r = subprocess.run(["ip", "-o", "link", "show"], capture_output=True, text=True)
    links = [l.split(": ")[1] for l in r.stdout.splitlines() if ": cl%s" % NAME in l]
    return ns + links


def main():
    if os.geteuid() != 0:
        return util.skip("cpha lab needs root")
    report = os.path.join("/var/tmp", "cpha-lab-test-" + NAME)
    try:
        step("cpha lab up (lab %s)" % NAME)
        lab("up", timeout=400)
        r = lab("status")
        check("VIP 198.18.0.2 on: lb" in r.stdout, r.stdout)
        step("cpha lab run %s" % " ".join(SCENARIOS))
        lab("run", "--report", report, *SCENARIOS)
        with open(os.path.join(report, "report.json")) as f:
            rep = json.load(f)
        runs = rep["runs"]
        check(len(runs) == 1 and runs[0]["stack"] == "cpha", "one cpha run: %s" % runs)
        sc = {s["name"]: s for s in runs[0]["scenarios"]}
        check(sorted(sc) == sorted(SCENARIOS), "scenarios %s" % sorted(sc))
        for name, s in sc.items():
            for k in ("requests", "failed", "max_gap_ms", "watches", "watches_broken",
                      "watches_restored_ms", "availability", "invariants"):
                check(k in s, "%s: no %s in %s" % (name, k, s))
            bad = [k for k, v in s["invariants"].items() if v is not True]
            check(not bad, "%s: invariants failed: %s (%s)" % (name, bad, s.get("notes")))
            check(s["watches"] == 50, "%s: %s watches" % (name, s["watches"]))
        for name in ("apiserver-rolling-restart", "reload-under-load"):
            s = sc[name]
            check(s["requests"] > 100, "%s: only %d requests" % (name, s["requests"]))
            check(s["failed"] == 0, "%s: %d requests failed (gap %s ms)" % (
                name, s["failed"], s["max_gap_ms"]))
        s = sc["lb-poweroff"]
        check(s["invariants"].get("vip_after_fence") is True and
              s["invariants"].get("one_vip_holder") is True, s)
        check(s["max_gap_ms"] is not None and s["max_gap_ms"] < 60000,
              "lb-poweroff: gap %s" % s["max_gap_ms"])
        check(s["timings"].get("vip_move_ms") and s["timings"].get("fence_ms") and
              s["timings"]["vip_move_ms"] >= s["timings"]["fence_ms"], s["timings"])
        with open(os.path.join(report, "report.md")) as f:
            md = f.read()
        check("lab simulator" in md and "lb-poweroff" in md, md[:2000])
        xml.dom.minidom.parse(os.path.join(report, "timeline.svg"))
        step("report: %d scenarios, every invariant held; %s" % (
            len(sc), ", ".join("%s failed %d gap %s ms" % (n, s["failed"], s["max_gap_ms"])
                               for n, s in sc.items())))
    finally:
        step("cpha lab down")
        r = lab("down", check_rc=False)
        left = leftovers()
        if r.returncode != 0 or left:
            raise AssertionError("cpha lab down: exit %d, left %s" % (r.returncode, left))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except AssertionError as e:
        print("FAIL: %s" % e, flush=True)
        sys.exit(1)
