"""Topologies as graphs: the builder, Kafka's sub-topology grouping, describe() and rendering."""

from kslab.topology.topology import InternalTopic, Topology

__all__ = ["InternalTopic", "Topology"]
