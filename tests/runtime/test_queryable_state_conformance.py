"""Kafka's ``QueryableStateIntegrationTest``, its single-instance cases, on the live runtime (a
LocalBroker): interactive queries (``KafkaStreams.store``) over table filters, ``mapValues``,
prefix scans, a count and a windowed count with and without the record cache, a store that is
queryable again after a restart only with its restored value, and a store still queryable after
a stream thread died. Java's configs: String default serdes, commit every 100 ms, earliest
reset; topic ``stream-one`` has 1 partition, ``stream-three`` 4.

kslab's documented equivalents: Java's ``store(fromNameAndType(name, sessionStore()))`` on a
key-value store fails only when the view is used; kslab's ``store(name, kind="session")`` fails
at once, with a ``StoreError`` naming both kinds. Java's deprecated thread-level
``UncaughtExceptionHandler`` (the thread dies, the other takes its task) is kslab's handler
answering ``REPLACE_THREAD``. The cases with two instances, rebalances or standbys
(``shouldBeAbleToQueryDuringRebalance``, ``shouldBeAbleQueryStandbyStateDuringRebalance``) are
left out: tests/runtime/test_iq_cluster.py and test_standby.py cover them.
"""

from __future__ import annotations

import threading
import time

import pytest
from runtime_fixtures import wait_for

import kslab as ks
from kslab import serdes

S, L = serdes.String(), serdes.Long()
KEYS = ["hello", "goodbye", "welcome", "go", "kafka"]
WINDOW_SIZE = 2 * 24 * 3600 * 1000


def _config(kafka, **extra):
    props = {"default__key__serde": S, "default__value__serde": S, "commit__interval__ms": 100,
             "consumer__auto__offset__reset": "earliest", **extra}
    return kafka.config("queryable-state", **props)


def _produce(kafka, topic: str, pairs, value_serde=S) -> None:
    kafka.produce(topic, [(k.encode(), value_serde.serialize(topic, v)) for k, v in pairs])


def _run(kafka, builder: ks.StreamsBuilder, config) -> ks.KafkaStreams:
    streams = kafka.track(ks.KafkaStreams(builder.build(), config))
    streams.start()
    assert streams.wait_until_running(30)
    return streams


def _store(streams: ks.KafkaStreams, name: str, kind: str | None = None):
    """Java's ``IntegrationTestUtils.getStore``: retry while the store is not queryable yet."""
    found = []

    def get() -> bool:
        try:
            found.append(streams.store(name, kind=kind))
            return True
        except ks.StoreError:
            return False
    assert wait_for(get, 30), f"store {name} never became queryable"
    return found[0]


def _wait_output(kafka, topic: str, count: int) -> None:
    assert len(kafka.read(topic, count)) >= count


def _unique(kafka):
    return kafka.create(kafka.name("stream-one")), kafka.create(kafka.name("output"))


@pytest.mark.parametrize("wrong_kind", [False, True],
                         ids=["reject_non_existent_store_name", "reject_wrongly_typed_store"])
def test_should_reject_bad_store_queries(kafka, wrong_kind):
    source = kafka.create(kafka.name("input"))
    store_name = kafka.name("input-table")
    builder = ks.StreamsBuilder()
    builder.table(source, materialized=ks.Materialized.as_(store_name)
                  .with_key_serde(S).with_value_serde(S))
    streams = _run(kafka, builder, kafka.config("queryable-reject"))
    assert _store(streams, store_name, "key_value") is not None
    if wrong_kind:
        with pytest.raises(ks.StoreError, match=f"'{store_name}' is a .*key_value store, not "
                           "session"):
            streams.store(store_name, kind="session")
    else:
        with pytest.raises(ks.StoreError, match="'no-table' is not in this topology"):
            streams.store("no-table", kind="key_value")


@pytest.mark.parametrize("cache_bytes", [0, 10 * 1024 * 1024],
                         ids=["zero_sized_cache", "non_zero_sized_cache"])
def test_should_be_able_to_query_state(kafka, cache_bytes):
    source, output = _unique(kafka)
    _produce(kafka, source, [(k, k) for k in KEYS])
    builder = ks.StreamsBuilder()
    s1 = builder.stream(source)
    s1.group_by_key().count(ks.Materialized.as_("my-count")).to_stream() \
        .to(output, ks.Produced.with_(S, L))
    s1.group_by_key().windowed_by(ks.TimeWindows.of_size_with_no_grace(WINDOW_SIZE)) \
        .count(ks.Materialized.as_("windowed-count"))
    streams = _run(kafka, builder, _config(kafka, statestore__cache__max__bytes=cache_bytes))
    _wait_output(kafka, output, 1)
    my_count = _store(streams, "my-count", "key_value")
    window_store = _store(streams, "windowed-count", "window")
    expected = {k: 1 for k in KEYS}
    window_state: dict[str, int] = {}
    count_state: dict[str, int] = {}
    deadline = time.monotonic() + 30
    while (len(window_state) < 5 or len(count_state) < 5) and time.monotonic() < deadline:
        time.sleep(0.01)
        for key in KEYS:
            with window_store.fetch(key, 0, int(time.time() * 1000)) as it:
                first = next(iter(it), None)
            if first is not None:
                window_state[key] = first.value
            value = my_count.get(key)
            if value is not None:
                count_state[key] = value
    assert window_state == expected
    assert count_state == expected
    with my_count.range("go", "kafka") as it:
        assert {kv.key: kv.value for kv in it} == {"hello": 1, "go": 1, "goodbye": 1, "kafka": 1}
    with my_count.all() as it:
        assert {kv.key: kv.value for kv in it} == expected


def test_should_be_able_to_query_filter_state(kafka):
    source, output = _unique(kafka)
    batch1 = {"hello": 1, "goodbye": 1, "welcome": 3, "go": 5, "kafka": 2}
    _produce(kafka, source, batch1.items(), L)
    builder = ks.StreamsBuilder()
    t1 = builder.table(source)
    t2 = t1.filter(lambda k, v: "kafka" in k, ks.Materialized.as_("queryFilter"))
    t1.filter_not(lambda k, v: "kafka" in k, ks.Materialized.as_("queryFilterNot"))
    t2.to_stream().to(output)
    streams = _run(kafka, builder, _config(kafka, default__value__serde=L))
    _wait_output(kafka, output, 1)
    my_filter = _store(streams, "queryFilter", "key_value")
    my_filter_not = _store(streams, "queryFilterNot", "key_value")
    for key, value in batch1.items():
        expected_in, expected_out = (value, None) if key == "kafka" else (None, value)
        assert wait_for(lambda: my_filter.get(key) == expected_in, 30), key  # noqa: B023
        assert wait_for(lambda: my_filter_not.get(key) == expected_out, 30), key  # noqa: B023


def _map_values_app(kafka, after_filter: bool):
    source, output = _unique(kafka)
    batch1 = {"hello": "1", "goodbye": "1", "welcome": "3", "go": "5", "kafka": "2"}
    _produce(kafka, source, batch1.items())
    builder = ks.StreamsBuilder()
    table = builder.table(source)
    if after_filter:
        table = table.filter(lambda k, v: "kafka" in k, ks.Materialized.as_("queryFilter"))
    table.map_values(int, ks.Materialized.as_("queryMapValues").with_value_serde(L)) \
        .to_stream().to(output, ks.Produced.with_(S, L))
    streams = _run(kafka, builder, _config(kafka))
    _wait_output(kafka, output, 1 if after_filter else 5)
    return batch1, _store(streams, "queryMapValues", "key_value")


def test_should_be_able_to_query_map_values_state(kafka):
    batch1, store = _map_values_app(kafka, after_filter=False)
    for key, value in batch1.items():
        assert store.get(key) == int(value)
    with store.range("hello", "kafka") as it:
        assert [(kv.key, kv.value) for kv in it] == [("hello", 1), ("kafka", 2)]


def test_should_be_able_to_query_map_values_after_filter_state(kafka):
    batch1, store = _map_values_app(kafka, after_filter=True)
    assert store.get("kafka") == 2
    for key in batch1:
        if key != "kafka":
            assert store.get(key) is None


def test_should_be_able_to_query_keys_with_given_prefix(kafka):
    _batch1, store = _map_values_app(kafka, after_filter=False)
    with store.prefix_scan("go", S) as it:
        assert [(kv.key, kv.value) for kv in it] == [("go", 5), ("goodbye", 1)]


def test_should_not_make_store_available_until_all_stores_available(kafka):
    source = kafka.create(kafka.name("stream-three"), partitions=4)
    builder = ks.StreamsBuilder()
    builder.stream(source).group_by_key().count(ks.Materialized.as_("count-by-key"))
    config = _config(kafka)
    streams = _run(kafka, builder, config)
    _produce(kafka, source, [("hello", "hello")] * 8)
    store = _store(streams, "count-by-key", "key_value")
    assert wait_for(lambda: store.get("hello") == 8, 30)
    assert streams.close(timeout=10_000)

    streams = _run(kafka, builder, config)
    seen: list[int | None] = []

    def restored() -> bool:
        try:
            seen.append(streams.store("count-by-key", kind="key_value").get("hello"))
        except ks.StoreError:
            return False
        return True
    assert wait_for(restored, 30)
    assert seen == [8]  # never a value other than 8 once the store is queryable


def test_should_allow_to_query_after_thread_died(kafka):
    source, output = _unique(kafka)
    before_failure = threading.Event()
    failed = threading.Event()

    def reducer(value1: str, value2: str) -> str:
        if len(value1) > 1 and not before_failure.is_set():
            before_failure.set()
            raise RuntimeError("Injected test exception")
        return value1 + value2

    builder = ks.StreamsBuilder()
    builder.stream(source).group_by_key().reduce(reducer, ks.Materialized.as_("store")) \
        .to_stream().to(output)
    streams = kafka.track(ks.KafkaStreams(builder.build(),
                                          _config(kafka, num__stream__threads=2)))
    streams.set_uncaught_exception_handler(
        lambda exc: failed.set() or ks.KafkaStreams.REPLACE_THREAD)
    streams.start()
    assert streams.wait_until_running(30)
    _produce(kafka, source, [("a", "1"), ("a", "2"), ("b", "3"), ("b", "4")])
    store = _store(streams, "store", "key_value")
    assert wait_for(lambda: store.get("a") == "12" and store.get("b") == "34", 30)

    _produce(kafka, source, [("a", "5")])
    assert failed.wait(30)
    values: list[tuple[str | None, str | None]] = []

    def settled() -> bool:
        try:
            view = streams.store("store", kind="key_value")
            values.append((view.get("a"), view.get("b")))
        except ks.StoreError:
            return False
        a, b = values[-1]
        return a in ("125", "1225", "12125") and b in ("34", "344", "3434")
    assert wait_for(settled, 30), values[-3:]
