"""Issue 24 item 7: resetting an application (``kslab reset``, ``kslab.runtime.reset``) on the
LocalBroker: run, reset, run again gives the first run's output; a reset refuses while the
group has members and changes nothing then; a dry run changes nothing."""

from __future__ import annotations

import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest
from apps import final_counts, word_count_dsl
from runtime_fixtures import wait_for

import kslab as ks
from kslab.runtime.reset import ActiveGroupError, internal_topics_of, reset_application

KSLAB = Path(sys.executable).parent / "kslab"
LINES = [(None, b"kafka streams"), (None, b"kafka lab"), (None, b"lab")]
COUNTS = {"kafka": 2, "streams": 1, "lab": 2}


def run_until_counted(kafka, source, sink, config, before=0):
    """Start the word count, wait until what it writes after the ``before`` records already in
    ``sink`` counts ``COUNTS``, close it; those new records."""
    app = kafka.track(ks.KafkaStreams(word_count_dsl(source, sink).build(), config))
    app.start()
    records = kafka.read_until(sink, lambda out: final_counts(out[before:]) == COUNTS,
                               timeout=60)
    app.close(timeout=10_000)
    return records[before:]


def test_run_reset_run_again_gives_the_same_output(kafka, broker):
    source, sink = kafka.create(kafka.name("lines")), kafka.create(kafka.name("counts"))
    kafka.produce(source, LINES)
    config = kafka.config("wc")
    first = run_until_counted(kafka, source, sink, config)
    assert final_counts(first) == COUNTS
    application_id = config["application.id"]
    topics = set(kafka.admin.list_topics(timeout=10).topics)
    internal = internal_topics_of(application_id, topics)
    assert f"{application_id}-counts-changelog" in internal
    assert f"{application_id}-counts-repartition" in internal

    dry = subprocess.run(
        [str(KSLAB), "reset", "--application-id", application_id, "--bootstrap-servers",
         broker.bootstrap_servers, "--input-topics", source, "--state-dir",
         config["state.dir"], "--dry-run"], capture_output=True, text=True, timeout=60)
    assert dry.returncode == 0, dry.stderr
    assert dry.stdout.splitlines()[:2] == [f"dry run: reset of {application_id}",
                                           f"  would set {source}-0 to offset 0"]
    assert f"  would delete internal topic {application_id}-counts-changelog" in dry.stdout
    assert f"  would remove local state {Path(config['state.dir']) / application_id}" in \
        dry.stdout
    assert set(kafka.admin.list_topics(timeout=10).topics) >= set(internal)  # nothing changed

    result = reset_application(broker.bootstrap_servers, application_id, [source],
                               state_dir=config["state.dir"])
    assert result.offsets == {(source, 0): 0}
    assert result.deleted_topics == internal
    assert result.removed_state == Path(config["state.dir"]) / application_id
    # the task directories are gone; the process id and the lock file stay, as cleanup()'s
    assert sorted(p.name for p in result.removed_state.iterdir()) == [
        ".lock", "kafka-streams-process-metadata"]
    assert wait_for(lambda: not set(internal) & set(kafka.admin.list_topics(timeout=10).topics),
                    timeout=10)

    # the same app and state.dir: it counts the input again from nothing (not 4 kafkas)
    again = run_until_counted(kafka, source, sink, config, before=len(first))
    assert final_counts(again) == COUNTS
    assert len(kafka.read(sink, 0, timeout=2, settle=1.0)) == len(first) + len(again)


def test_a_reset_refuses_while_the_app_runs_and_changes_nothing(kafka, broker):
    source, sink = kafka.create(kafka.name("lines")), kafka.create(kafka.name("counts"))
    kafka.produce(source, LINES)
    config = kafka.config("wc")
    app = kafka.track(ks.KafkaStreams(word_count_dsl(source, sink).build(), config))
    app.start()
    assert final_counts(kafka.read_until(sink, lambda out: final_counts(out) == COUNTS,
                                         timeout=60)) == COUNTS
    assert wait_for(lambda: app.state is ks.KafkaStreams.State.RUNNING, timeout=30)
    application_id = config["application.id"]
    before = internal_topics_of(application_id, kafka.admin.list_topics(timeout=10).topics)
    with pytest.raises(ActiveGroupError, match=f"the consumer group {application_id} has active "
                                               "members .*: stop every instance"):
        reset_application(broker.bootstrap_servers, application_id, [source])
    after = internal_topics_of(application_id, kafka.admin.list_topics(timeout=10).topics)
    assert after == before
    refused = subprocess.run(
        [str(KSLAB), "reset", "--application-id", application_id, "--bootstrap-servers",
         broker.bootstrap_servers, "--input-topics", source], capture_output=True, text=True,
        timeout=60)
    assert refused.returncode == 1
    assert refused.stderr.startswith(f"kslab reset: error: the consumer group {application_id} "
                                     "has active members")


def test_reset_to_a_time_and_by_a_duration(kafka, broker):
    source = kafka.create(kafka.name("lines"))
    for i, line in enumerate(LINES):  # one batch each: Tansu finds times by batch
        kafka.produce(source, [line], timestamp=1_000 + i)  # timestamps 1000, 1001, 1002
    at = datetime.fromtimestamp(1.001, UTC)
    result = reset_application(broker.bootstrap_servers, kafka.name("none"), [source], to=at)
    assert result.offsets == {(source, 0): 1}
    result = reset_application(broker.bootstrap_servers, kafka.name("none"), [source],
                               to=3600.0)  # an hour back: every record is older, so the end
    assert result.offsets == {(source, 0): 3}
    with pytest.raises(ks.StreamsError, match=r"input topic\(s\) nope-topic of .* do not exist"):
        reset_application(broker.bootstrap_servers, kafka.name("none"), ["nope-topic"])


def test_parse_duration():
    from kslab.cli.reset import parse_duration

    assert [parse_duration(d) for d in ("PT15M", "P1DT2H", "PT1.5S", "P2D")] == [
        900.0, 93600.0, 1.5, 172800.0]
    from kslab.cli._common import CliError

    with pytest.raises(CliError, match="not an ISO 8601 duration like PT15M"):
        parse_duration("15m")
