"""A user's own serdes (``serdes.from_functions``, a ``Serde`` subclass) on the batch path: the
source, sink and repartition serdes see exactly the record path's calls (each field once), and
every observable (outputs, store bytes, changelogs, metrics, history) equals the record path's, on
one partition and several; a serde that raises sends the chunk record by record, which raises
its error at the same record with the same partial state."""

from __future__ import annotations

import json
from typing import Any

import pytest

import kslab as ks
from kslab import serdes
from tests.testing.driver_observables import state

S = serdes.String()
CALLS: list[tuple[str, Any]] = []  # every call of the user's serdes, in order


def _dumps(value: Any) -> bytes:
    CALLS.append(("dumps", value))
    if value == {"amount": -1}:
        msg = "amount -1 cannot be written"
        raise ValueError(msg)
    return json.dumps(value, sort_keys=True).encode()


def _loads(data: bytes) -> Any:
    CALLS.append(("loads", data))
    return json.loads(data)


class UpperKeys(serdes.Serde):
    """A user's key serde: keys travel upper-cased."""

    def serialize(self, topic: str | None, data: Any, headers: Any = None) -> bytes | None:
        CALLS.append(("key", data))
        return None if data is None else data.upper().encode()

    def deserialize(self, topic: str | None, data: bytes | None, headers: Any = None) -> Any:
        CALLS.append(("key", data))
        return None if data is None else data.decode().lower()


ORDERS = serdes.from_functions(_dumps, _loads)


def _topology(aggregate: bool) -> ks.Topology:
    b = ks.StreamsBuilder()
    orders = b.stream("orders", ks.Consumed.with_(UpperKeys(), ORDERS))
    kept = orders.filter(lambda k, v: v["amount"] > 50) \
        .map_values(lambda v: {**v, "amount_x2": v["amount"] * 2})
    if aggregate:
        (kept.group_by_key(ks.Grouped.with_(UpperKeys(), ORDERS))
         .count()
         .to_stream()
         .map_values(lambda n: {"orders": n})
         .to("out", ks.Produced.with_(UpperKeys(), ORDERS)))
    else:
        kept.to("out", ks.Produced.with_(UpperKeys(), ORDERS))
    return b.build()


def _drive(aggregate: bool, bulk: bool, partitions: int, rows: list[tuple[str, Any]]
           ) -> tuple[Any, ...]:
    CALLS.clear()
    error = None
    with ks.TopologyTestDriver(_topology(aggregate), {"kslab.driver.bulk": bulk},
                               partitions={"orders": partitions} if partitions > 1 else None
                               ) as driver:
        topic = driver.create_input_topic("orders", UpperKeys(), ORDERS)
        try:
            topic.pipe_key_value_list(rows)
        except ks.KslabError as exc:
            error = str(exc)
        observed = state(driver)
        # internal on purpose: the bulk executor itself (which one ran, its per-chunk counters)
        executor = driver._partitioned if partitions > 1 else driver._bulk
        chunks = executor.chunks if bulk else 0
    return observed, error, chunks, list(CALLS)


def _orders(n: int) -> list[tuple[str, Any]]:
    return [(f"user{i % 13}", {"id": i, "amount": (i * 37) % 100}) for i in range(n)]


@pytest.mark.parametrize("aggregate", [False, True], ids=["stateless", "count"])
@pytest.mark.parametrize("partitions", [1, 3])
def test_user_serdes_run_in_batch_as_on_the_record_path(aggregate: bool,
                                                        partitions: int) -> None:
    rows = _orders(600)
    batch, batch_error, chunks, batch_calls = _drive(aggregate, True, partitions, rows)
    record, record_error, _, record_calls = _drive(aggregate, False, partitions, rows)
    assert chunks > 0
    assert batch_error is record_error is None
    assert batch == record
    # each serde sees the same fields (per partition the same order of keys and of values)
    assert sorted(map(repr, batch_calls)) == sorted(map(repr, record_calls))
    outputs = batch["outputs"]["out"]
    passing = [i for i in range(600) if (i * 37) % 100 > 50]
    assert len(outputs) == len(passing) == 294  # (every update of the count: one per order)
    if partitions == 1:
        key, value = outputs[0][:2]
        assert key == b"USER2"
        assert json.loads(value) == ({"orders": 1} if aggregate else
                                     {"amount": 74, "amount_x2": 148, "id": 2})


def test_a_user_serde_that_raises_leaves_the_record_paths_error_and_state() -> None:
    """The sink's serializer refuses order 5's value: the chunk goes record by record, which
    raises at order 5 with orders 0-4 processed, as the record path does."""
    rows = _orders(10)
    rows[5] = ("user5", {"amount": 90})
    bad = {"amount": -1}

    def refusing(value: Any) -> Any:
        return bad if value == {"amount": 90, "amount_x2": 180} else value

    b = ks.StreamsBuilder()
    (b.stream("orders", ks.Consumed.with_(UpperKeys(), ORDERS))
     .filter(lambda k, v: v["amount"] > 50)
     .map_values(lambda v: refusing({**v, "amount_x2": v["amount"] * 2}))
     .to("out", ks.Produced.with_(UpperKeys(), ORDERS)))
    outcomes = []
    for bulk in (True, False):
        with ks.TopologyTestDriver(b.build(), {"kslab.driver.bulk": bulk}) as driver:
            with pytest.raises(ks.KslabError, match="amount -1 cannot be written"):
                driver.create_input_topic("orders", UpperKeys(), ORDERS).pipe_key_value_list(
                    rows)
            outcomes.append(state(driver))
    assert outcomes[0] == outcomes[1]
    written = outcomes[0]["outputs"]["out"]
    assert [json.loads(record[1])["id"] for record in written] == [2]  # (0, 1, 3, 4 filtered)
