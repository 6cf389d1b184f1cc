"""Kafka's ``JoinStoreIntegrationTest`` (streams/src/test/.../integration), translated to kslab.
Java starts the application on a cluster; here the stores are looked up on the
TopologyTestDriver and the changelog topics' configs are read from the ``TopicPlan`` the live
runtime creates them from. A stream-stream join given ``StreamJoined...withStoreName("join-store")``
names its two window stores ``join-store-this-join-store`` / ``join-store-other-join-store``;
neither is the join result, so no store ``join-store`` can be queried (Java's
``UnknownStateStoreException``; the driver answers ``None`` as Java's does), and their changelogs
are ``cleanup.policy=delete`` only (``StreamJoinedStoreFactory``).
"""

from __future__ import annotations

import kslab as ks
from kslab import serdes
from kslab.core.topic_plan import TopicPlan

APP_ID = "join-store-integration-test"
LEFT, RIGHT = "inputTopicLeft", "inputTopicRight"
S, INT = serdes.String(), serdes.Integer()


def build() -> ks.Topology:
    builder = ks.StreamsBuilder()
    left = builder.stream(LEFT, ks.Consumed.with_(S, INT))
    right = builder.stream(RIGHT, ks.Consumed.with_(S, INT))
    left.join(right, lambda v1, v2: v1 + v2,
              ks.JoinWindows.of_time_difference_and_grace(100, 24 * 3_600_000),
              ks.StreamJoined.with_(S, INT, INT).with_store_name("join-store"))
    return builder.build()


def test_providing_a_join_store_name_should_not_make_the_join_result_queryable():
    with ks.TopologyTestDriver(build(), {"application.id": APP_ID + "-no-store-access"}) as driver:
        assert driver.get_key_value_store("join-store") is None
        assert driver.get_state_store("join-store") is None
        assert sorted(driver.get_all_state_stores()) == [
            "join-store-other-join-store", "join-store-this-join-store"]


def test_stream_join_changelog_topic_should_be_configured_with_delete_only_cleanup_policy():
    app_id = APP_ID + "-changelog-cleanup-policy"
    plan = TopicPlan.build(build(), app_id, {LEFT: 1, RIGHT: 1})
    for side in ("this", "other"):
        changelog = f"{app_id}-join-store-{side}-join-store-changelog"
        assert plan.internal[changelog]["cleanup.policy"] == "delete"
