"""What every engine's global task shares: its id, its nodes and its (absent) output.

A topology's global stores (``add_global_store``, ``GlobalKTable``) are filled by one task
that reads every partition of their topics: the test driver pipes into it, the live runtime's
global thread follows the topics, and Spark's batch replay fills one per Spark task before the
task processes anything. Invariant: a global task forwards nothing to a topic; a send is a
wiring bug and raises.
"""

from __future__ import annotations

from typing import Any

from kslab.errors import StreamsError
from kslab.records import TaskId
from kslab.topology.topology import Topology

__all__ = ["GLOBAL_TASK", "NoOutput", "global_nodes"]

GLOBAL_TASK = TaskId(-1, -1)


def global_nodes(topology: Topology) -> list[str]:
    """The names of the source and processor nodes of every global store, sorted."""
    nodes: set[str] = set()
    for spec in topology.global_stores.values():
        nodes.update((spec.source_name, spec.processor_name))
    return sorted(nodes)


class NoOutput:
    """The collector of a global task: global stores have no outputs."""

    def send(self, topic: str, *args: Any) -> None:
        """Raise: a global task tried to write to ``topic``."""
        msg = f"the global task tried to write to '{topic}'; global stores have no outputs"
        raise StreamsError(msg)

    def partitions_for(self, topic: str) -> int:
        """One (a global task writes nowhere, so no count is ever used)."""
        return 1
