"""Kafka's ``KStreamKStreamLeftJoinTest``, translated to kslab's DSL and TopologyTestDriver.

Java's ``MockApiProcessorSupplier`` / ``MockValueJoiner.TOSTRING_JOINER`` are the helpers in
``_join_suppress_support``; ``KeyValueTimestamp(k, v, ts)`` is a ``(k, v, ts)`` tuple; Java's
private ``runLeftJoin`` / ``testUpperWindowBound`` / ``testLowerWindowBound`` are the private
helpers ``_run_left_join`` / ``_upper_window_bound`` / ``_lower_window_bound``.

Skipped, deprecated API that kslab does not offer:
``testLeftJoinWithSpuriousResultFixDisabledOldApi``
and ``testLeftJoinDuplicatesWithSpuriousResultFixDisabledOldApi`` (``JoinWindows.of(...)`` /
``grace(...)``, which turn Kafka's spurious-result fix off).
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
CONSUMED = ks.Consumed.with_(INT, STR)
STREAM_JOINED = ks.StreamJoined.with_(INT, STR, STR)


def test_left_join_duplicates():
    builder = ks.StreamsBuilder()

    supplier = MockApiProcessorSupplier()
    stream1 = builder.stream(TOPIC1, CONSUMED)
    stream2 = builder.stream(TOPIC2, CONSUMED)

    joined = stream1.left_join(stream2, tostring_joiner,
                               ks.JoinWindows.of_time_difference_and_grace(100, 10), STREAM_JOINED)
    joined.process(supplier)

    with ks.TopologyTestDriver(builder.build(), STREAMS_CONFIG) as driver:
        input_topic1 = driver.create_input_topic(TOPIC1, INT, STR)
        input_topic2 = driver.create_input_topic(TOPIC2, INT, STR)
        processor = supplier.the_captured_processor()

        # verifies non-joined duplicates are emitted when window has closed
        input_topic1.pipe_input(0, "A0", 0)
        input_topic1.pipe_input(0, "A0-0", 0)
        input_topic2.pipe_input(1, "a0", 111)
        # bump stream-time to trigger left-join results
        input_topic2.pipe_input(2, "dummy", 500)

        processor.check_and_clear_process_result((0, "A0+null", 0), (0, "A0-0+null", 0))

        # verifies joined duplicates are emitted
        input_topic1.pipe_input(2, "A2", 1000)
        input_topic1.pipe_input(2, "A2-0", 1000)
        input_topic2.pipe_input(2, "a2", 1001)

        processor.check_and_clear_process_result((2, "A2+a2", 1001), (2, "A2-0+a2", 1001))

        # this record should expired non-joined records, but because A2 and A2-0 are joined and
        input_topic2.pipe_input(3, "a3", 315)

        processor.check_and_clear_process_result()


def test_left_expired_non_joined_records_are_emitted_by_the_left_processor():
    builder = ks.StreamsBuilder()

    supplier = MockApiProcessorSupplier()

    stream1 = builder.stream(TOPIC1, CONSUMED)
    stream2 = builder.stream(TOPIC2, CONSUMED)
    joined = stream1.left_join(stream2, tostring_joiner,
                               ks.JoinWindows.of_time_difference_and_grace(100, 0), STREAM_JOINED)
    joined.process(supplier)

    with ks.TopologyTestDriver(builder.build(), STREAMS_CONFIG) as driver:
        input_topic1 = driver.create_input_topic(TOPIC1, INT, STR)
        input_topic2 = driver.create_input_topic(TOPIC2, INT, STR)
        processor = supplier.the_captured_processor()

        window_start = 0

        # No joins detected; No null-joins emitted
        input_topic1.pipe_input(0, "A0", window_start + 1)
        input_topic1.pipe_input(1, "A1", window_start + 2)
        input_topic1.pipe_input(0, "A0-0", window_start + 3)
        processor.check_and_clear_process_result()

        # Join detected; No null-joins emitted
        input_topic2.pipe_input(1, "a1", window_start + 3)
        processor.check_and_clear_process_result((1, "A1+a1", window_start + 3))

        # Dummy record in left topic will emit expired non-joined records from the left topic
        input_topic1.pipe_input(2, "dummy", window_start + 401)
        processor.check_and_clear_process_result(
            (0, "A0+null", window_start + 1),
            (0, "A0-0+null", window_start + 3),
        )

        # Flush internal non-joined state store by joining the dummy record
        input_topic2.pipe_input(2, "dummy", window_start + 401)
        processor.check_and_clear_process_result((2, "dummy+dummy", window_start + 401))


def test_left_expired_non_joined_records_are_emitted_by_the_right_processor():
    builder = ks.StreamsBuilder()

    supplier = MockApiProcessorSupplier()

    stream1 = builder.stream(TOPIC1, CONSUMED)
    stream2 = builder.stream(TOPIC2, CONSUMED)
    joined = stream1.left_join(stream2, tostring_joiner,
                               ks.JoinWindows.of_time_difference_and_grace(100, 0), STREAM_JOINED)
    joined.process(supplier)

    with ks.TopologyTestDriver(builder.build(), STREAMS_CONFIG) as driver:
        input_topic1 = driver.create_input_topic(TOPIC1, INT, STR)
        input_topic2 = driver.create_input_topic(TOPIC2, INT, STR)
        processor = supplier.the_captured_processor()

        window_start = 0

        # No joins detected; No null-joins emitted
        input_topic1.pipe_input(0, "A0", window_start + 1)
        input_topic1.pipe_input(1, "A1", window_start + 2)
        input_topic1.pipe_input(0, "A0-0", window_start + 3)
        processor.check_and_clear_process_result()

        # Join detected; No null-joins emitted
        input_topic2.pipe_input(1, "a1", window_start + 3)
        processor.check_and_clear_process_result((1, "A1+a1", window_start + 3))

        # Dummy record in right topic will emit expired non-joined records from the left topic
        input_topic2.pipe_input(2, "dummy", window_start + 401)
        processor.check_and_clear_process_result(
            (0, "A0+null", window_start + 1),
            (0, "A0-0+null", window_start + 3),
        )

        # Flush internal non-joined state store by joining the dummy record
        input_topic1.pipe_input(2, "dummy", window_start + 402)
        processor.check_and_clear_process_result((2, "dummy+dummy", window_start + 402))


def test_right_non_joined_records_are_never_emitted_by_the_left_processor():
    builder = ks.StreamsBuilder()

    supplier = MockApiProcessorSupplier()

    stream1 = builder.stream(TOPIC1, CONSUMED)
    stream2 = builder.stream(TOPIC2, CONSUMED)
    joined = stream1.left_join(stream2, tostring_joiner,
                               ks.JoinWindows.of_time_difference_and_grace(100, 0), STREAM_JOINED)
    joined.process(supplier)

    with ks.TopologyTestDriver(builder.build(), STREAMS_CONFIG) as driver:
        input_topic1 = driver.create_input_topic(TOPIC1, INT, STR)
        input_topic2 = driver.create_input_topic(TOPIC2, INT, STR)
        processor = supplier.the_captured_processor()

        window_start = 0

        # No joins detected; No null-joins emitted
        input_topic2.pipe_input(0, "A0", window_start + 1)
        input_topic2.pipe_input(1, "A1", window_start + 2)
        input_topic2.pipe_input(0, "A0-0", window_start + 3)
        processor.check_and_clear_process_result()

        # Join detected; No null-joins emitted
        input_topic1.pipe_input(1, "a1", window_start + 3)
        processor.check_and_clear_process_result((1, "a1+A1", window_start + 3))

        # Dummy record in left topic will not emit records
        input_topic1.pipe_input(2, "dummy", window_start + 401)
        processor.check_and_clear_process_result()

        # Process the dummy joined record
        input_topic2.pipe_input(2, "dummy", window_start + 402)
        processor.check_and_clear_process_result((2, "dummy+dummy", window_start + 402))


def test_right_non_joined_records_are_never_emitted_by_the_right_processor():
    builder = ks.StreamsBuilder()

    supplier = MockApiProcessorSupplier()

    stream1 = builder.stream(TOPIC1, CONSUMED)
    stream2 = builder.stream(TOPIC2, CONSUMED)
    joined = stream1.left_join(stream2, tostring_joiner,
                               ks.JoinWindows.of_time_difference_with_no_grace(100), STREAM_JOINED)
    joined.process(supplier)

    with ks.TopologyTestDriver(builder.build(), STREAMS_CONFIG) as driver:
        input_topic1 = driver.create_input_topic(TOPIC1, INT, STR)
        input_topic2 = driver.create_input_topic(TOPIC2, INT, STR)
        processor = supplier.the_captured_processor()

        window_start = 0

        # No joins detected; No null-joins emitted
        input_topic2.pipe_input(0, "A0", window_start + 1)
        input_topic2.pipe_input(1, "A1", window_start + 2)
        input_topic2.pipe_input(0, "A0-0", window_start + 3)
        processor.check_and_clear_process_result()

        # Join detected; No null-joins emitted
        input_topic1.pipe_input(1, "a1", window_start + 3)
        processor.check_and_clear_process_result((1, "a1+A1", window_start + 3))

        # Dummy record in right topic will not emit records
        input_topic2.pipe_input(2, "dummy", window_start + 401)
        processor.check_and_clear_process_result()

        # Process the dummy joined record
        input_topic1.pipe_input(2, "dummy", window_start + 402)
        processor.check_and_clear_process_result((2, "dummy+dummy", window_start + 402))


def test_left_joined_records_with_zero_after_are_emitted():
    builder = ks.StreamsBuilder()

    expected_keys = [0, 1, 2, 3]

    supplier = MockApiProcessorSupplier()
    stream1 = builder.stream(TOPIC1, CONSUMED)
    stream2 = builder.stream(TOPIC2, CONSUMED)

    joined = stream1.left_join(stream2, tostring_joiner,
                               ks.JoinWindows.of_time_difference_with_no_grace(100).after(0),
                               STREAM_JOINED)
    joined.process(supplier)

    copartition_groups = builder.build().copartition_groups()

    assert len(copartition_groups) == 1
    assert copartition_groups[0] == {TOPIC1, TOPIC2}

    with ks.TopologyTestDriver(builder.build(), STREAMS_CONFIG) as driver:
        input_topic1 = driver.create_input_topic(TOPIC1, INT, STR)
        input_topic2 = driver.create_input_topic(TOPIC2, INT, STR)
        processor = supplier.the_captured_processor()

        processor.init(None)

        # push four items with increasing timestamps to the primary stream; the other window is emp
        time = 1000
        for i in range(len(expected_keys)):
            input_topic1.pipe_input(expected_keys[i], "A" + str(expected_keys[i]), time + i)
        processor.check_and_clear_process_result(
            (0, "A0+null", 1000),
            (1, "A1+null", 1001),
            (2, "A2+null", 1002),
        )

        # push four items smaller timestamps (out of window) to the secondary stream;
        time = 1000 - 1
        for expected_key in expected_keys:
            input_topic2.pipe_input(expected_key, "a" + str(expected_key), time)
        processor.check_and_clear_process_result(
            (0, "A0+a0", 1000),
            (1, "A1+a1", 1001),
            (2, "A2+a2", 1002),
            (3, "A3+a3", 1003),
        )

        # push four items with increased timestamps to the secondary stream;
        time += 1
        for expected_key in expected_keys:
            input_topic2.pipe_input(expected_key, "b" + str(expected_key), time)
        processor.check_and_clear_process_result(
            (0, "A0+b0", 1000),
            (1, "A1+b1", 1001),
            (2, "A2+b2", 1002),
            (3, "A3+b3", 1003),
        )

        # push four items with increased timestamps to the secondary stream;
        time += 1
        for expected_key in expected_keys:
            input_topic2.pipe_input(expected_key, "c" + str(expected_key), time)
        processor.check_and_clear_process_result(
            (1, "A1+c1", 1001),
            (2, "A2+c2", 1002),
            (3, "A3+c3", 1003),
        )

        # push four items with increased timestamps to the secondary stream;
        time += 1
        for expected_key in expected_keys:
            input_topic2.pipe_input(expected_key, "d" + str(expected_key), time)
        processor.check_and_clear_process_result((2, "A2+d2", 1002), (3, "A3+d3", 1003))

        # push four items with increased timestamps to the secondary stream;
        time += 1
        for expected_key in expected_keys:
            input_topic2.pipe_input(expected_key, "e" + str(expected_key), time)
        processor.check_and_clear_process_result((3, "A3+e3", 1003))

        # push four items with larger timestamps to the secondary stream;
        time = 1000 + 100
        for expected_key in expected_keys:
            input_topic2.pipe_input(expected_key, "f" + str(expected_key), time)
        processor.check_and_clear_process_result()


def test_left_join_with_in_memory_custom_suppliers():
    join_windows = ks.JoinWindows.of_time_difference_and_grace(100, 0)
    retention = join_windows.size() + join_windows.grace_period_ms()
    this_store_supplier = ks.Stores.in_memory_window_store(
        "in-memory-join-store", retention, join_windows.size(), True)
    other_store_supplier = ks.Stores.in_memory_window_store(
        "in-memory-join-store-other", retention, join_windows.size(), True)
    stream_joined = STREAM_JOINED
    _run_left_join(stream_joined.with_this_store_supplier(this_store_supplier)
                   .with_other_store_supplier(other_store_supplier), join_windows)


def test_left_join_with_default_suppliers():
    join_windows = ks.JoinWindows.of_time_difference_with_no_grace(100)
    stream_joined = STREAM_JOINED

    _run_left_join(stream_joined, join_windows)


def _run_left_join(stream_joined, join_windows):
    builder = ks.StreamsBuilder()

    expected_keys = [0, 1, 2, 3]

    supplier = MockApiProcessorSupplier()
    stream1 = builder.stream(TOPIC1, CONSUMED)
    stream2 = builder.stream(TOPIC2, CONSUMED)

    joined = stream1.left_join(stream2, tostring_joiner, join_windows, stream_joined)
    joined.process(supplier)

    copartition_groups = builder.build().copartition_groups()

    assert len(copartition_groups) == 1
    assert copartition_groups[0] == {TOPIC1, TOPIC2}

    with ks.TopologyTestDriver(builder.build(), STREAMS_CONFIG) as driver:
        input_topic1 = driver.create_input_topic(TOPIC1, INT, STR)
        input_topic2 = driver.create_input_topic(TOPIC2, INT, STR)
        processor = supplier.the_captured_processor()

        # 2 window stores + 1 shared window store should be available
        assert len(driver.get_all_state_stores()) == 3

        # push two items to the primary stream; the other window is empty
        for i in range(2):
            input_topic1.pipe_input(expected_keys[i], "A" + str(expected_keys[i]))
        processor.check_and_clear_process_result()

        # push two items to the other stream; this should produce two items
        for i in range(2):
            input_topic2.pipe_input(expected_keys[i], "a" + str(expected_keys[i]))
        processor.check_and_clear_process_result((0, "A0+a0", 0), (1, "A1+a1", 0))

        # push three items to the primary stream; this should produce two joined items
        for i in range(3):
            input_topic1.pipe_input(expected_keys[i], "B" + str(expected_keys[i]))
        processor.check_and_clear_process_result((0, "B0+a0", 0), (1, "B1+a1", 0))

        # push all items to the other stream; this should produce five items
        for expected_key in expected_keys:
            input_topic2.pipe_input(expected_key, "b" + str(expected_key))
        processor.check_and_clear_process_result(
            (0, "A0+b0", 0),
            (0, "B0+b0", 0),
            (1, "A1+b1", 0),
            (1, "B1+b1", 0),
            (2, "B2+b2", 0),
        )

        # push all four items to the primary stream; this should produce six joined items
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

        # push a dummy record that should expire non-joined items; it should not produce any items
        input_topic1.pipe_input(0, "dummy", 1000)
        processor.check_and_clear_process_result()


def test_ordering():
    builder = ks.StreamsBuilder()

    supplier = MockApiProcessorSupplier()
    stream1 = builder.stream(TOPIC1, CONSUMED)
    stream2 = builder.stream(TOPIC2, CONSUMED)

    joined = stream1.left_join(stream2, tostring_joiner,
                               ks.JoinWindows.of_time_difference_with_no_grace(100), STREAM_JOINED)
    joined.process(supplier)

    with ks.TopologyTestDriver(builder.build(), STREAMS_CONFIG) as driver:
        input_topic1 = driver.create_input_topic(TOPIC1, INT, STR)
        input_topic2 = driver.create_input_topic(TOPIC2, INT, STR)
        processor = supplier.the_captured_processor()

        # push two items to the primary stream; the other window is empty; this should not produce
        input_topic1.pipe_input(0, "A0", 0)
        input_topic1.pipe_input(1, "A1", 100)
        processor.check_and_clear_process_result()

        # push one item to the other window that has a join;
        input_topic2.pipe_input(1, "a1", 110)
        processor.check_and_clear_process_result((0, "A0+null", 0), (1, "A1+a1", 110))


def test_grace_period():
    builder = ks.StreamsBuilder()
    expected_keys = [0, 1, 2, 3]

    supplier = MockApiProcessorSupplier()
    stream1 = builder.stream(TOPIC1, CONSUMED)
    stream2 = builder.stream(TOPIC2, CONSUMED)

    joined = stream1.left_join(stream2, tostring_joiner,
                               ks.JoinWindows.of_time_difference_and_grace(100, 10), STREAM_JOINED)
    joined.process(supplier)

    copartition_groups = builder.build().copartition_groups()

    assert len(copartition_groups) == 1
    assert copartition_groups[0] == {TOPIC1, TOPIC2}

    with ks.TopologyTestDriver(builder.build(), STREAMS_CONFIG) as driver:
        input_topic1 = driver.create_input_topic(TOPIC1, INT, STR)
        input_topic2 = driver.create_input_topic(TOPIC2, INT, STR)
        processor = supplier.the_captured_processor()

        # push two items to the primary stream; the other window is empty; this should not produce
        time = 0
        for i in range(2):
            input_topic1.pipe_input(expected_keys[i], "A" + str(expected_keys[i]), time)
        processor.check_and_clear_process_result()

        # push two items to the other stream with a window time after the previous window ended (no
        time += 101
        for expected_key in expected_keys:
            input_topic2.pipe_input(expected_key, "a" + str(expected_key), time)
        processor.check_and_clear_process_result()

        # push a dummy item to the other stream after the window is closed; this should only produc
        time += 1100
        input_topic2.pipe_input(0, "dummy", time)
        processor.check_and_clear_process_result((0, "A0+null", 0), (1, "A1+null", 0))


def test_windowing():
    builder = ks.StreamsBuilder()
    expected_keys = [0, 1, 2, 3]

    supplier = MockApiProcessorSupplier()
    stream1 = builder.stream(TOPIC1, CONSUMED)
    stream2 = builder.stream(TOPIC2, CONSUMED)

    joined = stream1.left_join(stream2, tostring_joiner,
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

        # push two items to the primary stream; the other window is empty; this should not produce
        for i in range(2):
            input_topic1.pipe_input(expected_keys[i], "A" + str(expected_keys[i]), time)
        processor.check_and_clear_process_result()

        # push four items to the other stream; this should produce two full-join items
        for expected_key in expected_keys:
            input_topic2.pipe_input(expected_key, "a" + str(expected_key), time)
        processor.check_and_clear_process_result((0, "A0+a0", 0), (1, "A1+a1", 0))
        _upper_window_bound(expected_keys, driver, processor)
        _lower_window_bound(expected_keys, driver, processor)


def test_should_not_emit_left_join_result_for_asymmetric_window():
    builder = ks.StreamsBuilder()
    expected_keys = [0, 1, 2, 3]

    supplier = MockApiProcessorSupplier()
    stream1 = builder.stream(TOPIC1, CONSUMED)
    stream2 = builder.stream(TOPIC2, CONSUMED)

    joined = stream1.left_join(stream2, tostring_joiner,
                               ks.JoinWindows.of_time_difference_with_no_grace(100).before(0),
                               STREAM_JOINED)
    joined.process(supplier)

    with ks.TopologyTestDriver(builder.build(), STREAMS_CONFIG) as driver:
        input_topic1 = driver.create_input_topic(TOPIC1, INT, STR)
        input_topic2 = driver.create_input_topic(TOPIC2, INT, STR)
        processor = supplier.the_captured_processor()
        time = 0

        # push two items to the primary stream; the other window is empty; this should not produce
        for i in range(2):
            input_topic1.pipe_input(expected_keys[i], "A" + str(expected_keys[i]), time + i)
        processor.check_and_clear_process_result()

        # push one item to the other stream; this should produce one full-join item
        time += 100
        input_topic2.pipe_input(expected_keys[0], "a" + str(expected_keys[0]), time)

        processor.check_and_clear_process_result((0, "A0+a0", 100))

        # push one item to the other stream; this should produce one left-join item
        time += 2
        input_topic2.pipe_input(expected_keys[1], "a" + str(expected_keys[1]), time)

        processor.check_and_clear_process_result((1, "A1+null", 1))


def _upper_window_bound(expected_keys, driver, processor):

    input_topic1 = driver.create_input_topic(TOPIC1, INT, STR)
    input_topic2 = driver.create_input_topic(TOPIC2, INT, STR)

    # push four items with larger and increasing timestamp (out of window) to the other stream; thi
    time = 1000
    for i in range(len(expected_keys)):
        input_topic2.pipe_input(expected_keys[i], "b" + str(expected_keys[i]), time + i)
    processor.check_and_clear_process_result()

    # push four items with larger timestamp to the primary stream; this should produce four full-jo
    time = 1000 + 100
    for expected_key in expected_keys:
        input_topic1.pipe_input(expected_key, "B" + str(expected_key), time)
    processor.check_and_clear_process_result(
        (0, "B0+b0", 1100),
        (1, "B1+b1", 1100),
        (2, "B2+b2", 1100),
        (3, "B3+b3", 1100),
    )

    # push four items with increased timestamp to the primary stream; this should produce one left-
    time += 1
    for expected_key in expected_keys:
        input_topic1.pipe_input(expected_key, "C" + str(expected_key), time)
    processor.check_and_clear_process_result(
        (1, "C1+b1", 1101),
        (2, "C2+b2", 1101),
        (3, "C3+b3", 1101),
    )

    # push four items with increased timestamp to the primary stream; this should produce two left-
    time += 1
    for expected_key in expected_keys:
        input_topic1.pipe_input(expected_key, "D" + str(expected_key), time)
    processor.check_and_clear_process_result((2, "D2+b2", 1102), (3, "D3+b3", 1102))

    # push four items with increased timestamp to the primary stream; this should produce one full-
    time += 1
    for expected_key in expected_keys:
        input_topic1.pipe_input(expected_key, "E" + str(expected_key), time)
    processor.check_and_clear_process_result((3, "E3+b3", 1103))

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
        (0, "H0+b0", 1000),
        (1, "H1+null", 900),
        (2, "H2+null", 900),
        (3, "H3+null", 900),
    )

    # push four items with increase timestamp to the primary stream; this should produce two left-j
    time += 1
    for expected_key in expected_keys:
        input_topic1.pipe_input(expected_key, "I" + str(expected_key), time)
    processor.check_and_clear_process_result(
        (0, "I0+b0", 1000),
        (1, "I1+b1", 1001),
        (2, "I2+null", 901),
        (3, "I3+null", 901),
    )

    # push four items with increase timestamp to the primary stream; this should produce one left-j
    time += 1
    for expected_key in expected_keys:
        input_topic1.pipe_input(expected_key, "J" + str(expected_key), time)
    processor.check_and_clear_process_result(
        (0, "J0+b0", 1000),
        (1, "J1+b1", 1001),
        (2, "J2+b2", 1002),
        (3, "J3+null", 902),
    )

    # push four items with increase timestamp to the primary stream; this should produce one left-j
    time += 1
    for expected_key in expected_keys:
        input_topic1.pipe_input(expected_key, "K" + str(expected_key), time)
    processor.check_and_clear_process_result(
        (0, "K0+b0", 1000),
        (1, "K1+b1", 1001),
        (2, "K2+b2", 1002),
        (3, "K3+b3", 1003),
    )

    # push a dummy record that should expire non-joined items; it should produce only the dummy+nul
    input_topic1.pipe_input(0, "dummy", time + 300)
    processor.check_and_clear_process_result((0, "dummy+null", 1203))
