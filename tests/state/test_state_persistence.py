"""Persistent stores on real disk: reopen in the same process and across real process restarts."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from state_fixtures import FakeContext, LongSerde, StrSerde

from kslab.errors import StoreError
from kslab.records import ValueAndTimestamp
from kslab.state import Stores

REPO = Path(__file__).resolve().parents[2]

# A child process builds the store exactly as a task would, with its own minimal context.
CHILD = textwrap.dedent(
    """
    import os, struct, sys
    from pathlib import Path
    from kslab.records import TaskId
    from kslab.state import Stores

    class Str:
        def serialize(self, topic, data, headers=None):
            return None if data is None else data.encode()
        def deserialize(self, topic, data, headers=None):
            return None if data is None else data.decode()

    class Context:
        application_id = "app"
        task_id = TaskId(0, 0)
        state_dir = Path(sys.argv[1])
        default_key_serde = default_value_serde = Str()
        def changelog_topic(self, name):
            return "app-" + name + "-changelog"
        def log_change(self, name, key, value, timestamp=None):
            pass

    store = Stores.key_value_store_builder(Stores.persistent_key_value_store("words")).build()
    store.init(Context())
    mode = sys.argv[2]
    if mode == "read":
        print(";".join(f"{kv.key}={kv.value}" for kv in store.all()))
    else:
        for i in range(100):
            store.put(f"k{i:03d}", f"v{i}")
        store.delete("k050")
        if mode == "write-and-crash":
            os._exit(0)  # no flush, no close: only the write-ahead log has the data
        store.flush()
        store.close()
    """
)


def run_child(state_dir: Path, mode: str) -> str:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    result = subprocess.run(
        [sys.executable, "-c", CHILD, str(state_dir), mode],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


def expected_words() -> str:
    return ";".join(f"k{i:03d}=v{i}" for i in range(100) if i != 50)


def build(name: str = "p", timestamped: bool = False) -> object:
    if timestamped:
        return Stores.timestamped_key_value_store_builder(
            Stores.persistent_timestamped_key_value_store(name), StrSerde(), LongSerde()
        ).build()
    return Stores.key_value_store_builder(
        Stores.persistent_key_value_store(name), StrSerde(), LongSerde()
    ).build()


def test_data_survives_close_and_a_new_store_instance(tmp_path: Path) -> None:
    context = FakeContext(state_dir=tmp_path)
    first = build()
    first.init(context)
    first.put_all([("a", 1), ("b", 2), ("c", 3)])
    first.delete("b")
    first.close()
    assert (tmp_path / "p" / "CURRENT").is_file()  # RocksDB lives in state_dir / store name

    second = build()
    second.init(FakeContext(state_dir=tmp_path))
    assert list(second.all()) == [("a", 1), ("c", 3)]
    assert second.persistent is True
    second.close()


def test_timestamped_data_survives_reopen(tmp_path: Path) -> None:
    first = build("t", timestamped=True)
    first.init(FakeContext(state_dir=tmp_path))
    first.put("a", ValueAndTimestamp(1, 42))
    first.close()
    second = build("t", timestamped=True)
    second.init(FakeContext(state_dir=tmp_path))
    assert second.get("a") == ValueAndTimestamp(1, 42)
    second.close()


def test_reinit_after_close_reopens_the_same_instance(tmp_path: Path) -> None:
    store = build()
    store.init(FakeContext(state_dir=tmp_path))
    store.put("a", 1)
    store.close()
    store.init(FakeContext(state_dir=tmp_path))
    assert store.get("a") == 1
    store.close()


def test_an_open_iterator_does_not_keep_the_database_locked(tmp_path: Path) -> None:
    store = build()
    store.init(FakeContext(state_dir=tmp_path))
    store.put_all([("a", 1), ("b", 2)])
    forgotten = store.all()
    assert next(forgotten) == ("a", 1)
    store.close()
    again = build()
    again.init(FakeContext(state_dir=tmp_path))
    assert again.get("b") == 2
    again.close()


def test_two_open_stores_on_one_directory_are_refused(tmp_path: Path) -> None:
    first = build()
    first.init(FakeContext(state_dir=tmp_path))
    second = build()
    with pytest.raises(StoreError, match=r"^Store 'p' cannot open RocksDB at .*close that one"):
        second.init(FakeContext(state_dir=tmp_path))
    assert second.is_open is False
    first.close()


def test_persistent_store_without_state_dir_is_refused() -> None:
    store = build()
    with pytest.raises(StoreError, match=r"^Store 'p' is persistent but this engine runs without"):
        store.init(FakeContext(state_dir=None))
    assert store.is_open is False


def test_in_memory_store_needs_no_state_dir() -> None:
    store = Stores.key_value_store_builder(
        Stores.in_memory_key_value_store("m"), StrSerde(), LongSerde()
    ).build()
    store.init(FakeContext(state_dir=None))
    store.put("a", 1)
    assert store.persistent is False
    store.close()


def test_data_survives_a_process_restart(tmp_path: Path) -> None:
    run_child(tmp_path, "write")
    assert run_child(tmp_path, "read") == expected_words()


def test_data_survives_a_process_killed_without_close(tmp_path: Path) -> None:
    run_child(tmp_path, "write-and-crash")
    assert run_child(tmp_path, "read") == expected_words()


def test_another_process_sees_what_this_one_wrote(tmp_path: Path) -> None:
    store = Stores.key_value_store_builder(
        Stores.persistent_key_value_store("words"), StrSerde(), StrSerde()
    ).build()
    store.init(FakeContext(state_dir=tmp_path))
    for i in range(100):
        store.put(f"k{i:03d}", f"v{i}")
    store.delete("k050")
    store.close()
    assert run_child(tmp_path, "read") == expected_words()
