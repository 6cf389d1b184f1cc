"""The bounded JSON HTTP server under the interactive queries: failures reply, close ends all.

Real sockets on loopback; ``test_iq_http.py`` covers the same server behind a running app.
"""

from __future__ import annotations

import json
import socket
import struct
import threading

from runtime_fixtures import wait_for

from kslab.runtime._http import serve_json


def _threads(name: str) -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name.startswith(f"{name}-")]


def _exchange(port: int, request: bytes) -> tuple[bytes, bytes]:
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(request)
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    return head.split(b"\r\n")[0], body


def _failing(path: str, headers: object) -> tuple[int, object]:
    raise RuntimeError(f"no answer for {path}")


def test_an_answer_that_raises_replies_500_naming_it_without_a_traceback(capfd):
    server = serve_json("127.0.0.1", 0, _failing, read_timeout=5, max_connections=4,
                        name="test-http-500")
    try:
        status, body = _exchange(server.server_address[1], b"GET /x HTTP/1.0\r\n\r\n")
    finally:
        server.shutdown()
        server.server_close()
    assert status == b"HTTP/1.0 500 Internal Server Error"
    assert json.loads(body) == {"error": "GET /x failed: RuntimeError('no answer for /x'); the "
                                         "server's log (logger 'kslab.runtime') has the details"}
    assert "Traceback" not in capfd.readouterr().err


def test_a_client_that_goes_away_mid_reply_leaves_no_traceback(capfd):
    big = {"rows": ["x" * 1000] * 20_000}  # 20 MB: more than the socket buffers hold
    server = serve_json("127.0.0.1", 0, lambda path, headers: (200, big), read_timeout=5,
                        max_connections=4, name="test-http-reset")
    port = server.server_address[1]
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
            # close with a reset, as a client that crashed: the server's next write fails
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            sock.sendall(b"GET / HTTP/1.0\r\n\r\n")
            sock.recv(1024)
        assert wait_for(lambda: not _threads(server.name), 10)
    finally:
        server.shutdown()
        server.server_close()
    assert "Traceback" not in capfd.readouterr().err


def test_closing_the_server_ends_its_open_connections_and_their_threads():
    server = serve_json("127.0.0.1", 0, lambda path, headers: (200, {}), read_timeout=60,
                        max_connections=4, name="test-http-close")
    port = server.server_address[1]
    idle = [socket.create_connection(("127.0.0.1", port), timeout=10) for _ in range(3)]
    assert wait_for(lambda: len(_threads(server.name)) == 3, 5)
    server.shutdown()
    server.server_close()
    assert _threads(server.name) == []  # at once, not after the 60 s read timeout
    for sock in idle:
        assert sock.recv(1024) == b""
        sock.close()
