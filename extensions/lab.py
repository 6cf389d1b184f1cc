"""``make lab``: install the kslab kernel, start a local broker if there is one, run JupyterLab.

JupyterLab runs in the foreground on 127.0.0.1 with the kslab kernel as the default, on working
copies of notebooks/ in lab-workspace/ (git ignores it; ``KSLAB_LAB_DIR`` moves it): running
and saving a notebook never dirties the committed ones, and a copy the user changed is never
overwritten (delete it to get the committed one back on the next start). The broker
(``ks.LocalBroker``) lives exactly as long as JupyterLab does, and its address is handed to
kernels as ``KSLAB_BOOTSTRAP_SERVERS``. Invariant: however JupyterLab ends (Ctrl-C twice,
``jupyter lab stop``, SIGTERM), the broker is stopped before this exits.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from install import install  # noqa: E402


def start_broker(port: int | None) -> Any:
    """A started ``LocalBroker`` on ``port`` (a free one for ``None``), or ``None`` when the
    runtime or broker is missing or the port is taken."""
    try:
        from kslab.runtime.broker import LocalBroker
    except ImportError:
        print("kslab: no live runtime in this kslab: JupyterLab starts without a local broker")
        return None
    try:
        return LocalBroker(port).start()
    except Exception as exc:  # the broker package missing, the port taken...
        print(f"kslab: no local broker ({exc}); JupyterLab starts without one")
        return None


NOTEBOOKS = HERE.parent / "notebooks"
WORKSPACE_ENV = "KSLAB_LAB_DIR"


def prepare_workspace(source: Path, workspace: Path) -> list[str]:
    """Copy each notebook of ``source`` that ``workspace`` lacks; return the names copied."""
    workspace.mkdir(parents=True, exist_ok=True)
    copied = []
    for notebook in sorted(source.glob("*.ipynb")):
        if not (workspace / notebook.name).exists():
            shutil.copy2(notebook, workspace / notebook.name)
            copied.append(notebook.name)
    return copied


def main(argv: list[str]) -> int:
    """Run JupyterLab (extra arguments are passed on) with the broker around it."""
    prefix = Path(sys.prefix)
    install(prefix)
    workspace = Path(os.environ.get(WORKSPACE_ENV) or HERE.parent / "lab-workspace")
    copied = prepare_workspace(NOTEBOOKS, workspace)
    print(f"kslab: serving working copies in {workspace} ({len(copied)} copied from notebooks/, "
          "which stays as committed; delete a copy to get it back)")
    asked = os.environ.get("KSLAB_BROKER_PORT")  # else a free port: a fixed one may be taken
    broker = start_broker(int(asked) if asked else None)
    env = dict(os.environ)
    if broker is not None:
        env["KSLAB_BOOTSTRAP_SERVERS"] = broker.bootstrap_servers
        # the lab's own broker: %kslab promote may clear an earlier run's topics on it
        env["KSLAB_LAB_BROKER"] = broker.bootstrap_servers
        print(f"kslab: local broker at {broker.bootstrap_servers}")
    command = [
        str(Path(sys.executable).parent / "jupyter"), "lab",
        f"--notebook-dir={workspace}",
        "--ServerApp.ip=127.0.0.1",
        "--MultiKernelManager.default_kernel_name=kslab",
        *(["--allow-root"] if hasattr(os, "geteuid") and os.geteuid() == 0 else []),
        *argv,
    ]
    lab = subprocess.Popen(command, env=env)
    signal.signal(signal.SIGTERM, lambda *_: lab.terminate())
    try:
        while True:
            try:
                return lab.wait()
            except KeyboardInterrupt:  # JupyterLab asks to confirm; it decides when to end
                continue
    finally:
        if broker is not None:
            broker.stop()
            print("kslab: local broker stopped")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
