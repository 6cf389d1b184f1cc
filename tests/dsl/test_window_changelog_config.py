"""Changelog topic configs of windowed stores as the runtime creates them (Java's
WindowedChangelogTopicConfig): retention.ms = store retention +
windowstore.changelog.additional.retention.ms, unless the store's log config sets it."""

from __future__ import annotations

import kslab as ks
from kslab import serdes
from kslab.config import StreamsConfig
from kslab.core.topic_plan import TopicPlan
from kslab.dsl import SessionWindows, TimeWindows


def _plan(config: dict | None, log_config: dict | None = None) -> dict[str, dict[str, str]]:
    b = ks.StreamsBuilder()
    grouped = b.stream("in", key_serde=serdes.String(), value_serde=serdes.String()) \
        .group_by_key()
    window_mat = ks.Materialized.as_("w")
    if log_config is not None:
        window_mat = window_mat.with_logging_enabled(log_config)
    grouped.windowed_by(TimeWindows.of_size_and_grace(60_000, 5_000)).count(window_mat)
    grouped.windowed_by(SessionWindows.of_inactivity_gap_with_no_grace(1_000)) \
        .count(ks.Materialized.as_("s"))
    grouped.count(ks.Materialized.as_("kv"))
    plan = TopicPlan.build(b.build(), "app", {"in": 2},
                           None if config is None else StreamsConfig(config))
    return plan.internal


def test_default_additional_retention_is_one_day() -> None:
    internal = _plan(None)
    create_time = {"message.timestamp.type": "CreateTime"}  # Java's internal-topic default
    assert internal["app-w-changelog"] == {**create_time, "cleanup.policy": "compact,delete",
                                           "retention.ms": str(65_000 + 86_400_000)}
    assert internal["app-s-changelog"] == {**create_time, "cleanup.policy": "compact,delete",
                                           "retention.ms": str(1_000 + 86_400_000)}
    assert internal["app-kv-changelog"] == {**create_time, "cleanup.policy": "compact"}


def test_configured_additional_retention() -> None:
    internal = _plan({"application.id": "app",
                      "windowstore.changelog.additional.retention.ms": 1_000})
    assert internal["app-w-changelog"]["retention.ms"] == "66000"
    assert internal["app-s-changelog"]["retention.ms"] == "2000"
    assert "retention.ms" not in internal["app-kv-changelog"]


def test_store_log_config_retention_wins() -> None:
    internal = _plan({"windowstore.changelog.additional.retention.ms": 1_000},
                     {"retention.ms": "42", "segment.bytes": "1024"})
    assert internal["app-w-changelog"] == {"message.timestamp.type": "CreateTime",
                                           "cleanup.policy": "compact,delete",
                                           "retention.ms": "42", "segment.bytes": "1024"}


def test_overflow_is_long_max() -> None:
    internal = _plan({"windowstore.changelog.additional.retention.ms": 2**63 - 1})
    assert internal["app-w-changelog"]["retention.ms"] == str(2**63 - 1)
