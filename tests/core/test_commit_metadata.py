"""The committed offset metadata codec against the layout Java's StreamTask writes."""

from __future__ import annotations

import base64
import struct

import kslab as ks
from kslab.core.commit_metadata import (
    UNKNOWN_TIME,
    ProcessorMetadata,
    decode_commit_metadata,
    encode_commit_metadata,
)
from kslab.core.task import StreamTask
from kslab.processor import Processor, ProcessorContext
from kslab.records import Record
from kslab.runtime._state import CommittedMetadata


def test_processor_metadata_bytes_are_javas_layout() -> None:
    meta = ProcessorMetadata()
    meta.put("some_key", 100)
    # int count 1, int key length 8, "some_key", long 100
    assert meta.serialize() == (b"\x00\x00\x00\x01" b"\x00\x00\x00\x08" b"some_key"
                                b"\x00\x00\x00\x00\x00\x00\x00\x64")
    assert ProcessorMetadata.deserialize(meta.serialize()) == meta
    assert ProcessorMetadata().serialize() == b""
    assert ProcessorMetadata.deserialize(b"") == ProcessorMetadata()
    assert ProcessorMetadata.deserialize(None) == ProcessorMetadata()


def test_put_marks_for_commit_and_update_keeps_the_larger_value() -> None:
    mine = ProcessorMetadata({"a": 5, "b": 1})
    assert mine.needs_commit is False
    mine.update(ProcessorMetadata({"a": 3, "b": 7, "c": 2}))
    assert mine.values == {"a": 5, "b": 7, "c": 2}
    mine.put("a", 9)
    assert mine.needs_commit is True
    assert mine.get("a") == 9 and mine.get("zz") is None


def test_version_two_round_trip_and_exact_string() -> None:
    meta = ProcessorMetadata({"KSTREAM-AGGREGATE-STATE-STORE-0000000001": 59_999})
    text = encode_commit_metadata(100, meta)
    raw = base64.b64decode(text)
    assert raw[:9] == b"\x02" + struct.pack(">q", 100)
    assert raw[9:] == meta.serialize()
    assert decode_commit_metadata(text) == (100, meta)
    empty = encode_commit_metadata(100, ProcessorMetadata())
    assert base64.b64decode(empty) == b"\x02" + struct.pack(">q", 100)
    assert decode_commit_metadata(empty) == (100, ProcessorMetadata())


def test_version_one_has_partition_time_only() -> None:
    text = base64.b64encode(b"\x01" + struct.pack(">q", 100)).decode()
    assert decode_commit_metadata(text) == (100, ProcessorMetadata())


def test_unreadable_metadata_is_unknown_time_and_empty(caplog) -> None:
    assert decode_commit_metadata("") == (UNKNOWN_TIME, ProcessorMetadata())
    assert decode_commit_metadata(None) == (UNKNOWN_TIME, ProcessorMetadata())
    unknown_version = base64.b64encode(b"\x03").decode()
    assert decode_commit_metadata(unknown_version) == (UNKNOWN_TIME, ProcessorMetadata())
    assert decode_commit_metadata("{}") == (UNKNOWN_TIME, ProcessorMetadata())
    assert "Unsupported offset metadata" in caplog.text


def test_corrupt_processor_metadata_keeps_the_partition_time() -> None:
    text = base64.b64encode(b"\x02" + struct.pack(">q", 42) + b"\x00\x00\x00\x05xy").decode()
    assert decode_commit_metadata(text) == (42, ProcessorMetadata())


class _Remembering(Processor):
    """Keeps the largest timestamp it saw as processor metadata; reads it back in init."""

    seen_at_init: list[int | None] = []

    def init(self, context: ProcessorContext) -> None:
        self.context = context
        _Remembering.seen_at_init.append(context.processor_metadata_for_key("largest"))

    def process(self, record: Record) -> None:
        if record.timestamp > (self.context.processor_metadata_for_key("largest") or -1):
            self.context.add_processor_metadata_key_value("largest", record.timestamp)


def _topology() -> ks.Topology:
    topology = ks.Topology()
    topology.add_source("src", "a", "b", key_serde=ks.serdes.String(),
                        value_serde=ks.serdes.String())
    topology.add_processor("remember", _Remembering, "src")
    return topology


def _task(driver: ks.TopologyTestDriver) -> StreamTask:
    (task,) = driver.tasks.values()
    return task


def test_a_task_commits_partition_times_and_processor_metadata() -> None:
    with ks.TopologyTestDriver(_topology()) as driver:
        a = driver.create_input_topic("a", ks.serdes.String(), ks.serdes.String())
        a.pipe_input("k", "v", 70)
        task = _task(driver)
        # changed metadata goes to every input partition, not only the consumed one
        texts = task.committable_metadata([("a", 0)])
        assert {tp: decode_commit_metadata(t) for tp, t in texts.items()} == {
            ("a", 0): (70, ProcessorMetadata({"largest": 70})),
            ("b", 0): (UNKNOWN_TIME, ProcessorMetadata({"largest": 70}))}
        task.commit_done()
        assert task.committable_metadata([]) == {}
        assert set(task.committable_metadata([("a", 0)])) == {("a", 0)}
        a.pipe_input("k", "v", 50)  # not larger: the metadata is unchanged
        assert set(task.committable_metadata([("a", 0)])) == {("a", 0)}


def test_a_new_task_starts_from_the_committed_metadata() -> None:
    _Remembering.seen_at_init.clear()
    with ks.TopologyTestDriver(_topology()) as driver:
        old = _task(driver)
        committed = {("a", 0): encode_commit_metadata(90, ProcessorMetadata({"largest": 90})),
                     ("b", 0): encode_commit_metadata(120, ProcessorMetadata({"largest": 40,
                                                                             "other": 3}))}
        task = StreamTask(old.id, old.topology, old.node_names, config=old.config,
                          application_id=old.application_id, collector=old.collector,
                          clock=old.clock, input_partitions=[("a", 0), ("b", 0)])
        task.init_committed(committed)
        task.initialize()
        assert _Remembering.seen_at_init == [None, 90]  # the driver's task, then this one
        assert task.processor_metadata.values == {"largest": 90, "other": 3}
        assert task.processor_metadata.needs_commit is False
        assert task.queue_for("a", 0).partition_time == 90
        assert task.queue_for("b", 0).partition_time == 120
        assert task.stream_time == 120
        task.close()


def test_local_metadata_is_used_only_for_the_offset_it_was_saved_with(tmp_path) -> None:
    saved = CommittedMetadata(tmp_path / "meta")
    saved.save({("a", 0): (5, "A5"), ("b", 0): (7, "B7")})
    saved.save({("a", 0): (6, "A6")})
    local = CommittedMetadata(tmp_path / "meta").read()
    assert local == {("a", 0): (6, "A6"), ("b", 0): (7, "B7")}
    broker = {("a", 0): (6, None), ("b", 0): (9, ""), ("c", 0): (-1001, None),
              ("d", 0): (3, "D3")}
    assert CommittedMetadata.resolve(broker, local) == {("a", 0): "A6", ("d", 0): "D3"}
    assert CommittedMetadata.resolve({("a", 0): (6, "mine")}, local) == {("a", 0): "mine"}
    (tmp_path / "meta").write_text("not json")
    assert CommittedMetadata(tmp_path / "meta").read() == {}


def test_local_metadata_is_a_log_of_saves_rewritten_every_so_often(tmp_path) -> None:
    path = tmp_path / "meta"
    saved = CommittedMetadata(path)
    saved.COMPACT_EVERY = 2
    saved.save({("a", 0): (1, "A1")})  # a process's first save rewrites the file
    saved.save({("a", 0): (2, "A2")})
    saved.save({("b", 0): (3, "B3")})
    assert len(path.read_text().splitlines()) == 3
    assert CommittedMetadata(path).read() == {("a", 0): (2, "A2"), ("b", 0): (3, "B3")}
    saved.save({("a", 0): (4, "A4")})  # the COMPACT_EVERY-th append: rewritten instead
    assert len(path.read_text().splitlines()) == 1
    with open(path, "a") as log:  # a save cut short by a crash
        log.write('[["a", 0, 5, "A5"], ["b", 0, 3, "B3"]')
    assert CommittedMetadata(path).read() == {("a", 0): (4, "A4"), ("b", 0): (3, "B3")}
    CommittedMetadata(path).save({("a", 0): (6, "A6")})  # the next process's: rewritten
    assert path.read_text() == '[["a", 0, 6, "A6"]]\n'
