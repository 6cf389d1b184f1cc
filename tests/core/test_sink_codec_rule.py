"""One encoding rule for every sink writer: C codecs first, the serdes' own methods for what
they refuse, ``None`` staying ``None``. The driver's output log (its own ``encoding_writer``),
its loop-back writer (a plain ``append``) and the general ``process`` path (no direct writer,
two partitions) write the same bytes, headers and timestamps, and raise the same error
(tests/runtime/test_sink_writer.py checks the live runtime's writer against the same cases)."""

from __future__ import annotations

import struct

import pytest

import kslab as ks
from kslab import serdes
from kslab.core.nodes import codec_writer
from kslab.errors import SerializationError
from kslab.testing._log import RecordLog
from tests.core.sink_codec_cases import EXPECTED, INPUT, REFUSED, refused_message, topology

# how the driver runs the sink: its output log's encoding writer, the loop-back writer of a
# topic the topology reads back, and no direct writer at all (the sink's ``process``)
WRITERS = {
    "output log": ({}, False),
    "loop-back": ({}, True),
    "no direct writer": ({"partitions": {"in": 1, "out": 2}}, False),
}


def _pipe(driver: ks.TopologyTestDriver, values: list) -> None:
    inp = driver.create_input_topic("in")
    for value, timestamp, headers in values:
        inp.pipe_input("k", value, timestamp, headers)


@pytest.mark.parametrize("writer", list(WRITERS))
def test_every_sink_writer_writes_what_the_serdes_write_for_records_their_codecs_refuse(writer):
    options, read_back = WRITERS[writer]
    with ks.TopologyTestDriver(topology("in", "out", read_back=read_back), **options) as driver:
        _pipe(driver, INPUT)
        out = driver.create_output_topic("out", key_serde=serdes.Bytes(),
                                         value_serde=serdes.Bytes())
        records = sorted(out.read_records_to_list(), key=lambda record: record.timestamp)
    assert [(r.key, r.value, r.timestamp, list(r.headers)) for r in records] == EXPECTED


@pytest.mark.parametrize("writer", list(WRITERS))
def test_every_sink_writer_raises_the_sinks_error_for_what_the_serde_refuses_too(writer):
    options, read_back = WRITERS[writer]
    with ks.TopologyTestDriver(topology("in", "out", read_back=read_back), **options) as driver:
        _pipe(driver, INPUT[:1])
        with pytest.raises(SerializationError) as info:
            _pipe(driver, [(REFUSED, 106, None)])
    assert str(info.value).startswith(refused_message("out"))
    assert (info.value.node, info.value.topic) == ("out", "out")


def test_codec_writer_falls_back_only_for_records_a_codec_refuses():
    """The rule alone: codec bytes to ``append`` at partition 0 with the record's headers and
    timestamp, ``None`` kept, a refused key or value handing the whole record to ``fallback``."""
    long_ = struct.Struct(">q")
    appended: list[tuple] = []
    fallen: list[ks.Record] = []
    write = codec_writer(str.encode, long_.pack, fallen.append,
                         lambda *row: appended.append(row))
    headers = ks.Headers([("h", b"1")])
    records = [ks.Record("a", 1, 5, headers), ks.Record(None, None, 6),
               ks.Record(7, 2, 7), ks.Record("b", "3", 8)]
    for record in records:
        write(None, record)
    assert appended == [(b"a", long_.pack(1), headers, 5, 0), (None, None, None, 6, 0)]
    assert fallen == records[2:]


def test_a_log_encoding_writer_reads_back_after_the_fallback_appended_between_its_values():
    """The output log's ``encoding_writer`` over the rule: a fixed-width writer's implicit
    value ends survive a refused record that its fallback appends through ``append``."""
    long_ = struct.Struct(">q")
    log = RecordLog()

    def fallback(record: ks.Record) -> None:
        log.append(str(record.key).encode(), long_.pack(int(record.value)), None,
                   record.timestamp, 0)

    write = log.encoding_writer(str.encode, long_.pack, fallback)
    for key, value in (("a", 1), ("b", 2), ("c", "3"), ("d", 4)):
        write(None, ks.Record(key, value, 0))
    assert list(log) == [(k.encode(), long_.pack(v), None, 0, 0)
                         for k, v in (("a", 1), ("b", 2), ("c", 3), ("d", 4))]
