"""HTTP(S) requests made with curl from inside a host's namespace."""

import json
import subprocess

_MARK = "\n@@cpha-http-status@@"

# curl exit codes the tests look at
CURL_OK = 0
CURL_CONNECT_FAILED = 7   # connection refused / no route
CURL_TIMEOUT = 28
CURL_TLS = 35             # TLS handshake failed
CURL_PEER_VERIFY = 60     # server certificate not trusted


class Response:
    """Result of one curl call: status 0 means no HTTP answer (see rc)."""

    def __init__(self, status, body, rc, stderr):
        self.status = status
        self.body = body
        self.rc = rc
        self.stderr = stderr

    def json(self):
        return json.loads(self.body)

    def __repr__(self):
        return "<Response status=%d rc=%d body=%r>" % (self.status, self.rc,
                                                      self.body[:200])


def curl(host, url, method="GET", data=None, cacert=None, cert=None, key=None,
         insecure=False, timeout=5, headers=(), extra=()):
    """Run curl in `host`; never raises for HTTP or connection errors.

    data may be a str/bytes body or a JSON-able object (sent as JSON).
    """
    argv = ["curl", "-sS", "--noproxy", "*", "--max-time", "%g" % timeout,
            "--connect-timeout", "%g" % min(timeout, 3), "-X", method,
            "-o", "-", "-w", _MARK + "%{http_code}"]
    if cacert:
        argv += ["--cacert", cacert]
    if cert:
        argv += ["--cert", cert]
    if key:
        argv += ["--key", key]
    if insecure:
        argv += ["-k"]
    body = None
    if data is not None:
        if isinstance(data, (dict, list)):
            body = json.dumps(data)
            argv += ["-H", "Content-Type: application/json"]
        else:
            body = data.decode() if isinstance(data, bytes) else data
        argv += ["--data-binary", "@-"]
    for h in headers:
        argv += ["-H", h]
    argv += list(extra) + [url]
    try:
        r = host.run(argv, timeout=timeout + 5, check=False,
                     input=body if body is not None else None)
    except subprocess.TimeoutExpired:
        return Response(0, "", CURL_TIMEOUT, "runner timeout")
    out = r.stdout
    status = 0
    i = out.rfind(_MARK)
    if i >= 0:
        try:
            status = int(out[i + len(_MARK):].strip() or 0)
        except ValueError:
            status = 0
        out = out[:i]
    return Response(status, out, r.returncode, r.stderr)
