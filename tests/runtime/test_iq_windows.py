"""Interactive queries of window and session stores across two partitions, locally and over HTTP.

A windowed count and a session count run on a two-partition topic; the views must answer as one
store holding both partitions would (Java's composite read-only window and session stores).
"""

from __future__ import annotations

import json
import socket
import urllib.request
from collections import Counter

from confluent_kafka import Producer
from runtime_fixtures import wait_for

import kslab as ks
from kslab import serdes
from kslab.records import KeyValue, Window, Windowed

SIZE, GAP = 1000, 300
# (key, timestamp; 0 would mean "now" to librdkafka): keys spread over both partitions,
# sessions split by gaps > 300 ms
EVENTS = [("a", 1), ("b", 50), ("a", 100), ("c", 120), ("a", 200), ("b", 900), ("a", 1000),
          ("c", 1050), ("a", 1100), ("b", 1500), ("d", 1600), ("b", 1700), ("a", 2500),
          ("c", 2600), ("d", 2700), ("b", 3100)]


def _windows() -> dict[tuple[str, int], int]:
    return dict(Counter((key, ts - ts % SIZE) for key, ts in EVENTS))


def _sessions() -> dict[tuple[str, int, int], int]:
    open_: dict[str, list[int]] = {}
    done: list[tuple[str, int, int, int]] = []
    for key, ts in EVENTS:  # in time order: extend the key's session or start a new one
        session = open_.get(key)
        if session is not None and ts <= session[1] + GAP:
            session[1], session[2] = ts, session[2] + 1
        else:
            if session is not None:
                done.append((key, session[0], session[1], session[2]))
            open_[key] = [ts, ts, 1]
    done += [(k, s[0], s[1], s[2]) for k, s in open_.items()]
    return {(k, s, e): n for k, s, e, n in done}


def _app(source: str) -> ks.Topology:
    b = ks.StreamsBuilder()
    grouped = b.stream(source, ks.Consumed.with_(serdes.String(), serdes.String())).group_by_key()
    grouped.windowed_by(ks.TimeWindows.of_size_and_grace(SIZE, 100_000)) \
        .count(materialized=ks.Materialized.as_("wc"))
    grouped.windowed_by(ks.SessionWindows.of_inactivity_gap_and_grace(GAP, 100_000)) \
        .count(materialized=ks.Materialized.as_("sc"))
    return b.build()


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _get(url: str):
    with urllib.request.urlopen(url, timeout=10) as response:
        return json.loads(response.read())


def _windowed(key: str, start: int, end: int) -> Windowed:
    return Windowed(key, Window(start, end))


def test_window_and_session_views_across_partitions(kafka):
    source = kafka.create(kafka.name("in"), partitions=2)
    producer = Producer({"bootstrap.servers": kafka.bootstrap, "partitioner": "murmur2_random"})
    for key, ts in EVENTS:
        producer.produce(source, b"x", key.encode(), timestamp=ts)
    assert producer.flush(10) == 0
    port = _free_port()
    streams = kafka.track(ks.KafkaStreams(_app(source), kafka.config(
        "iqw", application__server=f"localhost:{port}")))
    streams.start()
    assert streams.wait_until_running(30)
    windows, sessions = _windows(), _sessions()
    # the persistent window store scans by segment (one here), then key bytes, then start
    every_window = [KeyValue(_windowed(k, s, s + SIZE), n) for (k, s), n in sorted(windows.items())]
    view = streams.store("wc")
    assert wait_for(lambda: list(view.all()) == every_window, 30), list(view.all())
    assert len({p for p in (streams.query_metadata_for_key("wc", k).partition
                            for k in "abcd")}) == 2  # the keys really live in two tasks
    assert [str(t) for t in streams.local_tasks()] == ["0_0", "0_1"]

    assert view.fetch("a", 1000) == 2 and view.fetch("a", 3000) is None
    assert list(view.fetch("a", 0, 1999)) == [KeyValue(0, 3), KeyValue(1000, 2)]
    assert list(view.backward_fetch("a", 0, 1999)) == [KeyValue(1000, 2), KeyValue(0, 3)]
    assert list(view.fetch("zz", 0, 5000)) == []
    assert list(view.fetch_all(1000, 1999)) == [kv for kv in every_window
                                                if kv.key.window.start == 1000]
    assert list(view.backward_fetch_all(0, 5000)) == every_window[::-1]
    assert list(view.fetch("b", "c", 0, 1000)) == [
        KeyValue(_windowed("b", 0, 1000), 2), KeyValue(_windowed("b", 1000, 2000), 2),
        KeyValue(_windowed("c", 0, 1000), 1), KeyValue(_windowed("c", 1000, 2000), 1)]
    with view.fetch_all(0, 5000) as scan:
        assert scan.has_next() and scan.peek_next_key() == _windowed("a", 0, 1000)
    assert view.to_pandas()["value"].sum() == len(EVENTS)
    stamped = streams.store("wc", kind="timestamped_window").fetch("a", 0)
    assert (stamped.value, stamped.timestamp) == (3, 200)
    try:
        view.put("a", 1, 0)
        raise AssertionError("a view must refuse writes")
    except ks.StoreError as exc:
        assert "read-only" in str(exc)

    sview = streams.store("sc")
    assert wait_for(lambda: {(w.key.key, w.key.window.start, w.key.window.end): w.value
                             for w in streams.store("sc").all()} == sessions, 30)
    assert list(sview.fetch("a")) == [KeyValue(_windowed("a", 1, 200), 3),
                                      KeyValue(_windowed("a", 1000, 1100), 2),
                                      KeyValue(_windowed("a", 2500, 2500), 1)]
    assert list(sview.backward_fetch("a")) == [KeyValue(_windowed("a", 2500, 2500), 1),
                                               KeyValue(_windowed("a", 1000, 1100), 2),
                                               KeyValue(_windowed("a", 1, 200), 3)]
    assert list(sview.find_sessions("b", 1000, 1700)) == [
        KeyValue(_windowed("b", 1500, 1700), 2)]
    assert list(sview.backward_find_sessions("b", 0, 5000)) == [
        KeyValue(_windowed("b", 3100, 3100), 1), KeyValue(_windowed("b", 1500, 1700), 2),
        KeyValue(_windowed("b", 900, 900), 1), KeyValue(_windowed("b", 50, 50), 1)]
    assert sview.fetch_session("c", 1050, 1050) == 1 and sview.fetch_session("c", 0, 1) is None
    # every session ending in [1000, 1700], by end, then key, then start; across both tasks
    assert [(kv.key.key, kv.key.window.end) for kv in sview.find_sessions(1000, 1700)] == [
        ("c", 1050), ("a", 1100), ("d", 1600), ("b", 1700)]
    assert [(kv.key.key, kv.key.window.start) for kv in sview.fetch("b", "c")] == [
        ("b", 50), ("c", 120), ("b", 900), ("c", 1050), ("b", 1500), ("c", 2600), ("b", 3100)]

    base = f"http://127.0.0.1:{port}/stores"
    assert _get(f"{base}/wc/a?from=0&to=1999") == [
        {"key": "a", "start": 0, "end": 1000, "value": 3},
        {"key": "a", "start": 1000, "end": 2000, "value": 2}]
    assert _get(f"{base}/wc/a?from=0&to=1999&backward=true")[0]["start"] == 1000
    assert _get(f"{base}/wc?from=2000&to=2999") == [
        {"key": k, "start": 2000, "end": 3000, "value": n}
        for (k, s), n in sorted(windows.items()) if s == 2000]
    assert _get(f"{base}/sc/d") == [{"key": "d", "start": 1600, "end": 1600, "value": 1},
                                    {"key": "d", "start": 2700, "end": 2700, "value": 1}]
    assert len(_get(f"{base}/sc")) == len(sessions)
