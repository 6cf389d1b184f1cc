"""A small JSON-over-HTTP server whose connections are bounded in number and in idle time.

It owns the sockets and threads of one listening port; what a GET answers is the caller's
``answer`` function (the interactive queries pass theirs). Invariant: at most
``max_connections`` connections are served at once, each by one thread, and a connection that
sends nothing for ``read_timeout`` seconds is closed, so idle or slow clients cannot pile up
threads and file descriptors; a connection beyond the bound gets a 503 at once and no thread,
and ``server_close`` ends every connection still open.
"""

from __future__ import annotations

import hmac
import json
import logging
import socket
import threading
import time
from collections.abc import Callable, Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = ["BoundedHTTPServer", "serve_json"]

log = logging.getLogger("kslab.runtime")

# answer(path, headers): an HTTP status and a body json.dumps can write (default=str)
Answer = Callable[[str, Mapping[str, str]], tuple[int, Any]]


class BoundedHTTPServer(ThreadingHTTPServer):
    """A thread per connection, at most ``max_connections`` of them, each with a read timeout.

    Threads are named ``<name>-<port>-conn`` so their number can be watched.
    """

    daemon_threads = True
    request_queue_size = 128  # the listen backlog: socketserver's 5 drops bursts of connects

    def __init__(self, address: tuple[str, int], handler: type[BaseHTTPRequestHandler], *,
                 read_timeout: float, max_connections: int, name: str) -> None:
        super().__init__(address, handler)
        self.read_timeout = read_timeout
        self.max_connections = max_connections
        self.name = f"{name}-{self.server_address[1]}"
        self._slots = threading.BoundedSemaphore(max_connections)
        self._lock = threading.Lock()
        self._open: dict[threading.Thread, socket.socket] = {}  # connections being served
        self.serving: threading.Thread | None = None  # the thread running serve_forever

    def get_request(self) -> tuple[socket.socket, Any]:
        """Accept a connection; its reads and writes time out after ``read_timeout``."""
        connection, address = super().get_request()
        connection.settimeout(self.read_timeout)
        return connection, address

    def process_request(self, request: Any, client_address: Any) -> None:
        """Serve the connection on a thread of its own, or refuse it when all are taken."""
        if not self._slots.acquire(blocking=False):
            self._refuse(request)
            return
        thread = threading.Thread(target=self._serve, args=(request, client_address),
                                  name=f"{self.name}-conn", daemon=True)
        with self._lock:
            self._open[thread] = request
        try:
            thread.start()
        except BaseException:
            self._done(thread)
            self.shutdown_request(request)
            raise

    def _serve(self, request: Any, client_address: Any) -> None:
        try:
            self.process_request_thread(request, client_address)
        finally:
            self._done(threading.current_thread())

    def _done(self, thread: threading.Thread) -> None:
        with self._lock:
            del self._open[thread]
        self._slots.release()

    def shutdown(self) -> None:
        """Stop ``serve_forever`` and wait until the thread that ran it has ended."""
        super().shutdown()
        if self.serving is not None and self.serving is not threading.current_thread():
            self.serving.join()

    def server_close(self) -> None:
        """Stop listening and end every connection still open, so no thread outlives it."""
        super().server_close()
        with self._lock:
            open_ = dict(self._open)
        for request in open_.values():
            try:
                request.shutdown(socket.SHUT_RDWR)  # a blocked read returns at once
            except OSError:
                pass
        deadline = time.monotonic() + self.read_timeout  # a reply being written may finish
        for thread in open_:
            thread.join(max(0.0, deadline - time.monotonic()))

    def _refuse(self, request: socket.socket) -> None:
        """Answer 503 without a thread: the reply fits the empty send buffer of a new socket."""
        port = self.server_address[1]
        body = json.dumps({"error": (
            f"the interactive-query server on port {port} already serves "
            f"{self.max_connections} connections (kslab.http.max.connections); retry later, "
            "or raise that setting")}).encode()
        head = ("HTTP/1.0 503 Service Unavailable\r\nContent-Type: application/json\r\n"
                f"Content-Length: {len(body)}\r\nRetry-After: 1\r\nConnection: close\r\n\r\n")
        try:
            request.setblocking(False)
            request.sendall(head.encode() + body)
            while request.recv(65536):  # read what the client already sent: closing a socket
                pass  # with unread bytes would reset the connection before it reads the 503
        except OSError:
            pass
        log.debug("refused a connection to %s: %d connections served", self.name,
                  self.max_connections)
        self.shutdown_request(request)

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A connection that broke (reset, timed out writing) is logged quietly, not printed."""
        log.debug("connection from %s to %s failed", client_address, self.name, exc_info=True)


def serve_json(bind: str, port: int, answer: Answer, *, read_timeout: float,
               max_connections: int, name: str, token: str | None = None) -> BoundedHTTPServer:
    """Start a ``BoundedHTTPServer`` on ``bind:port`` whose GETs reply ``answer(path, headers)``
    as JSON.

    An exception ``answer`` lets escape becomes a 500 naming the path and the error (the
    connection is never dropped without a reply); ``answer`` maps the errors it expects itself.
    With ``token``, a request without ``Authorization: Bearer <token>`` gets a 401 and never
    reaches ``answer`` (compared in constant time).
    """
    expected = f"Bearer {token}".encode() if token else None

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:  # quiet: no stderr line per request
            return

        def do_GET(self) -> None:
            given = (self.headers.get("Authorization") or "").encode()
            if expected is not None and not hmac.compare_digest(given, expected):
                data = json.dumps({"error": (
                    "this interactive-query server needs the bearer token (kslab.iq.token): "
                    "send 'Authorization: Bearer <token>'")}).encode()
                self.send_response(401)
                self.send_header("WWW-Authenticate", "Bearer")
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
                return
            try:
                status, body = answer(self.path, self.headers)
                data = json.dumps(body, default=str).encode()
            except Exception as exc:
                shown = self.path[:200]
                log.error("%s: GET %s failed: %r", server.name, shown, exc,
                          exc_info=log.isEnabledFor(logging.DEBUG))
                status = 500
                data = json.dumps({"error": f"GET {shown} failed: {exc!r}; the server's log "
                                            "(logger 'kslab.runtime') has the details"}).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    server = BoundedHTTPServer((bind, port), Handler, read_timeout=read_timeout,
                               max_connections=max_connections, name=name)
    server.serving = threading.Thread(target=server.serve_forever, name=server.name, daemon=True)
    server.serving.start()
    return server
