"""Factories for topology tests: store builders and processor suppliers without an engine."""

from __future__ import annotations

import pytest

from kslab.topology import Topology


class FakeStoreBuilder:
    """Just enough of a store builder for wiring: a name and the logging flag."""

    def __init__(self, name: str, *, logging_enabled: bool = True) -> None:
        self.name = name
        self.logging_enabled = logging_enabled

    def with_logging_disabled(self) -> FakeStoreBuilder:
        self.logging_enabled = False
        return self


@pytest.fixture
def store():
    """Factory: ``store("counts")`` returns a new store builder named ``counts``."""
    return FakeStoreBuilder


@pytest.fixture
def topology() -> Topology:
    """An empty topology."""
    return Topology()
