"""Fixtures for the CLI tests (helpers live in cli_fixtures.py): a broker for the session."""

from __future__ import annotations

from collections.abc import Iterator

import pytest


@pytest.fixture(scope="session")
def cli_broker() -> Iterator[str]:
    """A LocalBroker for the CLI tests; yields its bootstrap servers."""
    from kslab.runtime import LocalBroker

    with LocalBroker() as broker:
        yield broker.bootstrap_servers
