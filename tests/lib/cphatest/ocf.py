"""cpha's OCF resource agents in the test bed: the built agents staged where
`nobody` can run them (ocf-tester checks that), actions run by hand with
OCF_RESKEY_* variables, ocf-tester, `pcs resource describe` inside a private
mount namespace (the agents overlaid on /usr/lib/ocf/resource.d; the host's
directory is never written), and configurations for lbd and HAProxy.

    from cphatest import ocf
    ocf.require()                                  # SKIP (77) when not built
    stage = ocf.Stage()                            # /tmp/cpha-ocf-<pid>-*/cpha/<agent>
    rc, err = ocf.run_agent(host, stage, "lbd", "start", {"config": cfg})
    ocf.exit_reason(err)
    stage.close()
"""

import os
import shutil
import subprocess
import sys
import tempfile

from . import testmain, util

AGENTS = ("kube-apiserver", "kube-controller-manager", "kube-scheduler", "lbd", "haproxy")
OCF_ROOT = "/usr/lib/ocf"
RA_DIR = "/usr/lib/ocf/resource.d"

# enum ocf_exitcode (Pacemaker's crm/common/results.h)
OK, ERR_GENERIC, ERR_ARGS, ERR_UNIMPLEMENTED, ERR_PERM, ERR_INSTALLED, \
    ERR_CONFIGURED, NOT_RUNNING = range(8)
DEGRADED = 190


build_dir = util.build_dir


def agent_dir():
    """<build>/resource-agents/cpha: the provider directory the build makes."""
    return os.path.join(build_dir(), "resource-agents", "cpha")


def lbd_binary():
    return util.built("lbd", "lbd")


def require(tools=()):
    """Exit 77 with "SKIP: reason" unless root, the test bed, the tools and
    the built agents are there."""
    util.require_root(tools)
    for name in AGENTS:
        p = os.path.join(agent_dir(), name)
        if not os.access(p, os.X_OK):
            print("SKIP: %s not built (cmake --build build; or set CPHA_BUILD_DIR)" % p,
                  flush=True)
            sys.exit(util.SKIP)


class Stage:
    """A copy of the built agents in a directory every user can read and
    traverse: <root>/cpha/<agent>. Removed by close()."""

    def __init__(self):
        self.root = tempfile.mkdtemp(prefix="cpha-ocf-%d-" % os.getpid(), dir="/tmp")
        os.chmod(self.root, 0o755)
        self.provider = os.path.join(self.root, "cpha")
        os.mkdir(self.provider, 0o755)
        for name in AGENTS:
            dst = os.path.join(self.provider, name)
            shutil.copyfile(os.path.join(agent_dir(), name), dst)
            os.chmod(dst, 0o755)

    def path(self, name):
        return os.path.join(self.provider, name)

    def overlay_script(self):
        """Shell commands that, inside a private mount namespace, make the
        agents appear in /usr/lib/ocf/resource.d/cpha (read-only overlay:
        the staged provider directory over the host's)."""
        return ("mount -t overlay cpha-ocf -o lowerdir=%s:%s %s"
                % (self.root, RA_DIR, RA_DIR))

    def close(self):
        shutil.rmtree(self.root, ignore_errors=True)


def agent_env(params, instance="t", timeout_ms=20000, interval_ms=None, meta=None):
    """The environment Pacemaker gives an agent."""
    env = {"OCF_ROOT": OCF_ROOT, "OCF_RESOURCE_INSTANCE": instance,
           "OCF_RESKEY_CRM_meta_timeout": str(int(timeout_ms))}
    if interval_ms is not None:
        env["OCF_RESKEY_CRM_meta_interval"] = str(int(interval_ms))
    for k, v in (meta or {}).items():
        env["OCF_RESKEY_CRM_meta_" + k] = str(v)
    for k, v in params.items():
        env["OCF_RESKEY_" + k] = str(v)
    return env


def run_agent(host, stage, name, action, params, instance="t", timeout_ms=20000,
              interval_ms=None, meta=None):
    """Run one action in host: (exit status, stderr)."""
    env = agent_env(params, instance, timeout_ms, interval_ms, meta)
    r = host.run([stage.path(name), action], env=env, check=False,
                 timeout=timeout_ms / 1000.0 + 15)
    return r.returncode, r.stderr


def exit_reason(stderr):
    """The last ocf-exit-reason: line (what Pacemaker keeps), or None."""
    reason = None
    for line in stderr.splitlines():
        if line.startswith("ocf-exit-reason:"):
            reason = line[len("ocf-exit-reason:"):]
    return reason


def ocf_tester(host, stage, name, params, instance="t", timeout=240):
    """ocf-tester -n INSTANCE -o k=v ... AGENT in host: CompletedProcess."""
    argv = ["ocf-tester", "-n", instance]
    for k, v in params.items():
        v = str(v)
        if "'" in v:
            raise ValueError("ocf-tester cannot pass a value with a single quote: %r" % v)
        argv += ["-o", "%s=%s" % (k, v)]
    argv.append(stage.path(name))
    return host.run(argv, env={"OCF_ROOT": OCF_ROOT}, check=False, timeout=timeout)


def pcs_describe(stage, name, timeout=60):
    """`pcs resource describe ocf:cpha:NAME` in a private mount namespace
    where the staged agents overlay /usr/lib/ocf/resource.d: CompletedProcess."""
    script = "%s && exec pcs resource describe ocf:cpha:%s" % (stage.overlay_script(), name)
    return subprocess.run(
        ["unshare", "--mount", "--propagation", "private", "sh", "-c", script],
        capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL,
        env={"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "LANG": "C.UTF-8"})


def lb_config(sock, frontends, backend, extra_global=()):
    """A configuration in HAProxy's language that lbd and HAProxy both run:
    frontends is [(name, "addr:port")], backend [(name, "addr:port")]."""
    lines = ["global",
             "    stats socket %s mode 600 level admin" % sock] + \
        ["    " + x for x in extra_global] + \
        ["", "defaults", "    mode tcp", "    timeout connect 2s",
         "    timeout client 60s", "    timeout server 60s", ""]
    for name, addr in frontends:
        lines += ["frontend %s" % name, "    bind %s" % addr, "    default_backend be", ""]
    lines += ["backend be"]
    for name, addr in backend:
        lines.append("    server %s %s" % (name, addr))
    return "\n".join(lines) + "\n"


def write(path, text, mode=0o644):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.chmod(tmp, mode)
    os.replace(tmp, path)
    return path


def stage_with_etcd():
    """A Stage for the etcd tests: the built etcd agent copied into it."""
    stage = Stage()
    dst = stage.path("etcd")
    shutil.copyfile(os.path.join(agent_dir(), "etcd"), dst)
    os.chmod(dst, 0o755)
    return stage


def run_staged(lab_name, run, stage):
    """A test's whole run: run(lab, stage) in a new Lab, the stage closed
    whatever happens (testmain.main). Returns the exit status."""
    return testmain.main(lab_name, run, stage, cleanup=stage.close)
