"""A user function raising mid-chunk: the bulk path leaves the chunk to the record path, which
raises the same error (node, topic, partition, offset, key, value) with the same partial state."""

from __future__ import annotations

import pytest
from test_bulk_differential import _state

import kslab as ks
from kslab import serdes
from kslab.errors import StreamsError

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
