#!/usr/bin/env python3
"""Each OCF agent's man page says what the agent's meta-data says.

    check-ocf-man.py PAGEDIR AGENT...

For every agent (a built executable): PAGEDIR/ocf_cpha_NAME.7 exists;
groff renders it with every warning on (-ww) and prints nothing on stderr;
and in the rendered text NAME carries the agent's shortdesc, DESCRIPTION
its longdesc, SUPPORTED PARAMETERS has exactly the agent's parameters, in
its order, each with its type, required, unique, default and descriptions,
and SUPPORTED ACTIONS every action with its timeout, interval and depth.
The meta-data is asked of the agent here, not taken from the build, so a
stale page fails too.
Exit 0 pass, 1 fail.
"""

import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET

PROVIDER = "cpha"
# groff with man-db's preprocessing of encodings (-k), every warning (-ww),
# plain text out: no SGR, bold, overstrike or underline (-P-cbou).
GROFF = ["groff", "-k", "-man", "-Tutf8", "-ww"]


def fail(msgs, text):
    msgs.append(text)


def meta_data(agent):
    # An empty environment: meta-data must need none (the build runs it so).
    r = subprocess.run([agent, "meta-data"], capture_output=True, env={}, timeout=30)
    if r.returncode != 0:
        raise RuntimeError("%s meta-data: exit %d: %s" % (agent, r.returncode, r.stderr.decode()))
    return ET.fromstring(r.stdout)


def words(s):
    """s with its white space collapsed, as the page's filled text is."""
    return " ".join((s or "").split())


def render(page):
    """(stderr of a warnings-only run, plain text of the page)."""
    z = subprocess.run(GROFF + ["-z", page], capture_output=True, timeout=60)
    out = subprocess.run(GROFF + ["-P-cbou", page], capture_output=True, timeout=60)
    text = out.stdout.decode("utf-8")
    # A hyphen or minus glyph, should a device give one, reads as "-".
    text = text.replace("\u2010", "-").replace("\u2212", "-")
    return z.stderr.decode(), z.returncode or out.returncode, text


def sections(text):
    """{heading: [lines]} of a rendered page (a heading starts at column 0)."""
    secs = {}
    cur = None
    for line in text.splitlines():
        if line and not line[0].isspace():
            cur = line.strip()
            secs.setdefault(cur, [])
        elif cur is not None:
            secs[cur].append(line)
    return secs


def param_tag(p):
    """The entry's first line as the page must render it."""
    c = p.find("content")
    parts = [c.get("type")]
    if p.get("required") == "1":
        parts.append("required")
    if p.get("unique") == "1":
        parts.append("unique")
    d = c.get("default")
    if d == "":
        parts.append('default ""')
    elif d is not None:
        parts.append("default " + d)
    elif p.get("required") != "1":
        parts.append("no default")
    return "%s (%s)" % (p.get("name"), ", ".join(parts))


def check_agent(pagedir, agent, msgs):
    ra = meta_data(agent)
    name = ra.get("name")
    page = os.path.join(pagedir, "ocf_%s_%s.7" % (PROVIDER, name))
    where = os.path.basename(page)
    if not os.path.isfile(page):
        fail(msgs, "%s: missing (agent %s)" % (page, agent))
        return
    err, rc, text = render(page)
    if rc != 0 or err:
        fail(msgs, "%s: groff -ww: exit %d\n%s" % (where, rc, err))
    secs = sections(text)
    for h in ("NAME", "SYNOPSIS", "DESCRIPTION", "SUPPORTED PARAMETERS",
              "SUPPORTED ACTIONS", "EXAMPLE", "SEE ALSO"):
        if h not in secs:
            fail(msgs, "%s: no %s section" % (where, h))
            return

    first = text.splitlines()[0] if text else ""
    title = "OCF_%s_%s(7)" % (PROVIDER.upper(), name.upper())
    if not first.startswith(title):
        fail(msgs, "%s: title %r, not %s" % (where, first, title))
    want = "ocf_%s_%s - %s" % (PROVIDER, name, words(ra.findtext("shortdesc")))
    if words("\n".join(secs["NAME"])) != want:
        fail(msgs, "%s: NAME is %r, not %r" % (where, words("\n".join(secs["NAME"])), want))
    synopsis = words("\n".join(secs["SYNOPSIS"]))
    if "pcs resource create id ocf:%s:%s" % (PROVIDER, name) not in synopsis:
        fail(msgs, "%s: SYNOPSIS has no pcs resource create ... ocf:%s:%s" % (where, PROVIDER, name))
    if not words("\n".join(secs["DESCRIPTION"])).startswith(words(ra.findtext("longdesc"))):
        fail(msgs, "%s: DESCRIPTION is not the agent's longdesc" % where)

    # Parameters: an entry's tag is the only line at indent 7 that is a
    # name followed by its attributes in parentheses.
    lines = secs["SUPPORTED PARAMETERS"]
    tag_re = re.compile(r"^ {7}(\S+) \((.*)\)$")
    tags = [(i, m) for i, m in ((i, tag_re.match(l)) for i, l in enumerate(lines)) if m]
    params = ra.findall("parameters/parameter")
    got = [m.group(1) for _, m in tags]
    want_names = [p.get("name") for p in params]
    for n in want_names:
        if n not in got:
            fail(msgs, "%s: parameter %s of the agent is not on the page" % (where, n))
    for n in got:
        if n not in want_names:
            fail(msgs, "%s: parameter %s on the page is not the agent's" % (where, n))
    if sorted(got) == sorted(want_names) and got != want_names:
        fail(msgs, "%s: parameters in another order than the agent's" % where)
    bodies = {}
    for k, (i, m) in enumerate(tags):
        end = tags[k + 1][0] if k + 1 < len(tags) else len(lines)
        bodies[m.group(1)] = (lines[i].strip(), words("\n".join(lines[i + 1:end])))
    for p in params:
        n = p.get("name")
        if n not in bodies:
            continue
        tag, body = bodies[n]
        if tag != param_tag(p):
            fail(msgs, "%s: parameter %s reads %r, the agent says %r" % (where, n, tag, param_tag(p)))
        for d in ("shortdesc", "longdesc"):
            if words(p.findtext(d)) not in body:
                fail(msgs, "%s: parameter %s: its %s is not on the page" % (where, n, d))

    # Actions, in the agent's order, each with its figures.
    acts = words("\n".join(secs["SUPPORTED ACTIONS"]))
    pos = 0
    for a in ra.findall("actions/action"):
        figs = "Timeout " + a.get("timeout")
        for k in ("interval", "depth", "role"):
            if a.get(k) is not None:
                figs += ", %s %s" % (k, a.get(k))
        m = re.compile(r"(?:^| )%s (?:(?!Timeout ).)*%s\." % (re.escape(a.get("name")),
                                                             re.escape(figs))).search(acts, pos)
        if not m:
            fail(msgs, "%s: action %s (%s) is not on the page after the one before it"
                 % (where, a.get("name"), figs))
        else:
            pos = m.end()
    return name


def main():
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    pagedir, agents = sys.argv[1], sys.argv[2:]
    if not shutil.which("groff"):
        print("FAIL groff not found (Debian package groff-base): run scripts/setup.sh")
        return 1
    msgs = []
    for agent in agents:
        before = len(msgs)
        try:
            name = check_agent(pagedir, agent, msgs)
        except (RuntimeError, ET.ParseError, subprocess.TimeoutExpired, OSError) as e:
            fail(msgs, "%s: %s" % (agent, e))
            continue
        if name and len(msgs) == before:
            print("ocf_%s_%s.7: ok" % (PROVIDER, name))
    for m in msgs:
        print("FAIL " + m)
    return 1 if msgs else 0


if __name__ == "__main__":
    sys.exit(main())
