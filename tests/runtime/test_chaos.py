"""The chaos test, short: ``bench/chaos.py`` for about 100 s with one fault of each kind.

Three instances (four stream threads between them) of a count, a windowed count and a
stream-table join on 8 partitions, with input at 100 records/s, while the harness applies one
SIGKILL and restart, one kill with the instance's ``state.dir`` wiped, one SIGTERM and restart,
and one ``add_stream_thread()`` then ``remove_stream_thread()``. The output is compared with the
reference computed from the seeded input (``bench/chaos.py`` says what lost and duplicated
mean). The run has its own broker: a killed instance's open transaction, which Tansu never ends,
would hold back the session broker's other readers.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

import chaos

PLAN = ["kill", "wipe", "term", "thread"]


def _run(tmp_path: Path, guarantee: str) -> dict:
    result = chaos.run(chaos.Options(minutes=1.5, plan=PLAN, settle=90, guarantee=guarantee,
                                     workdir=str(tmp_path / "chaos")))
    print(chaos.table(result))
    assert result["faults"] == {"kill": 1, "wipe": 1, "term": 1, "thread": 1}
    assert result["notes"] == []  # every restart ran, every close was clean
    assert result["in"] > 8000  # 90 s at 100/s, less the driver's start
    return result


@pytest.mark.slow
def test_at_least_once_loses_nothing_under_chaos(tmp_path: Path) -> None:
    result = _run(tmp_path, "at_least_once")
    for name in chaos.OUTPUTS:
        assert result["outputs"][name]["lost"] == 0, name
        assert result["outputs"][name]["out"] >= result["in"], name
