"""Bad state on disk never gives wrong counts: a corrupt or truncated checkpoint file, a store
directory of another application id or of another store type are each logged, wiped and
restored in full from the changelog; a state directory that cannot be written or that another
live instance holds is a clear error. Each runs a stateful word count on the broker with a real
``state.dir`` and checks the counts after the restart exactly (output and store)."""

from __future__ import annotations

import logging
import re
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from apps import final_counts, lines, reference_counts, word_count_papi
from test_crash import APP, _wait_running

import kslab as ks
from kslab.errors import StreamsError


def _run(kafka, topology, config, sink, expected):
    streams = kafka.track(ks.KafkaStreams(topology, config))
    streams.start()
    got = kafka.read_until(sink, lambda r: final_counts(r) == expected)
    assert final_counts(got) == expected
    return streams


def _restored(streams) -> int:
    return sum(t["restore-total"] for t in streams.metrics()["threads"].values())


def _first_run(kafka, app, n=80, seed=31, supplier=None):
    """Source, sink, config, the first input's lines and the closed first instance."""
    source, sink = kafka.create(kafka.name("in")), kafka.create(kafka.name("out"))
    config = kafka.config(app)
    first = lines(n, seed=seed)
    kafka.produce(source, [(None, t.encode()) for t in first])
    streams = _run(kafka, word_count_papi(source, sink, supplier=supplier), config, sink,
                   reference_counts(first))
    assert streams.close(timeout=10_000)
    return source, sink, config, first, streams.state_root / "0_0"


def _restart_exact(kafka, source, sink, config, text, more, supplier=None):
    """Produce ``more``, restart, and check output and store hold the exact counts."""
    kafka.produce(source, [(None, t.encode()) for t in more])
    expected = reference_counts(text + more)
    again = _run(kafka, word_count_papi(source, sink, supplier=supplier), config, sink, expected)
    store = again.store("counts")
    assert {w: store.get(w) for w in expected} == expected
    assert sorted(k for k, _ in store.all()) == sorted(expected)  # and no other key
    return again


@pytest.mark.parametrize("damage", ["garbage", "truncated"])
def test_a_corrupt_checkpoint_is_logged_and_restored_in_full(kafka, caplog, damage):
    source, sink, config, first, task = _first_run(kafka, f"ckpt-{damage}")
    checkpoint = task / ".checkpoint"
    text = checkpoint.read_text()
    assert text.startswith("0\n1\n")
    checkpoint.write_bytes(b"0\n1\nnot a checkpoint\n" if damage == "garbage"
                           else text[:-1].encode())  # the offset's end may be lost
    caplog.set_level(logging.WARNING, logger="kslab.runtime")
    again = _restart_exact(kafka, source, sink, config, first, lines(40, seed=32))
    reason = ("a line that is not 'topic partition offset'" if damage == "garbage"
              else "truncated inside its last entry")
    messages = [r.getMessage() for r in caplog.records]
    assert f"checkpoint file {checkpoint} is corrupt: {reason}" in messages
    assert (f"store counts in {task} cannot be used: the checkpoint file is corrupt ({reason});"
            " wiping it and restoring it in full from its changelog") in messages
    assert _restored(again) >= len(reference_counts(first))  # in full, not the tail


def test_a_store_directory_of_another_application_is_not_used(kafka, caplog):
    source, sink, config, first, task = _first_run(kafka, "mine")
    # another application's word count, over other words, with a state.dir of its own
    other_source, other_sink = kafka.create(kafka.name("oin")), kafka.create(kafka.name("oout"))
    other = kafka.config("theirs", state__dir=str(kafka.tmp_path / "other"))
    theirs = ["zz1 zz2 zz1", "w1 w1 w1 w1 w1 w1 w1"]
    kafka.produce(other_source, [(None, t.encode()) for t in theirs])
    done = _run(kafka, word_count_papi(other_source, other_sink), other, other_sink,
                reference_counts(theirs))
    assert done.close(timeout=10_000)
    shutil.rmtree(task)
    shutil.copytree(done.state_root / "0_0", task)  # their task directory, copied over ours
    caplog.set_level(logging.WARNING, logger="kslab.runtime")
    again = _restart_exact(kafka, source, sink, config, first, ["zz1 w1"])
    assert again.store("counts").get("zz2") is None
    assert (f"store counts in {task} cannot be used: the directory belongs to application.id "
            f"'{other['application.id']}'; wiping it and restoring it in full from its "
            "changelog") in [r.getMessage() for r in caplog.records]


def test_a_store_written_as_another_type_is_not_used(kafka, caplog):
    plain = ks.Stores.persistent_key_value_store("counts")
    stamped = ks.Stores.persistent_timestamped_key_value_store("counts")
    source, sink, config, first, task = _first_run(kafka, "retyped", supplier=plain)
    caplog.set_level(logging.WARNING, logger="kslab.runtime")
    again = _restart_exact(kafka, source, sink, config, first, lines(40, seed=33),
                           supplier=stamped)
    assert (f"store counts in {task} cannot be used: it was written as a "
            "KeyValueStoreBuilder/RocksDBKeyValueBytesStoreSupplier, the topology makes a "
            "KeyValueStoreBuilder/RocksDBKeyValueBytesStoreSupplier+timestamped; wiping it "
            "and restoring it in full from its changelog") in [
                r.getMessage() for r in caplog.records]
    assert _restored(again) >= len(reference_counts(first))


def test_a_state_dir_that_cannot_be_written_is_a_clear_error(kafka):
    blocker = Path(kafka.tmp_path / "a-file")
    blocker.write_text("not a directory")
    config = kafka.config("unwritable", state__dir=str(blocker))
    with pytest.raises(StreamsError) as info:
        ks.KafkaStreams(word_count_papi("in", "out"), config)
    root = blocker / config["application.id"]
    assert str(info.value).startswith(f"state.dir: cannot write the state directory {root} (")
    assert str(info.value).endswith("); make it a writable directory or set state.dir to one")


def test_a_state_dir_locked_by_a_live_instance_is_a_clear_error(kafka):
    source, sink = kafka.create(kafka.name("in")), kafka.create(kafka.name("out"))
    config = kafka.config("locked")
    first, second = lines(60, seed=41), lines(60, seed=42)
    kafka.produce(source, [(None, t.encode()) for t in first])
    live = _run(kafka, word_count_papi(source, sink), config, sink, reference_counts(first))
    twin = kafka.track(ks.KafkaStreams(word_count_papi(source, sink), config))
    with pytest.raises(StreamsError) as info:
        twin.start()
    assert str(info.value).startswith(
        f"state.dir: the state directory {live.state_root} is locked by another live "
        "KafkaStreams instance of this application (")
    assert twin.state is ks.KafkaStreams.State.ERROR
    assert live.state is ks.KafkaStreams.State.RUNNING  # untouched
    assert live.close(timeout=10_000)  # closing releases the lock
    _restart_exact(kafka, source, sink, config, first, second)


def test_a_state_dir_locked_by_another_live_process_is_a_clear_error_until_it_dies(kafka):
    source, sink = kafka.create(kafka.name("in")), kafka.create(kafka.name("out"))
    words = kafka.create(kafka.name("words"))
    app_id, state_dir = kafka.name("proc"), str(kafka.tmp_path / "shared")
    child = subprocess.Popen(
        [sys.executable, str(APP), kafka.bootstrap, app_id, source, words, sink, state_dir,
         "at_least_once"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        _wait_running(child)
        config = kafka.config("proc", application__id=app_id, state__dir=state_dir)
        twin = kafka.track(ks.KafkaStreams(word_count_papi(source, sink, repartition=words),
                                           config))
        with pytest.raises(StreamsError, match=re.escape(
                f"the state directory {twin.state_root} is locked by another live")):
            twin.start()
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait(10)
    # the kernel dropped the dead process's lock: a new instance takes the directory over
    text = lines(40, seed=51)
    kafka.produce(source, [(None, t.encode()) for t in text])
    _run(kafka, word_count_papi(source, sink, repartition=words), config, sink,
         reference_counts(text))
