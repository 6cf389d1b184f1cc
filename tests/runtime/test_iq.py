"""Interactive queries on a running app: local store views, key metadata and the HTTP endpoint."""

from __future__ import annotations

import json
import socket
import urllib.error
import urllib.request

import pytest
from apps import final_counts, lines, reference_counts, word_count_papi

import kslab as ks


def _free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _get(url):
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def _word_count(kafka, tag, seed, *, persistent=True, **config):
    """A word count app serving HTTP queries, its 100 lines of input produced, not started:
    (sink topic, expected counts, HTTP port, streams)."""
    source, sink = kafka.create(kafka.name("in")), kafka.create(kafka.name("out"))
    text = lines(100, seed=seed)
    kafka.produce(source, [(None, t.encode()) for t in text])
    port = _free_port()
    streams = kafka.track(ks.KafkaStreams(
        word_count_papi(source, sink, persistent=persistent),
        kafka.config(tag, application__server=f"localhost:{port}", **config)))
    return sink, reference_counts(text), port, streams


def test_store_views_metadata_and_http(kafka):
    sink, expected, port, streams = _word_count(kafka, "iq", 11)
    with pytest.raises(ks.StoreError, match="CREATED"):
        streams.store("counts")
    streams.start()
    kafka.read_until(sink, lambda r: final_counts(r) == expected)
    store = streams.store("counts")
    assert store.get("w1") == expected["w1"]
    with store.range("w1", "w2") as entries:
        assert [kv.key for kv in entries] == sorted(w for w in expected if "w1" <= w <= "w2")
    with pytest.raises(ks.StoreError, match="read-only"):
        store.put("w1", 0)
    with pytest.raises(ks.StoreError, match="not in this topology"):
        streams.store("nope")
    meta = streams.query_metadata_for_key("counts", "w1")
    assert meta.partition == 0 and str(meta.active_host) == f"localhost:{port}"
    (thread,) = streams.metadata_for_local_threads()
    assert [str(t.task_id) for t in thread.active_tasks] == ["0_0"]

    base = f"http://127.0.0.1:{port}"
    assert _get(f"{base}/stores/counts/w1") == (200, {"key": "w1", "value": expected["w1"]})
    status, body = _get(f"{base}/stores/counts/zzz")
    assert status == 404 and "not found" in body["error"]
    status, body = _get(f"{base}/stores/counts?from=w1&to=w2")
    assert status == 200 and body[0] == {"key": "w1", "value": expected["w1"]}
    status, body = _get(f"{base}/metadata")
    assert status == 200 and body["threads"][0]["tasks"][0]["id"] == "0_0"
    assert _get(f"{base}/stores/nope/x")[0] == 404


def test_queries_see_the_writes_an_in_memory_store_holds_until_its_commit(kafka):
    # no commit: every count stays held
    sink, expected, port, streams = _word_count(kafka, "iq-held", 12, persistent=False,
                                                commit__interval__ms=600_000)
    streams.start()
    kafka.read_until(sink, lambda r: final_counts(r) == expected)
    (task,) = streams.local_tasks().values()
    held = task.stores["counts"]
    assert type(held).__name__ == "WriteBehindKeyValueStore"
    assert held.held_writes() == len(expected)  # the queries below merge them in

    store = streams.store("counts")
    assert store.get("w1") == expected["w1"]
    with store.all() as entries:
        assert {kv.key: kv.value for kv in entries} == expected
    with store.range("w1", "w2") as entries:
        assert [(kv.key, kv.value) for kv in entries] == sorted(
            (w, n) for w, n in expected.items() if "w1" <= w <= "w2")
    assert store.approximate_num_entries() == len(expected)
    base = f"http://127.0.0.1:{port}"
    assert _get(f"{base}/stores/counts/w1") == (200, {"key": "w1", "value": expected["w1"]})
    status, body = _get(f"{base}/stores/counts?from=w1&to=w2")
    assert status == 200 and [(e["key"], e["value"]) for e in body] == sorted(
        (w, n) for w, n in expected.items() if "w1" <= w <= "w2")
    assert held.held_writes() == len(expected)  # the queries wrote nothing behind
