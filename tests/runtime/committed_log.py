"""Read a topic as ``read_committed`` does, from the raw log, on any broker.

A ``read_committed`` consumer relies on the broker's list of aborted transactions in each fetch
response; Tansu 0.6 writes the commit and abort markers into the log but sends that list empty,
so librdkafka shows aborted records. This reader fetches the record batches themselves with
kafka-python's protocol classes and applies the markers as the log defines them: a
transactional batch is visible when the next control batch of its producer is a COMMIT, hidden
when it is an ABORT, and reading stops at the first batch whose transaction is still open (the
last stable offset).
"""

from __future__ import annotations

import time
from typing import Any

from kafka.client_async import KafkaClient
from kafka.protocol.fetch import FetchRequest
from kafka.record.memory_records import MemoryRecords

ABORT, COMMIT = 0, 1
_MAX_BYTES = 8 << 20


def _batches(client: KafkaClient, node: int, topic: str, partition: int) -> list[Any]:
    """Every record batch of ``topic``/``partition``, fetched until a fetch returns nothing."""
    out: list[Any] = []
    offset = 0
    while True:
        request = FetchRequest[4](-1, 100, 1, _MAX_BYTES, 0,
                                  [(topic, [(partition, offset, _MAX_BYTES)])])
        future = client.send(node, request)
        client.poll(future=future, timeout_ms=10_000)
        if not future.succeeded():
            raise RuntimeError(f"fetch of {topic}-{partition} at {offset} failed: "
                               f"{future.exception}")
        (_, parts), = future.value.topics
        (_, error, _hw, _lso, _aborted, raw), = parts
        if error:
            raise RuntimeError(f"fetch of {topic}-{partition} at {offset}: error code {error}")
        records = MemoryRecords(raw)
        fetched = 0
        while (batch := records.next_batch()) is not None:
            if batch.next_offset <= offset:
                continue
            out.append(batch)
            offset = batch.next_offset
            fetched += 1
        if not fetched:
            return out


def _fates(batches: list[Any]) -> dict[int, int]:
    """ABORT or COMMIT for each transactional data batch whose transaction has ended."""
    fate: dict[int, int] = {}
    open_txn: dict[int, list[int]] = {}  # producer id -> its undecided data batches
    for index, batch in enumerate(batches):
        if not batch.is_transactional:
            continue
        if batch.is_control_batch:
            (marker,) = list(batch)
            kind = int.from_bytes(marker.key[2:4], "big")
            for pending in open_txn.pop(batch.producer_id, []):
                fate[pending] = kind
        else:
            open_txn.setdefault(batch.producer_id, []).append(index)
    return fate


def _visible(batches: list[Any], open_as_aborted: bool = False
             ) -> list[tuple[bytes | None, bytes | None]]:
    """The records a read_committed consumer sees, in offset order (with ``open_as_aborted``,
    those it sees once every transaction still open has been aborted)."""
    fate = _fates(batches)
    out: list[tuple[bytes | None, bytes | None]] = []
    for index, batch in enumerate(batches):
        if batch.is_control_batch:
            continue
        if batch.is_transactional:
            if index not in fate:
                if open_as_aborted:
                    continue
                break  # an open transaction: the last stable offset
            if fate[index] == ABORT:
                continue
        out.extend((record.key, record.value) for record in batch)
    return out


def _connected(bootstrap: str, timeout: float) -> tuple[KafkaClient, int]:
    client = KafkaClient(bootstrap_servers=bootstrap, api_version=(2, 0))
    deadline = time.monotonic() + timeout
    node = None
    while node is None or not client.ready(node):
        if time.monotonic() > deadline:
            client.close()
            raise TimeoutError(f"no connection to {bootstrap}")
        client.poll(timeout_ms=100)
        node = client.least_loaded_node()
    return client, node


def aborted_record_count(bootstrap: str, topic: str, partitions: int = 1,
                         timeout: float = 10.0) -> int:
    """How many records of ``topic`` belong to aborted transactions."""
    client, node = _connected(bootstrap, timeout)
    try:
        total = 0
        for partition in range(partitions):
            batches = _batches(client, node, topic, partition)
            total += sum(batches[index].last_offset_delta + 1
                         for index, kind in _fates(batches).items() if kind == ABORT)
        return total
    finally:
        client.close()


def open_record_count(bootstrap: str, topic: str, partitions: int = 1,
                      timeout: float = 10.0) -> int:
    """How many records of ``topic`` belong to transactions with no marker yet (open ones)."""
    client, node = _connected(bootstrap, timeout)
    try:
        total = 0
        for partition in range(partitions):
            batches = _batches(client, node, topic, partition)
            fate = _fates(batches)
            total += sum(batch.last_offset_delta + 1 for index, batch in enumerate(batches)
                         if batch.is_transactional and not batch.is_control_batch
                         and index not in fate)
        return total
    finally:
        client.close()


def record_fates(bootstrap: str, topic: str, partitions: int = 1, timeout: float = 10.0
                 ) -> list[dict[str, Any]]:
    """Every data record of ``topic`` with where it came from and what became of it: ``key``,
    ``value``, ``partition``, ``offset``, ``producer_id``, ``epoch`` and ``fate`` (``"commit"``,
    ``"abort"``, ``"open"``, or ``"plain"`` outside a transaction), in offset order per
    partition: the evidence for telling a record committed twice from a reading error."""
    names = {ABORT: "abort", COMMIT: "commit"}
    client, node = _connected(bootstrap, timeout)
    try:
        out: list[dict[str, Any]] = []
        for partition in range(partitions):
            batches = _batches(client, node, topic, partition)
            fate = _fates(batches)
            for index, batch in enumerate(batches):
                if batch.is_control_batch:
                    continue
                kind = (names.get(fate.get(index, -1), "open") if batch.is_transactional
                        else "plain")
                out.extend({"key": record.key, "value": record.value, "partition": partition,
                            "offset": record.offset, "producer_id": batch.producer_id,
                            "epoch": batch.producer_epoch, "fate": kind} for record in batch)
        return out
    finally:
        client.close()


def read_committed_log(bootstrap: str, topic: str, partitions: int = 1,
                       timeout: float = 10.0, *, open_as_aborted: bool = False
                       ) -> list[tuple[bytes | None, bytes | None, int]]:
    """``(key, value, partition)`` of each committed record of ``topic``, partition by partition.

    A transaction with no marker yet stops a partition's reading there (the last stable offset),
    unless ``open_as_aborted``: then its records are skipped as Kafka's broker would once the
    transaction timed out and it aborted it (a check reads so once every live producer has
    committed, when an open transaction can only be a killed producer's).
    """
    client, node = _connected(bootstrap, timeout)
    try:
        return [(key, value, partition)
                for partition in range(partitions)
                for key, value in _visible(_batches(client, node, topic, partition),
                                           open_as_aborted)]
    finally:
        client.close()
