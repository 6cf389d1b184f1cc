"""Kafka's ``SuppressedTest`` (kstream), translated to ``ks.Suppressed`` / ``ks.BufferConfig``.

Java's static imports map to ``BufferConfig.max_records/max_bytes/unbounded`` and
``Suppressed.until_time_limit/until_window_closes``; ``ofMillis(2)`` is ``2``. Java's expected
internals are built with kslab's constructors: ``EagerBufferConfigImpl(r, b, logConfig)`` is
``BufferConfig(max_records=r, max_bytes=b, log_config=...)`` (strategy ``"emit"``),
``StrictBufferConfigImpl(r, b, SHUT_DOWN, logConfig)`` the same with ``strategy="shut_down"``,
``SuppressedInternal(name, time, buffer, null, false)`` is ``Suppressed(False, time, buffer,
name)`` and ``FinalResultsSuppressionBuilder(name, buffer)`` is ``Suppressed(True, 0, buffer,
name)``. Java's ``assertThat(..., is(...))`` is ``==``: both compare by value, as Java's.
Nothing is skipped.
"""

from __future__ import annotations

from kslab import BufferConfig, Suppressed

MAX_VALUE = 2**63 - 1
LOG = {"myConfigKey": "myConfigValue"}



def _eager(records: int, size: int, log: dict | None = None) -> BufferConfig:
    return BufferConfig(max_records=records, max_bytes=size, strategy="emit", log_config=log)


def _strict(records: int, size: int, log: dict | None = None) -> BufferConfig:
    return BufferConfig(max_records=records, max_bytes=size, strategy="shut_down", log_config=log)


def test_buffer_builder_should_be_consistent() -> None:
    assert BufferConfig.max_bytes(2).with_max_records(4).with_no_bound() == BufferConfig.unbounded()
    assert BufferConfig.max_records(2) == _eager(2, MAX_VALUE)
    assert BufferConfig.max_bytes(2) == _eager(MAX_VALUE, 2)
    assert BufferConfig.max_records(2).with_max_bytes(4).with_logging_enabled(LOG) == _eager(
        2, 4, LOG)


def test_intermediate_events_should_accept_any_buffer_and_set_bounds() -> None:
    unbounded = BufferConfig.unbounded()
    assert Suppressed.until_time_limit(2, unbounded).with_name("myname") == Suppressed(
        False, 2, unbounded, "myname")
    assert Suppressed.until_time_limit(2, unbounded) == Suppressed(False, 2, unbounded)
    assert Suppressed.until_time_limit(2, BufferConfig.max_records(2)) == Suppressed(
        False, 2, BufferConfig.max_records(2))
    assert Suppressed.until_time_limit(2, BufferConfig.max_bytes(2)) == Suppressed(
        False, 2, BufferConfig.max_bytes(2))
    assert Suppressed.until_time_limit(2, BufferConfig.max_records(3).with_max_bytes(2)) == (
        Suppressed(False, 2, _eager(3, 2)))
    early = BufferConfig.max_records(2).with_logging_enabled(LOG).emit_early_when_full()
    assert Suppressed.until_time_limit(2, early) == Suppressed(False, 2, _eager(2, MAX_VALUE, LOG))


def test_final_events_should_accept_strict_buffers_and_set_bounds() -> None:
    unbounded = BufferConfig.unbounded()
    records = BufferConfig.max_records(2).shut_down_when_full()
    size = BufferConfig.max_bytes(2).shut_down_when_full()
    assert Suppressed.until_window_closes(unbounded) == Suppressed(True, 0, unbounded)
    assert Suppressed.until_window_closes(records) == Suppressed(True, 0, _strict(2, MAX_VALUE))
    assert Suppressed.until_window_closes(size) == Suppressed(True, 0, _strict(MAX_VALUE, 2))
    assert Suppressed.until_window_closes(unbounded).with_name("name") == Suppressed(
        True, 0, unbounded, "name")
    assert Suppressed.until_window_closes(records).with_name("name") == Suppressed(
        True, 0, _strict(2, MAX_VALUE), "name")
    assert Suppressed.until_window_closes(size).with_name("name") == Suppressed(
        True, 0, _strict(MAX_VALUE, 2), "name")
    logged = BufferConfig.max_bytes(2).with_logging_enabled(LOG).shut_down_when_full()
    assert Suppressed.until_window_closes(logged) == Suppressed(True, 0, _strict(MAX_VALUE, 2, LOG))


def test_support_long_chain_of_methods() -> None:
    buffer = (BufferConfig.unbounded().emit_early_when_full().with_max_records(3)
              .with_max_bytes(4).with_max_records(5).with_max_bytes(6))
    assert buffer == _eager(5, 6)
    assert buffer.shut_down_when_full() == _strict(5, 6)
    with_logging = (BufferConfig.unbounded().with_logging_enabled(LOG).emit_early_when_full()
                    .with_max_records(3).with_max_bytes(4).with_max_records(5).with_max_bytes(6))
    assert with_logging == _eager(5, 6, LOG)
    assert with_logging.shut_down_when_full() == _strict(5, 6, LOG)
    logging_last = (BufferConfig.unbounded().emit_early_when_full().with_max_records(3)
                    .with_max_bytes(4).with_max_records(5).with_max_bytes(6)
                    .with_logging_enabled(LOG))
    assert logging_last == _eager(5, 6, LOG)
    assert logging_last.shut_down_when_full() == _strict(5, 6, LOG)
