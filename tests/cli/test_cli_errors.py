"""Every subcommand has ``--help``; every wrong target is one line on stderr and exit code 2."""

from __future__ import annotations

import pytest
from cli_fixtures import TARGETS, kslab

OFFER = ("it defines builder (StreamsBuilder), topology (Topology), word_count_builder() "
         "(function), make_topology() (function), returns_a_number() (function), "
         "enrichment() (function), failing() (function)")


def test_top_level_help_lists_every_subcommand():
    done = kslab("--help")
    assert done.returncode == 0
    for name in ["broker", "run", "export", "describe", "lab", "demo"]:
        assert f"    {name} " in done.stdout


@pytest.mark.parametrize(("command", "expected"), [
    ("broker", "--port PORT"),
    ("run", "--bootstrap-servers HOST:PORT"),
    ("describe", "--format {text,dot,svg,json}"),
    ("lab", "--broker-port PORT"),
    ("demo", "--lines LINES"),
    ("export", "usage: kslab export"),
])
def test_each_subcommand_has_help(command, expected):
    done = kslab(command, "--help")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"usage: kslab {command}")
    assert expected in done.stdout


def test_no_subcommand_and_an_unknown_one_are_usage_errors():
    assert kslab().returncode == 2
    done = kslab("frobnicate")
    assert done.returncode == 2
    assert "invalid choice: 'frobnicate'" in done.stderr


@pytest.mark.parametrize(("target", "message"), [
    ("missing.py:topology", "no such file: missing.py"),
    ("tests/cli/nowhere.py", "no such file: tests/cli/nowhere.py"),
    ("no_such_module:topology",
     "no module named 'no_such_module' (nor a file no_such_module); check the name and sys.path"),
    ("kslab.no_such:topology",
     "no module named 'kslab.no_such' (nor a file kslab.no_such); check the name and sys.path"),
    (f"{TARGETS}:nope", f"{TARGETS} has no 'nope'; {OFFER}"),
    (f"{TARGETS}:not_a_topology",
     f"{TARGETS}:not_a_topology is a dict, not a ks.Topology, a ks.StreamsBuilder or a function "
     f"returning one; {OFFER}"),
    (f"{TARGETS}:returns_a_number",
     f"{TARGETS}:returns_a_number() returned an int, not a ks.Topology or ks.StreamsBuilder; "
     f"return builder.build() or the builder"),
    (f"{TARGETS}:needs_arguments",
     f"{TARGETS}:needs_arguments is a function that needs arguments; kslab calls it with none, "
     f"so give its parameters defaults or name a topology"),
    (TARGETS, f"name the topology in {TARGETS}: write {TARGETS}:VAR; {OFFER}"),
    ("kslab.cli.demo", "name the topology in kslab.cli.demo: write kslab.cli.demo:VAR; "
                       "it defines word_count() (function)"),
    (":topology", "no file or module in ':topology'; write FILE.py:VAR or package.module:VAR"),
])
def test_wrong_targets_are_one_line_and_exit_2(target, message):
    done = kslab("describe", target)
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr == f"kslab describe: error: {message}\n"


@pytest.mark.parametrize(("target", "message"), [
    ("missing.py:topology", "no such file: missing.py"),
    (f"{TARGETS}:nope", f"{TARGETS} has no 'nope'; {OFFER}"),
    (f"{TARGETS}:returns_a_number",
     f"{TARGETS}:returns_a_number() returned an int, not a ks.Topology or ks.StreamsBuilder; "
     f"return builder.build() or the builder"),
])
def test_run_resolves_targets_the_same_way(target, message):
    done = kslab("run", target, "--bootstrap-servers", "127.0.0.1:1")
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == f"kslab run: error: {message}\n"


def test_describe_refuses_an_unknown_format():
    done = kslab("describe", f"{TARGETS}:topology", "--format", "png")
    assert done.returncode == 2
    assert "argument --format/-f: invalid choice: 'png'" in done.stderr
    assert "Traceback" not in done.stderr


def test_run_without_brokers_says_where_to_give_them():
    done = kslab("run", f"{TARGETS}:topology")
    assert done.returncode == 2
    assert done.stderr == ("kslab run: error: no brokers: pass --bootstrap-servers HOST:PORT, set "
                           "bootstrap.servers in the --config file, or set "
                           "KSLAB_BOOTSTRAP_SERVERS\n")


def test_run_with_a_missing_or_broken_config_file(tmp_path):
    done = kslab("run", f"{TARGETS}:topology", "--config", str(tmp_path / "nope.toml"))
    assert (done.returncode, done.stderr) == (
        2, f"kslab run: error: no such config file: {tmp_path / 'nope.toml'}\n")
    bad = tmp_path / "bad.toml"
    bad.write_text('"application.id" = \n')
    done = kslab("run", f"{TARGETS}:topology", "--config", str(bad))
    assert done.returncode == 2
    assert done.stderr.startswith(f"kslab run: error: config file {bad} is not valid TOML: ")
    assert done.stderr.count("\n") == 1


def test_run_refuses_an_unknown_property_with_kafka_streams_message():
    done = kslab("run", f"{TARGETS}:topology", "--bootstrap-servers", "127.0.0.1:1",
                 "--set", "comit.interval.ms=100")
    assert done.returncode == 2
    assert done.stderr.startswith("kslab run: error: ")
    assert "comit.interval.ms" in done.stderr and done.stderr.count("\n") == 1


def test_run_refuses_a_malformed_setting():
    done = kslab("run", f"{TARGETS}:topology", "--set", "commit.interval.ms")
    assert done.returncode == 2
    assert done.stderr == ("kslab run: error: --set expects KEY=VALUE (e.g. "
                           "commit.interval.ms=100); got 'commit.interval.ms'\n")


def test_demo_refuses_zero_lines():
    done = kslab("demo", "--lines", "0")
    assert (done.returncode, done.stderr) == (
        2, "kslab demo: error: --lines must be at least 1; got 0\n")


def test_export_reaches_the_exporter(tmp_path):
    done = kslab("export", str(tmp_path / "missing.ipynb"), "-o", str(tmp_path / "app"))
    assert done.returncode == 2  # the exporter's own one-line error (its wording is H1's)
    assert done.stderr.startswith("kslab export: error: ")
    assert str(tmp_path / "missing.ipynb") in done.stderr and done.stderr.count("\n") == 1


def test_a_syntax_error_in_the_target_is_one_line(tmp_path):
    app = tmp_path / "broken.py"
    app.write_text("import kslab as ks\n\ntopology = ks.Topology(\n")
    done = kslab("describe", f"{app}:topology")
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (f"kslab describe: error: importing {app}: {app}, line 3: "
                           "SyntaxError: '(' was never closed\n")


def test_an_exception_in_the_target_shows_its_traceback_and_one_line(tmp_path):
    app = tmp_path / "raising.py"
    app.write_text("def build_topology():\n    return {}['missing']\n")
    done = kslab("describe", str(app))
    assert (done.returncode, done.stdout) == (1, "")
    lines = done.stderr.splitlines()
    assert lines[0] == "Traceback (most recent call last):"
    assert f'  File "{app}", line 2, in build_topology' in lines
    assert lines[-1] == (f"kslab describe: error: calling {app}:build_topology() raised "
                         "KeyError: 'missing' (traceback above)")


def test_a_topology_error_while_building_is_one_line(tmp_path):
    app = tmp_path / "clash.py"
    app.write_text("import kslab as ks\n\nbuilder = ks.StreamsBuilder()\n"
                   "builder.stream('a').to('b')\nbuilder.stream('c').process(lambda: None, "
                   "'no-such-store')\n")
    done = kslab("describe", f"{app}:builder")
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.startswith(f"kslab describe: error: building {app}:builder: ")
    assert "no-such-store" in done.stderr and done.stderr.count("\n") == 1
