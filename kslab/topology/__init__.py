"""Topologies as graphs: the builder, Kafka's sub-topology grouping, describe() and rendering."""

from kslab.topology._subtopologies import Subtopology, subtopologies, validate
from kslab.topology.description import TopologyDescription, describe
from kslab.topology.topology import InternalTopic, Topology

__all__ = [
    "InternalTopic",
    "Subtopology",
    "Topology",
    "TopologyDescription",
    "describe",
    "subtopologies",
    "validate",
]
