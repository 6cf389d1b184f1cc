"""The committed offset metadata codec against the layout Java's StreamTask writes."""

from __future__ import annotations

import base64
import struct

from kslab.core.commit_metadata import (
    UNKNOWN_TIME,
    ProcessorMetadata,
    decode_commit_metadata,
    encode_commit_metadata,
)


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
