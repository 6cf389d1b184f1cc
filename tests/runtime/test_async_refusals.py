"""Records the broker refuses asynchronously, in a delivery report rather than in ``produce``.

Tansu validates records against a JSON schema when its schema registry is on, and refuses one
that does not conform with ``INVALID_RECORD`` in the produce response: the producer accepted
the record at once, so the refusal reaches the runtime in a delivery report. Here the schema of
each ``guarded-*`` topic allows values that are JSON numbers up to 100, so "500" is refused.
Tansu refuses the whole produce batch a bad record is in, so the tests send good records only
after the refusal was reported.

Tansu answers the epoch bump an idempotent producer makes after such a refusal with
``PRODUCER_FENCED``: the tests that expect the app to keep going turn idempotence off, and one
test checks that the fencing itself fails the app instead of being skipped record by record.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from pathlib import Path

import pytest
from runtime_fixtures import KafkaHelper, wait_for

import kslab as ks
from kslab import serdes
from kslab.runtime import LocalBroker

S = serdes.String()
GUARDED = ("guarded-continue", "guarded-fail", "guarded-dlq-log_and_continue",
           "guarded-dlq-log_and_fail", "guarded-fenced")
NO_IDEMPOTENCE = {"producer.enable.idempotence": False}


@pytest.fixture(scope="module")
def validating_broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalBroker]:
    """A second Tansu whose schema registry guards the ``guarded-*`` topics."""
    root = tmp_path_factory.mktemp("registry-root")
    registry = root / "registry"
    registry.mkdir()
    schema = {"type": "object", "properties": {"value": {"type": "number", "maximum": 100}}}
    for topic in GUARDED:
        (registry / f"{topic}.json").write_text(json.dumps(schema))
    with pytest.MonkeyPatch.context() as patch:
        # Tansu resolves the registry's file URL against its working directory
        patch.chdir(root)
        patch.setenv("SCHEMA_REGISTRY", "file:///registry")
        broker = LocalBroker().start()
    try:
        yield broker
    finally:
        broker.stop()


@pytest.fixture
def guarded(validating_broker: LocalBroker, tmp_path: Path,
            request: pytest.FixtureRequest) -> Iterator[KafkaHelper]:
    """A ``KafkaHelper`` on the validating broker."""
    helper = KafkaHelper(validating_broker.bootstrap_servers, tmp_path, request.node.name)
    yield helper
    helper.close()


def _start(kafka: KafkaHelper, sink: str, app: str, values: list[str],
           **config: object) -> tuple[ks.KafkaStreams, str]:
    source = kafka.create(kafka.name("in"))
    kafka.create(sink)
    kafka.produce(source, [(f"k{i}".encode(), v.encode()) for i, v in enumerate(values)],
                  timestamp=1000)
    topology = (ks.Topology()
                .add_source("src", source, key_serde=S, value_serde=S)
                .add_sink("out", sink, "src", key_serde=S, value_serde=S))
    streams = kafka.track(ks.KafkaStreams(topology, kafka.config(app, **config)))
    streams.start()
    return streams, source


def _client(streams: ks.KafkaStreams) -> dict:
    return streams.metrics()["client"]


def test_continue_counts_and_logs_a_refused_record_and_keeps_going(guarded, caplog):
    caplog.set_level(logging.WARNING, logger="kslab.runtime")
    streams, source = _start(guarded, "guarded-continue", "continue", ["500"],
                             **NO_IDEMPOTENCE,
                             **{"default.production.exception.handler": "log_and_continue"})
    assert wait_for(lambda: _client(streams)["production-errors-skipped"] == 1)
    skipped = [r.getMessage() for r in caplog.records if "skipped" in r.getMessage()]
    assert len(skipped) == 1
    assert "sending a record to topic 'guarded-continue' failed (key b'k0')" in skipped[0]
    assert "INVALID_RECORD" in skipped[0] and "log_and_continue" in skipped[0]
    guarded.produce(source, [(b"k1", b"1"), (b"k2", b"2")], timestamp=2000)  # it goes on
    assert [(k, v) for k, v, _ in guarded.read("guarded-continue", 2)] == [
        (b"k1", b"1"), (b"k2", b"2")]
    assert streams.state is ks.KafkaStreams.State.RUNNING
    assert _client(streams)["production-errors-skipped"] == 1


def test_fail_stops_the_app_with_an_error_naming_topic_and_key(guarded):
    streams, _ = _start(guarded, "guarded-fail", "fail", ["500"], **NO_IDEMPOTENCE)
    assert wait_for(lambda: streams.state is ks.KafkaStreams.State.ERROR)
    error = streams.errors[0]
    assert isinstance(error, ks.StreamsError)
    text = str(error)
    assert "sending a record to topic 'guarded-fail' failed (key b'k0')" in text
    assert "INVALID_RECORD" in text and "log_and_fail" in text
    assert (error.topic, error.key) == ("guarded-fail", b"k0")
    assert _client(streams)["production-errors-skipped"] == 0


@pytest.mark.parametrize("handler", ["log_and_continue", "log_and_fail"])
def test_a_dlq_receives_the_refused_record(guarded, handler):
    dlq = guarded.create(guarded.name("dlq"))
    streams, _ = _start(guarded, f"guarded-dlq-{handler}", f"dlq-{handler}", ["500"],
                             **NO_IDEMPOTENCE,
                             **{"default.production.exception.handler": handler,
                                "errors.dead.letter.queue.topic.name": dlq})
    letters = guarded.read(dlq, 1)
    assert [(k, v) for k, v, _ in letters] == [(b"k0", b"500")]
    assert wait_for(lambda: _client(streams)["dead-letter-records"] == 1)
    if handler == "log_and_fail":
        assert wait_for(lambda: streams.state is ks.KafkaStreams.State.ERROR)
        assert "(key b'k0')" in str(streams.errors[0])
    else:
        assert wait_for(lambda: _client(streams)["production-errors-skipped"] == 1)
        assert streams.state is ks.KafkaStreams.State.RUNNING


def test_a_fenced_producer_fails_the_app_even_under_continue(guarded):
    # idempotence on (the default): Tansu fences the epoch bump that follows the refusal, so
    # every later record fails too; those must stop the app, not be skipped one by one
    streams, source = _start(guarded, "guarded-fenced", "fenced", ["500"],
                             **{"default.production.exception.handler": "log_and_continue"})
    assert wait_for(lambda: _client(streams)["production-errors-skipped"] == 1)
    guarded.produce(source, [(b"k1", b"1")], timestamp=2000)
    assert wait_for(lambda: streams.state is ks.KafkaStreams.State.ERROR)
    text = str(streams.errors[0])
    assert "PRODUCER_FENCED" in text or "_FENCED" in text
    assert "no production exception handler is asked" in text
    assert _client(streams)["production-errors-skipped"] == 1
