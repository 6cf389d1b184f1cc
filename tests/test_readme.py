"""The README's quickstart runs as written and prints what it promises."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

README = Path(__file__).resolve().parent.parent / "README.md"


def test_quickstart_runs_as_written():
    text = README.read_text()
    block = re.search(r"## Quickstart\n\n```python\n(.*?)```", text, re.S).group(1)
    assert 10 <= len(block.strip().splitlines()) <= 25
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(block, "README quickstart", "exec"), {})
    printed = out.getvalue()
    assert "Sub-topology: 0" in printed
    assert "[KeyValue(key='a', value='HELLO'), KeyValue(key='b', value='KAFKA')]" in printed


def test_readme_shows_both_front_door_commands():
    text = README.read_text()
    assert "make test" in text
    assert "make lab" in text


def test_dsl_example_runs_as_written():
    text = README.read_text()
    block = re.search(r"## The DSL\n.*?```python\n(.*?)```", text, re.S).group(1)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(block, "README DSL", "exec"), {})
    assert "{'kafka': 2, 'streams': 1, 'lab': 1}" in out.getvalue()


def test_schema_registry_example_runs_as_written():
    text = README.read_text()
    block = re.search(r"## Serdes with a schema registry\n.*?```python\n(.*?)```", text,
                      re.S).group(1)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(block, "README schema registry", "exec"), {})
    assert out.getvalue() == "{'id': 1, 'qty': 5}\n['orders-value', 'big-orders-value']\n"
