"""Fixtures for the Spark tests: one local[2] SparkSession for the whole run."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
# Spark's Python workers import the processors these tests define from spark_apps
os.environ["PYTHONPATH"] = os.pathsep.join(
    p for p in (str(HERE), os.environ.get("PYTHONPATH", "")) if p)


@pytest.fixture(scope="session")
def spark(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """The session's SparkSession (local[2], loopback, scratch under pytest's tmp dir)."""
    from kslab.spark import session

    scratch = tmp_path_factory.mktemp("spark-scratch")
    spark = session("local[2]", scratch_dir=scratch)
    spark.sparkContext.setLogLevel("ERROR")
    yield spark
    spark.stop()
