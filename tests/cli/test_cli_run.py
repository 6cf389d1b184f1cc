"""``kslab run`` as a subprocess against a LocalBroker: counts out, SIGTERM in, exit 0."""

from __future__ import annotations

import signal
import subprocess
import time

import pytest
from cli_fixtures import KSLAB, ROOT, TARGETS, clean_env
from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic


def _topics(servers: str, *names: str) -> None:
    admin = AdminClient({"bootstrap.servers": servers})
    for future in admin.create_topics([NewTopic(n, 1) for n in names]).values():
        future.result(10)


def _read_counts(servers: str, topic: str, expected: dict[str, int],
                 timeout: float = 30) -> dict[str, int]:
    consumer = Consumer({"bootstrap.servers": servers, "group.id": f"{topic}-reader"})
    consumer.assign([TopicPartition(topic, 0, 0)])
    got: dict[str, int] = {}
    deadline = time.monotonic() + timeout
    try:
        while got != expected and time.monotonic() < deadline:
            for message in consumer.consume(100, 0.1):
                if message.error() is None:
                    got[message.key().decode()] = int.from_bytes(message.value(), "big")
    finally:
        consumer.close()
    return got


@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGINT])
def test_run_counts_words_and_stops_on_a_signal(cli_broker, tmp_path, stop):
    source, sink = f"run-lines-{stop.name}", f"run-counts-{stop.name}"
    app_id = f"cli-run-{stop.name.lower()}"
    _topics(cli_broker, source, sink)
    config = tmp_path / "app.toml"
    config.write_text(f'"commit.interval.ms" = 100\n"state.dir" = "{tmp_path / "state"}"\n'
                      '[consumer]\n"session.timeout.ms" = 6000\n"heartbeat.interval.ms" = 500\n'
                      f'[kslab]\n"idle.stream.time.advance.ms" = 0\n')
    app = tmp_path / "app.py"  # a file of its own, importing a neighbour module as apps do
    app.write_text("import cli_targets\n\n"
                   f"builder = cli_targets.word_count_builder({source!r}, {sink!r})\n")
    env = clean_env(PYTHONPATH=str(ROOT / "tests" / "cli"))
    process = subprocess.Popen(
        [str(KSLAB), "run", f"{app}:builder", "--config", str(config), "--bootstrap-servers",
         cli_broker, "--application-id", app_id],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=tmp_path)
    try:
        producer = Producer({"bootstrap.servers": cli_broker})
        for line in ["Kafka Streams", "kafka lab", "the lab"]:
            producer.produce(source, value=line.encode())
        assert producer.flush(10) == 0
        expected = {"kafka": 2, "streams": 1, "lab": 2, "the": 1}
        assert _read_counts(cli_broker, sink, expected) == expected
        process.send_signal(stop)  # SIGINT is what Ctrl-C sends
        out, err = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert process.returncode == 0, err
    assert f"INFO kslab.runtime: created internal topics ['{app_id}-counts-store-" in err
    assert out.splitlines() == [
        f"kslab run: {app}:builder as {app_id} on {cli_broker}; Ctrl-C or SIGTERM stops it",
        "kslab run: CREATED -> REBALANCING",
        "kslab run: REBALANCING -> RUNNING",
        "kslab run: RUNNING -> PENDING_SHUTDOWN",
        "kslab run: PENDING_SHUTDOWN -> NOT_RUNNING",
        "kslab run: closed",
    ]
    assert (tmp_path / "state" / app_id).is_dir()  # the config file's state.dir


def test_run_with_missing_source_topic_fails_naming_it(cli_broker, tmp_path):
    config = tmp_path / "config.toml"  # the environment overrides the file, as in exported apps
    config.write_text('"bootstrap.servers" = "127.0.0.1:1"\n')
    done = subprocess.run(
        [str(KSLAB), "run", f"{TARGETS}:make_topology", "--config", str(config),
         "--set", f"state.dir={tmp_path}"],
        capture_output=True, text=True, timeout=60, cwd=ROOT,
        env=clean_env(KSLAB_BOOTSTRAP_SERVERS=cli_broker, KSLAB_BROKER_PORT="1"), check=False)
    assert done.returncode == 1
    assert done.stderr.splitlines()[-1] == (
        "kslab run: error: the app failed to start: source topic 'cli-lines' does not exist on "
        "the broker; create it (with the partition count you want) before starting the "
        "application")
    assert f"as cli_targets on {cli_broker}" in done.stdout  # the default application.id
    assert "Traceback" not in done.stderr



def test_run_dev_creates_missing_topics_and_joins_fast(cli_broker, tmp_path):
    app = tmp_path / "fresh.py"
    app.write_text("import cli_targets\n\ntopology = cli_targets.word_count_builder("
                   "'fresh-lines', 'fresh-out').build()\n")
    env = clean_env(PYTHONPATH=str(ROOT / "tests" / "cli"))
    started = time.monotonic()
    process = subprocess.Popen(
        [str(KSLAB), "run", str(app), "--bootstrap-servers", cli_broker, "--dev",
         "--set", f"state.dir={tmp_path}"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=tmp_path)
    try:
        producer = Producer({"bootstrap.servers": cli_broker})
        deadline = time.monotonic() + 20  # the topic exists once the app has created it
        while "fresh-lines" not in producer.list_topics(timeout=5).topics:
            assert time.monotonic() < deadline, "kslab run did not create fresh-lines"
            time.sleep(0.1)
        producer.produce("fresh-lines", value=b"a b a")
        assert producer.flush(10) == 0
        assert _read_counts(cli_broker, "fresh-out", {"a": 2, "b": 1}) == {"a": 2, "b": 1}
        took = time.monotonic() - started
        process.send_signal(signal.SIGTERM)
        out, err = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert process.returncode == 0, err
    assert took < 15  # --dev's group settings: Kafka's defaults take ~25 s on this broker
    assert out.splitlines()[:2] == [
        "kslab run: created topics fresh-lines, fresh-out (1 partition each)",
        f"kslab run: {app}:topology as fresh on {cli_broker}; Ctrl-C or SIGTERM stops it",
    ]


def test_an_app_that_fails_while_running_exits_1_naming_the_record(cli_broker, tmp_path):
    process = subprocess.Popen(
        [str(KSLAB), "run", f"{TARGETS}:failing", "--dev", "--bootstrap-servers", cli_broker,
         "--set", f"state.dir={tmp_path}"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT, env=clean_env())
    try:
        producer = Producer({"bootstrap.servers": cli_broker})
        deadline = time.monotonic() + 20
        while "cli-fail-in" not in producer.list_topics(timeout=5).topics:
            assert time.monotonic() < deadline, "kslab run --dev did not create cli-fail-in"
            time.sleep(0.1)
        producer.produce("cli-fail-in", value=b"boom")
        assert producer.flush(10) == 0
        out, err = process.communicate(timeout=60)  # it ends by itself
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert process.returncode == 1
    assert out.splitlines()[-2:] == ["kslab run: REBALANCING -> PENDING_ERROR",
                                     "kslab run: PENDING_ERROR -> ERROR"]
    last = next(line for line in reversed(err.splitlines()) if line.startswith("kslab run:"))
    assert last == (
        "kslab run: error: the app failed: Exception caught in process. taskId=0_0, "
        "processor=KSTREAM-MAPVALUES-0000000001, topic 'cli-fail-in', partition 0, offset 0, "
        "key=None, value='boom': ValueError('this line cannot be processed'); fix the processor "
        "or filter the record before it")
