"""Kafka's ``StateDirectoryIntegrationTest`` (streams/src/test/.../integration) on the live
runtime (a LocalBroker): a table materialized in a persistent store makes
``state.dir/<application.id>``; ``cleanup()`` after ``close()`` deletes the task directories
and keeps the state directory, and keeps the application's directory when a file of the
user's is in it.

Mapping: Java's first case accepts the application directory kept or gone (it keeps the
process id file); kslab keeps it for the same reason, and the port says so exactly.
"""

from __future__ import annotations

from pathlib import Path

from runtime_fixtures import wait_for

import kslab as ks
from kslab import serdes

STR = serdes.String()


def _run_and_close(kafka, *, dummy: bool) -> tuple[ks.KafkaStreams, Path, Path]:
    source = kafka.create(kafka.name("input"))
    kafka.produce(source, [(None, STR.serialize(source, v)) for v in ("a", "b", "c")])
    builder = ks.StreamsBuilder()
    builder.table(source, materialized=ks.Materialized.as_(kafka.name("input-table"))
                  .with_key_serde(STR).with_value_serde(STR))
    state_dir = kafka.tmp_path / "state-directory"
    config = kafka.config("app", state__dir=str(state_dir))
    streams = kafka.track(ks.KafkaStreams(builder.build(), config))
    states: list[ks.KafkaStreams.State] = []
    streams.set_state_listener(lambda new, old: states.append(new))
    app_dir = state_dir / config["application.id"]
    streams.start()
    assert wait_for(lambda: ks.KafkaStreams.State.RUNNING in states, timeout=60)
    assert state_dir.exists()
    assert app_dir.exists()
    if dummy:
        (app_dir / "dummy").touch()
    streams.close()
    assert states[-1] is ks.KafkaStreams.State.NOT_RUNNING
    return streams, state_dir, app_dir


def test_clean_up_state_dir_if_empty(kafka):
    streams, state_dir, app_dir = _run_and_close(kafka, dummy=False)
    assert (app_dir / "0_0").is_dir()  # the table's task directory
    streams.cleanup()
    assert state_dir.exists()
    assert not (app_dir / "0_0").exists()
    # kept for the process id (and the lock file), as Java keeps kafka-streams-process-metadata
    assert sorted(p.name for p in app_dir.iterdir()) == [".lock",
                                                         "kafka-streams-process-metadata"]


def test_not_clean_up_state_dir_if_not_empty(kafka):
    streams, state_dir, app_dir = _run_and_close(kafka, dummy=True)
    streams.cleanup()
    assert state_dir.exists()
    assert app_dir.exists()
    assert (app_dir / "dummy").exists()
    assert not (app_dir / "0_0").exists()
