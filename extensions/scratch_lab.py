"""A throwaway JupyterLab for the browser test and docs/screenshot.py.

``start_scratch_lab(work, notebook, log)`` copies ``notebook`` into ``work``, installs the kslab
kernel under a private prefix, applies ``extensions/lab``'s settings overrides as user settings,
and serves JupyterLab on a free loopback port; it returns a ``ScratchLab`` (the server process,
its URL and its token) once ``/api/status`` answers. Like ``make lab``, the server requires a
random token: without one any local user could start a kernel and run code as this user. The
token goes to the server in its environment (``JUPYTER_TOKEN``), not on its command line, which
every local user can read; ``ScratchLab.url_for(path)`` is a first visit's URL with the token.
``KERNEL_IDLE`` is the page predicate for "the notebook's kernel is connected and idle" (the app
is exposed as ``window.jupyterapp``).
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass
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


@dataclass(frozen=True)
class ScratchLab:
    """A running scratch JupyterLab: its process, its base URL and the token it requires."""

    server: subprocess.Popen[bytes]
    url: str
    token: str

    def url_for(self, path: str) -> str:
        """``path`` on the lab with the token, for a browser's first visit (it keeps a cookie)."""
        return f"{self.url}/{path.lstrip('/')}?token={self.token}"


def lab_command(port: int, root: Path) -> list[str]:
    """``jupyter lab`` on 127.0.0.1:``port`` over ``root`` with the kslab kernel as default
    (no token or password here: the environment carries the token, see ``lab_env``)."""
    return [str(Path(sys.executable).parent / "jupyter"), "lab", "--no-browser", "--allow-root",
            "--ServerApp.ip=127.0.0.1", f"--ServerApp.port={port}",
            f"--ServerApp.root_dir={root}", "--MultiKernelManager.default_kernel_name=kslab",
            "--LabApp.expose_app_in_browser=True"]


def lab_env(work: Path) -> dict[str, str]:
    """The server's environment: private Jupyter directories under ``work`` and a new random
    token (``JUPYTER_TOKEN``, 48 hex digits as Jupyter's own)."""
    return dict(os.environ, JUPYTER_PATH=str(work / "prefix" / "share" / "jupyter"),
                JUPYTERLAB_SETTINGS_DIR=str(work / "settings"),
                JUPYTER_RUNTIME_DIR=str(work / "runtime"),
                JUPYTERLAB_WORKSPACES_DIR=str(work / "workspaces"),
                JUPYTER_TOKEN=secrets.token_hex(24))


def start_scratch_lab(work: Path, notebook: Path, log: IO[str] | int = subprocess.DEVNULL,
                      timeout: float = 60.0) -> ScratchLab:
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
    env, port = lab_env(work), _free_port()
    server = subprocess.Popen(lab_command(port, root), env=env, stdout=log,
                              stderr=subprocess.STDOUT)
    lab = ScratchLab(server, f"http://127.0.0.1:{port}", env["JUPYTER_TOKEN"])
    status = urllib.request.Request(f"{lab.url}/api/status",
                                    headers={"Authorization": f"token {lab.token}"})
    deadline = time.monotonic() + timeout
    while True:
        try:
            urllib.request.urlopen(status, timeout=2)
            return lab
        except OSError:
            if time.monotonic() > deadline or server.poll() is not None:
                server.kill()
                server.wait()
                msg = "JupyterLab did not start"
                raise RuntimeError(msg) from None
            time.sleep(0.2)


def stop_scratch_lab(lab: ScratchLab) -> None:
    """Terminate the lab, killing it if it has not stopped within 15 s."""
    lab.server.terminate()
    try:
        lab.server.wait(timeout=15)
    except subprocess.TimeoutExpired:
        lab.server.kill()
        lab.server.wait()
