"""A task's close flushes every store before it closes any (as Java's state manager flushes,
then closes): a record cache's flush may forward to a table-table join reading another
table's store, which must still be open."""

from __future__ import annotations

import kslab as ks
from kslab import serdes

S = serdes.String()


def test_a_flush_at_close_reads_a_store_that_is_still_open() -> None:
    """``mine`` (opened after ``other``) still holds a dirty row at close, as after a run with
    no commit: its flush forwards the row to the join, which reads ``other``."""
    b = ks.StreamsBuilder()
    other = b.table("tbl", ks.Consumed.with_(S, S),
                    ks.Materialized.as_("other").with_store_type("in_memory"))
    mine = b.stream("in", ks.Consumed.with_(S, S)).to_table(
        ks.Materialized.as_("mine").with_store_type("in_memory"))
    mine.join(other, lambda v, tv: f"{v}|{tv}").to_stream().to("out", ks.Produced.with_(S, S))
    driver = ks.TopologyTestDriver(b.build(), {"kslab.driver.bulk": False})
    driver.create_input_topic("tbl", S, S).pipe_input("k", "t", 1)  # (committed: clean)
    task = next(iter(driver.tasks.values()))
    task.process_rows(task.queue_for("in", 0), 0, [(b"k", b"v", None, 2, 0)])  # no commit
    out = driver.output_logs()["out"]
    assert out.total == 0  # (the row waits in the cache)
    driver.close()
    assert [(out.record(i)[0], out.record(i)[1]) for i in range(out.total)] == [(b"k", b"v|t")]
