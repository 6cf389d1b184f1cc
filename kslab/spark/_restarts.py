"""Restarting a streaming query that died because a Python worker started too slowly.

Spark gives a new Python worker 10 s to connect back to its JVM (a constant in
``PythonWorkerFactory``, not a setting), and a worker connecting to a stateful query's state
server gets as long. A Python data source's planner and reader, and ``transformWithStateInPandas``,
start such workers; on a machine short of CPU (a loaded CI runner, a busy laptop) one can miss
the deadline, and Spark then fails the whole query with "Python worker failed to connect back"
(or ``CANNOT_OPEN_SOCKET`` ... ``timed out`` from the worker's side). Nothing about the
application is wrong: the query's checkpoint holds its offsets and state, and starting it again
from the checkpoint is exactly Spark's own recovery (the micro-batch that failed is run again;
its Kafka writes are at least once, and kslab's readers drop replayed repartition rows).
So ``SparkStreams.await_termination`` restarts such a query, warning each time, up to
``kslab.spark.query.restarts`` times per query (default 3); any other failure is raised as is.
"""

from __future__ import annotations

import logging
from typing import Any

from kslab.config import StreamsConfig
from kslab.errors import ConfigError

__all__ = ["DEFAULT_RESTARTS", "restarts_allowed", "warn_restart", "worker_start_failure"]

log = logging.getLogger("kslab.spark")

DEFAULT_RESTARTS = 3

# what Spark says when a Python worker did not connect in time, from either side
_SIGNS = (
    "Python worker failed to connect back",
    "Timed out while waiting for the Python worker to connect back",
)


def worker_start_failure(error: BaseException) -> bool:
    """Whether ``error`` (a failed query's exception) is a Python worker that started too
    slowly, not a failure of the application's own code or data."""
    text = str(error)
    if any(sign in text for sign in _SIGNS):
        return True
    return "CANNOT_OPEN_SOCKET" in text and "timed out" in text


def restarts_allowed(props: dict[str, Any]) -> int:
    """``kslab.spark.query.restarts`` from the application's config (default 3)."""
    value = StreamsConfig(props).get("kslab.spark.query.restarts")
    if value is None:
        return DEFAULT_RESTARTS
    count = int(value)
    if count < 0:
        msg = f"kslab.spark.query.restarts must be 0 or more, not {value!r}"
        raise ConfigError(msg)
    return count


def warn_restart(name: str, attempt: int, allowed: int, error: BaseException) -> None:
    """Log that query ``name`` is restarted from its checkpoint, and why."""
    first = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
    log.warning("Spark streaming query %s failed because a Python worker did not start in time "
                "(%s); restarting it from its checkpoint (restart %d of %d, "
                "kslab.spark.query.restarts)", name, first[:300], attempt, allowed)
