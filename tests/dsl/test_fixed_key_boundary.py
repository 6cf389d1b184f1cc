"""A record leaves a ``FixedKeyProcessor`` as a plain ``Record``: only that processor may not
change the key. Operators after ``process_values()`` re-key freely, as in Kafka Streams, on the
record path, with the driver's bulk path switched on, and with tracing."""

from __future__ import annotations

import pytest

import kslab as ks
from tests.dsl.fixed_key_chains import CHAINS, INPUT, S, Upper, one_chain


@pytest.mark.parametrize("mode", ["records", "bulk", "trace"])
@pytest.mark.parametrize("chain", sorted(CHAINS))
def test_operators_after_process_values_may_change_the_key(chain, mode):
    _, value_serde, expected = CHAINS[chain]
    config = {"application.id": "fixed", "statestore.cache.max.bytes": 0,
              "kslab.driver.bulk": mode == "bulk"}
    with ks.TopologyTestDriver(one_chain(chain).build(), config,
                               trace=mode == "trace") as driver:
        driver.create_input_topic("in", S, S).pipe_key_value_list(INPUT)
        out = driver.create_output_topic("out", S, value_serde).read_key_values_to_list()
    assert [tuple(kv) for kv in out] == expected


def test_the_fixed_key_processor_itself_still_cannot_change_the_key():
    class Rekeying(ks.FixedKeyProcessor):
        def init(self, context):
            self.context = context

        def process(self, record):
            self.context.forward(record.with_key("other"))

    builder = ks.StreamsBuilder()
    (builder.stream("in", ks.Consumed.with_(S, S))
     .process_values(Rekeying, named=ks.Named.as_("rekeying")).to("out"))
    with (ks.TopologyTestDriver(builder.build(), {"application.id": "fixed"}) as driver,
          pytest.raises(ks.StreamsError) as info):
        driver.create_input_topic("in", S, S).pipe_input("k", "v")
    assert info.value.node == "rekeying"
    assert "FixedKeyRecord has no with_key: a FixedKeyProcessor cannot change the key" in str(
        info.value)


def _noting(base: type, seen: list[type]) -> type:
    """A processor class of ``base`` noting the class of each record it receives in
    ``seen``, then forwarding it."""

    class Note(base):  # type: ignore[valid-type, misc]
        def init(self, context):
            self.context = context

        def process(self, record):
            seen.append(type(record))
            self.context.forward(record)

    return Note


def test_records_cross_a_node_boundary_as_their_receiver_expects():
    plain_seen: list[type] = []
    fixed_seen: list[type] = []
    builder = ks.StreamsBuilder()
    upper = builder.stream("in", ks.Consumed.with_(S, S)).process_values(Upper)
    strings = ks.Produced.with_(S, S)
    (upper.process(_noting(ks.Processor, plain_seen))
     .select_key(lambda k, v: v).to("plain", strings))
    (upper.process_values(_noting(ks.FixedKeyProcessor, fixed_seen))
     .select_key(lambda k, v: v + "!").to("fixed", strings))
    with ks.TopologyTestDriver(builder.build(), {"application.id": "fixed"}) as driver:
        driver.create_input_topic("in", S, S).pipe_input("k", "v")
        plain = driver.create_output_topic("plain", S, S).read_key_values_to_list()
        fixed = driver.create_output_topic("fixed", S, S).read_key_values_to_list()
    assert plain_seen == [ks.Record]
    assert fixed_seen == [ks.FixedKeyRecord]
    assert [tuple(kv) for kv in plain] == [("V", "V")]
    assert [tuple(kv) for kv in fixed] == [("V!", "V")]
