"""Kafka's ``RocksDBVersionedStoreTest`` (streams, state/internals), translated to kslab's
versioned key-value store (``kslab.state.versioned``).

Java drives a bytes-level ``RocksDBVersionedStore`` with String-serialized keys and values;
here the typed store (String serdes) is built from ``Stores.persistent_versioned_key_value_store
(name, 300_000, 100_000)`` with logging disabled and opened on a context whose
``record_dropped`` counts Java's expired-record sensor (the task's ``dropped-records-total``).
``store.restoreBatch(changelog records)`` is the store's ``_restore_batch`` with the same
``(key bytes, value bytes, timestamp)`` records. The helper ``V`` holds Java's private
helpers: ``put`` (``putToStore``, checking the returned valid-to), ``delete``, ``latest`` /
``no_latest`` (``verifyGet...FromStore``), ``value_as_of`` / ``null_as_of``
(``verifyTimestampedGet...FromStore``) and ``expired_records``; ``SI``, ``HR``, ``GRACE``,
``BASE``, ``UNDEF`` and ``NOT_PUT`` are Java's constants. kslab's store keeps no segments:
the segment tests check the same reads and return codes.

Skipped, as outside kslab's API: the five ``getRecordVersions``/``...RecordVersions...`` tests
(Java's multi-version range query ``get(key, fromTime, toTime, ResultOrder)``, KIP-968).
"""

from __future__ import annotations

from typing import Any

import pytest

import kslab as ks
from kslab.records import TaskId
from kslab.state.versioned import PUT_RETURN_CODE_NOT_PUT, PUT_RETURN_CODE_VALID_TO_UNDEFINED

STORE_NAME = "myversionedrocks"
HR = HISTORY_RETENTION = 300_000
GRACE = HR  # history retention doubles as grace period for now
SI = HR // 3  # SEGMENT_INTERVAL
BASE = 10  # BASE_TIMESTAMP
UNDEF = PUT_RETURN_CODE_VALID_TO_UNDEFINED
NOT_PUT = PUT_RETURN_CODE_NOT_PUT
S = ks.serdes.String()


class _Context:
    """What the store needs of its task: a state directory and the dropped-records sensor."""

    def __init__(self, state_dir: Any) -> None:
        self.application_id = "mock-app"
        self.task_id = TaskId(0, 0)
        self.state_dir = state_dir
        self.default_key_serde = S
        self.default_value_serde = S
        self.dropped = 0

    def changelog_topic(self, store_name: str) -> str:
        return f"{self.application_id}-{store_name}-changelog"

    def record_dropped(self) -> None:
        self.dropped += 1


class V:
    """The store under test with Java's helper methods."""

    def __init__(self, store: Any, context: _Context) -> None:
        self.store, self.context = store, context

    def put(self, key: str, value: str | None, timestamp: int, expected_valid_to: int) -> None:
        assert self.store.put(key, value, timestamp) == expected_valid_to

    def delete(self, key: str, timestamp: int) -> Any:
        return self.store.delete(key, timestamp)

    def latest(self, key: str, expected_value: str, expected_timestamp: int) -> None:
        record = self.store.get(key)
        assert (record.value, record.timestamp, record.valid_to) == (
            expected_value, expected_timestamp, None)

    def no_latest(self, key: str) -> None:
        assert self.store.get(key) is None

    def value_as_of(self, key: str, timestamp: int, expected_value: str,
                    expected_timestamp: int, expected_valid_to: int) -> None:
        record = self.store.get(key, timestamp)
        valid_to = None if expected_valid_to == UNDEF else expected_valid_to
        assert (record.value, record.timestamp, record.valid_to) == (
            expected_value, expected_timestamp, valid_to)

    def null_as_of(self, key: str, timestamp: int) -> None:
        assert self.store.get(key, timestamp) is None

    def expired_records(self, expected: int) -> None:
        assert self.context.dropped == expected

    def restore(self, records: list[tuple[str, str | None, int]]) -> None:
        self.store.restore_batch([(S.serialize("", key), S.serialize("", value), timestamp)
                                   for key, value, timestamp in records])


@pytest.fixture
def make_store(tmp_path):
    opened: list[Any] = []

    def make(history_retention: int = HR) -> V:
        supplier = ks.Stores.persistent_versioned_key_value_store(STORE_NAME, history_retention,
                                                                   SI)
        store = ks.Stores.versioned_key_value_store_builder(supplier, S, S) \
            .with_logging_disabled().build()
        context = _Context(tmp_path / str(len(opened)))
        store.init(context, store)
        opened.append(store)
        return V(store, context)

    yield make
    for store in opened:
        store.close()


@pytest.fixture
def v(make_store):
    return make_store()


def test_should_put_latest(v):
    v.put("k", "v", BASE, UNDEF)
    v.put("k", "v2", BASE + 1, UNDEF)
    v.latest("k", "v2", BASE + 1)
    v.value_as_of("k", BASE, "v", BASE, BASE + 1)
    v.value_as_of("k", BASE + 1, "v2", BASE + 1, UNDEF)
    v.value_as_of("k", BASE + 2, "v2", BASE + 1, UNDEF)


def test_should_put_null_as_latest(v):
    v.put("k", None, BASE, UNDEF)
    v.put("k", None, BASE + 1, UNDEF)
    v.no_latest("k")
    v.null_as_of("k", BASE)
    v.null_as_of("k", BASE + 1)
    v.null_as_of("k", BASE + 2)


def test_should_put_older_with_non_null_latest(v):
    v.put("k", "v", BASE, UNDEF)
    v.put("k", "v2", BASE - 2, BASE)
    v.put("k", "v1", BASE - 1, BASE)
    v.put("k", "v4", BASE - 4, BASE - 2)
    v.latest("k", "v", BASE)
    v.value_as_of("k", BASE, "v", BASE, UNDEF)
    v.value_as_of("k", BASE - 1, "v1", BASE - 1, BASE)
    v.value_as_of("k", BASE - 2, "v2", BASE - 2, BASE - 1)
    v.value_as_of("k", BASE - 3, "v4", BASE - 4, BASE - 2)


def test_should_put_older_with_null_latest(v):
    v.put("k", None, BASE, UNDEF)
    v.put("k", "v2", BASE - 2, BASE)
    v.put("k", "v1", BASE - 1, BASE)
    v.put("k", "v4", BASE - 4, BASE - 2)
    v.no_latest("k")
    v.null_as_of("k", BASE)
    v.value_as_of("k", BASE - 1, "v1", BASE - 1, BASE)
    v.value_as_of("k", BASE - 2, "v2", BASE - 2, BASE - 1)
    v.value_as_of("k", BASE - 3, "v4", BASE - 4, BASE - 2)


def test_should_put_older_null_with_non_null_latest(v):
    v.put("k", "v", BASE, UNDEF)
    v.put("k", None, BASE - 2, BASE)
    v.put("k", None, BASE - 1, BASE)
    v.put("k", None, BASE - 4, BASE - 2)
    v.put("k", "v5", BASE - 5, BASE - 4)
    v.put("k", "v3", BASE - 3, BASE - 2)
    v.put("k", None, BASE - 6, BASE - 5)
    v.latest("k", "v", BASE)
    v.value_as_of("k", BASE, "v", BASE, UNDEF)
    v.null_as_of("k", BASE - 1)
    v.null_as_of("k", BASE - 2)
    v.value_as_of("k", BASE - 3, "v3", BASE - 3, BASE - 2)
    v.null_as_of("k", BASE - 4)
    v.value_as_of("k", BASE - 5, "v5", BASE - 5, BASE - 4)
    v.null_as_of("k", BASE - 6)


def test_should_put_older_null_with_null_latest(v):
    v.put("k", None, BASE, UNDEF)
    v.put("k", None, BASE - 2, BASE)
    v.put("k", None, BASE - 1, BASE)
    v.put("k", None, BASE - 4, BASE - 2)
    v.put("k", "v3", BASE - 3, BASE - 2)
    v.put("k", "v5", BASE - 5, BASE - 4)
    v.put("k", None, BASE - 6, BASE - 5)
    v.no_latest("k")
    v.null_as_of("k", BASE)
    v.null_as_of("k", BASE - 1)
    v.null_as_of("k", BASE - 2)
    v.value_as_of("k", BASE - 3, "v3", BASE - 3, BASE - 2)
    v.null_as_of("k", BASE - 4)
    v.value_as_of("k", BASE - 5, "v5", BASE - 5, BASE - 4)
    v.null_as_of("k", BASE - 6)


def test_should_put_repeat_timestamp_as_latest(v):
    v.put("k", "to_be_replaced", BASE, UNDEF)
    v.put("k", "b", BASE, UNDEF)
    v.latest("k", "b", BASE)
    v.value_as_of("k", BASE, "b", BASE, UNDEF)
    v.null_as_of("k", BASE - 1)
    v.put("k", None, BASE, UNDEF)
    v.no_latest("k")
    v.null_as_of("k", BASE)
    v.null_as_of("k", BASE - 1)
    v.put("k", None, BASE, UNDEF)
    v.no_latest("k")
    v.null_as_of("k", BASE)
    v.null_as_of("k", BASE - 1)
    v.put("k", "b", BASE, UNDEF)
    v.latest("k", "b", BASE)
    v.value_as_of("k", BASE, "b", BASE, UNDEF)
    v.null_as_of("k", BASE - 1)


def test_should_put_repeat_timestamps(v):
    v.put("k", "to_be_replaced", SI + 20, UNDEF)
    v.put("k", None, SI - 10, SI + 20)
    # replace existing null with non-null, with timestamps spanning segments
    v.put("k", "to_be_replaced", SI - 10, SI + 20)
    v.put("k", None, SI - 10, SI + 20)  # replace existing non-null with null
    v.put("k", "to_be_replaced", SI - 1, SI + 20)
    v.put("k", "to_be_replaced", SI + 1, SI + 20)
    v.put("k", None, SI - 1, SI + 1)  # replace existing non-null with null
    # replace existing non-null with null, with timestamps spanning segments
    v.put("k", None, SI + 1, SI + 20)
    v.put("k", None, SI + 10, SI + 20)
    v.put("k", None, SI + 5, SI + 10)
    v.put("k", "vp5", SI + 5, SI + 10)  # replace existing null with non-null
    v.put("k", "to_be_replaced", SI - 5, SI - 1)
    v.put("k", "vn5", SI - 5, SI - 1)  # replace existing non-null with non-null
    v.put("k", None, SI + 20, UNDEF)  # replace existing non-null (latest value) with null
    v.put("k", None, SI + 20, UNDEF)  # replace existing null with null
    v.put("k", "vn6", SI - 6, SI - 5)
    v.no_latest("k")
    v.null_as_of("k", SI + 30)
    v.null_as_of("k", SI + 15)
    v.value_as_of("k", SI + 6, "vp5", SI + 5, SI + 10)
    v.null_as_of("k", SI + 2)
    v.null_as_of("k", SI)
    v.null_as_of("k", SI - 1)
    v.value_as_of("k", SI - 5, "vn5", SI - 5, SI - 1)
    v.value_as_of("k", SI - 6, "vn6", SI - 6, SI - 5)
    v.null_as_of("k", SI - 8)


def test_should_put_into_multiple_segments(v):
    v.put("k", None, SI - 20, UNDEF)
    v.put("k", "vn10", SI - 10, UNDEF)
    v.put("k", None, SI - 1, UNDEF)
    v.put("k", None, SI + 1, UNDEF)
    v.put("k", "vp10", SI + 10, UNDEF)
    v.put("k", None, SI + 20, UNDEF)
    v.no_latest("k")
    v.null_as_of("k", SI + 30)
    v.value_as_of("k", SI + 15, "vp10", SI + 10, SI + 20)
    v.null_as_of("k", SI + 5)
    v.null_as_of("k", SI + 2)
    v.null_as_of("k", SI)
    v.null_as_of("k", SI - 1)
    v.value_as_of("k", SI - 5, "vn10", SI - 10, SI - 1)
    v.null_as_of("k", SI - 15)


def test_should_move_record_to_older_segment_during_put(v):
    v.put("k", "vp20", SI + 20, UNDEF)
    v.put("k", "vp10", SI + 10, SI + 20)
    v.put("k", "vn10", SI - 10, SI + 10)
    v.put("k", "vn2", SI - 2, SI + 10)
    v.put("k", "vn1", SI - 1, SI + 10)
    v.put("k", "vp1", SI + 1, SI + 10)
    v.latest("k", "vp20", SI + 20)
    v.value_as_of("k", SI + 30, "vp20", SI + 20, UNDEF)
    v.value_as_of("k", SI + 15, "vp10", SI + 10, SI + 20)
    v.value_as_of("k", SI + 5, "vp1", SI + 1, SI + 10)
    v.value_as_of("k", SI, "vn1", SI - 1, SI + 1)
    v.value_as_of("k", SI - 1, "vn1", SI - 1, SI + 1)
    v.value_as_of("k", SI - 2, "vn2", SI - 2, SI - 1)
    v.value_as_of("k", SI - 5, "vn10", SI - 10, SI - 2)


def test_should_move_record_to_older_segment_with_nulls_during_put(v):
    v.put("k", None, SI + 20, UNDEF)
    v.put("k", None, SI - 1, SI + 20)
    v.put("k", None, SI + 1, SI + 20)
    v.put("k", None, SI - 10, SI - 1)
    v.put("k", None, SI + 10, SI + 20)
    v.put("k", "vp5", SI + 5, SI + 10)
    v.put("k", "vn5", SI - 5, SI - 1)
    v.put("k", "vn6", SI - 6, SI - 5)
    v.no_latest("k")
    v.null_as_of("k", SI + 30)
    v.null_as_of("k", SI + 15)
    v.value_as_of("k", SI + 6, "vp5", SI + 5, SI + 10)
    v.null_as_of("k", SI + 2)
    v.null_as_of("k", SI)
    v.null_as_of("k", SI - 1)
    v.value_as_of("k", SI - 5, "vn5", SI - 5, SI - 1)
    v.value_as_of("k", SI - 6, "vn6", SI - 6, SI - 5)
    v.null_as_of("k", SI - 8)


def test_should_fall_through_to_existing_older_segment_as_latest_during_put(v):
    v.put("k", None, SI - 5, UNDEF)
    v.put("k", "vn6", SI - 6, SI - 5)
    v.put("k", "vp20", SI + 20, UNDEF)
    v.put("k", None, SI + 10, SI + 20)
    v.put("k", None, SI - 1, SI + 10)
    v.put("k", "vn2", SI - 2, SI - 1)
    v.latest("k", "vp20", SI + 20)
    v.value_as_of("k", SI + 30, "vp20", SI + 20, UNDEF)
    v.null_as_of("k", SI + 12)
    v.null_as_of("k", SI)
    v.null_as_of("k", SI - 1)
    v.value_as_of("k", SI - 2, "vn2", SI - 2, SI - 1)
    v.null_as_of("k", SI - 5)
    v.value_as_of("k", SI - 6, "vn6", SI - 6, SI - 5)


def test_should_put_non_latest_tombstone_into_new_segment_with_valid_to(v):
    v.put("k", "vp30", SI + 30, UNDEF)
    v.put("k", None, SI - 10, SI + 30)  # this put should result in tombstone with validTo=SI+30
    v.put("k", "vn5", SI - 5, SI + 30)
    v.put("k", "vn1", SI - 1, SI + 30)
    v.put("k", None, SI - 2, SI - 1)
    v.latest("k", "vp30", SI + 30)
    v.value_as_of("k", SI + 10, "vn1", SI - 1, SI + 30)
    v.value_as_of("k", SI - 1, "vn1", SI - 1, SI + 30)
    v.null_as_of("k", SI - 2)
    v.value_as_of("k", SI - 5, "vn5", SI - 5, SI - 2)
    v.null_as_of("k", SI - 10)


def test_should_delete(v):
    v.put("k", "vp20", SI + 20, UNDEF)
    v.put("k", "vp10", SI + 10, SI + 20)
    v.put("k", "vn10", SI - 10, SI + 10)
    v.put("k", "vn2", SI - 2, SI + 10)
    deleted = v.delete("k", SI - 5)  # delete from segment
    assert deleted.value == "vn10"
    assert deleted.timestamp == SI - 10
    deleted = v.delete("k", SI + 10)  # delete existing timestamp
    assert deleted.value == "vp10"
    assert deleted.timestamp == SI + 10
    deleted = v.delete("k", SI + 10)  # delete the same timestamp again
    assert deleted is None
    deleted = v.delete("k", SI + 25)  # delete from latest value store
    assert deleted.value == "vp20"
    assert deleted.timestamp == SI + 20


def test_should_not_put_expired(v):
    v.put("k", "v", HR + 10, UNDEF)
    # grace period has not elapsed
    v.put("k1", "v1", HR + 10 - GRACE, UNDEF)
    v.latest("k1", "v1", HR + 10 - GRACE)
    # grace period has elapsed, so this put does not take place
    v.put("k2", "v2", HR + 9 - GRACE, NOT_PUT)
    v.no_latest("k2")
    v.expired_records(1)


def test_should_not_delete_expired(v):
    v.put("k1", "v1", 1, UNDEF)
    v.put("k2", "v2", 1, UNDEF)
    v.put("kother", "vother", HR + 10, UNDEF)  # use separate key to advance stream time
    # grace period has not elapsed
    deleted = v.delete("k1", HR + 10 - GRACE)
    assert deleted.value == "v1"
    assert deleted.timestamp == 1
    v.no_latest("k1")
    # grace period has elapsed, so this delete does not take place
    deleted = v.delete("k2", HR + 9 - GRACE)
    # return value is null even though record exists because delete did not take place
    assert deleted is None
    v.latest("k2", "v2", 1)
    v.expired_records(1)


def test_should_get_from_older_segments(v):
    # use a different key to create three different segments
    v.put("ko", None, SI - 10, UNDEF)
    v.put("ko", None, 2 * SI - 10, UNDEF)
    v.put("ko", None, 3 * SI - 10, UNDEF)
    # return null after visiting all segments
    v.null_as_of("k", SI - 20)
    # insert data to create non-empty (first) segment
    v.put("k", "v", SI - 20, UNDEF)
    v.put("k", None, SI - 10, UNDEF)
    v.null_as_of("k", SI - 30)
    v.value_as_of("k", SI - 15, "v", SI - 20, SI - 10)
    v.null_as_of("k", SI - 5)
    # insert data to create non-empty (third) segment
    v.put("k", "v2", 3 * SI - 20, UNDEF)
    v.put("k", None, 3 * SI - 10, UNDEF)
    # presence of non-empty later segment does not affect results of getting from earlier segment
    v.null_as_of("k", SI - 30)
    v.value_as_of("k", SI - 15, "v", SI - 20, SI - 10)
    v.null_as_of("k", SI - 5)


def test_should_not_get_expired(v):
    v.put("k", "v_old", 0, UNDEF)
    v.put("k", "v", SI - 10, UNDEF)
    # old record has not yet expired
    v.value_as_of("k", SI - 11, "v_old", 0, SI - 10)
    v.put("ko", "vo", HR + SI - 11, UNDEF)
    # old record still has not yet expired
    v.value_as_of("k", SI - 11, "v_old", 0, SI - 10)
    v.put("ko", "vo2", HR + SI - 10, UNDEF)
    # old record is expired now
    v.null_as_of("k", SI - 11)


def test_should_get_expired_if_latest_value(v):
    v.put("k", "v", 1, UNDEF)
    v.put("ko", "vo_old", 1, UNDEF)
    v.put("ko", "vo_new", HR + 12, UNDEF)
    # expired get on key where latest satisfies timestamp bound still returns data
    v.value_as_of("k", 10, "v", 1, UNDEF)
  # same expired get on key where latest value does not satisfy timestamp bound does not return data

    v.null_as_of("ko", 10)


def test_should_distinguish_empty_and_null(v):
    v.put("k", None, SI + 20, UNDEF)
    v.put("k", None, SI - 10, SI + 20)
    v.put("k", None, SI - 1, SI + 20)
    v.put("k", None, SI + 1, SI + 20)
    v.put("k", None, SI + 10, SI + 20)
    # empty string is serialized as an empty byte array, which is different from null (tombstone)
    v.put("k", "", SI + 5, SI + 10)
    v.put("k", "", SI - 5, SI - 1)
    v.put("k", "", SI - 6, SI - 5)
    v.no_latest("k")
    v.null_as_of("k", SI + 30)
    v.null_as_of("k", SI + 15)
    v.value_as_of("k", SI + 6, "", SI + 5, SI + 10)
    v.null_as_of("k", SI + 2)
    v.null_as_of("k", SI)
    v.null_as_of("k", SI - 1)
    v.value_as_of("k", SI - 5, "", SI - 5, SI - 1)
    v.value_as_of("k", SI - 6, "", SI - 6, SI - 5)
    v.null_as_of("k", SI - 8)


def test_should_restore(v):
    records = []
    records.append(("k", "vp20", SI + 20))
    records.append(("k", "vp10", SI + 10))
    records.append(("k", "vn10", SI - 10))
    records.append(("k", "vn2", SI - 2))
    records.append(("k", "vn1", SI - 1))
    records.append(("k", "vp1", SI + 1))
    v.restore(records)
    v.latest("k", "vp20", SI + 20)
    v.value_as_of("k", SI + 30, "vp20", SI + 20, UNDEF)
    v.value_as_of("k", SI + 15, "vp10", SI + 10, SI + 20)
    v.value_as_of("k", SI + 5, "vp1", SI + 1, SI + 10)
    v.value_as_of("k", SI, "vn1", SI - 1, SI + 1)
    v.value_as_of("k", SI - 1, "vn1", SI - 1, SI + 1)
    v.value_as_of("k", SI - 2, "vn2", SI - 2, SI - 1)
    v.value_as_of("k", SI - 5, "vn10", SI - 10, SI - 2)


def test_should_restore_with_nulls(v):
    records = []
    records.append(("k", None, SI + 20))
    records.append(("k", None, SI - 1))
    records.append(("k", None, SI + 1))
    records.append(("k", None, SI - 10))
    records.append(("k", None, SI + 10))
    records.append(("k", "vp5", SI + 5))
    records.append(("k", "vn5", SI - 5))
    records.append(("k", "vn6", SI - 6))
    v.restore(records)
    v.no_latest("k")
    v.null_as_of("k", SI + 30)
    v.null_as_of("k", SI + 15)
    v.value_as_of("k", SI + 6, "vp5", SI + 5, SI + 10)
    v.null_as_of("k", SI + 2)
    v.null_as_of("k", SI)
    v.null_as_of("k", SI - 1)
    v.value_as_of("k", SI - 5, "vn5", SI - 5, SI - 1)
    v.value_as_of("k", SI - 6, "vn6", SI - 6, SI - 5)
    v.null_as_of("k", SI - 8)


def test_should_restore_with_nulls_and_repeat_timestamps(v):
    records = []
    records.append(("k", "to_be_replaced", SI + 20))
    records.append(("k", None, SI - 10))
    # replaces existing null with non-null, with timestamps spanning segments
    records.append(("k", "to_be_replaced", SI - 10))
    records.append(("k", None, SI - 10))  # replaces existing non-null with null
    records.append(("k", "to_be_replaced", SI - 1))
    records.append(("k", "to_be_replaced", SI + 1))
    records.append(("k", None, SI - 1))  # replaces existing non-null with null
    # replaces existing non-null with null, with timestamps spanning segments
    records.append(("k", None, SI + 1))
    records.append(("k", None, SI + 10))
    records.append(("k", None, SI + 5))
    records.append(("k", "vp5", SI + 5))  # replaces existing null with non-null
    records.append(("k", "to_be_replaced", SI - 5))
    records.append(("k", "vn5", SI - 5))  # replaces existing non-null with non-null
    records.append(("k", None, SI + 20))  # replaces existing non-null (latest value) with null
    records.append(("k", None, SI + 20))  # replaces existing null with null
    records.append(("k", "vn6", SI - 6))
    v.restore(records)
    v.no_latest("k")
    v.null_as_of("k", SI + 30)
    v.null_as_of("k", SI + 15)
    v.value_as_of("k", SI + 6, "vp5", SI + 5, SI + 10)
    v.null_as_of("k", SI + 2)
    v.null_as_of("k", SI)
    v.null_as_of("k", SI - 1)
    v.value_as_of("k", SI - 5, "vn5", SI - 5, SI - 1)
    v.value_as_of("k", SI - 6, "vn6", SI - 6, SI - 5)
    v.null_as_of("k", SI - 8)


def test_should_restore_multiple_batches(v):
    records = []
    records.append(("k", None, SI - 20))
    records.append(("k", "vn10", SI - 10))
    records.append(("k", None, SI - 1))
    moreRecords = []
    moreRecords.append(("k", None, SI + 1))
    moreRecords.append(("k", "vp10", SI + 10))
    moreRecords.append(("k", None, SI + 20))
    v.restore(records)
    v.restore(moreRecords)
    v.no_latest("k")
    v.null_as_of("k", SI + 30)
    v.value_as_of("k", SI + 15, "vp10", SI + 10, SI + 20)
    v.null_as_of("k", SI + 5)
    v.null_as_of("k", SI + 2)
    v.null_as_of("k", SI)
    v.null_as_of("k", SI - 1)
    v.value_as_of("k", SI - 5, "vn10", SI - 10, SI - 1)
    v.null_as_of("k", SI - 15)


def test_should_not_restore_expired(v):
    records = []
    records.append(("k", "v", HR + 10))
    records.append(("k1", "v1", HR + 10 - GRACE))  # grace period has not elapsed
    # grace period has elapsed, so this record should not be restored
    records.append(("k2", "v2", HR + 9 - GRACE))
    v.restore(records)
    v.latest("k", "v", HR + 10)
    v.latest("k1", "v1", HR + 10 - GRACE)
    v.no_latest("k2")
    v.expired_records(0)


def test_should_restore_even_if_record_would_be_expired_by_end_of_batch(v):
    records = []
    # this record will be older than grace period by the end of the batch, but should still
    # be restored
    records.append(("k2", "v2", HR - GRACE))
    records.append(("k", "v", HR + 10))
    v.restore(records)
    v.latest("k2", "v2", HR - GRACE)
    v.latest("k", "v", HR + 10)


def test_should_allow_zero_history_retention(make_store):
    v = make_store(0)  # recreate the store with zero history retention
    # recreate store with zero history retention
    # put and get
    v.put("k", "v", BASE, UNDEF)
    v.latest("k", "v", BASE)
    v.value_as_of("k", BASE, "v", BASE, UNDEF)
    v.value_as_of("k", BASE + 1, "v", BASE, UNDEF)  # query in "future" is allowed
    # update existing record at same timestamp
    v.put("k", "updated", BASE, UNDEF)
    v.latest("k", "updated", BASE)
    v.value_as_of("k", BASE, "updated", BASE, UNDEF)
    # put new record version
    v.put("k", "v2", BASE + 2, UNDEF)
    v.latest("k", "v2", BASE + 2)
    v.value_as_of("k", BASE + 2, "v2", BASE + 2, UNDEF)
    # query in past (history retention expired) returns null
    v.null_as_of("k", BASE + 1)
    # delete existing key
    v.delete("k", BASE + 3)
    v.no_latest("k")
    # put in past (grace period expired) does not update the store
    v.put("k2", "v", BASE + 2, NOT_PUT)
    v.no_latest("k2")
    v.expired_records(1)
