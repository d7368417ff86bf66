#!/usr/bin/env python3
"""A local HTTP server for loadctl's end-to-end tests (python3 standard library only).

Binds 127.0.0.1 on a free port and prints that port as its first stdout line. Routes:

  GET /profile[?delay=MS]        200 {"name":"Taylor","city":"Lisbon"}, after MS milliseconds
  GET /status/NNN                that status, with a small JSON body
  GET /slow                      never answers; records {"event":"dropped"} when the client leaves
  GET /search?q=TEXT[&delay=MS]  JSON array of the built-in Swift API names containing TEXT
                                 (case-insensitive); a client leaving during the delay is
                                 recorded as {"event":"cancelled","q":TEXT}
  GET /redirect?to=PATH          302 to PATH (a path on this server)
  GET /chunked                   200 with the /profile body sent in chunked transfer encoding
  GET /notjson                   200 with an HTML body
  GET /badjson                   200 {"nam":1}
  GET /log                       every recorded event as JSON lines
  GET /log?wait_ms=MS&KEY=VALUE  the same, once a record with all KEY=VALUE pairs exists (or MS
                                 have passed): a long poll, so tests wait without sleeping

Every request except /log is recorded as {"event":"request","path":...} (plus "q" for /search),
so tests can also count requests (a debounced search must send one, not five).
"""

import json
import select
import socket
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

SWIFT_API_NAMES = [
    "AsyncSequence",
    "AsyncStream",
    "AsyncThrowingStream",
    "CheckedContinuation",
    "ContinuousClock",
    "Duration",
    "JSONDecoder",
    "JSONEncoder",
    "MainActor",
    "Sendable",
    "SuspendingClock",
    "Swift.print",
    "SwiftUI.List",
    "Task",
    "Task.sleep",
    "TaskGroup",
    "URLSession",
    "swap",
    "withCheckedContinuation",
    "withTaskCancellationHandler",
    "withTaskGroup",
    "withThrowingTaskGroup",
]

POLL_SECONDS = 0.02


class EventLog:
    """Recorded events, shared by the handler threads; waiters are woken on each record."""

    def __init__(self):
        self._records = []
        self._changed = threading.Condition()

    def record(self, **fields):
        with self._changed:
            self._records.append(fields)
            self._changed.notify_all()

    def snapshot(self):
        with self._changed:
            return list(self._records)

    def wait_for(self, wanted, timeout):
        """Returns once a record has every key/value in `wanted`, or after `timeout` seconds."""

        def present():
            return any(all(r.get(k) == v for k, v in wanted.items()) for r in self._records)

        with self._changed:
            self._changed.wait_for(present, timeout=timeout)
            return list(self._records)


LOG = EventLog()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "loadctl-e2e/1"

    def log_message(self, format, *args):
        """Quiet: tests read the /log endpoint, not the access log."""

    def do_GET(self):
        parts = urlsplit(self.path)
        query = {key: values[-1] for key, values in parse_qs(parts.query).items()}
        path = parts.path
        if path == "/log":
            return self.serve_log(query)
        record = {"event": "request", "path": path}
        if path == "/search":
            record["q"] = query.get("q", "")
        LOG.record(**record)
        if path == "/profile":
            if self.wait_unless_dropped(query.get("delay")):
                self.send_json(200, {"name": "Taylor", "city": "Lisbon"})
            else:
                LOG.record(event="dropped", path=path)
        elif path.startswith("/status/") and path[len("/status/"):].isdigit():
            status = int(path[len("/status/"):])
            self.send_json(status, {"status": status})
        elif path == "/slow":
            self.wait_unless_dropped(None, forever=True)
            LOG.record(event="dropped", path=path)
        elif path == "/search":
            text = query.get("q", "")
            if self.wait_unless_dropped(query.get("delay")):
                found = [n for n in SWIFT_API_NAMES if text.lower() in n.lower()]
                self.send_json(200, found)
            else:
                LOG.record(event="cancelled", q=text)
        elif path == "/redirect":
            self.send_response(302)
            self.send_header("Location", query.get("to", "/profile"))
            self.send_header("Content-Length", "0")
            self.end_headers()
        elif path == "/chunked":
            body = json.dumps({"name": "Taylor", "city": "Lisbon"}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            for piece in (body[:7], body[7:]):
                self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
            self.wfile.write(b"0\r\n\r\n")
        elif path == "/notjson":
            self.send_body(200, "text/html", b"<!doctype html><html><body>hello</body></html>")
        elif path == "/badjson":
            self.send_body(200, "application/json", b'{"nam":1}')
        else:
            self.send_json(404, {"error": "no such path", "path": path})

    def serve_log(self, query):
        wait_ms = query.pop("wait_ms", None)
        if wait_ms is not None and wait_ms.isdigit():
            records = LOG.wait_for(query, int(wait_ms) / 1000)
        else:
            records = LOG.snapshot()
        body = "".join(json.dumps(r, separators=(",", ":")) + "\n" for r in records)
        self.send_body(200, "application/x-ndjson", body.encode())

    def wait_unless_dropped(self, delay_ms, forever=False):
        """Waits `delay_ms` (or forever) in small steps; False as soon as the client is gone."""
        if not forever and (delay_ms is None or not delay_ms.isdigit()):
            return True
        deadline = None if forever else time.monotonic() + int(delay_ms) / 1000
        while deadline is None or time.monotonic() < deadline:
            if self.client_gone():
                return False
        return True

    def client_gone(self):
        """True once the peer closed or reset the connection; waits at most POLL_SECONDS."""
        readable, _, _ = select.select([self.connection], [], [], POLL_SECONDS)
        if not readable:
            return False
        try:
            data = self.connection.recv(1, socket.MSG_PEEK)
        except (ConnectionError, OSError):
            return True
        if data:
            # The client sent more bytes (a pipelined request); it is still there.
            time.sleep(POLL_SECONDS)
            return False
        return True

    def send_json(self, status, value):
        body = json.dumps(value, separators=(",", ":")).encode()
        self.send_body(status, "application/json", body)

    def send_body(self, status, content_type, body):
        try:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        except (ConnectionError, OSError):
            LOG.record(event="dropped", path=urlsplit(self.path).path)


def main():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    print(server.server_address[1], flush=True)
    try:
        server.serve_forever(poll_interval=0.1)
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
