"""Ending the runtime's Kafka clients, so nothing a closed app made keeps a connection open.

A librdkafka client lives (its threads, its connections, its reconnect attempts) until it is
closed or its last reference goes, and a reference cycle (a producer whose delivery callback
holds the object that holds the producer) can keep it for as long as the process runs.
Invariant: a producer handed to ``close_producer`` is closed on return, whatever its queue
held and whether or not the broker is still there.
"""

from __future__ import annotations

import logging
from typing import Any

__all__ = ["close_producer"]

log = logging.getLogger("kslab.runtime")


def close_producer(producer: Any, timeout: float, name: str = "a producer") -> int:
    """Flush ``producer`` for up to ``timeout`` s, drop what is still queued, and close it.

    Returns the number of records dropped (logged as a warning naming ``name``). A plain
    ``Producer.close()`` would wait for every queued record, up to ``message.timeout.ms``
    (5 minutes by default) when the broker is gone.
    """
    left = producer.flush(timeout)
    if left:
        log.warning("%s: %d record(s) not delivered within %.0f s of closing were dropped",
                    name, left, timeout)
        producer.purge()
        producer.flush(0)  # serve the purged records' delivery reports
    producer.close()
    return left
