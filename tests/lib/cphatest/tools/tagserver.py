#!/usr/bin/env python3
"""A TCP "tag" server for lbd tests: on each connection it sends its name and
a newline, then echoes every byte it receives; it closes its side when the
client closes (FIN) or resets. One thread, non-blocking (selectors), so a few
thousand short connections per second and hundreds of idle ones cost little.

    tagserver.py --name s1 --listen 198.18.0.11:8000 [--listen ...]

Prints "listening on ADDR:PORT" per listener once it accepts, then nothing
per connection (the tests count on the client side). SIGTERM exits 0.
"""

import argparse
import selectors
import signal
import socket
import sys


def parse_addr(text):
    host, _, port = text.rpartition(":")
    host = host.strip("[]")
    fam = socket.AF_INET6 if ":" in host else socket.AF_INET
    return fam, (host, int(port))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--name", required=True)
    ap.add_argument("--listen", action="append", required=True)
    args = ap.parse_args()
    tag = args.name.encode() + b"\n"
    sel = selectors.DefaultSelector()
    stop = []
    signal.signal(signal.SIGTERM, lambda s, f: stop.append(s))
    for text in args.listen:
        fam, addr = parse_addr(text)
        ls = socket.socket(fam, socket.SOCK_STREAM)
        ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        ls.bind(addr)
        ls.listen(1024)
        ls.setblocking(False)
        sel.register(ls, selectors.EVENT_READ, ("listen", None))
        print("listening on %s" % text, flush=True)
    pending = {}  # conn -> bytes not yet written

    def close(c):
        try:
            sel.unregister(c)
        except (KeyError, ValueError):
            pass
        pending.pop(c, None)
        c.close()

    def flush(c):
        buf = pending.get(c, b"")
        while buf:
            try:
                n = c.send(buf)
            except BlockingIOError:
                break
            except OSError:
                close(c)
                return
            buf = buf[n:]
        pending[c] = buf
        # stop reading while the client does not read what we echo
        sel.modify(c, selectors.EVENT_WRITE if buf else selectors.EVENT_READ,
                   ("conn", None))

    while not stop:
        try:
            events = sel.select(timeout=0.5)
        except InterruptedError:
            continue
        for key, mask in events:
            kind = key.data[0]
            s = key.fileobj
            if kind == "listen":
                for _ in range(64):
                    try:
                        c, _peer = s.accept()
                    except (BlockingIOError, InterruptedError):
                        break
                    except OSError:
                        break
                    c.setblocking(False)
                    c.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                    pending[c] = tag
                    sel.register(c, selectors.EVENT_READ, ("conn", None))
                    flush(c)
                continue
            if mask & selectors.EVENT_WRITE:
                flush(s)
                continue
            try:
                data = s.recv(65536)
            except BlockingIOError:
                continue
            except OSError:
                close(s)
                continue
            if not data:  # the client's FIN: we are done too
                close(s)
                continue
            pending[s] = pending.get(s, b"") + data
            flush(s)
    return 0


if __name__ == "__main__":
    sys.exit(main())
