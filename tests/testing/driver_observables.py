"""Every observable of a ``TopologyTestDriver`` as plain comparable values, for the tests that
drive one program on the bulk path and on the record path and require the same of both
(``test_bulk_differential``, ``test_bulk_errors``, ``test_batch_differential``)."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import kslab as ks

__all__ = ["attrs", "captured_warnings", "error_summary", "record_context", "state"]


def state(driver: ks.TopologyTestDriver) -> dict[str, Any]:
    """Every observable of a driver: each topic's log record by record (outputs, repartition
    and changelog topics), and per task (the global one included, when there is one) its
    partition group, partition times, stream time, metrics, store bytes, record caches and
    their counters, the stores' and processors' integer state and the processor context;
    then the offsets, history and ``driver.metrics()``."""
    outputs = {}
    for topic, log in driver.output_logs().items():
        outputs[topic] = [log.record(i) for i in range(log.total)]
    tasks = {str(tid): _task_state(task) for tid, task in driver.tasks.items()}
    # internal on purpose: the differential tests compare every piece of driver state
    global_task = driver._layout.global_task
    if global_task is not None:
        tasks["global"] = _task_state(global_task)
    # internal on purpose: the differential tests compare every piece of driver state
    return {"outputs": outputs, "tasks": tasks, "offsets": dict(driver._offsets),
            "history": driver.history, "metrics": driver.metrics()}


def _task_state(task: Any) -> dict[str, Any]:
    """One task's observables (see ``state``)."""
    stores = {}
    for name, store in task.stores.items():
        entry: dict[str, Any] = {"bytes": store.snapshot()}
        named = getattr(store, "_named", None)
        if named is not None:
            entry["cache"] = [
                (k, e.value, e.is_dirty, e.offset, e.timestamp, e.partition, e.topic,
                 e.headers, e.size, e.obj, e.key_obj, record_context(e.record))
                # internal on purpose: the record caches' entries and dirty keys, compared whole
                for k, e in named._entries.items()]  # in LRU order
            entry["cache_counters"] = (named.hits, named.misses, named.overwrites,
                                       named.flushes, named.current_size_bytes,
                                       list(named._dirty))
            cache = store.thread_cache
            entry["thread_cache"] = (cache.puts, cache.gets, cache.evicts, cache.flushes,
                                     cache.size_bytes())
        inner = getattr(store, "wrapped", store)
        entry["ints"] = {k: v for k, v in attrs(inner).items() if isinstance(v, int)}
        stores[name] = entry
    processors = {}
    for name, runtime in task.nodes.items():
        processor = getattr(runtime, "processor", None)
        if processor is not None:
            processors[name] = {k: v for k, v in attrs(processor).items()
                                if isinstance(v, int) and not isinstance(v, bool)}
    return {
        "group": task.partition_group.snapshot(),
        "partition_times": {tp: q.partition_time for tp, q in task.queues.items()},
        "stream_time": task.stream_time,
        "metrics": task.metrics.as_dict(),
        "stores": stores,
        "processors": processors,
        "context": (task.context.topic, task.context.partition, task.context.offset),
    }


def record_context(record: Any) -> Any:
    """A cached entry's record context as a plain tuple."""
    if record is None:
        return None
    return (record.key, record.value, record.timestamp, record.raw_headers)


def attrs(obj: Any) -> dict[str, Any]:
    """An object's attributes, from its ``__dict__`` and every ``__slots__`` of its classes."""
    found = dict(getattr(obj, "__dict__", {}))
    for cls in type(obj).__mro__:
        for slot in getattr(cls, "__slots__", ()):
            if slot not in found and hasattr(obj, slot):
                found[slot] = getattr(obj, slot)
    return found


def error_summary(err: BaseException) -> tuple[Any, ...]:
    """What a raised error tells: its type, message, and the node, topic, partition, offset,
    key and value it names (``None`` where it names none)."""
    where = tuple(getattr(err, name, None)
                  for name in ("node", "topic", "partition", "offset", "key", "value"))
    return (type(err).__name__, str(err), *where)


class _Collect(logging.Handler):
    """Keeps each kslab record's logger name, level and message: another library's warning
    (a garbage-collected Jupyter client of an earlier test on the same worker, say) may be
    logged during any block and is not the driver's."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[tuple[str, str, str]] = []

    def emit(self, record: logging.LogRecord) -> None:
        if record.name == "kslab" or record.name.startswith("kslab."):
            self.messages.append((record.name, record.levelname, record.getMessage()))


@contextmanager
def captured_warnings() -> Iterator[list[tuple[str, str, str]]]:
    """The warnings (and worse) logged inside the block, as ``(logger, level, message)``: the
    dropped-record warnings among them. A handler of its own on the root logger, so it works
    inside hypothesis' examples, where pytest's function-scoped ``caplog`` cannot be reset."""
    handler = _Collect()
    root = logging.getLogger()
    root.addHandler(handler)
    try:
        yield handler.messages
    finally:
        root.removeHandler(handler)


def piped_observables(topology: Any, pipes: list[tuple[str, list[tuple[Any, Any, int]]]],
                      bulk: bool, config: dict[str, Any] | None = None,
                      out_serde: Any = None) -> tuple[dict[str, Any], Any]:
    """Every observable of piping ``pipes`` (each a topic and its ``(key, value, timestamp)``
    records, String keys and Json values, piped as one list) into ``topology()`` with the bulk
    path on or off, the ``out`` topic read with ``out_serde`` (Json by default) and the
    warnings logged; and the bulk executor."""
    from kslab import serdes

    keys, values = serdes.String(), serdes.Json()
    with captured_warnings() as warnings:
        driver = ks.TopologyTestDriver(topology(), {"kslab.driver.bulk": bulk, **(config or {})})
        try:
            for topic, records in pipes:
                driver.create_input_topic(topic, keys, values).pipe_record_list(
                    [ks.TestRecord(k, v, ts) for k, v, ts in records])
            observed = state(driver)
            observed["out"] = [
                (r.key, r.value, r.timestamp) for r in driver.create_output_topic(
                    "out", keys, out_serde or values).read_records_to_list()]
            # internal on purpose: the bulk executor itself (which one ran, its per-chunk counters)
            executor = driver._bulk
        finally:
            driver.close()
    observed["warnings"] = list(warnings)
    return observed, executor
