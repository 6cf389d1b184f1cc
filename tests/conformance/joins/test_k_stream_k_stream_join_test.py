"""Kafka's ``KStreamKStreamJoinTest``, translated to kslab's DSL and TopologyTestDriver.

Java's ``MockApiProcessorSupplier`` / ``MockValueJoiner.TOSTRING_JOINER`` are the helpers in
``_join_suppress_support``; ``KeyValueTimestamp(k, v, ts)`` is a ``(k, v, ts)`` tuple.
``StreamsException`` maps to ``ks.StreamsError``. The log check uses pytest's ``caplog``.
``InternalTopologyBuilder`` reads become reads of ``Topology.state_stores`` and
``Topology.copartition_groups()``; changelog topic configs come from the store builder's
``changelog_topic_config()``.

Skipped, outside kslab's API: ``shouldJoinWithDslStoreSuppliersIfNoStoreSupplied`` and
``shouldJoinWithDslStoreSuppliersFromStreamsConfig`` (kslab has no pluggable
``DslStoreSuppliers``). ``shouldJoinWithNonTimestampedStore`` checks the default (RocksDB) store
suppliers, which is what Java's ``CapturingStoreSuppliers`` extends.
``shouldThrottleEmitNonJoinedOuterRecordsEvenWhenClockDrift`` drives Java's join processor with a
mocked context and system time; here the same records go through the DSL and the driver with the
emit interval set to Java's default (1000 ms) and the wall clock set as Java's mock sets it.
"""

from __future__ import annotations

import logging

import pytest

import kslab as ks
from kslab import serdes
from tests.conformance._join_suppress_support import (
    STREAMS_CONFIG,
    MockApiProcessorSupplier,
    tostring_joiner,
)

TOPIC1 = "topic1"
TOPIC2 = "topic2"
INT = serdes.Integer()
STR = serdes.String()
CONSUMED = ks.Consumed.with_(INT, STR)
STREAM_JOINED = ks.StreamJoined.with_(INT, STR, STR)
HOUR = 3_600_000
JOIN_WINDOWS = ks.JoinWindows.of_time_difference_and_grace(50, 50)
ERROR_MESSAGE_PREFIX = "Window settings mismatch. WindowBytesStoreSupplier settings"


def _string_int_join(streams_joined, windows):
    builder = ks.StreamsBuilder()
    left = builder.stream("left", ks.Consumed.with_(STR, INT))
    right = builder.stream("right", ks.Consumed.with_(STR, INT))
    joined = left.join(right, lambda a, b: a + b, windows, streams_joined)
    return builder, joined


def _build_streams_join_that_should_throw(stream_joined, windows, prefix):
    with pytest.raises(ks.StreamsError) as error:
        _string_int_join(stream_joined, windows)
    assert str(error.value).startswith(prefix)


def _supplier(name, retention, size, retain_duplicates):
    return ks.Stores.in_memory_window_store(name, retention, size, retain_duplicates)


def _run_join(stream_joined, windows):
    builder, joined = _string_int_join(stream_joined, windows)
    supplier = MockApiProcessorSupplier()
    joined.process(supplier)
    with ks.TopologyTestDriver(builder.build(), STREAMS_CONFIG) as driver:
        left = driver.create_input_topic("left", STR, INT)
        right = driver.create_input_topic("right", STR, INT)
        processor = supplier.the_captured_processor()
        left.pipe_input("A", 1, 1)
        left.pipe_input("B", 1, 2)
        right.pipe_input("A", 1, 1)
        right.pipe_input("B", 2, 2)
        processor.check_and_clear_process_result(("A", 2, 1), ("B", 3, 2))


def test_should_log_and_meter_on_skipped_records_with_null_value_with_built_in_metrics_version_latest(  # noqa: E501
        caplog):
    builder, _ = _string_int_join(ks.StreamJoined.with_(STR, INT, INT),
                                  ks.JoinWindows.of_time_difference_with_no_grace(100))
    with caplog.at_level(logging.WARNING), \
            ks.TopologyTestDriver(builder.build(), STREAMS_CONFIG) as driver:
        driver.create_input_topic("left", STR, INT).pipe_input("A", None)
    assert ("Skipping record due to null key or value. topic=[left] partition=[0] offset=[0]"
            in caplog.messages)


def _two_joins(first=None, second=None, out2="out-to"):
    builder = ks.StreamsBuilder()
    stream1 = builder.stream("topic", ks.Consumed.with_(STR, STR))
    stream2 = builder.stream("topic2", ks.Consumed.with_(STR, STR))
    stream3 = builder.stream("topic3", ks.Consumed.with_(STR, STR))
    new_stream = stream1.map(lambda k, v: (v, k))
    windows = ks.JoinWindows.of_time_difference_with_no_grace(100)
    args1 = () if first is None else (first,)
    args2 = () if second is None else (second,)
    new_stream.join(stream2, lambda v1, v2: v1 + v2, windows, *args1).to("out-one")
    new_stream.join(stream3, lambda v1, v2: v1 + v2, windows, *args2).to(out2)
    return str(builder.build({"topology.optimization": "none"}).describe())


def test_should_reuse_repartition_topic_with_generated_name():
    assert _two_joins() == EXPECTED_TOPOLOGY_WITH_GENERATED_REPARTITION_TOPIC


def test_should_create_repartition_topics_with_user_provided_name():
    stream_joined = ks.StreamJoined.with_(STR, STR, STR)
    described = _two_joins(stream_joined.with_name("first-join"),
                           stream_joined.with_name("second-join"), "out-two")
    assert described == EXPECTED_TOPOLOGY_WITH_USER_NAMED_REPARTITION_TOPICS


def test_should_disable_logging_on_stream_joined():
    windows = ks.JoinWindows.of_time_difference_and_grace(100, 50)
    stream_joined = (ks.StreamJoined.with_(STR, INT, INT).with_store_name("store")
                     .with_logging_disabled())
    builder, _ = _string_int_join(stream_joined, windows)
    stores = builder.build().state_stores
    assert stores["store-this-join-store"].logging_enabled is False
    assert stores["store-other-join-store"].logging_enabled is False


def test_should_enable_logging_with_custom_config_on_stream_joined():
    windows = ks.JoinWindows.of_time_difference_and_grace(100, 50)
    stream_joined = (ks.StreamJoined.with_(STR, INT, INT).with_store_name("store")
                     .with_logging_enabled({"test": "property"}))
    builder, _ = _string_int_join(stream_joined, windows)
    topology = builder.build()
    stores = topology.state_stores
    assert stores["store-this-join-store"].logging_enabled is True
    assert stores["store-other-join-store"].logging_enabled is True
    logged = [name for name in stores if topology.changelog_topic_for(name, "app") is not None]
    assert len(logged) == 2
    for name in logged:
        assert stores[name].changelog_topic_config()["test"] == "property"


def test_should_throw_exception_this_store_supplier_retention_do_not_match_windows_size_and_grace():
    this = _supplier("in-memory-join-store", 500, 100, True)
    other = _supplier("in-memory-join-store-other", 150, 100, True)
    _build_streams_join_that_should_throw(
        ks.StreamJoined.with_(STR, INT, INT).with_this_store_supplier(this)
        .with_other_store_supplier(other), JOIN_WINDOWS, ERROR_MESSAGE_PREFIX)


def test_should_throw_exception_this_store_supplier_window_size_does_not_match_join_windows_window_size():  # noqa: E501
    this = _supplier("in-memory-join-store", 150, 150, True)
    other = _supplier("in-memory-join-store-other", 150, 100, True)
    _build_streams_join_that_should_throw(
        ks.StreamJoined.with_(STR, INT, INT).with_this_store_supplier(this)
        .with_other_store_supplier(other), JOIN_WINDOWS, ERROR_MESSAGE_PREFIX)


def test_should_throw_exception_when_this_join_store_sets_retain_duplicates_false():
    this = _supplier("in-memory-join-store", 150, 100, False)
    other = _supplier("in-memory-join-store-other", 150, 100, True)
    _build_streams_join_that_should_throw(
        ks.StreamJoined.with_(STR, INT, INT).with_this_store_supplier(this)
        .with_other_store_supplier(other), JOIN_WINDOWS,
        "The StoreSupplier must set retainDuplicates=true, found retainDuplicates=false")


def test_should_throw_exception_other_store_supplier_retention_do_not_match_windows_size_and_grace():  # noqa: E501
    this = _supplier("in-memory-join-store", 150, 100, True)
    other = _supplier("in-memory-join-store-other", 500, 100, True)
    _build_streams_join_that_should_throw(
        ks.StreamJoined.with_(STR, INT, INT).with_this_store_supplier(this)
        .with_other_store_supplier(other), JOIN_WINDOWS, ERROR_MESSAGE_PREFIX)


def test_should_throw_exception_other_store_supplier_window_size_does_not_match_join_windows_window_size():  # noqa: E501
    this = _supplier("in-memory-join-store", 150, 100, True)
    other = _supplier("in-memory-join-store-other", 150, 150, True)
    _build_streams_join_that_should_throw(
        ks.StreamJoined.with_(STR, INT, INT).with_this_store_supplier(this)
        .with_other_store_supplier(other), JOIN_WINDOWS, ERROR_MESSAGE_PREFIX)


def test_should_throw_exception_when_other_join_store_sets_retain_duplicates_false():
    this = _supplier("in-memory-join-store", 150, 100, True)
    other = _supplier("in-memory-join-store-other", 150, 100, False)
    _build_streams_join_that_should_throw(
        ks.StreamJoined.with_(STR, INT, INT).with_this_store_supplier(this)
        .with_other_store_supplier(other), JOIN_WINDOWS,
        "The StoreSupplier must set retainDuplicates=true, found retainDuplicates=false")


def test_should_build_join_with_custom_stores_and_correct_window_settings():
    builder, _ = _string_int_join(ks.StreamJoined.with_(STR, INT, INT), JOIN_WINDOWS)
    builder.build()


def test_should_exception_when_join_stores_do_not_have_unique_names():
    windows = ks.JoinWindows.of_time_difference_and_grace(100, 50)
    this = _supplier("in-memory-join-store", 150, 100, True)
    other = _supplier("in-memory-join-store", 150, 100, True)
    _build_streams_join_that_should_throw(
        ks.StreamJoined.with_(STR, INT, INT).with_this_store_supplier(this)
        .with_other_store_supplier(other), windows,
        "Both StoreSuppliers have the same name.  StoreSuppliers must provide unique names")


def test_should_join_with_custom_store_suppliers():
    windows = ks.JoinWindows.of_time_difference_with_no_grace(100)
    retention = windows.size() + windows.grace_period_ms()
    this = ks.Stores.in_memory_window_store("in-memory-join-store", retention, windows.size(),
                                            True)
    other = ks.Stores.in_memory_window_store("in-memory-join-store-other", retention,
                                             windows.size(), True)
    stream_joined = ks.StreamJoined.with_(STR, INT, INT)
    _run_join(stream_joined.with_this_store_supplier(this).with_other_store_supplier(other),
              windows)
    _run_join(stream_joined.with_this_store_supplier(this), windows)
    _run_join(stream_joined.with_other_store_supplier(other), windows)


def test_should_join_with_non_timestamped_store():
    windows = ks.JoinWindows.of_time_difference_with_no_grace(100)
    _run_join(ks.StreamJoined.with_(STR, INT, INT), windows)
    builder, _ = _string_int_join(ks.StreamJoined.with_(STR, INT, INT), windows)
    stores = builder.build().state_stores
    for name in ("KSTREAM-JOINTHIS-0000000004-store", "KSTREAM-JOINOTHER-0000000005-store"):
        assert stores[name].supplier.timestamped is False


def test_should_throttle_emit_non_joined_outer_records_even_when_clock_drift():
    builder = ks.StreamsBuilder()
    left = builder.stream("left", ks.Consumed.with_(STR, STR))
    right = builder.stream("other", ks.Consumed.with_(STR, STR))
    left.outer_join(right, lambda v1, v2: f"{v1}{v2}",
                    ks.JoinWindows.of_time_difference_with_no_grace(1000),
                    ks.StreamJoined.with_(STR, STR, STR).with_store_name("s"))
    config = {**STREAMS_CONFIG,
              "__emit.interval.ms.kstreams.outer.join.spurious.results.fix__": 1000}
    with ks.TopologyTestDriver(builder.build(), config, initial_wall_clock_time=1000) as driver:
        other = driver.create_input_topic("other", STR, STR)
        outer = driver.get_state_store("s-outer-shared-join-store")
        other.pipe_input("key1", "value1", 10000)
        driver.advance_wall_clock_time(1100)
        other.pipe_input("key2", "value2", 13000)
        driver.advance_wall_clock_time(400)
        other.pipe_input("key3", "value3", 15000)
        # being throttled, so the older value still exists
        assert len(outer.items()) == 2
        driver.advance_wall_clock_time(1500)
        other.pipe_input("key4", "value4", 17000)
        assert len(outer.items()) == 1

def test_join():
    builder = ks.StreamsBuilder()

    expected_keys = [0, 1, 2, 3]

    supplier = MockApiProcessorSupplier()
    stream1 = builder.stream(TOPIC1, CONSUMED)
    stream2 = builder.stream(TOPIC2, CONSUMED)
    joined = stream1.join(stream2, tostring_joiner,
                          ks.JoinWindows.of_time_difference_with_no_grace(100), STREAM_JOINED)
    joined.process(supplier)

    copartition_groups = builder.build().copartition_groups()

    assert len(copartition_groups) == 1
    assert copartition_groups[0] == {TOPIC1, TOPIC2}

    with ks.TopologyTestDriver(builder.build(), STREAMS_CONFIG) as driver:
        input_topic1 = driver.create_input_topic(TOPIC1, INT, STR)
        input_topic2 = driver.create_input_topic(TOPIC2, INT, STR)
        processor = supplier.the_captured_processor()

        # push two items to the primary stream; the other window is empty
        for i in range(2):
            input_topic1.pipe_input(expected_keys[i], "A" + str(expected_keys[i]))
        processor.check_and_clear_process_result()

        # push two items to the other stream; this should produce two items
        for i in range(2):
            input_topic2.pipe_input(expected_keys[i], "a" + str(expected_keys[i]))
        processor.check_and_clear_process_result((0, "A0+a0", 0), (1, "A1+a1", 0))

        # push all four items to the primary stream; this should produce two items
        for expected_key in expected_keys:
            input_topic1.pipe_input(expected_key, "B" + str(expected_key))
        processor.check_and_clear_process_result((0, "B0+a0", 0), (1, "B1+a1", 0))

        # push all items to the other stream; this should produce six items
        for expected_key in expected_keys:
            input_topic2.pipe_input(expected_key, "b" + str(expected_key))
        processor.check_and_clear_process_result(
            (0, "A0+b0", 0),
            (0, "B0+b0", 0),
            (1, "A1+b1", 0),
            (1, "B1+b1", 0),
            (2, "B2+b2", 0),
            (3, "B3+b3", 0),
        )

        # push all four items to the primary stream; this should produce six items
        for expected_key in expected_keys:
            input_topic1.pipe_input(expected_key, "C" + str(expected_key))
        processor.check_and_clear_process_result(
            (0, "C0+a0", 0),
            (0, "C0+b0", 0),
            (1, "C1+a1", 0),
            (1, "C1+b1", 0),
            (2, "C2+b2", 0),
            (3, "C3+b3", 0),
        )

        # push two items to the other stream; this should produce six items
        for i in range(2):
            input_topic2.pipe_input(expected_keys[i], "c" + str(expected_keys[i]))
        processor.check_and_clear_process_result(
            (0, "A0+c0", 0),
            (0, "B0+c0", 0),
            (0, "C0+c0", 0),
            (1, "A1+c1", 0),
            (1, "B1+c1", 0),
            (1, "C1+c1", 0),
        )


def test_outer_join():
    builder = ks.StreamsBuilder()

    expected_keys = [0, 1, 2, 3]

    supplier = MockApiProcessorSupplier()

    stream1 = builder.stream(TOPIC1, CONSUMED)
    stream2 = builder.stream(TOPIC2, CONSUMED)
    joined = stream1.outer_join(stream2, tostring_joiner,
                                ks.JoinWindows.of_time_difference_and_grace(100, 24 * HOUR),
                                STREAM_JOINED)
    joined.process(supplier)
    copartition_groups = builder.build().copartition_groups()

    assert len(copartition_groups) == 1
    assert copartition_groups[0] == {TOPIC1, TOPIC2}

    with ks.TopologyTestDriver(builder.build(), STREAMS_CONFIG) as driver:
        input_topic1 = driver.create_input_topic(TOPIC1, INT, STR)
        input_topic2 = driver.create_input_topic(TOPIC2, INT, STR)
        processor = supplier.the_captured_processor()

        # push two items to the primary stream; the other window is empty; this should not produce
        for i in range(2):
            input_topic1.pipe_input(expected_keys[i], "A" + str(expected_keys[i]))
        processor.check_and_clear_process_result()

        # push two items to the other stream; this should produce two items
        for i in range(2):
            input_topic2.pipe_input(expected_keys[i], "a" + str(expected_keys[i]))
        processor.check_and_clear_process_result((0, "A0+a0", 0), (1, "A1+a1", 0))

        # push all four items to the primary stream; this should produce two items
        for expected_key in expected_keys:
            input_topic1.pipe_input(expected_key, "B" + str(expected_key))
        processor.check_and_clear_process_result((0, "B0+a0", 0), (1, "B1+a1", 0))

        # push all items to the other stream; this should produce six items
        for expected_key in expected_keys:
            input_topic2.pipe_input(expected_key, "b" + str(expected_key))
        processor.check_and_clear_process_result(
            (0, "A0+b0", 0),
            (0, "B0+b0", 0),
            (1, "A1+b1", 0),
            (1, "B1+b1", 0),
            (2, "B2+b2", 0),
            (3, "B3+b3", 0),
        )

        # push all four items to the primary stream; this should produce six items
        for expected_key in expected_keys:
            input_topic1.pipe_input(expected_key, "C" + str(expected_key))
        processor.check_and_clear_process_result(
            (0, "C0+a0", 0),
            (0, "C0+b0", 0),
            (1, "C1+a1", 0),
            (1, "C1+b1", 0),
            (2, "C2+b2", 0),
            (3, "C3+b3", 0),
        )

        # push two items to the other stream; this should produce six items
        for i in range(2):
            input_topic2.pipe_input(expected_keys[i], "c" + str(expected_keys[i]))
        processor.check_and_clear_process_result(
            (0, "A0+c0", 0),
            (0, "B0+c0", 0),
            (0, "C0+c0", 0),
            (1, "A1+c1", 0),
            (1, "B1+c1", 0),
            (1, "C1+c1", 0),
        )


def test_windowing():
    builder = ks.StreamsBuilder()

    expected_keys = [0, 1, 2, 3]

    supplier = MockApiProcessorSupplier()
    stream1 = builder.stream(TOPIC1, CONSUMED)
    stream2 = builder.stream(TOPIC2, CONSUMED)

    joined = stream1.join(stream2, tostring_joiner,
                          ks.JoinWindows.of_time_difference_with_no_grace(100), STREAM_JOINED)
    joined.process(supplier)

    copartition_groups = builder.build().copartition_groups()

    assert len(copartition_groups) == 1
    assert copartition_groups[0] == {TOPIC1, TOPIC2}

    with ks.TopologyTestDriver(builder.build(), STREAMS_CONFIG) as driver:
        input_topic1 = driver.create_input_topic(TOPIC1, INT, STR)
        input_topic2 = driver.create_input_topic(TOPIC2, INT, STR)
        processor = supplier.the_captured_processor()
        time = 0

        # push two items to the primary stream; the other window is empty; this should produce no i
        for i in range(2):
            input_topic1.pipe_input(expected_keys[i], "A" + str(expected_keys[i]), time)
        processor.check_and_clear_process_result()

        # push two items to the other stream; this should produce two items
        for i in range(2):
            input_topic2.pipe_input(expected_keys[i], "a" + str(expected_keys[i]), time)
        processor.check_and_clear_process_result((0, "A0+a0", 0), (1, "A1+a1", 0))

        # push four items to the primary stream with larger and increasing timestamp; this should p
        time = 1000
        for i in range(len(expected_keys)):
            input_topic1.pipe_input(expected_keys[i], "B" + str(expected_keys[i]), time + i)
        processor.check_and_clear_process_result()

        # push four items to the other stream with fixed larger timestamp; this should produce four
        time += 100
        for expected_key in expected_keys:
            input_topic2.pipe_input(expected_key, "b" + str(expected_key), time)
        processor.check_and_clear_process_result(
            (0, "B0+b0", 1100),
            (1, "B1+b1", 1100),
            (2, "B2+b2", 1100),
            (3, "B3+b3", 1100),
        )

        # push four items to the other stream with incremented timestamp; this should produce three
        time += 1
        for expected_key in expected_keys:
            input_topic2.pipe_input(expected_key, "c" + str(expected_key), time)
        processor.check_and_clear_process_result(
            (1, "B1+c1", 1101),
            (2, "B2+c2", 1101),
            (3, "B3+c3", 1101),
        )

        # push four items to the other stream with incremented timestamp; this should produce two i
        time += 1
        for expected_key in expected_keys:
            input_topic2.pipe_input(expected_key, "d" + str(expected_key), time)
        processor.check_and_clear_process_result((2, "B2+d2", 1102), (3, "B3+d3", 1102))

        # push four items to the other stream with incremented timestamp; this should produce one i
        time += 1
        for expected_key in expected_keys:
            input_topic2.pipe_input(expected_key, "e" + str(expected_key), time)
        processor.check_and_clear_process_result((3, "B3+e3", 1103))

        # push four items to the other stream with incremented timestamp; this should produce no it
        time += 1
        for expected_key in expected_keys:
            input_topic2.pipe_input(expected_key, "f" + str(expected_key), time)
        processor.check_and_clear_process_result()

        # push four items to the other stream with timestamp before the window bound; this should p
        time = 1000 - 100 - 1
        for expected_key in expected_keys:
            input_topic2.pipe_input(expected_key, "g" + str(expected_key), time)
        processor.check_and_clear_process_result()

        # push four items to the other stream with with incremented timestamp; this should produce
        time += 1
        for expected_key in expected_keys:
            input_topic2.pipe_input(expected_key, "h" + str(expected_key), time)
        processor.check_and_clear_process_result((0, "B0+h0", 1000))

        # push four items to the other stream with with incremented timestamp; this should produce
        time += 1
        for expected_key in expected_keys:
            input_topic2.pipe_input(expected_key, "i" + str(expected_key), time)
        processor.check_and_clear_process_result((0, "B0+i0", 1000), (1, "B1+i1", 1001))

        # push four items to the other stream with with incremented timestamp; this should produce
        time += 1
        for expected_key in expected_keys:
            input_topic2.pipe_input(expected_key, "j" + str(expected_key), time)
        processor.check_and_clear_process_result(
            (0, "B0+j0", 1000),
            (1, "B1+j1", 1001),
            (2, "B2+j2", 1002),
        )

        # push four items to the other stream with with incremented timestamp; this should produce
        time += 1
        for expected_key in expected_keys:
            input_topic2.pipe_input(expected_key, "k" + str(expected_key), time)
        processor.check_and_clear_process_result(
            (0, "B0+k0", 1000),
            (1, "B1+k1", 1001),
            (2, "B2+k2", 1002),
            (3, "B3+k3", 1003),
        )

        # advance time to not join with existing data
        time = 2000
        for i in range(len(expected_keys)):
            input_topic2.pipe_input(expected_keys[i], "l" + str(expected_keys[i]), time + i)
        processor.check_and_clear_process_result()

        # push four items with larger timestamps to the primary stream; this should produce four it
        time = 2000 + 100
        for expected_key in expected_keys:
            input_topic1.pipe_input(expected_key, "C" + str(expected_key), time)
        processor.check_and_clear_process_result(
            (0, "C0+l0", 2100),
            (1, "C1+l1", 2100),
            (2, "C2+l2", 2100),
            (3, "C3+l3", 2100),
        )

        # push four items with increase timestamps to the primary stream; this should produce three
        time += 1
        for expected_key in expected_keys:
            input_topic1.pipe_input(expected_key, "D" + str(expected_key), time)
        processor.check_and_clear_process_result(
            (1, "D1+l1", 2101),
            (2, "D2+l2", 2101),
            (3, "D3+l3", 2101),
        )

        # push four items with increase timestamps to the primary stream; this should produce two i
        time += 1
        for expected_key in expected_keys:
            input_topic1.pipe_input(expected_key, "E" + str(expected_key), time)
        processor.check_and_clear_process_result((2, "E2+l2", 2102), (3, "E3+l3", 2102))

        # push four items with increase timestamps to the primary stream; this should produce one i
        time += 1
        for expected_key in expected_keys:
            input_topic1.pipe_input(expected_key, "F" + str(expected_key), time)
        processor.check_and_clear_process_result((3, "F3+l3", 2103))

        # push four items with increase timestamps (now out of window) to the primary stream; this
        time += 1
        for expected_key in expected_keys:
            input_topic1.pipe_input(expected_key, "G" + str(expected_key), time)
        processor.check_and_clear_process_result()

        # push four items with smaller timestamps (before window) to the primary stream; this shoul
        time = 2000 - 100 - 1
        for expected_key in expected_keys:
            input_topic1.pipe_input(expected_key, "H" + str(expected_key), time)
        processor.check_and_clear_process_result()

        # push four items with increased timestamps to the primary stream; this should produce one
        time += 1
        for expected_key in expected_keys:
            input_topic1.pipe_input(expected_key, "I" + str(expected_key), time)
        processor.check_and_clear_process_result((0, "I0+l0", 2000))

        # push four items with increased timestamps to the primary stream; this should produce two
        time += 1
        for expected_key in expected_keys:
            input_topic1.pipe_input(expected_key, "J" + str(expected_key), time)
        processor.check_and_clear_process_result((0, "J0+l0", 2000), (1, "J1+l1", 2001))

        # push four items with increased timestamps to the primary stream; this should produce thre
        time += 1
        for expected_key in expected_keys:
            input_topic1.pipe_input(expected_key, "K" + str(expected_key), time)
        processor.check_and_clear_process_result(
            (0, "K0+l0", 2000),
            (1, "K1+l1", 2001),
            (2, "K2+l2", 2002),
        )

        # push four items with increased timestamps to the primary stream; this should produce four


def test_asymmetric_windowing_after():
    builder = ks.StreamsBuilder()

    expected_keys = [0, 1, 2, 3]

    supplier = MockApiProcessorSupplier()
    stream1 = builder.stream(TOPIC1, CONSUMED)
    stream2 = builder.stream(TOPIC2, CONSUMED)

    joined = stream1.join(stream2, tostring_joiner,
                          ks.JoinWindows.of_time_difference_with_no_grace(0).after(100),
                          STREAM_JOINED)
    joined.process(supplier)

    copartition_groups = builder.build().copartition_groups()

    assert len(copartition_groups) == 1
    assert copartition_groups[0] == {TOPIC1, TOPIC2}

    with ks.TopologyTestDriver(builder.build(), STREAMS_CONFIG) as driver:
        input_topic1 = driver.create_input_topic(TOPIC1, INT, STR)
        input_topic2 = driver.create_input_topic(TOPIC2, INT, STR)
        processor = supplier.the_captured_processor()
        time = 1000

        # push four items with increasing timestamps to the primary stream; the other window is emp
        for i in range(len(expected_keys)):
            input_topic1.pipe_input(expected_keys[i], "A" + str(expected_keys[i]), time + i)
        processor.check_and_clear_process_result()

        # push four items smaller timestamps (out of window) to the secondary stream; this should p
        time = 1000 - 1
        for expected_key in expected_keys:
            input_topic2.pipe_input(expected_key, "a" + str(expected_key), time)
        processor.check_and_clear_process_result()

        # push four items with increased timestamps to the secondary stream; this should produce on
        time += 1
        for expected_key in expected_keys:
            input_topic2.pipe_input(expected_key, "b" + str(expected_key), time)
        processor.check_and_clear_process_result((0, "A0+b0", 1000))

        # push four items with increased timestamps to the secondary stream; this should produce tw
        time += 1
        for expected_key in expected_keys:
            input_topic2.pipe_input(expected_key, "c" + str(expected_key), time)
        processor.check_and_clear_process_result((0, "A0+c0", 1001), (1, "A1+c1", 1001))

        # push four items with increased timestamps to the secondary stream; this should produce th
        time += 1
        for expected_key in expected_keys:
            input_topic2.pipe_input(expected_key, "d" + str(expected_key), time)
        processor.check_and_clear_process_result(
            (0, "A0+d0", 1002),
            (1, "A1+d1", 1002),
            (2, "A2+d2", 1002),
        )

        # push four items with increased timestamps to the secondary stream; this should produce fo
        time += 1
        for expected_key in expected_keys:
            input_topic2.pipe_input(expected_key, "e" + str(expected_key), time)
        processor.check_and_clear_process_result(
            (0, "A0+e0", 1003),
            (1, "A1+e1", 1003),
            (2, "A2+e2", 1003),
            (3, "A3+e3", 1003),
        )

        # push four items with larger timestamps to the secondary stream; this should produce four
        time = 1000 + 100
        for expected_key in expected_keys:
            input_topic2.pipe_input(expected_key, "f" + str(expected_key), time)
        processor.check_and_clear_process_result(
            (0, "A0+f0", 1100),
            (1, "A1+f1", 1100),
            (2, "A2+f2", 1100),
            (3, "A3+f3", 1100),
        )

        # push four items with increased timestamps to the secondary stream; this should produce th
        time += 1
        for expected_key in expected_keys:
            input_topic2.pipe_input(expected_key, "g" + str(expected_key), time)
        processor.check_and_clear_process_result(
            (1, "A1+g1", 1101),
            (2, "A2+g2", 1101),
            (3, "A3+g3", 1101),
        )

        # push four items with increased timestamps to the secondary stream; this should produce tw
        time += 1
        for expected_key in expected_keys:
            input_topic2.pipe_input(expected_key, "h" + str(expected_key), time)
        processor.check_and_clear_process_result((2, "A2+h2", 1102), (3, "A3+h3", 1102))

        # push four items with increased timestamps to the secondary stream; this should produce on
        time += 1
        for expected_key in expected_keys:
            input_topic2.pipe_input(expected_key, "i" + str(expected_key), time)
        processor.check_and_clear_process_result((3, "A3+i3", 1103))

        # push four items with increased timestamps (no out of window) to the secondary stream; thi
        time += 1
        for expected_key in expected_keys:
            input_topic2.pipe_input(expected_key, "j" + str(expected_key), time)
        processor.check_and_clear_process_result()


def test_asymmetric_windowing_before():
    builder = ks.StreamsBuilder()

    expected_keys = [0, 1, 2, 3]

    supplier = MockApiProcessorSupplier()

    stream1 = builder.stream(TOPIC1, CONSUMED)
    stream2 = builder.stream(TOPIC2, CONSUMED)

    joined = stream1.join(stream2, tostring_joiner,
                          ks.JoinWindows.of_time_difference_with_no_grace(0).before(100),
                          STREAM_JOINED)
    joined.process(supplier)

    copartition_groups = builder.build().copartition_groups()

    assert len(copartition_groups) == 1
    assert copartition_groups[0] == {TOPIC1, TOPIC2}

    with ks.TopologyTestDriver(builder.build(), STREAMS_CONFIG) as driver:
        input_topic1 = driver.create_input_topic(TOPIC1, INT, STR)
        input_topic2 = driver.create_input_topic(TOPIC2, INT, STR)
        processor = supplier.the_captured_processor()
        time = 1000

        # push four items with increasing timestamps to the primary stream; the other window is emp
        for i in range(len(expected_keys)):
            input_topic1.pipe_input(expected_keys[i], "A" + str(expected_keys[i]), time + i)
        processor.check_and_clear_process_result()

        # push four items with smaller timestamps (before the window) to the other stream; this sho
        time = 1000 - 100 - 1
        for expected_key in expected_keys:
            input_topic2.pipe_input(expected_key, "a" + str(expected_key), time)
        processor.check_and_clear_process_result()

        # push four items with increased timestamp to the other stream; this should produce one item
        time += 1
        for expected_key in expected_keys:
            input_topic2.pipe_input(expected_key, "b" + str(expected_key), time)
        processor.check_and_clear_process_result((0, "A0+b0", 1000))

        # push four items with increased timestamp to the other stream; this should produce two ite
        time += 1
        for expected_key in expected_keys:
            input_topic2.pipe_input(expected_key, "c" + str(expected_key), time)
        processor.check_and_clear_process_result((0, "A0+c0", 1000), (1, "A1+c1", 1001))

        # push four items with increased timestamp to the other stream; this should produce three i
        time += 1
        for expected_key in expected_keys:
            input_topic2.pipe_input(expected_key, "d" + str(expected_key), time)
        processor.check_and_clear_process_result(
            (0, "A0+d0", 1000),
            (1, "A1+d1", 1001),
            (2, "A2+d2", 1002),
        )

        # push four items with increased timestamp to the other stream; this should produce four it
        time += 1
        for expected_key in expected_keys:
            input_topic2.pipe_input(expected_key, "e" + str(expected_key), time)
        processor.check_and_clear_process_result(
            (0, "A0+e0", 1000),
            (1, "A1+e1", 1001),
            (2, "A2+e2", 1002),
            (3, "A3+e3", 1003),
        )

        # push four items with larger timestamp to the other stream; this should produce four items
        time = 1000
        for expected_key in expected_keys:
            input_topic2.pipe_input(expected_key, "f" + str(expected_key), time)
        processor.check_and_clear_process_result(
            (0, "A0+f0", 1000),
            (1, "A1+f1", 1001),
            (2, "A2+f2", 1002),
            (3, "A3+f3", 1003),
        )

        # push four items with increase timestamp to the other stream; this should produce three it
        time += 1
        for expected_key in expected_keys:
            input_topic2.pipe_input(expected_key, "g" + str(expected_key), time)
        processor.check_and_clear_process_result(
            (1, "A1+g1", 1001),
            (2, "A2+g2", 1002),
            (3, "A3+g3", 1003),
        )

        # push four items with increase timestamp to the other stream; this should produce two items
        time += 1
        for expected_key in expected_keys:
            input_topic2.pipe_input(expected_key, "h" + str(expected_key), time)
        processor.check_and_clear_process_result((2, "A2+h2", 1002), (3, "A3+h3", 1003))

        # push four items with increase timestamp to the other stream; this should produce one item
        time += 1
        for expected_key in expected_keys:
            input_topic2.pipe_input(expected_key, "i" + str(expected_key), time)
        processor.check_and_clear_process_result((3, "A3+i3", 1003))

        # push four items with increase timestamp (no out of window) to the other stream; this shou
        time += 1
        for expected_key in expected_keys:
            input_topic2.pipe_input(expected_key, "j" + str(expected_key), time)
        processor.check_and_clear_process_result()



EXPECTED_TOPOLOGY_WITH_USER_NAMED_REPARTITION_TOPICS = (
    'Topologies:\n'
    '   Sub-topology: 0\n'
    '    Source: KSTREAM-SOURCE-0000000000 (topics: [topic])\n'
    '      --> KSTREAM-MAP-0000000003\n'
    '    Processor: KSTREAM-MAP-0000000003 (stores: [])\n'
    '      --> second-join-left-repartition-filter, first-join-left-repartition-filter\n'
    '      <-- KSTREAM-SOURCE-0000000000\n'
    '    Processor: first-join-left-repartition-filter (stores: [])\n'
    '      --> first-join-left-repartition-sink\n'
    '      <-- KSTREAM-MAP-0000000003\n'
    '    Processor: second-join-left-repartition-filter (stores: [])\n'
    '      --> second-join-left-repartition-sink\n'
    '      <-- KSTREAM-MAP-0000000003\n'
    '    Sink: first-join-left-repartition-sink (topic: first-join-left-repartition)\n'
    '      <-- first-join-left-repartition-filter\n'
    '    Sink: second-join-left-repartition-sink (topic: second-join-left-repartition)\n'
    '      <-- second-join-left-repartition-filter\n'
    '\n'
    '  Sub-topology: 1\n'
    '    Source: KSTREAM-SOURCE-0000000001 (topics: [topic2])\n'
    '      --> first-join-other-windowed\n'
    '    Source: first-join-left-repartition-source (topics: [first-join-left-repartition])\n'
    '      --> first-join-this-windowed\n'
    '    Processor: first-join-other-windowed (stores: [KSTREAM-JOINOTHER-0000000010-store])\n'
    '      --> first-join-other-join\n'
    '      <-- KSTREAM-SOURCE-0000000001\n'
    '    Processor: first-join-this-windowed (stores: [KSTREAM-JOINTHIS-0000000009-store])\n'
    '      --> first-join-this-join\n'
    '      <-- first-join-left-repartition-source\n'
    '    Processor: first-join-other-join (stores: [KSTREAM-JOINTHIS-0000000009-store])\n'
    '      --> first-join-merge\n'
    '      <-- first-join-other-windowed\n'
    '    Processor: first-join-this-join (stores: [KSTREAM-JOINOTHER-0000000010-store])\n'
    '      --> first-join-merge\n'
    '      <-- first-join-this-windowed\n'
    '    Processor: first-join-merge (stores: [])\n'
    '      --> KSTREAM-SINK-0000000012\n'
    '      <-- first-join-this-join, first-join-other-join\n'
    '    Sink: KSTREAM-SINK-0000000012 (topic: out-one)\n'
    '      <-- first-join-merge\n'
    '\n'
    '  Sub-topology: 2\n'
    '    Source: KSTREAM-SOURCE-0000000002 (topics: [topic3])\n'
    '      --> second-join-other-windowed\n'
    '    Source: second-join-left-repartition-source (topics: [second-join-left-repartition])\n'
    '      --> second-join-this-windowed\n'
    '    Processor: second-join-other-windowed (stores: [KSTREAM-JOINOTHER-0000000019-store])\n'
    '      --> second-join-other-join\n'
    '      <-- KSTREAM-SOURCE-0000000002\n'
    '    Processor: second-join-this-windowed (stores: [KSTREAM-JOINTHIS-0000000018-store])\n'
    '      --> second-join-this-join\n'
    '      <-- second-join-left-repartition-source\n'
    '    Processor: second-join-other-join (stores: [KSTREAM-JOINTHIS-0000000018-store])\n'
    '      --> second-join-merge\n'
    '      <-- second-join-other-windowed\n'
    '    Processor: second-join-this-join (stores: [KSTREAM-JOINOTHER-0000000019-store])\n'
    '      --> second-join-merge\n'
    '      <-- second-join-this-windowed\n'
    '    Processor: second-join-merge (stores: [])\n'
    '      --> KSTREAM-SINK-0000000021\n'
    '      <-- second-join-this-join, second-join-other-join\n'
    '    Sink: KSTREAM-SINK-0000000021 (topic: out-two)\n'
    '      <-- second-join-merge\n'
    '\n'
)
EXPECTED_TOPOLOGY_WITH_GENERATED_REPARTITION_TOPIC = (
    'Topologies:\n'
    '   Sub-topology: 0\n'
    '    Source: KSTREAM-SOURCE-0000000000 (topics: [topic])\n'
    '      --> KSTREAM-MAP-0000000003\n'
    '    Processor: KSTREAM-MAP-0000000003 (stores: [])\n'
    '      --> KSTREAM-FILTER-0000000005\n'
    '      <-- KSTREAM-SOURCE-0000000000\n'
    '    Processor: KSTREAM-FILTER-0000000005 (stores: [])\n'
    '      --> KSTREAM-SINK-0000000004\n'
    '      <-- KSTREAM-MAP-0000000003\n'
    '    Sink: KSTREAM-SINK-0000000004 (topic: KSTREAM-MAP-0000000003-repartition)\n'
    '      <-- KSTREAM-FILTER-0000000005\n'
    '\n'
    '  Sub-topology: 1\n'
    '    Source: KSTREAM-SOURCE-0000000006 (topics: [KSTREAM-MAP-0000000003-repartition])\n'
    '      --> KSTREAM-WINDOWED-0000000007, KSTREAM-WINDOWED-0000000016\n'
    '    Source: KSTREAM-SOURCE-0000000001 (topics: [topic2])\n'
    '      --> KSTREAM-WINDOWED-0000000008\n'
    '    Source: KSTREAM-SOURCE-0000000002 (topics: [topic3])\n'
    '      --> KSTREAM-WINDOWED-0000000017\n'
    '    Processor: KSTREAM-WINDOWED-0000000007 (stores: [KSTREAM-JOINTHIS-0000000009-store])\n'
    '      --> KSTREAM-JOINTHIS-0000000009\n'
    '      <-- KSTREAM-SOURCE-0000000006\n'
    '    Processor: KSTREAM-WINDOWED-0000000008 (stores: [KSTREAM-JOINOTHER-0000000010-store])\n'
    '      --> KSTREAM-JOINOTHER-0000000010\n'
    '      <-- KSTREAM-SOURCE-0000000001\n'
    '    Processor: KSTREAM-WINDOWED-0000000016 (stores: [KSTREAM-JOINTHIS-0000000018-store])\n'
    '      --> KSTREAM-JOINTHIS-0000000018\n'
    '      <-- KSTREAM-SOURCE-0000000006\n'
    '    Processor: KSTREAM-WINDOWED-0000000017 (stores: [KSTREAM-JOINOTHER-0000000019-store])\n'
    '      --> KSTREAM-JOINOTHER-0000000019\n'
    '      <-- KSTREAM-SOURCE-0000000002\n'
    '    Processor: KSTREAM-JOINOTHER-0000000010 (stores: [KSTREAM-JOINTHIS-0000000009-store])\n'
    '      --> KSTREAM-MERGE-0000000011\n'
    '      <-- KSTREAM-WINDOWED-0000000008\n'
    '    Processor: KSTREAM-JOINOTHER-0000000019 (stores: [KSTREAM-JOINTHIS-0000000018-store])\n'
    '      --> KSTREAM-MERGE-0000000020\n'
    '      <-- KSTREAM-WINDOWED-0000000017\n'
    '    Processor: KSTREAM-JOINTHIS-0000000009 (stores: [KSTREAM-JOINOTHER-0000000010-store])\n'
    '      --> KSTREAM-MERGE-0000000011\n'
    '      <-- KSTREAM-WINDOWED-0000000007\n'
    '    Processor: KSTREAM-JOINTHIS-0000000018 (stores: [KSTREAM-JOINOTHER-0000000019-store])\n'
    '      --> KSTREAM-MERGE-0000000020\n'
    '      <-- KSTREAM-WINDOWED-0000000016\n'
    '    Processor: KSTREAM-MERGE-0000000011 (stores: [])\n'
    '      --> KSTREAM-SINK-0000000012\n'
    '      <-- KSTREAM-JOINTHIS-0000000009, KSTREAM-JOINOTHER-0000000010\n'
    '    Processor: KSTREAM-MERGE-0000000020 (stores: [])\n'
    '      --> KSTREAM-SINK-0000000021\n'
    '      <-- KSTREAM-JOINTHIS-0000000018, KSTREAM-JOINOTHER-0000000019\n'
    '    Sink: KSTREAM-SINK-0000000012 (topic: out-one)\n'
    '      <-- KSTREAM-MERGE-0000000011\n'
    '    Sink: KSTREAM-SINK-0000000021 (topic: out-to)\n'
    '      <-- KSTREAM-MERGE-0000000020\n'
    '\n'
)
