"""Binder for real (issue 23 item 10): what repo2docker does, replayed here without docker.

A copy of the repository's tracked files, a fresh venv, ``pip install -r binder/requirements.txt``
(repo2docker's first step), ``binder/postBuild`` as it is, then ``binder/start`` starting the
broker and exec'ing a script that runs every notebook in notebooks/ headlessly with nbclient on
the kslab kernel postBuild installed. Slow (the installs, five notebooks): its own xdist group
(conftest.py), so it runs beside the other tests. The venv has this machine's Python (3.11),
not runtime.txt's 3.12: repo2docker picks that one itself.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest
from cli_fixtures import ROOT, clean_env, free_port

RUN_ALL = """
import json, sys
from pathlib import Path
import nbclient, nbformat
results = {}
for path in sorted(Path("notebooks").glob("*.ipynb")):
    nb = nbformat.read(path, as_version=4)
    nbclient.NotebookClient(nb, timeout=300, resources={"metadata": {"path": "notebooks"}}
                            ).execute()
    errors = [o.get("ename", "") + ": " + o.get("evalue", "") for c in nb.cells
              if c.cell_type == "code" for o in c.get("outputs", []) if o.output_type == "error"]
    results[path.name] = {"cells": len(nb.cells), "errors": errors}
print(json.dumps({"results": results, "kslab": __import__("kslab").__file__,
                  "broker_pid": int(__import__("os").environ["KSLAB_BROKER_PID"])}))
"""


@pytest.mark.slow
def test_a_fresh_venv_from_binder_runs_every_notebook(tmp_path):
    repo, venv = tmp_path / "repo", tmp_path / "venv"
    tracked = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True,
                             check=True).stdout.decode().split("\0")
    for name in filter(None, tracked):
        source = ROOT / name
        if source.is_file():
            (repo / name).parent.mkdir(parents=True, exist_ok=True)
            (repo / name).write_bytes(source.read_bytes())
            (repo / name).chmod(source.stat().st_mode)
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    env = clean_env(PATH=f"{venv / 'bin'}{os.pathsep}{os.environ['PATH']}",
                    KSLAB_BROKER_PORT=str(free_port()),
                    KSLAB_BROKER_LOG=str(tmp_path / "broker.log"))
    for name in ("PYTHONPATH", "JUPYTER_PATH", "VIRTUAL_ENV"):
        env.pop(name, None)
    started = time.monotonic()
    for step in (["python", "-m", "pip", "install", "-r", "binder/requirements.txt"],
                 ["binder/postBuild"]):
        done = subprocess.run(step, cwd=repo, env=env, capture_output=True, text=True,
                              timeout=1800, check=False)
        assert done.returncode == 0, f"{step}\n{done.stdout[-3000:]}{done.stderr[-3000:]}"
    installed = time.monotonic() - started
    done = subprocess.run(["binder/start", "python", "-c", RUN_ALL], cwd=repo, env=env,
                          capture_output=True, text=True, timeout=2400, check=False)
    ran = time.monotonic() - started - installed
    print(f"binder fresh venv: installs {installed:.0f} s, five notebooks {ran:.0f} s")
    assert done.returncode == 0, done.stderr[-5000:]
    seen = json.loads(done.stdout.splitlines()[-1])
    os.kill(seen["broker_pid"], signal.SIGTERM)  # the broker binder/start left running
    assert seen["kslab"] == str(repo / "kslab" / "__init__.py")  # postBuild's editable install
    assert sorted(seen["results"]) == sorted(p.name for p in (ROOT / "notebooks").glob("*.ipynb"))
    assert {name: r["errors"] for name, r in seen["results"].items()} == {
        name: [] for name in seen["results"]}
