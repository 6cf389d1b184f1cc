"""The notebook experience: the IPython extension, rich display, previews, magics and widgets.

``%load_ext kslab`` calls ``load_ipython_extension`` here; rich display itself needs no
extension: importing this package (``import kslab`` does) installs ``kslab.notebook.display`` as
the renderer the topology and DSL classes' ``_repr_mimebundle_`` ask ``kslab.topology.display``
for, so the layers below know nothing of Jupyter. Invariant: importing this package imports
neither IPython nor ipywidgets, nor the display module itself; they load on first use.
"""

from __future__ import annotations

from typing import Any

from kslab.notebook._options import Options, options
from kslab.topology import display

__all__ = [
    "DriverExplorer",
    "Options",
    "RuntimeMonitor",
    "StoreBrowser",
    "load_ipython_extension",
    "options",
    "plot_windows",
    "unload_ipython_extension",
]

_LAZY = {
    "DriverExplorer": "kslab.notebook.widgets",
    "StoreBrowser": "kslab.notebook.widgets",
    "RuntimeMonitor": "kslab.notebook.monitor",
    "plot_windows": "kslab.notebook.plot",
}


def _mimebundle(obj: Any, include: Any = None, exclude: Any = None) -> dict[str, str]:
    """The renderer of topologies and DSL handles: ``kslab.notebook.display``, loaded on use."""
    from kslab.notebook.display import mimebundle

    return mimebundle(obj, include, exclude)


display.set_renderer(_mimebundle)


def load_ipython_extension(ipython: Any) -> None:
    """Register the ``%kslab`` magic and the display formatters with ``ipython``, and show
    kslab's warnings about the user's records under the cell that caused them."""
    import kslab.widgets  # noqa: F401 - makes ks.widgets.DriverExplorer reachable
    from kslab.notebook import cell_warnings
    from kslab.notebook.magics import KslabMagics

    ipython.register_magics(KslabMagics)
    _register_formatters(ipython)
    if getattr(ipython, "kernel", None) is not None:  # a Jupyter kernel: its log goes to the
        cell_warnings.install(ipython)  # lab's terminal (a terminal IPython shows it inline)


def unload_ipython_extension(ipython: Any) -> None:
    """Nothing to undo: formatters and magics stay until the kernel restarts."""


def _register_formatters(ipython: Any) -> None:
    """Formatters for kslab objects that carry no ``_repr_mimebundle_`` of their own."""
    from kslab.notebook.display import driver_bundle, mimebundle

    formatter = ipython.display_formatter.mimebundle_formatter
    formatter.for_type_by_name("kslab.testing.driver", "TopologyTestDriver", driver_bundle)
    for windowed in ("TimeWindowedKStream", "SessionWindowedKStream", "WindowedCogroupedKStream"):
        formatter.for_type_by_name("kslab.dsl.windowed", windowed, mimebundle)
    # an app's state reads RUNNING, also inside a tuple or dict (not <State.RUNNING: 2>)
    text = ipython.display_formatter.formatters["text/plain"]
    text.for_type_by_name("kslab.runtime.streams", "State", _state_text)


def _state_text(state: Any, printer: Any, cycle: bool) -> None:
    """IPython's plain-text printer of ``KafkaStreams.State``: its name."""
    printer.text(state.name)


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        msg = f"module 'kslab.notebook' has no attribute '{name}'"
        raise AttributeError(msg)
    import importlib

    return getattr(importlib.import_module(module), name)
