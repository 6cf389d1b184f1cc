"""Foreign-key table joins (KIP-213): outputs in the driver and the lowering's names."""

from __future__ import annotations

import re

import kslab as ks
from kslab import serdes

S = serdes.String()


def fk_join(left: bool = False, **kwargs) -> ks.Topology:
    b = ks.StreamsBuilder()
    a = b.table("a", ks.Consumed.with_(S, S))
    other = b.table("b", ks.Consumed.with_(S, S))
    join = a.left_join if left else a.join
    join(other, lambda value: value.split("|")[0], lambda lv, rv: f"{lv}{rv}", **kwargs) \
        .to_stream().to("out", ks.Produced.with_(S, S))
    return b.build()


def test_seed_000_foreign_key_join_yields_ax():
    b = ks.StreamsBuilder()
    a = b.table("a", ks.Consumed.with_(S, S))
    other = b.table("b", ks.Consumed.with_(S, S))
    a.join(other, lambda left: left, lambda left, right: left + right).to_stream().to(
        "out", ks.Produced.with_(S, S))
    with ks.TopologyTestDriver(b.build()) as driver:
        driver.create_input_topic("a", S, S).pipe_input("pk", "A")
        driver.create_input_topic("b", S, S).pipe_input("A", "X")
        assert driver.create_output_topic("out", S, S).read_key_values_to_list() == [
            ("pk", "AX")]


def test_inner_join_updates_on_either_side_and_propagates_tombstones():
    with ks.TopologyTestDriver(fk_join()) as driver:
        a, b = driver.create_input_topic("a", S, S), driver.create_input_topic("b", S, S)
        out = driver.create_output_topic("out", S, S)
        a.pipe_input("p1", "f1|x")  # no foreign row yet: nothing
        assert out.is_empty()
        b.pipe_input("f1", "R1")
        b.pipe_input("f1", "R2")  # a right update re-joins every subscribed row
        a.pipe_input("p1", "f2|x")  # the row moves to another foreign key without a match
        b.pipe_input("f2", "S")
        b.pipe_input("f1", "R3")  # p1 no longer subscribes to f1
        a.pipe_input("p1", None)  # deleting the left row deletes the result
        assert out.read_key_values_to_list() == [
            ("p1", "f1|xR1"), ("p1", "f1|xR2"), ("p1", None), ("p1", "f2|xS"), ("p1", None)]


def test_left_join_emits_without_a_foreign_row_and_on_its_deletion():
    with ks.TopologyTestDriver(fk_join(left=True)) as driver:
        a, b = driver.create_input_topic("a", S, S), driver.create_input_topic("b", S, S)
        a.pipe_input("p1", "f1|x")
        b.pipe_input("f1", "R")
        b.pipe_input("f1", None)
        a.pipe_input("p1", None)
        out = driver.create_output_topic("out", S, S).read_key_values_to_list()
    # Deleting the left row sends DELETE_KEY_AND_PROPAGATE to the old foreign key and a
    # PROPAGATE_NULL_IF_NO_FK_VAL_AVAILABLE with a null foreign key: both answer a tombstone.
    assert out == [("p1", "f1|xNone"), ("p1", "f1|xR"), ("p1", "f1|xNone"), ("p1", None),
                   ("p1", None)]


def test_generated_names_of_the_lowering():
    # KTableKTableForeignKeyJoinScenarioTest.shouldUseExpectedTopicsWithSerde: the
    # subscription topic takes index 6 and the response topic index 14.
    topology = fk_join()
    assert sorted(topology.internal_topics) == [
        "KTABLE-FK-JOIN-SUBSCRIPTION-REGISTRATION-0000000006-topic",
        "KTABLE-FK-JOIN-SUBSCRIPTION-RESPONSE-0000000014-topic",
    ]
    text = str(topology.describe())
    processors = re.findall(r"Processor: (\S+) \(stores: \[([^\]]*)\]\)", text)
    assert ("KTABLE-FK-JOIN-SUBSCRIPTION-PROCESSOR-0000000011",
            "KTABLE-FK-JOIN-SUBSCRIPTION-STATE-STORE-0000000010") in processors
    assert ("KTABLE-FK-JOIN-SUBSCRIPTION-PROCESSOR-0000000012", "b-STATE-STORE-0000000003") \
        in processors
    assert ("KTABLE-FK-JOIN-SUBSCRIPTION-RESPONSE-RESOLVER-PROCESSOR-0000000017",
            "a-STATE-STORE-0000000000") in processors
    assert ("KTABLE-FK-JOIN-OUTPUT-0000000018", "") in processors


def test_table_joined_name_names_topics_nodes_and_store():
    topology = fk_join(table_joined=ks.TableJoined.as_("fk"), materialized="result")
    assert sorted(topology.internal_topics) == [
        "fk-subscription-registration-topic", "fk-subscription-response-topic"]
    text = str(topology.describe())
    for name in ["fk-subscription-registration-processor", "fk-subscription-receive",
                 "fk-subscription-join-foreign", "fk-foreign-join-subscription",
                 "fk-subscription-response-resolver"]:
        assert f"Processor: {name} " in text
    assert "Processor: fk-result (stores: [result])" in text
    assert "(stores: [fk-subscription-store])" in text
