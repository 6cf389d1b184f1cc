"""The Python that Spark's workers run: one check per SparkContext and worker Python that it
imports kslab at the driver's version.

Spark starts its Python workers with the executable ``PYSPARK_PYTHON`` named when the
SparkContext started (``python3`` on ``PATH`` when it was unset), not with the driver's own
Python. A worker that cannot import kslab, or imports another version of it, fails every kslab
task with a long worker traceback, and only once the user reads an output. Invariant:
``check_workers`` raises ``SparkUnavailableError`` naming the worker's Python before any kslab
task is planned; it runs one small job (job group ``kslab-worker-check``) the first time it
sees a (SparkContext, worker Python) pair and remembers only a passing check, so a user who
fixes the workers' environment is asked again.

Inside a worker, ``settle_worker_heap`` takes what a worker imported (PySpark, pyarrow, pandas,
kslab) out of the cyclic collector's walks, once per worker process (see there).
"""

from __future__ import annotations

import gc
import re
import weakref
from collections.abc import Callable, Iterator
from typing import Any

from kslab.spark.session import SparkUnavailableError

__all__ = ["JOB_GROUP", "check_active_workers", "check_workers", "settle_worker_heap"]

JOB_GROUP = "kslab-worker-check"
_GROUP_PROPERTIES = ("spark.jobGroup.id", "spark.job.description", "spark.job.interruptOnCancel")
_FIX = ("stop this SparkSession and start one with kslab.spark.session(), which runs the "
        "workers on the driver's Python ({driver}), or set PYSPARK_PYTHON to a Python that has "
        "kslab {version} installed before the SparkContext starts")
# the worker Pythons that passed, per SparkContext (a stopped and restarted one is asked again)
_passed: weakref.WeakKeyDictionary[Any, set[str]] = weakref.WeakKeyDictionary()
_settled = [False]  # this process has frozen its heap (settle_worker_heap)


def check_workers(spark: Any) -> None:
    """Raise ``SparkUnavailableError`` unless ``spark``'s Python workers import this kslab.

    The error names the worker's Python, the ``PYSPARK_PYTHON`` it came from and
    ``kslab.spark.session()`` as the way out. A Spark Connect session has no SparkContext to
    ask (its server starts the workers) and is not checked.
    """
    try:
        context = spark.sparkContext
    except Exception:  # Spark Connect refuses sparkContext: nothing here starts its workers
        return
    passed = _passed.setdefault(context, set())
    if context.pythonExec in passed:
        return
    driver = _driver_version()
    for executable, version, error in sorted(_probe(context), key=str):
        where = _where(executable, context.pythonExec)
        if error is not None:
            msg = (f"Spark's Python workers run {where}, which cannot import kslab ({error}); "
                   f"{_fix()}")
            raise SparkUnavailableError(msg)
        if version != driver:
            msg = (f"Spark's Python workers run {where}, which imports kslab {version}, but the "
                   f"driver runs kslab {driver}; {_fix()}")
            raise SparkUnavailableError(msg)
    passed.add(context.pythonExec)


def settle_worker_heap() -> None:
    """Freeze every object alive now (``gc.freeze``), the first time a kslab task starts in
    this Python worker process; later calls do nothing.

    Why: PySpark's daemon runs ``gc.collect()`` after every task a reused worker runs, and a
    full collection walks every tracked object: a worker that imported PySpark, pyarrow,
    pandas and kslab holds ~88,000, 30-95 ms of CPU a task on a loaded machine (~12% of the
    workers' CPU in a batch replay word count of 200,000 lines, ``bench/spark.py``). Frozen, they
    are never walked again; what a task creates is collected as before. The cost: an object
    alive at the freeze that later becomes garbage in a reference cycle is never freed (the
    first task's own plan and closure: once per worker, not per task). Called at the start
    of a task, when the daemon has just collected the previous task's garbage.
    """
    if not _settled[0]:
        _settled[0] = True
        gc.freeze()


def check_active_workers() -> None:
    """``check_workers`` on the active SparkSession, if PySpark is loaded and one is active.

    For entry points that do not need Spark themselves (``explain``): they never import
    PySpark or start a session.
    """
    import sys

    if "pyspark.sql" not in sys.modules:
        return
    from pyspark.sql import SparkSession

    active = SparkSession.getActiveSession()
    if active is not None:
        check_workers(active)


def _probe(context: Any) -> set[tuple[str, str | None, str | None]]:
    """Each worker's ``(executable, kslab version, import error)``, from one small job."""
    previous = {name: context.getLocalProperty(name) for name in _GROUP_PROPERTIES}
    context.setJobGroup(JOB_GROUP, "kslab: check that the Python workers import kslab")
    slots = max(1, int(context.defaultParallelism))
    try:
        return set(context.parallelize(range(slots), slots).mapPartitions(_probe_task())
                   .collect())
    except Exception as exc:
        if not _from_spark_job(exc):
            raise
        where = _where(None, context.pythonExec)
        msg = f"Spark's Python workers did not start with {where} ({_cause(exc)}); {_fix()}"
        raise SparkUnavailableError(msg) from exc
    finally:
        for name, value in previous.items():  # the caller's job group, as it was
            context.setLocalProperty(name, value)


def _probe_task() -> Callable[[Iterator[Any]], Iterator[tuple[str, str | None, str | None]]]:
    # A nested function: cloudpickle sends it by value, so the worker runs it without
    # importing this module (which is what may fail there).
    def probe(_: Iterator[Any]) -> Iterator[tuple[str, str | None, str | None]]:
        import sys

        try:
            from kslab import __version__
        except Exception as exc:  # any failure to import kslab (and its version) is the answer
            yield sys.executable, None, f"{type(exc).__name__}: {exc}"
            return
        yield sys.executable, str(__version__), None

    return probe


def _where(executable: str | None, configured: str) -> str:
    """The worker's Python, with the setting it came from."""
    origin = f"PYSPARK_PYTHON={configured!r} when the SparkContext started"
    if configured == "python3":
        origin = ("'python3' on PATH: PYSPARK_PYTHON was unset (or 'python3') when the "
                  "SparkContext started")
    if executable is None or executable == configured:
        return f"{configured} ({origin})"
    return f"{executable} ({origin})"


def _from_spark_job(exc: BaseException) -> bool:
    """Whether ``exc`` is a failed Spark job (a worker's or the JVM's), not a driver bug."""
    from py4j.protocol import Py4JJavaError
    from pyspark.errors import PySparkException

    return isinstance(exc, Py4JJavaError | PySparkException)


def _cause(exc: BaseException) -> str:
    """The one line of a failed job that says why: the worker's exception or the JVM's."""
    text = str(exc)
    _, traceback, python = text.rpartition("Traceback (most recent call last)")
    raised = re.findall(r"^([\w.]+(?:Error|Exception): .+)$", python, re.MULTILINE)
    if traceback and raised:
        return raised[-1].strip()
    failure = re.search(r"most recent failure: .*?\): (.+)", text)
    if failure:
        return failure.group(1).strip()
    return text.strip().splitlines()[0] if text.strip() else type(exc).__name__


def _fix() -> str:
    import sys

    return _FIX.format(driver=sys.executable, version=_driver_version())


def _driver_version() -> str:
    from kslab import __version__

    return __version__
