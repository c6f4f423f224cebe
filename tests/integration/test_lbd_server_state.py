#!/usr/bin/env python3
"""lbd and HAProxy's server-state file (server-state-file,
load-server-state-from-file), seen from outside:
  - 'show servers state' prints HAProxy 2.6's version 1 header and 25
    columns from lbd's state (maint 1, drain 8, run-time weight);
  - lbd writes the file when it stops (mode 0600), and the next lbd starts
    with the same states: traffic avoids the server in maintenance and the
    drained one, the weight set at run time holds; checks still run (a
    server goes DOWN and UP again afterwards);
  - a reload writes the file and keeps the states (and the run-time weight)
    in-process;
  - a restart with a configuration that removed a server skips its line
    with a notice;
  - a corrupt file is a warning naming file:line, and lbd serves as if it
    were absent;
  - interop: lbd loads a file that haproxy's own 'show servers state'
    wrote, and haproxy loads the file lbd wrote (when haproxy is here).

Topology: client 198.18.0.2, lb 198.18.0.10, s1..s3 198.18.0.11-13 (tag
servers on :8000). Exit 0 pass, 77 skip, else fail.
    sudo python3 tests/integration/test_lbd_server_state.py [-v]
"""

import grp
import os
import pwd
import shutil
import signal
import socket
import stat
import sys
import time
import unittest

sys.dont_write_bytecode = True

import cphatest  # noqa: E402
from cphatest import lbd, step, util  # noqa: E402

PORT = 6443
HEADER = ("# be_id be_name srv_id srv_name srv_addr srv_op_state srv_admin_state "
          "srv_uweight srv_iweight srv_time_since_last_change srv_check_status "
          "srv_check_result srv_check_health srv_check_state srv_agent_state "
          "bk_f_forced_id srv_f_forced_id srv_fqdn srv_port srvrecord srv_use_ssl "
          "srv_check_port srv_check_addr srv_agent_addr srv_agent_port")


def body(servers=("s1", "s2", "s3"), port=PORT):
    lines = ["    server %s 198.18.0.%d:8000" % (n, 10 + int(n[1:])) for n in servers]
    return """
defaults
    mode tcp
    timeout connect 1s
    timeout client 30s
    timeout server 30s
    load-server-state-from-file global

frontend fe
    bind 198.18.0.10:%d
    default_backend be

backend be
    default-server check inter 200ms fall 2 rise 2
%s
""" % (port, "\n".join(lines))


def parse_state(text):
    """{server: [25 fields]} of 'show servers state' text; checks the
    version and header lines and the closing empty line."""
    lines = text.split("\n")
    assert lines[0] == "1", text
    assert lines[1] == HEADER, text
    out = {}
    for x in lines[2:]:
        if not x or x.startswith("#"):
            continue
        f = x.split(" ")
        assert len(f) == 25, x
        out[f[3]] = f
    return out


class ServerState(unittest.TestCase):

    def tags(self, n=12):
        """Tags of n new connections (a failed one counts as None)."""
        out = []
        for _ in range(n):
            try:
                out.append(lbd.tag_of(self.t.client, lbd.LB_IP, PORT, timeout=2))
            except (OSError, AssertionError, socket.timeout):
                out.append(None)
        return out

    def stop(self, lb, chroot=False):
        """SIGTERM lbd and wait for it to exit (status 0; in a chroot, an
        ASan build's leak check cannot read /proc, which is no failure)."""
        lb.proc.kill(signal.SIGTERM)
        rc = lb.proc.wait(10)
        if rc != 0 and chroot and "LeakSanitizer has encountered a fatal error" in lb.log_text():
            return
        self.assertEqual(rc, 0, util.tail(lb.proc.log_path, 20))

    def file_state(self):
        with open(self.state) as f:
            return parse_state(f.read())

    def test_server_state(self):
        with cphatest.Lab("lbd-srvstate") as lab:
            self.t = t = lbd.Topology(lab, nservers=3)
            tag = t.start_tagservers(8000)
            self.state = lab.path("state", "servers.state")
            os.makedirs(os.path.dirname(self.state), exist_ok=True)
            extra = ["server-state-file servers.state",
                     "server-state-base %s" % os.path.dirname(self.state)]
            lb = lbd.Lbd(lab, t.lb, body(), global_extra=extra)

            step("no file yet: a warning as HAProxy's, every server UP")
            lb.start()
            lb.wait_all_up("be", 0.5)
            self.assertTrue(lb.log_lines("config: Can't open global server state file '%s'"
                                         % self.state))

            step("maint s1, drain s2, weight 7 on s3: 'show servers state' says so")
            lb.set_state("be", "s1", "maint")
            lb.set_state("be", "s2", "drain")
            self.assertEqual(lb.admin("set server be/s3 weight 7").strip(), "")
            text = lb.admin("show servers state")
            self.assertTrue(text.endswith("\n\n"), repr(text[-40:]))
            st = parse_state(text)
            self.assertEqual([st["s1"][i] for i in (0, 1, 2, 4, 5, 6)],
                             ["3", "be", "1", "198.18.0.11", "0", "1"])
            self.assertEqual(st["s1"][13], "14", "check configured, enabled, paused")
            self.assertEqual(st["s2"][6], "8")
            self.assertEqual(st["s2"][5], "2")
            self.assertEqual((st["s3"][7], st["s3"][8]), ("7", "1"))
            self.assertEqual((st["s3"][10], st["s3"][11]), ("6", "3"), "L4OK, PASSED")
            self.assertEqual(st["s3"][12], "3", "health rise + fall - 1")
            self.assertEqual(st["s3"][18], "8000")
            self.assertEqual(lb.admin("show servers state nosuch"), "Can't find backend.\n")
            self.assertEqual(set(self.tags()), {"s3"})

            step("SIGTERM: lbd writes the file, mode 0600")
            self.stop(lb)
            self.assertTrue(lb.log_lines("server states written (stopping)"))
            mode = stat.S_IMODE(os.stat(self.state).st_mode)
            self.assertEqual(mode, 0o600)
            fs = self.file_state()
            self.assertEqual((fs["s1"][6], fs["s2"][6], fs["s3"][7]), ("1", "8", "7"))
            self.assertFalse([x for x in os.listdir(os.path.dirname(self.state))
                              if x.endswith(".tmp")], "no temporary file left")

            step("start again: the same states, traffic only to s3")
            lb.start()
            lb.wait_status("be", "s1", "MAINT", 5)
            self.assertEqual(lb.status("be", "s2"), "DRAIN")
            self.assertEqual(lb.server("be", "s3")["weight"], 7)
            time.sleep(0.6)  # a few checks
            self.assertEqual(set(self.tags()), {"s3"})

            step("checks still run: s3's service stops -> DOWN, back -> UP")
            tag["s3"].terminate_and_wait()
            lb.wait_status("be", "s3", "DOWN", 5)
            tag.update(t.start_tagservers(8000, hosts=[t.servers[2]]))
            lb.wait_status("be", "s3", "UP", 5)

            step("enable s1: it comes UP by its checks and takes traffic")
            lb.set_state("be", "s1", "ready")
            lb.wait_status("be", "s1", "UP", 5)
            util.wait_until(lambda: "s1" in self.tags(6), 5, 0.1, "traffic to s1")

            step("a reload writes the file and keeps the states in-process")
            lb.set_state("be", "s1", "maint")
            new = lb.reload(body())
            self.assertIn("server states written (before a reload)", new)
            fs = self.file_state()
            self.assertEqual((fs["s1"][6], fs["s2"][6], fs["s3"][7]), ("1", "8", "7"))
            self.assertEqual(lb.status("be", "s1"), "MAINT")
            self.assertEqual(lb.status("be", "s2"), "DRAIN")
            self.assertEqual(lb.server("be", "s3")["weight"], 7, "run-time weight kept")
            self.assertNotIn("state from the server-state file", new,
                             "a reload does not read the file again")

            step("restart without s3: its line is skipped with a notice")
            self.stop(lb)
            lb.write(body(servers=("s1", "s2")))
            lb.start()
            self.assertTrue(lb.log_lines("backend 'be' has no server 's3' any more: "
                                         "line skipped"))
            self.assertEqual(lb.status("be", "s1"), "MAINT")
            self.assertEqual(lb.status("be", "s2"), "DRAIN")

            step("a corrupt file: a warning with file:line, lbd serves as without it")
            self.stop(lb)
            with open(self.state) as f:
                lines = f.read().split("\n")
            lines.insert(3, "4 be 9 broken 198.18.0.19 2 0")
            with open(self.state, "w") as f:
                f.write("\n".join(lines))
            lb.write(body())
            lb.start()
            self.assertTrue(lb.log_lines("%s:4: corrupt server state line" % self.state),
                            util.tail(lb.proc.log_path, 10))
            lb.wait_all_up("be", 0.3)
            self.assertEqual(set(self.tags(9)), {"s1", "s2", "s3"})
            self.stop(lb)

            if not shutil.which("haproxy"):
                print("SKIP part: haproxy is not installed: no interop steps", flush=True)
                return
            self.interop(lab, t, lb)

    def test_local_init_addr_last(self):
        """load-server-state-from-file local with server-state-file-name, and
        a server given by host name (localhost) whose init-addr tries last
        first: the address in the file wins, traffic goes there; lbd
        writes the local file back; haproxy reads the same file alike."""
        with cphatest.Lab("lbd-srvstate-local") as lab:
            self.t = t = lbd.Topology(lab, nservers=3)
            t.start_tagservers(8000)
            base = lab.path("statedir")
            os.makedirs(base, exist_ok=True)
            self.state = os.path.join(base, "api.state")
            local = """
defaults
    mode tcp
    timeout connect 1s
    timeout client 30s
    timeout server 30s

frontend fe
    bind 198.18.0.10:%d
    default_backend api

backend api
    load-server-state-from-file local
    server-state-file-name api.state
    server a localhost:8000 check inter 200ms init-addr last,libc
"""
            with open(self.state, "w") as f:
                f.write("1\n%s\n3 api 1 a 198.18.0.12 2 0 1 1 30 6 3 2 6 0 0 0 localhost 8000 "
                        "- 0 0 - - 0\n" % HEADER)
            lb = lbd.Lbd(lab, t.lb, local % PORT, global_extra=["server-state-base " + base])

            step("init-addr last: the file's 198.18.0.12, not localhost's address")
            lb.start()
            lb.wait_status("api", "a", "UP", 5)
            time.sleep(0.5)  # checks against the file's address pass
            self.assertEqual(lb.status("api", "a"), "UP")
            self.assertEqual(set(self.tags(6)), {"s2"})
            st = parse_state(lb.admin("show servers state"))["a"]
            self.assertEqual((st[4], st[17], st[18]), ("198.18.0.12", "localhost", "8000"))
            self.assertGreaterEqual(int(st[9]), 30, "time since the last change carried")

            step("stop: the local file is rewritten with the address")
            lb.set_state("api", "a", "drain")
            self.stop(lb)
            fs = self.file_state()["a"]
            self.assertEqual((fs[1], fs[4], fs[6]), ("api", "198.18.0.12", "8"))

            if not shutil.which("haproxy"):
                print("SKIP part: haproxy is not installed", flush=True)
                return
            step("haproxy reads the same local file: same address, drained")
            sock = lab.path("hl", "admin.sock")
            cfg = lab.path("hl", "haproxy.cfg")
            os.makedirs(os.path.dirname(cfg), exist_ok=True)
            with open(cfg, "w") as f:
                f.write("global\n    stats socket %s level admin\n"
                        "    server-state-base %s\n%s" % (sock, base, local % (PORT + 1)))
            hp = t.lb.spawn(["haproxy", "-db", "-f", cfg], name="haproxy")
            util.wait_until(lambda: os.path.exists(sock), 10, 0.05, "haproxy's socket")
            st = parse_state(util.unix_request(sock, "show servers state"))["a"]
            hp.terminate_and_wait()
            self.assertEqual((st[4], st[6]), ("198.18.0.12", "8"))

    def test_privdrop_chroot(self):
        """user nobody, group nogroup, chroot: lbd reads the file as root at
        start and writes it at stop as nobody, through the directory it
        opened before the chroot; the file is nobody's, 0600."""
        try:
            uid = pwd.getpwnam("nobody").pw_uid
            gid = grp.getgrnam("nogroup").gr_gid
        except KeyError:
            print("SKIP part: no user nobody or group nogroup", flush=True)
            return
        with cphatest.Lab("lbd-srvstate-priv") as lab:
            self.t = t = lbd.Topology(lab, nservers=3)
            t.start_tagservers(8000)
            self.state = lab.path("state", "servers.state")
            os.makedirs(os.path.dirname(self.state), exist_ok=True)
            os.chown(os.path.dirname(self.state), uid, gid)
            jail = os.path.join(lab.dir, "jail")
            os.mkdir(jail, 0o755)
            extra = ["chroot " + jail, "user nobody", "group nogroup",
                     "server-state-file " + self.state]
            lb = lbd.Lbd(lab, t.lb, body(), global_extra=extra)
            lb.start()
            lb.wait_all_up("be", 0.3)

            step("as nobody in a chroot: maint s2, stop; the file is nobody's")
            lb.set_state("be", "s2", "maint")
            self.stop(lb, chroot=True)
            st = os.stat(self.state)
            self.assertEqual((st.st_uid, st.st_gid), (uid, gid))
            self.assertEqual(stat.S_IMODE(st.st_mode), 0o600)
            self.assertEqual(self.file_state()["s2"][6], "1")

            step("start again: s2 in maintenance, no traffic to it")
            lb.start()
            lb.wait_status("be", "s2", "MAINT", 5)
            self.assertNotIn("s2", self.tags(9))
            lb.set_state("be", "s2", "ready")
            self.stop(lb, chroot=True)
            self.assertEqual(self.file_state()["s2"][6], "0", "rewritten as nobody")

    def haproxy(self, lab, t, name):
        """haproxy in the lb host on the same body (port PORT + 1), its
        stats socket in the lab; returns (proc, socket path)."""
        sock = lab.path(name, "admin.sock")
        cfg = lab.path(name, "haproxy.cfg")
        os.makedirs(os.path.dirname(cfg), exist_ok=True)
        with open(cfg, "w") as f:
            f.write("global\n    stats socket %s level admin\n"
                    "    server-state-file %s\n%s"
                    % (sock, self.state, body(port=PORT + 1)))
        p = t.lb.spawn(["haproxy", "-db", "-f", cfg], name=name)
        util.wait_until(lambda: os.path.exists(sock), 10, 0.05, "haproxy's stats socket")
        return p, sock

    def interop(self, lab, t, lb):
        step("haproxy -> lbd: lbd loads what haproxy's 'show servers state' wrote")
        os.unlink(self.state)
        hp, sock = self.haproxy(lab, t, "haproxy1")

        def checked():
            st = parse_state(util.unix_request(sock, "show servers state"))
            return all(st[n][10] == "6" and st[n][12] == "3" for n in ("s1", "s2", "s3"))
        util.wait_until(checked, 10, 0.1, "haproxy's checks to pass (L4OK, health 3)")
        for cmd in ("disable server be/s1", "set server be/s2 state drain",
                    "set weight be/s3 5"):
            util.unix_request(sock, cmd)
        dump = util.unix_request(sock, "show servers state")
        st = parse_state(dump)
        self.assertEqual((st["s1"][6], st["s2"][6], st["s3"][7]), ("1", "8", "5"), dump)
        with open(self.state, "w") as f:
            f.write(dump)
        hp.terminate_and_wait()
        lb.start()
        lb.wait_status("be", "s1", "MAINT", 5)
        self.assertEqual(lb.status("be", "s2"), "DRAIN")
        self.assertEqual(lb.server("be", "s3")["weight"], 5)
        self.assertEqual(set(self.tags()), {"s3"})
        time.sleep(0.5)  # a few checks, which pass as they did under haproxy
        mine = parse_state(lb.admin("show servers state be"))
        for name in ("s1", "s2", "s3"):
            # every column but srv_time_since_last_change
            self.assertEqual(mine[name][:9] + mine[name][10:], st[name][:9] + st[name][10:],
                             "lbd %s vs haproxy %s" % (mine[name], st[name]))

        step("lbd -> haproxy: haproxy loads the file lbd wrote")
        lb.set_state("be", "s1", "ready")
        lb.set_state("be", "s3", "maint")
        self.assertEqual(lb.admin("set server be/s2 weight 9").strip(), "")
        self.stop(lb)
        hp, sock = self.haproxy(lab, t, "haproxy2")
        st = parse_state(util.unix_request(sock, "show servers state"))
        hp.terminate_and_wait()
        self.assertEqual(st["s1"][6], "0", "s1 ready")
        self.assertEqual(st["s2"][6], "8", "s2 still drained")
        self.assertEqual(st["s2"][7], "9", "s2 weight 9")
        self.assertEqual(st["s3"][6], "1", "s3 in maintenance")
        self.assertEqual(hp.log_text().count("orrupt"), 0, hp.log_text())


if __name__ == "__main__":
    lbd.require()
    unittest.main()
