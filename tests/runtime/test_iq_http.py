"""The interactive-query HTTP endpoint under bad requests and idle connections.

Every bad key or bound gets a 400 naming what is wrong (never a dropped connection with a
traceback on stderr); idle connections are closed after ``kslab.http.read.timeout.ms``, and at
most ``kslab.http.max.connections`` are served at once (the rest get a 503 at once).
"""

from __future__ import annotations

import json
import socket
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from runtime_fixtures import KafkaHelper, wait_for

import kslab as ks
from kslab import serdes
from kslab.config import ConfigError

# (key, value, timestamp) of the records the app stores
RECORDS = [(1, "a", 1000), (2, "b", 2000), (3, "c", 3000)]
READ_TIMEOUT_MS, MAX_CONNECTIONS = 1500, 6


class _Keep(ks.Processor):
    """Stores each record under its key in every store's key type."""

    def init(self, context: ks.ProcessorContext) -> None:
        self.ids = context.get_state_store("ids")
        self.shorts = context.get_state_store("shorts")
        self.docs = context.get_state_store("docs")
        self.names = context.get_state_store("names")
        self.raw = context.get_state_store("raw")
        self.ticks = context.get_state_store("ticks")

    def process(self, record: ks.Record) -> None:
        key, value = record.key, record.value
        self.ids.put(key, key * 10)
        self.shorts.put(key, key * 10)
        self.docs.put({"id": key}, key * 10)
        self.names.put(value, key * 10)
        self.raw.put(value.encode() + b"\xff", key * 10)
        self.ticks.put(key, key * 10, record.timestamp)


def _kv(name: str, key_serde: serdes.Serde) -> ks.StoreBuilder:
    supplier = ks.Stores.in_memory_key_value_store(name)
    return ks.Stores.key_value_store_builder(supplier, key_serde, serdes.Long())


def _topology(source: str) -> ks.Topology:
    topo = ks.Topology()
    topo.add_source("in", source, key_serde=serdes.Long(), value_serde=serdes.String())
    topo.add_processor("keep", _Keep, "in")
    ticks = ks.Stores.in_memory_window_store("ticks", 60_000, 1000, False)
    for builder in (_kv("ids", serdes.Long()), _kv("shorts", serdes.Short()),
                    _kv("docs", serdes.Json()), _kv("names", serdes.String()),
                    _kv("raw", serdes.Bytes()),
                    ks.Stores.window_store_builder(ticks, serdes.Long(), serdes.Long())):
        topo.add_state_store(builder, "keep")
    return topo


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _get(url: str) -> tuple[int, object]:
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


@pytest.fixture(scope="module")
def app(broker, tmp_path_factory):
    """The app above, running with its HTTP endpoint: (base URL, port, streams)."""
    kafka = KafkaHelper(broker.bootstrap_servers, Path(tmp_path_factory.mktemp("iq-http")),
                        "iq-http")
    source = kafka.create(kafka.name("in"))
    for key, value, timestamp in RECORDS:
        kafka.produce(source, [(serdes.Long().serialize(source, key), value.encode())],
                      timestamp=timestamp)
    port = _free_port()
    streams = kafka.track(ks.KafkaStreams(_topology(source), kafka.config(
        "iq-http", application__server=f"localhost:{port}",
        kslab__http__read__timeout__ms=READ_TIMEOUT_MS,
        kslab__http__max__connections=MAX_CONNECTIONS)))
    streams.start()
    base = f"http://127.0.0.1:{port}"
    assert wait_for(lambda: _get(f"{base}/stores/ids/3")[0] == 200, 60)
    yield base, port, streams
    kafka.close()


GOOD = [
    ("/stores/ids/2", {"key": 2, "value": 20}),
    ("/stores/shorts/3", {"key": 3, "value": 30}),
    ("/stores/docs/%7B%22id%22%3A%203%7D", {"key": {"id": 3}, "value": 30}),
    ("/stores/names/b", {"key": "b", "value": 20}),
    ("/stores/raw/c%FF", {"key": "b'c\\xff'", "value": 30}),
    ("/stores/ids?from=2&to=3", [{"key": 2, "value": 20}, {"key": 3, "value": 30}]),
    ("/stores/ticks/1?from=0&to=1000", [{"key": 1, "start": 1000, "end": 2000, "value": 10}]),
]

_LONG = "give an int in [-2**63, 2**63)"
_SHORT = "give an int in [-2**15, 2**15)"
BAD = [
    ("/stores/ids/99999999999999999999999",
     "key '99999999999999999999999' of store 'ids' is not a Long() key (int too large to "
     f"convert); {_LONG}"),
    ("/stores/ids/-9223372036854775809",
     "key '-9223372036854775809' of store 'ids' is not a Long() key (int too large to "
     f"convert); {_LONG}"),
    ("/stores/ids/abc", f"key 'abc' of store 'ids' is not a Long() key (not an integer); {_LONG}"),
    ("/stores/ids/1.5", f"key '1.5' of store 'ids' is not a Long() key (not an integer); {_LONG}"),
    ("/stores/ids/%FF", "key '%FF' of store 'ids' is not a Long() key (not UTF-8 text); "
     f"{_LONG}"),
    ("/stores/shorts/40000",
     "key '40000' of store 'shorts' is not a Short() key ('h' format requires -32768 <= number "
     f"<= 32767); {_SHORT}"),
    ("/stores/ids?from=99999999999999999999999",
     "'from' bound '99999999999999999999999' of store 'ids' is not a Long() key (int too large "
     f"to convert); {_LONG}"),
    ("/stores/ids?from=1&to=abc",
     f"'to' bound 'abc' of store 'ids' is not a Long() key (not an integer); {_LONG}"),
    ("/stores/docs/" + "%5B" * 5000 + "%5D" * 5000,
     f"key '{'[' * 24}...' of store 'docs' is not a Json() key (JSON nested too deeply); give "
     "JSON, or plain text for a string"),
    ("/stores/names/%C3%28",
     "key '%C3(' of store 'names' is not a String() key (not UTF-8 text); give UTF-8 text, "
     "percent-encoded"),
    ("/stores/ticks/99999999999999999999999",
     "key '99999999999999999999999' of store 'ticks' is not a Long() key (int too large to "
     f"convert); {_LONG}"),
    ("/stores/ticks/1?from=99999999999999999999999",
     "'from' bound '99999999999999999999999' of store 'ticks' is not a time (out of range); "
     "give ms since the epoch, an int in [-2**63, 2**63)"),
    ("/stores/ticks?to=soon",
     "'to' bound 'soon' of store 'ticks' is not a time (not an integer); give ms since the "
     "epoch, an int in [-2**63, 2**63)"),
]


@pytest.mark.parametrize(("path", "expected"), GOOD, ids=[p for p, _ in GOOD])
def test_good_keys_and_bounds_answer(app, path, expected):
    base, _, _ = app
    assert _get(base + path) == (200, expected)


@pytest.mark.parametrize(("path", "error"), BAD, ids=[p[:60] for p, _ in BAD])
def test_a_bad_key_or_bound_gets_a_400_naming_it_and_no_traceback(app, capfd, path, error):
    base, _, _ = app
    assert _get(base + path) == (400, {"error": error})
    assert "Traceback" not in capfd.readouterr().err


def _server_threads(port: int) -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name.startswith(f"kslab-iq-http-{port}-")]


def _connect(port: int) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    sock.settimeout(10)
    return sock


def _read_all(sock: socket.socket) -> bytes:
    data = b""
    while chunk := sock.recv(65536):
        data += chunk
    return data


def test_idle_connections_time_out_and_the_connection_count_is_bounded(app):
    base, port, _ = app
    assert wait_for(lambda: not _server_threads(port), 10)  # earlier tests' connections ended
    idle = [_connect(port) for _ in range(MAX_CONNECTIONS)]
    assert wait_for(lambda: len(_server_threads(port)) == MAX_CONNECTIONS, 5)
    opened = time.monotonic()

    # beyond the bound: an immediate 503 naming the setting, and no thread for it
    refused = [_connect(port) for _ in range(3 * MAX_CONNECTIONS)]
    for sock in refused:
        head, _, body = _read_all(sock).partition(b"\r\n\r\n")
        sock.close()
        assert head.split(b"\r\n")[0] == b"HTTP/1.0 503 Service Unavailable"
        assert json.loads(body) == {"error": (
            f"the interactive-query server on port {port} already serves {MAX_CONNECTIONS} "
            "connections (kslab.http.max.connections); retry later, or raise that setting")}
    assert len(_server_threads(port)) == MAX_CONNECTIONS
    assert _get(f"{base}/stores/ids/2")[0] == 503

    # the idle ones are closed by the server after the read timeout, their threads gone
    for sock in idle:
        assert _read_all(sock) == b""
        sock.close()
    waited = time.monotonic() - opened
    assert READ_TIMEOUT_MS / 1000 - 0.2 <= waited < READ_TIMEOUT_MS / 1000 + 5
    assert wait_for(lambda: not _server_threads(port), 5)
    assert _get(f"{base}/stores/ids/2") == (200, {"key": 2, "value": 20})


def test_a_slow_request_is_answered_when_it_completes_within_the_timeout(app):
    _, port, _ = app
    with _connect(port) as sock:
        sock.sendall(b"GET /stores/ids/3 HTTP/1.0\r\n")
        time.sleep(READ_TIMEOUT_MS / 2000)
        sock.sendall(b"\r\n")
        head, _, body = _read_all(sock).partition(b"\r\n\r\n")
    assert head.split(b"\r\n")[0] == b"HTTP/1.0 200 OK"
    assert json.loads(body) == {"key": 3, "value": 30}


def test_http_settings_are_validated_with_the_config():
    for name, value, reason in [("kslab.http.max.connections", 0, "Value must be at least 1"),
                                ("kslab.http.read.timeout.ms", "soon",
                                 "Not a number of type LONG")]:
        with pytest.raises(ConfigError) as error:
            ks.KafkaStreams(_topology("t"), {"application.id": "a", "bootstrap.servers": "x:1",
                                             name: value})
        assert str(error.value) == f"Invalid value {value} for configuration {name}: {reason}"
