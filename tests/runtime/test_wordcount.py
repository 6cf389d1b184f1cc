"""Word count end to end on a real broker, against the TopologyTestDriver's output."""

from __future__ import annotations

import pytest
from apps import final_counts, lines, reference_counts, word_count_dsl, word_count_papi
from runtime_fixtures import wait_for

import kslab as ks


def _driver_output(topology, source, sink, text):
    with ks.TopologyTestDriver(topology) as driver:
        driver.create_input_topic(source).pipe_value_list(text)
        return driver.create_output_topic(sink).read_key_values_to_list()


def _run(kafka, topology, app, total, **config):
    streams = kafka.track(ks.KafkaStreams(topology, kafka.config(app, **config)))
    streams.start()
    return streams


def test_word_count_papi_matches_the_driver_exactly(kafka):
    source, sink = kafka.create(kafka.name("in")), kafka.create(kafka.name("out"))
    text = lines(300)
    expected = _driver_output(word_count_papi(source, sink), source, sink, text)
    kafka.produce(source, [(None, t.encode()) for t in text])
    states = []
    streams = ks.KafkaStreams(word_count_papi(source, sink), kafka.config("wc"))
    streams.set_state_listener(lambda new, old: states.append((old.name, new.name)))
    kafka.track(streams)
    streams.start()
    got = kafka.read(sink, len(expected))
    assert [(k.decode(), int.from_bytes(v, "big")) for k, v, _ in got] == \
        [(kv.key, kv.value) for kv in expected]
    assert streams.close(timeout=10_000)
    assert states[0] == ("CREATED", "REBALANCING")
    assert ("REBALANCING", "RUNNING") in states
    assert states[-2:] == [("RUNNING", "PENDING_SHUTDOWN"), ("PENDING_SHUTDOWN", "NOT_RUNNING")]


@pytest.mark.parametrize("threads", [1, 2])
def test_word_count_dsl_with_repartition_and_threads(kafka, threads):
    source, sink = kafka.create(kafka.name("in"), 3), kafka.create(kafka.name("out"), 2)
    text = lines(400, seed=threads)
    expected = reference_counts(text)
    kafka.produce(source, [(f"k{i}".encode(), t.encode()) for i, t in enumerate(text)])
    streams = _run(kafka, word_count_dsl(source, sink), "wcdsl", len(text),
                   num__stream__threads=threads)
    got = kafka.read_until(sink, lambda r: final_counts(r) == expected, partitions=2)
    assert final_counts(got) == expected
    assert wait_for(lambda: streams.state is ks.KafkaStreams.State.RUNNING)
    store = streams.store("counts")
    assert {w: store.get(w) for w in expected} == expected


def test_word_count_exactly_once_v2(kafka):
    source, sink = kafka.create(kafka.name("in"), 2), kafka.create(kafka.name("out"))
    text = lines(300, seed=9)
    expected = reference_counts(text)
    kafka.produce(source, [(f"k{i}".encode(), t.encode()) for i, t in enumerate(text)])
    words = kafka.create(kafka.name("words"), 2)
    streams = _run(kafka, word_count_papi(source, sink, repartition=words), "eos", len(text),
                   processing__guarantee="exactly_once_v2")
    got = kafka.read_until(sink, lambda r: final_counts(r) == expected, committed=True)
    assert final_counts(got) == expected
    assert len(got) == sum(expected.values())  # one output per word, none twice
    assert streams.close(timeout=10_000)
