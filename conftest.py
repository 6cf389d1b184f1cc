"""Test-run wiring shared by every folder: how ``make test`` spreads the tests over workers.

``make test`` runs pytest-xdist with ``--dist loadgroup``. Tests whose session fixtures are
expensive to make twice stay on one worker each: the Spark tests (one local[2] SparkSession,
and its JVM, per worker) and the export tests (every notebook exported and run once per
session). Everything else is spread freely: each worker starts its own LocalBroker for the
runtime and CLI tests, whose topic and application names are unique per test.
"""

from __future__ import annotations

from pathlib import Path

import pytest

HERE = Path(__file__).parent / "tests"
GROUPS = {"spark": "spark", "export": "export"}  # tests/<folder> -> its worker group


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Put each test of a grouped folder in its xdist group (without xdist: nothing)."""
    if not config.pluginmanager.hasplugin("xdist"):
        return
    for item in items:
        try:
            folder = item.path.relative_to(HERE).parts[0]
        except ValueError:  # (kslab's doctests)
            continue
        group = GROUPS.get(folder)
        if group is not None:
            item.add_marker(pytest.mark.xdist_group(group))
