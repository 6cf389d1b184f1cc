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
def test_at_least_once_loses_nothing_under_chaos(tmp_path: Path) -> None:
    result = _run(tmp_path, "at_least_once", PLAN, 1.5)
    for name in chaos.OUTPUTS:
        assert result["outputs"][name]["lost"] == 0, name
        assert result["outputs"][name]["out"] >= result["in"], name


@pytest.mark.slow
@pytest.mark.skipif(not os.environ.get("KSLAB_CHAOS"), reason=(
    "opt in with KSLAB_CHAOS=1: Tansu 0.6 settles committed transactions lazily, so on the "
    "LocalBroker a restore can end before committed changelog records or wait for them for "
    "ever, and committed offsets lag or are lost (README, known limitations; "
    "bench/unstable_commit.py, bench/deferred_offsets.py); failed 3 of 5 runs with the final "
    "code on 2026-11-28, 12 of 23 in all"))
def test_exactly_once_v2_is_exact_under_chaos(tmp_path: Path) -> None:
    """Without a wipe: on Tansu a wiped instance's dead transaction is never aborted and stalls
    the application (README, known limitations).

    Every input record is joined exactly once. A count is exact unless its store was restored
    from a changelog holding an aborted transaction's records: Tansu shows those to the
    ``read_committed`` restore (README, known limitations; never on Kafka), and each such
    update restored shows as one count value skipped and one too many at the end, nothing
    else (so skipped == duplicated, and none of either without aborted changelog records)."""
    result = _run(tmp_path, "exactly_once_v2", ["kill", "term", "thread"], 1.2)
    row = result["outputs"]["joined"]
    assert (row["out"], row["lost"], row["duplicated"]) == (result["in"], 0, 0)
    for name in ("counts", "windowed"):
        row = result["outputs"][name]
        assert (row["out"], row["lost"]) == (result["in"], 0), name
        if result["diagnostics"][f"{name}-changelog aborted"] == 0:
            assert (row["skipped"], row["duplicated"]) == (0, 0), name
        else:
            assert row["skipped"] == row["duplicated"], name
