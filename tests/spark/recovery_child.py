"""The driver process test_streaming_recovery kills: the DSL word count streamed on Spark.

Run as ``python recovery_child.py SERVERS LINES COUNTS CHECKPOINT SCRATCH [PAUSE_TOPIC MARKER]``:
it starts its own local[2] SparkSession and streams ``LINES`` to ``COUNTS`` with its state and
offsets in ``CHECKPOINT``, with ``availableNow`` (each sub-topology to the end of its input,
in turn). Its stdout says ``started`` once the queries run.

With ``PAUSE_TOPIC``, the first Spark task that writes rows to that topic holds its micro-batch
open once the rows are acknowledged by Kafka: it writes ``MARKER`` and sleeps until the test
kills the process group. So a kill lands inside a micro-batch by construction (its rows on the
broker, its commit not in the checkpoint), not at a moment a timer guessed. A streaming task
produces its rows itself (``TaskProcessor.send_rows``); the pause is in a subclass of kslab's task
processor (the test's, not kslab's) that ``start`` builds in its place.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import Any

import spark_apps as apps

import kslab.spark._streaming as streaming
from conftest import start_session
from kslab.spark import start


class PausingProcessor(streaming.TaskProcessor):
    """kslab's streaming task processor, holding its micro-batch open after producing to the
    pause topic (``KSLAB_TEST_PAUSE_TOPIC``, in the Python workers' environment)."""

    def send_rows(self, columns: dict[str, list[Any]]) -> None:
        super().send_rows(columns)
        topic = os.environ.get("KSLAB_TEST_PAUSE_TOPIC")
        if topic and topic in columns["topic"]:
            Path(os.environ["KSLAB_TEST_PAUSE_MARKER"]).write_text(f"{os.getpid()}\n")
            time.sleep(600)  # until the test kills the process group


def main(servers: str, lines: str, counts: str, checkpoint: str, scratch: str,
         pause_topic: str = "", marker: str = "") -> None:
    if pause_topic:  # before the session: its Python workers inherit the environment
        os.environ["KSLAB_TEST_PAUSE_TOPIC"] = pause_topic
        os.environ["KSLAB_TEST_PAUSE_MARKER"] = marker
    spark = start_session(Path(scratch))  # local[2], as the tests' session
    # start() builds each query's processor: it builds the pausing one instead (this module
    # is Spark's ``__main__`` here, so the subclass reaches the workers by value)
    streaming.TaskProcessor = PausingProcessor  # type: ignore[misc]
    config = {"application.id": lines.replace("-lines", "-app"), "bootstrap.servers": servers}
    streams = start(apps.word_count_on(lines, counts), config, checkpoint_location=checkpoint,
                    trigger={"availableNow": True}, spark=spark, max_offsets_per_trigger=40)
    print("started", flush=True)
    if not streams.await_termination(600):
        sys.exit(2)
    spark.stop()


if __name__ == "__main__":
    main(*sys.argv[1:])
