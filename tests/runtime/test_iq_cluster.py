"""Issue 22 item 3: interactive queries from any instance. Two instances of a word count on
the LocalBroker (in this process, separate state dirs and ports): each lists both in
``metadata_for_all_streams_clients`` and ``GET /metadata``, answers a key the other holds by
asking it, needs the bearer token when one is set, and a store name or key reaches only its
store."""

from __future__ import annotations

import json
import socket
import threading
import urllib.error
import urllib.request

from apps import word_count_dsl
from runtime_fixtures import wait_for

import kslab as ks
from kslab.processor.partitioner import default_partition
from kslab.runtime._iq_cluster import forward

TOKEN = "s3cret-token"
WORDS = ["kafka", "streams", "lab", "query", "any", "instance"]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def get(url: str, token: str | None = TOKEN) -> tuple[int, object]:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers=headers),
                                    timeout=15) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def test_any_instance_answers_any_key_and_lists_every_instance(kafka, tmp_path):
    source = kafka.create(kafka.name("lines"), partitions=2)
    sink = kafka.create(kafka.name("counts"), partitions=2)
    ports = [free_port(), free_port()]
    apps = []
    for i, port in enumerate(ports):
        config = kafka.config("wc", **{"application.server": f"localhost:{port}",
                                       "state.dir": str(tmp_path / f"state-{i}"),
                                       "kslab.iq.token": TOKEN})
        apps.append(kafka.track(ks.KafkaStreams(word_count_dsl(source, sink).build(), config)))
    for app in apps:
        app.start()
    assert wait_for(lambda: all(a.state is ks.KafkaStreams.State.RUNNING and a.local_tasks()
                                for a in apps), timeout=60)
    kafka.produce(source, [(None, " ".join(WORDS[: i + 1]).encode()) for i in range(len(WORDS))])
    expected = {w: len(WORDS) - i for i, w in enumerate(WORDS)}  # kafka 6, streams 5, ...
    by_partition = {p: [w for w in WORDS if default_partition(w.encode(), 2) == p]
                    for p in (0, 1)}
    assert by_partition[0] and by_partition[1]  # both instances hold some words

    def owner_of(word: str) -> int:
        partition = default_partition(word.encode(), 2)
        return next(i for i, a in enumerate(apps)
                    if any(t.partition == partition and t.subtopology == 1
                           for t in a.local_tasks()))

    assert wait_for(lambda: all(
        apps[owner_of(w)].store("counts").get(w) == n for w, n in expected.items()), timeout=60)
    # the Java API: both instances, with their stores and partitions
    for app in apps:
        assert wait_for(lambda a=app: len(a.metadata_for_all_streams_clients()) == 2, timeout=20)
        metadata = app.metadata_for_all_streams_clients()
        assert sorted(m.host_info.port for m in metadata) == sorted(ports)
        assert all(m.state_store_names == frozenset({"counts"}) for m in metadata)
        assert sorted(p for m in metadata for p in m.topic_partitions) == sorted(
            [(source, 0), (source, 1), (f"{app.application_id}-counts-repartition", 0),
             (f"{app.application_id}-counts-repartition", 1)])
        assert [m.host_info.port for m in app.streams_metadata_for_store("counts")] == \
            sorted(ports)
    status, body = get(f"http://127.0.0.1:{ports[0]}/metadata")
    assert status == 200
    assert sorted(i["host"] for i in body["instances"]) == sorted(f"localhost:{p}"
                                                                    for p in ports)
    # every key from either instance: the other one's keys are asked of it
    for port in ports:
        for word, count in expected.items():
            assert get(f"http://127.0.0.1:{port}/stores/counts/{word}") == (
                200, {"key": word, "value": count})
    # the token: refused without it, and nothing else reachable through a store or a key
    status, body = get(f"http://127.0.0.1:{ports[0]}/stores/counts/kafka", token=None)
    assert (status, body) == (401, {"error": "this interactive-query server needs the bearer "
                                             "token (kslab.iq.token): send 'Authorization: "
                                             "Bearer <token>'"})
    assert get(f"http://127.0.0.1:{ports[0]}/metadata", token="wrong")[0] == 401
    status, body = get(f"http://127.0.0.1:{ports[0]}/stores/../metadata")
    assert status == 404 and "store '..'" in body["error"]
    status, body = get(f"http://127.0.0.1:{ports[0]}/stores/counts/..%2F..%2Fetc%2Fpasswd")
    assert (status, body["key"]) == (404, "../../etc/passwd")


def test_a_forward_to_an_instance_that_is_down_or_silent_names_it():
    dead = free_port()  # nothing listens there
    status, body = forward(f"127.0.0.1:{dead}", "/stores/counts/x", {}, timeout=2)
    assert status == 503
    assert body["error"].startswith(f"the instance at 127.0.0.1:{dead} holding this key cannot "
                                    "be reached")
    with socket.socket() as silent:  # accepts, never answers
        silent.bind(("127.0.0.1", 0))
        silent.listen()
        port = silent.getsockname()[1]
        accepted = []
        thread = threading.Thread(target=lambda: accepted.append(silent.accept()), daemon=True)
        thread.start()
        status, body = forward(f"127.0.0.1:{port}", "/stores/counts/x", {}, timeout=1)
        assert (status, body["error"]) == (504, f"the instance at 127.0.0.1:{port} holding this "
                                                "key did not answer within 1 s (kslab.iq."
                                                "forward.timeout.ms); retry, or check that "
                                                "instance")
        for connection, _ in accepted:
            connection.close()
