"""The lab's Alertmanager receiver: every webhook notification, one JSON
line each, with the time it arrived, appended to a file.

    python3 alertlog.py LISTEN FILE

Each line: {"t": UNIX_TIME, "alerts": [{"name", "status", "labels",
"startsAt", "endsAt"}]}. read() gives them back for a window of time, as
the report's alert list (fired, resolved, when)."""

import http.server
import json
import sys
import time


def summary(body, t):
    """The line kept of one webhook body (Alertmanager's version 4)."""
    out = []
    for a in body.get("alerts", []):
        labels = dict(a.get("labels", {}))
        out.append({"name": labels.pop("alertname", "?"), "status": a.get("status"),
                    "labels": labels, "startsAt": a.get("startsAt"),
                    "endsAt": a.get("endsAt")})
    return {"t": t, "alerts": out}


def read(path, start, end):
    """Notifications received in [start, end]: (t, alert) pairs in order."""
    # imported here: the recorder also runs as a script, outside the package
    from .events import read_lines

    out = []
    # a line cut by a power loss of the recorder is skipped
    for n in read_lines(path, start, end):
        out += [(n["t"], a) for a in n.get("alerts", [])]
    return out


def main():
    listen, path = sys.argv[1], sys.argv[2]
    host, port = listen.rsplit(":", 1)

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self):
            n = int(self.headers.get("Content-Length") or 0)
            try:
                body = json.loads(self.rfile.read(n) or b"{}")
            except ValueError:
                self.send_response(400)
                self.end_headers()
                return
            with open(path, "a") as f:
                f.write(json.dumps(summary(body, time.time())) + "\n")
            self.send_response(200)
            self.end_headers()

        def log_message(self, fmt, *args):
            pass

    http.server.ThreadingHTTPServer((host, int(port)), Handler).serve_forever()


if __name__ == "__main__":
    main()
