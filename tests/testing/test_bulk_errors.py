"""A user function raising mid-chunk: the bulk path leaves the chunk to the record path, which
raises the same error (node, topic, partition, offset, key, value) with the same partial state."""

from __future__ import annotations

from typing import Any

import pytest

import kslab as ks
from kslab import serdes
from kslab.errors import KslabError, StreamsError
from tests.testing.driver_observables import state as _state

S, L = serdes.String(), serdes.Long()


def _topology() -> ks.Topology:
    def split(line: str) -> list[str]:
        if line == "boom":
            raise ValueError("bad line")
        return line.split()

    b = ks.StreamsBuilder()
    (b.stream("lines", ks.Consumed.with_(S, S))
     .flat_map_values(split)
     .group_by(lambda k, w: w, ks.Grouped.with_(S, S))
     .count(ks.Materialized.as_("counts").with_caching_disabled())
     .to_stream()
     .to("counts", ks.Produced.with_(S, L)))
    return b.build()


def _fail(bulk: bool) -> tuple[str, tuple, dict]:
    lines = [f"a b{i % 7} c" for i in range(300)]
    lines[170] = "boom"  # the first chunk of 256 holds it
    with ks.TopologyTestDriver(_topology(), {"kslab.driver.bulk": bulk}) as driver:
        topic = driver.create_input_topic("lines", S, S)
        topic.pipe_value_list(lines[:10])  # a chunk that succeeds before
        with pytest.raises(StreamsError) as info:
            topic.pipe_value_list(lines[10:])
        err = info.value
        where = (err.node, err.topic, err.partition, err.offset, err.key, err.value)
        return str(err), where, _state(driver)


def test_error_mid_chunk_matches_the_record_path() -> None:
    bulk_message, bulk_where, bulk_state = _fail(True)
    record_message, record_where, record_state = _fail(False)
    assert bulk_where == ("KSTREAM-FLATMAPVALUES-0000000001", "lines", 0, 170, None, "boom")
    assert (bulk_message, bulk_where) == (record_message, record_where)
    assert bulk_state == record_state
    assert len(bulk_state["outputs"]["counts"]) == 170 * 3
    assert len(bulk_state["history"]) == 171


def _by_key(store_key: Any, sink_value: Any, cache: bool, repartition: bool) -> ks.Topology:
    """A count whose store key serde or sink value serde refuses what it is given."""
    mat = ks.Materialized.as_("counts").with_key_serde(store_key)
    if not cache:
        mat = mat.with_caching_disabled()
    b = ks.StreamsBuilder()
    words = b.stream("lines", ks.Consumed.with_(S, S)).flat_map_values(str.split)
    grouped = (words.group_by(lambda k, w: w, ks.Grouped.with_(S, S)) if repartition
               else words.group_by_key(ks.Grouped.with_(S, S)))
    grouped.count(mat).to_stream().to("counts", ks.Produced.with_(S, sink_value))
    return b.build()


def _fail_in_count(topology: ks.Topology, bulk: bool) -> tuple[str, tuple, dict]:
    lines = [f"a b{i % 7} c" for i in range(300)]
    with ks.TopologyTestDriver(topology, {"kslab.driver.bulk": bulk}) as driver:
        topic = driver.create_input_topic("lines", S, S)
        with pytest.raises(KslabError) as info:
            topic.pipe_key_value_list([(f"k{i % 3}", line) for i, line in enumerate(lines)])
        err = info.value
        where = tuple(getattr(err, name, None)
                      for name in ("node", "topic", "partition", "offset", "key", "value"))
        return f"{type(err).__name__}: {err}", where, _state(driver)


@pytest.mark.parametrize("cache", [True, False])
@pytest.mark.parametrize("repartition", [True, False])
@pytest.mark.parametrize("refusing", ["store key", "sink value"])
def test_a_serde_refusing_in_the_count_matches_the_record_path(
        cache: bool, repartition: bool, refusing: str) -> None:
    store_key, sink_value = (L, L) if refusing == "store key" else (S, S)
    def build() -> ks.Topology:
        return _by_key(store_key, sink_value, cache, repartition)
    bulk = _fail_in_count(build(), True)
    record = _fail_in_count(build(), False)
    assert bulk[:2] == record[:2]
    assert bulk[2] == record[2]


def _windowed_by_key(store_key: Any, sink_key: Any) -> ks.Topology:
    b = ks.StreamsBuilder()
    (b.stream("lines", ks.Consumed.with_(S, S))
     .group_by_key()
     .windowed_by(ks.TimeWindows.of_size_with_no_grace(100))
     .count(ks.Materialized.as_("counts").with_key_serde(store_key).with_caching_disabled())
     .to_stream()
     .to("counts", ks.Produced.with_(sink_key, L)))
    return b.build()


@pytest.mark.parametrize("store_key, sink_key", [(L, serdes.TimeWindowed(S, 100)),
                                                 (S, S)])
def test_a_serde_refusing_in_a_windowed_count_matches_the_record_path(store_key: Any,
                                                                      sink_key: Any) -> None:
    bulk = _fail_in_count(_windowed_by_key(store_key, sink_key), True)
    record = _fail_in_count(_windowed_by_key(store_key, sink_key), False)
    assert bulk[:2] == record[:2]
    assert bulk[2] == record[2]


def test_the_refusing_key_serde_is_named() -> None:
    message, _where, state = _fail_in_count(_by_key(L, L, False, True), True)
    assert message.startswith("StoreError: Store 'counts' cannot serialize key 'a' (str) with "
                              "key serde Long()")
    assert state["outputs"]["topology-test-driver-counts-repartition"] == [
        (b"a", b"a", None, 0, 0), (b"b0", b"b0", None, 0, 0), (b"c", b"c", None, 0, 0)]
    assert state["outputs"]["counts"] == []
    assert state["offsets"] == {("lines", 0): 1,
                                ("topology-test-driver-counts-repartition", 0): 1}
