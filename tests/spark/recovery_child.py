"""The driver process test_streaming_recovery kills: the DSL word count streamed on Spark.

Run as ``python recovery_child.py SERVERS LINES COUNTS CHECKPOINT SCRATCH MODE``: it starts its
own local[2] SparkSession and streams ``LINES`` to ``COUNTS`` with its state and offsets in
``CHECKPOINT``; MODE ``run`` keeps going (a processing-time trigger, 20 records per micro-batch)
until it is killed, ``finish`` stops once everything on the topics is processed
(``availableNow``). Its stdout says ``started`` once the queries run.
"""

from __future__ import annotations

import sys

import spark_apps as apps

from kslab.spark import session, start


def main(servers: str, lines: str, counts: str, checkpoint: str, scratch: str,
         mode: str) -> None:
    spark = session("local[2]", scratch_dir=scratch)
    spark.sparkContext.setLogLevel("ERROR")
    config = {"application.id": lines.replace("-lines", "-app"), "bootstrap.servers": servers}
    trigger = {"availableNow": True} if mode == "finish" else {"processingTime": "200 milliseconds"}
    streams = start(apps.word_count_on(lines, counts), config, checkpoint_location=checkpoint,
                    trigger=trigger, spark=spark,
                    max_offsets_per_trigger=None if mode == "finish" else 20)
    print("started", flush=True)
    if not streams.await_termination(600):
        sys.exit(2)
    spark.stop()


if __name__ == "__main__":
    main(*sys.argv[1:])
