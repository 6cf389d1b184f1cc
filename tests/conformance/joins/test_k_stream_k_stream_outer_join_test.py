"""Kafka's ``KStreamKStreamOuterJoinTest``, translated to kslab's DSL and TopologyTestDriver.

Java's ``MockApiProcessorSupplier`` / ``MockValueJoiner.TOSTRING_JOINER`` are the helpers in
``_join_suppress_support``; ``KeyValueTimestamp(k, v, ts)`` is a ``(k, v, ts)`` tuple; Java's
private ``runOuterJoin`` / ``testUpperWindowBound`` / ``testLowerWindowBound`` are the private
helpers ``_run_outer_join`` / ``_upper_window_bound`` / ``_lower_window_bound``.

Skipped, deprecated API that kslab does not offer: ``testOuterJoinDuplicatesWithFixDisabledOldApi``
(``JoinWindows.of(...)`` / ``grace(...)``, which turn Kafka's spurious-result fix off).
``testShouldJoinWithNonTimestampedStore`` checks the default (RocksDB) store suppliers, which is
what Java's ``CapturingStoreSuppliers`` extends (kslab has no pluggable ``DslStoreSuppliers``).
"""

from __future__ import annotations

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
LONG = serdes.Long()
CONSUMED = ks.Consumed.with_(INT, STR)
CONSUMED2 = ks.Consumed.with_(INT, LONG)
STREAM_JOINED = ks.StreamJoined.with_(INT, STR, LONG)


def test_outer_join_duplicates():
    builder = ks.StreamsBuilder()

    supplier = MockApiProcessorSupplier()
    stream1 = builder.stream(TOPIC1, CONSUMED)
    stream2 = builder.stream(TOPIC2, CONSUMED2)

    joined = stream1.outer_join(stream2, tostring_joiner,
                                ks.JoinWindows.of_time_difference_and_grace(100, 10), STREAM_JOINED)
    joined.process(supplier)

    with ks.TopologyTestDriver(builder.build(), STREAMS_CONFIG) as driver:
        input_topic1 = driver.create_input_topic(TOPIC1, INT, STR)
        input_topic2 = driver.create_input_topic(TOPIC2, INT, LONG)
        processor = supplier.the_captured_processor()

        # verifies non-joined duplicates are emitted when window has closed
        input_topic1.pipe_input(0, "A0", 0)
        input_topic1.pipe_input(0, "A0-0", 0)
        input_topic2.pipe_input(1, 11, 0)
        input_topic2.pipe_input(1, 12, 0)
        input_topic2.pipe_input(1, 10, 111)
        # bump stream-time to trigger outer-join results
        input_topic2.pipe_input(3, 100, 211)

        processor.check_and_clear_process_result(
            (1, "null+11", 0),
            (1, "null+12", 0),
            (0, "A0+null", 0),
            (0, "A0-0+null", 0),
       )

        # verifies joined duplicates are emitted
        input_topic1.pipe_input(2, "A2", 200)
        input_topic1.pipe_input(2, "A2-0", 200)
        input_topic2.pipe_input(2, 13, 201)
        input_topic2.pipe_input(2, 14, 201)

        processor.check_and_clear_process_result(
            (2, "A2+13", 201),
            (2, "A2-0+13", 201),
            (2, "A2+14", 201),
            (2, "A2-0+14", 201),
       )

        # this record should expired non-joined records; only null+10 will be emitted because
        input_topic2.pipe_input(3, 100, 1500)

        processor.check_and_clear_process_result((1, "null+10", 111), (3, "null+100", 211))


def test_left_expired_non_joined_records_are_emitted_by_the_left_processor():
    builder = ks.StreamsBuilder()

    supplier = MockApiProcessorSupplier()

    stream1 = builder.stream(TOPIC1, CONSUMED)
    stream2 = builder.stream(TOPIC2, CONSUMED2)
    joined = stream1.outer_join(stream2, tostring_joiner,
                                ks.JoinWindows.of_time_difference_with_no_grace(100), STREAM_JOINED)
    joined.process(supplier)

    with ks.TopologyTestDriver(builder.build(), STREAMS_CONFIG) as driver:
        input_topic1 = driver.create_input_topic(TOPIC1, INT, STR)
        input_topic2 = driver.create_input_topic(TOPIC2, INT, LONG)
        processor = supplier.the_captured_processor()

        window_start = 0

        # No joins detected; No null-joins emitted
        input_topic1.pipe_input(0, "A0", window_start + 1)
        input_topic1.pipe_input(1, "A1", window_start + 2)
        input_topic1.pipe_input(0, "A0-0", window_start + 3)
        processor.check_and_clear_process_result()

        # Join detected; No null-joins emitted
        input_topic2.pipe_input(1, 11, window_start + 3)
        processor.check_and_clear_process_result((1, "A1+11", window_start + 3))

        # Dummy record in left topic will emit expired non-joined records from the left topic
        input_topic1.pipe_input(2, "dummy", window_start + 401)
        processor.check_and_clear_process_result(
            (0, "A0+null", window_start + 1),
            (0, "A0-0+null", window_start + 3),
       )

        # Flush internal non-joined state store by joining the dummy record
        input_topic2.pipe_input(2, 100, window_start + 401)
        processor.check_and_clear_process_result((2, "dummy+100", window_start + 401))


def test_left_expired_non_joined_records_are_emitted_by_the_right_processor():
    builder = ks.StreamsBuilder()

    supplier = MockApiProcessorSupplier()

    stream1 = builder.stream(TOPIC1, CONSUMED)
    stream2 = builder.stream(TOPIC2, CONSUMED2)
    joined = stream1.outer_join(stream2, tostring_joiner,
                                ks.JoinWindows.of_time_difference_and_grace(100, 0), STREAM_JOINED)
    joined.process(supplier)

    with ks.TopologyTestDriver(builder.build(), STREAMS_CONFIG) as driver:
        input_topic1 = driver.create_input_topic(TOPIC1, INT, STR)
        input_topic2 = driver.create_input_topic(TOPIC2, INT, LONG)
        processor = supplier.the_captured_processor()

        window_start = 0

        # No joins detected; No null-joins emitted
        input_topic1.pipe_input(0, "A0", window_start + 1)
        input_topic1.pipe_input(1, "A1", window_start + 2)
        input_topic1.pipe_input(0, "A0-0", window_start + 3)
        processor.check_and_clear_process_result()

        # Join detected; No null-joins emitted
        input_topic2.pipe_input(1, 11, window_start + 3)
        processor.check_and_clear_process_result((1, "A1+11", window_start + 3))

        # Dummy record in right topic will emit expired non-joined records from the left topic
        input_topic2.pipe_input(2, 100, window_start + 401)
        processor.check_and_clear_process_result(
            (0, "A0+null", window_start + 1),
            (0, "A0-0+null", window_start + 3),
       )

        # Flush internal non-joined state store by joining the dummy record
        input_topic1.pipe_input(2, "dummy", window_start + 402)
        processor.check_and_clear_process_result((2, "dummy+100", window_start + 402))


def test_right_expired_non_joined_records_are_emitted_by_the_left_processor():
    builder = ks.StreamsBuilder()

    supplier = MockApiProcessorSupplier()

    stream1 = builder.stream(TOPIC1, CONSUMED)
    stream2 = builder.stream(TOPIC2, CONSUMED2)
    joined = stream1.outer_join(stream2, tostring_joiner,
                                ks.JoinWindows.of_time_difference_with_no_grace(100), STREAM_JOINED)
    joined.process(supplier)

    with ks.TopologyTestDriver(builder.build(), STREAMS_CONFIG) as driver:
        input_topic1 = driver.create_input_topic(TOPIC1, INT, STR)
        input_topic2 = driver.create_input_topic(TOPIC2, INT, LONG)
        processor = supplier.the_captured_processor()

        window_start = 0

        # No joins detected; No null-joins emitted
        input_topic2.pipe_input(0, 10, window_start + 1)
        input_topic2.pipe_input(1, 11, window_start + 2)
        input_topic2.pipe_input(0, 12, window_start + 3)
        processor.check_and_clear_process_result()

        # Join detected; No null-joins emitted
        input_topic1.pipe_input(1, "A1", window_start + 3)
        processor.check_and_clear_process_result((1, "A1+11", window_start + 3))

        # Dummy record in left topic will emit expired non-joined records from the right topic
        input_topic1.pipe_input(2, "dummy", window_start + 401)
        processor.check_and_clear_process_result(
            (0, "null+10", window_start + 1),
            (0, "null+12", window_start + 3),
       )

        # Process the dummy joined record
        input_topic2.pipe_input(2, 100, window_start + 402)
        processor.check_and_clear_process_result((2, "dummy+100", window_start + 402))


def test_right_expired_non_joined_records_are_emitted_by_the_right_processor():
    builder = ks.StreamsBuilder()

    supplier = MockApiProcessorSupplier()

    stream1 = builder.stream(TOPIC1, CONSUMED)
    stream2 = builder.stream(TOPIC2, CONSUMED2)
    joined = stream1.outer_join(stream2, tostring_joiner,
                                ks.JoinWindows.of_time_difference_and_grace(100, 0), STREAM_JOINED)
    joined.process(supplier)

    with ks.TopologyTestDriver(builder.build(), STREAMS_CONFIG) as driver:
        input_topic1 = driver.create_input_topic(TOPIC1, INT, STR)
        input_topic2 = driver.create_input_topic(TOPIC2, INT, LONG)
        processor = supplier.the_captured_processor()

        window_start = 0

        # No joins detected; No null-joins emitted
        input_topic2.pipe_input(0, 10, window_start + 1)
        input_topic2.pipe_input(1, 11, window_start + 2)
        input_topic2.pipe_input(0, 12, window_start + 3)
        processor.check_and_clear_process_result()

        # Join detected; No null-joins emitted
        input_topic1.pipe_input(1, "A1", window_start + 3)
        processor.check_and_clear_process_result((1, "A1+11", window_start + 3))

        # Dummy record in right topic will emit expired non-joined records from the right topic
        input_topic2.pipe_input(2, 100, window_start + 401)
        processor.check_and_clear_process_result(
            (0, "null+10", window_start + 1),
            (0, "null+12", window_start + 3),
       )

        # Process the dummy joined record
        input_topic1.pipe_input(2, "dummy", window_start + 402)
        processor.check_and_clear_process_result((2, "dummy+100", window_start + 402))


def test_ordering():
    builder = ks.StreamsBuilder()

    supplier = MockApiProcessorSupplier()
    stream1 = builder.stream(TOPIC1, CONSUMED)
    stream2 = builder.stream(TOPIC2, CONSUMED2)

    joined = stream1.outer_join(stream2, tostring_joiner,
                                ks.JoinWindows.of_time_difference_with_no_grace(100), STREAM_JOINED)
    joined.process(supplier)

    with ks.TopologyTestDriver(builder.build(), STREAMS_CONFIG) as driver:
        input_topic1 = driver.create_input_topic(TOPIC1, INT, STR)
        input_topic2 = driver.create_input_topic(TOPIC2, INT, LONG)
        processor = supplier.the_captured_processor()

        # push two items to the primary stream; the other window is empty; this should not produce
        input_topic1.pipe_input(0, "A0", 0)
        input_topic1.pipe_input(1, "A1", 100)
        processor.check_and_clear_process_result()

        # push one item to the other window that has a join;
        input_topic2.pipe_input(1, 11, 110)
        processor.check_and_clear_process_result((0, "A0+null", 0), (1, "A1+11", 110))


def test_grace_period():
    builder = ks.StreamsBuilder()

    supplier = MockApiProcessorSupplier()
    stream1 = builder.stream(TOPIC1, CONSUMED)
    stream2 = builder.stream(TOPIC2, CONSUMED2)

    joined = stream1.outer_join(stream2, tostring_joiner,
                                ks.JoinWindows.of_time_difference_and_grace(100, 10), STREAM_JOINED)
    joined.process(supplier)

    copartition_groups = builder.build().copartition_groups()

    assert len(copartition_groups) == 1
    assert copartition_groups[0] == {TOPIC1, TOPIC2}

    with ks.TopologyTestDriver(builder.build(), STREAMS_CONFIG) as driver:
        input_topic1 = driver.create_input_topic(TOPIC1, INT, STR)
        input_topic2 = driver.create_input_topic(TOPIC2, INT, LONG)
        processor = supplier.the_captured_processor()

        # push one item to the primary stream; and one item in other stream; this should not produc
        input_topic1.pipe_input(0, "A0", 0)
        input_topic2.pipe_input(1, 11, 0)
        processor.check_and_clear_process_result()

        # push one item on each stream with a window time after the previous window ended (not clos
        input_topic1.pipe_input(1, "A1", 101)
        input_topic2.pipe_input(0, 10, 101)
        processor.check_and_clear_process_result()

        # push a 100 item to the any stream after the window is closed; this should produced all ex
        input_topic2.pipe_input(0, 100, 112)
        processor.check_and_clear_process_result((1, "null+11", 0), (0, "A0+null", 0))


def test_emit_all_non_joined_results_for_asymmetric_window():
    builder = ks.StreamsBuilder()

    supplier = MockApiProcessorSupplier()
    stream1 = builder.stream(TOPIC1, CONSUMED)
    stream2 = builder.stream(TOPIC2, CONSUMED2)

    joined = stream1.outer_join(stream2, tostring_joiner,
                                ks.JoinWindows.of_time_difference_with_no_grace(5).after(20),
                                STREAM_JOINED)
    joined.process(supplier)

    copartition_groups = builder.build().copartition_groups()

    assert len(copartition_groups) == 1
    assert copartition_groups[0] == {TOPIC1, TOPIC2}

    with ks.TopologyTestDriver(builder.build(), STREAMS_CONFIG) as driver:
        input_topic1 = driver.create_input_topic(TOPIC1, INT, STR)
        input_topic2 = driver.create_input_topic(TOPIC2, INT, LONG)
        processor = supplier.the_captured_processor()

        # push one item to the primary stream; this should not produce any items because there are
        input_topic1.pipe_input(0, "A0", 29)
        processor.check_and_clear_process_result()

        # push another item to the primary stream; this should not produce any items because there
        input_topic1.pipe_input(1, "A1", 30)
        processor.check_and_clear_process_result()

        # push one item to the other stream; this should not produce any items because there are no
        input_topic2.pipe_input(2, 12, 31)
        processor.check_and_clear_process_result()

        # push another item to the other stream; this should produce no inner joined-items because
        input_topic2.pipe_input(3, 13, 36)
        processor.check_and_clear_process_result()

        # push another item to the other stream; this should produce no inner joined-items because
        input_topic2.pipe_input(4, 14, 37)
        processor.check_and_clear_process_result((2, "null+12", 31))

        # push another item to the other stream; this should produce no inner joined-items because
        input_topic2.pipe_input(5, 15, 50)
        processor.check_and_clear_process_result(
            (0, "A0+null", 29),
            (3, "null+13", 36),
            (4, "null+14", 37),
       )


def test_outer_join_with_in_memory_custom_suppliers():
    join_windows = ks.JoinWindows.of_time_difference_with_no_grace(100)
    retention = join_windows.size() + join_windows.grace_period_ms()
    this_store_supplier = ks.Stores.in_memory_window_store(
        "in-memory-join-store", retention, join_windows.size(), True)
    other_store_supplier = ks.Stores.in_memory_window_store(
        "in-memory-join-store-other", retention, join_windows.size(), True)
    stream_joined = STREAM_JOINED
    _run_outer_join(stream_joined.with_this_store_supplier(this_store_supplier)
                    .with_other_store_supplier(other_store_supplier), join_windows)


def test_outer_join_with_default_suppliers():
    join_windows = ks.JoinWindows.of_time_difference_with_no_grace(100)
    stream_joined = STREAM_JOINED

    _run_outer_join(stream_joined, join_windows)


def _run_outer_join(stream_joined, join_windows):
    builder = ks.StreamsBuilder()

    expected_keys = [0, 1, 2, 3]

    supplier = MockApiProcessorSupplier()
    stream1 = builder.stream(TOPIC1, CONSUMED)
    stream2 = builder.stream(TOPIC2, CONSUMED2)

    joined = stream1.outer_join(stream2, tostring_joiner, join_windows, stream_joined)
    joined.process(supplier)

    copartition_groups = builder.build().copartition_groups()

    assert len(copartition_groups) == 1
    assert copartition_groups[0] == {TOPIC1, TOPIC2}

    with ks.TopologyTestDriver(builder.build(), STREAMS_CONFIG) as driver:
        input_topic1 = driver.create_input_topic(TOPIC1, INT, STR)
        input_topic2 = driver.create_input_topic(TOPIC2, INT, LONG)
        processor = supplier.the_captured_processor()

        # 2 window stores + 1 shared window store should be available
        assert len(driver.get_all_state_stores()) == 3

        # push two items to the primary stream; the other window is empty; this should not
        for i in range(2):
            input_topic1.pipe_input(expected_keys[i], "A" + str(expected_keys[i]))
        processor.check_and_clear_process_result()

        # push two items to the other stream; this should produce two full-joined items
        for i in range(2):
            input_topic2.pipe_input(expected_keys[i], expected_keys[i] + 10)
        processor.check_and_clear_process_result((0, "A0+10", 0), (1, "A1+11", 0))

        # push three items to the primary stream; this should produce two full-joined items
        for i in range(3):
            input_topic1.pipe_input(expected_keys[i], "B" + str(expected_keys[i]))
        processor.check_and_clear_process_result((0, "B0+10", 0), (1, "B1+11", 0))

        # push all items to the other stream; this should produce five full-joined items
        for expected_key in expected_keys:
            input_topic2.pipe_input(expected_key, expected_key + 20)
        processor.check_and_clear_process_result(
            (0, "A0+20", 0),
            (0, "B0+20", 0),
            (1, "A1+21", 0),
            (1, "B1+21", 0),
            (2, "B2+22", 0),
       )

        # push all four items to the primary stream; this should produce six full-joined items
        for expected_key in expected_keys:
            input_topic1.pipe_input(expected_key, "C" + str(expected_key))
        processor.check_and_clear_process_result(
            (0, "C0+10", 0),
            (0, "C0+20", 0),
            (1, "C1+11", 0),
            (1, "C1+21", 0),
            (2, "C2+22", 0),
            (3, "C3+23", 0),
       )

        # push a dummy record that should expire non-joined items; it should not produce any items
        input_topic1.pipe_input(0, "dummy", 400)
        processor.check_and_clear_process_result()


def test_windowing():
    builder = ks.StreamsBuilder()
    expected_keys = [0, 1, 2, 3]

    supplier = MockApiProcessorSupplier()
    stream1 = builder.stream(TOPIC1, CONSUMED)
    stream2 = builder.stream(TOPIC2, CONSUMED2)

    joined = stream1.outer_join(stream2, tostring_joiner,
                                ks.JoinWindows.of_time_difference_with_no_grace(100), STREAM_JOINED)
    joined.process(supplier)

    copartition_groups = builder.build().copartition_groups()

    assert len(copartition_groups) == 1
    assert copartition_groups[0] == {TOPIC1, TOPIC2}

    with ks.TopologyTestDriver(builder.build(), STREAMS_CONFIG) as driver:
        input_topic1 = driver.create_input_topic(TOPIC1, INT, STR)
        input_topic2 = driver.create_input_topic(TOPIC2, INT, LONG)
        processor = supplier.the_captured_processor()
        time = 0

        # push two items to the primary stream; the other window is empty; this should not produce
        for i in range(2):
            input_topic1.pipe_input(expected_keys[i], "A" + str(expected_keys[i]), time)
        processor.check_and_clear_process_result()

        # push four items to the other stream; this should produce two full-join items
        for expected_key in expected_keys:
            input_topic2.pipe_input(expected_key, expected_key + 10, time)
        processor.check_and_clear_process_result((0, "A0+10", 0), (1, "A1+11", 0))

        _upper_window_bound(expected_keys, driver, processor)
        _lower_window_bound(expected_keys, driver, processor)


def test_should_not_emit_left_join_result_for_asymmetric_before_window():
    builder = ks.StreamsBuilder()
    expected_keys = [0, 1, 2, 3]

    supplier = MockApiProcessorSupplier()
    stream1 = builder.stream(TOPIC1, CONSUMED)
    stream2 = builder.stream(TOPIC2, CONSUMED2)

    joined = stream1.outer_join(stream2, tostring_joiner,
                                ks.JoinWindows.of_time_difference_with_no_grace(100).before(0),
                                STREAM_JOINED)
    joined.process(supplier)

    with ks.TopologyTestDriver(builder.build(), STREAMS_CONFIG) as driver:
        input_topic1 = driver.create_input_topic(TOPIC1, INT, STR)
        input_topic2 = driver.create_input_topic(TOPIC2, INT, LONG)
        processor = supplier.the_captured_processor()
        time = 0

        # push two items to the primary stream; the other window is empty; this should not produce
        for i in range(2):
            input_topic1.pipe_input(expected_keys[i], "A" + str(expected_keys[i]), time + i)
        processor.check_and_clear_process_result()

        # push one item to the other stream; this should produce one full-join item
        time += 100
        input_topic2.pipe_input(expected_keys[0], expected_keys[0] + 10, time)

        processor.check_and_clear_process_result((0, "A0+10", 100))

        # push one item to the other stream; this should produce one left-join item
        time += 2
        input_topic2.pipe_input(expected_keys[1], expected_keys[1] + 10, time)

        processor.check_and_clear_process_result((1, "A1+null", 1))

        # push one item to the other stream; this should produce one right-join item
        time += 1
        input_topic2.pipe_input(expected_keys[2], expected_keys[2] + 10, time)

        processor.check_and_clear_process_result((1, "null+11", 102))

        # push one item to the first stream; this should not produce one full-join item
        input_topic1.pipe_input(expected_keys[2], "A" + str(expected_keys[2]), time)

        processor.check_and_clear_process_result((2, "A2+12", 103))


def test_should_not_emit_left_join_result_for_asymmetric_after_window():
    builder = ks.StreamsBuilder()
    expected_keys = [0, 1, 2, 3]

    supplier = MockApiProcessorSupplier()
    stream1 = builder.stream(TOPIC1, CONSUMED)
    stream2 = builder.stream(TOPIC2, CONSUMED2)

    joined = stream1.outer_join(stream2, tostring_joiner,
                                ks.JoinWindows.of_time_difference_with_no_grace(100).after(0),
                                STREAM_JOINED)
    joined.process(supplier)

    with ks.TopologyTestDriver(builder.build(), STREAMS_CONFIG) as driver:
        input_topic1 = driver.create_input_topic(TOPIC1, INT, STR)
        input_topic2 = driver.create_input_topic(TOPIC2, INT, LONG)
        processor = supplier.the_captured_processor()
        time = 0

        # push two items to the primary stream; the other window is empty;
        for i in range(2):
            input_topic1.pipe_input(expected_keys[i], "A" + str(expected_keys[i]), time + i)
        processor.check_and_clear_process_result((0, "A0+null", 0))

        # push one item to the other stream; this should produce one full-join item
        time += 1
        input_topic2.pipe_input(expected_keys[1], expected_keys[1] + 10, time)

        processor.check_and_clear_process_result((1, "A1+11", 1))

        # push one item to the other stream;
        time += 100
        input_topic2.pipe_input(expected_keys[2], expected_keys[2] + 10, time)

        processor.check_and_clear_process_result()

        # push one item to the other stream; this should not produce any item
        input_topic2.pipe_input(expected_keys[3], expected_keys[3] + 10, time)

        processor.check_and_clear_process_result()

        # push one item to the first stream;
        time += 100
        input_topic1.pipe_input(expected_keys[2], "A" + str(expected_keys[2]), time)

        processor.check_and_clear_process_result((2, "A2+12", 201))


def test_should_forward_current_headers():
    builder = ks.StreamsBuilder()

    supplier = MockApiProcessorSupplier()
    stream1 = builder.stream(TOPIC1, CONSUMED)
    stream2 = builder.stream(TOPIC2, CONSUMED2)

    joined = stream1.outer_join(stream2, tostring_joiner,
                                ks.JoinWindows.of_time_difference_and_grace(100, 10), STREAM_JOINED)
    joined.process(supplier)

    with ks.TopologyTestDriver(builder.build(), STREAMS_CONFIG) as driver:
        input_topic1 = driver.create_input_topic(TOPIC1, INT, STR)
        input_topic2 = driver.create_input_topic(TOPIC2, INT, LONG)
        processor = supplier.the_captured_processor()

        input_topic1.pipe_input(0, "A0", 0, _headers(0x1))
        input_topic2.pipe_input(1, 10, 0, _headers(0x2))
        # bump stream-time to trigger outer-join results
        input_topic2.pipe_input(3, 100, 211, _headers(0x3))

        # Again, header forwarding is undefined, but the current observed behavior is that
        # the headers pass through the forwarding record.
        processor.check_and_clear_processed_records(
            ks.Record(1, "null+10", 0, _headers(0x3)),
            ks.Record(0, "A0+null", 0, _headers(0x3)),
        )

        # verifies joined duplicates are emitted
        input_topic1.pipe_input(2, "A2", 200, _headers(0x4))
        input_topic2.pipe_input(2, 12, 200, _headers(0x5))

        processor.check_and_clear_processed_records(ks.Record(2, "A2+12", 200, _headers(0x5)))


def _headers(byte):
    return ks.Headers([("h", bytes([byte]))])


def _upper_window_bound(expected_keys, driver, processor):

    input_topic1 = driver.create_input_topic(TOPIC1, INT, STR)
    input_topic2 = driver.create_input_topic(TOPIC2, INT, LONG)

    # push four items with larger and increasing timestamp (out of window) to the other stream; thi
    time = 1000
    for i in range(len(expected_keys)):
        input_topic2.pipe_input(expected_keys[i], expected_keys[i] + 20, time + i)
    processor.check_and_clear_process_result((2, "null+12", 0), (3, "null+13", 0))

    # push four items with larger timestamp to the primary stream; this should produce four full-jo
    time = 1000 + 100
    for expected_key in expected_keys:
        input_topic1.pipe_input(expected_key, "B" + str(expected_key), time)
    processor.check_and_clear_process_result(
        (0, "B0+20", 1100),
        (1, "B1+21", 1100),
        (2, "B2+22", 1100),
        (3, "B3+23", 1100),
   )

    # push four items with increased timestamp to the primary stream; this should produce three ful
    time += 1
    for expected_key in expected_keys:
        input_topic1.pipe_input(expected_key, "C" + str(expected_key), time)
    processor.check_and_clear_process_result(
        (1, "C1+21", 1101),
        (2, "C2+22", 1101),
        (3, "C3+23", 1101),
   )

    # push four items with increased timestamp to the primary stream; this should produce two full-
    time += 1
    for expected_key in expected_keys:
        input_topic1.pipe_input(expected_key, "D" + str(expected_key), time)
    processor.check_and_clear_process_result((2, "D2+22", 1102), (3, "D3+23", 1102))

    # push four items with increased timestamp to the primary stream; this should produce one full-
    time += 1
    for expected_key in expected_keys:
        input_topic1.pipe_input(expected_key, "E" + str(expected_key), time)
    processor.check_and_clear_process_result((3, "E3+23", 1103))

    # push four items with increased timestamp to the primary stream; this should produce no full-j
    time += 1
    for expected_key in expected_keys:
        input_topic1.pipe_input(expected_key, "F" + str(expected_key), time)
    processor.check_and_clear_process_result()

    # push a dummy record to produce all left-join non-joined items
    time += 301
    input_topic1.pipe_input(0, "dummy", time)
    processor.check_and_clear_process_result(
        (0, "C0+null", 1101),
        (0, "D0+null", 1102),
        (1, "D1+null", 1102),
        (0, "E0+null", 1103),
        (1, "E1+null", 1103),
        (2, "E2+null", 1103),
        (0, "F0+null", 1104),
        (1, "F1+null", 1104),
        (2, "F2+null", 1104),
        (3, "F3+null", 1104),
   )


def _lower_window_bound(expected_keys, driver, processor):
    input_topic1 = driver.create_input_topic(TOPIC1, INT, STR)

    # push four items with smaller timestamp (before the window) to the primary stream; this should
    time = 1000 - 100 - 1
    for expected_key in expected_keys:
        input_topic1.pipe_input(expected_key, "G" + str(expected_key), time)
    processor.check_and_clear_process_result(
        (0, "G0+null", 899),
        (1, "G1+null", 899),
        (2, "G2+null", 899),
        (3, "G3+null", 899),
   )

    # push four items with increase timestamp to the primary stream; this should produce three left
    time += 1
    for expected_key in expected_keys:
        input_topic1.pipe_input(expected_key, "H" + str(expected_key), time)
    processor.check_and_clear_process_result(
        (0, "H0+20", 1000),
        (1, "H1+null", 900),
        (2, "H2+null", 900),
        (3, "H3+null", 900),
   )

    # push four items with increase timestamp to the primary stream; this should produce two left-j
    time += 1
    for expected_key in expected_keys:
        input_topic1.pipe_input(expected_key, "I" + str(expected_key), time)
    processor.check_and_clear_process_result(
        (0, "I0+20", 1000),
        (1, "I1+21", 1001),
        (2, "I2+null", 901),
        (3, "I3+null", 901),
   )

    # push four items with increase timestamp to the primary stream; this should produce one left-j
    time += 1
    for expected_key in expected_keys:
        input_topic1.pipe_input(expected_key, "J" + str(expected_key), time)
    processor.check_and_clear_process_result(
        (0, "J0+20", 1000),
        (1, "J1+21", 1001),
        (2, "J2+22", 1002),
        (3, "J3+null", 902),
   )

    # push four items with increase timestamp to the primary stream; this should produce one left-j
    time += 1
    for expected_key in expected_keys:
        input_topic1.pipe_input(expected_key, "K" + str(expected_key), time)
    processor.check_and_clear_process_result(
        (0, "K0+20", 1000),
        (1, "K1+21", 1001),
        (2, "K2+22", 1002),
        (3, "K3+23", 1003),
   )

    # push a dummy record to verify there are no expired records to produce
    input_topic1.pipe_input(0, "dummy", time + 200)
    processor.check_and_clear_process_result((0, "dummy+null", 1103))


def test_should_join_with_non_timestamped_store():
    builder = ks.StreamsBuilder()
    supplier = MockApiProcessorSupplier()
    stream1 = builder.stream(TOPIC1, CONSUMED)
    stream2 = builder.stream(TOPIC2, CONSUMED)
    joined = stream1.outer_join(stream2, tostring_joiner,
                                ks.JoinWindows.of_time_difference_with_no_grace(100),
                                STREAM_JOINED)
    joined.process(supplier)
    stores = builder.build().state_stores
    for name in ("KSTREAM-OUTERTHIS-0000000004-store", "KSTREAM-OUTEROTHER-0000000005-store"):
        assert stores[name].supplier.timestamped is False
