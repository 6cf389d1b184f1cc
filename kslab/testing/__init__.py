"""The in-process engine: TopologyTestDriver with its input and output topics."""

from kslab.testing.driver import HistoryStep, Snapshot, TopologyTestDriver
from kslab.testing.topics import TestInputTopic, TestOutputTopic

__all__ = ["HistoryStep", "Snapshot", "TestInputTopic", "TestOutputTopic", "TopologyTestDriver"]
