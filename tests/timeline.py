"""A pytest plugin that records where a test run's time goes: a timeline per worker.

``pytest -p tests.timeline`` (with ``-n N`` or without) writes one JSON line per test to
``KSLAB_TIMELINE`` (default ``.timeline/``), one file per xdist worker: the test's id, its
xdist group, its wall start and end (seconds since the epoch), and the CPU seconds it spent in
this process (user + system) and in the child processes it waited for (pip, a broker, a
kernel: ``resource.getrusage(RUSAGE_CHILDREN)`` deltas; a child still running when the test
ends is counted when it ends). Each worker also writes when its session started and when
collection finished, and at its end the CPU of the children it never waited for, which
``getrusage`` misses: a SparkSession's JVM (with Spark's Python workers, which it reaps) is
one. On a shared machine wall time is noisy and CPU time is not: a test whose wall far exceeds
its CPU sleeps or waits (a group join, a timeout), one whose CPU is high computes.
``python -m tests.timeline [DIR]`` summarises a run: each worker's busy time and idle tail,
the groups' spans, and the tests with the most wall and CPU time.
"""

from __future__ import annotations

import json
import os
import resource
import sys
import time
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

__all__ = ["summarise"]


def _cpu() -> tuple[float, float]:
    me = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime, kids.ru_utime + kids.ru_stime


def _directory() -> Path:
    return Path(os.environ.get("KSLAB_TIMELINE", ".timeline"))


def _worker() -> str:
    return os.environ.get("PYTEST_XDIST_WORKER", "main")


def _write(row: dict[str, Any]) -> None:
    directory = _directory()
    directory.mkdir(parents=True, exist_ok=True)
    with open(directory / f"{_worker()}.jsonl", "a") as out:
        out.write(json.dumps(row) + "\n")


def pytest_sessionstart(session: pytest.Session) -> None:
    """Note when this process's session started (a worker's startup cost is before it)."""
    _write({"event": "start", "wall": time.time(), "cpu": _cpu()})


def pytest_collection_finish(session: pytest.Session) -> None:
    """Note when collection ended: what came before it is paid by every worker."""
    _write({"event": "collected", "wall": time.time(), "cpu": _cpu(), "n": len(session.items)})


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    """Time one test, setup and teardown included (a session fixture's cost lands on the
    first test that uses it, its teardown on the last)."""
    start, (cpu, kids) = time.time(), _cpu()
    yield
    end, (cpu2, kids2) = time.time(), _cpu()
    group = item.get_closest_marker("xdist_group")
    _write({"event": "test", "id": item.nodeid, "start": start, "end": end,
            "group": group.args[0] if group and group.args else None,
            "cpu": round(cpu2 - cpu, 4), "children": round(kids2 - kids, 4)})


def _unreaped() -> float:
    """CPU seconds of this process's children it has not waited for, zombies included (their
    own reaped children in them), read from /proc (0 where there is none)."""
    me, total = os.getpid(), 0.0
    proc = Path("/proc")
    if not proc.is_dir():
        return total
    for entry in proc.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:  # (ended meanwhile)
            continue
        fields = stat[stat.rfind(")") + 2:].split()  # state, ppid, ... utime at [11]
        if int(fields[1]) == me:
            total += sum(int(f) for f in fields[11:15]) / os.sysconf("SC_CLK_TCK")
    return total


def pytest_sessionfinish(session: pytest.Session) -> None:
    """Note when this process's session ended, and its children's CPU ``getrusage`` missed
    (session fixtures are torn down by now: a stopped JVM is a zombie until the worker exits)."""
    _write({"event": "finish", "wall": time.time(), "cpu": _cpu(), "unreaped": _unreaped()})


def summarise(directory: Path, top: int = 30) -> str:
    """A plain-text summary of the timeline written to ``directory``."""
    rows: dict[str, list[dict[str, Any]]] = {}
    for path in sorted(directory.glob("*.jsonl")):
        rows[path.stem] = [json.loads(line) for line in path.read_text().splitlines()]
    tests = [dict(r, worker=w) for w, rs in rows.items() for r in rs if r["event"] == "test"]
    if not tests:
        return f"no tests recorded in {directory}"
    t0 = min(r["wall"] for rs in rows.values() for r in rs if r["event"] == "start")
    t_end = max(r["end"] for r in tests)
    unreaped = {w: sum(r.get("unreaped", 0.0) for r in rs if r["event"] == "finish")
                for w, rs in rows.items()}
    lines = [f"{len(tests)} tests, {t_end - t0:.1f} s from the first session start to the last "
             f"test's end; CPU {sum(r['cpu'] for r in tests):.1f} s in workers, "
             f"{sum(r['children'] for r in tests):.1f} s in their children, "
             f"{sum(unreaped.values()):.1f} s in children never waited for (Spark's JVMs)", "",
             "worker  collected@  first@   last end@  busy wall  cpu    children  idle tail  "
             "unreaped"]
    for worker, rs in rows.items():
        own = [r for r in rs if r["event"] == "test"]
        collected = [r["wall"] for r in rs if r["event"] == "collected"]
        if not own:
            continue
        lines.append(f"{worker:7} {(collected[0] - t0) if collected else float('nan'):9.1f} "
                     f"{min(r['start'] for r in own) - t0:8.1f} "
                     f"{max(r['end'] for r in own) - t0:10.1f} "
                     f"{sum(r['end'] - r['start'] for r in own):10.1f} "
                     f"{sum(r['cpu'] for r in own):6.1f} {sum(r['children'] for r in own):9.1f} "
                     f"{t_end - max(r['end'] for r in own):10.1f} {unreaped[worker]:9.1f}")
    spans: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in tests:
        spans[r["group"] or "/".join(r["id"].split("::")[0].split("/")[:2])].append(r)
    lines += ["", "group or folder            tests  first@   last end@  wall sum  cpu    children"]
    by_wall = sorted(spans.items(), key=lambda kv: -sum(r["end"] - r["start"] for r in kv[1]))
    for name, rs in by_wall:
        lines.append(f"{name[:26]:26} {len(rs):5} {min(r['start'] for r in rs) - t0:7.1f} "
                     f"{max(r['end'] for r in rs) - t0:10.1f} "
                     f"{sum(r['end'] - r['start'] for r in rs):9.1f} "
                     f"{sum(r['cpu'] for r in rs):6.1f} {sum(r['children'] for r in rs):8.1f}")
    lines += ["", f"the {top} longest tests (wall, cpu, children, worker, start@)"]
    for r in sorted(tests, key=lambda r: r["start"] - r["end"])[:top]:
        lines.append(f"{r['end'] - r['start']:7.1f} {r['cpu']:6.1f} {r['children']:6.1f} "
                     f"{r['worker']:4} {r['start'] - t0:7.1f}  {r['id']}")
    return "\n".join(lines)


if __name__ == "__main__":
    print(summarise(Path(sys.argv[1] if len(sys.argv) > 1 else ".timeline")))
