"""Operators after ``process_values()`` change the key on the live runtime (issue 18.1)."""

from __future__ import annotations

import kslab as ks
from tests.dsl.fixed_key_chains import CHAINS, INPUT, S, every_chain


def test_every_chain_after_process_values_runs_live(kafka):
    source = kafka.create(kafka.name("in"))
    sinks = {name: kafka.create(kafka.name(name)) for name in CHAINS}
    kafka.produce(source, [(S.serialize(source, k), S.serialize(source, v)) for k, v in INPUT])
    streams = kafka.track(ks.KafkaStreams(every_chain(source, sinks).build(), kafka.config(
        "fixed", statestore__cache__max__bytes=0)))
    streams.start()
    for name, (_, value_serde, expected) in CHAINS.items():
        got = kafka.read(sinks[name], len(expected))
        assert [(S.deserialize(sinks[name], k), value_serde.deserialize(sinks[name], v))
                for k, v, _ in got] == expected, name
    assert streams.close(timeout=10_000)
