"""Kafka's ``KTableKTableForeignKeyJoinIntegrationTest`` (streams/src/test/.../integration),
translated to kslab. It already runs on the TopologyTestDriver, so it translates directly.

The parameter sets are Java's: ``data()`` (left join or not x ``topology.optimization`` all/none
x materialized result x a re-join of the result with the left table, unversioned tables) and
``versionedData()`` (no optimization, no re-join, either table versioned or not), deduplicated
into ``testCases``, ``testCasesWithoutLeftJoinArg`` and ``versionedDataTestCases``. Java's
``UniqueTopicSerdeScope`` decorators only check that a topic always sees one type; plain String
serdes stand in for them here (``KTableKTableForeignKeyJoinScenarioTest`` checks the topics).
``baseTimestamp`` (a ``MockTime``) is a fixed epoch here. Each step checks, as Java does, the
output topic as a key-value map, the re-join output when there is one, and the result store
``store`` when materialized. Nothing is skipped.
"""

from __future__ import annotations

import itertools
import struct
from collections.abc import Callable
from typing import Any

import pytest

import kslab as ks
from kslab import serdes

LEFT_TABLE, RIGHT_TABLE = "left_table", "right_table"
OUTPUT, REJOIN_OUTPUT = "output-topic", "rejoin-output-topic"
S = serdes.String()
BASE = 1_700_000_000_000  # baseTimestamp


def _params(left_join, optimization, materialized, rejoin, left_versioned, right_versioned):
    return list(itertools.product(left_join, optimization, materialized, rejoin,
                                  left_versioned, right_versioned))


DATA = _params([True, False], ["all", "none"], [True, False], [True, False], [False], [False])
VERSIONED_DATA = _params([True, False], ["none"], [True, False], [False], [True, False],
                         [True, False])
TEST_CASES = sorted(set(DATA) | set(VERSIONED_DATA), reverse=True)
TEST_CASES_WITHOUT_LEFT_JOIN_ARG = sorted({case[1:] for case in TEST_CASES}, reverse=True)
NAMES = "left_join, optimization, materialized, rejoin, left_versioned, right_versioned"


def default_extractor(value: str) -> str:
    return value.split("|")[1]


def get_topology(config: dict, queryable_store_name: str | None, left_join: bool, rejoin: bool,
                 left_versioned: bool, right_versioned: bool,
                 extractor: Callable[[str], Any] = default_extractor) -> ks.Topology:
    """Java's ``getTopology``: the FK join (and the optional re-join) of the two tables."""
    builder = ks.StreamsBuilder()

    def table(topic: str, name: str, versioned: bool) -> ks.KTable:
        if versioned:
            return builder.table(topic, ks.Consumed.with_(S, S), ks.Materialized.as_(
                ks.Stores.persistent_versioned_key_value_store(name, 5 * 60_000)))
        return builder.table(topic, ks.Consumed.with_(S, S))

    left = table(LEFT_TABLE, "left", left_versioned)
    right = table(RIGHT_TABLE, "right", right_versioned)

    def joiner(value1: object, value2: object) -> str:
        return f"({_s(value1)},{_s(value2)})"

    def rejoiner(value1: object, value2: object) -> str:
        return f"rejoin({_s(value1)},{_s(value2)})"

    # the cache suppresses some of the unnecessary tombstones the test makes assertions about
    if queryable_store_name is None:
        main_materialized = ks.Materialized.with_(None, S).with_caching_disabled()
        rejoin_materialized = ks.Materialized.with_(None, S)
    else:
        main_materialized = ks.Materialized.as_(
            ks.Stores.in_memory_key_value_store(queryable_store_name)).with_value_serde(S) \
            .with_caching_disabled()
        rejoin_materialized = ks.Materialized.as_(
            ks.Stores.in_memory_key_value_store(queryable_store_name + "-rejoin")) \
            .with_value_serde(S).with_caching_disabled()
    if left_join:
        fk_join = left.left_join(right, extractor, joiner, materialized=main_materialized)
        fk_join.to_stream().to(OUTPUT)
        if rejoin:
            fk_join.left_join(left, rejoiner, rejoin_materialized).to_stream().to(REJOIN_OUTPUT)
    else:
        fk_join = left.join(right, extractor, joiner, materialized=main_materialized)
        fk_join.to_stream().to(OUTPUT)
        if rejoin:
            fk_join.join(left, rejoiner, rejoin_materialized).to_stream().to(REJOIN_OUTPUT)
    return builder.build(config)


def _s(value: object) -> str:
    return "null" if value is None else str(value)


class Run:
    """One test's driver: its input topics, outputs and the result store."""

    def __init__(self, optimization: str, materialized: bool, left_join: bool, rejoin: bool,
                 left_versioned: bool, right_versioned: bool, tmp_path: Any,
                 extractor: Callable[[str], Any] = default_extractor) -> None:
        config = {"state.dir": str(tmp_path), "topology.optimization": optimization}
        topology = get_topology(config, "store" if materialized else None, left_join, rejoin,
                                left_versioned, right_versioned, extractor)
        self.materialized, self.rejoin = materialized, rejoin
        self.driver = ks.TopologyTestDriver(topology, config)
        self.right = self.driver.create_input_topic(RIGHT_TABLE, S, S)
        self.left = self.driver.create_input_topic(LEFT_TABLE, S, S)
        self.output = self.driver.create_output_topic(OUTPUT, S, S)
        self.rejoin_output = self.driver.create_output_topic(REJOIN_OUTPUT, S, S) \
            if rejoin else None
        self.store = self.driver.get_key_value_store("store") if materialized else None

    def check(self, output: dict, store: dict | None = None, rejoin: dict | None = None
              ) -> None:
        """The output since the last check as a map; the store (default: ``output``) when
        materialized; the re-join output when the test gives one."""
        assert self.output.read_key_values_to_map() == output
        if self.rejoin and rejoin is not None:
            assert self.rejoin_output.read_key_values_to_map() == rejoin
        if self.materialized:
            with self.store.all() as entries:
                assert dict(entries) == (output if store is None else store)

    def close(self) -> None:
        self.driver.close()


@pytest.fixture
def run(tmp_path):
    made: list[Run] = []

    def make(*args: Any, **kwargs: Any) -> Run:
        made.append(Run(*args, tmp_path=tmp_path, **kwargs))
        return made[-1]

    yield make
    for r in made:
        r.close()


@pytest.mark.parametrize(NAMES, TEST_CASES)
def test_do_join_from_left_then_delete_left_entity(run, left_join, optimization, materialized,
                                                   rejoin, left_versioned, right_versioned):
    r = run(optimization, materialized, left_join, rejoin, left_versioned, right_versioned)
    # pre-populate the RHS records: this test is about adding and removing LHS records
    r.right.pipe_input("rhs1", "rhsValue1", BASE)
    r.right.pipe_input("rhs2", "rhsValue2", BASE + 1)
    r.right.pipe_input("rhs3", "rhsValue3", BASE + 2)  # unreferenced: never in any result
    r.check({}, rejoin={})
    r.left.pipe_input("lhs1", "lhsValue1|rhs1", BASE + 3)
    r.left.pipe_input("lhs2", "lhsValue2|rhs2", BASE + 4)
    r.check({"lhs1": "(lhsValue1|rhs1,rhsValue1)", "lhs2": "(lhsValue2|rhs2,rhsValue2)"},
            rejoin={"lhs1": "rejoin((lhsValue1|rhs1,rhsValue1),lhsValue1|rhs1)",
                    "lhs2": "rejoin((lhsValue2|rhs2,rhsValue2),lhsValue2|rhs2)"})
    # another reference to an existing FK
    r.left.pipe_input("lhs3", "lhsValue3|rhs1", BASE + 5)
    r.check({"lhs3": "(lhsValue3|rhs1,rhsValue1)"},
            store={"lhs1": "(lhsValue1|rhs1,rhsValue1)", "lhs2": "(lhsValue2|rhs2,rhsValue2)",
                   "lhs3": "(lhsValue3|rhs1,rhsValue1)"},
            rejoin={"lhs3": "rejoin((lhsValue3|rhs1,rhsValue1),lhsValue3|rhs1)"})
    # delete one LHS entity: one delete is propagated down to the output
    r.left.pipe_input("lhs1", None, BASE + 6)
    r.check({"lhs1": None},
            store={"lhs2": "(lhsValue2|rhs2,rhsValue2)", "lhs3": "(lhsValue3|rhs1,rhsValue1)"},
            rejoin={"lhs1": None})


@pytest.mark.parametrize(NAMES, TEST_CASES)
def test_do_join_from_right_then_delete_right_entity(run, left_join, optimization, materialized,
                                                     rejoin, left_versioned, right_versioned):
    r = run(optimization, materialized, left_join, rejoin, left_versioned, right_versioned)
    # pre-populate the LHS records: this test is about adding and removing RHS records
    r.left.pipe_input("lhs1", "lhsValue1|rhs1", BASE)
    r.left.pipe_input("lhs2", "lhsValue2|rhs2", BASE + 1)
    r.left.pipe_input("lhs3", "lhsValue3|rhs1", BASE + 2)
    r.check({"lhs1": "(lhsValue1|rhs1,null)", "lhs2": "(lhsValue2|rhs2,null)",
             "lhs3": "(lhsValue3|rhs1,null)"} if left_join else {})
    r.right.pipe_input("rhs1", "rhsValue1", BASE + 3)
    r.check({"lhs1": "(lhsValue1|rhs1,rhsValue1)", "lhs3": "(lhsValue3|rhs1,rhsValue1)"},
            store={"lhs1": "(lhsValue1|rhs1,rhsValue1)", "lhs2": "(lhsValue2|rhs2,null)",
                   "lhs3": "(lhsValue3|rhs1,rhsValue1)"} if left_join else None)
    r.right.pipe_input("rhs2", "rhsValue2", BASE + 4)
    all_joined = {"lhs1": "(lhsValue1|rhs1,rhsValue1)", "lhs2": "(lhsValue2|rhs2,rhsValue2)",
                  "lhs3": "(lhsValue3|rhs1,rhsValue1)"}
    r.check({"lhs2": "(lhsValue2|rhs2,rhsValue2)"}, store=all_joined)
    r.right.pipe_input("rhs3", "rhsValue3", BASE + 5)  # unreferenced: never in any result
    r.check({}, store=all_joined)
    # delete the RHS entity: all matching keys have deletes propagated
    r.right.pipe_input("rhs1", None, BASE + 6)
    r.check({"lhs1": "(lhsValue1|rhs1,null)" if left_join else None,
             "lhs3": "(lhsValue3|rhs1,null)" if left_join else None},
            store={"lhs1": "(lhsValue1|rhs1,null)", "lhs2": "(lhsValue2|rhs2,rhsValue2)",
                   "lhs3": "(lhsValue3|rhs1,null)"} if left_join
            else {"lhs2": "(lhsValue2|rhs2,rhsValue2)"})


@pytest.mark.parametrize(NAMES, TEST_CASES)
def test_should_emit_tombstone_when_deleting_non_joining_records(
        run, left_join, optimization, materialized, rejoin, left_versioned, right_versioned):
    r = run(optimization, materialized, left_join, rejoin, left_versioned, right_versioned)
    r.left.pipe_input("lhs1", "lhsValue1|rhs1", BASE)
    r.check({"lhs1": "(lhsValue1|rhs1,null)"} if left_join else {})
    # an inner join cannot know whether it emitted a result: an unnecessary tombstone; the left
    # join's is necessary
    r.left.pipe_input("lhs1", None, BASE + 1)
    r.check({"lhs1": None}, store={})
    # deleting a non-existing record is idempotent
    r.left.pipe_input("lhs1", None, BASE + 2)
    r.check({}, store={})


@pytest.mark.parametrize(NAMES, TEST_CASES)
def test_should_not_emit_tombstones_when_deleting_non_existing_records(
        run, left_join, optimization, materialized, rejoin, left_versioned, right_versioned):
    r = run(optimization, materialized, left_join, rejoin, left_versioned, right_versioned)
    r.left.pipe_input("lhs1", None, BASE)
    r.check({}, store={})


@pytest.mark.parametrize(NAMES, TEST_CASES)
def test_join_should_produce_nulls_when_value_has_non_matching_foreign_key(
        run, left_join, optimization, materialized, rejoin, left_versioned, right_versioned):
    r = run(optimization, materialized, left_join, rejoin, left_versioned, right_versioned)

    def half(fk: str) -> dict:
        return {"lhs1": f"(lhsValue1|{fk},null)"} if left_join else {}

    # no output for a new inner join on a non-existent FK; the left join emits the half join
    r.left.pipe_input("lhs1", "lhsValue1|rhs1", BASE)
    r.check(half("rhs1"))
    # moving to another non-existent FK: an unnecessary tombstone for the inner join, a
    # necessary update for the left join
    r.left.pipe_input("lhs1", "lhsValue1|rhs2", BASE + 1)
    r.check({"lhs1": "(lhsValue1|rhs2,null)" if left_join else None}, store=half("rhs2"))
    r.left.pipe_input("lhs1", "lhsValue1|rhs3", BASE + 2)
    r.check({"lhs1": "(lhsValue1|rhs3,null)" if left_join else None}, store=half("rhs3"))
    # an RHS record that is no longer referenced changes nothing
    r.right.pipe_input("rhs1", "rhsValue1", BASE + 3)
    r.check({}, store=half("rhs3"))
    # moving to an FK that exists completes the join
    r.left.pipe_input("lhs1", "lhsValue1|rhs1", BASE + 4)
    r.check({"lhs1": "(lhsValue1|rhs1,rhsValue1)"})
    # and moving again to a non-existent one: a tombstone (inner) or an update (left)
    r.left.pipe_input("lhs1", "lhsValue1|rhs2", BASE + 5)
    r.check({"lhs1": "(lhsValue1|rhs2,null)" if left_join else None}, store=half("rhs2"))


@pytest.mark.parametrize(NAMES, TEST_CASES)
def test_should_unsubscribe_old_foreign_key_if_left_side_is_updated(
        run, left_join, optimization, materialized, rejoin, left_versioned, right_versioned):
    r = run(optimization, materialized, left_join, rejoin, left_versioned, right_versioned)
    r.right.pipe_input("rhs1", "rhsValue1", BASE)
    r.right.pipe_input("rhs2", "rhsValue2", BASE + 1)
    r.check({})
    r.left.pipe_input("lhs1", "lhsValue1|rhs1", BASE + 2)
    r.check({"lhs1": "(lhsValue1|rhs1,rhsValue1)"})
    # change the LHS foreign key reference
    r.left.pipe_input("lhs1", "lhsValue1|rhs2", BASE + 3)
    r.check({"lhs1": "(lhsValue1|rhs2,rhsValue2)"})
    # an RHS update on the old foreign key changes nothing
    r.right.pipe_input("rhs1", "rhsValue1Delta", BASE + 4)
    r.check({}, store={"lhs1": "(lhsValue1|rhs2,rhsValue2)"})


@pytest.mark.parametrize(NAMES.split(", ", 1)[1], TEST_CASES_WITHOUT_LEFT_JOIN_ARG)
def test_should_emit_record_on_null_foreign_key_for_left_joins(
        run, optimization, materialized, rejoin, left_versioned, right_versioned):
    r = run(optimization, materialized, True, rejoin, left_versioned, right_versioned,
            extractor=lambda value: None)
    r.left.pipe_input("lhs1", "lhsValue1|rhs1", BASE)
    r.check({"lhs1": "(lhsValue1|rhs1,null)"})


def subscription_store_key(lhs: str, rhs: str) -> bytes:
    """Java's ``subscriptionStoreKey``: {4-byte len(rhs)}{rhs}{lhs}."""
    return struct.pack(">i", len(rhs)) + rhs.encode() + lhs.encode()


@pytest.mark.parametrize(NAMES.split(", ", 1)[1], TEST_CASES_WITHOUT_LEFT_JOIN_ARG)
def test_should_emit_record_when_old_and_new_fk_differ(
        run, optimization, materialized, rejoin, left_versioned, right_versioned):
    def foreign_key_extractor(value: str) -> str | None:
        split = value.split("|")[1]
        return None if split == "returnNull" else split

    r = run(optimization, materialized, True, rejoin, left_versioned, right_versioned,
            extractor=foreign_key_extractor)
    (subscription_store_name,) = [name for name in r.driver.get_all_state_stores()
                                  if "SUBSCRIPTION-STATE-STORE" in name]
    subscription_store = r.driver.get_timestamped_key_value_store(subscription_store_name)
    key = subscription_store_key("lhs1", "rhs1")
    r.left.pipe_input("lhs1", "lhsValue1|rhs1", BASE)
    r.check({"lhs1": "(lhsValue1|rhs1,null)"})
    assert subscription_store.get(key) is not None
    r.left.pipe_input("lhs1", "lhsValue1|returnNull", BASE)
    r.check({"lhs1": "(lhsValue1|returnNull,null)"})
    assert subscription_store.get(key) is None


@pytest.mark.parametrize(NAMES, VERSIONED_DATA)
def test_should_ignore_out_of_order_records_iff_versioned(
        run, left_join, optimization, materialized, rejoin, left_versioned, right_versioned):
    r = run(optimization, materialized, left_join, rejoin, left_versioned, right_versioned)
    r.right.pipe_input("rhs1", "rhsValue1", BASE + 4)
    r.check({})
    # LHS records matching the RHS record
    r.left.pipe_input("lhs1", "lhsValue1|rhs1", BASE + 3)
    r.left.pipe_input("lhs2", "lhsValue2|rhs1", BASE + 5)
    r.check({"lhs1": "(lhsValue1|rhs1,rhsValue1)", "lhs2": "(lhsValue2|rhs1,rhsValue1)"})
    # a tombstone as the latest record
    r.left.pipe_input("lhs2", None, BASE + 6)
    r.check({"lhs2": None}, store={"lhs1": "(lhsValue1|rhs1,rhsValue1)"})
    # an out-of-order LHS record (existing key) makes no new result iff LHS is versioned
    r.left.pipe_input("lhs1", "lhsValue1_ooo|rhs1", BASE + 2)
    r.left.pipe_input("lhs2", "lhsValue2_ooo|rhs1", BASE + 2)
    if left_versioned:
        r.check({}, store={"lhs1": "(lhsValue1|rhs1,rhsValue1)"})
    else:
        r.check({"lhs1": "(lhsValue1_ooo|rhs1,rhsValue1)",
                 "lhs2": "(lhsValue2_ooo|rhs1,rhsValue1)"})
    # an out-of-order LHS tombstone likewise
    r.left.pipe_input("lhs1", None, BASE + 2)
    if left_versioned:
        r.check({}, store={"lhs1": "(lhsValue1|rhs1,rhsValue1)"})
    else:
        r.check({"lhs1": None}, store={"lhs2": "(lhsValue2_ooo|rhs1,rhsValue1)"})
    # an LHS record with a larger timestamp always makes a new result
    r.left.pipe_input("lhs1", "lhsValue1_new|rhs1", BASE + 8)
    r.left.pipe_input("lhs2", "lhsValue2_new|rhs1", BASE + 8)
    r.check({"lhs1": "(lhsValue1_new|rhs1,rhsValue1)", "lhs2": "(lhsValue2_new|rhs1,rhsValue1)"})
    # an out-of-order RHS record makes no new result iff RHS is versioned
    r.right.pipe_input("rhs1", "rhsValue1_ooo", BASE + 1)
    if right_versioned:
        r.check({}, store={"lhs1": "(lhsValue1_new|rhs1,rhsValue1)",
                           "lhs2": "(lhsValue2_new|rhs1,rhsValue1)"})
    else:
        r.check({"lhs1": "(lhsValue1_new|rhs1,rhsValue1_ooo)",
                 "lhs2": "(lhsValue2_new|rhs1,rhsValue1_ooo)"})
    # an out-of-order RHS tombstone likewise
    r.right.pipe_input("rhs1", None, BASE + 1)
    if right_versioned:
        r.check({}, store={"lhs1": "(lhsValue1_new|rhs1,rhsValue1)",
                           "lhs2": "(lhsValue2_new|rhs1,rhsValue1)"})
    elif left_join:
        r.check({"lhs1": "(lhsValue1_new|rhs1,null)", "lhs2": "(lhsValue2_new|rhs1,null)"})
    else:
        r.check({"lhs1": None, "lhs2": None}, store={})
    # an RHS record with a larger timestamp always makes new results
    r.right.pipe_input("rhs1", "rhsValue1_new", BASE + 6)
    r.check({"lhs1": "(lhsValue1_new|rhs1,rhsValue1_new)",
             "lhs2": "(lhsValue2_new|rhs1,rhsValue1_new)"})
