"""Test-run wiring shared by every folder: how ``make test`` spreads the tests over workers.

``make test`` runs pytest-xdist with ``--dist loadgroup``. Tests whose session fixtures are
expensive to make twice share a worker: the Spark tests in three groups (batch and two halves
of streaming), each worker of one holding its own local[2] SparkSession (a JVM), the SIGKILL
test's child Spark runs in a fourth, and the export tests (every notebook exported and run once
per session; the fresh-venv round trip, which spends its time in pip, in a group of its own
beside them). Everything else is spread freely: each worker
starts its own LocalBroker for the runtime and CLI tests, whose topic and application names
are unique per test.

xdist hands out work in the order of the collection, and a worker that runs one long test or
group cannot help with the rest, so the run ends when its longest chain does: the long groups
and the longest single tests are moved to the front of the collection (``FIRST``, longest
first; ``make test`` passes ``--no-loadscope-reorder`` so that xdist keeps this order rather
than sorting groups by their number of tests). Left in collection order, the differential
tests of ``tests/testing`` and the fresh-venv round trip started last and were the run's tail.
"""

from __future__ import annotations

from pathlib import Path

import pytest

HERE = Path(__file__).parent / "tests"
GROUPS = {  # tests/<folder>[/<file>] -> its worker group
    # one SparkSession for them all: split over two (a second JVM beside the batch and recovery
    # ones), a clean clone at load 8-15 lost three streaming tests to Python workers missing
    # Spark's fixed 10 s to connect back, three times each (2026-11-29 04:53 UTC)
    "spark/test_streaming.py": "spark-streaming",
    "spark/test_streaming_late.py": "spark-streaming",
    "spark/test_streaming_stores.py": "spark-streaming",
    "spark/test_kafka.py": "spark-streaming",
    "spark/test_streaming_wall_clock.py": "spark-streaming",
    "spark/test_streaming_fk.py": "spark-streaming",
    "spark/test_streaming_global.py": "spark-streaming",
    "spark/test_streaming_typed.py": "spark-streaming",
    "spark/test_streaming_restarts.py": "spark-streaming",
    # child processes with their own Spark, killed and restarted: no session of the worker's
    "spark/test_streaming_recovery.py": "spark-recovery",
    "spark": "spark-batch",
    "export/test_export_fresh_venv.py": "export-fresh-venv",  # pip installs, not the notebooks
    "cli/test_binder_fresh_venv.py": "binder-fresh-venv",  # pip installs, then every notebook
    "export": "export",
}


# Started first, in this order: xdist groups by name, else a test file or test id under tests/.
# Longest first: the Spark and export groups (each a chain of one to five minutes), the
# at-least-once chaos test (2-5 minutes), the fresh venvs' pip installs (1-3 minutes) and the
# single tests over about 15 s (--durations). xdist queues the unit after a single test on
# the same worker while it runs, so a shorter one follows the chaos test.
FIRST = [
    "spark-recovery",  # one test of 3-4 minutes (child Spark runs killed and restarted)
    "spark-streaming",
    "spark-batch",
    "export",
    "runtime/test_chaos.py",
    "cli/test_cli_user_path.py",
    "export-fresh-venv",
    "binder-fresh-venv",
    "testing/test_batch_differential.py::test_the_batch_path_matches_the_record_path_on_bulk_shaped_programs",
    "testing/test_batch_differential.py",
    "testing/test_batch_stream_joins.py",
    "core/test_batch_interval_commits.py",
    "notebook/test_browser.py",
    "runtime/test_scale_out.py",
    "notebook/test_notebooks.py",
    "cli/test_cli_lab.py",
    "testing/test_bulk_differential.py",
    "runtime/test_batch_live.py",
]


def _rank(item: pytest.Item) -> int:
    """``item``'s place in ``FIRST`` (its group's, else the first listed prefix of its id), or
    after every listed one."""
    group = item.get_closest_marker("xdist_group")
    if group is not None and group.args[0] in FIRST:
        return FIRST.index(group.args[0])
    nodeid = item.nodeid.removeprefix("tests/")  # (ids are relative to the repository)
    return next((i for i, first in enumerate(FIRST) if nodeid.startswith(first)), len(FIRST))


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Move the long groups and tests to the front (``FIRST``), each in its collected order;
    every worker computes the same order, as xdist requires."""
    items.sort(key=_rank)


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
