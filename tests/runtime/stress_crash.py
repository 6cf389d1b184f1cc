"""Stress script (not run in CI): many kill -9 rounds of the crash test against a LocalBroker.

Usage: python tests/runtime/stress_crash.py [KILLS] [LINES] [GUARANTEE]
Prints lost and duplicated counts; exits 1 when anything was lost.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from runtime_fixtures import KafkaHelper
from test_crash import _sequences, crash_run

import kslab as ks


def main() -> int:
    """Run one long crash run and report."""
    kills = int(sys.argv[1]) if len(sys.argv) > 1 else 25
    n_lines = int(sys.argv[2]) if len(sys.argv) > 2 else 5000
    guarantee = sys.argv[3] if len(sys.argv) > 3 else "exactly_once_v2"
    with ks.LocalBroker() as broker, tempfile.TemporaryDirectory() as tmp:
        kafka = KafkaHelper(broker.bootstrap_servers, Path(tmp), "stress")
        records, expected, _ = crash_run(kafka, guarantee, kills=kills, n_lines=n_lines, seed=1)
        seqs = _sequences(records)
        lost = sum(len(set(range(1, n + 1)) - set(seqs.get(w, []))) for w, n in expected.items())
        extra = len(records) - sum(expected.values())
        print(f"{guarantee}: {kills} kills, {len(records)} records, lost {lost}, extra {extra}")
        return 1 if lost else 0


if __name__ == "__main__":
    sys.exit(main())
