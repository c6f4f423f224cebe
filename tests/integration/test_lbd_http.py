#!/usr/bin/env python3
"""lbd's built-in HTTP services, seen by a client with curl.

lbd runs in the lb host with a TCP frontend to backend api (s1, s2), a
stats listener (auth, admin, refresh), a monitor-uri frontend with
'monitor fail if { nbsrv(api) lt 1 }' and a prometheus-exporter frontend:

- the stats page needs credentials (401 with the realm without or with a
  wrong password, 200 with them) and lists the servers; its ';csv' export
  parses and matches the admin socket's 'show stat'; an admin POST puts a
  server in maintenance and back to ready, as 'show stat' shows; a userlist
  with a crypt(3) hash guards a second stats page through http_auth;
- monitor-uri answers 200, 503 once every server of api is down, 200 when
  one is back, twice over;
- /metrics on the exporter answers lbd_ metrics; other paths get 503;
- a mode http frontend that sends to a mode http backend holding only
  stats directives, by 'use_backend ... if { hdr_beg(host) -i stats. }':
  the page for that Host, 503 for another;
- after a reload the same addresses answer for the new configuration.

Topology: client 198.18.0.2, lb 198.18.0.10 (lbd), s1, s2 198.18.0.11-12.
Exit 0 pass, 77 skip (not root, lbd not built, or curl missing), else fail.
    sudo python3 tests/integration/test_lbd_http.py [-v]
"""

import csv
import io
import signal
import sys
import unittest

sys.dont_write_bytecode = True

import cphatest  # noqa: E402
from cphatest import lbd, step  # noqa: E402
from cphatest.curl import curl  # noqa: E402

LB = lbd.LB_IP
STATS = "http://%s:8404/stats" % LB
HEALTHZ = "http://%s:8081/healthz" % LB
METRICS = "http://%s:8405/metrics" % LB

BODY = """
defaults
    mode tcp
    timeout connect 1s
    timeout client 10s
    timeout server 10s
    timeout check 500ms

frontend api
    bind 198.18.0.10:6443
    default_backend api

backend api
    default-server check inter 200ms fall 2 rise 2
    server s1 198.18.0.11:8000
    server s2 198.18.0.12:8000

listen stats
    bind 198.18.0.10:8404
    mode http
    stats enable
    stats uri /stats
    stats refresh 5s
    stats realm lbd\\ test\\ realm
    stats auth admin:secret
    stats admin if TRUE

userlist ops
    user bob password $6$cphatest$.ngB9sgAAxCkzXpr1wsgJGTPIulzTX9I2K.003ntgVi1L0hE2hPIlHHaPoWi62359LD0AEEn/7738fPcWqq27/
    user carol insecure-password plain

listen stats2
    bind 198.18.0.10:8406
    mode http
    stats uri /
    acl ok http_auth(ops)
    stats http-request auth realm Ops unless ok

frontend healthz
    bind 198.18.0.10:8081
    mode http
    monitor-uri /healthz
    acl dead nbsrv(api) lt 1
    monitor fail if dead

frontend prometheus
    bind 198.18.0.10:8405
    mode http
    http-request use-service prometheus-exporter if { path /metrics }
    no log

frontend stats_by_host
    bind 198.18.0.10:8407
    mode http
    acl is_stats hdr_beg(host) -i stats.
    use_backend stats_only if is_stats

backend stats_only
    mode http
    stats enable
    stats uri /
    stats hide-version
"""


def head_and_body(r):
    """curl -D - output: (lower-cased header text, body)."""
    text = r.body.replace("\r\n", "\n")
    head, _, body = text.partition("\n\n")
    return head.lower(), body


def csv_rows(text):
    """{(pxname, svname): row dict} of HAProxy's CSV ("# " before the header)."""
    lines = [x for x in text.splitlines() if x.strip()]
    if not lines or not lines[0].startswith("# "):
        raise AssertionError("not HAProxy CSV: %r" % text[:200])
    lines[0] = lines[0][2:]
    return {(r["pxname"], r["svname"]): r for r in csv.DictReader(io.StringIO("\n".join(lines)))}


class HttpServices(unittest.TestCase):

    def get(self, t, url, auth=None, method="GET", data=None):
        extra = ["-D", "-"]
        if auth:
            extra += ["-u", auth]
        return curl(t.client, url, method=method, data=data, extra=extra,
                    headers=("Content-Type: application/x-www-form-urlencoded",)
                    if data else ())

    def test_services(self):
        with cphatest.Lab("lbd-http") as lab:
            t = lbd.Topology(lab, nservers=2)
            t.start_tagservers(8000)
            lb = lbd.Lbd(lab, t.lb, BODY)
            lb.start()
            lb.wait_all_up("api", settle=0.5)

            step("stats page: 401 without or with wrong credentials, 200 with them")
            for auth in (None, "admin:wrong", "nobody:secret"):
                r = self.get(t, STATS, auth=auth)
                head, _ = head_and_body(r)
                self.assertEqual(r.status, 401, (auth, r))
                self.assertIn('www-authenticate: basic realm="lbd test realm"', head)
            r = self.get(t, STATS, auth="admin:secret")
            head, body = head_and_body(r)
            self.assertEqual(r.status, 200, r)
            self.assertIn("content-type: text/html", head)
            self.assertIn("refresh: 5", head)
            for name in ("s1", "s2"):
                self.assertIn('class="name">%s<' % name, body)
            self.assertIn("backend api<", body)
            self.assertEqual(body.count('class="status">UP<'), 2, body)

            step("userlist: crypt(3) and insecure passwords through http_auth")
            ops = "http://%s:8406/" % LB
            for auth, want in ((None, 401), ("bob:pw", 200), ("bob:wrong", 401),
                               ("carol:plain", 200), ("carol:pw", 401), ("eve:pw", 401)):
                r = self.get(t, ops, auth=auth)
                self.assertEqual(r.status, want, (auth, r))
                if want == 401:
                    self.assertIn('www-authenticate: basic realm="ops"', head_and_body(r)[0])

            step("';csv' parses and matches 'show stat'")
            r = self.get(t, STATS + ";csv", auth="admin:secret")
            self.assertEqual(r.status, 200, r)
            head, body = head_and_body(r)
            self.assertIn("refresh: 5", head)
            page = csv_rows(body)
            sock = csv_rows(lb.admin("show stat"))
            self.assertEqual(set(page), set(sock))
            self.assertIn(("api", "s1"), page)
            for key in sock:
                for col in ("status", "weight", "act", "bck", "iid", "sid", "type"):
                    self.assertEqual(page[key][col], sock[key][col], (key, col))
            self.assertEqual(page[("api", "s2")]["status"], "UP")

            step("admin POST: s2 to maint, then ready, as 'show stat' shows")
            r = self.get(t, STATS, method="POST", data="s=s2&action=maint&b=api")
            self.assertEqual(r.status, 401, "an admin POST without credentials: %r" % r)
            self.assertEqual(lb.status("api", "s2"), "UP")
            for action, want in (("maint", "MAINT"), ("ready", "UP"), ("maint", "MAINT"),
                                 ("ready", "UP")):
                r = self.get(t, STATS, auth="admin:secret", method="POST",
                             data="s=s2&action=%s&b=api" % action)
                head, _ = head_and_body(r)
                self.assertEqual(r.status, 303, r)
                self.assertIn("location: /stats;st=done", head)
                lb.wait_status("api", "s2", want, timeout=5)
                row = csv_rows(lb.admin("show stat"))[("api", "s2")]
                self.assertEqual(row["status"], want)
                r = self.get(t, STATS + ";csv", auth="admin:secret")
                self.assertEqual(csv_rows(head_and_body(r)[1])[("api", "s2")]["status"],
                                 want)
            r = self.get(t, STATS, auth="admin:secret", method="POST",
                         data="s=nosuch&action=maint&b=api")
            self.assertIn("location: /stats;st=errp", head_and_body(r)[0])

            step("monitor-uri follows the backend: 200, 503 with no server, 200 again (x2)")
            r = self.get(t, HEALTHZ)
            self.assertEqual(r.status, 200, r)
            self.assertEqual(self.get(t, "http://%s:8081/other" % LB).status, 503)
            for rnd in range(2):
                for name in ("s1", "s2"):
                    t.procs[name].kill(signal.SIGKILL)
                for name in ("s1", "s2"):
                    lb.wait_status("api", name, "DOWN", timeout=5)
                r = self.get(t, HEALTHZ)
                self.assertEqual(r.status, 503, "round %d, every server down: %r" % (rnd, r))
                self.assertIn("503 Service Unavailable", r.body)
                page = head_and_body(self.get(t, STATS, auth="admin:secret"))[1]
                self.assertEqual(page.count('class="status">DOWN<'), 2, page)
                page = head_and_body(self.get(t, STATS + ";up", auth="admin:secret"))[1]
                self.assertNotIn('class="name">s1<', page)  # ;up: UP servers only
                t.start_tagservers(8000, hosts=[t.servers[rnd]])
                lb.wait_status("api", t.servers[rnd].name, "UP", timeout=5)
                r = self.get(t, HEALTHZ)
                self.assertEqual(r.status, 200, "round %d, one server back: %r" % (rnd, r))
                other = t.servers[1 - rnd]
                t.start_tagservers(8000, hosts=[other])
                lb.wait_status("api", other.name, "UP", timeout=5)
                self.assertEqual(self.get(t, HEALTHZ).status, 200)

            step("prometheus-exporter on /metrics; 503 elsewhere")
            r = self.get(t, METRICS)
            head, body = head_and_body(r)
            self.assertEqual(r.status, 200, r)
            self.assertIn("content-type: text/plain; version=0.0.4", head)
            self.assertIn("lbd_process_current_connections", body)
            self.assertTrue(any(x.startswith("lbd_") and 's1"' in x
                                for x in body.splitlines()), body[:2000])
            self.assertEqual(self.get(t, "http://%s:8405/other" % LB).status, 503)

            step("a stats backend behind a frontend, chosen by Host: 200 for stats.*, 503 else")
            for _ in range(3):
                r = curl(t.client, "http://%s:8407/;csv" % LB,
                         headers=("Host: stats.lb.example",))
                self.assertEqual(r.status, 200, r)
                self.assertIn(("api", "s1"), csv_rows(r.body))
                r = curl(t.client, "http://%s:8407/;csv" % LB,
                         headers=("Host: api.lb.example",))
                self.assertEqual(r.status, 503, r)

            step("reload: the same addresses answer for the new configuration")
            lb.reload(BODY.replace("monitor-uri /healthz", "monitor-uri /ready")
                      .replace("stats auth admin:secret", "stats auth admin:other"))
            self.assertEqual(self.get(t, "http://%s:8081/ready" % LB).status, 200)
            self.assertEqual(self.get(t, HEALTHZ).status, 503)
            self.assertEqual(self.get(t, STATS, auth="admin:secret").status, 401)
            self.assertEqual(self.get(t, STATS, auth="admin:other").status, 200)
            self.assertEqual(self.get(t, METRICS).status, 200)
            self.assertTrue(lb.proc.running(), "lbd died")


if __name__ == "__main__":
    lbd.require(tools=("curl",))
    unittest.main()
