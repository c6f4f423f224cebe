"""cpha lab run: the prober on the client, the scenarios, the invariant
monitor, and the report (cpha lab report)."""

import json
import os
import shutil
import threading
import time

from . import build, observe, scenarios
from . import lab as labmod
from .hosts import LabError, write_json

STACK_NAMES = {"cpha": "cpha", "peer": "haproxy+keepalived"}


class Monitor(threading.Thread):
    """Samples the lab every 250 ms while a scenario runs: never two VIP
    holders, never two controller-managers or schedulers acting (on
    masters that are powered and on the network), no fence overdue."""

    def __init__(self, lab):
        super().__init__(daemon=True)
        self.lab = lab
        self.stop_ev = threading.Event()
        self.reset()

    def reset(self):
        self.bad = {"one_vip_holder": [], "one_controller_manager": [], "one_scheduler": [],
                    "no_fence_overdue": []}
        self.samples = 0

    def run(self):
        while not self.stop_ev.is_set():
            try:
                self.sample()
            except Exception as e:  # a sample that failed is not a violation
                if "powered off" not in str(e):
                    pass
            self.stop_ev.wait(0.25)

    def sample(self):
        lab = self.lab
        now = time.time()
        holders = observe.vip_holders(lab)
        if len(holders) > 1:
            self.bad["one_vip_holder"].append((now, holders))
        connected = {h.name for h in observe.up_masters(lab)}
        for inv, prog in (("one_controller_manager", "kube-controller-manager"),
                          ("one_scheduler", "kube-scheduler")):
            acting = sorted({h for h, _ in observe.acting(lab, prog) if h in connected})
            if len(acting) > 1:
                self.bad[inv].append((now, acting))
        if self.samples % 8 == 0:
            for h in lab.by_role("lb"):
                if h.powered() and h.link_up():
                    s = observe.fenced_show(h) or {}
                    for p in s.get("pending", []):
                        # due_in: seconds until the fence is due; below 0 it
                        # should have started (a second's grace for the poll)
                        if p.get("due_in", 0) < -1.0:
                            self.bad["no_fence_overdue"].append((now, h.name, p))
        self.samples += 1

    def stop(self):
        self.stop_ev.set()


def kubectl_loop(lab, path, stop_ev):
    """The real kubectl from the client, when present: /readyz each second,
    the Leases every five."""
    client = lab.host("client")
    i = 0
    with open(path, "a") as f:
        while not stop_ev.is_set():
            args = ["get", "--raw", "/readyz"] if i % 5 else ["get", "leases", "-n",
                                                              "kube-system"]
            t = time.time()
            try:
                r = client.run(["kubectl", "--kubeconfig", "/etc/kubernetes/admin.conf",
                                "--request-timeout=3s"] + args, check=False, timeout=10)
                ok = r.returncode == 0
                err = "" if ok else (r.stderr.strip().splitlines() or [""])[-1][:200]
            except Exception as e:
                ok, err = False, str(e)[:200]
            f.write(json.dumps({"t": t, "k": "kubectl " + args[1], "ok": ok, "err": err})
                    + "\n")
            f.flush()
            i += 1
            stop_ev.wait(1)


def kubectl_summary(path, start, end):
    ok = bad = 0
    try:
        with open(path) as f:
            for line in f:
                e = json.loads(line)
                if start <= e["t"] <= end:
                    ok, bad = (ok + 1, bad) if e["ok"] else (ok, bad + 1)
    except (OSError, ValueError):
        return None
    return "kubectl (real): %d ok, %d failed" % (ok, bad)


def lost_writes(path, start, end):
    n = 0
    try:
        with open(path) as f:
            for line in f:
                try:
                    e = json.loads(line)
                except ValueError:
                    continue
                if e.get("k") == "lost_write" and start <= e.get("t", 0) <= end:
                    n += 1
    except OSError:
        pass
    return n


def serve_again(path, t0, end):
    """ms from t0 to the first successful request after the last failed one
    (0: no request failed after t0)."""
    last_bad, first_ok_after = None, None
    reqs = ("readyz", "lease_get", "lease_put")
    try:
        with open(path) as f:
            evs = [json.loads(l) for l in f if l.strip()]
    except (OSError, ValueError):
        return None
    evs = [e for e in evs if e.get("k") in reqs and t0 <= e.get("t", 0) <= end]
    for e in evs:
        if not e.get("ok"):
            last_bad = e["t"]
    if last_bad is None:
        return 0
    for e in evs:
        if e.get("ok") and e["t"] > last_bad:
            first_ok_after = e["t"] if first_ok_after is None else min(first_ok_after, e["t"])
    return None if first_ok_after is None else int(round((first_ok_after - t0) * 1000))


def start_prober(lab, stack):
    client = lab.host("client")
    inside = "/var/log/probe-%s.jsonl" % stack
    path = os.path.join(client.dir, "log", os.path.basename(inside))
    if os.path.exists(path):
        os.unlink(path)
    client.start("probe-" + stack, [
        "cpha", "lab", "probe", "--server", "https://%s:6443" % labmod.VIP,
        "--server-name", "kubernetes", "--cacert", "/etc/kubernetes/pki/ca.pem",
        "--cert", "/etc/kubernetes/pki/admin.pem", "--key", "/etc/kubernetes/pki/admin-key.pem",
        "--out", inside])
    time.sleep(1)
    if not client.service_pid("probe-" + stack):
        raise LabError("the prober did not start: %s" % open(os.path.join(
            client.dir, "logs", "probe-%s.log" % stack)).read()[-1500:])
    return path


def run_stack(lab, stack, names, progress, report_dir):
    if lab.info.get("stack") != stack:
        progress("stack %s: rendering and starting %s on the LB hosts" % (
            STACK_NAMES[stack], "lbd, vipd" if stack == "cpha" else "haproxy, keepalived"))
        from importlib import import_module
        import_module("cphalab.stackswitch").switch(lab, stack, progress)
    events = start_prober(lab, stack)
    kpath = os.path.join(report_dir, "kubectl-%s.jsonl" % stack)
    kstop = threading.Event()
    kt = threading.Thread(target=kubectl_loop, args=(lab, kpath, kstop), daemon=True)
    kt.start()
    mon = Monitor(lab)
    mon.start()
    time.sleep(5)
    out = []
    try:
        for name in names:
            fn = dict(scenarios.SCENARIOS)[name]
            ctx = scenarios.Ctx(lab, progress, stack)
            progress("%s: %s" % (STACK_NAMES[stack], name))
            mon.reset()
            start = time.time()
            err = None
            t0 = None
            try:
                t0 = fn(ctx)
                observe.wait_settled(lab, 240, progress)
            except LabError as e:
                err = str(e)
                ctx.notes.append("scenario error: " + err)
                progress("  ERROR: " + err)
                try:
                    observe.wait_settled(lab, 180, progress)
                except LabError as e2:
                    ctx.notes.append("did not settle: %s" % e2)
            time.sleep(3)
            end = time.time()
            if t0:
                ctx.timings["serve_ms"] = serve_again(events, t0, end)
            inv = {k: not v for k, v in mon.bad.items()}
            for k, v in mon.bad.items():
                if v:
                    ctx.notes.append("%s violated %d times, first at +%.1f s: %s" % (
                        k, len(v), v[0][0] - start, v[0][1:]))
            members = observe.etcd_members(lab)
            inv["etcd_odd"] = bool(members) and len(members) % 2 == 1
            inv["no_lost_write"] = lost_writes(events, start, end) == 0
            inv["settled"] = err is None
            inv.update(ctx.invariants)
            note = kubectl_summary(kpath, start, end)
            if note:
                ctx.notes.append(note)
            out.append({"name": name, "start": start, "end": end, "invariants": inv,
                        "timings": ctx.timings, "marks": ctx.marks, "notes": ctx.notes})
            progress("  done in %.0f s; invariants %s" % (end - start, "all held" if all(
                inv.values()) else "FAILED: " + ", ".join(k for k, v in inv.items() if not v)))
    finally:
        mon.stop()
        kstop.set()
        client = lab.host("client")
        client.stop("probe-" + stack, timeout=10)
    # the events go with the report: the lab's data goes with the lab
    kept = os.path.join(report_dir, "events-%s.jsonl" % stack)
    shutil.copyfile(events, kept)
    return {"stack": STACK_NAMES[stack], "events": kept, "scenarios": out}


def run(lab, a, progress):
    names = a.scenarios or [n for n, _ in scenarios.SCENARIOS]
    known = [n for n, _ in scenarios.SCENARIOS]
    for n in names:
        if n not in known:
            raise LabError("unknown scenario %r (known: %s)" % (n, " ".join(known)))
    stacks = ["peer"] if a.peer_only else (["cpha", "peer"] if a.peer else ["cpha"])
    report = os.path.abspath(a.report)
    os.makedirs(report, exist_ok=True)
    runs = []
    for s in stacks:
        runs.append(run_stack(lab, s, names, progress, report))
    doc = {"lab": {"name": lab.name, "binaries": lab.info.get("binaries", {}),
                   "hosts": [{"name": h.name, "role": h.role, "address": h.v4}
                             for h in lab.hosts.values()],
                   "started": lab.info.get("started")},
           "runs": runs}
    labjson = os.path.join(report, "lab.json")
    write_json(labjson, doc)
    progs = build.Programs()
    r = build.cpha(progs, ["lab", "report", "--in", labjson, "--out", report], check=False)
    if r.returncode != 0:
        raise LabError("cpha lab report: %s%s" % (r.stdout, r.stderr))
    progress("report: %s/report.md, report.json, timeline.svg" % report)
    return 0
