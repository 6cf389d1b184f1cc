"""The Spark engine: the same built topology run on Apache Spark through PySpark.

Spark supplies only I/O, ordering, state storage and clocks; every record goes through the
core's ``StreamTask`` (stream time, punctuation, routing and serdes are the core's own).
Invariant: batch replay (``run_batch``) equals the test driver's output record for record.
"""

from kslab.spark._batch import run_batch
from kslab.spark._streaming import SparkStreams, start
from kslab.spark.explain import NodeSemantics, SemanticsReport, explain
from kslab.spark.session import SparkUnavailableError, session

__all__ = [
    "NodeSemantics",
    "SemanticsReport",
    "SparkStreams",
    "SparkUnavailableError",
    "explain",
    "run_batch",
    "session",
    "start",
]
