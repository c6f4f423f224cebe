#!/usr/bin/env python3
"""lbd's stats socket levels and permissions, seen by an unprivileged user.

lbd (host lb, 198.18.0.10) has two servers without checks. A client
process running as uid/gid 65534 ("nobody", set with os.setuid in the
child before it connects) uses the admin socket:

- mode 666 level user: it can read (show stat, show servers state, help)
  but every change (disable server, set server state/weight/health,
  shutdown sessions) is answered "Permission denied" and changes nothing,
  as root then sees; lbd logs the refusal with uid 65534. Ten times each.
- reload to level operator: the same (HAProxy 2.6 allows these changes
  to admin only).
- reload to level admin: the same user can put a server in maintenance.
- reload to mode 600: the live socket file becomes 0600 (same inode: the
  socket was not reopened) and the unprivileged connect fails with EACCES;
  root still gets answers. A minute-long watch is not needed: the mode is
  checked again after ten more connects.
- reload to mode 660 user nobody group nogroup level user: the file
  belongs to 65534:65534, the unprivileged user connects again, reads,
  and is refused changes.

Exit 0 pass, 77 skip (not root, lbd not built, no user 65534), else fail.
    sudo python3 tests/integration/test_admin_level.py [-v]
"""

import json
import os
import pwd
import socket
import stat
import subprocess
import sys
import unittest

sys.dont_write_bytecode = True

import cphatest  # noqa: E402
from cphatest import lbd, step, util  # noqa: E402

NOBODY = 65534
REPEAT = 10

BODY = """
defaults
    mode tcp
    timeout connect 1s
    timeout client 10s
    timeout server 10s

frontend fe
    bind %s:6443
    default_backend be

backend be
    server s1 198.18.0.11:8000
    server s2 198.18.0.12:8000
""" % lbd.LB_IP

CHANGES = ["disable server be/s1", "set server be/s1 state maint", "set server be/s1 weight 7",
           "set server be/s1 health down", "shutdown sessions server be/s2",
           "enable server be/s1 json"]

# the child: drop to NOBODY, then one command per argument on fresh
# connections; prints a JSON list of replies (or "ERRNO n")
CLIENT = r"""
import json, os, socket, sys
os.setgroups([]); os.setgid(%d); os.setuid(%d)
out = []
for cmd in sys.argv[2:]:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(5)
    try:
        s.connect(sys.argv[1])
        s.sendall(cmd.encode() + b"\n")
        data = b""
        while True:
            c = s.recv(65536)
            if not c:
                break
            data += c
        out.append(data.decode())
    except OSError as e:
        out.append("ERRNO %%d" %% e.errno)
    finally:
        s.close()
print(json.dumps(out))
""" % (NOBODY, NOBODY)


class Stats(lbd.Lbd):
    """lbd whose stats socket line is set by the test."""

    stats_opts = "mode 666 level user"

    def config_text(self, body):
        text = super().config_text(body)
        return text.replace("stats socket %s mode 600 level admin" % self.sock_path,
                            "stats socket %s %s" % (self.sock_path, self.stats_opts))


def as_nobody(path, *commands):
    r = subprocess.run([lbd.PYTHON, "-c", CLIENT, path] + list(commands), capture_output=True,
                       text=True, timeout=60)
    if r.returncode != 0:
        raise AssertionError("client as uid %d failed: %s" % (NOBODY, r.stderr))
    return json.loads(r.stdout)


class Levels(unittest.TestCase):

    def admin_state(self, d):
        st = {s["server"]: s for s in d.admin_json("show servers state be")}
        return (st["s1"]["admin"], st["s1"]["weight"], st["s1"]["up"])

    def refused_and_reads(self, d, level):
        replies = as_nobody(d.sock_path, *(CHANGES * REPEAT))
        for cmd, r in zip(CHANGES * REPEAT, replies):
            want = ('{"ok":false,"error":"Permission denied"}\n' if cmd.endswith("json")
                    else "Permission denied\n")
            self.assertEqual(r, want, "%s at level %s" % (cmd, level))
        self.assertEqual(self.admin_state(d), ("ready", 1, True))
        reads = as_nobody(d.sock_path, *(["show stat", "show servers state", "help"] * REPEAT))
        for i in range(0, len(reads), 3):
            self.assertIn("be,s1,", reads[i])
            self.assertIn(" be 1 s1 ", reads[i + 1])
            self.assertIn("show stat", reads[i + 2])
            self.assertNotIn("set server", reads[i + 2])
        step("level %s: %d changes refused, %d reads answered, s1 still ready"
             % (level, len(replies), len(reads)))

    def test_levels_and_reload(self):
        with cphatest.Lab("admin-level") as lab:
            lb = lab.add_host("lb", v4=lbd.LB_IP + "/24")
            d = Stats(lab, lb, BODY, nbthread=1)
            # let the unprivileged user reach the socket's directory
            for p in (lab.dir, os.path.dirname(d.sock_path)):
                os.chmod(p, 0o711)
            d.start()
            self.assertEqual(stat.S_IMODE(os.stat(d.sock_path).st_mode), 0o666)
            ino = os.stat(d.sock_path).st_ino

            self.refused_and_reads(d, "user")
            self.assertTrue(d.log_lines("'disable' refused to uid %d" % NOBODY), d.log_text())

            d.stats_opts = "mode 666 level operator"
            d.reload(BODY)
            self.refused_and_reads(d, "operator")

            d.stats_opts = "mode 666 level admin"
            d.reload(BODY)
            self.assertEqual(as_nobody(d.sock_path, "disable server be/s1"), ["\n"])
            self.assertEqual(self.admin_state(d)[0], "maint")
            self.assertEqual(as_nobody(d.sock_path, "enable server be/s1 json"),
                             ['{"ok":true}\n'])
            self.assertEqual(self.admin_state(d)[0], "ready")
            step("level admin: uid %d disabled and enabled be/s1" % NOBODY)

            d.stats_opts = "mode 600 level admin"
            d.reload(BODY)
            st = os.stat(d.sock_path)
            self.assertEqual(stat.S_IMODE(st.st_mode), 0o600)
            self.assertEqual(st.st_ino, ino, "the socket was reopened, not changed")
            replies = as_nobody(d.sock_path, *(["show stat", "disable server be/s1"] * REPEAT))
            self.assertEqual(set(replies), {"ERRNO 13"}, replies)
            self.assertEqual(self.admin_state(d)[0], "ready")
            self.assertIn("Name: lbd", d.admin("show info"))
            self.assertEqual(stat.S_IMODE(os.stat(d.sock_path).st_mode), 0o600)
            step("mode 600: uid %d gets EACCES %d times; root is answered" % (NOBODY,
                                                                             len(replies)))

            d.stats_opts = "mode 660 user nobody group nogroup level user"
            d.reload(BODY)
            st = os.stat(d.sock_path)
            self.assertEqual((stat.S_IMODE(st.st_mode), st.st_uid, st.st_gid),
                             (0o660, NOBODY, NOBODY))
            self.refused_and_reads(d, "user (owner nobody, mode 660)")
            self.assertIn("Name: lbd", d.admin("show info"))
            self.assertTrue(d.proc.running())


def main():
    lbd.require()
    try:
        if pwd.getpwuid(NOBODY).pw_name != "nobody":
            raise KeyError(NOBODY)
        import grp
        if grp.getgrgid(NOBODY).gr_name != "nogroup":
            raise KeyError(NOBODY)
    except KeyError:
        return util.skip("no user nobody / group nogroup with id %d" % NOBODY)
    return util.run_tests()


if __name__ == "__main__":
    sys.exit(main())
