"""The driver's compact record log: append, read as a queue, truncate back to a mark."""

from __future__ import annotations

import struct
from typing import Any

import pytest

from kslab.records import Headers, Record
from kslab.testing._log import RecordLog


def test_records_round_trip_with_null_keys_values_and_headers():
    log = RecordLog()
    headers = Headers([("h", b"1")])
    log.append(b"k1", b"v1", None, 10, 0)
    log.append(None, b"v2", headers, 20, 1)
    log.append(b"k3", None, None, 30, 2)
    log.append(b"", b"", None, 40, 0)
    assert list(log) == [
        (b"k1", b"v1", None, 10, 0),
        (None, b"v2", headers, 20, 1),
        (b"k3", None, None, 30, 2),
        (b"", b"", None, 40, 0),
    ]


def test_queue_reads_move_a_cursor():
    log = RecordLog()
    log.append(b"a", b"1", None, 1, 0)
    log.append(b"b", b"2", None, 2, 0)
    assert log.popleft() == (b"a", b"1", None, 1, 0)
    assert len(log) == 1
    log.clear()
    assert not log
    assert log.total == 2
    with pytest.raises(IndexError):
        log.popleft()


def test_truncate_drops_later_appends_and_unreads_later_reads():
    log = RecordLog(with_topics=True)
    log.append(b"a", b"1", None, 1, 0, "t1")
    mark = log.mark()
    log.append(b"b", b"2", Headers([("x", None)]), 2, 0, "t2")
    log.popleft()
    log.popleft()
    log.truncate(mark)
    assert list(log) == [(b"a", b"1", None, 1, 0)]
    assert log.topic(0) == "t1"
    log.append(b"c", b"3", None, 3, 0, "t2")
    assert [log.topic(i) for i in range(log.total)] == ["t1", "t2"]
    assert log.record(1) == (b"c", b"3", None, 3, 0)


def test_drain_slices_columns_after_earlier_reads_and_truncates():
    log = RecordLog()
    log.append(b"k1", b"v1", None, 1, 0)
    log.popleft()
    log.append(b"k22", None, None, 2, 1)
    log.append(None, b"v333", None, 3, 0)
    assert log.drain_columns() == (
        [b"k22", None], [None, b"v333"], [None, None], [2, 3], [1, 0])
    log.append(b"k4", b"v4", None, 4, 0)
    assert log.drain_columns() == ([b"k4"], [b"v4"], [None], [4], [0])
    assert log.drain_columns() == ([], [], [], [], [])
    log.truncate((2, 1))
    log.append(b"k5", b"", None, 5, 0)
    assert log.drain_columns() == (
        [b"k22", b"k5"], [None, b""], [None, None], [2, 5], [1, 0])


def test_partitions_other_than_zero_arriving_late_keep_earlier_records_at_zero():
    log = RecordLog()
    log.append(b"a", b"1", None, 1, 0)
    log.extend([(b"b", b"2", None, 2, None), (b"c", b"3", None, 3, 2)])
    log.append(b"d", b"4", None, 4, 1)
    assert [log.record(i)[4] for i in range(4)] == [0, 0, 2, 1]
    assert log.drain_columns()[4] == [0, 0, 2, 1]
    other = RecordLog()
    other.append(b"a", b"1", None, 1, 0)
    other.append(b"b", b"2", None, 2, 3)
    assert list(other) == [(b"a", b"1", None, 1, 0), (b"b", b"2", None, 2, 3)]


def test_encoding_writer_serializes_and_appends_as_append_would():
    log = RecordLog()
    fallen: list[Record] = []
    write = log.encoding_writer(str.encode, str.encode, fallen.append)
    headers = Headers([("h", b"1")])
    write(None, Record("k", "v", 5))
    write(None, Record(None, "v2", 6, headers))
    write(None, Record("k3", None, 7))
    write(None, Record(1, "not a str key", 8))  # the codec refuses: the fallback takes it
    assert list(log) == [
        (b"k", b"v", None, 5, 0),
        (None, b"v2", headers, 6, 0),
        (b"k3", None, None, 7, 0),
    ]
    assert [(r.key, r.timestamp) for r in fallen] == [(1, 8)]


def test_encoding_writer_keeps_the_partition_column_once_it_exists():
    log = RecordLog()
    log.append(b"a", b"1", None, 1, 2)
    log.encoding_writer(str.encode, str.encode, print)(None, Record("b", "2", 3))
    assert list(log) == [(b"a", b"1", None, 1, 2), (b"b", b"2", None, 3, 0)]


def test_drain_unpacking_unpacks_values_a_fixed_width_writer_wrote():
    long_ = struct.Struct(">q")
    log = RecordLog()
    write = log.encoding_writer(str.encode, long_.pack, print)
    write(None, Record("a", 1, 1))
    write(None, Record("b", -2, 2))
    log.popleft()
    write(None, Record("c", 3, 3))
    columns, unpacked = log.drain_unpacking(long_, long_)
    assert unpacked == (False, True)  # keys are never unpacked: their widths vary
    assert columns[:2] == ([b"b", b"c"], [-2, 3])


@pytest.mark.parametrize("other_write", ["tombstone", "append", "string_writer"])
def test_drain_unpacking_slices_values_once_anything_else_wrote_the_log(other_write):
    long_ = struct.Struct(">q")
    log = RecordLog()
    log.encoding_writer(str.encode, long_.pack, print)(None, Record("a", 1, 1))
    if other_write == "tombstone":
        log.encoding_writer(str.encode, long_.pack, print)(None, Record("b", None, 2))
    elif other_write == "append":
        log.append(b"b", long_.pack(2), None, 2, 0)
    else:
        log.encoding_writer(str.encode, str.encode, print)
    columns, unpacked = log.drain_unpacking(None, long_)
    assert unpacked == (False, False)
    assert columns[1][0] == long_.pack(1)


def test_a_fixed_width_writers_implicit_value_ends_read_back_whatever_comes_between():
    """A ``Long`` writer leaves its values' ends implicit; a point read, a truncate inside
    them, a tombstone, an ``append``, and a second writer of another width each fill them in
    first, so every record reads back as written."""
    long_, int_ = struct.Struct(">q"), struct.Struct(">i")
    log = RecordLog()
    longs = log.encoding_writer(str.encode, long_.pack, print)
    expected: list[tuple] = []

    def write(writer, packer, key, value, ts):
        writer(None, Record(key, value, ts))
        expected.append((key.encode(), None if value is None else packer.pack(value), None, ts,
                         0))

    for i in range(4):
        write(longs, long_, f"k{i}", i * 100, i)
    assert log.record(2) == expected[2]
    write(longs, long_, "k4", 400, 4)
    mark = log.mark()
    write(longs, long_, "gone", 1, 5)
    log.truncate(mark)
    expected.pop()
    write(longs, long_, "k5", None, 5)  # a tombstone: widths vary from here on
    write(longs, long_, "k6", 600, 6)
    log.append(b"k7", b"seven", None, 7, 0)
    expected.append((b"k7", b"seven", None, 7, 0))
    write(log.encoding_writer(str.encode, int_.pack, print), int_, "k8", 8, 8)
    write(longs, long_, "k9", 900, 9)
    assert list(log) == expected

    fresh = RecordLog()  # all implicit, then drained unpacked and read back one by one
    longs = fresh.encoding_writer(str.encode, long_.pack, print)
    for i in range(3):
        longs(None, Record(f"w{i}", -i, i))
    (keys, values, _, timestamps, _), unpacked = fresh.drain_unpacking(long_, long_)
    assert (keys, values, timestamps, unpacked) == ([b"w0", b"w1", b"w2"], [0, -1, -2],
                                                    [0, 1, 2], (False, True))
    assert fresh.record(1) == (b"w1", long_.pack(-1), None, 1, 0)
    ints = fresh.encoding_writer(str.encode, int_.pack, print)  # another width
    ints(None, Record("i", 7, 3))
    assert fresh.record(3) == (b"i", int_.pack(7), None, 3, 0)
    assert fresh.drain_unpacking(long_, long_)[1] == (False, False)


def test_a_text_column_comes_back_as_str_only_when_all_ascii_and_present():
    from kslab.testing._log import TEXT

    log = RecordLog()
    write = log.encoding_writer(str.encode, str.encode, print)
    for key, value in (("a", "x"), ("bc", ""), ("d", "yz")):
        write(None, Record(key, value, 0))
    log.popleft()
    (keys, values, *_), decoded = log.drain_unpacking(TEXT, TEXT)
    assert (keys, values, decoded) == (["bc", "d"], ["", "yz"], (True, True))
    write(None, Record("é", None, 1))  # not ASCII, and a None value: both left as bytes
    (keys, values, *_), decoded = log.drain_unpacking(TEXT, TEXT)
    assert (keys, values, decoded) == (["é".encode()], [None], (False, False))


def test_output_reads_decode_ascii_and_other_text_alike():
    import kslab as ks
    from kslab import serdes

    topo = ks.Topology()
    topo.add_source("src", "in", key_serde=serdes.String(), value_serde=serdes.String())
    topo.add_sink("out", "out", "src", key_serde=serdes.String(), value_serde=serdes.String())
    pairs = [("plain", "ascii"), ("naïve", "日本"), (None, "k"), ("k", None), ("", "")]
    with ks.TopologyTestDriver(topo) as driver:
        driver.create_input_topic("in").pipe_key_value_list(pairs[:2])
        out = driver.create_output_topic("out")
        assert out.read_key_values_to_list() == pairs[:2]
        driver.create_input_topic("in").pipe_key_value_list(pairs)
        assert out.read_key_values_to_list() == pairs
        driver.create_input_topic("in").pipe_key_value_list([("a", "b"), ("c", "d")])
        assert out.read_key_values_to_map() == {"a": "b", "c": "d"}


@pytest.mark.parametrize(("fmt", "values"), [
    (">q", [0, 1, -1, 2**63 - 1, -(2**63)]),
    (">i", [0, -5, 2**31 - 1, -(2**31)]),
    (">h", [0, -2, 2**15 - 1]),
    (">d", [0.0, -0.0, 1.5, float("inf"), -1e300]),
    (">f", [0.0, 0.5, -2.25, float("-inf")]),
])
def test_a_fixed_width_value_column_reads_back_as_the_struct_unpacks_it(fmt, values):
    """Whole columns of big-endian numbers are read through an ``array`` (one byte swap, no
    tuple per field): the same numbers, signs and float bits as ``struct`` gives."""
    packer = struct.Struct(fmt)
    log = RecordLog()
    write = log.encoding_writer(str.encode, packer.pack, print)
    for i, value in enumerate(values):
        write(None, Record(f"k{i}", value, i))
    log.popleft()  # from an offset other than 0
    (_, read, *_), unpacked = log.drain_unpacking(None, packer)
    assert unpacked == (False, True)
    expected = [packer.unpack(packer.pack(v))[0] for v in values[1:]]
    assert [struct.pack(">d", v) for v in read] == [struct.pack(">d", v) for v in expected]
    assert [type(v) for v in read] == [type(v) for v in expected]


def test_extended_rows_of_one_width_keep_the_value_column_unpackable():
    """``extend`` (the bulk path's writes) keeps the log's value width while every value it
    adds has it, so a fixed-width read unpacks the column; a ``None`` or another width makes
    it unknown for good."""
    long_ = struct.Struct(">q")
    log = RecordLog()
    log.extend([(b"a", long_.pack(1), None, 0, None), (b"b", long_.pack(2), None, 1, None)])
    write = log.encoding_writer(str.encode, long_.pack, print)  # the same width: implicit ends
    write(None, Record("c", 3, 2))
    log.extend([(b"d", long_.pack(4), None, 3, None)])
    (keys, values, *_), unpacked = log.drain_unpacking(None, long_)
    assert (keys, values, unpacked) == ([b"a", b"b", b"c", b"d"], [1, 2, 3, 4], (False, True))
    log.extend([(b"e", None, None, 4, None)])
    log.extend([(b"f", long_.pack(6), None, 5, None)])
    (keys, values, *_), unpacked = log.drain_unpacking(None, long_)
    assert (values, unpacked) == ([None, long_.pack(6)], (False, False))
    mixed = RecordLog()
    mixed.extend([(b"a", b"12345678", None, 0, None), (b"b", b"1234", None, 1, None)])
    assert mixed.drain_unpacking(None, long_)[1] == (False, False)
    assert list(mixed) == []
    assert mixed.record(1) == (b"b", b"1234", None, 1, 0)


def test_extend_columns_of_empty_values_keeps_every_end() -> None:
    """Empty values (width 0) are never left implicit: each keeps its end offset."""
    log = RecordLog()
    log.extend_columns([b"a", b"b"], [b"", b""], None, [1, 2])
    log.extend_columns([b"c"], [b""], None, [3])
    assert [log.record(i)[:2] for i in range(3)] == [(b"a", b""), (b"b", b""), (b"c", b"")]


def test_long_column_batches_match_record_by_record_appends() -> None:
    """Batches long enough for the numpy layout (and short ones, and ones with a ``None``)
    leave the log exactly as appending their records one by one does."""
    rows = [(f"k{i}".encode() * (i % 3), str(i).encode() if i % 7 else None, None, i, 0)
            for i in range(300)]
    batched, appended = RecordLog(), RecordLog()
    batched.extend(rows[:10])  # short: list lengths
    batched.extend(rows[10:200])  # long, with None values: field by field
    batched.extend([(k, b"v" * (i % 5), h, t, p) for i, (k, _, h, t, p)
                    in enumerate(rows[200:])])  # long, no None: numpy lengths, offset ends
    for key, value, headers, timestamp, partition in rows[:200]:
        appended.append(key, value, headers, timestamp, partition)
    for i, (key, _, headers, timestamp, partition) in enumerate(rows[200:]):
        appended.append(key, b"v" * (i % 5), headers, timestamp, partition)
    assert [batched.record(i) for i in range(300)] == [appended.record(i) for i in range(300)]
    assert batched.drain_columns() == appended.drain_columns()


def test_columns_of_a_declared_width_match_measured_ones() -> None:
    """A ``ByteColumn`` of a fixed-width serde's fields (``fixed_width``) is laid out without
    measuring them, in the value column's implicit ends and in explicit ends alike; a
    declared width the fields do not add up to is measured after all."""
    from kslab import serdes
    from kslab.core.bulk.columns import ByteColumn, fixed_width

    assert (fixed_width(serdes.Long()), fixed_width(serdes.Integer()),
            fixed_width(serdes.String()), fixed_width(serdes.Json())) == (8, 4, None, None)
    longs = [struct.pack(">q", i) for i in range(100)]
    keys = [f"k{i}".encode() for i in range(100)]
    declared, measured = RecordLog(), RecordLog()
    declared.extend_columns(ByteColumn(keys), ByteColumn(longs, 8), None, list(range(100)))
    measured.extend_columns(keys, longs, None, list(range(100)))
    assert declared.drain_unpacking(None, struct.Struct(">q"))[0] \
        == measured.drain_unpacking(None, struct.Struct(">q"))[0]
    # after a value of another width the ends are explicit: a declared column fills them in
    declared.extend_columns([b"x"], [b"abc"], None, [100])
    measured.extend_columns([b"x"], [b"abc"], None, [100])
    for log in (declared, measured):
        log.extend_columns(ByteColumn(keys), ByteColumn(longs, 8), None, list(range(100)))
    assert [declared.record(i) for i in range(201)] == [measured.record(i) for i in range(201)]
    assert declared.record(150)[1] == struct.pack(">q", 49)
    wrong = ByteColumn([b"1234567", b"12345678"], 8)  # 15 bytes: not 8 each
    assert wrong.layout()[1:] == ([7, 8], 7, 8)
    assert ByteColumn([b"12345678", None], 8).layout() is None


@pytest.mark.parametrize("dictionaries", [False, True], ids=["plain", "dictionaries"])
def test_a_column_drained_without_a_codec_is_reported_undecoded(dictionaries: bool) -> None:
    """``drain_unpacking`` says which columns it decoded, and the reader decodes the others
    with its serdes: a column given no codec comes back as bytes, reported undecoded, whether
    its keys were appended one by one or as key dictionaries (a count's, on the bulk path)."""
    from kslab.core.bulk.columns import ByteColumn

    keys = [b"a", b"b", b"a"]
    log = RecordLog()
    log.extend_columns(ByteColumn(keys, dictionaries=[(0, [b"a", b"b"], [0, 1, 0])])
                       if dictionaries else keys, [b"1", b"2", b"3"], None, [0, 1, 2])
    log.popleft()
    (drained_keys, values, *_), decoded = log.drain_unpacking(None, None)
    assert (drained_keys, values, decoded) == ([b"b", b"a"], [b"2", b"3"], (False, False))


@pytest.mark.parametrize("text", [False, True], ids=["bytes", "text"])
def test_key_dictionaries_read_back_as_slicing_does(text: bool) -> None:
    """Keys appended as runs of a few distinct ones (``ByteColumn.dictionaries``, a count's
    keys) drain as the same keys as plain appends: with plain keys between runs, a read
    starting inside a run, a truncate cutting one, and non-ASCII keys read as text (then
    the usual path)."""
    from kslab.core.bulk.columns import ByteColumn
    from kslab.testing._log import TEXT

    struct_ = TEXT if text else None

    def drained(log: RecordLog) -> list[Any]:
        columns, unpacked = log.drain_unpacking(struct_, None)
        keys = columns[0]
        return keys if unpacked[0] else [k if k is None or not text else k.decode()
                                         for k in keys]

    distinct = [b"a", b"bb", b"ccc"]
    runs = [[0, 1, 0, 2, 2], [1, 1, 0]]
    dictionary, plain = RecordLog(), RecordLog()
    for log in (dictionary, plain):
        log.extend_columns([b"x", b"yy"], [b"1", b"2"], None, [0, 1])
    t = 2
    for ids in runs:
        fields = [distinct[i] for i in ids]
        dictionary.extend_columns(ByteColumn(fields, dictionaries=[(0, distinct, ids)]),
                                  [b"v"] * len(ids), None, list(range(t, t + len(ids))))
        plain.extend_columns(fields, [b"v"] * len(ids), None, list(range(t, t + len(ids))))
        t += len(ids)
        for log in (dictionary, plain):
            log.extend_columns([b"z"], [b"3"], None, [t])
        t += 1
    expected = ["x", "yy", "a", "bb", "a", "ccc", "ccc", "z", "bb", "bb", "a", "z"]
    if not text:
        expected = [k.encode() for k in expected]
    for log in (dictionary, plain):
        for _ in range(4):  # a read starting inside the first run
            log.popleft()
    assert drained(dictionary) == drained(plain) == expected[4:]
    # internal on purpose: a path of the dictionary encoding the public reads rarely take
    assert dictionary._dictionary_keys(4, 12, struct_) == expected[4:]  # not the usual path
    mark = (9, 0)  # cut the second run after its first key, then read all again
    for log in (dictionary, plain):
        log.truncate(mark)
        log.extend_columns([b"w"], [b"4"], None, [20])
    assert drained(dictionary) == drained(plain) == [*expected[:9], b"w" if not text else "w"]
    accented = RecordLog()
    accented.extend_columns(ByteColumn(["é".encode()] * 2,
                                       dictionaries=[(0, ["é".encode()], [0, 0])]),
                            [b"1", b"2"], None, [0, 1])
    assert accented._dictionary_keys(0, 2, TEXT) is None
    assert drained(accented) == (["é", "é"] if text else ["é".encode()] * 2)
