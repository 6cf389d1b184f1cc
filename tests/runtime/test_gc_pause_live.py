"""The live stream thread runs a polled batch's user functions with the collector's young
threshold raised (``kslab.core.gc_pause.fewer_collections``) and puts it back afterwards."""

from __future__ import annotations

import gc

from confluent_kafka import Producer
from runtime_fixtures import wait_for

import kslab as ks
from kslab import serdes
from kslab.core.gc_pause import YOUNG_COLLECTION


def test_the_stream_thread_runs_user_functions_with_fewer_collections(kafka):
    thresholds = gc.get_threshold()
    gc.set_threshold(700, 10, 10)
    try:
        source, sink = kafka.create(kafka.name("in"), 1), kafka.create(kafka.name("out"), 1)
        seen: list[int] = []
        builder = ks.StreamsBuilder()
        (builder.stream(source, ks.Consumed.with_(serdes.String(), serdes.Json()))
         .map_values(lambda value: seen.append(gc.get_threshold()[0]) or value)
         .to(sink, ks.Produced.with_(serdes.String(), serdes.Json())))
        producer = Producer({"bootstrap.servers": kafka.bootstrap, "linger.ms": 5})
        for i in range(50):
            producer.produce(source, b'{"n": %d}' % i, b"k")
        assert producer.flush(30) == 0
        streams = kafka.track(ks.KafkaStreams(builder, kafka.config("gc-pause")))
        streams.start()
        assert wait_for(lambda: len(seen) == 50)
        streams.close(timeout=10_000)
        assert seen == [YOUNG_COLLECTION] * 50
        assert gc.get_threshold() == (700, 10, 10)
    finally:
        gc.set_threshold(*thresholds)
