"""Records, headers and the small value types: immutability, copies, equality."""

from __future__ import annotations

import pytest

import kslab as ks


def test_record_is_immutable_and_with_methods_copy():
    record = ks.Record("k", "v", 5, [("h", b"1")])
    with pytest.raises(AttributeError, match="with_value"):
        record.value = "x"
    assert record.with_value("w") == ks.Record("k", "w", 5, [("h", b"1")])
    assert record.with_key("j").key == "j"
    assert record.with_timestamp(7).timestamp == 7
    assert record.with_headers(None).headers == ks.Headers()
    assert record.value == "v"  # the original is untouched


def test_negative_timestamps_are_malformed_records():
    with pytest.raises(ks.StreamsError, match="Malformed Record"):
        ks.Record("k", "v", -1)
    with pytest.raises(ks.StreamsError, match="Malformed Record"):
        ks.Record("k", "v", 0).with_timestamp(-5)


def test_fixed_key_record_refuses_a_new_key():
    record = ks.FixedKeyRecord("k", 1, 0)
    assert record.with_value(2) == ks.FixedKeyRecord("k", 2, 0)
    with pytest.raises(AttributeError, match="cannot change the key"):
        record.with_key("other")


def test_headers_keep_order_and_duplicates():
    headers = ks.Headers()
    headers.add("a", b"1").add("b", "two").add("a", None)
    assert list(headers) == [("a", b"1"), ("b", b"two"), ("a", None)]
    assert headers.last_header("a") == ks.Header("a", None)
    assert headers.last_header("zz") is None
    headers.remove("a")
    assert headers.to_list() == [("b", b"two")]
    with pytest.raises(TypeError, match="must be a str"):
        headers.add(1, b"x")


def test_value_types_compare_by_value_and_hash():
    assert ks.KeyValue("a", 1) == ("a", 1)
    assert {ks.Windowed("k", ks.Window(0, 10))} == {ks.Windowed("k", ks.Window(0, 10))}
    assert str(ks.Windowed("k", ks.Window(0, 10))) == "[k@0/10]"
    assert ks.ValueAndTimestamp(3, 9) == (3, 9)
    assert ks.VersionedRecord("v", 1) == ks.VersionedRecord("v", 1, None)
    assert str(ks.TaskId(1, 3)) == "1_3"
    assert ks.TestRecord("k", "v", 1) == ks.TestRecord("k", "v", 1, ks.Headers())
    assert ks.TestRecord("k", "v", 1) != ks.TestRecord("k", "v", 2)


def test_records_copy_pickle_and_subclass_keeping_their_class():
    import copy
    import pickle

    record = ks.Record("k", "v", 5, [("h", b"1")])
    assert pickle.loads(pickle.dumps(record)) == record
    fixed = copy.deepcopy(ks.FixedKeyRecord("k", 1, 0))
    assert type(fixed) is ks.FixedKeyRecord and type(fixed.with_value(2)) is ks.FixedKeyRecord

    class Tagged(ks.Record):
        __slots__ = ("tag",)  # a layout of its own: copies are built slot by slot

    tagged = Tagged("k", 1, 2)
    assert type(tagged.with_value(3)) is Tagged and tagged.with_key("j").key == "j"
    with pytest.raises(AttributeError, match="with_key"):
        tagged.key = "x"


def test_source_record_is_the_record_the_constructor_builds():
    from kslab.records import source_record

    record = source_record("k", "v", 5)
    assert type(record) is ks.Record
    assert (record.key, record.value, record.timestamp, record.raw_headers) == ("k", "v", 5, None)
    assert record == ks.Record("k", "v", 5)
    assert record.headers == ks.Headers()
    with pytest.raises(AttributeError, match="with_key"):
        record.key = "x"


def test_a_record_built_from_another_has_its_own_headers() -> None:
    """Java copies the headers into every new Record (constructor and with_*): adding a header
    to a derived record leaves the one it came from, and its siblings, as they were."""
    original = ks.Record("k", "v", 1, ks.Headers([("a", b"1")]))
    derived = [original.with_value("w"), original.with_key("j"), original.with_timestamp(2),
               ks.Record("k", "v", 1, original.headers),
               original.with_headers(original.headers)]
    for record in derived:
        record.headers.add("b", b"2")
    assert original.headers.to_list() == [("a", b"1")]
    assert [r.headers.to_list() for r in derived] == [[("a", b"1"), ("b", b"2")]] * 5
    bare = ks.Record("k", "v", 1)
    assert bare.with_value("w").raw_headers is None  # no headers, nothing copied


def test_key_value_prints_as_java() -> None:
    assert str(ks.KeyValue("k", 1)) == "KeyValue(k, 1)"
    assert str(ks.KeyValue(None, None)) == "KeyValue(null, null)"
    assert repr(ks.KeyValue("k", 1)) == "KeyValue(key='k', value=1)"


def test_a_negative_test_record_timestamp_is_refused_with_javas_text():
    from kslab.errors import InvalidArgumentError
    from kslab.records import TestRecord

    with pytest.raises(InvalidArgumentError, match=r"^Invalid timestamp: -1\. Timestamp should "
                                                   r"always be non-negative or null; give ms"):
        TestRecord("k", "v", -1)
