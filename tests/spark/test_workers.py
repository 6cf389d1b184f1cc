"""Spark's Python workers must import the driver's kslab: one clear error when they cannot.

Each test points the session's SparkContext at another worker Python (``pythonExec``, the
executable PySpark starts its workers with, which it reads from ``PYSPARK_PYTHON``): a script
that runs a Python in a directory of its own, so the worker's ``sys.path`` holds only what that
Python has installed (not this checkout's ``kslab``).
"""

from __future__ import annotations

import re
import shlex
import sys
import venv
from pathlib import Path

import pytest

import kslab as ks
from kslab.spark import SparkUnavailableError, explain, run_batch, start

GROUP = "kslab-worker-check"  # the job group of the check (kslab.spark._workers)


def worker_python(base: Path, python: str, files: dict[str, str] | None = None) -> str:
    """A worker Python for Spark: a script running ``python`` in a directory of its own that
    holds only ``files``."""
    home = base / "home"
    home.mkdir(parents=True)
    for relative, text in (files or {}).items():
        (home / relative).parent.mkdir(parents=True, exist_ok=True)
        (home / relative).write_text(text)
    script = base / "worker-python"
    run = f'cd {shlex.quote(str(home))} && exec {shlex.quote(python)} "$@"'
    script.write_text(f"#!/bin/sh\n{run}\n")
    script.chmod(0o755)
    return str(script)


def fix() -> str:
    return (f"stop this SparkSession and start one with kslab.spark.session(), which runs the "
            f"workers on the driver's Python ({sys.executable}), or set PYSPARK_PYTHON to a "
            f"Python that has kslab {ks.__version__} installed before the SparkContext starts")


def pass_through():
    return (ks.Topology().add_source("src", "in", key_serde="string", value_serde="string")
            .add_sink("out", "out", "src", key_serde="string", value_serde="string"))


def frame(spark):
    return spark.createDataFrame([("k", "v", 1)], "key string, value string, timestamp long")


def test_a_worker_python_without_kslab_is_named_by_every_entry_point(spark, monkeypatch,
                                                                        tmp_path):
    bare = tmp_path / "bare"
    venv.create(bare, with_pip=False)  # a fresh venv: the base Python, nothing installed
    script = worker_python(tmp_path, str(bare / "bin" / "python"))
    monkeypatch.setattr(spark.sparkContext, "pythonExec", script)
    expected = (f"Spark's Python workers run {bare / 'bin' / 'python'} "
                f"(PYSPARK_PYTHON={script!r} when the SparkContext started), which cannot "
                f"import kslab (ModuleNotFoundError: No module named 'kslab'); {fix()}")

    with pytest.raises(SparkUnavailableError) as batch:
        run_batch(pass_through(), {"in": frame(spark)})
    assert str(batch.value) == expected
    with pytest.raises(SparkUnavailableError) as report:
        explain(pass_through())
    assert str(report.value) == expected
    with pytest.raises(SparkUnavailableError) as streaming:  # before the (absent) broker
        start(pass_through(), {"application.id": "a", "bootstrap.servers": "127.0.0.1:1"},
              checkpoint_location=str(tmp_path / "ckpt"), spark=spark)
    assert str(streaming.value) == expected


def test_a_worker_with_another_kslab_version_is_named(spark, monkeypatch, tmp_path):
    script = worker_python(tmp_path, sys.executable,
                           {"kslab/__init__.py": '__version__ = "0.0.9"\n'})
    monkeypatch.setattr(spark.sparkContext, "pythonExec", script)

    with pytest.raises(SparkUnavailableError) as caught:
        run_batch(pass_through(), {"in": frame(spark)})
    assert str(caught.value) == (
        f"Spark's Python workers run {sys.executable} (PYSPARK_PYTHON={script!r} when the "
        f"SparkContext started), which imports kslab 0.0.9, but the driver runs kslab "
        f"{ks.__version__}; {fix()}")


def test_a_worker_python_that_does_not_start_is_named(spark, monkeypatch, tmp_path):
    missing = str(tmp_path / "no-such-python")
    monkeypatch.setattr(spark.sparkContext, "pythonExec", missing)

    with pytest.raises(SparkUnavailableError) as caught:
        run_batch(pass_through(), {"in": frame(spark)})
    assert re.fullmatch(
        re.escape(f"Spark's Python workers did not start with {missing} (PYSPARK_PYTHON="
                  f"{missing!r} when the SparkContext started) (java.io.IOException: Cannot "
                  f'run program "{missing}"') + r"[^\n]*" + re.escape(f"); {fix()}"),
        str(caught.value))


def test_the_check_runs_once_per_context_and_worker_python(spark, monkeypatch, tmp_path):
    # a good worker Python under a name this session has not checked yet
    monkeypatch.setattr(spark.sparkContext, "pythonExec", worker_python(tmp_path, sys.executable))
    tracker = spark.sparkContext.statusTracker()
    before = len(tracker.getJobIdsForGroup(GROUP))

    first = run_batch(pass_through(), {"in": frame(spark)})["out"]
    assert len(tracker.getJobIdsForGroup(GROUP)) == before + 1
    second = run_batch(pass_through(), {"in": frame(spark)})["out"]
    explain(pass_through())
    assert len(tracker.getJobIdsForGroup(GROUP)) == before + 1
    assert [(r["key"], r["value"], r["timestamp"]) for r in first.collect()] == \
        [(b"k", b"v", 1)]
    assert [(r["key"], r["value"], r["timestamp"]) for r in second.collect()] == \
        [(b"k", b"v", 1)]
    assert spark.sparkContext.getLocalProperty("spark.jobGroup.id") is None  # left as it was
