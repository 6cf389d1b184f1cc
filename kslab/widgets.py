"""``kslab.widgets``: the notebook widgets, imported from ``kslab.notebook`` on first use.

Invariant: ``import kslab`` never imports this module, and this module imports ipywidgets only
when a widget is asked for, so kslab works without the ``notebook`` extra.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from kslab.notebook.monitor import RuntimeMonitor
    from kslab.notebook.plot import plot_windows
    from kslab.notebook.widgets import DriverExplorer, StoreBrowser

__all__ = ["DriverExplorer", "RuntimeMonitor", "StoreBrowser", "plot_windows"]


def __getattr__(name: str) -> Any:
    if name not in __all__:
        msg = f"module 'kslab.widgets' has no attribute '{name}'"
        raise AttributeError(msg)
    return getattr(importlib.import_module("kslab.notebook"), name)
