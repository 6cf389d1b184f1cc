"""Kafka's default partitioner, under the name engines and tests have imported it by.

It lives in ``kslab.processor.partitioner`` so that the DSL, which never imports the core, can
compute it too; this module re-exports it.
"""

from __future__ import annotations

from kslab.processor.partitioner import default_partition, murmur2, to_positive

__all__ = ["default_partition", "murmur2", "to_positive"]
