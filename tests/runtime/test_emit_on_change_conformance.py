"""Kafka's ``EmitOnChangeIntegrationTest`` (streams/src/test/.../integration) on the live
runtime (a LocalBroker): a table materialized in ``test-store`` is turned into a stream whose
``map`` throws on its first record; the uncaught-exception handler answers ``REPLACE_THREAD``,
the new thread takes the task back from the last commit (none: the commit interval is five
minutes) and processes the table's first record again, so ``(1, A)`` comes out after all, then
``(1, B)`` (a replaced thread that skipped or lost the failed record would miss it). The test's
name is from KIP-557, which once made table sources drop updates equal to their stored value;
Kafka 4's ``KTableSource`` forwards every update again (it does not call
``putIfDifferentValues``), and so does kslab's. A second, stateless sub-topology copies
``input2`` meanwhile.
"""

from __future__ import annotations

import kslab as ks
from kslab import serdes

INT, STR = serdes.Integer(), serdes.String()


def test_should_emit_same_record_after_failover(kafka):
    source, source2 = kafka.create(kafka.name("input")), kafka.create(kafka.name("input2"))
    sink, sink2 = kafka.create(kafka.name("output")), kafka.create(kafka.name("output2"))
    should_throw = [True]

    def kaboom(key: int, value: str) -> tuple[int, str]:
        if should_throw[0]:
            should_throw[0] = False
            msg = "Kaboom"
            raise RuntimeError(msg)
        return key, value

    builder = ks.StreamsBuilder()
    builder.table(source, materialized=ks.Materialized.as_("test-store")).to_stream() \
        .map(kaboom).to(sink)
    builder.stream(source2).to(sink2)
    config = kafka.config("emit-on-change", num__stream__threads=1,
                          statestore__cache__max__bytes=0, commit__interval__ms=300_000,
                          default__key__serde="integer", default__value__serde="string")
    streams = kafka.track(ks.KafkaStreams(builder.build(), config))
    streams.set_uncaught_exception_handler(lambda exc: ks.KafkaStreams.REPLACE_THREAD)
    streams.start()
    assert streams.wait_until_running(30)
    records = [(INT.serialize(source, 1), STR.serialize(source, v)) for v in ("A", "B")]
    kafka.produce(source, records, timestamp=1_000)
    kafka.produce(source2, records, timestamp=1_000)

    def decoded(out: list) -> list[tuple[int, str]]:
        return [(INT.deserialize(sink, k), STR.deserialize(sink, v)) for k, v, _p in out]

    assert decoded(kafka.read(sink, 2, settle=1.0)) == [(1, "A"), (1, "B")]
    assert decoded(kafka.read(sink2, 2, settle=0.5)) == [(1, "A"), (1, "B")]
    assert not should_throw[0]
