"""Kafka's ``InMemoryTimeOrderedKeyValueChangeBufferTest``: the suppression buffer's builder
accepts caching on and off (Streams calls them; the buffer has no cache) and logging on with
topic configs or off.

Mapping: ``InMemoryTimeOrderedKeyValueChangeBuffer.Builder`` is
``kslab.state.buffer.SuppressionBufferBuilder``; Java builds it with a null name, kslab's
builders require a store name, so the tests name it ``"buffer"``.
"""

from __future__ import annotations

from kslab.state.buffer import SuppressionBufferBuilder


def _builder() -> SuppressionBufferBuilder:
    return SuppressionBufferBuilder("buffer", None, None)


def test_buffer_should_allow_cache_enablement() -> None:
    builder = _builder()
    assert builder.with_caching_enabled() is builder
    assert builder.caching_enabled is False  # a no-op in Java: the buffer has no cache


def test_buffer_should_allow_cache_disablement() -> None:
    _builder().with_caching_disabled()


def test_buffer_should_allow_logging_enablement() -> None:
    expect = "3"
    builder = _builder().with_logging_enabled({"min.insync.replicas": expect})
    assert builder.log_config == {"min.insync.replicas": expect}
    assert builder.logging_enabled is True


def test_buffer_should_allow_logging_disablement() -> None:
    builder = _builder().with_logging_disabled()
    assert builder.log_config == {}
    assert builder.logging_enabled is False

