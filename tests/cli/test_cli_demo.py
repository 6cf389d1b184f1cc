"""``kslab demo`` end to end: broker, live word count, counts printed exactly, graph written."""

from __future__ import annotations

import re
import shutil
from collections import Counter
from pathlib import Path
from xml.etree import ElementTree

from cli_fixtures import free_port, kslab

from kslab.cli.demo import generate_lines


def test_generated_lines_are_fixed():
    lines = generate_lines(40)
    assert lines[:2] == generate_lines(2)
    assert Counter(w for line in lines for w in line.split()) == {
        "streams": 28, "join": 25, "notebook": 22, "python": 22, "table": 20, "window": 20,
        "kafka": 19, "topology": 16}


def test_demo_prints_the_live_counts_and_the_graph(tmp_path):
    port = free_port()
    done = kslab("demo", "--port", str(port), "--out", str(tmp_path), timeout=120)
    assert done.returncode == 0, done.stderr
    graph = tmp_path / "word-count.svg"
    assert done.stdout == (
        f"kslab demo: local broker at 127.0.0.1:{port}\n"
        "produced 40 lines (172 words) to text-lines; counts read back from word-counts-out:\n"
        "  streams   28\n"
        "  join      25\n"
        "  notebook  22\n"
        "  python    22\n"
        "  table     20\n"
        "  window    20\n"
        "  kafka     19\n"
        "  topology  16\n"
        "the live counts equal the TopologyTestDriver's for the same input\n"
        f"graph: {graph}\n"
    )
    root = ElementTree.fromstring(graph.read_text())
    labels = {"".join(t.itertext()) for t in root.iter("{http://www.w3.org/2000/svg}text")}
    assert {"text-lines", "word-counts-out", "word-counts"} <= labels
    # nothing else: no client of the demo outlives its broker to log a lost connection
    assert re.fullmatch(r"kslab demo: done in \d+\.\d s\n", done.stderr), done.stderr


def test_demo_with_fewer_lines_counts_those():
    lines = generate_lines(3)
    expected = Counter(w for line in lines for w in line.split())
    done = kslab("demo", "--lines", "3", timeout=120)
    assert done.returncode == 0, done.stderr
    printed = {}
    for row in done.stdout.splitlines():
        if row.startswith("  "):
            word, count = row.split()
            printed[word] = int(count)
    assert printed == expected
    graph = done.stdout.splitlines()[-1].removeprefix("graph: ")
    assert graph.endswith("/word-count.svg") and "kslab-demo-" in graph
    assert Path(graph).is_file()
    shutil.rmtree(Path(graph).parent)
