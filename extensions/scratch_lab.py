"""A throwaway JupyterLab for the browser test and docs/screenshot.py.

``start_scratch_lab(work, notebook, log)`` copies ``notebook`` into ``work``, installs the kslab
kernel under a private prefix, applies ``extensions/lab``'s settings overrides as user settings,
and serves JupyterLab on a free loopback port with no token; it returns the server process and
its URL once ``/api/status`` answers. ``KERNEL_IDLE`` is the page predicate for "the notebook's
kernel is connected and idle" (the app is exposed as ``window.jupyterapp``).
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import IO

HERE = Path(__file__).resolve().parent

KERNEL_IDLE = """() => {
    const panel = window.jupyterapp && window.jupyterapp.shell.currentWidget;
    const ctx = panel && panel.sessionContext;
    const kernel = ctx && ctx.session && ctx.session.kernel;
    return !!kernel && kernel.connectionStatus === "connected" && kernel.status === "idle";
}"""


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_scratch_lab(work: Path, notebook: Path, log: IO[str] | int = subprocess.DEVNULL,
                      timeout: float = 60.0) -> tuple[subprocess.Popen[bytes], str]:
    """JupyterLab over a copy of ``notebook`` in ``work``; raises RuntimeError if it won't start."""
    prefix, root, settings = work / "prefix", work / "notebooks", work / "settings"
    root.mkdir(parents=True, exist_ok=True)
    shutil.copy(notebook, root / notebook.name)
    subprocess.run([sys.executable, str(HERE / "install.py"), "--prefix", str(prefix)],
                   check=True, capture_output=True)
    overrides = json.loads((HERE / "lab" / "overrides.d" / "kslab.json").read_text())
    for plugin, values in overrides.items():
        package, _, name = plugin.partition(":")
        target = settings / package / f"{name}.jupyterlab-settings"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps(values))
    env = dict(os.environ, JUPYTER_PATH=str(prefix / "share" / "jupyter"),
               JUPYTERLAB_SETTINGS_DIR=str(settings), JUPYTER_RUNTIME_DIR=str(work / "runtime"),
               JUPYTERLAB_WORKSPACES_DIR=str(work / "workspaces"))
    port = _free_port()
    server = subprocess.Popen(
        [str(Path(sys.executable).parent / "jupyter"), "lab", "--no-browser", "--allow-root",
         "--ServerApp.ip=127.0.0.1", f"--ServerApp.port={port}", "--IdentityProvider.token=",
         "--ServerApp.password=", f"--ServerApp.root_dir={root}",
         "--MultiKernelManager.default_kernel_name=kslab", "--LabApp.expose_app_in_browser=True"],
        env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + timeout
    while True:
        try:
            urllib.request.urlopen(f"{url}/api/status", timeout=2)
            return server, url
        except OSError:
            if time.monotonic() > deadline or server.poll() is not None:
                server.kill()
                server.wait()
                msg = "JupyterLab did not start"
                raise RuntimeError(msg) from None
            time.sleep(0.2)


def stop_scratch_lab(server: subprocess.Popen[bytes]) -> None:
    """Terminate the lab, killing it if it has not stopped within 15 s."""
    server.terminate()
    try:
        server.wait(timeout=15)
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait()
