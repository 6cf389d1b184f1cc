"""Test-run wiring shared by every folder: how ``make test`` spreads the tests over workers.

``make test`` runs pytest-xdist with ``--dist loadgroup``. Tests whose session fixtures are
expensive to make twice share a worker: the Spark tests in two groups of about equal length,
each worker of one holding its own local[2] SparkSession (a JVM), and the export tests (every
notebook exported and run once per session; the fresh-venv round trip, which spends its time in
pip, in a group of its own beside them). Everything else is spread freely: each worker
starts its own LocalBroker for the runtime and CLI tests, whose topic and application names
are unique per test.
"""

from __future__ import annotations

from pathlib import Path

import pytest

HERE = Path(__file__).parent / "tests"
GROUPS = {  # tests/<folder>[/<file>] -> its worker group
    "spark/test_streaming.py": "spark-streaming",
    "spark/test_streaming_late.py": "spark-streaming",
    "spark/test_streaming_stores.py": "spark-streaming",
    "spark/test_kafka.py": "spark-streaming",
    "spark/test_streaming_fk.py": "spark-streaming",
    "spark/test_streaming_global.py": "spark-streaming",
    "spark/test_streaming_typed.py": "spark-streaming",
    # child processes with their own Spark, killed and restarted: no session of the worker's
    "spark/test_streaming_recovery.py": "spark-recovery",
    "spark": "spark-batch",
    "export/test_export_fresh_venv.py": "export-fresh-venv",  # pip installs, not the notebooks
    "cli/test_binder_fresh_venv.py": "binder-fresh-venv",  # pip installs, then every notebook
    "export": "export",
}


def pytest_itemcollected(item: pytest.Item) -> None:
    """Put each test of a grouped folder or file in its xdist group, as it is collected
    (before xdist's ``pytest_collection_modifyitems`` reads the groups; without xdist the
    marker does nothing)."""
    try:
        parts = item.path.relative_to(HERE).parts
    except ValueError:  # (kslab's doctests)
        return
    group = GROUPS.get("/".join(parts[:2])) or GROUPS.get(parts[0])
    if group is not None:
        item.add_marker(pytest.mark.xdist_group(group))
