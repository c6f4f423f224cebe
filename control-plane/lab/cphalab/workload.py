"""The soak's client workload: registers kept in etcd through the VIP, and
the history of every operation, for `cpha lab check-history`.

Each register is a Lease in namespace NAMESPACE whose spec.holderIdentity
holds an integer. Writers run as threads on the client host, each a
"process" of the history: some own a key and do read-modify-write on it
(a read, then a compare-and-swap from the value read), others share one
key and mix reads, writes and compare-and-swaps. Every value written is
unique (the writer's number times a million plus its count), so a value
names the write that made it, and a compare on the resourceVersion read
with the value is a compare on that value.

A line of the history is one event, as `cpha lab check-history` reads them:
    {"process": P, "type": "invoke"|"ok"|"fail"|"info", "f": "read"|"write"|"cas",
     "key": K, "value": V, "time": UNIX}
How an answer becomes an outcome (the outcome must never claim more than
the answer proves):
  - 200 (201 for the setup's create): ok. A read of a missing Lease is ok
    with null.
  - 409 Conflict on a compare-and-swap, 404 on an update: fail, the write
    did not happen.
  - no connection (refused, unreachable, the connect timed out): fail,
    nothing was sent.
  - anything else (a timeout after the request was sent, a reset, a 5xx,
    an unreadable answer): info, the outcome is unknown. The process then
    takes a new number, as in Jepsen's histories: an operation of unknown
    outcome may take effect at any later time, and a process has one
    operation at a time.
"""

import http.client
import json
import random
import socket
import ssl
import threading
import time

NAMESPACE = "cpha-lab-history"
SHARED = "shared"
LEASES = "/apis/coordination.k8s.io/v1/namespaces/%s/leases" % NAMESPACE
MILLION = 1000000
SETUP_PROCESS = 1000000  # the setup's processes: above any writer's


class Outcome(Exception):
    """A request's end that is not an HTTP answer: kind "fail" (nothing
    was sent) or "info" (unknown)."""

    def __init__(self, kind, why):
        super().__init__(why)
        self.kind = kind


class Client:
    """HTTPS to the apiserver through the VIP, one connection per request
    (a failover must not be hidden by a kept-alive connection)."""

    def __init__(self, host, port, server_name, cacert, cert, key, timeout):
        self.host, self.port, self.server_name = host, port, server_name
        self.timeout = timeout
        self.ctx = ssl.create_default_context(cafile=cacert)
        self.ctx.load_cert_chain(cert, key)

    def call(self, method, path, body=None):
        """(status, decoded JSON or None); raises Outcome."""
        try:
            raw = socket.create_connection((self.host, self.port), timeout=self.timeout)
        except OSError as e:
            raise Outcome("fail", "connect: %s" % e)
        try:
            sock = self.ctx.wrap_socket(raw, server_hostname=self.server_name)
        except (OSError, ssl.SSLError) as e:
            raw.close()
            raise Outcome("fail", "TLS handshake: %s" % e)
        conn = http.client.HTTPSConnection(self.host, self.port, timeout=self.timeout,
                                           context=self.ctx)
        conn.sock = sock
        try:
            data = json.dumps(body).encode() if body is not None else None
            conn.request(method, path, body=data,
                         headers={"Content-Type": "application/json"} if data else {})
            r = conn.getresponse()
            text = r.read()
        except (OSError, http.client.HTTPException) as e:
            raise Outcome("info", "%s %s: %s" % (method, path, e))
        finally:
            conn.close()
        try:
            doc = json.loads(text) if text else None
        except ValueError:
            doc = None
        return r.status, doc


# answers that prove a write did not happen: the request was refused as
# written (400, 422), not allowed (403), its object or its version is not
# there (404, 409)
REFUSED = (400, 403, 404, 409, 422)


def outcome(f, status):
    """The history's type for HTTP status of an operation f."""
    if status in (200, 201):
        return "ok"
    if f == "read":
        return "ok" if status == 404 else ("info" if status >= 500 else "fail")
    return "fail" if status in REFUSED else "info"


def value_of(lease):
    """The register's value in a Lease, or None."""
    v = ((lease or {}).get("spec") or {}).get("holderIdentity")
    try:
        return int(v)
    except (TypeError, ValueError):
        return None


def lease_body(key, value, rv=None):
    meta = {"name": key, "namespace": NAMESPACE}
    if rv:
        meta["resourceVersion"] = rv
    return {"apiVersion": "coordination.k8s.io/v1", "kind": "Lease", "metadata": meta,
            "spec": {"holderIdentity": str(value)}}


class History:
    """The history file: one JSON object per line, flushed at once, from
    every thread."""

    def __init__(self, path):
        self.f = open(path, "a")
        self.lock = threading.Lock()
        self.counts = {"ok": 0, "fail": 0, "info": 0}

    def event(self, process, typ, f, key, value):
        line = json.dumps({"process": process, "type": typ, "f": f, "key": key,
                           "value": value, "time": round(time.time(), 6)})
        with self.lock:
            self.f.write(line + "\n")
            self.f.flush()
            if typ in self.counts:
                self.counts[typ] += 1

    def close(self):
        self.f.close()


class Writer(threading.Thread):
    """One process of the history (a new number after each unknown outcome)."""

    def __init__(self, wl, number, key, mix, seed):
        super().__init__(daemon=True, name="writer-%d" % number)
        self.wl, self.number, self.key, self.mix = wl, number, key, mix
        self.process = number
        self.count = 0
        self.rng = random.Random(seed)

    def next_value(self):
        self.count += 1
        return self.number * MILLION + self.count

    def op(self, f, value, fn):
        """Record an operation around fn() -> (type, value)."""
        self.wl.history.event(self.process, "invoke", f, self.key, value)
        try:
            typ, out = fn()
        except Outcome as e:
            typ, out = e.kind, value
        self.wl.history.event(self.process, typ, f, self.key, out)
        if typ == "info":
            self.process += self.wl.nwriters
        return typ, out

    def read(self):
        rv = [None]

        def fn():
            st, doc = self.wl.client.call("GET", "%s/%s" % (LEASES, self.key))
            if st == 200:
                rv[0] = ((doc or {}).get("metadata") or {}).get("resourceVersion")
                return "ok", value_of(doc)
            return outcome("read", st), None

        typ, v = self.op("read", None, fn)
        return (typ == "ok"), v, rv[0]

    def write(self, value):
        def fn():
            st, _ = self.wl.client.call("PUT", "%s/%s" % (LEASES, self.key),
                                        lease_body(self.key, value))
            return outcome("write", st), value

        return self.op("write", value, fn)[0]

    def cas(self, old, new, rv):
        def fn():
            st, _ = self.wl.client.call("PUT", "%s/%s" % (LEASES, self.key),
                                        lease_body(self.key, new, rv))
            return outcome("cas", st), [old, new]

        return self.op("cas", [old, new], fn)[0]

    def run(self):
        while not self.wl.stop.is_set():
            r = self.rng.random()
            if r < self.mix["write"]:
                self.write(self.next_value())
            else:
                ok, v, rv = self.read()
                if ok and rv and r >= 1 - self.mix["cas"]:
                    self.cas(v, self.next_value(), rv)
            self.wl.stop.wait(self.wl.pause * (0.5 + self.rng.random()))


class Workload:
    """nwriters writers: the first `own` each on its own key, the others on
    the shared key."""

    def __init__(self, client, history, own=3, shared=2, pause=0.4, seed=0):
        self.client, self.history = client, history
        self.nwriters = own + shared
        self.pause = pause
        self.stop = threading.Event()
        self.keys = ["own-%d" % i for i in range(1, own + 1)] + [SHARED]
        self.writers = []
        for i in range(self.nwriters):
            n = i + 1
            if i < own:
                # read-modify-write on its own key: a read, then a cas
                key, mix = "own-%d" % n, {"write": 0.05, "cas": 0.95}
            else:
                key, mix = SHARED, {"write": 0.25, "cas": 0.5}
            self.writers.append(Writer(self, n, key, mix, seed * 1000 + n))

    def setup(self, deadline):
        """Every key set (processes SETUP_PROCESS + 1, + 2, ...) before
        the writers start, so that every register starts from a known
        write. Each attempt writes its
        own value (-1, -2, ...): an attempt of unknown outcome may still
        take effect later, and its value then says so. Retried until
        deadline; False when a key could not be set."""
        attempt = 0
        for key in self.keys:
            done = False
            while not done and time.time() < deadline:
                attempt += 1
                value = -attempt
                # each attempt its own process: one of unknown outcome
                # stays open for good
                proc = SETUP_PROCESS + attempt
                self.history.event(proc, "invoke", "write", key, value)
                try:
                    st, _ = self.client.call("POST", LEASES, lease_body(key, value))
                    if st == 409:
                        st, _ = self.client.call("PUT", "%s/%s" % (LEASES, key),
                                                 lease_body(key, value))
                    typ = outcome("write", st)
                    done = typ == "ok"
                except Outcome as e:
                    typ = e.kind
                self.history.event(proc, typ, "write", key, value)
                if not done:
                    time.sleep(0.5)
            if not done:
                return False
        return True

    def start(self):
        for w in self.writers:
            w.start()

    def close(self, timeout=10):
        self.stop.set()
        for w in self.writers:
            w.join(timeout)


def main(a):
    """`cpha lab workload`, run on the client host: the writers until
    SIGTERM or --duration, the history appended to --out."""
    host, _, port = a.server.rpartition(":")
    client = Client(host.strip("[]"), int(port), a.server_name, a.cacert, a.cert, a.key,
                    a.timeout)
    history = History(a.out)
    wl = Workload(client, history, own=a.own, shared=a.shared, pause=a.pause, seed=a.seed)
    try:
        if not wl.setup(time.time() + a.setup_timeout):
            print("cpha lab workload: the registers could not be set in %g s"
                  % a.setup_timeout, flush=True)
            return 1
        wl.start()
        end = time.time() + a.duration if a.duration else None
        while end is None or time.time() < end:
            time.sleep(0.5)
    finally:
        wl.close()
        print("cpha lab workload: %d ok, %d failed, %d unknown" % (
            history.counts["ok"], history.counts["fail"], history.counts["info"]), flush=True)
        history.close()
    return 0
