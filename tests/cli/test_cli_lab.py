"""``kslab lab``: JupyterLab on working copies of notebooks/ with the kslab kernel and a local
broker, both stopped by one SIGTERM (what ``make lab`` runs, through the same
extensions/lab.py)."""

from __future__ import annotations

import json
import os
import secrets
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from cli_fixtures import KSLAB, ROOT, accepts, clean_env, free_port


@pytest.mark.slow
def test_lab_serves_the_notebooks_with_a_broker_and_stops_both(tmp_path):
    if not (Path(sys.executable).parent / "jupyter").exists():
        pytest.skip("no jupyter in this environment (pip install 'kslab[notebook]')")
    lab_port, broker_port = free_port(), free_port()
    token = secrets.token_hex(24)  # in the environment, not on a command line ps shows
    env = clean_env(JUPYTER_RUNTIME_DIR=str(tmp_path / "runtime"),
                    JUPYTERLAB_WORKSPACES_DIR=str(tmp_path / "workspaces"),
                    JUPYTER_TOKEN=token, KSLAB_LAB_DIR=str(tmp_path / "workspace"))
    log = (tmp_path / "lab.log").open("w")
    process = subprocess.Popen(
        [str(KSLAB), "lab", "--broker-port", str(broker_port), "--no-browser",
         f"--ServerApp.port={lab_port}"],
        cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
        start_new_session=True)  # its own process group: a failure kills the lab and broker too
    url = f"http://127.0.0.1:{lab_port}"

    def get(path: str) -> object:
        request = urllib.request.Request(f"{url}{path}",
                                         headers={"Authorization": f"token {token}"})
        with urllib.request.urlopen(request, timeout=5) as response:
            return json.load(response)

    try:
        deadline = time.monotonic() + 120  # JupyterLab's start on a loaded machine
        while True:
            try:
                get("/api/status")
                break
            except OSError:
                if time.monotonic() > deadline or process.poll() is not None:
                    pytest.fail("kslab lab did not start: " + (tmp_path / "lab.log").read_text())
                time.sleep(0.3)
        assert accepts(broker_port)
        with pytest.raises(urllib.error.HTTPError) as refused:  # no token: no kernels for
            urllib.request.urlopen(f"{url}/api/contents", timeout=5)  # other local users
        assert refused.value.code == 403
        names = {item["name"] for item in get("/api/contents")["content"]}  # type: ignore[index]
        assert "01-quickstart-word-count.ipynb" in names  # rooted at the working copies
        assert sorted(p.name for p in (tmp_path / "workspace").glob("*.ipynb")) == sorted(
            p.name for p in (ROOT / "notebooks").glob("*.ipynb"))
        specs = get("/api/kernelspecs")
        assert specs["default"] == "kslab"  # type: ignore[index]
        assert "kslab" in specs["kernelspecs"]
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=30)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        log.close()
    output = (tmp_path / "lab.log").read_text()
    assert f"kslab: local broker at 127.0.0.1:{broker_port}" in output
    assert "kslab: local broker stopped" in output
    assert process.returncode == 0, output
    assert not accepts(broker_port)


def test_the_lab_copies_the_notebooks_once_and_keeps_a_changed_copy(tmp_path):
    """Issue 23: the lab serves working copies, so running notebooks never dirties git; a
    copy the user changed survives the next start, a deleted one comes back."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("kslab_lab", ROOT / "extensions" / "lab.py")
    lab = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(lab)
    source = ROOT / "notebooks"
    names = sorted(p.name for p in source.glob("*.ipynb"))
    workspace = tmp_path / "workspace"
    assert lab.prepare_workspace(source, workspace) == names
    edited = workspace / names[0]
    edited.write_text("{}")
    (workspace / names[1]).unlink()
    assert lab.prepare_workspace(source, workspace) == [names[1]]
    assert edited.read_text() == "{}"
    assert (workspace / names[1]).read_bytes() == (source / names[1]).read_bytes()
