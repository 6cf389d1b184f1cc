"""The %kslab magic on IPython's test shell: describe, drive, and one-line user errors."""

from __future__ import annotations

import pytest
from IPython.core.error import UsageError

from kslab.notebook import options
from tests.notebook.fixtures import lines_frame, word_count
from tests.notebook.test_widgets import FakeComm


@pytest.fixture
def ip(monkeypatch):
    import comm
    from IPython.testing.globalipapp import get_ipython

    monkeypatch.setattr(comm, "create_comm", FakeComm)
    monkeypatch.setattr(options, "renderer", "builtin")
    shell = get_ipython()
    shell.extension_manager.load_extension("kslab")
    builder, handles = word_count(lines_frame())
    shell.user_ns.update(builder=builder, counts=handles["counts"], frame=lines_frame(),
                         handles=handles, number=3)
    yield shell
    for name in ("builder", "counts", "frame", "handles", "number"):
        shell.user_ns.pop(name, None)


def magic(ip, line):
    return ip.run_line_magic("kslab", line)


def test_describe_prints_the_topology(ip, capsys):
    magic(ip, "describe counts")
    out = capsys.readouterr().out
    assert out.startswith("Topologies:\n   Sub-topology: 0\n")
    magic(ip, "describe handles['words']")
    assert "KSTREAM-FLATMAPVALUES-0000000001" in capsys.readouterr().out


def test_drive_opens_the_explorer_on_the_samples_or_given_frames(ip):
    explorer = magic(ip, "drive builder")
    assert type(explorer).__name__ == "DriverExplorer"
    assert len(explorer.events) == 3
    explorer.step()
    assert explorer.position == 1
    explorer.close()
    explorer = magic(ip, "drive counts lines=frame")
    assert len(explorer.events) == 3
    explorer.close()


@pytest.mark.parametrize(("line", "message"), [
    ("drive missing", "no variable 'missing' in this notebook; define it in a cell above"),
    ("drive builder lines=nope", "no variable 'nope' in this notebook"),
    ("drive builder lines", "'lines' is not TOPIC=DFVAR; write e.g. orders=orders_df"),
    ("describe number", "number is a int, not a StreamsBuilder, Topology, KStream or KTable"),
    ("frobnicate", "%kslab has no command 'frobnicate'"),
    ("export -o app", "%kslab export: cannot tell which notebook this kernel runs (no Jupyter "
                      "session path); give it: %kslab export path/to/notebook.ipynb -o DIR"),
    ("", "usage: %kslab describe|drive|broker|promote"),
    ("broker restart", "usage: %kslab broker start|stop|status"),
])
def test_user_mistakes_are_one_line_usage_errors(ip, line, message):
    with pytest.raises(UsageError) as err:
        magic(ip, line)
    assert message in str(err.value)
    assert "\n" not in str(err.value)


def test_drive_without_samples_says_what_to_pass(ip):
    bare, _ = word_count()
    ip.user_ns["bare"] = bare
    with pytest.raises(UsageError, match="nothing to drive: bare has no sample= frames"):
        magic(ip, "drive bare")


def test_the_magic_documents_itself(ip):
    doc = ip.find_line_magic("kslab").__doc__
    for usage in ("%kslab describe VAR", "%kslab drive VAR [TOPIC=DFVAR ...]",
                  "%kslab broker start|stop|status", "%kslab promote VAR [--bootstrap-servers",
                  "%kslab export [NOTEBOOK] [-o DIR]"):
        assert usage in doc
