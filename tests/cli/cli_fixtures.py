"""Helpers for the CLI tests: the installed ``kslab`` script run as a subprocess, free ports."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
KSLAB = Path(sys.executable).parent / "kslab"
TARGETS = "tests/cli/cli_targets.py"


def kslab(*args: str, timeout: float = 60, env: dict[str, str] | None = None,
          cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    """Run the console script with ``args`` from the repository root; capture its output."""
    if not KSLAB.exists():
        pytest.fail(f"no {KSLAB}: run `pip install -e .` so the console script exists")
    return subprocess.run([str(KSLAB), *args], capture_output=True, text=True, timeout=timeout,
                          cwd=cwd, env=env if env is not None else clean_env(), check=False)


def clean_env(**extra: str) -> dict[str, str]:
    """The environment without kslab's own variables (a lab's broker must not leak in)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("KSLAB_")}
    env.update(extra)
    return env


def free_port() -> int:
    """A loopback port nobody listens on now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def accepts(port: int) -> bool:
    """Whether something accepts connections on loopback ``port``."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return True
    except OSError:
        return False
