"""The SparkSession kslab runs on: loopback networking, a scratch directory, the settings its
engine needs, and clear errors when Java or the ``spark`` extra is missing.

Invariant: ``session()`` hands back a session on which the ``kslab-kafka`` data source is
registered and whose streaming state store is RocksDB (``transformWithStateInPandas`` needs it),
whether it created the session or found one running.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

from kslab.errors import StreamsError

__all__ = ["SparkUnavailableError", "require_pyspark", "session"]

_INSTALL = "pip install 'kslab[spark]'"
_ROCKSDB = "org.apache.spark.sql.execution.streaming.state.RocksDBStateStoreProvider"


class SparkUnavailableError(StreamsError, ImportError):
    """Spark cannot run here: the ``spark`` extra is not installed, there is no Java, or Spark's
    Python workers cannot import this kslab (another Python, or another kslab version).

    Operator action: install the extra (``pip install 'kslab[spark]'``) and a Java 17+ runtime
    (``apt-get install openjdk-17-jre-headless``), or set ``JAVA_HOME``; for the workers, start
    Spark with ``kslab.spark.session()`` or set ``PYSPARK_PYTHON`` to a Python with kslab.
    """


def require_pyspark() -> Any:
    """``pyspark`` itself, or a ``SparkUnavailableError`` naming what to install."""
    missing = []
    for module in ("pyspark", "pyarrow", "google.protobuf"):
        try:
            __import__(module)
        except ImportError:
            missing.append(module.split(".")[-1])
    if missing:
        msg = (f"the Spark engine needs {', '.join(missing)}, which is not installed; "
               f"{_INSTALL}")
        raise SparkUnavailableError(msg)
    import pyspark

    return pyspark


def java_executable() -> str:
    """The ``java`` Spark will start: ``$JAVA_HOME/bin/java`` or the one on ``PATH``."""
    home = os.environ.get("JAVA_HOME")
    if home:
        candidate = Path(home) / "bin" / "java"
        if candidate.exists():
            return str(candidate)
        msg = (f"JAVA_HOME is {home!r} but {candidate} does not exist; point JAVA_HOME at a "
               "Java 17+ installation or unset it to use the java on PATH")
        raise SparkUnavailableError(msg)
    found = shutil.which("java")
    if found is None:
        msg = ("Spark needs a Java runtime (17 or newer) and none is on PATH; install one "
               "(apt-get install openjdk-17-jre-headless) or set JAVA_HOME")
        raise SparkUnavailableError(msg)
    return found


def session(master: str = "local[2]", *, app_name: str = "kslab",
            scratch_dir: str | Path | None = None, shuffle_partitions: int | None = None,
            config: dict[str, Any] | None = None) -> Any:
    """A SparkSession for kslab: loopback, no UI, scratch dirs, RocksDB state, the data source.

    ``shuffle_partitions`` (default: the cores of ``master``) is also the number of state-store
    partitions of a streaming query, fixed in its checkpoint. ``config`` adds Spark settings.
    """
    require_pyspark()
    java_executable()
    from pyspark.sql import SparkSession

    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")  # else the driver binds to eth0
    os.environ.setdefault("PYSPARK_PYTHON", _python())
    scratch = Path(scratch_dir) if scratch_dir else Path(tempfile.gettempdir()) / "kslab-spark"
    scratch.mkdir(parents=True, exist_ok=True)
    builder = SparkSession.builder.master(master).appName(app_name)
    settings = {
        "spark.ui.enabled": "false",
        "spark.driver.host": "127.0.0.1",
        "spark.driver.bindAddress": "127.0.0.1",
        "spark.local.dir": str(scratch),
        "spark.driver.extraJavaOptions": f"-Djava.io.tmpdir={scratch}",
        "spark.executor.extraJavaOptions": f"-Djava.io.tmpdir={scratch}",
        "spark.sql.shuffle.partitions": str(shuffle_partitions or _cores(master)),
        "spark.sql.streaming.stateStore.providerClass": _ROCKSDB,
        "spark.sql.execution.arrow.pyspark.enabled": "true",
        "spark.sql.session.timeZone": "UTC",
    }
    settings.update({k: str(v) for k, v in (config or {}).items()})
    for key, value in settings.items():
        builder = builder.config(key, value)
    try:
        spark = builder.getOrCreate()
    except Exception as exc:
        msg = (f"Spark did not start ({type(exc).__name__}: {str(exc).splitlines()[0][:200]}); "
               "check that 'java -version' prints 17 or newer and that 127.0.0.1 is usable")
        raise SparkUnavailableError(msg) from exc
    from kslab.spark.kafka import register

    register(spark)
    return spark


def _python() -> str:
    import sys

    return sys.executable


def _cores(master: str) -> int:
    inside = master[master.find("[") + 1: master.find("]")] if "[" in master else "1"
    if inside == "*":
        return os.cpu_count() or 1
    try:
        return max(1, int(inside.split(",")[0]))
    except ValueError:
        return 2
