"""Progress of a Spark replay: a bar over the Spark tasks of the jobs started inside a block.

``run_batch`` is lazy: Spark does the work when its output frames are computed
(``toPandas()``, ``collect()``, a write). ``watch(spark)`` wraps that action::

    with kslab.spark.progress.watch(spark, "word count"):
        counts = run_batch(builder, {"lines": lines})["counts"].toPandas()

It tags the block's jobs with a job group and polls Spark's status tracker on a thread: tasks
done of the tasks in every stage of those jobs, with the rate and the time left (tqdm's bar: a
widget in Jupyter, text on a terminal; without tqdm a plain line on stderr). The caller asked
for it, so it always reports. Invariants: the poller stops and the bar closes however the block
ends; an interrupt (the kernel's stop button) cancels the block's jobs, as PySpark's own SIGINT
handler does, and the session stays usable; this module knows no notebook.
"""

from __future__ import annotations

import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

__all__ = ["SparkProgress", "watch"]


class SparkProgress:
    """Polls the tasks of one job group; ``done`` and ``total`` are the latest counts."""

    def __init__(self, spark: Any, description: str,
                 factory: Callable[[int, str], Any] | None, interval: float) -> None:
        self.context = spark.sparkContext
        self.description = description
        self.factory = factory or _default_factory()
        self.interval = interval
        self.group = f"kslab-progress-{uuid.uuid4().hex[:12]}"
        self.done = 0
        self.total = 0
        self.bar: Any = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._poll_loop, name="kslab-spark-progress",
                                        daemon=True)

    def counts(self) -> tuple[int, int]:
        """(tasks completed, tasks in all stages) of the group's jobs so far."""
        tracker = self.context.statusTracker()
        done = total = 0
        for job in tracker.getJobIdsForGroup(self.group):
            info = tracker.getJobInfo(job)
            finished = info is not None and info.status == "SUCCEEDED"
            for stage in info.stageIds if info is not None else ():
                stage_info = tracker.getStageInfo(stage)
                if stage_info is not None:  # a finished job's skipped stages count as done
                    total += stage_info.numTasks
                    done += stage_info.numTasks if finished else stage_info.numCompletedTasks
        return done, total

    def poll(self) -> None:
        """Read the counts and move the bar (made at the first task Spark plans)."""
        done, total = self.counts()
        if total <= 0:
            return
        if self.bar is None:
            self.bar = self.factory(total, self.description)
        elif total != self.total:  # a later job of the block: the bar's end moves
            _set_total(self.bar, total)
        if done > self.done:
            self.bar.update(done - self.done)
        self.done, self.total = max(done, self.done), total

    def _poll_loop(self) -> None:
        while not self._stop.wait(self.interval):
            try:
                self.poll()
            except Exception:  # a stopped context: the block's end reports what it can
                return

    def start(self) -> None:
        """Tag this thread's next jobs with the group and start polling."""
        self.context.setJobGroup(self.group, self.description, interruptOnCancel=True)
        self._thread.start()

    def stop(self, interrupted: bool) -> None:
        """Stop polling, cancel the group's jobs if interrupted, take the last count and close
        the bar."""
        self._stop.set()
        self._thread.join()
        try:
            if interrupted:
                self.context.cancelJobGroup(self.group)
            else:
                self.poll()
        finally:
            self.context.setLocalProperty("spark.jobGroup.id", None)
            self.context.setLocalProperty("spark.job.description", None)
            if self.bar is not None:
                self.bar.close()


@contextmanager
def watch(spark: Any, description: str = "spark replay", *,
          factory: Callable[[int, str], Any] | None = None,
          interval: float = 0.5) -> Iterator[SparkProgress]:
    """Show the progress of the Spark jobs the block starts on ``spark`` (see the module).
    ``factory(total, description)`` makes the bar (tqdm's by default): it gets ``update(n)``,
    its ``total`` set when a later job adds tasks, and ``close()``."""
    progress = SparkProgress(spark, description, factory, interval)
    progress.start()
    interrupted = False
    try:
        yield progress
    except KeyboardInterrupt:
        interrupted = True
        raise
    finally:
        progress.stop(interrupted)


def _set_total(bar: Any, total: int) -> None:
    """Move a bar's end: tqdm's notebook widget keeps its own copy (its progress's ``max``)."""
    bar.total = total
    children = getattr(getattr(bar, "container", None), "children", ())
    if len(children) == 3 and hasattr(children[1], "max"):
        children[1].max = total
    if hasattr(bar, "refresh"):
        bar.refresh()


def _default_factory() -> Callable[[int, str], Any]:
    try:
        from tqdm.auto import tqdm
    except ImportError:
        return _PlainTasks

    def make(total: int, description: str) -> Any:
        return tqdm(total=total, desc=description, unit="tasks", leave=True, mininterval=0.5)

    return make


class _PlainTasks:
    """Without tqdm: ``description: 12/40 tasks (30%), 3.1 tasks/s, 0:09 left`` on stderr."""

    def __init__(self, total: int, description: str) -> None:
        self.total, self.description, self.done, self.start = total, description, 0, \
            time.monotonic()

    def update(self, n: int) -> None:
        self.done += n
        rate = self.done / max(time.monotonic() - self.start, 1e-9)
        left = (self.total - self.done) / rate if rate else 0
        sys.stderr.write(f"\r{self.description}: {self.done}/{self.total} tasks "
                         f"({100 * self.done // max(self.total, 1)}%), {rate:.1f} tasks/s, "
                         f"{int(left) // 60}:{int(left) % 60:02d} left")
        sys.stderr.flush()

    def close(self) -> None:
        sys.stderr.write("\n")
        sys.stderr.flush()
