#!/usr/bin/env python3
"""lbd's privilege drop: HAProxy's global 'user', 'group' and 'chroot'.

lbd is started as root with 'user nobody' / 'group nogroup' (and, in the
second case, 'chroot' into an empty directory). Seen from outside:
  - /proc/PID/status shows uid and gid of nobody/nogroup, no supplementary
    groups (and /proc/PID/root is the chroot directory);
  - clients still reach both servers through lbd;
  - health checks still work: a server whose tag server is stopped goes
    DOWN, and UP again when it is back, each check result that moves the
    health counter logged by 'option log-health-checks';
  - a reload that needs no root works and keeps the admin socket; one
    that names another user is applied except for the user, and a warning
    says so; one that needs root (a bind on port 80) is refused with the
    reason and the old configuration keeps serving; inside the chroot the
    file is not there, and the reload says so.

Topology: client 198.18.0.2, lb 198.18.0.10 (lbd), s1 and s2 198.18.0.11-12.
Exit 0 pass, 77 skip (not root, lbd not built, no user nobody or group
nogroup), else fail.
    sudo python3 tests/integration/test_lbd_privdrop.py [-v]
"""

import grp
import os
import pwd
import sys
import unittest

sys.dont_write_bytecode = True

import cphatest  # noqa: E402
from cphatest import lbd, step, util  # noqa: E402

PORT = 6443
BODY = """
defaults
    mode tcp
    timeout connect 1s
    timeout client 10s
    timeout server 10s
    default-server check inter 300ms fall 2 rise 2

frontend fe
    bind 198.18.0.10:%d
    default_backend be

backend be
    option log-health-checks
    server s1 198.18.0.11:8000
    server s2 198.18.0.12:8000
""" % PORT


def ids_of(pid):
    """(real, effective, saved, fs uids), (the same gids), supplementary groups."""
    out = util.proc_status(pid)
    return ([int(x) for x in out["Uid"]], [int(x) for x in out["Gid"]],
            [int(x) for x in out.get("Groups", [])])


class PrivDrop(unittest.TestCase):

    def run_case(self, name, chroot):
        uid = pwd.getpwnam("nobody").pw_uid
        gid = grp.getgrnam("nogroup").gr_gid
        with cphatest.Lab(name) as lab:
            t = lbd.Topology(lab, nservers=2)
            tags = t.start_tagservers(8000)
            extra = ["user nobody", "group nogroup"]
            jail = None
            if chroot:
                jail = os.path.join(lab.dir, "jail")
                os.mkdir(jail, 0o755)
                extra.insert(0, "chroot " + jail)
            pidfile = lab.path("run", "lbd.pid")
            extra.append("pidfile " + pidfile)
            lb = lbd.Lbd(lab, t.lb, BODY, global_extra=extra)
            # nobody may read the file again on reload (outside the chroot)
            os.chmod(lab.dir, 0o755)
            os.chmod(os.path.dirname(lb.cfg_path), 0o755)
            os.chmod(lb.cfg_path, 0o644)
            lb.start()
            lb.wait_all_up("be", 0.5)

            step("%s: the process runs as nobody/nogroup" % name)
            uids, gids, groups = ids_of(lb.pid)
            self.assertEqual(uids, [uid] * 4)
            self.assertEqual(gids, [gid] * 4)
            self.assertEqual(groups, [])
            if jail:
                self.assertEqual(os.readlink("/proc/%d/root" % lb.pid), jail)
            self.assertTrue(lb.log_lines("running as uid %d gid %d" % (uid, gid)))
            with open(pidfile) as f:
                self.assertEqual(int(f.read().split()[0]), lb.pid,
                                 "global 'pidfile' holds lbd's pid")

            step("%s: clients reach both servers" % name)
            seen = {lbd.tag_of(t.client, lbd.LB_IP, PORT) for _ in range(20)}
            self.assertEqual(seen, {"s1", "s2"})

            step("%s: s1 stops: its checks mark it DOWN" % name)
            tags["s1"].terminate_and_wait()
            lb.wait_status("be", "s1", "DOWN", 10)
            self.assertTrue(lb.log_lines("Health check for server be/s1 failed, reason: "))
            seen = {lbd.tag_of(t.client, lbd.LB_IP, PORT) for _ in range(10)}
            self.assertEqual(seen, {"s2"})

            step("%s: s1 is back: UP again" % name)
            tags["s1"] = t.start_tagservers(8000, hosts=[t.servers[0]])["s1"]
            lb.wait_status("be", "s1", "UP", 10)
            self.assertTrue(lb.log_lines("Health check for server be/s1 succeeded, reason: "))
            seen = {lbd.tag_of(t.client, lbd.LB_IP, PORT) for _ in range(20)}
            self.assertEqual(seen, {"s1", "s2"})

            if not jail:
                step("%s: a reload that needs no root works; the admin socket stays" % name)
                lb.reload(BODY.replace("inter 300ms", "inter 250ms"))
                self.assertIn("Name: lbd", lb.admin("show info"))
                self.assertEqual(lb.status("be", "s1"), "UP")

                step("%s: a reload naming another user says it cannot apply it" % name)
                lb.global_extra = ["uid 1", "group nogroup"]
                new = lb.reload(BODY)
                self.assertIn("chroot, user or group changed", new)
                self.assertEqual(ids_of(lb.pid)[0], [uid] * 4)
                lb.global_extra = extra

            step("%s: a reload that needs root is refused; traffic goes on" % name)
            new = lb.reload(BODY + "\nfrontend low\n    bind 198.18.0.10:80\n"
                            "    default_backend be\n", expect_ok=False)
            if jail:
                self.assertIn("cannot read", new)
            else:
                self.assertIn("Permission denied", new)
            self.assertTrue(lb.proc.running())
            self.assertIn("Name: lbd", lb.admin("show info"))
            self.assertIn(lbd.tag_of(t.client, lbd.LB_IP, PORT), ("s1", "s2"))

    def test_chroot_refuses_https_check_files_outside(self):
        """HTTPS checks read their ca-file at each check: with a chroot that
        does not hold it, lbd refuses to start instead of marking every
        server DOWN afterwards."""
        with cphatest.Lab("lbd-chroot-ca") as lab:
            lb_host = lab.add_host("lb", v4=lbd.LB_IP + "/24")
            jail = os.path.join(lab.dir, "jail")
            os.mkdir(jail, 0o755)
            lb = lbd.Lbd(lab, lb_host, "", global_extra=["chroot " + jail])
            ca = lab.path("ca.pem")
            with open(ca, "w") as f:
                f.write("not read by -c beyond access()\n")
            lb.write("""
defaults
    mode tcp
    timeout connect 1s
    timeout client 10s
    timeout server 10s

listen api
    bind 198.18.0.10:%d
    option httpchk
    http-check connect ssl
    server m0 198.18.0.11:6443 check verify required ca-file %s
""" % (PORT, ca))
            step("chroot with an HTTPS check's ca-file outside it: lbd refuses to start")
            r = lb_host.run([lbd.binary(), "-db", "-f", lb.cfg_path], check=False, timeout=20)
            self.assertEqual(r.returncode, 1, r.stderr)
            self.assertIn("server api/m0: its HTTPS checks read %s at each check, and it is "
                          "not inside chroot %s" % (ca, jail), r.stderr)

    def test_user_group(self):
        self.run_case("lbd-privdrop", chroot=False)

    def test_chroot(self):
        self.run_case("lbd-chroot", chroot=True)


if __name__ == "__main__":
    lbd.require()
    try:
        pwd.getpwnam("nobody")
        grp.getgrnam("nogroup")
    except KeyError:
        print("SKIP: no user nobody or group nogroup on this system", flush=True)
        sys.exit(util.SKIP)
    unittest.main()
